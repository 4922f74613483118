/*
 * Copyright (c) 2026 The OVS PFC authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

/* Unit tests of lib/pfc-ets.c, the ETS scheduler and the port shaper, with
 * a simulated egress: traffic class queues that senders keep backlogged,
 * a link or shaper that drains them, and pauses.  Time is a fake TSC. */

#include <config.h>
#undef NDEBUG
#include "pfc-ets.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "command-line.h"
#include "openvswitch/util.h"
#include "ovstest.h"
#include "random.h"
#include "util.h"

/* A simulated egress: eight backlogged traffic class queues whose packets
 * have random lengths, drained by pfc_ets_next() one burst at a time. */
struct sim {
    struct pfc_ets_params p;
    struct pfc_ets s;
    uint8_t backlog;                    /* Classes that have packets. */
    uint8_t paused;                     /* Classes that a pause blocks. */
    uint32_t head[PFC_ETS_N_TCS];       /* Length of each head packet. */
    uint64_t bytes[PFC_ETS_N_TCS];      /* Bytes sent per class. */
    uint64_t pkts[PFC_ETS_N_TCS];
    uint64_t total;
};

static uint32_t
rand_len(void)
{
    return 64 + random_range(1518 - 64 + 1);
}

static void
sim_init(struct sim *sim, uint8_t ets, const uint8_t bw[PFC_ETS_N_TCS],
         uint8_t backlog)
{
    memset(sim, 0, sizeof *sim);
    ovs_assert(!pfc_ets_validate(ets, bw, NULL));
    pfc_ets_params_init(&sim->p, ets, bw, 1518);
    pfc_ets_init(&sim->s);
    sim->backlog = backlog;
    for (int tc = 0; tc < PFC_ETS_N_TCS; tc++) {
        sim->head[tc] = rand_len();
    }
}

/* Sends one burst of at most 32 packets, cut by pfc_ets_burst() as the
 * glue's drain does: returns the class, or -1 if none is ready. */
#define SIM_BURST 32

static int
sim_burst(struct sim *sim)
{
    uint32_t lens[SIM_BURST];
    uint64_t budget, sum = 0;
    int tc, n;

    tc = pfc_ets_next(&sim->s, &sim->p, sim->backlog & ~sim->paused,
                      sim->head, &budget);
    if (tc < 0) {
        return tc;
    }
    ovs_assert((sim->backlog & ~sim->paused) >> tc & 1);
    ovs_assert(budget >= sim->head[tc]);
    lens[0] = sim->head[tc];
    for (int i = 1; i < SIM_BURST; i++) {
        lens[i] = rand_len();
    }
    n = pfc_ets_burst(lens, SIM_BURST, budget, INT64_MAX);
    ovs_assert(n >= 1 && n <= SIM_BURST);
    for (int i = 0; i < n; i++) {
        sum += lens[i];
    }
    ovs_assert(sum <= budget);
    sim->bytes[tc] += sum;
    sim->pkts[tc] += n;
    sim->head[tc] = n < SIM_BURST ? lens[n] : rand_len();
    pfc_ets_sent(&sim->s, &sim->p, tc, sum);
    sim->total += sum;
    return tc;
}

static void
sim_reset_counts(struct sim *sim)
{
    memset(sim->bytes, 0, sizeof sim->bytes);
    memset(sim->pkts, 0, sizeof sim->pkts);
    sim->total = 0;
}

/* Checks that class 'tc' got 'want' (a fraction) of the bytes, within a
 * relative error of 'tol'. */
static void
check_share(const struct sim *sim, int tc, double want, double tol)
{
    double got = (double) sim->bytes[tc] / sim->total;

    printf("tc%d: %.4f of the bytes (want %.4f)\n", tc, got, want);
    ovs_assert(fabs(got - want) <= tol * want);
}

/* Strict priority: the highest ready class first, strict classes before
 * ETS classes, and a strict class that has a backlog starves the others. */
static void
test_strict(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    uint8_t bw[PFC_ETS_N_TCS] = { [0] = 60, [1] = 40 };
    struct sim sim;

    /* Every class strict (the default). */
    memset(bw, 0, sizeof bw);
    sim_init(&sim, 0, bw, 0x4a);        /* Classes 1, 3 and 6. */
    ovs_assert(sim_burst(&sim) == 6);
    ovs_assert(sim_burst(&sim) == 6);
    sim.backlog &= ~0x40;
    ovs_assert(sim_burst(&sim) == 3);
    sim.paused = 0x08;
    ovs_assert(sim_burst(&sim) == 1);
    sim.backlog = sim.paused = 0;
    ovs_assert(sim_burst(&sim) == -1);

    /* Classes 0 and 1 ETS, 5 strict: 5 takes everything while it has a
     * backlog, however many rounds. */
    bw[0] = 60;
    bw[1] = 40;
    sim_init(&sim, 0x03, bw, 0x23);
    for (int i = 0; i < 100000; i++) {
        ovs_assert(sim_burst(&sim) == 5);
    }
    ovs_assert(!sim.bytes[0] && !sim.bytes[1]);
    /* Paused, it leaves the link to the ETS classes. */
    sim.paused = 0x20;
    sim_reset_counts(&sim);
    for (int i = 0; i < 100000; i++) {
        ovs_assert(sim_burst(&sim) != 5);
    }
    check_share(&sim, 0, 0.6, 0.01);
    check_share(&sim, 1, 0.4, 0.01);
    printf("strict: ok\n");
}

/* Deficit round robin: byte shares within 1% of tc-bw over many rounds,
 * with random packet lengths, for several sets of bandwidths. */
static void
test_drr_shares(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    static const uint8_t sets[][PFC_ETS_N_TCS] = {
        { 50, 30, 20 },
        { 10, 0, 0, 90 },
        { 1, 99 },
        { 12, 13, 12, 13, 12, 13, 12, 13 },
        { 34, 33, 33 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(sets); i++) {
        uint8_t ets = 0;
        struct sim sim;

        for (int tc = 0; tc < PFC_ETS_N_TCS; tc++) {
            ets |= (sets[i][tc] != 0) << tc;
        }
        sim_init(&sim, ets, sets[i], ets);
        while (sim.total < 2000000000ULL) {
            sim_burst(&sim);
        }
        for (int tc = 0; tc < PFC_ETS_N_TCS; tc++) {
            if (ets >> tc & 1) {
                check_share(&sim, tc, sets[i][tc] / 100.0, 0.01);
            } else {
                ovs_assert(!sim.bytes[tc]);
            }
        }
    }
    printf("drr-shares: ok\n");
}

/* A paused class's share goes to the others, in proportion to theirs, and
 * it does not burst when the pause ends: its credit was lost. */
static void
test_paused(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    uint8_t bw[PFC_ETS_N_TCS] = { 50, 30, 20 };
    struct sim sim;

    sim_init(&sim, 0x07, bw, 0x07);
    for (int round = 0; round < 3; round++) {
        /* Class 0 (50%) paused: 1 and 2 share 60:40. */
        sim.paused = 0x01;
        sim_reset_counts(&sim);
        while (sim.total < 500000000ULL) {
            sim_burst(&sim);
        }
        ovs_assert(!sim.bytes[0]);
        check_share(&sim, 1, 0.6, 0.01);
        check_share(&sim, 2, 0.4, 0.01);

        /* Resumed: back to 50:30:20, and over the first round it sends no
         * more than one quantum. */
        sim.paused = 0;
        sim_reset_counts(&sim);
        for (int i = 0; i < 3; i++) {
            sim_burst(&sim);
        }
        ovs_assert(sim.bytes[0] <= sim.p.quantum[0]);
        while (sim.total < 500000000ULL) {
            sim_burst(&sim);
        }
        check_share(&sim, 0, 0.5, 0.01);
        check_share(&sim, 1, 0.3, 0.01);
        check_share(&sim, 2, 0.2, 0.01);
    }

    /* Every ETS class paused: nothing is ready. */
    sim.paused = 0x07;
    ovs_assert(sim_burst(&sim) == -1);
    printf("paused: ok\n");
}

/* A class that empties loses its credit; one that joins starts with one
 * quantum at its turn; only the backlogged classes share. */
static void
test_idle(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    uint8_t bw[PFC_ETS_N_TCS] = { 25, 25, 50 };
    struct sim sim;

    sim_init(&sim, 0x07, bw, 0x03);
    while (sim.total < 200000000ULL) {
        sim_burst(&sim);
    }
    ovs_assert(!sim.bytes[2]);
    check_share(&sim, 0, 0.5, 0.01);
    check_share(&sim, 1, 0.5, 0.01);

    sim.backlog = 0x07;
    sim_reset_counts(&sim);
    while (sim.total < 200000000ULL) {
        sim_burst(&sim);
    }
    check_share(&sim, 2, 0.5, 0.01);

    sim.backlog = 0x04;
    ovs_assert(sim_burst(&sim) == 2);
    ovs_assert(!sim.s.deficit[0] && !sim.s.deficit[1]);
    printf("idle: ok\n");
}

/* pfc_ets_validate() and pfc_ets_params_init(). */
static void
test_params(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    uint8_t bw[PFC_ETS_N_TCS] = { 50, 30, 20 };
    struct pfc_ets_params p;
    char *err = NULL;

    ovs_assert(!pfc_ets_validate(0x07, bw, &err));
    ovs_assert(!pfc_ets_validate(0, bw, &err));     /* All strict. */
    ovs_assert(pfc_ets_validate(0x03, bw, &err) == EINVAL);
    ovs_assert(strstr(err, "sums to 80"));
    free(err);
    bw[3] = 0;
    ovs_assert(pfc_ets_validate(0x0f, bw, &err) == EINVAL);
    ovs_assert(strstr(err, "queue 3: other_config:tc-bw=0 is out of range"));
    free(err);

    pfc_ets_params_init(&p, 0x07, bw, 1518);
    ovs_assert(p.quantum[2] >= 1518);
    ovs_assert(p.quantum[0] * 2 == p.quantum[2] * 5);
    ovs_assert(!p.quantum[3] && !p.bw[3]);
    printf("params: ok\n");
}

/* The shaper: a saturating sender gets the configured rate within 1%, at
 * rates from 1 Mb/s to 400 Gb/s and at two clock rates; the bucket bounds
 * a burst after an idle time. */
static void
test_shaper(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    static const uint64_t rates[] = {
        1000000ULL, 3333333ULL, 100000000ULL, 1000000000ULL,
        9876543210ULL, 25000000000ULL, 100000000000ULL, 400000000000ULL,
    };
    static const uint64_t hzs[] = { 2400000000ULL, 1000000000ULL };

    for (size_t h = 0; h < ARRAY_SIZE(hzs); h++) {
        for (size_t i = 0; i < ARRAY_SIZE(rates); i++) {
            struct pfc_shaper_params p;
            struct pfc_shaper s;
            uint64_t hz = hzs[h];
            uint64_t dur = hz * (rates[i] < 10000000 ? 20 : 1);
            uint64_t step = MAX(hz / 100000, 1);    /* A poll every 10 us. */
            uint64_t sent = 0;
            double got, want;

            pfc_shaper_params_init(&p, rates[i], hz, 1518);
            pfc_shaper_init(&s, &p, 0);
            /* Empty the bucket first, so that only the rate counts. */
            pfc_shaper_take(&s, p.depth);
            for (uint64_t now = 0; now < dur; now += step) {
                while (pfc_shaper_budget(&s, &p, now) > 0) {
                    uint32_t len = rand_len();

                    pfc_shaper_take(&s, len);
                    sent += len;
                }
            }
            got = sent * 8.0 * hz / dur;
            want = rates[i];
            printf("%"PRIu64" Hz, %"PRIu64" b/s: %.0f b/s (%+.3f%%)\n",
                   hz, rates[i], got, (got / want - 1) * 100);
            ovs_assert(fabs(got / want - 1) <= 0.01);

            /* After 1 s idle: one bucket, no more. */
            uint64_t burst = 0, later = dur + hz;

            while (pfc_shaper_budget(&s, &p, later) > 0) {
                pfc_shaper_take(&s, 1000);
                burst += 1000;
            }
            ovs_assert(burst <= (uint64_t) p.depth + 1000);
            ovs_assert(burst >= (uint64_t) p.depth - 1000);
        }
    }

    /* No shaper: always a budget. */
    struct pfc_shaper_params none;
    struct pfc_shaper s;

    pfc_shaper_params_init(&none, 0, 2400000000ULL, 1518);
    pfc_shaper_init(&s, &none, 0);
    ovs_assert(pfc_shaper_budget(&s, &none, 0) > 0);
    printf("shaper: ok\n");
}

/* The figures of make bench: the cost of one scheduling decision and burst
 * (pfc_ets_next() and pfc_ets_sent()), three backlogged ETS classes, in ns
 * and TSC cycles. */
static void
bench(void)
{
    uint8_t bw[PFC_ETS_N_TCS] = { 50, 30, 20 };
    struct timespec a, b;
    struct sim sim;
    int n = 20000000;

    sim_init(&sim, 0x07, bw, 0x07);
    clock_gettime(CLOCK_MONOTONIC, &a);
#if defined(__x86_64__) || defined(__i386__)
    uint64_t c0 = __builtin_ia32_rdtsc();
#endif
    for (int i = 0; i < n; i++) {
        sim_burst(&sim);
    }
#if defined(__x86_64__) || defined(__i386__)
    uint64_t c1 = __builtin_ia32_rdtsc();
#endif
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec));
    uint64_t pkts = 0;

    for (int tc = 0; tc < PFC_ETS_N_TCS; tc++) {
        pkts += sim.pkts[tc];
    }
    printf("ets decision: %.1f ns per burst, %.2f ns per packet "
           "(%"PRIu64" packets in %d bursts; the simulation's own work "
           "included)\n", ns / n, ns / pkts, pkts, n);
#if defined(__x86_64__) || defined(__i386__)
    printf("ets decision: %.1f TSC cycles per burst, %.2f per packet\n",
           (double) (c1 - c0) / n, (double) (c1 - c0) / pkts);
#endif
}

static void
bench_cmd(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    bench();
}

static const struct ovs_cmdl_command commands[] = {
    { "strict", NULL, 0, 0, test_strict, OVS_RO },
    { "drr-shares", NULL, 0, 0, test_drr_shares, OVS_RO },
    { "paused", NULL, 0, 0, test_paused, OVS_RO },
    { "idle", NULL, 0, 0, test_idle, OVS_RO },
    { "params", NULL, 0, 0, test_params, OVS_RO },
    { "shaper", NULL, 0, 0, test_shaper, OVS_RO },
    { "bench", NULL, 0, 0, bench_cmd, OVS_RO },
    { NULL, NULL, 0, 0, NULL, OVS_RO },
};

/* "ovstest test-pfc-ets NAME" runs the test NAME; "ovstest test-pfc-ets bench"
 * the figures of make bench. */
static void
test_pfc_ets_main(int argc, char *argv[])
{
    struct ovs_cmdl_context ctx = {
        .argc = argc - 1,
        .argv = argv + 1,
    };

    set_program_name(argv[0]);
    random_set_seed(0x2ed1);
    ovs_cmdl_run_command(&ctx, commands);
}

OVSTEST_REGISTER("test-pfc-ets", test_pfc_ets_main);
