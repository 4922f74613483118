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

/* Unit tests of lib/pfc.c.  Time is a fake clock: 'struct pfc_timebase' with
 * hz = 1e9 makes one tick one nanosecond, so at 10 Gb/s one pause quantum is
 * 51.2 ticks (rounded up to 52 for a single quantum). */

#include <config.h>
#undef NDEBUG
#include "pfc.h"
#include "pfc-dcbx.h"

#include <errno.h>
#include <string.h>

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

static void
test_decode(void)
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

    /* The inline pre-check agrees with the decoder: false only where the
     * decoder says "not MAC Control", for every EtherType pair and length
     * around the boundaries, untagged and behind one tag. */
    static const uint16_t types[] = { 0x0800, 0x8808, 0x8100, 0x88a8,
                                      0x0808, 0x8809, 0x86dd };
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
            }
        }
    }
}

static void
test_encode(void)
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
}

static void
test_priority(void)
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
}

static void
test_timebase(void)
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
test_pause(void)
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
}

/* pfc_paused_prios(): the pause timers of eight priorities, the enabled
 * mask, and how long the answer stays valid. */
static void
test_paused_prios(void)
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
}

static void
test_tcs_blocked(void)
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
}

/* The rx queue drain rule (struct pfc_rxq_drain): a ring that a flood keeps
 * full still gives poll stamps, so a pause ends about one ring's worth of
 * frames after its expiry, not at the cap; and never before every frame that
 * was in the ring at the expiry has been read. */
static void
test_rxq_drain(void)
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
}

/* The tx ring of a PFC port and its worst-case response (seed 000 4.6). */
static void
test_ring(void)
{
    struct pfc_ring_limits any = { 0, 65535, 1 };
    struct pfc_ring_limits ixgbe = { 32, 4096, 8 };
    struct pfc_ring_limits odd = { 64, 1000, 32 };
    struct smap details = SMAP_INITIALIZER(&details);
    struct pfc_config cfg;
    struct smap out;
    char *err;

    /* 2048 descriptors of 1522-byte frames are far beyond 14,336 bit
     * times; one such frame is within it. */
    ovs_assert(pfc_response_bits(2048, 1522) == 2048ULL * 1542 * 8);
    ovs_assert(pfc_response_bits(1, 1522) == 12336);
    ovs_assert(pfc_response_bits(1, 1522) <= PFC_RESPONSE_BOUND_BITS);
    ovs_assert(pfc_response_bits(0, 64) == 0);

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

static void
test_holdq(void)
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
}

/* Parses "key=value" pairs in 'argv' and checks the result: 'want_error' 0
 * for success, or EINVAL with an error message containing 'needle'. */
static void
check_parse(struct pfc_config *cfg, int want_error, const char *needle,
            const char *const *kv)
{
    struct smap details = SMAP_INITIALIZER(&details);
    char *err;
    int error;

    for (; *kv; kv += 2) {
        smap_add(&details, kv[0], kv[1]);
    }
    error = pfc_config_parse(&details, cfg, &err);
    if (error != want_error || (needle && (!err || !strstr(err, needle)))) {
        ovs_fatal(0, "parse: got error %d (%s), want %d with \"%s\"",
                  error, err ? err : "no message", want_error,
                  needle ? needle : "");
    }
    free(err);
    smap_destroy(&details);
}

#define PARSE(CFG, ERR, NEEDLE, ...) \
    check_parse(CFG, ERR, NEEDLE, (const char *const[]) { __VA_ARGS__, NULL })

/* pfc_holdq_remap(): a priority's held packets follow it to its new class,
 * in order, behind what that class already holds; the rest stay put. */
static void
test_holdq_remap(void)
{
    uint8_t map[PFC_N_PRIOS] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    struct pfc_holdq q[PFC_N_PRIOS];
    struct pfc_held moved[PFC_N_PRIOS * 5], dropped[PFC_N_PRIOS * 5];
    struct pfc_held h;
    uintptr_t id = 0;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        pfc_holdq_init(&q[tc], 5);
    }
    ovs_assert(pfc_holdq_room(q) == ARRAY_SIZE(moved));
    memset(&h, 0, sizeof h);
    /* Class 1: priority 1, #1 and #2.  Class 3: priority 3, #3 to #5.
     * Class 6: priority 6, #6. */
    for (int i = 0; i < 6; i++) {
        static const uint8_t prios[] = { 1, 1, 3, 3, 3, 6 };

        h.pkt = (void *) ++id;
        h.prio = prios[i];
        ovs_assert(pfc_holdq_push(&q[map[h.prio]], &h));
    }
    /* Nothing moves while the map stays. */
    ovs_assert(pfc_holdq_remap(q, map, moved, dropped) == 0);
    ovs_assert(q[1].n == 2 && q[3].n == 3 && q[6].n == 1);

    /* Priority 3 to class 1, behind #1 and #2, in order. */
    map[3] = 1;
    ovs_assert(pfc_holdq_remap(q, map, moved, dropped) == 0);
    ovs_assert(q[1].n == 5 && q[3].n == 0 && q[6].n == 1);
    for (uint32_t i = 0; i < 5; i++) {
        ovs_assert((uintptr_t) pfc_holdq_peek(&q[1], i)->pkt == i + 1);
    }
    ovs_assert((uintptr_t) pfc_holdq_peek(&q[6], 0)->pkt == 6);

    /* Priority 1 to class 7 and priority 6 to class 1: #1, #2 leave class
     * 1, #3..#5 keep their order there, #6 goes behind them. */
    map[1] = 7;
    map[6] = 1;
    ovs_assert(pfc_holdq_remap(q, map, moved, dropped) == 0);
    ovs_assert(q[1].n == 4 && q[7].n == 2 && q[6].n == 0);
    for (uint32_t i = 0; i < 4; i++) {
        ovs_assert((uintptr_t) pfc_holdq_peek(&q[1], i)->pkt == i + 3);
    }
    ovs_assert((uintptr_t) pfc_holdq_peek(&q[7], 0)->pkt == 1);
    ovs_assert((uintptr_t) pfc_holdq_peek(&q[7], 1)->pkt == 2);

    /* A full new class: what does not fit is returned, in order. */
    for (int i = 0; i < 3; i++) {
        h.pkt = (void *) ++id;      /* #7, #8, #9: priority 5, class 5. */
        h.prio = 5;
        ovs_assert(pfc_holdq_push(&q[5], &h));
    }
    map[3] = map[6] = 5;            /* #3..#6 to class 5: room for 2. */
    ovs_assert(pfc_holdq_remap(q, map, moved, dropped) == 2);
    ovs_assert(q[5].n == 5 && q[1].n == 0);
    ovs_assert((uintptr_t) pfc_holdq_peek(&q[5], 3)->pkt == 3);
    ovs_assert((uintptr_t) pfc_holdq_peek(&q[5], 4)->pkt == 4);
    ovs_assert((uintptr_t) dropped[0].pkt == 5);
    ovs_assert((uintptr_t) dropped[1].pkt == 6);

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        pfc_holdq_destroy(&q[tc]);
    }
}

/* pfc_holdq_merge(): the packets of a queue pair that a guest disabled go
 * in order ahead of those of the pair that now serves its flows, class by
 * class; what finds no slot, the oldest, stays behind. */
static void
test_holdq_merge(void)
{
    struct pfc_holdq src[PFC_N_PRIOS], dst[PFC_N_PRIOS];
    struct pfc_held h;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        pfc_holdq_init(&src[tc], 4);
        pfc_holdq_init(&dst[tc], 4);
    }
    memset(&h, 0, sizeof h);
    /* Class 3: #1, #2 (lossy) in src; #10, #11 in dst, whose ring wraps.
     * Class 5: #3 in src only.  Class 0: #20 in dst only. */
    h.prio = 3;
    for (uintptr_t id = 90; id < 93; id++) {
        h.pkt = (void *) id;
        ovs_assert(pfc_holdq_push(&dst[3], &h));
    }
    pfc_holdq_pop(&dst[3], 3);
    for (uintptr_t id = 10; id < 12; id++) {
        h.pkt = (void *) id;
        ovs_assert(pfc_holdq_push(&dst[3], &h));
    }
    h.pkt = (void *) 1;
    ovs_assert(pfc_holdq_push(&src[3], &h));
    h.pkt = (void *) 2;
    h.lossy = true;
    ovs_assert(pfc_holdq_push(&src[3], &h));
    h.lossy = false;
    h.prio = 5;
    h.pkt = (void *) 3;
    ovs_assert(pfc_holdq_push(&src[5], &h));
    h.prio = 0;
    h.pkt = (void *) 20;
    ovs_assert(pfc_holdq_push(&dst[0], &h));

    ovs_assert(pfc_holdq_merge(dst, src) == 3);
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        ovs_assert(src[tc].n == 0 && src[tc].n_lossy == 0);
    }
    ovs_assert(dst[3].n == 4 && dst[3].n_lossy == 1);
    static const uintptr_t order3[] = { 1, 2, 10, 11 };
    for (uint32_t i = 0; i < 4; i++) {
        ovs_assert((uintptr_t) pfc_holdq_peek(&dst[3], i)->pkt
                   == order3[i]);
    }
    ovs_assert(dst[5].n == 1 && (uintptr_t) pfc_holdq_peek(&dst[5], 0)->pkt
               == 3);
    ovs_assert(dst[0].n == 1 && (uintptr_t) pfc_holdq_peek(&dst[0], 0)->pkt
               == 20);
    /* Pops still see the merged order, then the queue works as before. */
    pfc_holdq_pop(&dst[3], 2);
    ovs_assert(dst[3].n_lossy == 0);
    ovs_assert((uintptr_t) pfc_holdq_peek(&dst[3], 0)->pkt == 10);

    /* No room: class 5 holds 1 of 4, src brings #30..#33, the oldest stays
     * behind. */
    h.prio = 5;
    for (uintptr_t id = 30; id < 34; id++) {
        h.pkt = (void *) id;
        ovs_assert(pfc_holdq_push(&src[5], &h));
    }
    ovs_assert(pfc_holdq_merge(dst, src) == 3);
    ovs_assert(src[5].n == 1 && (uintptr_t) pfc_holdq_peek(&src[5], 0)->pkt
               == 30);
    pfc_holdq_pop(&src[5], 1);
    static const uintptr_t order5[] = { 31, 32, 33, 3 };
    for (uint32_t i = 0; i < 4; i++) {
        ovs_assert((uintptr_t) pfc_holdq_peek(&dst[5], i)->pkt
                   == order5[i]);
    }
    ovs_assert(src[5].n == 0);

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        pfc_holdq_pop(&dst[tc], dst[tc].n);
        pfc_holdq_destroy(&src[tc]);
        pfc_holdq_destroy(&dst[tc]);
    }
}

static void
test_config(void)
{
    struct pfc_config cfg;
    struct smap q;
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

    /* Queue mapping. */
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
    pfc_config_clear_queue(&cfg, 1);
    ovs_assert(cfg.prio_to_tc[3] == 3 && cfg.prio_to_tc[4] == 4);
    smap_destroy(&q);

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
}

static void
test_counters(void)
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
}

/* pfc_tx_forbidden(): MAC Control frames, tagged up to twice, and frames to
 * 01-80-C2-00-00-01 never leave; everything else does. */
static void
test_tx_filter(void)
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
}

/* pfc_receive(): only PFC-enabled priorities pause; the others are counted
 * as ignored, and every e[n] = 1 counts as received. */
static void
test_receive(void)
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
test_mac_control(void)
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
}

/* pfc_holdq_reserve() and pfc_holdq_append(): a reconfiguration can move
 * more packets into a queue than its limit, in order, and the limit still
 * applies to pfc_holdq_push(). */
static void
test_holdq_append(void)
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
}

/* pfc_holdq_swap_ring(): a class queue moves to a larger ring that its
 * caller allocated (a class that became lossless), wrapped around or not,
 * keeping its packets in order; with the limit raised first, the packets
 * that a remap moves into it all fit (pfc_holdq_remap()). */
static void
test_holdq_swap(void)
{
    struct pfc_holdq q[PFC_N_PRIOS];
    struct pfc_held h = { .len = 100, .in_port = 1, .prio = 3 };
    struct pfc_held moved[64], dropped[64];
    struct pfc_held *ring = xmalloc(40 * sizeof *ring);
    uint8_t map[PFC_N_PRIOS];

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        pfc_holdq_init(&q[tc], 8);
        map[tc] = tc;
    }
    /* Class 1 (lossy, 8 slots) holds 5, wrapped around its ring. */
    h.prio = 1;
    for (uintptr_t i = 0; i < 6; i++) {
        h.pkt = (void *) (i + 1);
        ovs_assert(pfc_holdq_push(&q[1], &h));
    }
    pfc_holdq_pop(&q[1], 6);
    for (uintptr_t i = 0; i < 5; i++) {
        h.pkt = (void *) (i + 10);
        ovs_assert(pfc_holdq_push(&q[1], &h));
    }
    /* Class 3 (lossless) holds 8 of priority 3. */
    h.prio = 3;
    for (uintptr_t i = 0; i < 8; i++) {
        h.pkt = (void *) (i + 20);
        ovs_assert(pfc_holdq_push(&q[3], &h));
    }
    /* Priority 3 moves to class 1, which gets 40 slots first. */
    pfc_holdq_swap_ring(&q[1], &ring, 40);
    q[1].limit = 40;
    ovs_assert(q[1].cap == 40 && q[1].n == 5);
    for (uintptr_t i = 0; i < 5; i++) {
        ovs_assert(pfc_holdq_peek(&q[1], i)->pkt == (void *) (i + 10));
    }
    free(ring);                         /* The old one. */
    map[3] = 1;
    ovs_assert(!pfc_holdq_remap(q, map, moved, dropped));
    ovs_assert(q[1].n == 13 && !q[3].n);
    for (uintptr_t i = 0; i < 8; i++) {
        ovs_assert(pfc_holdq_peek(&q[1], 5 + i)->pkt == (void *) (i + 20));
    }
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        pfc_holdq_pop(&q[tc], q[tc].n);
        pfc_holdq_destroy(&q[tc]);
    }
}

/* PFC watchdog.  With hz = 1e9 one tick is one nanosecond. */
#define WD_HZ 1000000000ULL
#define MS 1000000ULL
#define US 1000ULL

static struct pfc_wd_params
wd_params(uint8_t enabled, uint32_t detect_ms, uint32_t restore_ms,
          enum pfc_wd_action action)
{
    struct pfc_wd_params p = {
        .enabled = enabled,
        .detect_ticks = pfc_ms_to_ticks(WD_HZ, detect_ms),
        .restore_ticks = pfc_ms_to_ticks(WD_HZ, restore_ms),
        .action = action,
    };

    return p;
}

/* Runs one watchdog check at 'now' and asserts the priorities it detects
 * and restores; returns the stormed vector. */
static uint8_t
wd_check(struct pfc_wd *wd, const struct pfc_wd_params *p, uint8_t paused,
         uint8_t waiting, uint64_t now, uint8_t want_detected,
         uint8_t want_restored)
{
    uint8_t detected = 0xee, restored = 0xee;
    uint8_t stormed = pfc_wd_run(wd, p, paused, waiting, now, &detected,
                                 &restored);

    if (detected != want_detected || restored != want_restored) {
        ovs_fatal(0, "watchdog check at %"PRIu64": detected 0x%02x, "
                  "restored 0x%02x; want 0x%02x, 0x%02x", now, detected,
                  restored, want_detected, want_restored);
    }
    ovs_assert(stormed == wd->stormed);
    return stormed;
}

/* Checks every 'step' ticks from 'from' (included) to 'to' (excluded), with
 * 'paused' and 'waiting', asserting that nothing is detected or restored. */
static void
wd_quiet(struct pfc_wd *wd, const struct pfc_wd_params *p, uint8_t paused,
         uint8_t waiting, uint64_t from, uint64_t to, uint64_t step)
{
    for (uint64_t t = from; t < to; t += step) {
        wd_check(wd, p, paused, waiting, t, 0, 0);
    }
}

/* Tells the watchdog about a PFC frame naming only priority 'prio'. */
static void
wd_frame1(struct pfc_wd *wd, uint8_t enabled, int prio, uint16_t time,
          uint8_t began, uint64_t now)
{
    struct pfc_frame f = frame1(prio, time);

    pfc_wd_frame(wd, &f, enabled, began, now);
}

/* Detection: exactly at watchdog-detection-time of continuous pause with
 * packets waiting, counted from the first check that saw it, not one tick
 * earlier; only for enabled priorities; each priority on its own; and what
 * each action ignores and drops. */
static void
test_wd_detect(void)
{
    struct pfc_wd_params p = wd_params(0x08, 200, 400, PFC_WD_DROP);
    struct pfc_config cfg;
    struct pfc_wd wd;

    /* Milliseconds to ticks, rounded up. */
    ovs_assert(pfc_ms_to_ticks(2500000000ULL, 200) == 500000000);
    ovs_assert(pfc_ms_to_ticks(WD_HZ, 0) == 0);
    ovs_assert(pfc_ms_to_ticks(3, 1) == 1);
    ovs_assert(pfc_ms_to_ticks(UINT64_MAX, 60000) == UINT64_MAX);
    ovs_assert(p.detect_ticks == 200 * MS && p.restore_ticks == 400 * MS);

    /* Parameters from the default configuration at a 2.5 GHz TSC. */
    PARSE(&cfg, 0, NULL, "pfc-enable", "3");
    pfc_wd_params_init(&p, &cfg, 2500000000ULL);
    ovs_assert(p.enabled == 0x08 && p.action == PFC_WD_DROP);
    ovs_assert(p.detect_ticks == 500000000ULL);
    ovs_assert(p.restore_ticks == 1000000000ULL);
    p = wd_params(0x08, 200, 400, PFC_WD_DROP);

    /* Paused with packets waiting from tick 0 (a valid TSC value, not a
     * sentinel), checked every millisecond: stormed at exactly 200 ms. */
    pfc_wd_init(&wd);
    wd_quiet(&wd, &p, 0x08, 0x08, 0, 200 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, 200 * MS - 1, 0, 0);
    ovs_assert(!pfc_wd_ignored(&wd, &p) && !pfc_wd_dropped(&wd, &p));
    ovs_assert(wd_check(&wd, &p, 0x08, 0x08, 200 * MS, 0x08, 0) == 0x08);
    ovs_assert(wd.storms_detected[3] == 1 && wd.storms_restored[3] == 0);
    ovs_assert(wd.stormed_at[3] == 200 * MS);
    /* Detected once: later checks change nothing. */
    wd_quiet(&wd, &p, 0x08, 0x08, 201 * MS, 300 * MS, MS);
    ovs_assert(wd.stormed == 0x08 && wd.storms_detected[3] == 1);

    /* The actions. */
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0x08);
    ovs_assert(pfc_wd_dropped(&wd, &p) == 0x08);
    p.action = PFC_WD_FORWARD;
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0x08);
    ovs_assert(pfc_wd_dropped(&wd, &p) == 0);
    p.action = PFC_WD_ALERT;
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0);
    ovs_assert(pfc_wd_dropped(&wd, &p) == 0);

    /* Sparse checks: stormed at the first check at least 200 ms after the
     * first that saw the condition. */
    p = wd_params(0x08, 200, 400, PFC_WD_DROP);
    pfc_wd_init(&wd);
    wd_check(&wd, &p, 0x08, 0x08, 5 * MS, 0, 0);
    wd_check(&wd, &p, 0x08, 0x08, 155 * MS, 0, 0);
    wd_check(&wd, &p, 0x08, 0x08, 205 * MS - 1, 0, 0);
    wd_check(&wd, &p, 0x08, 0x08, 255 * MS, 0x08, 0);

    /* A priority not in pfc-enable is never stormed; two enabled priorities
     * are stormed each on its own clock. */
    p = wd_params(0x28, 200, 60000, PFC_WD_DROP);
    pfc_wd_init(&wd);
    wd_quiet(&wd, &p, 0x18, 0x18, 0, 50 * MS, MS);
    wd_quiet(&wd, &p, 0x38, 0x38, 50 * MS, 200 * MS, MS);
    wd_check(&wd, &p, 0x38, 0x38, 200 * MS, 0x08, 0);
    wd_quiet(&wd, &p, 0x38, 0x38, 201 * MS, 250 * MS, MS);
    wd_check(&wd, &p, 0x38, 0x38, 250 * MS, 0x20, 0);
    wd_quiet(&wd, &p, 0x38, 0x38, 251 * MS, 5000 * MS, MS);
    ovs_assert(wd.stormed == 0x28 && wd.storms_detected[3] == 1
               && wd.storms_detected[5] == 1 && !wd.storms_detected[4]);

    /* Random check intervals, 1 tick to 1 ms: stormed at the first check
     * with now - first >= 200 ms, never before, so within detection time
     * plus one check interval. */
    random_set_seed(0x3d0);
    for (int round = 0; round < 20; round++) {
        uint64_t first = (uint64_t) random_range(1000000) * 1000;
        uint64_t t = first;

        p = wd_params(0x80, 200, 400, PFC_WD_FORWARD);
        pfc_wd_init(&wd);
        for (;;) {
            bool due = t - first >= 200 * MS;

            wd_check(&wd, &p, 0x80, 0x80, t, due ? 0x80 : 0, 0);
            if (due) {
                break;
            }
            t += 1 + random_range(MS);
        }
        ovs_assert(t - first < 201 * MS);
    }
}

/* Detection needs the condition at every check and no frame that ends the
 * pause in between: an XON, an expiry, a new pause or an empty queue starts
 * it again.  A partner that pauses and releases 100 times a second, with
 * XON or by expiry, is never stormed. */
static void
test_wd_no_false_alarm(void)
{
    struct pfc_wd_params p = wd_params(0x08, 200, 400, PFC_WD_DROP);
    struct pfc_wd wd;

    /* An XON, then a new XOFF, between two checks that both see the priority
     * paused: the interval starts again at the next check. */
    pfc_wd_init(&wd);
    wd_quiet(&wd, &p, 0x08, 0x08, 0, 100 * MS + 1, MS);
    wd_frame1(&wd, 0x08, 3, 0, 0, 100 * MS + 500 * US);
    wd_frame1(&wd, 0x08, 3, 65535, 0, 100 * MS + 600 * US);
    wd_quiet(&wd, &p, 0x08, 0x08, 101 * MS, 301 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, 301 * MS, 0x08, 0);

    /* A pause that expired and a new one that began between two checks
     * ('began', from pfc_receive()): the same. */
    pfc_wd_init(&wd);
    wd_quiet(&wd, &p, 0x08, 0x08, 0, 100 * MS + 1, MS);
    wd_frame1(&wd, 0x08, 3, 65535, 0x08, 100 * MS + 500 * US);
    wd_quiet(&wd, &p, 0x08, 0x08, 101 * MS, 301 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, 301 * MS, 0x08, 0);

    /* A refresh (no new pause) or a frame for other priorities does not. */
    pfc_wd_init(&wd);
    wd_quiet(&wd, &p, 0x08, 0x08, 0, 100 * MS + 1, MS);
    wd_frame1(&wd, 0x08, 3, 65535, 0, 100 * MS + 500 * US);
    wd_frame1(&wd, 0x08, 4, 0, 0x10, 100 * MS + 600 * US);
    wd_frame1(&wd, 0x18, 4, 0, 0x10, 100 * MS + 700 * US);
    wd_quiet(&wd, &p, 0x08, 0x08, 101 * MS, 200 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, 200 * MS, 0x08, 0);

    /* One check that sees the pause expired, or the queue empty. */
    for (int i = 0; i < 2; i++) {
        pfc_wd_init(&wd);
        wd_quiet(&wd, &p, 0x08, 0x08, 0, 100 * MS, MS);
        wd_check(&wd, &p, i ? 0x08 : 0, i ? 0 : 0x08, 100 * MS, 0, 0);
        wd_quiet(&wd, &p, 0x08, 0x08, 101 * MS, 301 * MS, MS);
        wd_check(&wd, &p, 0x08, 0x08, 301 * MS, 0x08, 0);
    }

    /* Packets waiting without a pause (a full tx ring), or a pause with
     * nothing waiting: never. */
    pfc_wd_init(&wd);
    wd_quiet(&wd, &p, 0, 0x08, 0, 1000 * MS, MS);
    wd_quiet(&wd, &p, 0x08, 0, 1000 * MS, 2000 * MS, MS);

    /* A partner that pauses priority 3 a hundred times a second for 10 s,
     * through the real pause timers: XOFF of 65535 quanta (3.36 ms at
     * 10 Gb/s) refreshed every millisecond for 5 ms, then XON; packets
     * always waiting; a check every 50 us.  Then the same partner without
     * XON: each pause of one frame ends by expiry. */
    for (int xon = 1; xon >= 0; xon--) {
        struct pfc_counters c;
        struct pfc_pause pause;
        uint64_t t;

        memset(&c, 0, sizeof c);
        pfc_pause_init(&pause);
        pfc_wd_init(&wd);
        for (t = 0; t < 10000 * MS; t += 50 * US) {
            uint64_t phase = t % (10 * MS);

            if ((xon && phase < 6 * MS && phase % MS == 0) || !phase) {
                struct pfc_frame f = frame1(3, xon && phase == 5 * MS
                                               ? 0 : 65535);
                uint8_t began = pfc_receive(&pause, &c, &f, p.enabled,
                                            &tb10g, t, t);

                pfc_wd_frame(&wd, &f, p.enabled, began, t);
            }
            wd_check(&wd, &p, pfc_pause_status(&pause, t), 0x08, t, 0, 0);
        }
        ovs_assert(c.transitions[3] == 1000);
        ovs_assert(!wd.stormed && !wd.storms_detected[3]);
    }

    /* Pauses of 5120 ns, a new one every 6000 ns, so that every pause ends
     * by expiry, and checks every 12,000 ns, each just after a frame: every
     * check sees the priority paused, but the pause never lasted. */
    {
        struct pfc_frame f = frame1(3, 100);
        struct pfc_counters c;
        struct pfc_pause pause;

        memset(&c, 0, sizeof c);
        pfc_pause_init(&pause);
        pfc_wd_init(&wd);
        for (uint64_t t = 0; t < 1000 * MS; t += 6000) {
            uint8_t began = pfc_receive(&pause, &c, &f, p.enabled, &tb10g, t,
                                        t);

            ovs_assert(began == 0x08);
            pfc_wd_frame(&wd, &f, p.enabled, began, t);
            if (t % 12000 == 0) {
                ovs_assert(pfc_pause_status(&pause, t) == 0x08);
                wd_check(&wd, &p, 0x08, 0x08, t, 0, 0);
            }
        }
        ovs_assert(!wd.storms_detected[3]);
    }
}

/* Storms priority 3 of 'wd' under 'p' (detection 200 ms) with XOFF
 * refreshed every millisecond from 'start', and returns the tick of the
 * detection. */
static uint64_t
wd_storm(struct pfc_wd *wd, const struct pfc_wd_params *p, uint64_t start)
{
    uint64_t t;

    for (t = start; t < start + 200 * MS; t += MS) {
        wd_frame1(wd, p->enabled, 3, 65535, 0, t);
        wd_check(wd, p, 0x08, 0x08, t, 0, 0);
    }
    wd_frame1(wd, p->enabled, 3, 65535, 0, t);
    wd_check(wd, p, 0x08, 0x08, t, 0x08, 0);
    return t;
}

/* Restoration: after watchdog-restoration-time with no XOFF, counted from
 * the detection or from the last XOFF, whichever is later; a refreshed XOFF
 * holds it back.  Afterwards pauses are honoured again and detection starts
 * from scratch. */
static void
test_wd_restore(void)
{
    struct pfc_wd_params p = wd_params(0x08, 200, 400, PFC_WD_DROP);
    struct pfc_wd wd;
    uint64_t t0 = 1000 * MS;
    uint64_t s, last, r;

    /* The partner keeps refreshing for 50 ms after the detection, while the
     * stormed priority drains (nothing waits), then goes silent. */
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, t0);
    ovs_assert(s == t0 + 200 * MS);
    for (last = s + MS; last <= s + 50 * MS; last += MS) {
        wd_frame1(&wd, 0x08, 3, 65535, 0, last);
        wd_check(&wd, &p, 0x08, 0, last, 0, 0);
    }
    last -= MS;
    /* 400 ms after the detection (s + 400 ms, among these checks) is not
     * enough: an XOFF came since.  400 ms after that XOFF is. */
    ovs_assert(s + 400 * MS > last + MS && s + 400 * MS < last + 400 * MS);
    wd_quiet(&wd, &p, 0, 0, last + MS, last + 400 * MS, MS);
    wd_check(&wd, &p, 0, 0, last + 400 * MS - 1, 0, 0);
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0x08);
    ovs_assert(!wd_check(&wd, &p, 0, 0, last + 400 * MS, 0, 0x08));
    ovs_assert(wd.storms_detected[3] == 1 && wd.storms_restored[3] == 1);
    ovs_assert(!pfc_wd_ignored(&wd, &p) && !pfc_wd_dropped(&wd, &p));
    r = last + 400 * MS;

    /* Honoured again: a normal pause of 5 ms is just a pause. */
    wd_quiet(&wd, &p, 0x08, 0x08, r + MS, r + 6 * MS, MS);
    wd_quiet(&wd, &p, 0, 0, r + 6 * MS, r + 10 * MS, MS);

    /* Detection from scratch: 200 ms more of storm. */
    ovs_assert(wd_storm(&wd, &p, r + 10 * MS) == r + 210 * MS);
    ovs_assert(wd.storms_detected[3] == 2 && wd.storms_restored[3] == 1);

    /* A partner silent from the detection on: restored at exactly
     * restoration time after it. */
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    wd_quiet(&wd, &p, 0, 0, s + MS, s + 400 * MS, MS);
    wd_check(&wd, &p, 0, 0, s + 400 * MS - 1, 0, 0);
    wd_check(&wd, &p, 0, 0, s + 400 * MS, 0, 0x08);

    /* One long pause, never refreshed (one XOFF of 65535 quanta lasts
     * 33.6 s at 1 Mb/s): not restored while its timer runs, even past
     * restoration time (honouring it again would only start the next
     * storm); restored at the first check after it ran out. */
    pfc_wd_init(&wd);
    wd_frame1(&wd, 0x08, 3, 65535, 0x08, 0);
    wd_quiet(&wd, &p, 0x08, 0x08, 0, 200 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, 200 * MS, 0x08, 0);
    wd_quiet(&wd, &p, 0x08, 0, 201 * MS, 2000 * MS, MS);
    wd_check(&wd, &p, 0, 0, 2000 * MS, 0, 0x08);

    /* While the partner goes on refreshing, every XOFF holds restoration
     * back: stormed for ever. */
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    for (uint64_t t = s + MS; t < s + 5000 * MS; t += MS) {
        wd_frame1(&wd, 0x08, 3, 65535, 0, t);
        wd_check(&wd, &p, 0x08, 0, t, 0, 0);
    }
    ovs_assert(wd.stormed == 0x08 && wd.storms_restored[3] == 0);

    /* Right after restoration, the check that restores does not start a
     * detection interval: the next one does. */
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    wd_check(&wd, &p, 0, 0x08, s + 400 * MS, 0, 0x08);
    wd_check(&wd, &p, 0x08, 0x08, s + 401 * MS, 0, 0);
    wd_check(&wd, &p, 0x08, 0x08, s + 601 * MS - 1, 0, 0);
    wd_check(&wd, &p, 0x08, 0x08, s + 601 * MS, 0x08, 0);
}

/* One check of the watchdog of a port without a MAC whose guest has one
 * receive queue 'vq': its counts are now 'refused' and 'taken'. */
static uint8_t
wd_guest_check(struct pfc_wd *wd, const struct pfc_wd_params *p,
               struct pfc_wd_vq *vq, uint64_t refused, uint64_t taken,
               uint8_t waiting, uint64_t now, uint8_t want_detected,
               uint8_t want_restored)
{
    /* 'waiting' priorities have 10 packets waiting each. */
    uint8_t stalled = (pfc_wd_vq_stalled(vq, refused, taken,
                                         10 * count_1bits(waiting))
                       ? 0xff : 0);

    pfc_wd_stall(wd, stalled, p->enabled, now);
    return wd_check(wd, p, stalled & p->enabled, waiting, now, want_detected,
                    want_restored);
}

/* A port without a MAC (a vhost-user port): a guest that reads nothing
 * while its queue refuses packets is stormed after detection time; one
 * that reads slowly, or has nothing offered, never is; the stormed guest is
 * restored once it was not seen stalled for restoration time; there both
 * drop and forward drop. */
static void
test_wd_guest(void)
{
    struct pfc_wd_params p = wd_params(0x08, 200, 400, PFC_WD_FORWARD);
    struct pfc_wd_vq vq = { 0, 0, 0, 0 };
    uint64_t refused = 0, taken = 0, t;
    struct pfc_wd wd;

    p.guest = true;

    /* The stall rule, with nothing waiting: refused and took none. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 0, 0, 0));   /* Nothing offered. */
    ovs_assert(pfc_wd_vq_stalled(&vq, 1, 0, 0));    /* Refused, took none. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 5, 1, 0));   /* Took one. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 5, 1, 0));   /* Idle. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 5, 9, 0));   /* Took, none refused. */
    ovs_assert(pfc_wd_vq_stalled(&vq, 6, 9, 0));
    ovs_assert(vq.refused == 6 && vq.taken == 9);

    /* The drain window: 5 packets wait; taking 1 while refusing is stalled
     * until the 5 were taken; the check at which they were is not, and
     * begins a window of what waits then. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 6, 9, 5));   /* Window of 5. */
    ovs_assert(pfc_wd_vq_stalled(&vq, 7, 10, 5));   /* 1 of 5. */
    ovs_assert(pfc_wd_vq_stalled(&vq, 8, 12, 5));   /* 3 of 5. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 9, 14, 7));  /* 5 of 5: next, 7. */
    ovs_assert(vq.backlog == 7 && vq.base == 14);
    ovs_assert(pfc_wd_vq_stalled(&vq, 10, 20, 7));  /* 6 of 7. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 10, 20, 7)); /* Not refusing. */

    /* A guest that reads slowly: every check, its queue refuses some and
     * takes 3, and 10 wait: it drains each window within 4 checks.  For
     * 5 s: never stormed. */
    pfc_wd_init(&wd);
    vq = (struct pfc_wd_vq) { 0, 0, 0, 0 };
    for (t = 0; t < 4999 * MS; t += MS) {
        wd_guest_check(&wd, &p, &vq, ++refused, taken += 3, 0x08, t, 0, 0);
    }
    /* The last check before it stops drains its window. */
    wd_guest_check(&wd, &p, &vq, ++refused, taken += 10, 0x08, t, 0, 0);

    /* The guest stops reading: stalled at every check, with packets
     * waiting.  Stormed exactly 200 ms after the first stalled check. */
    for (t = 5000 * MS; t < 5200 * MS; t += MS) {
        wd_guest_check(&wd, &p, &vq, ++refused, taken, 0x08, t, 0, 0);
    }
    wd_guest_check(&wd, &p, &vq, ++refused, taken, 0x08, t, 0x08, 0);
    ovs_assert(wd.storms_detected[3] == 1);

    /* Forward cannot send to a guest that does not read: it drops. */
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0x08);
    ovs_assert(pfc_wd_dropped(&wd, &p) == 0x08);
    p.action = PFC_WD_ALERT;
    ovs_assert(!pfc_wd_ignored(&wd, &p) && !pfc_wd_dropped(&wd, &p));
    p.action = PFC_WD_DROP;
    ovs_assert(pfc_wd_dropped(&wd, &p) == 0x08);

    /* Still stuck for 1 s: what is offered (nothing is held any more: the
     * packets are dropped) is refused, which holds restoration back. */
    for (t += MS; t < 6200 * MS; t += MS) {
        wd_guest_check(&wd, &p, &vq, ++refused, taken, 0, t, 0, 0);
    }
    ovs_assert(wd.stormed == 0x08);

    /* It reads again at 6200 ms: restored 400 ms after the last stalled
     * check, not one tick earlier. */
    for (; t < 5199 * MS + 1400 * MS; t += MS) {
        wd_guest_check(&wd, &p, &vq, refused, taken += 2, 0, t, 0, 0);
    }
    wd_guest_check(&wd, &p, &vq, refused, taken, 0, 6599 * MS - 1, 0, 0);
    wd_guest_check(&wd, &p, &vq, refused, taken, 0, 6599 * MS, 0, 0x08);
    ovs_assert(wd.storms_restored[3] == 1 && !pfc_wd_dropped(&wd, &p));

    /* A stuck guest with nothing offered: not stalled, so nothing is
     * detected; the next packets wait, and the storm comes 200 ms after
     * they are first refused. */
    for (t = 7000 * MS; t < 8000 * MS; t += MS) {
        wd_guest_check(&wd, &p, &vq, refused, taken, 0, t, 0, 0);
    }
    for (; t < 8200 * MS; t += MS) {
        wd_guest_check(&wd, &p, &vq, ++refused, taken, 0x08, t, 0, 0);
    }
    wd_guest_check(&wd, &p, &vq, ++refused, taken, 0x08, t, 0x08, 0);

    /* A guest that reads a trickle, one packet every 100 ms, of the 10 that
     * wait and are refused: stormed 200 ms after it began, though it takes
     * some. */
    pfc_wd_init(&wd);
    vq = (struct pfc_wd_vq) { refused, taken, 0, taken };
    for (t = 9000 * MS; t < 9200 * MS; t += MS) {
        taken += (t / MS) % 100 == 50;
        wd_guest_check(&wd, &p, &vq, ++refused, taken, 0x08, t, 0, 0);
    }
    wd_guest_check(&wd, &p, &vq, ++refused, taken, 0x08, t, 0x08, 0);

    /* A port with a MAC is not a guest: forward forwards. */
    p = wd_params(0x08, 200, 400, PFC_WD_FORWARD);
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0x08 && !pfc_wd_dropped(&wd, &p));
}

/* An rx queue of their own for MAC Control frames: on only if wanted, on a
 * NIC with 2 rx queues or more, a redirection table and the rte_flow rule;
 * otherwise the reason; and the table spreads data over all queues but the
 * last. */
static void
test_mcq(void)
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
}

/* One check of the watchdog of a port with a MAC, identity priority map, one
 * tx queue 'seen': its classes 'waiting' hold packets, 'left' of them left,
 * 'blocked' may not send, and the pause timers pause 'timer'. */
static uint8_t
wd_txq_check(struct pfc_wd *wd, const struct pfc_wd_params *p,
             struct pfc_wd_txq *seen, const uint64_t left[PFC_N_PRIOS],
             uint8_t waiting, uint8_t blocked, uint8_t timer, uint64_t now,
             uint8_t want_detected, uint8_t want_restored)
{
    uint8_t stalled = pfc_wd_txq_stalled(seen, left, waiting, blocked);

    return wd_check(wd, p, (timer | stalled) & p->enabled, waiting, now,
                    want_detected, want_restored);
}

/* A port with a MAC: "packets waiting, nothing sent".  A class that waits
 * and sends nothing while blocked past its pause timer (the pause-end rule),
 * or on an egress that sends nothing at all, is stormed after detection
 * time; a class that waits behind other classes of an egress that drains,
 * or that sends a little at times, never is. */
static void
test_wd_txq(void)
{
    struct pfc_wd_params p = wd_params(0x08, 200, 400, PFC_WD_DROP);
    uint64_t left[PFC_N_PRIOS] = { 0 };
    struct pfc_wd_txq seen;
    struct pfc_wd wd;
    uint64_t t;

    /* The rule. */
    memset(&seen, 0, sizeof seen);
    ovs_assert(!pfc_wd_txq_stalled(&seen, left, 0x08, 0));  /* First wait. */
    ovs_assert(pfc_wd_txq_stalled(&seen, left, 0x09, 0) == 0x08);
    left[0] = 5;                /* Class 0 left: the egress drains. */
    ovs_assert(!pfc_wd_txq_stalled(&seen, left, 0x09, 0));
    ovs_assert(pfc_wd_txq_stalled(&seen, left, 0x09, 0x08) == 0x09);
    left[0] = 6;
    ovs_assert(pfc_wd_txq_stalled(&seen, left, 0x09, 0x08) == 0x08);
    left[3] = 1;                /* Class 3 sent one. */
    ovs_assert(!pfc_wd_txq_stalled(&seen, left, 0x09, 0x08));
    ovs_assert(pfc_wd_txq_stalled(&seen, left, 0x08, 0x08) == 0x08);
    ovs_assert(!pfc_wd_txq_stalled(&seen, left, 0, 0x08));  /* Empty. */
    ovs_assert(seen.left[3] == 1 && !seen.waiting);

    /* A pause that the pause-end rule keeps in force after its timer ran
     * out (an rx ring that a flood never lets empty): stormed 200 ms after
     * the first check that saw it, though the timer paused only the first
     * 10 ms. */
    pfc_wd_init(&wd);
    memset(&seen, 0, sizeof seen);
    memset(left, 0, sizeof left);
    for (t = 0; t <= 200 * MS; t += MS) {
        left[0] += 32;          /* Lossy class 0 drains all the while. */
        wd_txq_check(&wd, &p, &seen, left, 0x09, 0x08, t < 10 * MS ? 0x08 : 0,
                     t, t == 200 * MS ? 0x08 : 0, 0);
    }
    ovs_assert(pfc_wd_dropped(&wd, &p) == 0x08);

    /* An egress that sends nothing at all, no pause: stormed too. */
    pfc_wd_init(&wd);
    memset(&seen, 0, sizeof seen);
    wd_txq_check(&wd, &p, &seen, left, 0x09, 0, 0, 0, 0, 0);
    for (t = MS; t <= 201 * MS; t += MS) {
        wd_txq_check(&wd, &p, &seen, left, 0x09, 0, 0, t,
                     t == 201 * MS ? 0x08 : 0, 0);
    }
    /* Its held packets dropped, nothing waits: restored 400 ms after the
     * detection. */
    for (t += MS; t < 601 * MS; t += MS) {
        wd_txq_check(&wd, &p, &seen, left, 0, 0, 0, t, 0, 0);
    }
    wd_txq_check(&wd, &p, &seen, left, 0, 0, 0, t, 0, 0x08);

    /* Congestion: class 3 waits behind class 0, which drains, for 5 s:
     * never stormed.  Nor is a class that sends one packet every 100 ms
     * while blocked at other times. */
    pfc_wd_init(&wd);
    memset(&seen, 0, sizeof seen);
    for (t = 0; t < 5000 * MS; t += MS) {
        left[0] += 4;
        wd_txq_check(&wd, &p, &seen, left, 0x09, 0, 0, t, 0, 0);
    }
    for (; t < 10000 * MS; t += MS) {
        left[3] += (t / MS) % 100 == 0;
        wd_txq_check(&wd, &p, &seen, left, 0x08, 0x08, 0, t, 0, 0);
    }
    ovs_assert(!wd.storms_detected[3]);
}

/* An XOFF storm that turns into an XON storm is restored: XON frames do not
 * hold restoration back, and neither do frames for other priorities. */
static void
test_wd_xon_storm(void)
{
    struct pfc_wd_params p = wd_params(0x18, 200, 400, PFC_WD_FORWARD);
    struct pfc_counters c;
    struct pfc_pause pause;
    struct pfc_wd wd;
    uint64_t s, last;

    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0x08);
    /* XONs for 3 every 100 us, and XOFF for 4 (not stormed), for 10 s. */
    for (uint64_t t = s + 100 * US; t < s + 10000 * MS; t += 100 * US) {
        bool restore = t == s + 400 * MS;

        wd_frame1(&wd, p.enabled, 3, 0, 0, t);
        wd_frame1(&wd, p.enabled, 4, 65535, 0, t);
        wd_check(&wd, &p, 0x10, 0, t, 0, restore ? 0x08 : 0);
    }
    ovs_assert(!wd.stormed && wd.storms_restored[3] == 1);

    /* XOFF every 100 ms among XONs every millisecond: an XOFF within each
     * restoration time holds it back; once they stop, restored 400 ms after
     * the last one.  Frames go through pfc_receive() as in the datapath. */
    memset(&c, 0, sizeof c);
    pfc_pause_init(&pause);
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    last = s;
    for (uint64_t t = s + MS; t < s + 3000 * MS; t += MS) {
        bool xoff = t < s + 1000 * MS && t % (100 * MS) == 0;
        struct pfc_frame f = frame1(3, xoff ? 65535 : 0);
        uint8_t began = pfc_receive(&pause, &c, &f, p.enabled, &tb10g, t, t);

        pfc_wd_frame(&wd, &f, p.enabled, began, t);
        if (xoff) {
            last = t;
        }
        wd_check(&wd, &p, pfc_pause_status(&pause, t), 0, t, 0,
                 t == last + 400 * MS ? 0x08 : 0);
    }
    ovs_assert(last == s + 900 * MS);
    ovs_assert(!wd.stormed && wd.storms_restored[3] == 1);
}

/* The watchdog turned off, and priorities leaving pfc-enable: nothing is
 * stormed, and what was stormed is restored at the next check and counted.
 * "alert" only reports. */
static void
test_wd_off(void)
{
    struct pfc_wd_params p = wd_params(0x08, 0, 400, PFC_WD_DROP);
    struct pfc_wd wd;
    uint64_t s;

    /* Off: never stormed. */
    pfc_wd_init(&wd);
    for (uint64_t t = 0; t < 10000 * MS; t += MS) {
        wd_frame1(&wd, 0x08, 3, 65535, 0, t);
        wd_check(&wd, &p, 0x08, 0x08, t, 0, 0);
    }
    ovs_assert(!wd.storms_detected[3]);

    /* Turned off while stormed: ignored no more at once, restored at the
     * next check; turned on again, detection starts from scratch. */
    p = wd_params(0x08, 200, 400, PFC_WD_DROP);
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    p.detect_ticks = 0;
    ovs_assert(!pfc_wd_ignored(&wd, &p) && !pfc_wd_dropped(&wd, &p));
    ovs_assert(!wd_check(&wd, &p, 0x08, 0x08, s + MS, 0, 0x08));
    ovs_assert(wd.storms_restored[3] == 1);
    wd_check(&wd, &p, 0x08, 0x08, s + 2 * MS, 0, 0);
    p.detect_ticks = 200 * MS;
    wd_quiet(&wd, &p, 0x08, 0x08, s + 3 * MS, s + 203 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, s + 203 * MS, 0x08, 0);

    /* Priority 3 leaves pfc-enable while stormed: restored and reset; its
     * frames are ignored; back in pfc-enable, it starts from scratch. */
    p = wd_params(0x28, 200, 400, PFC_WD_DROP);
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    p.enabled = 0x20;
    ovs_assert(!pfc_wd_ignored(&wd, &p));
    wd_check(&wd, &p, 0x08, 0x08, s + MS, 0, 0x08);
    wd_frame1(&wd, p.enabled, 3, 65535, 0, s + 2 * MS);
    ovs_assert(wd.last_xoff[3] == 0);
    wd_quiet(&wd, &p, 0x08, 0x08, s + 2 * MS, s + 1000 * MS, MS);
    p.enabled = 0x28;
    wd_quiet(&wd, &p, 0x08, 0x08, s + 1000 * MS, s + 1200 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, s + 1200 * MS, 0x08, 0);
    ovs_assert(wd.storms_detected[3] == 2 && wd.storms_restored[3] == 1);

    /* "alert": stormed and counted, pauses still honoured, restored by the
     * same rule. */
    p = wd_params(0x08, 200, 400, PFC_WD_ALERT);
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    ovs_assert(wd.stormed == 0x08 && wd.storms_detected[3] == 1);
    ovs_assert(!pfc_wd_ignored(&wd, &p) && !pfc_wd_dropped(&wd, &p));
    wd_quiet(&wd, &p, 0x08, 0x08, s + MS, s + 400 * MS, MS);
    /* Still paused (the last XOFF's timer runs): not yet. */
    wd_check(&wd, &p, 0x08, 0x08, s + 400 * MS, 0, 0);
    wd_check(&wd, &p, 0, 0x08, s + 401 * MS, 0, 0x08);
}

/* The watchdog keys: defaults, ranges, errors that name the key and the
 * range, action names, pfc_config_to_smap() and pfc_config_equal(). */
static void
test_wd_config(void)
{
    struct pfc_config cfg, cfg2;
    struct smap s;
    char *err;

    /* Defaults: on, 200 ms, restoration twice that, drop. */
    PARSE(&cfg, 0, NULL, NULL);
    ovs_assert(cfg.wd_detect_ms == 200 && cfg.wd_restore_ms == 400);
    ovs_assert(cfg.wd_restore_default && cfg.wd_action == PFC_WD_DROP);

    /* Restoration defaults to twice the detection time. */
    PARSE(&cfg, 0, NULL, "watchdog-detection-time", "10");
    ovs_assert(cfg.wd_detect_ms == 10 && cfg.wd_restore_ms == 20);
    PARSE(&cfg, 0, NULL, "watchdog-detection-time", "5000");
    ovs_assert(cfg.wd_detect_ms == 5000 && cfg.wd_restore_ms == 10000);
    PARSE(&cfg, 0, NULL, "watchdog-detection-time", "1234");
    ovs_assert(cfg.wd_restore_ms == 2468 && cfg.wd_restore_default);

    /* Off; a restoration time is then accepted and unused. */
    PARSE(&cfg, 0, NULL, "watchdog-detection-time", "0");
    ovs_assert(cfg.wd_detect_ms == 0 && cfg.wd_restore_ms == 400);
    PARSE(&cfg, 0, NULL, "watchdog-detection-time", "0",
          "watchdog-restoration-time", "60000");
    ovs_assert(cfg.wd_detect_ms == 0 && cfg.wd_restore_ms == 60000);

    /* Explicit restoration times, shorter than detection too. */
    PARSE(&cfg, 0, NULL, "watchdog-restoration-time", "10");
    ovs_assert(cfg.wd_restore_ms == 10 && !cfg.wd_restore_default);
    PARSE(&cfg, 0, NULL, "watchdog-detection-time", "300",
          "watchdog-restoration-time", "60000");
    ovs_assert(cfg.wd_detect_ms == 300 && cfg.wd_restore_ms == 60000);

    /* Actions. */
    PARSE(&cfg, 0, NULL, "watchdog-action", "drop");
    ovs_assert(cfg.wd_action == PFC_WD_DROP);
    PARSE(&cfg, 0, NULL, "watchdog-action", "forward");
    ovs_assert(cfg.wd_action == PFC_WD_FORWARD);
    PARSE(&cfg, 0, NULL, "watchdog-action", "alert");
    ovs_assert(cfg.wd_action == PFC_WD_ALERT);
    ovs_assert(!strcmp(pfc_wd_action_name(PFC_WD_DROP), "drop"));
    ovs_assert(!strcmp(pfc_wd_action_name(PFC_WD_FORWARD), "forward"));
    ovs_assert(!strcmp(pfc_wd_action_name(PFC_WD_ALERT), "alert"));

    /* Errors name the key and the range. */
    static const char *const bad_detect[] = {
        "1", "9", "5001", "1000000", "abc", "-1", "", "200ms", "1k",
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad_detect); i++) {
        char *needle = xasprintf("other_config:watchdog-detection-time="
                                 "\"%s\" is invalid: must be 0 (watchdog "
                                 "off) or an integer from 10 to 5000 ms",
                                 bad_detect[i]);

        PARSE(&cfg, EINVAL, needle, "watchdog-detection-time",
              bad_detect[i]);
        free(needle);
    }
    static const char *const bad_restore[] = {
        "0", "9", "60001", "x", "-5", "",
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad_restore); i++) {
        char *needle = xasprintf("other_config:watchdog-restoration-time="
                                 "\"%s\" is invalid: must be an integer "
                                 "from 10 to 60000 ms", bad_restore[i]);

        PARSE(&cfg, EINVAL, needle, "watchdog-restoration-time",
              bad_restore[i]);
        PARSE(&cfg, EINVAL, needle, "watchdog-detection-time", "0",
              "watchdog-restoration-time", bad_restore[i]);
        free(needle);
    }
    PARSE(&cfg, EINVAL, "other_config:watchdog-action=\"shutdown\" is "
          "invalid: must be drop, forward or alert",
          "watchdog-action", "shutdown");
    PARSE(&cfg, EINVAL, "watchdog-action=\"Drop\"", "watchdog-action",
          "Drop");
    PARSE(&cfg, EINVAL, "watchdog-action=\"\"", "watchdog-action", "");
    PARSE(&cfg, EINVAL, "watchdog_action is not a key", "watchdog_action",
          "drop");

    /* pfc_config_to_smap(): detection and action always, restoration only
     * when set; each round trips and counts in pfc_config_equal(). */
    PARSE(&cfg, 0, NULL, "pfc-enable", "3");
    smap_init(&s);
    pfc_config_to_smap(&cfg, &s);
    ovs_assert(!strcmp(smap_get(&s, "watchdog-detection-time"), "200"));
    ovs_assert(!smap_get(&s, "watchdog-restoration-time"));
    ovs_assert(!strcmp(smap_get(&s, "watchdog-action"), "drop"));
    ovs_assert(!pfc_config_parse(&s, &cfg2, &err));
    ovs_assert(pfc_config_equal(&cfg, &cfg2));
    smap_destroy(&s);

    PARSE(&cfg, 0, NULL, "pfc-enable", "3", "watchdog-detection-time", "0",
          "watchdog-restoration-time", "1500", "watchdog-action", "alert");
    smap_init(&s);
    pfc_config_to_smap(&cfg, &s);
    ovs_assert(!strcmp(smap_get(&s, "watchdog-detection-time"), "0"));
    ovs_assert(!strcmp(smap_get(&s, "watchdog-restoration-time"), "1500"));
    ovs_assert(!strcmp(smap_get(&s, "watchdog-action"), "alert"));
    ovs_assert(!pfc_config_parse(&s, &cfg2, &err));
    ovs_assert(pfc_config_equal(&cfg, &cfg2));
    smap_destroy(&s);

    PARSE(&cfg, 0, NULL, "pfc-enable", "3");
    PARSE(&cfg2, 0, NULL, "pfc-enable", "3", "watchdog-detection-time",
          "300");
    ovs_assert(!pfc_config_equal(&cfg, &cfg2));
    PARSE(&cfg2, 0, NULL, "pfc-enable", "3", "watchdog-restoration-time",
          "500");
    ovs_assert(!pfc_config_equal(&cfg, &cfg2));
    PARSE(&cfg2, 0, NULL, "pfc-enable", "3", "watchdog-action", "forward");
    ovs_assert(!pfc_config_equal(&cfg, &cfg2));
    PARSE(&cfg2, 0, NULL, "pfc-enable", "3", "watchdog-detection-time",
          "200", "watchdog-action", "drop");
    ovs_assert(pfc_config_equal(&cfg, &cfg2));
}

/* DCBX (lib/pfc-dcbx.h). */

static const struct eth_addr dcbx_mac_lo = ETH_ADDR_C(02, 00, 00, 00, 0a, 01);
static const struct eth_addr dcbx_mac_hi = ETH_ADDR_C(02, 00, 00, 00, 0b, 01);

/* Appends a TLV to the LLDPDU being built in 'b' at '*n'. */
static void
dcbx_put(uint8_t *b, size_t *n, int type, const char *hex)
{
    size_t len = strlen(hex) / 2;

    b[(*n)++] = (type << 1) | (len >> 8);
    b[(*n)++] = len & 0xff;
    for (size_t i = 0; i < len; i++) {
        unsigned int x;

        ovs_assert(sscanf(&hex[2 * i], "%2x", &x) == 1);
        b[(*n)++] = x;
    }
}

/* An LLDPDU with the three mandatory TLVs (chassis MAC 02:00:00:00:0b:01,
 * port "eth1", TTL 'ttl'), then 'extra' (hex TLV values by type: "type:hex"
 * separated by spaces), then End.  Returns its length. */
static size_t
dcbx_lldpdu(uint8_t *b, uint16_t ttl, const char *extra)
{
    char ttl_hex[5];
    size_t n = 0;

    dcbx_put(b, &n, 1, "04020000000b01");
    dcbx_put(b, &n, 2, "0565746831");
    snprintf(ttl_hex, sizeof ttl_hex, "%04x", ttl);
    dcbx_put(b, &n, 3, ttl_hex);
    if (extra) {
        char *copy = xstrdup(extra), *save = NULL;

        for (char *tok = strtok_r(copy, " ", &save); tok;
             tok = strtok_r(NULL, " ", &save)) {
            int type = atoi(tok);

            dcbx_put(b, &n, type, strchr(tok, ':') + 1);
        }
        free(copy);
    }
    dcbx_put(b, &n, 0, "");
    return n;
}

static void
dcbx_bad(const uint8_t *b, size_t len, const char *want)
{
    struct pfc_lldpdu du;
    const char *why = NULL;

    ovs_assert(pfc_lldpdu_parse(b, len, &du, &why) == EINVAL);
    if (!why || !strstr(why, want)) {
        ovs_fatal(0, "LLDPDU rejected because \"%s\", want \"%s\"",
                  why ? why : "(null)", want);
    }
}

/* The LLDPDU codec: what pfc_lldpdu_build() sends, octet by octet, parses
 * back; the PFC and ETS TLVs decode; malformed LLDPDUs are rejected with a
 * reason; unsupported TLVs, CEE DCBX among them, are counted. */
static void
test_dcbx_codec(void)
{
    struct pfc_dcbx_tlv tlv = { .willing = true, .cap = 8, .enable = 0x18 };
    uint8_t f[400], b[600];
    struct pfc_lldpdu du;
    const char *why;
    size_t n;

    /* Build. */
    n = pfc_lldpdu_build(f, sizeof f, dcbx_mac_lo, "dpdk-a", 121, &tlv, NULL,
                         NULL, NULL);
    static const uint8_t want[] = {
        0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e,     /* Nearest bridge. */
        0x02, 0x00, 0x00, 0x00, 0x0a, 0x01,
        0x88, 0xcc,
        0x02, 0x07, 0x04, 0x02, 0x00, 0x00, 0x00, 0x0a, 0x01, /* Chassis. */
        0x04, 0x07, 0x05, 'd', 'p', 'd', 'k', '-', 'a',      /* Port. */
        0x06, 0x02, 0x00, 0x79,                              /* TTL 121. */
        0xfe, 0x06, 0x00, 0x80, 0xc2, 0x0b, 0x88, 0x18,      /* PFC. */
        0x00, 0x00,                                          /* End. */
    };
    ovs_assert(n == ETH_TOTAL_MIN);
    ovs_assert(!memcmp(f, want, sizeof want));
    for (size_t i = sizeof want; i < n; i++) {
        ovs_assert(!f[i]);
    }
    ovs_assert(!pfc_lldpdu_build(f, 40, dcbx_mac_lo, "dpdk-a", 121, &tlv,
                                 NULL, NULL, NULL));

    /* Parse it back. */
    ovs_assert(!pfc_lldpdu_parse(f + ETH_HEADER_LEN, n - ETH_HEADER_LEN, &du,
                                 &why));
    ovs_assert(du.chassis_subtype == 4 && du.chassis_len == 6
               && !memcmp(du.chassis_id, dcbx_mac_lo.ea, 6));
    ovs_assert(du.port_subtype == 5 && du.port_len == 6
               && !memcmp(du.port_id, "dpdk-a", 6));
    ovs_assert(du.ttl == 121 && du.n_tlvs == 4 && !du.n_unsupported);
    ovs_assert(du.has_pfc && du.pfc.willing && !du.pfc.mbc
               && du.pfc.cap == 8 && du.pfc.enable == 0x18);

    /* A long port name is cut at 255 octets. */
    char name[300];

    memset(name, 'x', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    struct pfc_ets_tlv ets = { .max_tcs = 8 };

    struct pfc_app_tlv app;
    uint8_t map[64];

    pfc_dscp_map_default(map);
    pfc_app_tlv_from_map(&app, map);
    n = pfc_lldpdu_build(b, sizeof b, dcbx_mac_lo, name, 121, &tlv, &ets,
                         &ets, &app);
    ovs_assert(n == PFC_LLDP_FRAME_MAX);
    ovs_assert(!pfc_lldpdu_build(b, PFC_LLDP_FRAME_MAX - 1, dcbx_mac_lo, name,
                                 121, &tlv, &ets, &ets, &app));
    ovs_assert(!pfc_lldpdu_parse(b + ETH_HEADER_LEN, n - ETH_HEADER_LEN, &du,
                                 &why));
    ovs_assert(du.port_len == 255);

    /* MBC, other bits; ETS for display; unsupported TLVs, CEE too; other
     * basic TLVs (system name) are fine. */
    n = dcbx_lldpdu(b, 120, "127:0080c20b4f08 "
                    "127:0080c20983" "01234567" "0a141e2800000000"
                    "0202020000000000 "
                    "127:0080c201000a 127:001b21010203 5:6c656166");
    ovs_assert(!pfc_lldpdu_parse(b, n, &du, &why));
    ovs_assert(du.has_pfc && !du.pfc.willing && du.pfc.mbc
               && du.pfc.cap == 15 && du.pfc.enable == 0x08);
    ovs_assert(du.has_ets && du.ets.willing && !du.ets.cbs
               && du.ets.max_tcs == 3 && !du.has_ets_rec);
    for (int i = 0; i < 8; i++) {
        ovs_assert(du.ets.prio_tc[i] == i);
    }
    ovs_assert(du.ets.bw[0] == 10 && du.ets.bw[3] == 40 && !du.ets.bw[4]);
    ovs_assert(du.ets.tsa[0] == 2 && du.ets.tsa[3] == 0);
    ovs_assert(du.n_unsupported == 2 && du.cee && du.n_tlvs == 8);

    /* Padding after End is ignored. */
    memset(b + n, 0xee, 20);
    ovs_assert(!pfc_lldpdu_parse(b, n + 20, &du, &why));

    /* Malformed. */
    n = dcbx_lldpdu(b, 120, "127:0080c20b8808 127:0080c20b8810");
    dcbx_bad(b, n, "a second PFC Configuration TLV");
    n = dcbx_lldpdu(b, 120, "127:0080c20b880800");
    dcbx_bad(b, n, "PFC Configuration TLV of other than 6 octets");
    n = dcbx_lldpdu(b, 120, "127:0080c2");
    dcbx_bad(b, n, "organizationally specific TLV shorter than 4 octets");
    n = dcbx_lldpdu(b, 120, "1:04020000000b01");
    dcbx_bad(b, n, "a second Chassis ID or Port ID TLV");
    n = dcbx_lldpdu(b, 120, "3:0078");
    dcbx_bad(b, n, "a second Time To Live TLV");
    n = dcbx_lldpdu(b, 120, NULL);
    dcbx_bad(b, 12, "a TLV runs past the end of the frame");
    dcbx_bad(b, n - 1, "no End of LLDPDU TLV");
    dcbx_bad(b, n - 2, "no End of LLDPDU TLV");
    dcbx_bad(b, 0, "no End of LLDPDU TLV");
    b[n - 1] = 1;               /* End of length 1, past the frame... */
    dcbx_bad(b, n, "a TLV runs past the end of the frame");
    b[n] = 0;                   /* ...or within it. */
    dcbx_bad(b, n + 1, "End of LLDPDU TLV with a nonzero length");

    n = 0;
    dcbx_put(b, &n, 2, "0565746831");
    dcbx_bad(b, n, "the first TLV is not Chassis ID");
    n = 0;
    dcbx_put(b, &n, 1, "04020000000b01");
    dcbx_put(b, &n, 3, "0078");
    dcbx_bad(b, n, "the second TLV is not Port ID");
    n = 0;
    dcbx_put(b, &n, 1, "04020000000b01");
    dcbx_put(b, &n, 2, "0565746831");
    dcbx_put(b, &n, 0, "");
    dcbx_bad(b, n, "the third TLV is not Time To Live");
    n = 0;
    dcbx_put(b, &n, 1, "04020000000b01");
    dcbx_put(b, &n, 2, "0565746831");
    dcbx_put(b, &n, 3, "00");
    dcbx_bad(b, n, "Time To Live TLV of other than 2 octets");
    n = 0;
    dcbx_put(b, &n, 1, "04");
    dcbx_bad(b, n, "Chassis ID or Port ID TLV not of 2 to 256 octets");
    n = 0;
    b[n++] = 0x03;              /* Chassis ID of 257 octets. */
    b[n++] = 0x01;
    memset(b + n, 4, 257);
    n += 257;
    dcbx_bad(b, n, "Chassis ID or Port ID TLV not of 2 to 256 octets");
}

static struct pfc_dcbx_params
dcbx_params(bool willing, uint8_t admin)
{
    struct pfc_dcbx_params p = {
        .enabled = true, .willing = willing, .admin = admin,
        .tx_interval = PFC_LLDP_TX_INTERVAL_DEFAULT,
    };

    return p;
}

/* ETS over DCBX (IEEE 802.1Q-2018 D.2.9, D.2.10): the Configuration and
 * Recommendation TLVs as built, octet by octet, and parsed back; the
 * asymmetric decision: a willing port adopts its partner's recommendation
 * if it can run it, an unwilling one never does; the partner's TTL running
 * out brings the Queue rows' configuration back. */
static void
test_dcbx_ets(void)
{
    struct pfc_dcbx_tlv pfc = { .willing = true, .cap = 8, .enable = 0x08 };
    struct pfc_ets_tlv cfg = {
        .willing = true, .max_tcs = 8,
        .prio_tc = { 0, 1, 2, 3, 4, 5, 6, 7 },
        .bw = { 25, 75 }, .tsa = { 2, 2, 0, 0, 0, 0, 0, 0 },
    };
    struct pfc_ets_tlv rec = cfg;
    uint8_t f[400];
    struct pfc_lldpdu du;
    const char *why;
    size_t n;

    rec.bw[0] = 60;
    rec.bw[1] = 40;
    n = pfc_lldpdu_build(f, sizeof f, dcbx_mac_lo, "p", 121, &pfc, &cfg,
                         &rec, NULL);
    static const uint8_t want_cfg[] = {
        0xfe, 0x19, 0x00, 0x80, 0xc2, 0x09, 0x80,   /* Willing, 8 TCs. */
        0x01, 0x23, 0x45, 0x67,                     /* Priority -> TC. */
        25, 75, 0, 0, 0, 0, 0, 0,                   /* TC bandwidth. */
        2, 2, 0, 0, 0, 0, 0, 0,                     /* TSA. */
    };
    static const uint8_t want_rec[] = {
        0xfe, 0x19, 0x00, 0x80, 0xc2, 0x0a, 0x00,
        0x01, 0x23, 0x45, 0x67,
        60, 40, 0, 0, 0, 0, 0, 0,
        2, 2, 0, 0, 0, 0, 0, 0,
    };
    size_t at = ETH_HEADER_LEN + 9 + 4 + 4;     /* After the TTL TLV. */

    ovs_assert(n == at + 2 * 27 + 8 + 2);
    ovs_assert(!memcmp(&f[at], want_cfg, sizeof want_cfg));
    ovs_assert(!memcmp(&f[at + 27], want_rec, sizeof want_rec));
    ovs_assert(!pfc_lldpdu_parse(f + ETH_HEADER_LEN, n - ETH_HEADER_LEN, &du,
                                 &why));
    ovs_assert(du.has_ets && du.has_ets_rec && du.has_pfc);
    ovs_assert(du.ets.willing && du.ets.max_tcs == 8);
    ovs_assert(!memcmp(du.ets.bw, cfg.bw, 8)
               && !memcmp(du.ets.tsa, cfg.tsa, 8));
    ovs_assert(!memcmp(du.ets_rec.bw, rec.bw, 8)
               && !memcmp(du.ets_rec.prio_tc, rec.prio_tc, 8));

    /* The decision. */
    struct pfc_dcbx_params params = {
        .enabled = true, .willing = true, .admin = 0x08, .tx_interval = 30,
        .ets_admin = cfg,
    };
    struct pfc_ets_tlv oper;

    ovs_assert(pfc_dcbx_ets_decide(&params, &rec, &oper, &why) && !why);
    ovs_assert(oper.bw[0] == 60 && oper.bw[1] == 40 && oper.tsa[0] == 2);
    ovs_assert(!memcmp(oper.prio_tc, cfg.prio_tc, 8));  /* Our map stays. */
    ovs_assert(!pfc_dcbx_ets_decide(&params, NULL, &oper, &why));
    ovs_assert(oper.bw[0] == 25);
    params.willing = false;
    ovs_assert(!pfc_dcbx_ets_decide(&params, &rec, &oper, &why) && !why);
    ovs_assert(oper.bw[0] == 25);
    params.willing = true;

    struct pfc_ets_tlv bad = rec;

    bad.bw[1] = 50;
    ovs_assert(!pfc_dcbx_ets_decide(&params, &bad, &oper, &why));
    ovs_assert(why && strstr(why, "sum to 100"));
    bad = rec;
    bad.tsa[4] = 1;                                     /* CBS. */
    ovs_assert(!pfc_dcbx_ets_decide(&params, &bad, &oper, &why));
    ovs_assert(why && strstr(why, "TSA other than"));
    bad = rec;
    bad.tsa[2] = 2;                                     /* ETS with 0%. */
    ovs_assert(!pfc_dcbx_ets_decide(&params, &bad, &oper, &why));
    /* All strict is a valid recommendation. */
    memset(bad.tsa, 0, 8);
    memset(bad.bw, 0, 8);
    ovs_assert(pfc_dcbx_ets_decide(&params, &bad, &oper, &why));

    /* The state machine: adopted on receipt, refused and counted, back to
     * the Queue rows' when the partner's TTL runs out. */
    struct pfc_dcbx d;
    uint64_t hz = 1000, now = 0;

    pfc_dcbx_init(&d, &params, now);
    ovs_assert(!d.ets_adopted && d.ets_oper.bw[0] == 25);
    d.ets_changed = false;
    n = pfc_lldpdu_build(f, sizeof f, dcbx_mac_hi, "q", 3, &pfc, &cfg, &rec,
                         NULL);
    pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, f + ETH_HEADER_LEN,
                n - ETH_HEADER_LEN, now, hz, &why);
    ovs_assert(d.ets_adopted && d.ets_changed && d.ets_oper.bw[0] == 60);
    ovs_assert(!d.rx_ets_rec_refused);
    d.ets_changed = false;
    bad = rec;
    bad.bw[0] = 10;
    n = pfc_lldpdu_build(f, sizeof f, dcbx_mac_hi, "q", 3, &pfc, &cfg, &bad,
                         NULL);
    pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, f + ETH_HEADER_LEN,
                n - ETH_HEADER_LEN, now, hz, &why);
    ovs_assert(!d.ets_adopted && d.ets_changed && d.ets_oper.bw[0] == 25);
    ovs_assert(d.rx_ets_rec_refused == 1 && d.ets_refused);
    n = pfc_lldpdu_build(f, sizeof f, dcbx_mac_hi, "q", 3, &pfc, &cfg, &rec,
                         NULL);
    pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, f + ETH_HEADER_LEN,
                n - ETH_HEADER_LEN, now, hz, &why);
    ovs_assert(d.ets_adopted);
    d.ets_changed = false;
    ovs_assert(!pfc_dcbx_run(&d, &params, dcbx_mac_lo, 2999));
    ovs_assert(d.ets_adopted && !d.ets_changed);
    pfc_dcbx_run(&d, &params, dcbx_mac_lo, 3000);
    ovs_assert(!d.ets_adopted && d.ets_changed && d.ets_oper.bw[0] == 25);
}

/* Application Priority, DSCP selector (IEEE 802.1Q-2018 D.2.12, 802.1Qcd):
 * the TLV as built and parsed, octet by octet; lldpad's entries; malformed
 * TLVs; who adopts the partner's DSCP map, and the state machine. */
static void
test_dcbx_app(void)
{
    struct pfc_dcbx_tlv pfc = { .willing = false, .cap = 8, .enable = 8 };
    struct pfc_dcbx_params params = {
        .enabled = true, .willing = true, .admin = 8, .tx_interval = 1,
        .app_dscp = true,
    };
    uint8_t f[PFC_LLDP_FRAME_MAX], b[512], oper[64];
    struct pfc_app_tlv app;
    struct pfc_lldpdu du;
    const char *why;
    size_t n;

    /* Built: the whole map, 64 entries of Sel 5, DSCP order. */
    pfc_dscp_map_default(params.dscp_admin);
    params.dscp_admin[10] = 3;
    pfc_app_tlv_from_map(&app, params.dscp_admin);
    n = pfc_lldpdu_build(f, sizeof f, dcbx_mac_lo, "p", 121, &pfc, NULL,
                         NULL, &app);
    static const uint8_t want_hdr[] = {
        0xfe, 0xc5, 0x00, 0x80, 0xc2, 0x0c, 0x00,   /* 197 octets. */
        0x05, 0x00, 0x00,                           /* DSCP 0: prio 0. */
    };
    const uint8_t *t = f + n - 2 - 199;
    ovs_assert(!memcmp(t, want_hdr, sizeof want_hdr));
    ovs_assert(t[7 + 3 * 10] == 0x65 && t[9 + 3 * 10] == 10);  /* 10: 3. */
    ovs_assert(t[7 + 3 * 46] == 0xa5 && t[9 + 3 * 46] == 46);  /* EF: 5. */
    ovs_assert(!pfc_lldpdu_parse(f + ETH_HEADER_LEN, n - ETH_HEADER_LEN, &du,
                                 &why));
    ovs_assert(du.has_app && du.app.dscp_mask == UINT64_MAX
               && !du.app.n_ignored
               && !memcmp(du.app.dscp_prio, params.dscp_admin, 64));

    /* As lldpad sends them (app=3,5,26): other selectors and DSCPs above
     * 63 are ignored and counted; a DSCP listed twice takes the highest
     * priority. */
    n = dcbx_lldpdu(b, 120, "127:0080c20c00" "65001a" "820cbc" "a5002e"
                    "25001a" "450040");
    ovs_assert(!pfc_lldpdu_parse(b, n, &du, &why));
    ovs_assert(du.has_app && du.app.n_ignored == 2);
    ovs_assert(du.app.dscp_mask
               == ((UINT64_C(1) << 26) | (UINT64_C(1) << 46)));
    ovs_assert(du.app.dscp_prio[26] == 3 && du.app.dscp_prio[46] == 5);
    n = dcbx_lldpdu(b, 120, "127:0080c20c00");
    ovs_assert(!pfc_lldpdu_parse(b, n, &du, &why) && du.has_app
               && !du.app.dscp_mask);

    /* Malformed: the LLDPDU is ignored whole. */
    n = dcbx_lldpdu(b, 120, "127:0080c20c0065");
    dcbx_bad(b, n, "Application Priority TLV of other than 5 + 3n octets");
    n = dcbx_lldpdu(b, 120, "127:0080c20c00");
    dcbx_bad(b, n - 2, "no End");
    n = dcbx_lldpdu(b, 120, "127:0080c20c0065001a 127:0080c20c00");
    dcbx_bad(b, n, "a second Application Priority TLV");

    /* Who adopts: a willing port with trust=dscp, from a partner that is
     * not willing, or is and has the higher MAC address. */
    n = dcbx_lldpdu(b, 120, "127:0080c20b0008 127:0080c20c00" "a5001a");
    ovs_assert(!pfc_lldpdu_parse(b, n, &du, &why));
    ovs_assert(pfc_dcbx_app_decide(&params, dcbx_mac_lo, &du, dcbx_mac_hi,
                                   oper));
    ovs_assert(oper[26] == 5 && oper[10] == 3 && oper[46] == 5);
    ovs_assert(pfc_dcbx_app_decide(&params, dcbx_mac_hi, &du, dcbx_mac_lo,
                                   oper) && oper[26] == 5);
    du.pfc.willing = true;
    ovs_assert(pfc_dcbx_app_decide(&params, dcbx_mac_lo, &du, dcbx_mac_hi,
                                   oper) && oper[26] == 5);
    ovs_assert(!pfc_dcbx_app_decide(&params, dcbx_mac_hi, &du, dcbx_mac_lo,
                                    oper) && oper[26] == 3);
    du.pfc.willing = false;
    params.willing = false;
    ovs_assert(!pfc_dcbx_app_decide(&params, dcbx_mac_lo, &du, dcbx_mac_hi,
                                    oper) && oper[26] == 3);
    params.willing = true;
    params.app_dscp = false;
    ovs_assert(!pfc_dcbx_app_decide(&params, dcbx_mac_lo, &du, dcbx_mac_hi,
                                    oper) && oper[26] == 3);
    params.app_dscp = true;
    ovs_assert(!pfc_dcbx_app_decide(&params, dcbx_mac_lo, NULL, dcbx_mac_hi,
                                    oper) && oper[26] == 3);
    du.has_pfc = false;
    du.has_ets = true;
    du.ets.willing = true;
    ovs_assert(!pfc_dcbx_app_decide(&params, dcbx_mac_hi, &du, dcbx_mac_lo,
                                    oper));

    /* The state machine: adopted on receipt, back to the port's own map
     * when the partner's TTL runs out. */
    struct pfc_dcbx d;
    uint64_t hz = 1000;

    pfc_dcbx_init(&d, &params, 0);
    ovs_assert(!d.app_adopted && d.dscp_oper[10] == 3);
    d.app_changed = false;
    n = dcbx_lldpdu(b, 3, "127:0080c20b0008 127:0080c20c00" "a5001a");
    ovs_assert(!pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, 0,
                            hz, &why));
    ovs_assert(d.app_adopted && d.app_changed && d.dscp_oper[26] == 5);
    d.app_changed = false;
    pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, 0, hz, &why);
    ovs_assert(d.app_adopted && !d.app_changed);
    pfc_dcbx_run(&d, &params, dcbx_mac_lo, 3000);
    ovs_assert(!d.app_adopted && d.app_changed && d.dscp_oper[26] == 3);
}

/* An LLDPDU from the agent of Chassis ID 'chassis' and Port ID 'port'
 * (hex TLV values), Time To Live 'ttl', with a PFC Configuration TLV
 * (not willing) enabling 'enable'. */
static size_t
dcbx_agent_lldpdu(uint8_t *b, const char *chassis, const char *port,
                  uint16_t ttl, uint8_t enable)
{
    char hex[16];
    size_t n = 0;

    dcbx_put(b, &n, 1, chassis);
    dcbx_put(b, &n, 2, port);
    snprintf(hex, sizeof hex, "%04x", ttl);
    dcbx_put(b, &n, 3, hex);
    snprintf(hex, sizeof hex, "0080c20b08%02x", enable);
    dcbx_put(b, &n, 127, hex);
    dcbx_put(b, &n, 0, "");
    return n;
}

/* DCBX knows its neighbour by its MSAP identifier (IEEE 802.1AB-2016 6.2):
 * a shutdown LLDPDU of another agent is ignored; while a second agent is
 * heard, the administrative vector is in force; when one of them leaves or
 * ages out, the other is the partner. */
static void
test_dcbx_neighbours(void)
{
    struct pfc_dcbx_params params = {
        .enabled = true, .willing = true, .admin = 0x08, .tx_interval = 30,
    };
    static const char *p_chassis = "04020000000b01", *p_port = "0565746831";
    static const char *q_chassis = "04020000000c01", *q_port = "0565746832";
    struct eth_addr q_mac = ETH_ADDR_C(02, 00, 00, 00, 0c, 01);
    uint64_t hz = 1000, now = 0;
    struct pfc_dcbx d;
    const char *why;
    uint8_t b[256];
    size_t n;

    pfc_dcbx_init(&d, &params, now);
    n = dcbx_agent_lldpdu(b, p_chassis, p_port, 120, 0x10);
    ovs_assert(pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, now,
                           hz, &why));
    ovs_assert(d.oper == 0x10 && d.partner && !d.second);

    /* The same chassis, another port: another agent.  Its shutdown is
     * ignored and counted. */
    n = dcbx_agent_lldpdu(b, p_chassis, q_port, 0, 0x20);
    ovs_assert(!pfc_dcbx_rx(&d, &params, dcbx_mac_lo, q_mac, b, n, now, hz,
                            &why));
    ovs_assert(d.oper == 0x10 && d.partner && d.rx_shutdown_unknown == 1);

    /* A second agent: the administrative vector, until it leaves. */
    n = dcbx_agent_lldpdu(b, q_chassis, q_port, 10, 0x20);
    ovs_assert(pfc_dcbx_rx(&d, &params, dcbx_mac_lo, q_mac, b, n, now, hz,
                           &why));
    ovs_assert(d.oper == 0x08 && d.second && d.rx_second == 1);
    n = dcbx_agent_lldpdu(b, p_chassis, p_port, 120, 0x10);
    ovs_assert(!pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, now,
                            hz, &why));
    ovs_assert(d.oper == 0x08);
    n = dcbx_agent_lldpdu(b, q_chassis, q_port, 0, 0x20);
    ovs_assert(pfc_dcbx_rx(&d, &params, dcbx_mac_lo, q_mac, b, n, now, hz,
                           &why));
    ovs_assert(d.oper == 0x10 && !d.second && d.partner);

    /* Again; then the partner leaves: the second agent is the partner. */
    n = dcbx_agent_lldpdu(b, q_chassis, q_port, 10, 0x20);
    pfc_dcbx_rx(&d, &params, dcbx_mac_lo, q_mac, b, n, now, hz, &why);
    ovs_assert(d.oper == 0x08 && d.second);
    n = dcbx_agent_lldpdu(b, p_chassis, p_port, 0, 0x10);
    ovs_assert(pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, now,
                           hz, &why));
    ovs_assert(d.oper == 0x20 && d.partner && !d.second);
    ovs_assert(eth_addr_equals(d.partner_mac, q_mac));

    /* A second agent that ages out: the partner's vector again. */
    n = dcbx_agent_lldpdu(b, p_chassis, p_port, 3, 0x10);
    pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, now, hz, &why);
    ovs_assert(d.oper == 0x08 && d.second);
    ovs_assert(!pfc_dcbx_run(&d, &params, dcbx_mac_lo, 2999));
    ovs_assert(pfc_dcbx_run(&d, &params, dcbx_mac_lo, 3000));
    ovs_assert(d.oper == 0x20 && !d.second && d.ageouts == 1);

    /* The partner ages out while a second agent is heard: it becomes the
     * partner. */
    n = dcbx_agent_lldpdu(b, p_chassis, p_port, 100, 0x10);
    pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, 5000, hz, &why);
    ovs_assert(d.oper == 0x08 && d.second);
    ovs_assert(pfc_dcbx_run(&d, &params, dcbx_mac_lo, 10000));  /* q: 10 s */
    ovs_assert(d.oper == 0x10 && d.partner && !d.second);
    ovs_assert(eth_addr_equals(d.partner_mac, dcbx_mac_hi));
}

static uint8_t
dcbx_decide(const struct pfc_dcbx_params *p, struct eth_addr local,
            const struct pfc_dcbx_tlv *r, struct eth_addr partner_mac,
            enum pfc_dcbx_source *src, bool *mm)
{
    return pfc_dcbx_decide(p, local, r, partner_mac, src, mm, NULL);
}

/* The willing rules, IEEE 802.1Q-2018 clause 38. */
static void
test_dcbx_willing(void)
{
    struct pfc_dcbx_tlv r = { .willing = false, .cap = 8, .enable = 0x10 };
    struct pfc_dcbx_params p = dcbx_params(true, 0x08);
    enum pfc_dcbx_source src;
    bool mm;

    /* No partner: the administrative vector. */
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, NULL, dcbx_mac_hi, &src, &mm)
               == 0x08 && src == PFC_DCBX_ADMIN && !mm);

    /* Willing, partner not: the partner's, whatever the MACs. */
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x10 && src == PFC_DCBX_PARTNER && !mm);
    ovs_assert(dcbx_decide(&p, dcbx_mac_hi, &r, dcbx_mac_lo, &src, &mm)
               == 0x10 && src == PFC_DCBX_PARTNER && !mm);

    /* Both willing: the lower MAC adopts, the higher keeps its own. */
    r.willing = true;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x10 && src == PFC_DCBX_PARTNER && !mm);
    ovs_assert(dcbx_decide(&p, dcbx_mac_hi, &r, dcbx_mac_lo, &src, &mm)
               == 0x08 && src == PFC_DCBX_ADMIN && !mm);

    /* Not willing: its own; a willing partner adopts it, no mismatch. */
    p.willing = false;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x08 && src == PFC_DCBX_ADMIN && !mm);

    /* Neither willing: a mismatch if the vectors differ. */
    r.willing = false;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x08 && src == PFC_DCBX_ADMIN && mm);
    r.enable = 0x08;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x08 && !mm);

    /* The partner's PFC cap: more priorities in force than it has PFC
     * classes is a mismatch; cap 0 says nothing. */
    p.admin = 0x38;
    r.enable = 0x38;
    r.cap = 2;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x38 && mm);
    r.cap = 3;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x38 && !mm);
    r.cap = 0;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x38 && !mm);

    /* A willing port does not adopt a vector whose headroom does not fit
     * in the buffer: it keeps its own, a mismatch with the reason. */
    const char *why = "unset";

    p.willing = true;
    p.admin = 0x08;
    p.limit_known = true;
    p.max_lossless = 2;
    r.enable = 0xff;
    ovs_assert(pfc_dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm,
                               &why) == 0x08);
    ovs_assert(src == PFC_DCBX_ADMIN && mm && why
               && strstr(why, "does not fit"));
    r.enable = 0x18;
    ovs_assert(pfc_dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm,
                               &why) == 0x18);
    ovs_assert(src == PFC_DCBX_PARTNER && !mm && !why);
    p.max_lossless = 0;
    p.limit_known = false;
    r.enable = 0xff;
    ovs_assert(pfc_dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm,
                               &why) == 0xff && !why);
}

/* The DCBX keys of QoS type pfc: defaults, values, errors that name the key
 * and its range, the round trip through pfc_config_to_smap(), and what
 * pfc_config_equal() compares (the administrative vector, not the
 * operational one). */
static void
test_dcbx_config(void)
{
    struct pfc_config cfg, cfg2;
    struct smap s;
    char *err;

    PARSE(&cfg, 0, NULL, "pfc-enable", "3");
    ovs_assert(!cfg.dcbx && cfg.dcbx_willing && cfg.lldp_tx_interval == 30);
    ovs_assert(cfg.admin == 0x08 && cfg.enabled == 0x08);
    PARSE(&cfg, 0, NULL, "pfc-enable", "3", "dcbx", "ieee",
          "dcbx-willing", "false", "lldp-tx-interval", "1");
    ovs_assert(cfg.dcbx && !cfg.dcbx_willing && cfg.lldp_tx_interval == 1);
    PARSE(&cfg, 0, NULL, "dcbx", "off", "lldp-tx-interval", "3600");
    ovs_assert(!cfg.dcbx && cfg.lldp_tx_interval == 3600);

    PARSE(&cfg, EINVAL, "other_config:dcbx=\"cee\" is invalid: must be "
          "\"off\" or \"ieee\"", "dcbx", "cee");
    PARSE(&cfg, EINVAL, "other_config:dcbx-willing=\"yes\" is invalid: "
          "must be \"true\" or \"false\"", "dcbx-willing", "yes");
    PARSE(&cfg, EINVAL, "other_config:lldp-tx-interval=\"0\" is invalid: "
          "must be an integer from 1 to 3600 seconds",
          "lldp-tx-interval", "0");
    PARSE(&cfg, EINVAL, "other_config:lldp-tx-interval=\"3601\" is "
          "invalid", "lldp-tx-interval", "3601");

    /* Round trip; the DCBX keys appear only with dcbx=ieee. */
    PARSE(&cfg, 0, NULL, "pfc-enable", "3,4", "dcbx", "ieee",
          "lldp-tx-interval", "10");
    smap_init(&s);
    pfc_config_to_smap(&cfg, &s);
    ovs_assert(!strcmp(smap_get(&s, "dcbx"), "ieee"));
    ovs_assert(!strcmp(smap_get(&s, "dcbx-willing"), "true"));
    ovs_assert(!strcmp(smap_get(&s, "lldp-tx-interval"), "10"));
    ovs_assert(!pfc_config_parse(&s, &cfg2, &err));
    ovs_assert(pfc_config_equal(&cfg, &cfg2));
    smap_destroy(&s);
    PARSE(&cfg, 0, NULL, "pfc-enable", "3,4");
    smap_init(&s);
    pfc_config_to_smap(&cfg, &s);
    ovs_assert(!smap_get(&s, "dcbx") && !smap_get(&s, "lldp-tx-interval"));
    smap_destroy(&s);

    /* An adopted vector: the smap and equality keep to pfc-enable. */
    PARSE(&cfg, 0, NULL, "pfc-enable", "3", "dcbx", "ieee");
    cfg2 = cfg;
    cfg.enabled = 0x10;
    ovs_assert(pfc_config_equal(&cfg, &cfg2));
    smap_init(&s);
    pfc_config_to_smap(&cfg, &s);
    ovs_assert(!strcmp(smap_get(&s, "pfc-enable"), "3"));
    smap_destroy(&s);
    cfg2.dcbx_willing = false;
    ovs_assert(!pfc_config_equal(&cfg, &cfg2));
}

#define DCBX_HZ 1000ULL             /* Ticks of 1 ms. */

/* The state machine: adopt, fall back when the TTL runs out or at a
 * shutdown LLDPDU, malformed LLDPDUs change nothing, mismatches counted
 * once each; the transmit timer. */
static void
test_dcbx_state(void)
{
    struct pfc_dcbx_params p = dcbx_params(true, 0x08);
    struct pfc_dcbx d;
    const char *why;
    uint8_t b[300];
    uint64_t t;
    size_t n;

    pfc_dcbx_init(&d, &p, 1000);
    ovs_assert(d.oper == 0x08 && !d.partner && pfc_dcbx_tx_due(&d, 1000));
    ovs_assert(pfc_dcbx_ttl(&p) == 121);

    /* A partner, not willing, with priority 4, TTL 120 s: adopted. */
    n = dcbx_lldpdu(b, 120, "127:0080c20b0810");
    ovs_assert(pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, 2000,
                           DCBX_HZ, &why));
    ovs_assert(d.oper == 0x10 && d.source == PFC_DCBX_PARTNER && d.partner);
    ovs_assert(d.rx_lldpdus == 1 && d.rx_tlvs == 4 && d.rx_pfc_tlvs == 1);
    ovs_assert(d.expiry == 2000 + 120 * DCBX_HZ);

    /* The same again: no change. */
    ovs_assert(!pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, 3000,
                            DCBX_HZ, &why));

    /* Malformed ones change nothing and are counted. */
    n = dcbx_lldpdu(b, 120, "127:0080c20b0801 127:0080c20b0801");
    ovs_assert(!pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, 4000,
                            DCBX_HZ, &why));
    ovs_assert(why && d.rx_errors == 1 && d.oper == 0x10);
    ovs_assert(d.expiry == 3000 + 120 * DCBX_HZ);

    /* The TTL runs out: back to the administrative vector. */
    t = 3000 + 120 * DCBX_HZ;
    ovs_assert(!pfc_dcbx_run(&d, &p, dcbx_mac_lo, t - 1));
    ovs_assert(pfc_dcbx_run(&d, &p, dcbx_mac_lo, t));
    ovs_assert(d.oper == 0x08 && !d.partner && d.ageouts == 1);
    ovs_assert(!pfc_dcbx_run(&d, &p, dcbx_mac_lo, t + 1));

    /* A shutdown LLDPDU (TTL 0) removes the partner at once. */
    n = dcbx_lldpdu(b, 120, "127:0080c20b0810");
    ovs_assert(pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, t,
                           DCBX_HZ, &why));
    n = dcbx_lldpdu(b, 0, NULL);
    ovs_assert(pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, t + 1,
                           DCBX_HZ, &why));
    ovs_assert(d.oper == 0x08 && !d.partner);

    /* A partner without a PFC TLV: nothing to adopt. */
    n = dcbx_lldpdu(b, 120, NULL);
    ovs_assert(!pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, t + 2,
                            DCBX_HZ, &why));
    ovs_assert(d.partner && d.oper == 0x08);

    /* Not willing and different: one mismatch, counted once; it ends when
     * the partner agrees, and a new one is counted again. */
    p.willing = false;
    ovs_assert(!pfc_dcbx_reconfigure(&d, &p, dcbx_mac_lo, t + 3));
    n = dcbx_lldpdu(b, 120, "127:0080c20b0810");
    for (int i = 0; i < 3; i++) {
        ovs_assert(!pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n,
                                t + 4 + i, DCBX_HZ, &why));
        ovs_assert(d.mismatch && d.mismatches == 1 && d.oper == 0x08);
    }
    n = dcbx_lldpdu(b, 120, "127:0080c20b0808");
    pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, t + 10, DCBX_HZ,
                &why);
    ovs_assert(!d.mismatch && d.mismatches == 1);
    n = dcbx_lldpdu(b, 120, "127:0080c20b0810");
    pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, t + 11, DCBX_HZ,
                &why);
    ovs_assert(d.mismatch && d.mismatches == 2);

    /* Willing again: adopted at once. */
    p.willing = true;
    ovs_assert(pfc_dcbx_reconfigure(&d, &p, dcbx_mac_lo, t + 12));
    ovs_assert(d.oper == 0x10 && !d.mismatch);

    /* Transmit timer: a fast start of 4 LLDPDUs 1 s apart, then every
     * msgTxInterval; a reconfiguration starts a fast start again. */
    pfc_dcbx_init(&d, &p, 0);
    t = 0;
    for (int i = 0; i < PFC_LLDP_FAST_INIT; i++) {
        ovs_assert(pfc_dcbx_tx_due(&d, t));
        pfc_dcbx_tx_done(&d, &p, t, DCBX_HZ);
        ovs_assert(!pfc_dcbx_tx_due(&d, t + 999));
        t += 1000;
    }
    ovs_assert(pfc_dcbx_tx_due(&d, t));
    pfc_dcbx_tx_done(&d, &p, t, DCBX_HZ);
    ovs_assert(!pfc_dcbx_tx_due(&d, t + 29999) && pfc_dcbx_tx_due(&d, t
                                                                 + 30000));
    ovs_assert(d.tx_lldpdus == PFC_LLDP_FAST_INIT + 1);
    pfc_dcbx_reconfigure(&d, &p, dcbx_mac_lo, t + 5);
    ovs_assert(pfc_dcbx_tx_due(&d, t + 5) && d.fast_left == 4);

    /* TTL: msgTxInterval x 4 + 1, at most 65535. */
    p.tx_interval = 1;
    ovs_assert(pfc_dcbx_ttl(&p) == 5);
    p.tx_interval = PFC_LLDP_TX_INTERVAL_MAX;
    ovs_assert(pfc_dcbx_ttl(&p) == 14401);
}

static const struct {
    const char *name;
    void (*f)(void);
} tests[] = {
    { "decode", test_decode },
    { "encode", test_encode },
    { "priority", test_priority },
    { "timebase", test_timebase },
    { "pause", test_pause },
    { "tcs-blocked", test_tcs_blocked },
    { "ring", test_ring },
    { "rxq-drain", test_rxq_drain },
    { "holdq", test_holdq },
    { "holdq-remap", test_holdq_remap },
    { "holdq-merge", test_holdq_merge },
    { "config", test_config },
    { "counters", test_counters },
    { "paused-prios", test_paused_prios },
    { "tx-filter", test_tx_filter },
    { "receive", test_receive },
    { "mac-control", test_mac_control },
    { "mcq", test_mcq },
    { "holdq-append", test_holdq_append },
    { "holdq-swap", test_holdq_swap },
    { "wd-detect", test_wd_detect },
    { "wd-no-false-alarm", test_wd_no_false_alarm },
    { "wd-restore", test_wd_restore },
    { "wd-xon-storm", test_wd_xon_storm },
    { "wd-off", test_wd_off },
    { "wd-config", test_wd_config },
    { "wd-guest", test_wd_guest },
    { "wd-txq", test_wd_txq },
    { "dcbx-codec", test_dcbx_codec },
    { "dcbx-ets", test_dcbx_ets },
    { "dcbx-app", test_dcbx_app },
    { "dcbx-neighbours", test_dcbx_neighbours },
    { "dcbx-willing", test_dcbx_willing },
    { "dcbx-state", test_dcbx_state },
    { "dcbx-config", test_dcbx_config },
};

/* "ovstest test-pfc [NAME...]" runs the named tests, or all of them. */
static void
test_pfc_main(int argc, char *argv[])
{
    int ran = 0;

    for (size_t i = 0; i < ARRAY_SIZE(tests); i++) {
        bool want = argc < 2;

        for (int j = 1; j < argc; j++) {
            want = want || !strcmp(argv[j], tests[i].name);
        }
        if (want) {
            tests[i].f();
            printf("%s: ok\n", tests[i].name);
            ran++;
        }
    }
    if (!ran) {
        ovs_fatal(0, "no such test");
    }
}

OVSTEST_REGISTER("test-pfc", test_pfc_main);
