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

/* Unit tests of lib/pfc-ecn.c: the marking decision of a traffic class, CE
 * set on a frame, and the ECN keys. */

#include <config.h>
#undef NDEBUG
#include "pfc-ecn.h"

#include <string.h>

#include "command-line.h"
#include "openvswitch/util.h"
#include "ovstest.h"
#include "random.h"
#include "smap.h"
#include "timeval.h"
#include "util.h"

static struct pfc_ecn_params
ecn(uint64_t min, uint64_t max, uint32_t prob)
{
    struct pfc_ecn_params p = { true, min, max, prob };

    return p;
}

/* The decision: nothing below the minimum, everything from the maximum,
 * RED's linear probability in between, and DCTCP's step at K when they are
 * equal; the rate of marks in between is the probability. */
static void
test_decide(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_ecn_params off = { false, 0, 0, 100 };
    struct pfc_ecn_params red = ecn(100000, 200000, 50);
    struct pfc_ecn_params step = ecn(30000, 30000, 100);

    /* Off: never. */
    ovs_assert(!pfc_ecn_ppm(&off, UINT64_MAX));
    ovs_assert(!pfc_ecn_decide(&off, UINT64_MAX, 0));

    /* Step at K = 30 KB: below K never, at and above always. */
    for (uint32_t r = 0; r < 1000; r++) {
        uint32_t rnd = r * 4294967u;

        ovs_assert(!pfc_ecn_decide(&step, 29999, rnd));
        ovs_assert(pfc_ecn_decide(&step, 30000, rnd));
        ovs_assert(pfc_ecn_decide(&step, 10000000, rnd));
    }

    /* RED: 0 at min, half of 50% midway, 50% from max on. */
    ovs_assert(pfc_ecn_ppm(&red, 99999) == 0);
    ovs_assert(pfc_ecn_ppm(&red, 100000) == 0);
    ovs_assert(pfc_ecn_ppm(&red, 150000) == 250000);
    ovs_assert(pfc_ecn_ppm(&red, 175000) == 375000);
    ovs_assert(pfc_ecn_ppm(&red, 199999) == 499995);
    ovs_assert(pfc_ecn_ppm(&red, 200000) == 500000);
    ovs_assert(pfc_ecn_ppm(&red, PFC_ECN_THRESHOLD_MAX) == 500000);
    ovs_assert(!pfc_ecn_decide(&red, 99999, 0));
    ovs_assert(pfc_ecn_decide(&red, 150000, 0));
    ovs_assert(!pfc_ecn_decide(&red, 150000, UINT32_MAX));

    /* The rate of marks at a fixed backlog is its probability, within
     * 0.5 percentage points over 200,000 draws (sigma 0.1). */
    random_set_seed(12345);
    for (uint64_t q = 100000; q <= 200000; q += 25000) {
        uint32_t marks = 0, n = 200000;

        for (uint32_t i = 0; i < n; i++) {
            marks += pfc_ecn_decide(&red, q, random_uint32());
        }
        double got = 100.0 * marks / n;
        double want = pfc_ecn_ppm(&red, q) / 10000.0;

        printf("queued %"PRIu64" bytes: %.2f%% marked, expected %.2f%%\n",
               q, got, want);
        ovs_assert(got > want - 0.5 && got < want + 0.5);
    }
    printf("decide: ok\n");
}

/* An Ethernet frame of 'len' bytes with 'tags' VLAN tags and an IPv4
 * header with TOS 'tos' and a valid checksum, or an IPv6 header with
 * traffic class 'tos' if 'v6'. */
static size_t
frame_make(uint8_t *f, int tags, bool v6, uint8_t tos)
{
    size_t off = 12;

    memset(f, 0, 128);
    for (int i = 0; i < tags; i++) {
        f[off] = 0x81;
        f[off + 2] = 0x60;
        off += 4;
    }
    f[off] = v6 ? 0x86 : 0x08;
    f[off + 1] = v6 ? 0xdd : 0x00;
    off += 2;
    if (v6) {
        f[off] = 0x60 | (tos >> 4);
        f[off + 1] = (tos & 0x0f) << 4;
        f[off + 6] = 17;
        f[off + 7] = 64;
        return off + 40;
    }
    f[off] = 0x45;
    f[off + 1] = tos;
    f[off + 3] = 20;
    f[off + 8] = 64;
    f[off + 9] = 17;
    memcpy(&f[off + 12], "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);

    uint32_t sum = 0;

    for (int i = 0; i < 20; i += 2) {
        sum += (f[off + i] << 8) | f[off + i + 1];
    }
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    f[off + 10] = (~sum >> 8) & 0xff;
    f[off + 11] = ~sum & 0xff;
    return off + 20;
}

/* Returns true if the IPv4 header at 'ip' sums to 0xffff. */
static bool
ipv4_csum_ok(const uint8_t *ip)
{
    uint32_t sum = 0;

    for (int i = 0; i < 20; i += 2) {
        sum += (ip[i] << 8) | ip[i + 1];
    }
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return sum == 0xffff;
}

/* CE is set on ECT(0) and ECT(1) only, IPv4 with a valid checksum after and
 * IPv6, behind 0, 1 and 2 VLAN tags, with the DSCP kept; Not-ECT and CE
 * are never changed; a frame that is not IP, or is too short, is left
 * alone. */
static void
test_mark(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    uint8_t f[128], g[128];

    for (int tags = 0; tags <= 2; tags++) {
        for (int v6 = 0; v6 <= 1; v6++) {
            size_t ip = 14 + 4 * tags;

            for (int field = 0; field < 4; field++) {
                uint8_t tos = (26 << 2) | field;    /* AF31. */
                size_t len = frame_make(f, tags, v6, tos);
                enum pfc_ecn_field got;
                uint8_t now;

                memcpy(g, f, sizeof f);
                got = pfc_ecn_mark(f, len, false);
                ovs_assert(got == field && !memcmp(f, g, sizeof f));
                got = pfc_ecn_mark(f, len, true);
                ovs_assert(got == field);
                now = v6 ? ((f[ip] & 0x0f) << 4) | (f[ip + 1] >> 4)
                         : f[ip + 1];
                if (field == PFC_ECN_NOT_ECT || field == PFC_ECN_CE) {
                    ovs_assert(!memcmp(f, g, sizeof f));
                } else {
                    ovs_assert(now == ((26 << 2) | PFC_ECN_CE));
                }
                if (!v6) {
                    ovs_assert(ipv4_csum_ok(&f[ip]));
                }
            }
        }
    }

    /* Three tags, not IP, runts. */
    size_t len = frame_make(f, 2, false, 2);

    ovs_assert(pfc_ecn_mark(f, len - 1, true) == PFC_ECN_NOT_IP);
    frame_make(f, 0, false, 2);
    f[12] = 0x88;
    f[13] = 0xcc;                               /* LLDP. */
    ovs_assert(pfc_ecn_mark(f, 64, true) == PFC_ECN_NOT_IP);
    memset(f, 0, sizeof f);
    for (int i = 0; i < 3; i++) {
        f[12 + 4 * i] = 0x81;
    }
    ovs_assert(pfc_ecn_mark(f, 64, true) == PFC_ECN_NOT_IP);
    ovs_assert(pfc_ecn_mark(f, 13, true) == PFC_ECN_NOT_IP);
    printf("mark: ok\n");
}

/* Parses 'kv' ("key=value,key=value") as other_config; returns the error
 * or NULL. */
static char *
parse(const char *kv, struct pfc_ecn_params *p)
{
    struct smap details = SMAP_INITIALIZER(&details);
    char *copy = xstrdup(kv), *save = NULL, *err = NULL;

    for (char *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');

        *eq = '\0';
        smap_add(&details, tok, eq + 1);
    }
    if (pfc_ecn_parse(&details, "queue 1: ", p, &err)) {
        ovs_assert(err);
    } else {
        ovs_assert(!err);
    }
    smap_destroy(&details);
    free(copy);
    return err;
}

/* The keys: both thresholds or neither, min <= max, a probability of 1 to
 * 100, thresholds up to the buffer; each error names the key and the
 * range. */
static void
test_keys(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    static const struct {
        const char *kv;
        const char *err;        /* A part of the message, or NULL. */
    } cases[] = {
        { "ecn-min-threshold=30000,ecn-max-threshold=30000", NULL },
        { "ecn-min-threshold=0,ecn-max-threshold=603979776,"
          "ecn-max-probability=1", NULL },
        { "ecn-min-threshold=30000",
          "queue 1: other_config:ecn-min-threshold needs "
          "other_config:ecn-max-threshold" },
        { "ecn-max-threshold=30000",
          "ecn-max-threshold needs other_config:ecn-min-threshold" },
        { "ecn-max-probability=5", "ecn-max-probability needs" },
        { "ecn-min-threshold=2,ecn-max-threshold=1",
          "ecn-min-threshold=2 is above ecn-max-threshold=1" },
        { "ecn-min-threshold=1,ecn-max-threshold=603979777",
          "ecn-max-threshold=\"603979777\" is out of range: must be 0 to "
          "603979776" },
        { "ecn-min-threshold=x,ecn-max-threshold=1",
          "ecn-min-threshold=\"x\" is out of range" },
        { "ecn-min-threshold=1,ecn-max-threshold=2,ecn-max-probability=0",
          "ecn-max-probability=\"0\" is out of range: must be 1 to 100" },
        { "ecn-min-threshold=1,ecn-max-threshold=2,"
          "ecn-max-probability=101", "must be 1 to 100 (percent)" },
    };
    struct pfc_ecn_params p;
    struct smap out;

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *err = parse(cases[i].kv, &p);

        if (!cases[i].err) {
            ovs_assert(!err && p.on);
        } else {
            if (!err || !strstr(err, cases[i].err)) {
                printf("%s: got \"%s\"\n", cases[i].kv, err ? err : "");
            }
            ovs_assert(err && strstr(err, cases[i].err));
        }
        free(err);
    }
    ovs_assert(!parse("priorities=3", &p) && !p.on);
    ovs_assert(!parse("ecn-min-threshold=10,ecn-max-threshold=20", &p));
    ovs_assert(p.on && p.min_bytes == 10 && p.max_bytes == 20
               && p.max_prob == 100);

    /* What pfc_ecn_to_smap() writes reads back the same. */
    smap_init(&out);
    p = ecn(1000, 2000, 7);
    pfc_ecn_to_smap(&p, &out);
    ovs_assert(!strcmp(smap_get(&out, "ecn-max-probability"), "7"));
    struct pfc_ecn_params back;
    char *err = NULL;

    ovs_assert(!pfc_ecn_parse(&out, "", &back, &err));
    ovs_assert(back.on && back.min_bytes == p.min_bytes
               && back.max_bytes == p.max_bytes
               && back.max_prob == p.max_prob);
    smap_destroy(&out);

    /* Off is off, whatever the other fields say. */
    struct pfc_ecn_params off1 = { false, 1, 2, 3 };
    struct pfc_ecn_params off2 = { false, 0, 0, 100 };

    ovs_assert(pfc_ecn_equal(&off1, &off2));
    ovs_assert(pfc_ecn_equal(&p, &back));
    back.max_prob++;
    ovs_assert(!pfc_ecn_equal(&p, &back));
    ovs_assert(!pfc_ecn_equal(&p, &off1));
    printf("keys: ok\n");
}

/* "bench" (for make bench, not a unit test): what a marking decision costs
 * per packet that joins a class with ECN keys, pfc_ecn_decide() and
 * pfc_ecn_mark() on IPv4 ECT(0) frames in cache, half of them marked, in ns
 * and in TSC cycles (x86). */
static void
test_bench(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    enum { N = 20000000, F = 64 };
    struct pfc_ecn_params red = ecn(0, 200000, 100);
    uint8_t (*frames)[128] = xmalloc(F * sizeof *frames);
    size_t len = 0;
    unsigned int sum = 0;

    for (int i = 0; i < F; i++) {
        len = frame_make(frames[i], 1, false, (26 << 2) | PFC_ECN_ECT0);
    }

    long long int t0 = time_usec();
#if defined(__x86_64__)
    uint64_t c0 = __builtin_ia32_rdtsc();
#endif
    for (uint32_t i = 0; i < N; i++) {
        uint8_t *f = frames[i % F];
        bool mark = pfc_ecn_decide(&red, 100000, random_uint32());

        sum += pfc_ecn_mark(f, len, mark);
        f[19] = (26 << 2) | PFC_ECN_ECT0;       /* ECT(0) again. */
    }
#if defined(__x86_64__)
    uint64_t cycles = __builtin_ia32_rdtsc() - c0;
#else
    uint64_t cycles = 0;
#endif
    printf("ecn decision and mark: %.2f ns, %.1f TSC cycles per packet "
           "(%d packets; checksum %u)\n",
           (time_usec() - t0) * 1000.0 / N, (double) cycles / N, N, sum);
    free(frames);
}

static const struct ovs_cmdl_command commands[] = {
    { "decide", NULL, 0, 0, test_decide, OVS_RO },
    { "mark", NULL, 0, 0, test_mark, OVS_RO },
    { "keys", NULL, 0, 0, test_keys, OVS_RO },
    { "bench", NULL, 0, 0, test_bench, OVS_RO },
    { NULL, NULL, 0, 0, NULL, OVS_RO },
};

static void
test_pfc_ecn_main(int argc, char *argv[])
{
    struct ovs_cmdl_context ctx = {
        .argc = argc - 1,
        .argv = argv + 1,
    };

    set_program_name(argv[0]);
    ovs_cmdl_run_command(&ctx, commands);
}

OVSTEST_REGISTER("test-pfc-ecn", test_pfc_ecn_main);
