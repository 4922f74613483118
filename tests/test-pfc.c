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

/* Unit tests of lib/pfc.c (the codec, pause timers, XOFF state, counters),
 * lib/pfc-holdq.c (the traffic class queues), lib/pfc-nic.c (what the NIC
 * allows) and lib/pfc-config.c (the keys); the watchdog's are in
 * tests/test-pfc-wd.c and DCBX's in tests/test-pfc-dcbx.c.  Time is a fake
 * clock: 'struct pfc_timebase' with hz = 1e9 makes one tick one nanosecond,
 * so at 10 Gb/s one pause quantum is 51.2 ticks (rounded up to 52 for a
 * single quantum). */

#include <config.h>
#undef NDEBUG
#include "pfc.h"
#include "pfc-config.h"
#include "pfc-dcbx.h"
#include "pfc-holdq.h"
#include "pfc-nic.h"
#include "pfc-wd.h"
#include "test-pfc-parse.h"

#include <errno.h>
#include <string.h>

#include "command-line.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "ovstest.h"
#include "packets.h"
#include "random.h"
#include "smap.h"
#include "util.h"

static const struct pfc_timebase tb10g = { 1000000000, 10000000000ULL };
static const struct eth_addr src_mac = ETH_ADDR_C(02, 00, 00, 00, 00, 0a);

/* Builds a PFC frame by hand, independently of pfc_frame_encode(). */
static size_t
build_pfc(uint8_t *buf, size_t pad_to, uint16_t vector,
          const uint16_t time[8])
{
    static const uint8_t hdr[] = {
        0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,     /* DA */
        0x02, 0x11, 0x22, 0x33, 0x44, 0x55,     /* SA */
        0x88, 0x08, 0x01, 0x01,                 /* EtherType, opcode */
    };
    size_t len = sizeof hdr;

    memset(buf, 0, 64);
    memcpy(buf, hdr, sizeof hdr);
    buf[len++] = vector >> 8;
    buf[len++] = vector;
    for (int n = 0; n < 8; n++) {
        buf[len++] = time[n] >> 8;
        buf[len++] = time[n];
    }
    return MAX(len, pad_to);
}

/* Asserts that pfc_rx_decide() gives, for the frame of 'len' octets at
 * 'data', the priority of pfc_classify__() and the answer of
 * pfc_rx_special(), for every trust mode, DSCP map and DCBX state. */
static void
check_rx_decide(const uint8_t *data, size_t len)
{
    uint8_t table[PFC_N_DSCP];

    for (int d = 0; d < PFC_N_DSCP; d++) {
        table[d] = (d * 5 + 1) & 7;
    }
    for (int trust = PFC_TRUST_PCP; trust <= PFC_TRUST_NONE; trust++) {
        for (int t = 0; t < 2; t++) {
            const uint8_t *map = t ? table : NULL;

            for (int lldp = 0; lldp < 2; lldp++) {
                bool special = false;
                int prio = pfc_rx_decide(trust, 6, map, data, len, lldp,
                                         &special);

                ovs_assert(prio == pfc_classify__(trust, 6, map, data, len));
                ovs_assert(special == pfc_rx_special(data, len, lldp));
                special = true;
                pfc_rx_decide(trust, 6, map, data, len, lldp, &special);
                ovs_assert(special);
            }
        }
    }
}

/* pfc_maybe_mac_control(), pfc_rx_special() and pfc_rx_decide() against
 * pfc_frame_decode() and pfc_classify__(), over EtherTypes, lengths,
 * IP versions and DSCPs. */
static void
check_rx_tests(void)
{
    struct pfc_frame f;
    uint8_t buf[64];

    /* The inline pre-check agrees with the decoder: false only where the
     * decoder says "not MAC Control", for every EtherType pair and length
     * around the boundaries, untagged and behind one tag. */
    static const uint16_t types[] = { 0x0800, 0x8808, 0x8100, 0x88a8,
                                      0x0808, 0x8809, 0x86dd, 0x88cc };
    for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
        for (size_t j = 0; j < ARRAY_SIZE(types); j++) {
            for (size_t l = 0; l <= 64; l++) {
                memset(buf, 0, sizeof buf);
                buf[12] = types[i] >> 8, buf[13] = types[i] & 0xff;
                buf[16] = types[j] >> 8, buf[17] = types[j] & 0xff;
                bool maybe = pfc_maybe_mac_control(buf, l);
                enum pfc_rx_kind kind = pfc_frame_decode(buf, l, &f);

                ovs_assert(maybe || kind == PFC_RX_NOT_MAC_CONTROL);
                ovs_assert(!maybe || kind != PFC_RX_NOT_MAC_CONTROL);

                /* The receive path's per-packet test: every frame too
                 * short to tell, every MAC Control frame, and with DCBX
                 * every untagged EtherType 0x88cc, and nothing else. */
                for (int lldp = 0; lldp < 2; lldp++) {
                    bool want = (l < 18 || maybe
                                 || (lldp && types[i] == 0x88cc));

                    ovs_assert(pfc_rx_special(buf, l, lldp) == want);
                }

                /* pfc_rx_decide() gives what the two tests give apart,
                 * for each trust mode, with and without a DSCP map, for
                 * IPv4 and IPv6 version nibbles and DSCPs that vary. */
                static const uint8_t vers[] = { 0x45, 0x65, 0x05 };
                for (size_t v = 0; v < ARRAY_SIZE(vers); v++) {
                    buf[14] = vers[v];
                    buf[15] = (i * 8 + j + l) << 2;
                    buf[18] = vers[v];
                    buf[19] = (j * 8 + i) << 2;
                    check_rx_decide(buf, l);
                }
            }
        }
    }
    /* The fast path of pfc_rx_decide(), untagged IPv4, for every DSCP and
     * ECN codepoint (RFC 3168), at the shortest length it takes and at 60
     * octets. */
    memset(buf, 0, sizeof buf);
    buf[12] = 0x08, buf[14] = 0x45;
    for (int tos = 0; tos < 256; tos++) {
        buf[15] = tos;
        check_rx_decide(buf, 18);
        check_rx_decide(buf, 60);
    }
}

static void
test_decode(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    uint16_t times[8] = { 1, 2, 3, 0xabcd, 5, 6, 7, 0xffff };
    struct pfc_frame f;
    uint8_t buf[64];
    size_t len;

    /* Padded frame, e[3] and e[7]. */
    len = build_pfc(buf, 60, 0x0088, times);
    ovs_assert(pfc_frame_decode(buf, len, &f) == PFC_RX_PFC);
    ovs_assert(f.enable == 0x88);
    ovs_assert(f.time[3] == 0xabcd && f.time[7] == 0xffff);
    /* time[n] with e[n] = 0 is ignored. */
    ovs_assert(f.time[0] == 0 && f.time[1] == 0 && f.time[4] == 0);

    /* Unpadded: exactly the 34 meaningful octets is enough. */
    len = build_pfc(buf, 0, 0x0008, times);
    ovs_assert(len == PFC_FRAME_MIN_LEN);
    ovs_assert(pfc_frame_decode(buf, len, &f) == PFC_RX_PFC);
    ovs_assert(f.enable == 0x08 && f.time[3] == 0xabcd);

    /* Truncated by one octet: invalid. */
    ovs_assert(pfc_frame_decode(buf, len - 1, &f) == PFC_RX_INVALID);
    ovs_assert(pfc_frame_decode(buf, 15, &f) == PFC_RX_INVALID);

    /* Reserved high octet of the vector and junk padding are ignored. */
    len = build_pfc(buf, 60, 0xff08, times);
    memset(buf + 34, 0xa5, 26);
    ovs_assert(pfc_frame_decode(buf, len, &f) == PFC_RX_PFC);
    ovs_assert(f.enable == 0x08);

    /* Any source address, even multicast. */
    buf[6] = 0x01;
    ovs_assert(pfc_frame_decode(buf, len, &f) == PFC_RX_PFC);

    /* Wrong DA: invalid, never acted on. */
    len = build_pfc(buf, 60, 0x0008, times);
    buf[5] = 0x02;
    ovs_assert(pfc_frame_decode(buf, len, &f) == PFC_RX_INVALID);

    /* 802.3x PAUSE and unknown opcodes. */
    len = build_pfc(buf, 60, 0x0008, times);
    buf[15] = 0x01, buf[14] = 0x00;
    ovs_assert(pfc_frame_decode(buf, len, &f) == PFC_RX_PAUSE);
    buf[14] = 0x01, buf[15] = 0x02;
    ovs_assert(pfc_frame_decode(buf, len, &f) == PFC_RX_UNSUPPORTED);

    /* VLAN-tagged MAC Control frame: invalid.  Tagged data: not MAC
     * Control. */
    {
        uint8_t tagged[68];

        len = build_pfc(buf, 60, 0x0008, times);
        memcpy(tagged, buf, 12);
        tagged[12] = 0x81, tagged[13] = 0x00, tagged[14] = 0x60;
        tagged[15] = 0x0a;
        memcpy(tagged + 16, buf + 12, len - 12);
        ovs_assert(pfc_frame_decode(tagged, len + 4, &f) == PFC_RX_INVALID);
        tagged[12] = 0x88, tagged[13] = 0xa8;
        ovs_assert(pfc_frame_decode(tagged, len + 4, &f) == PFC_RX_INVALID);
        tagged[16] = 0x08, tagged[17] = 0x00;
        ovs_assert(pfc_frame_decode(tagged, len + 4, &f)
                   == PFC_RX_NOT_MAC_CONTROL);
    }

    /* Ordinary traffic and runts. */
    buf[12] = 0x08, buf[13] = 0x00;
    ovs_assert(pfc_frame_decode(buf, 60, &f) == PFC_RX_NOT_MAC_CONTROL);
    ovs_assert(pfc_frame_decode(buf, 10, &f) == PFC_RX_NOT_MAC_CONTROL);

    check_rx_tests();
    printf("decode: ok\n");
}

static void
test_encode(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    uint16_t times[8] = { 0, 0, 0, 65535, 0, 0, 0, 0 };
    struct pfc_frame f, g;
    uint8_t want[64], got[64];
    size_t len;

    memset(&f, 0, sizeof f);
    f.enable = 0x08;
    f.time[3] = 65535;
    f.time[5] = 99;     /* e[5] = 0: must be sent as zero. */
    memset(got, 0xee, sizeof got);
    ovs_assert(pfc_frame_encode(got, &src_mac, &f) == PFC_FRAME_LEN);

    len = build_pfc(want, 60, 0x0008, times);
    memcpy(want + 6, src_mac.ea, 6);
    ovs_assert(len == PFC_FRAME_LEN);
    ovs_assert(!memcmp(want, got, PFC_FRAME_LEN));

    ovs_assert(pfc_frame_decode(got, PFC_FRAME_LEN, &g) == PFC_RX_PFC);
    ovs_assert(g.enable == 0x08 && g.time[3] == 65535 && g.time[5] == 0);
    printf("encode: ok\n");
}

static void
test_priority(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    uint8_t pkt[64];

    memset(pkt, 0, sizeof pkt);
    pkt[12] = 0x81, pkt[13] = 0x00, pkt[14] = 0x60;     /* PCP 3. */
    ovs_assert(pfc_packet_priority(pkt, 64, 0) == 3);
    pkt[14] = 0xe0;                                     /* PCP 7. */
    ovs_assert(pfc_packet_priority(pkt, 64, 0) == 7);
    pkt[12] = 0x88, pkt[13] = 0xa8, pkt[14] = 0x80;     /* 802.1ad. */
    ovs_assert(pfc_packet_priority(pkt, 64, 0) == 4);
    pkt[12] = 0x08, pkt[13] = 0x00;                     /* Untagged. */
    ovs_assert(pfc_packet_priority(pkt, 64, 5) == 5);
    pkt[12] = 0x81, pkt[13] = 0x00;                     /* Too short. */
    ovs_assert(pfc_packet_priority(pkt, 14, 2) == 2);
    printf("priority: ok\n");
}

static void
test_timebase(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_timebase tb1g = { 1000000000, 1000000000 };
    struct pfc_timebase tsc = { 2500000000ULL, 10000000000ULL };

    /* 51.2 ns per quantum at 10 Gb/s, rounded up. */
    ovs_assert(pfc_quanta_to_ticks(&tb10g, 1) == 52);
    ovs_assert(pfc_quanta_to_ticks(&tb10g, 10) == 512);
    /* 65,535 quanta = 3.355 ms at 10 Gb/s, 33.6 ms at 1 Gb/s. */
    ovs_assert(pfc_quanta_to_ticks(&tb10g, 65535) == 3355392);
    ovs_assert(pfc_quanta_to_ticks(&tb1g, 65535) == 33553920);
    /* A 2.5 GHz TSC: 128 cycles per quantum at 10 Gb/s. */
    ovs_assert(pfc_quanta_to_ticks(&tsc, 1) == 128);
    ovs_assert(pfc_ticks_to_ns(&tsc, 128) == 51);
    ovs_assert(pfc_quantum_ps(&tb10g) == 51200);
    ovs_assert(pfc_quanta_to_ticks(&tb10g, 0) == 0);
    printf("timebase: ok\n");
}

static struct pfc_frame
frame1(int prio, uint16_t time)
{
    struct pfc_frame f;

    memset(&f, 0, sizeof f);
    f.enable = 1u << prio;
    f.time[prio] = time;
    return f;
}

static void
test_pause(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_pause p;
    struct pfc_frame f;
    uint64_t t = 1000;

    pfc_pause_init(&p);
    ovs_assert(pfc_pause_status(&p, t) == 0);

    /* Pause priority 3 for 100 quanta = 5120 ns. */
    f = frame1(3, 100);
    ovs_assert(pfc_pause_receive(&p, &f, &tb10g, t, t) == 0x08);
    ovs_assert(pfc_pause_status(&p, t) == 0x08);
    ovs_assert(pfc_pause_status(&p, t + 5119) == 0x08);
    ovs_assert(pfc_pause_status(&p, t + 5120) == 0);
    ovs_assert(pfc_pause_remaining(&p, 3, t + 120) == 5000);
    ovs_assert(pfc_pause_remaining(&p, 0, t) == 0);

    /* Re-arming a running timer is no transition, and restarts it. */
    f = frame1(3, 10);
    ovs_assert(pfc_pause_receive(&p, &f, &tb10g, t + 5000, t + 5000) == 0);
    ovs_assert(pfc_pause_status(&p, t + 5119) == 0x08);
    ovs_assert(pfc_pause_status(&p, t + 5512) == 0);

    /* e[n] = 0 leaves timer n untouched: pause 4, then a frame naming only
     * 5 does not resume 4. */
    f = frame1(4, 1000);
    ovs_assert(pfc_pause_receive(&p, &f, &tb10g, t, t) == 0x10);
    f = frame1(5, 0);
    ovs_assert(pfc_pause_receive(&p, &f, &tb10g, t + 10, t + 10) == 0);
    ovs_assert(pfc_pause_status(&p, t + 10) == 0x18);

    /* Time 0 resumes at once. */
    f = frame1(4, 0);
    ovs_assert(pfc_pause_receive(&p, &f, &tb10g, t + 20, t + 20) == 0);
    ovs_assert(!(pfc_pause_status(&p, t + 20) & 0x10));

    /* An XON read at 'now' that may have arrived at 'earliest' ends the
     * pause there: once the rx queues have been polled since 'earliest'
     * (the queue that read it has: 'earliest' is its last poll stamp), the
     * priority is released, without waiting for a poll after the read.  A
     * queue polled only before 'earliest' may still hold an older frame,
     * which the XON supersedes anyway, but the poll rule waits for it. */
    {
        struct pfc_pause q;
        uint64_t until[PFC_N_PRIOS] = { 0 };
        uint64_t valid;

        pfc_pause_init(&q);
        f = frame1(6, 65535);
        ovs_assert(pfc_pause_receive(&q, &f, &tb10g, 1000, 1000) == 0x40);
        f = frame1(6, 0);
        ovs_assert(pfc_pause_receive(&q, &f, &tb10g, 5000, 4000) == 0);
        ovs_assert(q.until[6] == 4000 && q.xon == 0x40);
        ovs_assert(!pfc_pause_status(&q, 5000));
        ovs_assert(pfc_pause_total(&q, 6, 9000) == 4000);  /* To the read. */
        memcpy(until, q.until, sizeof until);
        /* Every queue polled since 4000: released at once. */
        ovs_assert(!pfc_paused_prios(until, 0xff, 5001, 4000, 100000,
                                     &valid));
        /* A queue last polled at 3999: held until it is polled again. */
        ovs_assert(pfc_paused_prios(until, 0xff, 5001, 3999, 100000,
                                    &valid) == 0x40);
        ovs_assert(valid == 0);
        /* Released long after 'until': late after an expiry, never after
         * an XON. */
        ovs_assert(pfc_pause_ended_late(4000, false, 9001, 5000));
        ovs_assert(!pfc_pause_ended_late(4000, false, 9000, 5000));
        ovs_assert(!pfc_pause_ended_late(4000, true, 90000, 5000));
        ovs_assert(!pfc_pause_ended_late(0, false, 90000, 5000));
        /* The next XOFF starts a new pause, not ended by an XON. */
        f = frame1(6, 10);
        ovs_assert(pfc_pause_receive(&q, &f, &tb10g, 6000, 5500) == 0x40);
        ovs_assert(!q.xon && q.until[6] == 6512);
    }

    /* Time paused: 3 was paused from t to t + 5512; 4 from t to t + 20. */
    ovs_assert(pfc_pause_total(&p, 4, t + 100000) == 20);
    ovs_assert(pfc_pause_total(&p, 3, t + 100000) == 5512);
    ovs_assert(pfc_pause_total(&p, 3, t + 100) == 100);

    /* After expiry, a new pause is a new transition, and the closed
     * interval is kept. */
    f = frame1(3, 1);
    ovs_assert(pfc_pause_receive(&p, &f, &tb10g, t + 10000,
                                 t + 10000) == 0x08);
    ovs_assert(pfc_pause_total(&p, 3, t + 20000) == 5512 + 52);

    /* Several priorities in one frame. */
    memset(&f, 0, sizeof f);
    f.enable = 0x81;
    f.time[0] = 1;
    f.time[7] = 2;
    ovs_assert(pfc_pause_receive(&p, &f, &tb10g, t + 30000,
                                 t + 30000) == 0x81);
    ovs_assert(pfc_pause_status(&p, t + 30052) == 0x80);

    /* A refresh read after the timer ran out, but that may have arrived
     * before (the previous poll was before the end), continues the pause:
     * no transition. */
    pfc_pause_init(&p);
    f = frame1(2, 10);                          /* Ends at 512. */
    ovs_assert(pfc_pause_receive(&p, &f, &tb10g, 0, 0) == 0x04);
    ovs_assert(pfc_pause_receive(&p, &f, &tb10g, 900, 500) == 0);
    ovs_assert(pfc_pause_status(&p, 1411) == 0x04);
    ovs_assert(pfc_pause_total(&p, 2, 1412) == 1412);
    /* One that surely arrived after the end is a new pause. */
    ovs_assert(pfc_pause_receive(&p, &f, &tb10g, 3000, 2000) == 0x04);

    /* When a pause releases its priority: until = 1000, cap 500.  'polled'
     * is the earliest start, over the rx queues, of their last poll that
     * emptied the ring. */
    ovs_assert(pfc_pause_holds(1000, 999, 999, 500));   /* Running. */
    ovs_assert(pfc_pause_holds(1000, 999, 1200, 500));  /* Never early, even
                                                         * with a later
                                                         * stamp. */
    ovs_assert(!pfc_pause_holds(1000, 1000, 1000, 500)); /* Polled at the
                                                          * expiry. */
    ovs_assert(!pfc_pause_holds(1000, 1300, 1200, 500));
    ovs_assert(pfc_pause_holds(1000, 1000, 999, 500));  /* Polled 1 cycle
                                                         * before: a refresh
                                                         * may wait unread. */
    ovs_assert(pfc_pause_holds(1000, 1499, 500, 500));
    ovs_assert(!pfc_pause_holds(1000, 1500, 500, 500)); /* Cap. */
    ovs_assert(!pfc_pause_holds(0, 5, 0, 500));         /* Never paused. */
    printf("pause: ok\n");
}

/* pfc_paused_prios(): the pause timers of eight priorities, the enabled
 * mask, and how long the answer stays valid. */
static void
test_paused_prios(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    uint64_t until[PFC_N_PRIOS] = { 0, 0, 0, 2000, 3000, 1000, 0, 0 };
    uint64_t valid;

    /* At 500, p3, p4 and p5 run; p5 ends first. */
    ovs_assert(pfc_paused_prios(until, 0xff, 500, 400, 10000, &valid)
               == 0x38);
    ovs_assert(valid == 1000);
    /* Only enabled priorities are paused. */
    ovs_assert(pfc_paused_prios(until, 0x08, 500, 400, 10000, &valid)
               == 0x08);
    ovs_assert(valid == 2000);
    /* At 1500, p5 expired but the queues were last polled before 1000:
     * still paused, and the answer may change at any time. */
    ovs_assert(pfc_paused_prios(until, 0xff, 1500, 900, 10000, &valid)
               == 0x38);
    ovs_assert(valid == 0);
    /* Polled at 1000: p5 is released; p3 runs until 2000. */
    ovs_assert(pfc_paused_prios(until, 0xff, 1500, 1000, 10000, &valid)
               == 0x18);
    ovs_assert(valid == 2000);
    /* Past the cap, without a poll: released. */
    ovs_assert(pfc_paused_prios(until, 0x20, 11000, 0, 10000, &valid)
               == 0);
    ovs_assert(valid == UINT64_MAX);
    /* Nothing enabled: nothing paused. */
    ovs_assert(pfc_paused_prios(until, 0, 500, 0, 10000, &valid) == 0);
    printf("paused-prios: ok\n");
}

static void
test_tcs_blocked(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    uint8_t map[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };

    ovs_assert(pfc_tcs_blocked(map, 0) == 0);
    ovs_assert(pfc_tcs_blocked(map, 0x08) == 0x08);
    /* Priorities 3 and 4 share class 1: pausing either blocks class 1
     * (seed 000 6). */
    map[3] = map[4] = 1;
    ovs_assert(pfc_tcs_blocked(map, 0x10) == 0x02);
    ovs_assert(pfc_tcs_blocked(map, 0x18) == 0x02);
    ovs_assert(pfc_tcs_blocked(map, 0x11) == 0x03);
    /* And back: class 1 holds priorities 1, 3 and 4. */
    ovs_assert(pfc_tcs_prios(map, 0x02) == 0x1a);
    ovs_assert(pfc_tcs_prios(map, 0x03) == 0x1b);
    ovs_assert(pfc_tcs_prios(map, 0) == 0);
    printf("tcs-blocked: ok\n");
}

/* The rx queue drain rule (struct pfc_rxq_drain): a ring that a flood keeps
 * full still gives poll stamps, so a pause ends about one ring's worth of
 * frames after its expiry, not at the cap; and never before every frame that
 * was in the ring at the expiry has been read. */
static void
test_rxq_drain(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    enum { RING = 64, BURST = 32, ARRIVE = 10, POLL = 150 };
    struct pfc_rxq_drain d = { 0, 0 };
    uint64_t arrived = 0, read = 0;   /* Frames, FIFO. */
    uint64_t polled = 0, until = 100000, cap = 100000000;
    uint64_t released = 0, in_ring_at_until = 0;
    bool counted_at_until = false;

    /* An emptying poll stamps its start, and ends any run. */
    ovs_assert(pfc_rxq_drain_poll(&d, 5, 3, true, RING) == 5);
    ovs_assert(pfc_rxq_drain_poll(&d, 6, BURST, false, RING) == 0);
    ovs_assert(pfc_rxq_drain_poll(&d, 7, 3, true, RING) == 7);
    ovs_assert(!d.since && !d.read);
    /* A full ring's worth read from polls that began at 10 or later
     * stamps 10. */
    ovs_assert(pfc_rxq_drain_poll(&d, 10, BURST, false, RING) == 0);
    ovs_assert(pfc_rxq_drain_poll(&d, 20, BURST, false, RING) == 10);
    ovs_assert(pfc_rxq_drain_poll(&d, 30, BURST, false, RING) == 0);
    ovs_assert(pfc_rxq_drain_poll(&d, 40, BURST, false, RING) == 30);

    /* A flood: one frame every ARRIVE ticks, a poll every POLL ticks that
     * reads up to BURST: the PMD keeps up (BURST x ARRIVE > POLL) but the
     * ring never empties.  The ring holds at most RING frames; the extra
     * ones are lost, as on a NIC. */
    memset(&d, 0, sizeof d);
    for (uint64_t t = 1; t < 10 * until && !released; t++) {
        if (t % ARRIVE == 0 && arrived - read < RING) {
            arrived++;
        }
        if (t == until) {
            in_ring_at_until = arrived;
            counted_at_until = true;
        }
        if (t % POLL == 0) {
            uint64_t n = MIN(BURST, arrived - read - 1);  /* Never empty. */
            uint64_t stamp;

            read += n;
            stamp = pfc_rxq_drain_poll(&d, t, n, false, RING);
            polled = stamp ? stamp : polled;
        }
        if (!pfc_pause_holds(until, t, polled, cap)) {
            released = t;
        }
    }
    ovs_assert(counted_at_until && released);
    /* Safe: every frame in the ring at the expiry was read first. */
    ovs_assert(read >= in_ring_at_until);
    /* Bounded: within the time two rings' worth of frames take to arrive,
     * plus a poll, far from the cap.  (The run of polls under way at the
     * expiry stamps a time before it; the next one ends the pause.) */
    ovs_assert(released - until <= 2 * (RING * ARRIVE + POLL));
    ovs_assert(released - until < cap);

    /* Without the rule, such a ring waits for the cap. */
    ovs_assert(pfc_pause_holds(until, until + cap - 1, 0, cap));

    /* pfc_rxq_drain_ticks(): 2048 minimum frames at 10 Gb/s take 137.6 us. */
    ovs_assert(pfc_rxq_drain_ticks(&tb10g, 2048) / 100 == 1376);
    printf("rxq-drain: ok\n");
}

/* The tx ring of a PFC port and its worst-case response (seed 000 4.6):
 * the response bound, the XOFF send delay, the tx queue of PFC frames and
 * the tx ring size that they give, on drivers of several limits. */
static void
ring_sizes(void)
{
    struct pfc_ring_limits any = { 0, 65535, 1 };
    struct pfc_ring_limits ixgbe = { 32, 4096, 8 };
    struct pfc_ring_limits odd = { 64, 1000, 32 };

    /* 2048 descriptors of 1522-byte frames are far beyond 14,336 bit
     * times; one such frame is within it. */
    ovs_assert(pfc_response_bits(2048, 1522) == 2048ULL * 1542 * 8);
    ovs_assert(pfc_response_bits(1, 1522) == 12336);
    ovs_assert(pfc_response_bits(1, 1522) <= PFC_RESPONSE_BOUND_BITS);
    ovs_assert(pfc_response_bits(0, 64) == 0);

    /* The XOFF send delay on a data tx queue: every tx queue's ring,
     * served in turn. */
    ovs_assert(pfc_xoff_delay_bits(2048, 1522, 1, false)
               == pfc_response_bits(2048, 1522));
    ovs_assert(pfc_xoff_delay_bits(2048, 1522, 0, false)
               == pfc_response_bits(2048, 1522));
    ovs_assert(pfc_xoff_delay_bits(1024, 9000, 3, false)
               == 3ULL * 1024 * 9020 * 8);
    ovs_assert(pfc_xoff_delay_bits(0, 1522, 4, false) == 0);
    /* On a tx queue of its own: a frame of each data tx queue, and a PFC
     * frame (64 + 20 bytes on the wire) per transmit thread, whatever the
     * rings: 2 x (1542 + 84) x 8 = 26,016 bit times, 2.6 us at 10 Gb/s,
     * against 5.05 ms behind two rings of 2,048. */
    ovs_assert(pfc_xoff_delay_bits(2048, 1522, 2, true) == 2 * 1626 * 8);
    ovs_assert(pfc_xoff_delay_bits(65535, 1522, 2, true) == 2 * 1626 * 8);
    ovs_assert(pfc_xoff_delay_bits(2048, 9022, 1, true) == 9126 * 8);
    ovs_assert(pfc_xoff_delay_bits(2048, 1522, 0, true) == 1626 * 8);

    /* A tx queue of its own: only where the driver has one to spare, and
     * only on a driver that sends MAC Control frames. */
    ovs_assert(pfc_ctrl_txq_want("net_af_packet", 0, 3, 4));
    ovs_assert(!pfc_ctrl_txq_want("net_af_packet", 0, 3, 3));
    ovs_assert(!pfc_ctrl_txq_want("net_af_packet", 0, 1, 1));
    ovs_assert(pfc_ctrl_txq_want("net_null", 0, 3, 1024));
    ovs_assert(!pfc_ctrl_txq_want("net_virtio_user", 0, 3, 8));
    ovs_assert(!pfc_ctrl_txq_want("net_null", 0, 0, 1024));
    ovs_assert(!pfc_ctrl_txq_want(NULL, 0, 3, 1024));
    ovs_assert(pfc_ctrl_txq_want("net_ixgbe",
                                 pfc_driver_quirks("net_ixgbe"), 3, 64));
    ovs_assert(!pfc_ctrl_txq_want("net_i40e",
                                  pfc_driver_quirks("net_i40e"), 3, 64));
    ovs_assert(!pfc_ctrl_txq_want("mlx5_pci",
                                  pfc_driver_quirks("mlx5_pci"), 3, 64));
    ovs_assert(!pfc_ctrl_txq_want("net_bnxt",
                                  pfc_driver_quirks("net_bnxt"), 3, 64));

    /* The bound in descriptors: 14336 / ((F + 20) * 8), at least 1. */
    ovs_assert(pfc_tx_ring_bound(1522) == 1);
    ovs_assert(pfc_tx_ring_bound(1772) == 1);     /* 1792 * 8 = 14336. */
    ovs_assert(pfc_tx_ring_bound(9022) == 1);     /* None fits: still 1. */
    ovs_assert(pfc_tx_ring_bound(64) == 21);      /* 14336 / 672. */
    ovs_assert(pfc_tx_ring_bound(876) == 2);      /* 896 * 8 * 2 = 14336. */
    ovs_assert(pfc_tx_ring_bound(877) == 1);
    for (uint32_t f = 64; f <= 9216; f++) {
        uint32_t b = pfc_tx_ring_bound(f);

        ovs_assert(b == 1 || pfc_response_bits(b, f)
                             <= PFC_RESPONSE_BOUND_BITS);
        ovs_assert(pfc_response_bits(b + 1, f) > PFC_RESPONSE_BOUND_BITS);
    }

    /* auto: the bound, where the driver allows it. */
    ovs_assert(pfc_tx_ring_size(PFC_TX_RING_AUTO, 2048, 1522, &any) == 1);
    ovs_assert(pfc_tx_ring_size(PFC_TX_RING_AUTO, 2048, 64, &any) == 21);
    ovs_assert(pfc_tx_ring_size(PFC_TX_RING_AUTO, 2048, 1522, &ixgbe) == 32);
    ovs_assert(pfc_tx_ring_size(PFC_TX_RING_AUTO, 2048, 64, &ixgbe) == 32);
    ovs_assert(pfc_tx_ring_size(PFC_TX_RING_AUTO, 2048, 64, &odd) == 64);
    /* nb_align 0 is taken as 1. */
    struct pfc_ring_limits zero = { 0, 0, 0 };
    ovs_assert(pfc_tx_ring_size(PFC_TX_RING_AUTO, 2048, 64, &zero) == 21);

    /* interface: n_txq_desc untouched, as without PFC. */
    ovs_assert(pfc_tx_ring_size(PFC_TX_RING_INTERFACE, 2048, 1522, &ixgbe)
               == 2048);

    /* A number: fitted to the driver's minimum, alignment and maximum. */
    ovs_assert(pfc_tx_ring_size(100, 2048, 1522, &any) == 100);
    ovs_assert(pfc_tx_ring_size(100, 2048, 1522, &ixgbe) == 104);
    ovs_assert(pfc_tx_ring_size(8, 2048, 1522, &ixgbe) == 32);
    ovs_assert(pfc_tx_ring_size(4096, 2048, 1522, &odd) == 992);
    ovs_assert(pfc_tx_ring_size(990, 2048, 1522, &odd) == 992);
}

/* tx-ring-size as parsed, printed back and refused. */
static void
ring_parse(void)
{
    struct smap details = SMAP_INITIALIZER(&details);
    struct pfc_config cfg;
    struct smap out;
    char *err;

    /* Parsing: default "interface" (no port restart); "auto"; 1..4096;
     * errors name the key. */
    ovs_assert(!pfc_config_parse(&details, &cfg, &err));
    ovs_assert(cfg.tx_ring_size == PFC_TX_RING_INTERFACE);
    smap_add(&details, "tx-ring-size", "auto");
    ovs_assert(!pfc_config_parse(&details, &cfg, &err));
    ovs_assert(cfg.tx_ring_size == PFC_TX_RING_AUTO);
    smap_replace(&details, "tx-ring-size", "interface");
    ovs_assert(!pfc_config_parse(&details, &cfg, &err));
    ovs_assert(cfg.tx_ring_size == PFC_TX_RING_INTERFACE);
    smap_replace(&details, "tx-ring-size", "64");
    ovs_assert(!pfc_config_parse(&details, &cfg, &err));
    ovs_assert(cfg.tx_ring_size == 64);
    smap_init(&out);
    pfc_config_to_smap(&cfg, &out);
    ovs_assert(!strcmp(smap_get(&out, "tx-ring-size"), "64"));
    smap_destroy(&out);
    smap_replace(&details, "tx-ring-size", "auto");
    ovs_assert(!pfc_config_parse(&details, &cfg, &err));
    smap_init(&out);
    pfc_config_to_smap(&cfg, &out);
    ovs_assert(!strcmp(smap_get(&out, "tx-ring-size"), "auto"));
    smap_destroy(&out);
    static const char *const bad[] = { "0", "4097", "small", "-1", "" };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        smap_replace(&details, "tx-ring-size", bad[i]);
        ovs_assert(pfc_config_parse(&details, &cfg, &err) == EINVAL);
        ovs_assert(strstr(err, "other_config:tx-ring-size"));
        ovs_assert(strstr(err, "from 1 to 4096"));
        ovs_assert(strstr(err, "\"auto\" or \"interface\""));
        free(err);
    }
    smap_destroy(&details);
}

/* mac-control and mac-control-queue as parsed, printed back and refused. */
static void
mac_control_parse(void)
{
    struct smap details;
    struct pfc_config cfg;
    struct smap out;
    char *err;

    /* mac-control: auto (default) or trust, kept by to_smap and equal. */
    struct pfc_config cfg2;
    smap_init(&details);
    ovs_assert(!pfc_config_parse(&details, &cfg, &err));
    ovs_assert(!cfg.mac_control_trust);
    smap_add(&details, "mac-control", "trust");
    ovs_assert(!pfc_config_parse(&details, &cfg2, &err));
    ovs_assert(cfg2.mac_control_trust);
    ovs_assert(!pfc_config_equal(&cfg, &cfg2));
    smap_init(&out);
    pfc_config_to_smap(&cfg2, &out);
    ovs_assert(!strcmp(smap_get(&out, "mac-control"), "trust"));
    smap_destroy(&out);
    smap_replace(&details, "mac-control", "yes");
    ovs_assert(pfc_config_parse(&details, &cfg, &err) == EINVAL);
    ovs_assert(strstr(err, "other_config:mac-control=\"yes\""));
    ovs_assert(strstr(err, "auto or trust"));
    free(err);
    smap_destroy(&details);

    /* mac-control-queue: false (default) or true. */
    smap_init(&details);
    ovs_assert(!pfc_config_parse(&details, &cfg, &err));
    ovs_assert(!cfg.mac_control_queue);
    smap_add(&details, "mac-control-queue", "true");
    ovs_assert(!pfc_config_parse(&details, &cfg2, &err));
    ovs_assert(cfg2.mac_control_queue);
    ovs_assert(!pfc_config_equal(&cfg, &cfg2));
    smap_init(&out);
    pfc_config_to_smap(&cfg2, &out);
    ovs_assert(!strcmp(smap_get(&out, "mac-control-queue"), "true"));
    smap_destroy(&out);
    smap_replace(&details, "mac-control-queue", "1");
    ovs_assert(pfc_config_parse(&details, &cfg, &err) == EINVAL);
    ovs_assert(strstr(err, "other_config:mac-control-queue=\"1\""));
    ovs_assert(strstr(err, "true or false"));
    free(err);
    smap_destroy(&details);
}

/* The tx ring of a PFC port, and the keys that configure it. */
static void
test_ring(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    ring_sizes();
    ring_parse();
    mac_control_parse();
    printf("ring: ok\n");
}

static void
test_holdq(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_holdq q;
    struct pfc_held h;
    int next_out = 0, next_in = 0;

    pfc_holdq_init(&q, 3);
    memset(&h, 0, sizeof h);
    /* Push and pop across the ring's wrap point many times: FIFO order. */
    for (int round = 0; round < 10; round++) {
        while (q.n < q.cap) {
            h.len = next_in++;
            ovs_assert(pfc_holdq_push(&q, &h));
        }
        h.len = 999;
        ovs_assert(!pfc_holdq_push(&q, &h));        /* Full. */
        for (uint32_t i = 0; i < q.n; i++) {
            ovs_assert(pfc_holdq_peek(&q, i)->len == next_out + i);
        }
        pfc_holdq_pop(&q, 2);
        next_out += 2;
        ovs_assert(pfc_holdq_peek(&q, 0)->len == next_out);
    }
    pfc_holdq_pop(&q, q.n);
    ovs_assert(q.n == 0);
    pfc_holdq_destroy(&q);
    printf("holdq: ok\n");
}

/* Pushes a packet of priority 'prio' and id 'id' to the class queue of
 * 'q' that 'map' maps it to. */
static void
holdq_push_prio(struct pfc_holdq q[PFC_N_PRIOS], const uint8_t map[],
                int prio, uintptr_t id, bool lossy)
{
    struct pfc_held h = { .pkt = (void *) id, .len = 100 + prio,
                          .in_port = 1, .prio = prio, .lossy = lossy };

    ovs_assert(pfc_holdq_push(&q[map[prio]], &h));
}

/* pfc_holdq_count_by_class(), pfc_holdq_regroup(): a priority's held
 * packets follow it to its new class, in order, and the packets of a
 * second source go behind those of the first; the tally counts them. */
static void
test_holdq_regroup(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    uint8_t map[PFC_N_PRIOS] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    struct pfc_holdq a[PFC_N_PRIOS], b[PFC_N_PRIOS], to[PFC_N_PRIOS];
    uint32_t need[PFC_N_PRIOS] = { 0 };
    struct pfc_holdq_tally tally;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        pfc_holdq_init(&a[tc], 5);
        pfc_holdq_init(&b[tc], 5);
    }
    /* Source a: priority 1 #1, #2 in class 1; priority 3 #3..#5 in class
     * 3; priority 6 #6 in class 6.  Source b: priority 3 #7, #8. */
    holdq_push_prio(a, map, 1, 1, false);
    holdq_push_prio(a, map, 1, 2, true);
    for (uintptr_t id = 3; id <= 5; id++) {
        holdq_push_prio(a, map, 3, id, false);
    }
    holdq_push_prio(a, map, 6, 6, false);
    holdq_push_prio(b, map, 3, 7, false);
    holdq_push_prio(b, map, 3, 8, false);

    /* Priorities 3 and 6 to class 1, priority 1 to class 7. */
    map[3] = map[6] = 1;
    map[1] = 7;
    pfc_holdq_count_by_class(a, map, need);
    pfc_holdq_count_by_class(b, map, need);
    ovs_assert(need[1] == 6 && need[7] == 2 && need[3] == 0 && need[6] == 0);

    memset(to, 0, sizeof to);       /* No ring where nothing goes. */
    pfc_holdq_init(&to[1], need[1]);
    pfc_holdq_init(&to[7], need[7]);
    memset(&tally, 0, sizeof tally);
    pfc_holdq_regroup(a, map, to, &tally);
    pfc_holdq_regroup(b, map, to, &tally);
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        ovs_assert(!a[tc].n && !a[tc].n_lossy && !b[tc].n);
    }
    /* Class 1: #3, #4, #5 (class 3 before class 6 in a), #6, then b's. */
    static const uintptr_t want1[] = { 3, 4, 5, 6, 7, 8 };
    ovs_assert(to[1].n == ARRAY_SIZE(want1));
    for (size_t i = 0; i < ARRAY_SIZE(want1); i++) {
        ovs_assert((uintptr_t) pfc_holdq_peek(&to[1], i)->pkt == want1[i]);
    }
    ovs_assert(to[7].n == 2 && to[7].n_lossy == 1);
    ovs_assert((uintptr_t) pfc_holdq_peek(&to[7], 0)->pkt == 1);
    ovs_assert((uintptr_t) pfc_holdq_peek(&to[7], 1)->pkt == 2);
    ovs_assert(tally.pkts[3] == 5 && tally.pkts[1] == 2 && tally.pkts[6] == 1);
    ovs_assert(tally.bytes[3] == 5 * 103 && tally.lossy[1] == 1);

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        pfc_holdq_pop(&to[tc], to[tc].n);
        pfc_holdq_destroy(&to[tc]);
        pfc_holdq_destroy(&a[tc]);
        pfc_holdq_destroy(&b[tc]);
    }
    printf("holdq-regroup: ok\n");
}

/* Queue rows: pfc_config_set_queue() maps priorities to a traffic class
 * and notes the queue for set_queue, refuses a priority that another queue
 * holds, a queue beyond 7 and unknown keys, and pfc_config_clear_queue()
 * undoes it. */
static void
test_config_queue(void)
{
    struct pfc_config cfg;
    struct smap q;
    char *err;

    PARSE(&cfg, 0, NULL, NULL);
    smap_init(&q);
    smap_add(&q, "priorities", "3,4");
    ovs_assert(!pfc_config_set_queue(&cfg, 1, &q, &err));
    ovs_assert(cfg.prio_to_tc[3] == 1 && cfg.prio_to_tc[4] == 1);
    ovs_assert(cfg.prio_to_tc[1] == 1 && cfg.prio_to_tc[5] == 5);
    /* Setting the same queue again is fine; another queue claiming 4 is
     * not, and changes nothing. */
    ovs_assert(!pfc_config_set_queue(&cfg, 1, &q, &err));
    smap_replace(&q, "priorities", "4,5");
    ovs_assert(pfc_config_set_queue(&cfg, 2, &q, &err) == EINVAL);
    ovs_assert(strstr(err, "priority 4 already belongs to queue 1"));
    free(err);
    ovs_assert(cfg.prio_to_tc[5] == 5 && cfg.prio_to_tc[4] == 1);
    ovs_assert(pfc_config_set_queue(&cfg, 8, &q, &err) == EINVAL);
    ovs_assert(strstr(err, "traffic classes 0 to 7"));
    free(err);
    smap_replace(&q, "priorities", "9");
    ovs_assert(pfc_config_set_queue(&cfg, 2, &q, &err) == EINVAL);
    ovs_assert(strstr(err, "priorities"));
    free(err);
    smap_clear(&q);
    smap_add(&q, "min-rate", "1");
    ovs_assert(pfc_config_set_queue(&cfg, 2, &q, &err) == EINVAL);
    ovs_assert(strstr(err, "min-rate is not a key"));
    free(err);
    /* Queues that set_queue may choose: 1, and 2 without keys; never 0,
     * which the bridge configures even without a Queue row. */
    ovs_assert(cfg.queues == 0x02);
    smap_clear(&q);
    ovs_assert(!pfc_config_set_queue(&cfg, 2, &q, &err));
    ovs_assert(!pfc_config_set_queue(&cfg, 0, &q, &err));
    ovs_assert(cfg.queues == 0x06);
    pfc_config_clear_queue(&cfg, 1);
    ovs_assert(cfg.prio_to_tc[3] == 3 && cfg.prio_to_tc[4] == 4);
    ovs_assert(cfg.queues == 0x04);
    smap_destroy(&q);
}

static void
test_config(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_config cfg;
    char *err;

    /* Defaults. */
    PARSE(&cfg, 0, NULL, NULL);
    ovs_assert(cfg.enabled == 0 && cfg.queue_size == 0);
    ovs_assert(cfg.dyn_th == 0 && cfg.egress_dyn_th == 1
               && cfg.lossy_dyn_th == -1);
    ovs_assert(cfg.pause_quanta == 65535 && cfg.default_priority == 0);
    ovs_assert(cfg.xoff_threshold == 0 && cfg.xon_default);
    ovs_assert(cfg.cable_length == 100 && cfg.xon_hysteresis == 0);
    ovs_assert(cfg.link_speed == 0);
    for (int n = 0; n < 8; n++) {
        ovs_assert(cfg.prio_to_tc[n] == n);
    }

    /* Every key. */
    PARSE(&cfg, 0, NULL, "pfc-enable", "3,4", "xoff-threshold", "20000",
          "xon-threshold", "100", "pause-quanta", "1", "queue-size", "16",
          "default-priority", "7", "link-speed", "25G");
    ovs_assert(cfg.enabled == 0x18 && cfg.xoff_threshold == 20000);
    ovs_assert(!cfg.xon_default && cfg.xon_threshold == 100);
    ovs_assert(cfg.pause_quanta == 1 && cfg.queue_size == 16);
    ovs_assert(cfg.default_priority == 7);
    ovs_assert(cfg.link_speed == 25000000000ULL);
    PARSE(&cfg, 0, NULL, "pfc-enable", "none", "link-speed", "100000000");
    ovs_assert(cfg.enabled == 0 && cfg.link_speed == 100000000);
    PARSE(&cfg, 0, NULL, "pfc-enable", "0 7", "queue-size", "4",
          "cable-length", "0", "headroom-model", "cisco",
          "xon-hysteresis", "2");
    ovs_assert(cfg.enabled == 0x81 && cfg.xoff_threshold == 0);
    ovs_assert(cfg.cable_length == 0 && cfg.xon_hysteresis == 2);

    /* Errors name the key and the range. */
    PARSE(&cfg, EINVAL, "pfc-enable", "pfc-enable", "8");
    PARSE(&cfg, EINVAL, "pfc-enable", "pfc-enable", "3,x");
    PARSE(&cfg, EINVAL, "from 64 to 4294967295 bytes",
          "xoff-threshold", "abc");
    PARSE(&cfg, EINVAL, "xoff-threshold", "xoff-threshold", "63");
    PARSE(&cfg, EINVAL, "xoff-threshold", "xoff-threshold", "4294967296");
    PARSE(&cfg, EINVAL, "xoff-threshold", "xoff-threshold", "-1");
    PARSE(&cfg, EINVAL, "xon-threshold=\"1000\" is invalid: must be an "
          "integer from 0 to 999", "xoff-threshold", "1000",
          "xon-threshold", "1000");
    PARSE(&cfg, EINVAL, "pause-quanta", "pause-quanta", "0");
    PARSE(&cfg, EINVAL, "from 1 to 65535", "pause-quanta", "65536");
    PARSE(&cfg, EINVAL, "queue-size", "queue-size", "0");
    PARSE(&cfg, EINVAL, "from 1 to 65536 packets", "queue-size", "65537");
    PARSE(&cfg, EINVAL, "default-priority", "default-priority", "8");
    PARSE(&cfg, EINVAL, "link-speed", "link-speed", "10X");
    PARSE(&cfg, EINVAL, "link-speed", "link-speed", "999999");
    PARSE(&cfg, EINVAL, "link-speed", "link-speed", "2T");
    PARSE(&cfg, EINVAL, "xoff_threshold is not a key",
          "xoff_threshold", "1000");
    PARSE(&cfg, EINVAL, "from 0 to 100000 metres", "cable-length", "100001");
    PARSE(&cfg, EINVAL, "must be annex-a, delay-value or cisco",
          "headroom-model", "guess");
    PARSE(&cfg, EINVAL, "xon-threshold needs other_config:xoff-threshold",
          "xon-threshold", "10");
    PARSE(&cfg, EINVAL, "xon-hysteresis applies only to the dynamic",
          "xoff-threshold", "1000", "xon-hysteresis", "10");
    PARSE(&cfg, EINVAL, "xon-hysteresis", "xon-hysteresis", "0");

    test_config_queue();

    /* Round trip through pfc_config_to_smap(). */
    {
        struct pfc_config a, b;
        struct smap s = SMAP_INITIALIZER(&s);

        PARSE(&a, 0, NULL, "pfc-enable", "3", "xoff-threshold", "9000",
              "link-speed", "1G");
        pfc_config_to_smap(&a, &s);
        ovs_assert(!pfc_config_parse(&s, &b, &err));
        ovs_assert(pfc_config_equal(&a, &b));
        PARSE(&b, 0, NULL, "pfc-enable", "4");
        ovs_assert(!pfc_config_equal(&a, &b));
        smap_destroy(&s);
    }
    printf("config: ok\n");
}

static void
test_counters(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_counters c;
    struct pfc_frame f;

    memset(&c, 0, sizeof c);
    memset(&f, 0, sizeof f);
    f.enable = 0x09;
    pfc_counters_count_rx(&c, &f, 0x08);
    pfc_counters_count_tx(&c, &f);
    ovs_assert(c.rx_frames[0] == 1 && c.rx_frames[3] == 1);
    ovs_assert(c.rx_frames[1] == 0 && c.transitions[3] == 1);
    ovs_assert(c.transitions[0] == 0);
    ovs_assert(c.tx_frames[0] == 1 && c.tx_frames[3] == 1);
    printf("counters: ok\n");
}

/* pfc_tx_plain(): true for ordinary frames, untagged or behind one tag;
 * and never true for a frame that pfc_tx_forbidden() or pfc_lldp_foreign()
 * would drop, over 200,000 frames whose first 22 octets are drawn from the
 * values that matter (01-80-C2 destinations, 0x8808, 0x88cc, tags). */
static void
test_tx_plain(void)
{
    static const uint16_t types[] = {
        0x0800, 0x86dd, 0x8808, 0x88cc, 0x8100, 0x88a8, 0x0806, 0x8809,
    };
    static const uint8_t last[] = { 0x00, 0x01, 0x02, 0x03, 0x0e, 0x10 };
    uint8_t f[64];

    memset(f, 0, sizeof f);
    memcpy(f, "\x02\x00\x00\x00\x00\x0b\x02\x00\x00\x00\x00\x0a", 12);
    f[12] = 0x08;
    ovs_assert(pfc_tx_plain(f, sizeof f));              /* IPv4. */
    ovs_assert(!pfc_tx_plain(f, 17));                   /* Too short. */
    f[12] = 0x81; f[16] = 0x86; f[17] = 0xdd;
    ovs_assert(pfc_tx_plain(f, sizeof f));              /* Tagged IPv6. */
    f[16] = 0x88; f[17] = 0x08;
    ovs_assert(!pfc_tx_plain(f, sizeof f));             /* Tagged 0x8808. */
    f[16] = 0x81; f[17] = 0x00;
    ovs_assert(!pfc_tx_plain(f, sizeof f));             /* Two tags. */
    f[12] = 0x08; f[13] = 0x00;
    memcpy(f, "\x01\x80\xc2\x00\x00\x20", 6);
    ovs_assert(!pfc_tx_plain(f, sizeof f));             /* 01-80-C2/24. */

    for (int i = 0; i < 200000; i++) {
        uint32_t r = random_uint32();
        size_t len = 12 + random_range(sizeof f - 12 + 1);
        bool plain, dropped;

        random_bytes(f, sizeof f);
        if (r & 1) {
            memcpy(f, "\x01\x80\xc2\x00\x00", 5);
            f[5] = last[(r >> 1) % ARRAY_SIZE(last)];
        }
        for (int k = 0; k < 3; k++) {
            uint16_t type = types[(r >> (4 + 3 * k)) % ARRAY_SIZE(types)];

            f[12 + 4 * k] = type >> 8;
            f[13 + 4 * k] = type;
        }
        plain = pfc_tx_plain(f, len);
        dropped = pfc_tx_forbidden(f, len) || pfc_lldp_foreign(f, len);
        ovs_assert(!(plain && dropped));
    }
}

/* pfc_tx_forbidden(): MAC Control frames, tagged up to twice, and frames to
 * 01-80-C2-00-00-01 never leave; everything else does. */
static void
test_tx_filter(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    uint8_t f[64];

    memset(f, 0, sizeof f);
    /* Ordinary unicast IPv4. */
    memcpy(f, "\x02\x00\x00\x00\x00\x0b\x02\x00\x00\x00\x00\x0a", 12);
    f[12] = 0x08;
    ovs_assert(!pfc_tx_forbidden(f, sizeof f));
    /* 0x8808 to a unicast address: PAUSE or PFC aimed at the peer. */
    f[13] = 0x08;
    f[12] = 0x88;
    ovs_assert(pfc_tx_forbidden(f, sizeof f));
    ovs_assert(pfc_tx_forbidden(f, 14));
    ovs_assert(!pfc_tx_forbidden(f, 13));       /* Too short to tell. */
    /* One 802.1Q tag, then 0x8808. */
    f[12] = 0x81; f[13] = 0x00; f[14] = 0x60; f[15] = 0x00;
    f[16] = 0x88; f[17] = 0x08;
    ovs_assert(pfc_tx_forbidden(f, sizeof f));
    f[16] = 0x08; f[17] = 0x00;
    ovs_assert(!pfc_tx_forbidden(f, sizeof f));
    /* 802.1ad outer tag, 802.1Q inner tag, then 0x8808. */
    f[12] = 0x88; f[13] = 0xa8;
    f[16] = 0x81; f[17] = 0x00; f[18] = 0x60; f[19] = 0x00;
    f[20] = 0x88; f[21] = 0x08;
    ovs_assert(pfc_tx_forbidden(f, sizeof f));
    ovs_assert(!pfc_tx_forbidden(f, 20));       /* Truncated after tags. */
    f[20] = 0x08; f[21] = 0x00;
    ovs_assert(!pfc_tx_forbidden(f, sizeof f));
    /* Three tags: not a MAC Control frame this switch recognizes. */
    f[20] = 0x81; f[21] = 0x00; f[24] = 0x88; f[25] = 0x08;
    ovs_assert(!pfc_tx_forbidden(f, sizeof f));
    /* Any frame to 01-80-C2-00-00-01, whatever its EtherType. */
    memcpy(f, "\x01\x80\xc2\x00\x00\x01", 6);
    f[12] = 0x08; f[13] = 0x00;
    ovs_assert(pfc_tx_forbidden(f, sizeof f));
    /* Other reserved addresses (LLDP, STP) are not this filter's. */
    f[5] = 0x0e;
    ovs_assert(!pfc_tx_forbidden(f, sizeof f));
    f[5] = 0x00;
    ovs_assert(!pfc_tx_forbidden(f, sizeof f));
    test_tx_plain();
    printf("tx-filter: ok\n");
}

/* pfc_receive(): only PFC-enabled priorities pause; the others are counted
 * as ignored, and every e[n] = 1 counts as received. */
static void
test_receive(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_frame f = { .enable = 0x18 };
    struct pfc_counters c;
    struct pfc_pause p;
    uint64_t t = 1000000;

    memset(&c, 0, sizeof c);
    pfc_pause_init(&p);
    f.time[3] = 100;
    f.time[4] = 100;
    ovs_assert(pfc_receive(&p, &c, &f, 0x08, &tb10g, t, t) == 0x08);
    ovs_assert(pfc_pause_status(&p, t + 1) == 0x08);
    ovs_assert(c.rx_frames[3] == 1 && c.rx_frames[4] == 1);
    ovs_assert(c.rx_ignored[3] == 0 && c.rx_ignored[4] == 1);
    ovs_assert(c.transitions[3] == 1 && c.transitions[4] == 0);

    /* An XON for a priority that is not enabled changes nothing either. */
    f.enable = 0x10;
    f.time[4] = 0;
    ovs_assert(pfc_receive(&p, &c, &f, 0x08, &tb10g, t + 2, t + 2) == 0);
    ovs_assert(pfc_pause_status(&p, t + 3) == 0x08);
    ovs_assert(c.rx_ignored[4] == 2);

    /* Nothing enabled: nothing pauses. */
    f.enable = 0xff;
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        f.time[n] = 65535;
    }
    pfc_pause_init(&p);
    ovs_assert(pfc_receive(&p, &c, &f, 0, &tb10g, t, t) == 0);
    ovs_assert(pfc_pause_status(&p, t + 1) == 0);
    printf("receive: ok\n");
}

/* Asserts that pfc_mac_control_decide() refuses PFC on 'driver' given
 * 'answers', with a reason that names the driver, the failed 'call' and the
 * override. */
static void
expect_mac_control_refused(const char *driver,
                           const struct pfc_mac_control_answers *answers,
                           const char *call)
{
    char *reason;

    ovs_assert(pfc_mac_control_decide(driver, false,
                                      pfc_driver_quirks(driver), answers,
                                      &reason)
               == PFC_MAC_CONTROL_REFUSED);
    ovs_assert(strstr(reason, driver) && strstr(reason, call)
               && strstr(reason, "mac-control=trust"));
    free(reason);
}

/* pfc_mac_control_decide(): virtual devices need nothing, trust skips the
 * NIC, and a driver that refuses any step refuses PFC with a reason that
 * names the driver and the call.  The driver policy is an allowlist: a
 * driver known to ignore mac_ctrl_frame_fwd, or not known to forward MAC
 * Control frames, is not asked and is refused unless trusted; one that
 * drops transmitted MAC Control frames runs receive only. */
static void
test_mac_control(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_mac_control_answers ok;
    struct pfc_mac_control_answers a;
    char *reason;

    memset(&ok, 0, sizeof ok);
    ovs_assert(pfc_driver_is_virtual("net_af_packet"));
    ovs_assert(pfc_driver_is_virtual("net_null"));
    ovs_assert(pfc_driver_is_virtual("net_virtio_user"));
    ovs_assert(!pfc_driver_is_virtual("net_ixgbe"));
    ovs_assert(!pfc_driver_is_virtual("mlx5_pci"));
    ovs_assert(!pfc_driver_is_virtual(NULL));

    uint8_t fwd = PFC_QUIRK_FORWARDS;

    ovs_assert(!pfc_mac_control_needs_nic("net_pcap", false, 0));
    ovs_assert(!pfc_mac_control_needs_nic("net_ixgbe", true, fwd));
    ovs_assert(pfc_mac_control_needs_nic("net_ixgbe", false, fwd));

    ovs_assert(pfc_mac_control_decide("net_ring", false, 0, &ok, &reason)
               == PFC_MAC_CONTROL_VIRTUAL && !reason);
    ovs_assert(pfc_mac_control_decide("mlx5_pci", true, 0, &ok, &reason)
               == PFC_MAC_CONTROL_TRUSTED && !reason);
    ovs_assert(pfc_mac_control_decide("net_ixgbe", false, fwd, &ok, &reason)
               == PFC_MAC_CONTROL_NIC && !reason);

    /* The allowlist. */
    static const char *const known[] = {
        "net_e1000_em", "net_e1000_igb", "net_igc", "net_ixgbe", "net_i40e",
        "net_txgbe", "net_ngbe",
    };
    static const char *const unknown[] = {
        "net_ice_dcf", "net_mlx4", "net_bnxt", "net_cnxk", "net_hns3",
        "net_sfc_efx", "net_foo", NULL,
    };
    for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
        ovs_assert(pfc_driver_quirks(known[i]) & PFC_QUIRK_FORWARDS);
        ovs_assert(pfc_mac_control_needs_nic(known[i], false,
                                             pfc_driver_quirks(known[i])));
    }
    for (size_t i = 0; i < ARRAY_SIZE(unknown); i++) {
        uint8_t q = pfc_driver_quirks(unknown[i]);

        ovs_assert(!q && !pfc_mac_control_needs_nic(unknown[i], false, q));
        ovs_assert(pfc_mac_control_decide(unknown[i], false, q, &ok, &reason)
                   == PFC_MAC_CONTROL_REFUSED);
        ovs_assert(strstr(reason, "not known to pass MAC Control frames")
                   && strstr(reason, "mac-control=trust"));
        free(reason);
        ovs_assert(pfc_mac_control_decide(unknown[i], true, q, &ok, &reason)
                   == PFC_MAC_CONTROL_TRUSTED && !reason);
    }
    ovs_assert(pfc_driver_quirks("mlx5_pci") == PFC_QUIRK_IGNORES_FWD);
    ovs_assert(pfc_driver_quirks("net_i40e") & PFC_QUIRK_TX_DROPS);

    a = ok;
    a.flow_ctrl_set = -EINVAL;
    expect_mac_control_refused("net_ixgbe", &a,
                               "rte_eth_dev_flow_ctrl_set()");
    a = ok;
    a.flow_ctrl_get = -ENOTSUP;
    expect_mac_control_refused("net_igc", &a, "rte_eth_dev_flow_ctrl_get()");
    a = ok;
    a.allmulticast = -EIO;
    expect_mac_control_refused("net_e1000_igb", &a,
                               "rte_eth_allmulticast_enable()");

    /* Trust wins over a refusal; a virtual device never asks. */
    ovs_assert(pfc_mac_control_decide("net_cnxk", true, 0, &a, &reason)
               == PFC_MAC_CONTROL_TRUSTED && !reason);
    ovs_assert(pfc_mac_control_decide("net_tap", false, 0, &a, &reason)
               == PFC_MAC_CONTROL_VIRTUAL && !reason);
    ovs_assert(!strcmp(pfc_mac_control_name(PFC_MAC_CONTROL_NIC),
                       "forwarded by the NIC"));

    /* A driver that ignores mac_ctrl_frame_fwd (mlx5, dpaa, ice): the NIC is
     * not asked, its answers do not matter, PFC is refused with a reason
     * that says so and names the override; trust overrides. */
    ovs_assert(!pfc_mac_control_needs_nic("mlx5_pci", false,
                                          PFC_QUIRK_IGNORES_FWD));
    ovs_assert(pfc_mac_control_decide("mlx5_pci", false,
                                      PFC_QUIRK_IGNORES_FWD, &ok, &reason)
               == PFC_MAC_CONTROL_REFUSED);
    ovs_assert(strstr(reason, "mlx5_pci") && strstr(reason, "ignores it")
               && strstr(reason, "mac-control=trust"));
    free(reason);
    ovs_assert(pfc_mac_control_decide("mlx5_pci", true,
                                      PFC_QUIRK_IGNORES_FWD, &ok, &reason)
               == PFC_MAC_CONTROL_TRUSTED && !reason);

    /* A driver that drops transmitted MAC Control frames (i40e): asked as
     * any NIC; receive only if it agreed, refused if it did not. */
    uint8_t i40e = pfc_driver_quirks("net_i40e");

    ovs_assert(pfc_mac_control_needs_nic("net_i40e", false, i40e));
    ovs_assert(pfc_mac_control_decide("net_i40e", false, i40e, &ok, &reason)
               == PFC_MAC_CONTROL_RX_ONLY && !reason);
    a = ok;
    a.flow_ctrl_set = -EIO;
    ovs_assert(pfc_mac_control_decide("net_i40e", false, i40e, &a, &reason)
               == PFC_MAC_CONTROL_REFUSED);
    free(reason);
    ovs_assert(strstr(pfc_mac_control_name(PFC_MAC_CONTROL_RX_ONLY),
                      "receive only"));
    printf("mac-control: ok\n");
}

/* pfc_holdq_reserve() and pfc_holdq_append(): a reconfiguration can move
 * more packets into a queue than its limit, in order, and the limit still
 * applies to pfc_holdq_push(). */
static void
test_holdq_append(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_holdq q;
    struct pfc_held h = { .len = 100, .in_port = 1, .prio = 3 };

    pfc_holdq_init(&q, 4);
    for (uintptr_t i = 0; i < 3; i++) {
        h.pkt = (void *) (i + 1);
        ovs_assert(pfc_holdq_push(&q, &h));
    }
    pfc_holdq_pop(&q, 2);               /* Head no longer at slot 0. */
    h.pkt = (void *) 4;
    ovs_assert(pfc_holdq_push(&q, &h));
    pfc_holdq_reserve(&q, 10);
    ovs_assert(q.cap == 10 && q.limit == 4 && q.n == 2);
    for (uintptr_t i = 5; i < 13; i++) {
        h.pkt = (void *) i;
        ovs_assert(pfc_holdq_append(&q, &h));
    }
    ovs_assert(q.n == 10);
    h.pkt = (void *) 99;
    ovs_assert(!pfc_holdq_append(&q, &h));
    ovs_assert(!pfc_holdq_push(&q, &h));
    ovs_assert(pfc_holdq_peek(&q, 0)->pkt == (void *) 3);
    ovs_assert(pfc_holdq_peek(&q, 1)->pkt == (void *) 4);
    for (uintptr_t i = 2; i < 10; i++) {
        ovs_assert(pfc_holdq_peek(&q, i)->pkt == (void *) (i + 3));
    }
    /* Back under the limit, push works again. */
    pfc_holdq_pop(&q, 7);
    ovs_assert(pfc_holdq_push(&q, &h));
    ovs_assert(pfc_holdq_peek(&q, 3)->pkt == (void *) 99);
    pfc_holdq_pop(&q, q.n);
    pfc_holdq_destroy(&q);
    printf("holdq-append: ok\n");
}

/* Fills 'q' with 'n' packets of priority 3, ids 'first' and up, after
 * 'skew' pushes and pops, so that the queue wraps around its ring. */
static void
holdq_fill(struct pfc_holdq *q, uint32_t skew, uintptr_t first, uint32_t n)
{
    struct pfc_held h = { .len = 100, .in_port = 1, .prio = 3 };

    for (uint32_t i = 0; i < skew; i++) {
        ovs_assert(pfc_holdq_append(q, &h));
        pfc_holdq_pop(q, 1);
    }
    for (uint32_t i = 0; i < n; i++) {
        h.pkt = (void *) (first + i);
        h.lossy = i & 1;
        ovs_assert(pfc_holdq_append(q, &h));
    }
}

/* Checks that 'q' holds ids 'first' to 'first + n - 1', in order. */
static void
holdq_expect(const struct pfc_holdq *q, uintptr_t first, uint32_t n)
{
    ovs_assert(q->n == n);
    for (uint32_t i = 0; i < n; i++) {
        ovs_assert(pfc_holdq_peek(q, i)->pkt == (void *) (first + i));
    }
}

/* Sets up 'older', a ring of 'older_cap' slots that holds ids 1 to
 * 'older_n', and 'q', a ring of 'q_cap' that holds the next 'q_n' ids, each
 * wrapped around its ring by 'skew' pushes and pops. */
static void
holdq_join_setup(struct pfc_holdq *q, uint32_t q_cap, uint32_t q_n,
                 struct pfc_holdq *older, uint32_t older_cap, uint32_t older_n,
                 uint32_t skew)
{
    pfc_holdq_init(q, q_cap);
    pfc_holdq_init(older, older_cap);
    holdq_fill(older, skew % older_cap, 1, older_n);
    holdq_fill(q, skew % q_cap, older_n + 1, q_n);
}

/* Empties and frees 'q' and 'older'. */
static void
holdq_join_free(struct pfc_holdq *q, struct pfc_holdq *older)
{
    pfc_holdq_pop(q, q->n);
    pfc_holdq_pop(older, older->n);
    pfc_holdq_destroy(q);
    pfc_holdq_destroy(older);
}

/* pfc_holdq_join(): the older packets go ahead of the newer, whichever
 * ring keeps them, wrapped around or not; it copies the fewer; the joined
 * queue keeps the newer queue's limit; without room anywhere, nothing
 * changes. */
static void
test_holdq_join(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_holdq q, older;
    uint64_t copied;

    for (uint32_t skew = 0; skew < 12; skew += 5) {
        /* Few older: they go to the head of 'q' (cap 10, limit 4). */
        copied = 0;
        holdq_join_setup(&q, 10, 5, &older, 8, 2, skew);
        q.limit = 4;
        ovs_assert(pfc_holdq_join(&q, &older, &copied));
        ovs_assert(copied == 2 && q.limit == 4 && q.cap == 10);
        holdq_expect(&q, 1, 7);
        ovs_assert(q.n_lossy == 3 && !older.n && !older.n_lossy);
        holdq_join_free(&q, &older);

        /* Many older: the newer go to the tail of their ring. */
        copied = 0;
        holdq_join_setup(&q, 4, 3, &older, 12, 7, skew);
        ovs_assert(pfc_holdq_join(&q, &older, &copied));
        ovs_assert(copied == 3 && q.limit == 4 && q.cap == 12);
        holdq_expect(&q, 1, 10);
        ovs_assert(older.cap == 4 && !older.n);
        holdq_join_free(&q, &older);

        /* No room in either ring: nothing changes. */
        copied = 0;
        holdq_join_setup(&q, 4, 2, &older, 4, 3, skew);
        ovs_assert(!pfc_holdq_join(&q, &older, &copied));
        ovs_assert(!copied);
        holdq_expect(&older, 1, 3);
        holdq_expect(&q, 4, 2);
        holdq_join_free(&q, &older);
    }
    /* 60,000 held before a change, 5 held meanwhile: 5 entries copied,
     * whichever ring has room. */
    for (int big_q = 0; big_q < 2; big_q++) {
        copied = 0;
        holdq_join_setup(&q, big_q ? 65536 : 64, 5, &older, 60064, 60000, 0);
        ovs_assert(pfc_holdq_join(&q, &older, &copied));
        ovs_assert(copied == 5);
        holdq_expect(&q, 1, 60005);
        holdq_join_free(&q, &older);
    }
    printf("holdq-join: ok\n");
}

/* 'n' packets of random priorities arrive at the class queues 'q' under
 * the map 'map', numbered per priority from next_in[]; those that find no
 * room are not sent.  Returns how many joined a queue. */
static uint64_t
requeue_arrive(struct pfc_holdq q[PFC_N_PRIOS], const uint8_t map[],
               uint32_t n, uint64_t next_in[PFC_N_PRIOS])
{
    uint64_t joined = 0;

    for (uint32_t k = 0; k < n; k++) {
        int prio = random_range(PFC_N_PRIOS);
        struct pfc_held h = { .pkt = (void *) (uintptr_t) next_in[prio],
                              .prio = prio, .len = 64 };

        if (pfc_holdq_append(&q[map[prio]], &h)) {
            next_in[prio]++;
            joined++;
        }
    }
    return joined;
}

/* A simulation of requeueing (lib/netdev-dpdk-pfc-requeue.c) with the
 * core's functions: the class queues are detached and replaced by empty
 * ones, packets arrive under the new map meanwhile, the detached ones are
 * regrouped and joined ahead of them.  Random maps, arrivals and drains,
 * with rings sometimes too small to join (then grown and joined again).
 * Every priority leaves in order and nothing is lost. */
static void
test_holdq_requeue(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_holdq q[PFC_N_PRIOS];
    uint8_t map[PFC_N_PRIOS] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    uint64_t next_in[PFC_N_PRIOS] = { 0 }, next_out[PFC_N_PRIOS] = { 0 };
    uint64_t n_in = 0, n_out = 0, copied = 0, retries = 0;

    random_set_seed(7);
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        pfc_holdq_init(&q[tc], 64);
    }
    for (int round = 0; round < 2000; round++) {
        struct pfc_holdq old[PFC_N_PRIOS], sorted[PFC_N_PRIOS];
        uint32_t need[PFC_N_PRIOS] = { 0 };
        struct pfc_holdq_tally tally;

        /* Arrivals, then a drain of some classes. */
        n_in += requeue_arrive(q, map, random_range(40), next_in);
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            uint32_t k = random_range(q[tc].n + 1);

            for (uint32_t i = 0; i < k; i++) {
                const struct pfc_held *h = pfc_holdq_peek(&q[tc], i);

                ovs_assert((uintptr_t) h->pkt == next_out[h->prio]);
                next_out[h->prio]++;
            }
            pfc_holdq_pop(&q[tc], k);
            n_out += k;
        }

        /* Step 1: detach, new map, empty queues. */
        memcpy(old, q, sizeof q);
        for (int p = 0; p < PFC_N_PRIOS; p++) {
            map[p] = random_range(PFC_N_PRIOS);
        }
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            pfc_holdq_init(&q[tc], 24);
        }
        /* Meanwhile, arrivals under the new map. */
        n_in += requeue_arrive(q, map, random_range(20), next_in);
        /* Step 2: sort, with a small margin. */
        pfc_holdq_count_by_class(old, map, need);
        memset(sorted, 0, sizeof sorted);
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            if (need[tc]) {
                pfc_holdq_init(&sorted[tc], need[tc] + random_range(3));
            }
        }
        memset(&tally, 0, sizeof tally);
        pfc_holdq_regroup(old, map, sorted, &tally);
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            pfc_holdq_destroy(&old[tc]);
        }
        /* Step 3: join, growing what is too small. */
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            while (!pfc_holdq_join(&q[tc], &sorted[tc], &copied)) {
                pfc_holdq_reserve(&sorted[tc], sorted[tc].n + q[tc].n);
                retries++;
            }
            ovs_assert(!sorted[tc].n);
            pfc_holdq_destroy(&sorted[tc]);
        }
    }
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        for (uint32_t i = 0; i < q[tc].n; i++) {
            const struct pfc_held *h = pfc_holdq_peek(&q[tc], i);

            ovs_assert((uintptr_t) h->pkt == next_out[h->prio]);
            next_out[h->prio]++;
        }
        n_out += q[tc].n;
        pfc_holdq_pop(&q[tc], q[tc].n);
        pfc_holdq_destroy(&q[tc]);
    }
    ovs_assert(n_in == n_out && retries > 0);
    ovs_assert(copied > 0 && copied < n_in);
    printf("holdq-requeue: ok\n");
}

/* An rx queue of their own for MAC Control frames: on only if wanted, on a
 * NIC with 2 rx queues or more, a redirection table and the rte_flow rule;
 * otherwise the reason; and the table spreads data over all queues but the
 * last. */
static void
test_mcq(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_mcq_answers ok = { .reta_size = 128 };
    struct pfc_mcq_answers a;
    uint16_t reta[128];

    ovs_assert(pfc_mcq_decide(false, false, 4, &ok) == PFC_MCQ_OFF);
    ovs_assert(pfc_mcq_decide(true, false, 4, &ok) == PFC_MCQ_ON);
    ovs_assert(pfc_mcq_decide(true, true, 4, NULL) == PFC_MCQ_VIRTUAL);
    ovs_assert(pfc_mcq_decide(true, false, 1, &ok) == PFC_MCQ_ONE_RXQ);
    a = ok;
    a.reta_size = 0;                    /* net_af_packet, net_pcap. */
    ovs_assert(pfc_mcq_decide(true, false, 2, &a) == PFC_MCQ_NO_RETA);
    a = ok;
    a.flow_validate = -ENOSYS;
    ovs_assert(pfc_mcq_decide(true, false, 2, &a) == PFC_MCQ_NO_FLOW);
    a = ok;
    a.reta_update = -ENOTSUP;
    ovs_assert(pfc_mcq_decide(true, false, 2, &a) == PFC_MCQ_NO_RETA);
    a = ok;
    a.flow_create = -EINVAL;
    ovs_assert(pfc_mcq_decide(true, false, 2, &a) == PFC_MCQ_NO_FLOW);
    /* Open vSwitch's rx-steering owns the last rx queue and the rules. */
    a = ok;
    a.rx_steering = true;
    ovs_assert(pfc_mcq_decide(true, false, 4, &a) == PFC_MCQ_RX_STEERING);
    ovs_assert(pfc_mcq_decide(false, false, 4, &a) == PFC_MCQ_OFF);
    ovs_assert(strstr(pfc_mcq_describe(PFC_MCQ_RX_STEERING),
                      "does not apply while options:rx-steering is set"));

    ovs_assert(!strcmp(pfc_mcq_describe(PFC_MCQ_OFF),
                       "read from the data rx queues"));
    ovs_assert(strstr(pfc_mcq_describe(PFC_MCQ_NO_RETA),
                      "no RSS redirection table"));
    ovs_assert(strstr(pfc_mcq_describe(PFC_MCQ_ONE_RXQ), "n_rxq"));

    /* 4 rx queues: data on 0, 1 and 2 in turn, never on 3. */
    pfc_reta_spread(reta, ARRAY_SIZE(reta), 3);
    for (size_t i = 0; i < ARRAY_SIZE(reta); i++) {
        ovs_assert(reta[i] == i % 3);
    }
    pfc_reta_spread(reta, ARRAY_SIZE(reta), 0);
    ovs_assert(reta[0] == 0 && reta[127] == 0);
    printf("mcq: ok\n");
}

static const struct ovs_cmdl_command commands[] = {
    { "decode", NULL, 0, 0, test_decode, OVS_RO },
    { "encode", NULL, 0, 0, test_encode, OVS_RO },
    { "priority", NULL, 0, 0, test_priority, OVS_RO },
    { "timebase", NULL, 0, 0, test_timebase, OVS_RO },
    { "pause", NULL, 0, 0, test_pause, OVS_RO },
    { "tcs-blocked", NULL, 0, 0, test_tcs_blocked, OVS_RO },
    { "ring", NULL, 0, 0, test_ring, OVS_RO },
    { "rxq-drain", NULL, 0, 0, test_rxq_drain, OVS_RO },
    { "holdq", NULL, 0, 0, test_holdq, OVS_RO },
    { "holdq-regroup", NULL, 0, 0, test_holdq_regroup, OVS_RO },
    { "config", NULL, 0, 0, test_config, OVS_RO },
    { "counters", NULL, 0, 0, test_counters, OVS_RO },
    { "paused-prios", NULL, 0, 0, test_paused_prios, OVS_RO },
    { "tx-filter", NULL, 0, 0, test_tx_filter, OVS_RO },
    { "receive", NULL, 0, 0, test_receive, OVS_RO },
    { "mac-control", NULL, 0, 0, test_mac_control, OVS_RO },
    { "mcq", NULL, 0, 0, test_mcq, OVS_RO },
    { "holdq-append", NULL, 0, 0, test_holdq_append, OVS_RO },
    { "holdq-join", NULL, 0, 0, test_holdq_join, OVS_RO },
    { "holdq-requeue", NULL, 0, 0, test_holdq_requeue, OVS_RO },
    { NULL, NULL, 0, 0, NULL, OVS_RO },
};

/* "ovstest test-pfc NAME" runs the test NAME. */
static void
test_pfc_main(int argc, char *argv[])
{
    struct ovs_cmdl_context ctx = {
        .argc = argc - 1,
        .argv = argv + 1,
    };

    set_program_name(argv[0]);
    ovs_cmdl_run_command(&ctx, commands);
}

OVSTEST_REGISTER("test-pfc", test_pfc_main);
