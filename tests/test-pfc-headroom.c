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

/* Unit tests of lib/pfc-headroom.c: every worked example of the seeds to the
 * bit, rounding at cell, byte and quantum boundaries, and the parser's
 * errors.
 *
 *   ovstest test-pfc-headroom [NAME...]     runs the named groups, or all.
 *   ovstest test-pfc-headroom run [KEY=VALUE...]
 *                                           prints what "ovs-appctl
 *                                           pfc/headroom" would print, or
 *                                           the error on stderr (exit 2).
 *   ovstest test-pfc-headroom serve [OPTIONS]
 *                                           a daemon with a unixctl server
 *                                           that has only pfc/headroom and
 *                                           exit, to test the command
 *                                           itself. */

#include <config.h>
#undef NDEBUG
#include "pfc-headroom.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "command-line.h"
#include "daemon.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/util.h"
#include "openvswitch/vlog.h"
#include "ovstest.h"
#include "pfc-compat.h"
#include "unixctl.h"
#include "util.h"

/* Parses the NULL-terminated key=value list 'args' into '*in' and computes
 * '*r'.  Expects pfc_headroom_parse() to return 'error' and, if 'needle' is
 * nonnull, the error message to contain it. */
static void
check_parse(struct pfc_headroom_input *in, struct pfc_headroom_result *r,
            int error, const char *needle, const char *const args[])
{
    char *msg = NULL;
    int argc = 0;
    int retval;

    while (args[argc]) {
        argc++;
    }
    retval = pfc_headroom_parse(argc, args, in, &msg);
    if (retval != error || (needle && (!msg || !strstr(msg, needle)))) {
        ovs_fatal(0, "%s: expected error %d containing \"%s\", got %d \"%s\"",
                  argc ? args[0] : "(no arguments)", error,
                  needle ? needle : "", retval, msg ? msg : "");
    }
    free(msg);
    if (!error) {
        ovs_assert(!pfc_headroom_compute(in, r));
    }
}

#define PARSE(IN, R, ERR, NEEDLE, ...) \
    check_parse(IN, R, ERR, NEEDLE, (const char *const[]) { __VA_ARGS__ })

/* Checks that the terms of 'r' are the NULL-free list 'bits'. */
static void
check_terms(const struct pfc_headroom_result *r, const uint64_t bits[],
            size_t n)
{
    uint64_t sum = 0;

    ovs_assert(r->n_terms == n);
    for (size_t i = 0; i < n; i++) {
        if (r->terms[i].bits != bits[i]) {
            ovs_fatal(0, "term %"PRIuSIZE" (%s): expected %"PRIu64", "
                      "got %"PRIu64, i, r->terms[i].name, bits[i],
                      r->terms[i].bits);
        }
        sum += bits[i];
    }
    ovs_assert(sum == r->bits);
}

#define TERMS(R, ...) \
    check_terms(R, (const uint64_t[]) { __VA_ARGS__ }, \
                ARRAY_SIZE(((const uint64_t[]) { __VA_ARGS__ })))

/* Seed 000 Annex A: 100 m at 10 Gb/s, 82,550 bits. */
static void
test_annex_a(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_headroom_input in;
    struct pfc_headroom_result r;

    pfc_headroom_input_init(&in, PFC_HEADROOM_ANNEX_A);
    ovs_assert(!pfc_headroom_compute(&in, &r));

    /* MTU[R] 2000 octets, PFC 64 octets, cable 5051, one 10GBASE-T PHY
     * 25,600, no HD, response 14,336 (4.6), MTU[S] 2000 octets, cable
     * 5051. */
    TERMS(&r, 16000, 512, 5051, 25600, 0, 14336, 16000, 5051);

    /* The seed's own groups: "the total worst case delay would be 16 512
     * bit times"; "14 336 ... plus the PHY delay of 25 600 ... for a total
     * of 39 936"; "adding 16 000 bit times for a total of 55 936". */
    ovs_assert(r.terms[0].bits + r.terms[1].bits == 16512);
    ovs_assert(r.terms[3].bits + r.terms[5].bits == 39936);
    ovs_assert(r.terms[3].bits + r.terms[5].bits + r.terms[6].bits == 55936);

    ovs_assert(r.bits == 82550);
    ovs_assert(r.bytes == 10319);       /* "approximately 10.1 KB" */
    ovs_assert(r.quanta == 162);
    ovs_assert(r.cells == 10319 && r.cell_size == 1);
    ovs_assert(r.cell_bytes == 10319 && r.worst_frame == 0);

    /* "model=annex-a" alone, and no arguments at all, are the same. */
    PARSE(&in, &r, 0, NULL, "model=annex-a", NULL);
    ovs_assert(r.bits == 82550);
    PARSE(&in, &r, 0, NULL, NULL);
    ovs_assert(r.bits == 82550 && in.model == PFC_HEADROOM_ANNEX_A);
    printf("annex-a: ok\n");
}

/* Seed 001 7: DV = 153,064 bit times. */
static void
test_delay_value(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_headroom_input in;
    struct pfc_headroom_result r;
    uint32_t id;

    pfc_headroom_input_init(&in, PFC_HEADROOM_DELAY_VALUE);
    ovs_assert(!pfc_headroom_compute(&in, &r));

    /* DV = 2*(16,160) + (672) + 2*(5556) + 2*(37,888) + (33,184). */
    TERMS(&r, 16160, 672, 5556, 2 * 37888, 33184, 0, 16160, 5556);
    ovs_assert(r.bits == 153064);
    ovs_assert(r.bytes == 19133);       /* "roughly 19.1K Bytes" */
    ovs_assert(r.quanta == 299);
    ovs_assert(r.cells == 19133 && r.cell_bytes == 19133);

    /* ID = 10G MAC 8192 + 2 x XAUI 2048 + 10GBASE-T 25,600. */
    ovs_assert(!pfc_headroom_phy_delay(in.phy, &id) && id == 37888);
    ovs_assert(in.interface_delay == 37888);

    PARSE(&in, &r, 0, NULL, "model=delay-value", NULL);
    ovs_assert(r.bits == 153064);

    /* The same with every input spelled out. */
    PARSE(&in, &r, 0, NULL, "model=cisco", "speed=10G", "cable-length=100",
          "velocity=cat6", "class-mtu=2000", "port-mtu=2000",
          "frame-overhead=20", "pfc-frame=64", "phy=mac+xaui+xaui+10gbase-t",
          "id-count=2", "higher-layer-delay=33184", "response=0",
          "granularity=byte", NULL);
    ovs_assert(r.bits == 153064 && r.cells == 19133);
    printf("delay-value: ok\n");
}

/* Seed 003: the Nexus 5000 examples. */
static void
test_cisco(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_headroom_input in;
    struct pfc_headroom_result r;

    /* 2240 + 9216 + 3840 + 3 * 1300 = 19,196 bytes; 300 cells of 160
     * bytes, 48,000 bytes. */
    pfc_headroom_input_init(&in, PFC_HEADROOM_CISCO);
    ovs_assert(!pfc_headroom_compute(&in, &r));
    TERMS(&r, 9216 * 8, 0, 3900 * 8, 0, 0, 3840 * 8, 2240 * 8);
    ovs_assert(r.bits == 19196 * 8 && r.bytes == 19196);
    ovs_assert(r.quanta == 300);
    ovs_assert(r.cells == 300 && r.cell_size == 160);
    ovs_assert(r.cell_bytes == 48000 && r.worst_frame == 64);

    PARSE(&in, &r, 0, NULL, "model=cisco", NULL);
    ovs_assert(r.bytes == 19196 && r.cells == 300 && r.cell_bytes == 48000);

    /* MTU[S] 9216: 2 * 9216 + 3840 + 3 * 1300 = 26,172 bytes, 409 cells,
     * 65,440 bytes. */
    PARSE(&in, &r, 0, NULL, "model=cisco", "class-mtu=9216", NULL);
    ovs_assert(r.bytes == 26172 && r.cells == 409 && r.cell_bytes == 65440);

    /* 10 km: 2240 + 9216 + 3840 + 100 * 1300 = 145,296 bytes, 2271 cells,
     * 363,360 bytes. */
    PARSE(&in, &r, 0, NULL, "model=cisco", "cable-length=10000", NULL);
    ovs_assert(r.bytes == 145296 && r.cells == 2271);
    ovs_assert(r.cell_bytes == 363360);
    TERMS(&r, 9216 * 8, 0, 130000 * 8, 0, 0, 30720, 2240 * 8);

    /* The rule is 2 x 641 bytes per 100 m (0.65 c, seed 003) rounded up to
     * 1300: with the velocity instead, 300 m is 2 x 15,385 bit times. */
    PARSE(&in, &r, 0, NULL, "model=cisco", "velocity=fibre", NULL);
    ovs_assert(in.cable_rule == 0 && in.velocity == 6500);
    TERMS(&r, 9216 * 8, 0, 15385, 0, 0, 30720, 2240 * 8, 15385);
    PARSE(&in, &r, 0, NULL, "model=cisco", "cable-length=100",
          "velocity=fibre", NULL);
    ovs_assert(r.terms[2].bits == 5129);    /* 641 bytes and 1 bit. */
    PARSE(&in, &r, 0, NULL, "model=cisco", "velocity=0.5",
          "cable-bytes-per-100m=1300", NULL);
    ovs_assert(r.bytes == 19196);

    /* Transceivers, which seed 003 ignores for SFP+: one 10GBASE-T PHY per
     * station adds 2 x 25,600 bit times (seed 001 table 1 gives 25,600 as
     * the PHY's transmit plus receive delay).  Seed 003's footnote 1 counts
     * 12,800 bytes, twice this, because it doubles a 2.5 us latency per
     * transceiver that already covers both directions. */
    PARSE(&in, &r, 0, NULL, "model=cisco", "phy=10gbase-t", NULL);
    ovs_assert(r.terms[3].bits == 2 * 25600);
    ovs_assert(r.bytes == 19196 + 6400);
    printf("cisco: ok\n");
}

/* Rounding of cells at their boundaries. */
static void
test_cells(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_headroom_input in;
    struct pfc_headroom_result r;
    uint32_t worst;

    /* 160-byte cells, 64-byte worst case: 300 packets of 64 bytes are
     * 19,200 bytes. */
    ovs_assert(pfc_headroom_cells(19200, PFC_HEADROOM_CELL, 160, 64, 2240,
                                  &worst) == 300 && worst == 64);
    ovs_assert(pfc_headroom_cells(19201, PFC_HEADROOM_CELL, 160, 64, 2240,
                                  &worst) == 301);
    ovs_assert(pfc_headroom_cells(19136, PFC_HEADROOM_CELL, 160, 64, 2240,
                                  &worst) == 299);
    ovs_assert(pfc_headroom_cells(19137, PFC_HEADROOM_CELL, 160, 64, 2240,
                                  &worst) == 300);
    ovs_assert(pfc_headroom_cells(0, PFC_HEADROOM_CELL, 160, 64, 2240,
                                  &worst) == 0);
    /* Every frame counts whole, as in seed 003: one byte may be the end of
     * a frame of 2081 bytes, the largest number of cells below 2240. */
    ovs_assert(pfc_headroom_cells(1, PFC_HEADROOM_CELL, 160, 64, 2240,
                                  &worst) == 14 && worst == 2081);
    ovs_assert(pfc_headroom_cells(1, PFC_HEADROOM_CELL, 160, 64, 160,
                                  &worst) == 1 && worst == 64);

    /* The same through the cisco model: MTU[S] 2244 makes 19,200 bytes,
     * 2245 makes 19,201. */
    PARSE(&in, &r, 0, NULL, "model=cisco", "class-mtu=2244", NULL);
    ovs_assert(r.bytes == 19200 && r.cells == 300 && r.cell_bytes == 48000);
    PARSE(&in, &r, 0, NULL, "model=cisco", "class-mtu=2245", NULL);
    ovs_assert(r.bytes == 19201 && r.cells == 301 && r.cell_bytes == 48160);

    /* 80-byte cells (Nexus 2000, seed 003): the worst case is 81-byte
     * frames of two cells each, not the smallest frame. */
    ovs_assert(pfc_headroom_cells(8100, PFC_HEADROOM_CELL, 80, 64, 2240,
                                  &worst) == 200 && worst == 81);
    PARSE(&in, &r, 0, NULL, "model=cisco", "cell-size=80", NULL);
    ovs_assert(r.worst_frame == 81);
    ovs_assert(r.cells == 2 * DIV_ROUND_UP(19196, 81));
    ovs_assert(r.cell_bytes == r.cells * 80);

    /* The search stops at the largest frame: with MTU[S] 80, 81-byte frames
     * cannot exist. */
    ovs_assert(pfc_headroom_cells(8100, PFC_HEADROOM_CELL, 80, 64, 80,
                                  &worst) == 127 && worst == 64);

    /* Smallest frame larger than a cell: 200-byte frames take 2 cells. */
    ovs_assert(pfc_headroom_cells(19196, PFC_HEADROOM_CELL, 160, 200, 2240,
                                  &worst) == 2 * 96 && worst == 200);

    /* Cells as large as a frame: one per frame. */
    ovs_assert(pfc_headroom_cells(19196, PFC_HEADROOM_CELL, 9216, 64, 9216,
                                  &worst) == 300 && worst == 64);

    /* mbuf: one buffer per frame, whatever its size. */
    ovs_assert(pfc_headroom_cells(10304, PFC_HEADROOM_MBUF, 2176, 64, 2000,
                                  &worst) == 161 && worst == 64);
    ovs_assert(pfc_headroom_cells(10305, PFC_HEADROOM_MBUF, 2176, 64, 2000,
                                  &worst) == 162);
    PARSE(&in, &r, 0, NULL, "granularity=mbuf", "cell-size=2176", NULL);
    ovs_assert(r.bytes == 10319 && r.cells == 162 && r.cell_size == 2176);
    ovs_assert(r.cell_bytes == 162 * 2176 && r.worst_frame == 64);
    PARSE(&in, &r, 0, NULL, "granularity=mbuf", "cell-size=2176",
          "min-frame=60", NULL);
    ovs_assert(r.cells == 172);

    /* Bytes: no quantisation. */
    ovs_assert(pfc_headroom_cells(12345, PFC_HEADROOM_BYTE, 1, 64, 2000,
                                  &worst) == 12345 && worst == 0);
    printf("cells: ok\n");
}

/* Rounding of bits to bytes and quanta, and of the cable delay. */
static void
test_rounding(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_headroom_input in;
    struct pfc_headroom_result r;

    /* Two 64-byte frames and nothing else: 1024 bit times, exactly 2
     * quanta and 128 bytes; one bit time more rounds both up. */
    PARSE(&in, &r, 0, NULL, "class-mtu=64", "port-mtu=64", "pfc-frame=0",
          "cable-length=0", "phy=none", "response=0", NULL);
    TERMS(&r, 512, 0, 0, 0, 0, 0, 512, 0);
    ovs_assert(r.bits == 1024 && r.bytes == 128 && r.quanta == 2);
    PARSE(&in, &r, 0, NULL, "class-mtu=64", "port-mtu=64", "pfc-frame=0",
          "cable-length=0", "phy=none", "response=1", NULL);
    ovs_assert(r.bits == 1025 && r.bytes == 129 && r.quanta == 3);
    PARSE(&in, &r, 0, NULL, "class-mtu=64", "port-mtu=64", "pfc-frame=0",
          "cable-length=0", "phy=none", "response-quanta=2", NULL);
    ovs_assert(r.bits == 2048 && r.bytes == 256 && r.quanta == 4);

    /* The cable is rounded up in each direction, and only when not already
     * whole: 180 m at 0.6 c at 10 Gb/s is exactly 10,000 bit times. */
    PARSE(&in, &r, 0, NULL, "cable-length=180", "velocity=0.6", NULL);
    ovs_assert(r.terms[2].bits == 10000 && r.terms[7].bits == 10000);
    PARSE(&in, &r, 0, NULL, "cable-length=181", "velocity=0.6", NULL);
    ovs_assert(r.terms[2].bits == 10056 && r.terms[7].bits == 10056);
    PARSE(&in, &r, 0, NULL, "cable-length=1", NULL);
    ovs_assert(r.terms[2].bits == 51);      /* 50.505... */
    PARSE(&in, &r, 0, NULL, "cable-length=0", NULL);
    ovs_assert(r.terms[2].bits == 0 && r.bits == 82550 - 2 * 5051);

    /* The Cisco rule scales with length and speed, rounded up once. */
    PARSE(&in, &r, 0, NULL, "model=cisco", "cable-length=150", NULL);
    ovs_assert(r.terms[2].bits == 1950 * 8);
    PARSE(&in, &r, 0, NULL, "model=cisco", "cable-length=1", NULL);
    ovs_assert(r.terms[2].bits == 13 * 8);
    PARSE(&in, &r, 0, NULL, "model=cisco", "cable-length=1", "speed=1G",
          NULL);
    ovs_assert(r.terms[2].bits == 11);      /* 10.4 */
    PARSE(&in, &r, 0, NULL, "model=cisco", "cable-length=100000",
          "speed=1T", "cable-bytes-per-100m=100000", NULL);
    ovs_assert(r.terms[2].bits == 8ULL * 100000 * 1000 * 100);
    printf("rounding: ok\n");
}

/* The speed key and its effect. */
static void
test_speed(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_headroom_input in;
    struct pfc_headroom_result r;

    PARSE(&in, &r, 0, NULL, "speed=2.5G", NULL);
    ovs_assert(in.speed == 2500000000ULL);
    PARSE(&in, &r, 0, NULL, "speed=25G", NULL);
    ovs_assert(in.speed == 25000000000ULL);
    /* 100 m at 0.66 c at 25 Gb/s: 12,626.26 bit times. */
    ovs_assert(r.terms[2].bits == 12627);
    /* Frames, interface delay and response are in bit times: unchanged. */
    ovs_assert(r.bits == 82550 - 2 * 5051 + 2 * 12627);
    PARSE(&in, &r, 0, NULL, "speed=100M", NULL);
    ovs_assert(in.speed == 100000000 && r.terms[2].bits == 51);
    PARSE(&in, &r, 0, NULL, "speed=1T", NULL);
    ovs_assert(in.speed == 1000000000000ULL);
    PARSE(&in, &r, 0, NULL, "speed=400g", NULL);
    ovs_assert(in.speed == 400000000000ULL);
    PARSE(&in, &r, 0, NULL, "speed=1000000", NULL);
    ovs_assert(in.speed == 1000000);
    printf("speed: ok\n");
}

static void
test_speed_errors(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    static const char *const bad[] = {
        "speed=10X", "speed=", "speed=G", "speed=0.5M", "speed=999999",
        "speed=2T", "speed=1.0000001M", "speed=-1G", "speed=1e9",
        "speed=1.5",
    };
    struct pfc_headroom_input in;
    struct pfc_headroom_result r;

    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        PARSE(&in, &r, EINVAL, "must be an integer from 1000000 to "
              "1000000000000 bit/s, with an optional k, M, G or T suffix",
              bad[i], NULL);
    }
    printf("speed-errors: ok\n");
}

/* The velocity key. */
static void
test_velocity(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    static const struct {
        const char *s;
        uint32_t v;
    } good[] = {
        { "copper", 6600 }, { "twisted-pair", 6600 }, { "cat6", 6000 },
        { "twinax", 7000 }, { "fibre", 6500 }, { "fiber", 6500 },
        { "FIBRE", 6500 }, { "0.66", 6600 }, { "1", 10000 }, { "0.1", 1000 },
        { "0.6667", 6667 }, { ".7", 7000 },
    };
    static const char *const bad[] = {
        "0.09", "1.0001", "1.5", "0.66666", "abc", "", "0", "66%",
    };
    uint32_t v;

    for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
        ovs_assert(!pfc_headroom_velocity_from_string(good[i].s, &v));
        ovs_assert(v == good[i].v);
    }
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        ovs_assert(pfc_headroom_velocity_from_string(bad[i], &v) == EINVAL);
    }
    printf("velocity: ok\n");
}

/* The phy key: seed 001 table 1. */
static void
test_phy(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    static const struct {
        const char *s;
        uint32_t bits;
    } good[] = {
        { "none", 0 }, { "10gbase-t", 25600 }, { "10GBASE-T", 25600 },
        { "mac", 8192 }, { "xaui", 2048 }, { "10gbase-x-pcs", 2048 },
        { "10gbase-r-pcs", 3584 }, { "lx4-pmd", 512 }, { "cx4-pmd", 512 },
        { "serial-pma-pmd", 512 },
        { "mac+xaui+xaui+10gbase-t", 37888 },   /* Seed 001's worst case. */
        { "MAC+XAUI+XAUI+10GBASE-T", 37888 },
        { "mac+10gbase-r-pcs+serial-pma-pmd", 12288 },
        { "10gbase-t+10gbase-t+10gbase-t", 3 * 25600 },
    };
    static const char *const bad[] = {
        "", "foo", "mac+", "+mac", "mac++xaui", "+", "none+mac",
        "10gbase-t ", " mac", "mac,xaui", "2xaui", "10gbase",
    };
    uint32_t bits;

    for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
        ovs_assert(!pfc_headroom_phy_delay(good[i].s, &bits));
        ovs_assert(bits == good[i].bits);
    }
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        ovs_assert(pfc_headroom_phy_delay(bad[i], &bits) == EINVAL);
    }
    printf("phy: ok\n");
}

/* Every key, the terms it gives, and the keys that imply others. */
static void
parse_keys(void)
{
    struct pfc_headroom_input in;
    struct pfc_headroom_result r;

    /* Every key at once, in any order; "model" applies first. */
    PARSE(&in, &r, 0, NULL, "min-frame=60", "cell-size=256",
          "granularity=cell", "response=1000", "higher-layer-delay=7",
          "id-count=0", "phy=mac", "pfc-frame=0", "frame-overhead=24",
          "port-mtu=1522", "class-mtu=9022", "cable-bytes-per-100m=0",
          "velocity=0.7", "cable-length=5", "speed=40G",
          "model=delay-value", NULL);
    ovs_assert(in.model == PFC_HEADROOM_DELAY_VALUE);
    ovs_assert(in.speed == 40000000000ULL && in.cable_length == 5);
    ovs_assert(in.velocity == 7000 && in.cable_rule == 0);
    ovs_assert(in.class_mtu == 9022 && in.port_mtu == 1522);
    ovs_assert(in.frame_overhead == 24 && in.pfc_frame == 0);
    ovs_assert(in.interface_delay == 8192 && !strcmp(in.phy, "mac"));
    ovs_assert(in.id_count == 0 && in.higher_layer_delay == 7);
    ovs_assert(in.response == 1000 && in.granularity == PFC_HEADROOM_CELL);
    ovs_assert(in.cell_size == 256 && in.min_frame == 60);
    /* 5 m at 0.7 c at 40 Gb/s: 952.38 bit times. */
    TERMS(&r, 1546 * 8, 0, 953, 0, 7, 1000, 9046 * 8, 953);

    PARSE(&in, &r, 0, NULL, "interface-delay=1234", "id-count=2", NULL);
    ovs_assert(in.interface_delay == 1234 && in.phy[0] == '\0');
    ovs_assert(r.terms[3].bits == 2468);
    PARSE(&in, &r, 0, NULL, "response-quanta=28", NULL);
    ovs_assert(in.response == 14336 && r.bits == 82550);
    PARSE(&in, &r, 0, NULL, "response-quanta=0", NULL);
    ovs_assert(in.response == 0);

    /* cell-size alone turns byte granularity into cells. */
    PARSE(&in, &r, 0, NULL, "cell-size=160", NULL);
    ovs_assert(in.granularity == PFC_HEADROOM_CELL);
    ovs_assert(r.cells == DIV_ROUND_UP(10319, 64));
    PARSE(&in, &r, 0, NULL, "model=cisco", "granularity=byte", NULL);
    ovs_assert(r.cells == 19196 && r.cell_size == 1);
}

/* Malformed, unknown, repeated, out-of-range and conflicting keys: each
 * error names the key and its range. */
static void
parse_errors(void)
{
    struct pfc_headroom_input in;
    struct pfc_headroom_result r;

    /* Malformed arguments and unknown or repeated keys. */
    PARSE(&in, &r, EINVAL, "\"speed\" is not a key=value argument",
          "speed", NULL);
    PARSE(&in, &r, EINVAL, "\"=10G\" is not a key=value argument",
          "=10G", NULL);
    PARSE(&in, &r, EINVAL, "nosuch is not a key of pfc/headroom: the keys "
          "are model, speed, cable-length, velocity, cable-bytes-per-100m, "
          "class-mtu, port-mtu, frame-overhead, pfc-frame, phy, "
          "interface-delay, id-count, higher-layer-delay, response, "
          "response-quanta, granularity, cell-size or min-frame",
          "nosuch=1", NULL);
    PARSE(&in, &r, EINVAL, "class_mtu is not a key", "class_mtu=1", NULL);
    PARSE(&in, &r, EINVAL, "speed is given twice", "speed=1G", "speed=2G",
          NULL);

    /* Out-of-range values name the key and the range. */
    PARSE(&in, &r, EINVAL, "model=\"foo\" is invalid: must be annex-a, "
          "delay-value or cisco", "model=foo", NULL);
    PARSE(&in, &r, EINVAL, "cable-length=\"100001\" is invalid: must be an "
          "integer from 0 to 100000 metres", "cable-length=100001", NULL);
    PARSE(&in, &r, EINVAL, "cable-length=\"-1\" is invalid",
          "cable-length=-1", NULL);
    PARSE(&in, &r, EINVAL, "cable-length=\"1.5\" is invalid",
          "cable-length=1.5", NULL);
    PARSE(&in, &r, EINVAL, "cable-bytes-per-100m=\"100001\" is invalid: "
          "must be an integer from 0 to 100000 bytes per 100 m at 10 Gb/s",
          "cable-bytes-per-100m=100001", NULL);
    PARSE(&in, &r, EINVAL, "velocity=\"0.05\" is invalid: must be copper "
          "or twisted-pair (0.66), cat6 (0.6), twinax (0.7), fibre or fiber "
          "(0.65), or a fraction of c from 0.1 to 1", "velocity=0.05", NULL);
    PARSE(&in, &r, EINVAL, "class-mtu=\"63\" is invalid: must be an integer "
          "from 64 to 65535 bytes", "class-mtu=63", NULL);
    PARSE(&in, &r, EINVAL, "port-mtu=\"65536\" is invalid: must be an "
          "integer from 64 to 65535 bytes", "port-mtu=65536", NULL);
    PARSE(&in, &r, EINVAL, "frame-overhead=\"256\" is invalid: must be an "
          "integer from 0 to 255 bytes", "frame-overhead=256", NULL);
    PARSE(&in, &r, EINVAL, "pfc-frame=\"65536\" is invalid: must be an "
          "integer from 0 to 65535 bytes", "pfc-frame=65536", NULL);
    PARSE(&in, &r, EINVAL, "interface-delay=\"4294967296\" is invalid: must "
          "be an integer from 0 to 4294967295 bit times",
          "interface-delay=4294967296", NULL);
    PARSE(&in, &r, EINVAL, "id-count=\"3\" is invalid: must be an integer "
          "from 0 to 2 stations", "id-count=3", NULL);
    PARSE(&in, &r, EINVAL, "higher-layer-delay=\"x\" is invalid: must be an "
          "integer from 0 to 4294967295 bit times", "higher-layer-delay=x",
          NULL);
    PARSE(&in, &r, EINVAL, "response=\"\" is invalid: must be an integer "
          "from 0 to 4294967295 bit times", "response=", NULL);
    PARSE(&in, &r, EINVAL, "response-quanta=\"65536\" is invalid: must be "
          "an integer from 0 to 65535 pause quanta", "response-quanta=65536",
          NULL);
    PARSE(&in, &r, EINVAL, "cell-size=\"0\" is invalid: must be an integer "
          "from 1 to 65535 bytes", "cell-size=0", NULL);
    PARSE(&in, &r, EINVAL, "min-frame=\"0\" is invalid: must be an integer "
          "from 1 to 65535 bytes", "min-frame=0", NULL);
    PARSE(&in, &r, EINVAL, "phy=\"10gbase-tx\" is invalid: must be none or "
          "sublayers joined by +, from mac (8192), xaui (2048), "
          "10gbase-x-pcs (2048), 10gbase-r-pcs (3584), lx4-pmd (512), "
          "cx4-pmd (512), serial-pma-pmd (512) and 10gbase-t (25600) bit "
          "times",
          "phy=10gbase-tx", NULL);
    PARSE(&in, &r, EINVAL, "granularity=\"cells\" is invalid: must be byte, "
          "cell or mbuf", "granularity=cells", NULL);

    /* Conflicts. */
    PARSE(&in, &r, EINVAL, "phy and interface-delay are both given",
          "phy=mac", "interface-delay=1", NULL);
    PARSE(&in, &r, EINVAL, "response and response-quanta are both given",
          "response=1", "response-quanta=1", NULL);
    PARSE(&in, &r, EINVAL, "cell-size is not used with granularity=byte",
          "granularity=byte", "cell-size=160", NULL);
    PARSE(&in, &r, EINVAL, "granularity=mbuf needs cell-size",
          "granularity=mbuf", NULL);
}

/* pfc_headroom_compute() refuses inputs that no key could give. */
static void
compute_errors(void)
{
    struct pfc_headroom_input in;
    struct pfc_headroom_result r;

    /* pfc_headroom_compute() checks its inputs too. */
    pfc_headroom_input_init(&in, PFC_HEADROOM_ANNEX_A);
    in.speed = 0;
    ovs_assert(pfc_headroom_compute(&in, &r) == EINVAL);
    pfc_headroom_input_init(&in, PFC_HEADROOM_ANNEX_A);
    in.velocity = 0;
    ovs_assert(pfc_headroom_compute(&in, &r) == EINVAL);
    in.cable_rule = 1300;       /* The velocity is then unused. */
    ovs_assert(!pfc_headroom_compute(&in, &r));
    pfc_headroom_input_init(&in, PFC_HEADROOM_CISCO);
    in.cell_size = 0;
    ovs_assert(pfc_headroom_compute(&in, &r) == EINVAL);
    pfc_headroom_input_init(&in, PFC_HEADROOM_CISCO);
    in.min_frame = 0;
    ovs_assert(pfc_headroom_compute(&in, &r) == EINVAL);
    pfc_headroom_input_init(&in, PFC_HEADROOM_CISCO);
    in.class_mtu = 63;
    ovs_assert(pfc_headroom_compute(&in, &r) == EINVAL);
}

/* Every key, and errors that name the key and its range. */
static void
test_parse(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    parse_keys();
    parse_errors();
    compute_errors();
    printf("parse: ok\n");
}

/* Output of pfc/headroom. */
static void
test_format(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    static const char annex_a[] =
        "model: annex-a (seed 000, 802.1Qbb proposal, Annex A)\n"
        "speed: 10000000000 bit/s, cable-length: 100 m\n"
        "MTU[S]: 2000 bytes, MTU[R]: 2000 bytes\n"
        "  term                       detail                           "
        "   bit times\n"
        "  MTU[R] frame before PFC    2000 bytes                       "
        "       16000\n"
        "  PFC frame                  64 bytes                         "
        "         512\n"
        "  cable, PFC frame to sender 100 m at 0.66 c                  "
        "        5051\n"
        "  interface delay            1 x 25600 (10gbase-t)            "
        "       25600\n"
        "  higher-layer delay                                          "
        "           0\n"
        "  sender response time       28 quanta                        "
        "       14336\n"
        "  MTU[S] frame at sender     2000 bytes                       "
        "       16000\n"
        "  cable, data in flight      100 m at 0.66 c                  "
        "        5051\n"
        "buffer: contiguous bytes\n"
        "total: 82550 bit times, 10319 bytes, 162 quanta, 10319 cells "
        "of 1 bytes = 10319 bytes\n";
    static const char *const cisco[] = { "model=cisco" };
    static const char *const bad[] = { "model=cisco", "cable-length=1km" };
    struct ds ds = DS_EMPTY_INITIALIZER;
    char *error;

    ovs_assert(!pfc_headroom_run(0, NULL, &ds));
    if (strcmp(ds_cstr(&ds), annex_a)) {
        ovs_fatal(0, "unexpected output:\n%s", ds_cstr(&ds));
    }

    ds_clear(&ds);
    ovs_assert(!pfc_headroom_run(ARRAY_SIZE(cisco), cisco, &ds));
    ovs_assert(strstr(ds_cstr(&ds), "\ntotal: 153568 bit times, 19196 bytes, "
                      "300 quanta, 300 cells of 160 bytes = 48000 bytes\n"));
    ovs_assert(strstr(ds_cstr(&ds), "\nbuffer: 160-byte cells, worst case "
                      "64-byte frames of 1 cell\n"));
    ovs_assert(strstr(ds_cstr(&ds), "cable, both directions  "));

    ds_clear(&ds);
    error = pfc_headroom_run(ARRAY_SIZE(bad), bad, &ds);
    ovs_assert(error && !strcmp(error, "cable-length=\"1km\" is invalid: must "
                                "be an integer from 0 to 100000 metres"));
    ovs_assert(!ds.length);
    free(error);
    ds_destroy(&ds);
    printf("format: ok\n");
}

/* "run KEY=VALUE...": prints what pfc/headroom prints. */
static void
run(int argc, char *argv[])
{
    struct ds ds = DS_EMPTY_INITIALIZER;
    char *error = pfc_headroom_run(argc, (const char *const *) argv, &ds);

    if (error) {
        fprintf(stderr, "%s\n", error);
        free(error);
        ds_destroy(&ds);
        exit(2);
    }
    fputs(ds_cstr(&ds), stdout);
    ds_destroy(&ds);
}

static void
serve_exit(struct unixctl_conn *conn, int argc OVS_UNUSED,
           const char *argv[] OVS_UNUSED, void *exiting_)
{
    bool *exiting = exiting_;

    *exiting = true;
    unixctl_command_reply(conn, NULL);
}

static void
serve_parse_options(int argc, char *argv[])
{
    enum {
        DAEMON_OPTION_ENUMS,
        VLOG_OPTION_ENUMS
    };
    static const struct option long_options[] = {
        DAEMON_LONG_OPTIONS,
        VLOG_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    char *short_options = ovs_cmdl_long_options_to_short_options(long_options);

    for (;;) {
        int c = getopt_long(argc, argv, short_options, long_options, NULL);

        if (c == -1) {
            break;
        }
        switch (c) {
        DAEMON_OPTION_HANDLERS
        VLOG_OPTION_HANDLERS

        case '?':
            exit(EXIT_FAILURE);

        default:
            OVS_NOT_REACHED();
        }
    }
    free(short_options);
    if (optind != argc) {
        ovs_fatal(0, "serve takes only options");
    }
}

/* "serve [--detach] [--pidfile] ...": a unixctl server with pfc/headroom. */
static void
serve(int argc, char *argv[])
{
    struct unixctl_server *server;
    bool exiting = false;
    int error;

    set_program_name("test-pfc-headroom");
    serve_parse_options(argc, argv);
    pfc_daemonize_start();
    error = unixctl_server_create(NULL, &server);
    if (error) {
        ovs_fatal(error, "failed to create unixctl server");
    }
    unixctl_command_register("exit", "", 0, 0, serve_exit, &exiting);
    pfc_headroom_register_commands();
    pfc_headroom_register_commands();   /* Twice is harmless. */
    daemonize_complete();

    while (!exiting) {
        unixctl_server_run(server);
        unixctl_server_wait(server);
        if (!exiting) {
            poll_block();
        }
    }
    unixctl_server_destroy(server);
}

static void
run_cmd(struct ovs_cmdl_context *ctx)
{
    run(ctx->argc - 1, ctx->argv + 1);
}

static void
serve_cmd(struct ovs_cmdl_context *ctx)
{
    serve(ctx->argc, ctx->argv);
}

static const struct ovs_cmdl_command commands[] = {
    { "annex-a", NULL, 0, 0, test_annex_a, OVS_RO },
    { "delay-value", NULL, 0, 0, test_delay_value, OVS_RO },
    { "cisco", NULL, 0, 0, test_cisco, OVS_RO },
    { "cells", NULL, 0, 0, test_cells, OVS_RO },
    { "rounding", NULL, 0, 0, test_rounding, OVS_RO },
    { "speed", NULL, 0, 0, test_speed, OVS_RO },
    { "speed-errors", NULL, 0, 0, test_speed_errors, OVS_RO },
    { "velocity", NULL, 0, 0, test_velocity, OVS_RO },
    { "phy", NULL, 0, 0, test_phy, OVS_RO },
    { "parse", NULL, 0, 0, test_parse, OVS_RO },
    { "format", NULL, 0, 0, test_format, OVS_RO },
    { "run", NULL, 0, INT_MAX, run_cmd, OVS_RO },
    { "serve", NULL, 0, INT_MAX, serve_cmd, OVS_RO },
    { NULL, NULL, 0, 0, NULL, OVS_RO },
};

/* "ovstest test-pfc-headroom NAME" runs the test NAME; "run KEY=VALUE..."
 * prints what pfc/headroom prints; "serve [OPTIONS]" is a unixctl server
 * with pfc/headroom. */
static void
test_pfc_headroom_main(int argc, char *argv[])
{
    struct ovs_cmdl_context ctx = {
        .argc = argc - 1,
        .argv = argv + 1,
    };

    set_program_name(argv[0]);
    ovs_cmdl_run_command(&ctx, commands);
}

OVSTEST_REGISTER("test-pfc-headroom", test_pfc_headroom_main);
