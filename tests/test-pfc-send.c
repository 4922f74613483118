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

/* Unit tests of lib/pfc-send.c, the send verdict of a tx queue, and a
 * simulated egress that sends, holds and drains by it: pauses that come and
 * go, a tx ring that refuses what does not fit, and the ETS scheduler's
 * burst cut (lib/pfc-ets.c) on the way out. */

#include <config.h>
#undef NDEBUG
#include "pfc-send.h"

#include <string.h>

#include "command-line.h"
#include "openvswitch/util.h"
#include "ovstest.h"
#include "pfc-ets.h"
#include "random.h"
#include "util.h"

static const uint8_t identity[PFC_N_PRIOS] = { 0, 1, 2, 3, 4, 5, 6, 7 };

/* Facts of an idle tx queue: nothing blocked, held or stormed, no shaper,
 * priority 3 lossless, one traffic class per priority. */
static struct pfc_send_facts
idle_facts(void)
{
    struct pfc_send_facts f = {
        .prio_to_tc = identity,
        .lossless = 0x08,
        .tokens = INT64_MAX,
    };
    return f;
}

/* Decides a batch of eight frames of 1,000 bytes, and returns the
 * priorities whose verdict is 'v'.  Checks that the priorities that
 * pfc_send_decide() returns are those whose verdict is PFC_SEND_TX. */
static uint8_t
decided(const struct pfc_send_facts *f, enum pfc_send_verdict v)
{
    uint8_t verdicts[PFC_N_PRIOS];
    uint8_t prios = 0, tx = 0;
    uint8_t sent;

    sent = pfc_send_decide(f, PFC_N_PRIOS * 1000, verdicts);
    for (int p = 0; p < PFC_N_PRIOS; p++) {
        prios |= (verdicts[p] == v) << p;
        tx |= (verdicts[p] == PFC_SEND_TX) << p;
    }
    ovs_assert(sent == tx);
    return prios;
}

/* pfc_send_refused() for the eight priorities: the priorities whose verdict
 * is 'v'. */
static uint8_t
refused(const struct pfc_send_facts *f, enum pfc_send_verdict v)
{
    uint8_t verdicts[PFC_N_PRIOS];
    uint8_t prios = 0;

    pfc_send_refused(f, verdicts);
    for (int p = 0; p < PFC_N_PRIOS; p++) {
        prios |= (verdicts[p] == v) << p;
    }
    return prios;
}

/* Nothing blocked, held or stormed: everything leaves, and the fast path
 * agrees. */
static void
test_idle(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_send_facts f = idle_facts();

    ovs_assert(pfc_send_all_tx(&f));
    ovs_assert(decided(&f, PFC_SEND_TX) == 0xff);
    f.lossless = 0;
    ovs_assert(decided(&f, PFC_SEND_TX) == 0xff);

    /* The fast path's four inputs: any one of them set leaves it. */
    for (int bits = 0; bits < 16; bits++) {
        f = idle_facts();
        f.blocked = bits & 1 ? 0x08 : 0;
        f.nonempty = bits & 2 ? 0x08 : 0;
        f.wd_ignored = bits & 4 ? 0x08 : 0;
        f.tokens = bits & 8 ? 100000 : INT64_MAX;
        ovs_assert(pfc_send_fast(f.blocked, f.nonempty, f.wd_ignored,
                                 f.tokens != INT64_MAX) == !bits);
        ovs_assert(pfc_send_all_tx(&f) == !bits);
    }
    printf("idle: ok\n");
}

/* A paused class holds its priorities, and only them; several priorities in
 * one paused class are all held (a Queue row that groups them). */
static void
test_paused(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    const uint8_t grouped[PFC_N_PRIOS] = { 0, 0, 0, 1, 1, 0, 0, 0 };
    struct pfc_send_facts f = idle_facts();

    f.blocked = 0x08;
    ovs_assert(!pfc_send_all_tx(&f));
    ovs_assert(decided(&f, PFC_SEND_HOLD) == 0x08);
    ovs_assert(decided(&f, PFC_SEND_TX) == 0xf7);

    f.prio_to_tc = grouped;
    f.blocked = 0x02;
    ovs_assert(decided(&f, PFC_SEND_HOLD) == 0x18);
    ovs_assert(decided(&f, PFC_SEND_TX) == 0xe7);
    printf("paused: ok\n");
}

/* A class that holds packets holds the new ones behind them, paused or not;
 * and while a class that may send holds packets, every class waits for the
 * scheduler, except on a vhost-user port. */
static void
test_hold_behind(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_send_facts f = idle_facts();

    /* Class 3 paused and holding: only it holds. */
    f.blocked = f.nonempty = 0x08;
    ovs_assert(decided(&f, PFC_SEND_HOLD) == 0x08);

    /* Class 3 resumed, still holding: everything waits behind it. */
    f.blocked = 0;
    ovs_assert(!pfc_send_all_tx(&f));
    ovs_assert(decided(&f, PFC_SEND_HOLD) == 0xff);

    /* The same on a vhost-user port: only class 3. */
    f.vhost = true;
    ovs_assert(decided(&f, PFC_SEND_HOLD) == 0x08);
    ovs_assert(decided(&f, PFC_SEND_TX) == 0xf7);
    printf("hold-behind: ok\n");
}

/* The shaper: a batch leaves at once only if the tokens cover all of it. */
static void
test_shaper(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_send_facts f = idle_facts();

    f.tokens = 8000;                /* Eight frames of 1,000 bytes. */
    ovs_assert(!pfc_send_all_tx(&f));
    ovs_assert(decided(&f, PFC_SEND_TX) == 0xff);
    f.tokens = 7999;
    ovs_assert(decided(&f, PFC_SEND_HOLD) == 0xff);
    f.tokens = -1500;               /* One frame into debt. */
    ovs_assert(decided(&f, PFC_SEND_HOLD) == 0xff);

    /* Also on a vhost-user port. */
    f.vhost = true;
    ovs_assert(decided(&f, PFC_SEND_HOLD) == 0xff);
    printf("shaper: ok\n");
}

/* A storm: with action drop, the stormed priority is dropped, paused or
 * not; with action forward, it leaves as if not paused.  A stalled guest's
 * stormed priority is offered, never held, and dropped when refused. */
static void
test_storm(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_send_facts f = idle_facts();

    f.blocked = 0x08;
    f.wd_ignored = f.wd_dropped = 0x08;
    ovs_assert(!pfc_send_all_tx(&f));
    ovs_assert(decided(&f, PFC_SEND_DROP_STORM) == 0x08);
    ovs_assert(decided(&f, PFC_SEND_TX) == 0xf7);

    /* Forward: the pause is ignored. */
    f.blocked = 0;
    f.wd_dropped = 0;
    ovs_assert(decided(&f, PFC_SEND_TX) == 0xff);

    /* Forward, while another class holds packets: it waits its turn. */
    f.nonempty = 0x01;
    ovs_assert(decided(&f, PFC_SEND_HOLD) == 0xff);

    /* A stalled guest: offered even while holding or paused... */
    f.vhost = true;
    f.blocked = f.nonempty = 0x08;
    f.wd_dropped = 0x08;
    ovs_assert(decided(&f, PFC_SEND_TX) == 0xff);
    /* ...and dropped by the watchdog when its virtqueue refuses it. */
    ovs_assert(refused(&f, PFC_SEND_DROP_STORM) == 0x08);
    printf("storm: ok\n");
}

/* What a full tx ring refused: held on a NIC; on a guest, the lossless
 * priorities held and the lossy ones dropped; everything dropped while the
 * link is down. */
static void
test_refused(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_send_facts f = idle_facts();

    ovs_assert(refused(&f, PFC_SEND_HOLD) == 0xff);
    f.vhost = true;
    ovs_assert(refused(&f, PFC_SEND_HOLD) == 0x08);
    ovs_assert(refused(&f, PFC_SEND_DROP_REFUSED) == 0xf7);
    f.down = true;
    ovs_assert(refused(&f, PFC_SEND_DROP_DOWN) == 0xff);
    f.vhost = false;
    ovs_assert(refused(&f, PFC_SEND_DROP_DOWN) == 0xff);
    printf("refused: ok\n");
}

/* The burst cut: always the first packet; then what fits in the budget,
 * while the shaper has tokens left. */
static void
test_burst(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    const uint32_t lens[4] = { 1500, 1500, 64, 9000 };

    ovs_assert(pfc_ets_burst(lens, 4, UINT64_MAX, INT64_MAX) == 4);
    ovs_assert(pfc_ets_burst(lens, 4, 100, INT64_MAX) == 1);
    ovs_assert(pfc_ets_burst(lens, 4, 3064, INT64_MAX) == 3);
    ovs_assert(pfc_ets_burst(lens, 4, 3063, INT64_MAX) == 2);
    ovs_assert(pfc_ets_burst(lens, 4, UINT64_MAX, 1) == 1);
    ovs_assert(pfc_ets_burst(lens, 4, UINT64_MAX, 3000) == 2);
    ovs_assert(pfc_ets_burst(lens, 4, UINT64_MAX, 3001) == 3);
    ovs_assert(pfc_ets_burst(lens, 0, UINT64_MAX, INT64_MAX) == 0);
    printf("burst: ok\n");
}

/* A simulated egress: one tx queue with a class queue per priority, a tx
 * ring that takes a random number of packets each step, and random pauses.
 * Packets carry a sequence number per priority. */
#define SIM_QLEN 32768

struct sim_q {
    uint32_t seq[SIM_QLEN];
    int head, n;
};

struct sim {
    struct pfc_send_facts f;
    struct pfc_ets_params ets_p;
    struct pfc_ets ets;
    struct sim_q q[PFC_N_PRIOS];
    uint32_t next_seq[PFC_N_PRIOS];     /* Next to send, per priority. */
    uint32_t wire_seq[PFC_N_PRIOS];     /* Next expected on the wire. */
    int ring;                           /* Packets the ring still takes. */
    uint64_t sent, held;
};

static void
sim_push(struct sim_q *q, uint32_t seq)
{
    ovs_assert(q->n < SIM_QLEN);
    q->seq[(q->head + q->n++) % SIM_QLEN] = seq;
}

/* One packet of priority 'prio' and sequence 'seq' reaches the wire: it is
 * the next of its priority, and its class is not paused. */
static void
sim_wire(struct sim *sim, int prio, uint32_t seq)
{
    ovs_assert(!(sim->f.blocked >> prio & 1));
    ovs_assert(seq == sim->wire_seq[prio]);
    sim->wire_seq[prio]++;
    sim->sent++;
}

/* Sends held packets as the glue's drain does: the scheduler's class, a
 * burst cut by pfc_ets_burst(), while the ring takes them. */
static void
sim_drain(struct sim *sim)
{
    for (;;) {
        uint8_t ready = sim->f.nonempty & ~sim->f.blocked;
        uint32_t head_len[PFC_N_PRIOS] = { 0 };
        uint32_t lens[32];
        uint64_t budget;
        struct sim_q *q;
        int tc, n;

        if (!ready || !sim->ring) {
            return;
        }
        for (int c = 0; c < PFC_N_PRIOS; c++) {
            head_len[c] = 1000;
        }
        tc = pfc_ets_next(&sim->ets, &sim->ets_p, ready, head_len, &budget);
        q = &sim->q[tc];
        n = MIN(q->n, 32);
        for (int i = 0; i < n; i++) {
            lens[i] = 1000;
        }
        n = MIN(pfc_ets_burst(lens, n, budget, INT64_MAX), sim->ring);
        for (int i = 0; i < n; i++) {
            sim_wire(sim, tc, q->seq[q->head]);
            q->head = (q->head + 1) % SIM_QLEN;
            q->n--;
        }
        sim->ring -= n;
        pfc_ets_sent(&sim->ets, &sim->ets_p, tc, n * 1000);
        if (!q->n) {
            sim->f.nonempty &= ~(1u << tc);
        }
    }
}

/* One batch of 'cnt' packets of random priorities, as pfc_send__() sends
 * it: decided, sent while the ring takes them, the rest refused. */
static void
sim_batch(struct sim *sim, int cnt)
{
    uint8_t prios[32], verdicts[PFC_N_PRIOS], rprios[32];
    uint8_t rverdicts[PFC_N_PRIOS];
    uint32_t seqs[32], rseqs[32];
    int n_tx = 0, n_ref = 0;

    for (int i = 0; i < cnt; i++) {
        prios[i] = random_range(PFC_N_PRIOS);
        seqs[i] = sim->next_seq[prios[i]]++;
    }
    pfc_send_decide(&sim->f, cnt * 1000, verdicts);
    for (int i = 0; i < cnt; i++) {
        uint8_t v = verdicts[prios[i]];

        ovs_assert(v == PFC_SEND_TX || v == PFC_SEND_HOLD);
        if (v == PFC_SEND_HOLD) {
            sim_push(&sim->q[prios[i]], seqs[i]);
            sim->f.nonempty |= 1u << prios[i];
            sim->held++;
        } else if (sim->ring) {
            sim_wire(sim, prios[i], seqs[i]);
            sim->ring--;
            n_tx++;
        } else {
            rprios[n_ref] = prios[i];
            rseqs[n_ref++] = seqs[i];
        }
    }
    pfc_send_refused(&sim->f, rverdicts);
    for (int i = 0; i < n_ref; i++) {
        ovs_assert(rverdicts[rprios[i]] == PFC_SEND_HOLD);
        sim_push(&sim->q[rprios[i]], rseqs[i]);
        sim->f.nonempty |= 1u << rprios[i];
        sim->held++;
    }
}

/* An egress (a NIC, or a guest if 'vhost') under random pauses and a tx
 * ring that is often full, every priority lossless: no packet of a paused
 * class leaves, every priority leaves in order, and nothing is lost (the
 * buffer is not the limit here). */
static void
sim_run(bool vhost)
{
    static struct sim sim;
    const uint8_t bw[PFC_ETS_N_TCS] = { 0 };
    uint64_t total = 0;

    memset(&sim, 0, sizeof sim);
    random_set_seed(0x5e4d);
    sim.f = idle_facts();
    sim.f.lossless = 0xff;
    sim.f.vhost = vhost;
    pfc_ets_params_init(&sim.ets_p, 0, bw, 1000);
    pfc_ets_init(&sim.ets);
    for (int step = 0; step < 200000; step++) {
        for (int c = 0; c < PFC_N_PRIOS; c++) {
            /* Pauses of about 100 steps, about a third of the time. */
            if (!random_range(sim.f.blocked >> c & 1 ? 100 : 200)) {
                sim.f.blocked ^= 1u << c;
            }
        }
        if (step > 190000) {
            sim.f.blocked = 0;      /* Every pause ends: all drains. */
        }
        sim.ring = random_range(3) ? random_range(80) : 0;
        if (random_range(2) || step > 190000) {
            /* The glue does not always drain before a batch: the shaper
             * may lack tokens, or nothing changed since the last time. */
            sim_drain(&sim);
        }
        if (step <= 190000) {
            int cnt = 1 + random_range(16);

            sim_batch(&sim, cnt);
            total += cnt;
        }
    }
    ovs_assert(!sim.f.nonempty);
    for (int p = 0; p < PFC_N_PRIOS; p++) {
        ovs_assert(sim.wire_seq[p] == sim.next_seq[p]);
    }
    ovs_assert(sim.sent == total);
    printf("%s: %"PRIu64" packets, %"PRIu64" held at least once, all in "
           "order\n", vhost ? "guest" : "NIC", total, sim.held);
}

static void
test_sim(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    sim_run(false);
    sim_run(true);
    printf("sim: ok\n");
}

/* OpenFlow set_queue: which class a packet joins (pfc_send_class()). */
static void
test_set_queue_class(void)
{
    const uint8_t grouped[PFC_N_PRIOS] = { 0, 1, 2, 1, 1, 5, 6, 7 };
    struct pfc_send_facts f = idle_facts();

    /* Priority 3 lossless, one class per priority; Queue rows 2 and 3. */
    f.queues = 0x0c;
    f.lossless_tcs = 0x08;
    for (int p = 0; p < PFC_N_PRIOS; p++) {
        ovs_assert(pfc_send_class(&f, p, 0) == p);      /* No set_queue. */
        ovs_assert(pfc_send_class(&f, p, 1) == p);      /* No Queue row 1. */
        ovs_assert(pfc_send_class(&f, p, 8) == p);      /* No class 8. */
        ovs_assert(pfc_send_class(&f, p, UINT32_MAX) == p);
        ovs_assert(pfc_send_class(&f, p, 3) == 3);      /* Lossless class. */
        /* Class 2 is lossy: only a lossy priority may join it. */
        ovs_assert(pfc_send_class(&f, p, 2) == (p == 3 ? 3 : 2));
    }
    /* set_queue:0 cannot be told from no set_queue, even with Queue 0. */
    f.queues = 0x01;
    ovs_assert(pfc_send_class(&f, 5, 0) == 5);

    /* Queue row 1 groups priorities 1, 3 and 4; 3 and 4 lossless. */
    f.prio_to_tc = grouped;
    f.lossless = 0x18;
    f.lossless_tcs = 0x02;
    f.queues = 0x62;
    ovs_assert(pfc_send_class(&f, 3, 0) == 1);
    ovs_assert(pfc_send_class(&f, 0, 1) == 1);      /* Lossy into 1. */
    ovs_assert(pfc_send_class(&f, 4, 6) == 1);      /* Refused: 6 lossy. */
    ovs_assert(pfc_send_class(&f, 0, 6) == 6);
    ovs_assert(pfc_send_class(&f, 7, 5) == 5);
    ovs_assert(pfc_send_class(&f, 7, 7) == 7);      /* No Queue row 7. */
}

/* The verdict of a moved packet, and of the classes that hold one. */
static void
test_set_queue_verdict(void)
{
    struct pfc_send_facts f = idle_facts();
    uint8_t moved[PFC_N_PRIOS] = { 0 };

    /* Priority 3 moved into class 4. */
    ovs_assert(pfc_send_decide_moved(&f, 0, 3, 4) == PFC_SEND_TX);
    f.blocked = 0x10;                   /* Its new class paused. */
    ovs_assert(pfc_send_decide_moved(&f, pfc_send_hold_tcs(&f, 0), 3, 4)
               == PFC_SEND_HOLD);
    f.blocked = 0x08;                   /* Its own priority's class. */
    ovs_assert(pfc_send_decide_moved(&f, pfc_send_hold_tcs(&f, 0), 3, 4)
               == PFC_SEND_HOLD);
    f.blocked = 0x01;                   /* Another class. */
    ovs_assert(pfc_send_decide_moved(&f, pfc_send_hold_tcs(&f, 0), 3, 4)
               == PFC_SEND_TX);
    f.blocked = 0;
    f.nonempty = 0x10;                  /* Behind what class 4 holds. */
    ovs_assert(pfc_send_decide_moved(&f, pfc_send_hold_tcs(&f, 0), 3, 4)
               == PFC_SEND_HOLD);
    f.nonempty = 0;

    /* A storm of priority 3: dropped with "drop", offered to a guest. */
    f.blocked = 0x10;
    f.wd_ignored = f.wd_dropped = 0x08;
    ovs_assert(pfc_send_decide_moved(&f, pfc_send_hold_tcs(&f, 0), 3, 4)
               == PFC_SEND_DROP_STORM);
    f.vhost = true;
    ovs_assert(pfc_send_decide_moved(&f, pfc_send_hold_tcs(&f, 0), 3, 4)
               == PFC_SEND_TX);
    f.vhost = false;
    f.wd_dropped = 0;                   /* "forward": class 4 still holds. */
    ovs_assert(pfc_send_decide_moved(&f, pfc_send_hold_tcs(&f, 0), 3, 4)
               == PFC_SEND_HOLD);

    /* Unmoved, the verdict is pfc_send_decide()'s, whatever the facts. */
    const uint8_t grouped[PFC_N_PRIOS] = { 0, 1, 2, 1, 1, 5, 6, 7 };

    random_set_seed(0x5e7);
    for (int i = 0; i < 100000; i++) {
        uint8_t verdicts[PFC_N_PRIOS];
        uint64_t bytes = random_range(20000);

        f = idle_facts();
        f.prio_to_tc = i & 1 ? grouped : identity;
        f.blocked = random_uint8();
        f.nonempty = random_uint8();
        f.lossless = random_uint8();
        f.wd_ignored = random_uint8();
        f.wd_dropped = f.wd_ignored & random_uint8();
        f.vhost = random_range(2);
        f.tokens = random_range(3) ? INT64_MAX : random_range(20000);
        pfc_send_decide(&f, bytes, verdicts);
        for (int p = 0; p < PFC_N_PRIOS; p++) {
            ovs_assert(pfc_send_decide_moved(&f, pfc_send_hold_tcs(&f, bytes),
                                             p, f.prio_to_tc[p])
                       == verdicts[p]);
        }
    }

    /* Class 4 holds a packet of priority 3 moved there: it stops while
     * class 3 is blocked, and only then. */
    moved[4] = 0x08;
    ovs_assert(pfc_send_blocked_moved(identity, moved, 0x10, 0x08) == 0x18);
    ovs_assert(pfc_send_blocked_moved(identity, moved, 0x10, 0x01) == 0x01);
    ovs_assert(pfc_send_blocked_moved(identity, moved, 0x10, 0) == 0);
    ovs_assert(pfc_send_blocked_moved(identity, moved, 0, 0x08) == 0x08);
    /* Priority 3 in class 1 with priority 1: class 1 blocked by either. */
    ovs_assert(pfc_send_blocked_moved(grouped, moved, 0x10, 0x02) == 0x12);
}

/* A simulated egress with Queue rows, where set_queue moves flows of some
 * priorities into other classes: 16 flows, flow k of priority k % 8, moved
 * into class (k + 3) % 8 if k >= 8.  No packet leaves while its own
 * priority's class or the class it joined is paused, each flow leaves in
 * order, and nothing is lost. */
#define SQ_FLOWS 16

struct sq_sim {
    struct pfc_send_facts f;
    uint8_t paused;                     /* Classes paused (raw). */
    uint8_t moved[PFC_N_PRIOS];
    uint8_t moved_tcs;
    struct sim_q q[PFC_N_PRIOS];        /* Entries: flow << 24 | seq. */
    uint32_t next_seq[SQ_FLOWS], wire_seq[SQ_FLOWS];
    int ring;
    uint64_t sent, held, moved_held;
};

static int
sq_flow_prio(int k)
{
    return k % PFC_N_PRIOS;
}

static void
sq_wire(struct sq_sim *sim, int tc, uint32_t entry)
{
    int k = entry >> 24, prio = sq_flow_prio(k);

    ovs_assert(!(sim->paused >> tc & 1));
    ovs_assert(!(sim->paused >> sim->f.prio_to_tc[prio] & 1));
    ovs_assert((entry & 0xffffff) == sim->wire_seq[k]);
    sim->wire_seq[k]++;
    sim->sent++;
}

static void
sq_hold(struct sq_sim *sim, int tc, int prio, uint32_t entry)
{
    sim_push(&sim->q[tc], entry);
    sim->f.nonempty |= 1u << tc;
    if (tc != sim->f.prio_to_tc[prio]) {
        sim->moved[tc] |= 1u << prio;
        sim->moved_tcs |= 1u << tc;
        sim->moved_held++;
    }
    sim->held++;
}

static void
sq_blocked(struct sq_sim *sim)
{
    sim->f.blocked = pfc_send_blocked_moved(sim->f.prio_to_tc, sim->moved,
                                            sim->moved_tcs, sim->paused);
}

static void
sq_drain(struct sq_sim *sim)
{
    sq_blocked(sim);
    for (;;) {
        uint8_t ready = sim->f.nonempty & ~sim->f.blocked;
        struct sim_q *q;
        int tc;

        if (!ready || !sim->ring) {
            return;
        }
        tc = raw_ctz(ready);
        q = &sim->q[tc];
        while (q->n && sim->ring) {
            sq_wire(sim, tc, q->seq[q->head]);
            q->head = (q->head + 1) % SIM_QLEN;
            q->n--;
            sim->ring--;
        }
        if (!q->n) {
            sim->f.nonempty &= ~(1u << tc);
            sim->moved[tc] = 0;
            sim->moved_tcs &= ~(1u << tc);
        }
    }
}

static void
sq_batch(struct sq_sim *sim, int cnt)
{
    uint8_t verdicts[PFC_N_PRIOS], rverdicts[PFC_N_PRIOS];
    uint32_t rentries[32];
    uint8_t rtcs[32], rprios[32];
    uint8_t hold_tcs;
    int n_ref = 0;

    sq_blocked(sim);
    pfc_send_decide(&sim->f, 0, verdicts);
    hold_tcs = pfc_send_hold_tcs(&sim->f, 0);
    for (int i = 0; i < cnt; i++) {
        int k = random_range(SQ_FLOWS), prio = sq_flow_prio(k);
        uint32_t queue = k >= PFC_N_PRIOS ? (k + 3) % PFC_N_PRIOS : 0;
        int tc = pfc_send_class(&sim->f, prio, queue);
        uint32_t entry = (uint32_t) k << 24 | sim->next_seq[k]++;
        uint8_t v = (tc == sim->f.prio_to_tc[prio] ? verdicts[prio]
                     : pfc_send_decide_moved(&sim->f, hold_tcs, prio, tc));

        ovs_assert(v == PFC_SEND_TX || v == PFC_SEND_HOLD);
        if (v == PFC_SEND_HOLD) {
            sq_hold(sim, tc, prio, entry);
        } else if (sim->ring) {
            sq_wire(sim, tc, entry);
            sim->ring--;
        } else {
            rentries[n_ref] = entry;
            rprios[n_ref] = prio;
            rtcs[n_ref++] = tc;
        }
    }
    pfc_send_refused(&sim->f, rverdicts);
    for (int i = 0; i < n_ref; i++) {
        ovs_assert(rverdicts[rprios[i]] == PFC_SEND_HOLD);
        sq_hold(sim, rtcs[i], rprios[i], rentries[i]);
    }
}

static void
test_set_queue_sim(void)
{
    static struct sq_sim sim;
    uint64_t total = 0;

    memset(&sim, 0, sizeof sim);
    random_set_seed(0x5e70);
    sim.f = idle_facts();
    sim.f.lossless = 0xff;
    sim.f.lossless_tcs = 0xff;
    sim.f.queues = 0xff;
    for (int step = 0; step < 200000; step++) {
        for (int c = 0; c < PFC_N_PRIOS; c++) {
            if (!random_range(sim.paused >> c & 1 ? 100 : 400)) {
                sim.paused ^= 1u << c;
            }
        }
        if (step > 190000) {
            sim.paused = 0;
        }
        sim.ring = random_range(3) ? random_range(80) : 0;
        if (random_range(2) || step > 190000) {
            sq_drain(&sim);
        }
        if (step <= 190000) {
            int cnt = 1 + random_range(16);

            sq_batch(&sim, cnt);
            total += cnt;
        }
    }
    ovs_assert(!sim.f.nonempty);
    for (int k = 0; k < SQ_FLOWS; k++) {
        ovs_assert(sim.wire_seq[k] == sim.next_seq[k]);
    }
    ovs_assert(sim.sent == total);
    ovs_assert(sim.moved_held > 0);
    printf("set-queue: %"PRIu64" packets, %"PRIu64" held at least once "
           "(%"PRIu64" of them moved), every flow in order\n", total,
           sim.held, sim.moved_held);
}

static void
test_set_queue(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    test_set_queue_class();
    test_set_queue_verdict();
    test_set_queue_sim();
    printf("set-queue: ok\n");
}

/* The quiet of the flush pass: its end, and what ends it. */
static void
test_quiet_rule(void)
{
    struct pfc_quiet q = { .until = 1000, .gen = 7, .holding = 0x4 };
    struct pfc_quiet none = { .until = 0, .gen = 7, .holding = 0x4 };

    ovs_assert(pfc_quiet_until(1000, 5000) == 1000);
    ovs_assert(pfc_quiet_until(9000, 5000) == 5000);   /* Watchdog check. */
    ovs_assert(pfc_quiet_holds(&q, 7, 0x4, 999));
    ovs_assert(!pfc_quiet_holds(&q, 7, 0x4, 1000));    /* Ends at 'until'. */
    ovs_assert(!pfc_quiet_holds(&q, 8, 0x4, 500));     /* A frame read. */
    ovs_assert(!pfc_quiet_holds(&q, 7, 0x5, 500));     /* Tx queue 0 holds
                                                        * too. */
    ovs_assert(!pfc_quiet_holds(&q, 7, 0, 500));
    ovs_assert(!pfc_quiet_holds(&none, 7, 0x4, 500));  /* No quiet. */

    /* Noted only with a known end and an rx queue polled lately. */
    ovs_assert(pfc_quiet_until(1000, 0) == 0);         /* No check yet. */
    ovs_assert(pfc_quiet_until(0, 5000) == 0);
    ovs_assert(pfc_quiet_may_note(1000, 400, 500, 100));
    ovs_assert(pfc_quiet_may_note(1000, 600, 500, 100)); /* Another core. */
    ovs_assert(!pfc_quiet_may_note(0, 400, 500, 100));
    ovs_assert(!pfc_quiet_may_note(1000, 0, 500, 100)); /* Never polled. */
    ovs_assert(!pfc_quiet_may_note(1000, 399, 500, 100)); /* Not lately. */
}

/* A simulated PMD loop: a port holds packets of a class paused until
 * 'end', a refresh read at 'refresh' moves the end to 'end2'; the flush of
 * each iteration runs unless the quiet holds.  The held packets must leave
 * at the first iteration at or after the pause's end, never before, as
 * without the quiet, and the quiet must skip almost every flush. */
static void
test_quiet_sim(void)
{
    const uint64_t iter = 100, end = 10000, refresh = 6000, end2 = 30000;
    const uint64_t wd_period = 4000;
    uint64_t gen = 1, next_check = 0, released = 0, pause_end = end;
    struct pfc_quiet q = { 0, 0, 0 };
    int flushes = 0, iterations = 0;

    for (uint64_t now = 0; now < 40000 && !released; now += iter) {
        iterations++;
        if (now >= refresh && pause_end == end) {
            pause_end = end2;   /* The partner refreshed the pause. */
            gen++;
        }
        if (pfc_quiet_holds(&q, gen, 0x1, now)) {
            continue;
        }
        flushes++;
        if (now >= next_check) {
            next_check = now + wd_period;
        }
        if (now >= pause_end) {
            released = now;
        } else {
            q.until = pfc_quiet_until(pause_end, next_check);
            q.gen = gen;
            q.holding = 0x1;
        }
    }
    ovs_assert(released == end2);
    /* One flush per event: the first, the refresh, each watchdog check,
     * and the end. */
    ovs_assert(flushes <= 3 + end2 / wd_period);
    printf("quiet: released at %"PRIu64" (pause end %"PRIu64"), %d flushes "
           "in %d iterations\n", released, end2, flushes, iterations);
}

static void
test_quiet(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    test_quiet_rule();
    test_quiet_sim();
    printf("quiet: ok\n");
}

static const struct ovs_cmdl_command commands[] = {
    { "idle", NULL, 0, 0, test_idle, OVS_RO },
    { "paused", NULL, 0, 0, test_paused, OVS_RO },
    { "hold-behind", NULL, 0, 0, test_hold_behind, OVS_RO },
    { "shaper", NULL, 0, 0, test_shaper, OVS_RO },
    { "storm", NULL, 0, 0, test_storm, OVS_RO },
    { "refused", NULL, 0, 0, test_refused, OVS_RO },
    { "burst", NULL, 0, 0, test_burst, OVS_RO },
    { "sim", NULL, 0, 0, test_sim, OVS_RO },
    { "set-queue", NULL, 0, 0, test_set_queue, OVS_RO },
    { "quiet", NULL, 0, 0, test_quiet, OVS_RO },
    { NULL, NULL, 0, 0, NULL, OVS_RO },
};

static void
test_pfc_send_main(int argc, char *argv[])
{
    struct ovs_cmdl_context ctx = {
        .argc = argc - 1,
        .argv = argv + 1,
    };

    set_program_name(argv[0]);
    ovs_cmdl_run_command(&ctx, commands);
}

OVSTEST_REGISTER("test-pfc-send", test_pfc_send_main);
