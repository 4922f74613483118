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

#include <config.h>
#include "pfc.h"

#include <errno.h>
#include <string.h>

#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "pfc-headroom.h"
#include "util.h"

const struct eth_addr pfc_mac_control_dst = ETH_ADDR_C(01, 80, c2, 00, 00, 01);

static uint16_t
get_be16(const uint8_t *p)
{
    return (p[0] << 8) | p[1];
}

static void
put_be16(uint8_t *p, uint16_t x)
{
    p[0] = x >> 8;
    p[1] = x;
}

/* Classifies the received frame of 'len' octets at 'data' (starting at the
 * destination address, without FCS) and, for a valid PFC frame, stores its
 * request_operand in '*frame'.
 *
 * Receive rules (802.3 Annex 31D, seed 000 3 and 4.2):
 *   - At least PFC_FRAME_MIN_LEN octets are needed; padding is not required
 *     and its content is ignored.
 *   - The reserved high octet of the priority_enable_vector is ignored, and
 *     so is time[n] wherever e[n] = 0 (frame->time[n] is then 0).
 *   - Any source address is accepted.
 *   - MAC Control frames are never tagged (seed 000 3.1): one carried behind
 *     an 802.1Q or 802.1ad tag is PFC_RX_INVALID, so that it is counted and
 *     dropped rather than forwarded.
 *   - A PFC opcode with a DA other than 01-80-C2-00-00-01 is invalid.
 *     802.3x PAUSE and other opcodes are reported whatever their DA, since
 *     they are never acted on. */
enum pfc_rx_kind
pfc_frame_decode(const void *data_, size_t len, struct pfc_frame *frame)
{
    const uint8_t *data = data_;
    uint16_t type, opcode;

    if (len < ETH_HEADER_LEN) {
        return PFC_RX_NOT_MAC_CONTROL;
    }
    type = get_be16(data + 12);
    if (type == ETH_TYPE_VLAN_8021Q || type == ETH_TYPE_VLAN_8021AD) {
        return (len >= ETH_HEADER_LEN + VLAN_HEADER_LEN
                && get_be16(data + 16) == PFC_ETH_TYPE_MAC_CONTROL
                ? PFC_RX_INVALID : PFC_RX_NOT_MAC_CONTROL);
    }
    if (type != PFC_ETH_TYPE_MAC_CONTROL) {
        return PFC_RX_NOT_MAC_CONTROL;
    }
    if (len < ETH_HEADER_LEN + 2) {
        return PFC_RX_INVALID;
    }

    opcode = get_be16(data + 14);
    if (opcode == PFC_OPCODE_PAUSE) {
        return PFC_RX_PAUSE;
    } else if (opcode != PFC_OPCODE_PFC) {
        return PFC_RX_UNSUPPORTED;
    }
    if (len < PFC_FRAME_MIN_LEN
        || memcmp(data, pfc_mac_control_dst.ea, ETH_ADDR_LEN)) {
        return PFC_RX_INVALID;
    }

    /* data[16] is the reserved high octet of the enable vector. */
    frame->enable = data[17];
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        frame->time[n] = (frame->enable & (1u << n)
                          ? get_be16(data + 18 + 2 * n) : 0);
    }
    return PFC_RX_PFC;
}

/* Writes a PFC frame from source address 'src' carrying 'frame' into 'buf',
 * which must have room for PFC_FRAME_LEN octets, and returns PFC_FRAME_LEN.
 * The reserved octet, time[n] for e[n] = 0 and the padding are zero (802.3
 * Annex 31D: reserved fields are transmitted as zero). */
size_t
pfc_frame_encode(void *buf_, const struct eth_addr *src,
                 const struct pfc_frame *frame)
{
    uint8_t *buf = buf_;

    memset(buf, 0, PFC_FRAME_LEN);
    memcpy(buf, pfc_mac_control_dst.ea, ETH_ADDR_LEN);
    memcpy(buf + 6, src->ea, ETH_ADDR_LEN);
    put_be16(buf + 12, PFC_ETH_TYPE_MAC_CONTROL);
    put_be16(buf + 14, PFC_OPCODE_PFC);
    buf[17] = frame->enable;
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if (frame->enable & (1u << n)) {
            put_be16(buf + 18 + 2 * n, frame->time[n]);
        }
    }
    return PFC_FRAME_LEN;
}

/* Returns the duration of 'quanta' pause quanta (512 bit times each at
 * tb->link_speed) in ticks of a tb->hz clock, rounded up so that a pause is
 * never honoured for less than was asked.  'quanta' may be up to UINT32_MAX;
 * the result saturates at UINT64_MAX. */
uint64_t
pfc_quanta_to_ticks(const struct pfc_timebase *tb, uint32_t quanta)
{
    unsigned __int128 bits = (unsigned __int128) quanta * PFC_QUANTUM_BITS;
    unsigned __int128 t = (bits * tb->hz + tb->link_speed - 1)
                          / tb->link_speed;

    return t > UINT64_MAX ? UINT64_MAX : (uint64_t) t;
}

/* Returns 'ticks' of the tb->hz clock in nanoseconds, rounded down. */
uint64_t
pfc_ticks_to_ns(const struct pfc_timebase *tb, uint64_t ticks)
{
    return (unsigned __int128) ticks * 1000000000 / tb->hz;
}

/* Returns the length of one pause quantum in picoseconds (51,200 ps at
 * 10 Gb/s). */
uint64_t
pfc_quantum_ps(const struct pfc_timebase *tb)
{
    return (unsigned __int128) PFC_QUANTUM_BITS * 1000000000000ULL
           / tb->link_speed;
}

void
pfc_pause_init(struct pfc_pause *p)
{
    memset(p, 0, sizeof *p);
}

static void
pfc_pause_close(struct pfc_pause *p, int n, uint64_t end)
{
    if (p->open & (1u << n)) {
        p->paused_ticks[n] += end > p->since[n] ? end - p->since[n] : 0;
        p->open &= ~(1u << n);
    }
}

/* Applies the valid PFC frame 'frame', received at tick 'now', to the pause
 * timers (seed 000 4.4): for each e[n] = 1, timer n is set to time[n] quanta
 * from 'now', and a time of 0 (XON) ends the pause of priority n at once.
 * Timers with e[n] = 0 are untouched.
 *
 * 'earliest' (<= now) is the earliest tick at which the frame may have
 * arrived: a software port reads its rx ring only when polled, so a frame
 * read at 'now' may have arrived as early as the previous poll.  A pause whose
 * timer ran out after 'earliest' is treated as still running, so that a
 * refresh read late does not count a new pause.  An XON sets timer n to
 * 'earliest': under pfc_pause_holds(), the priority is then released as soon
 * as every rx queue of the port has been polled since the XON may have
 * arrived, which its own queue was when it read it.  Any frame that arrived
 * before the XON is superseded by it, and one that arrived after it pauses
 * the priority again when it is read, as any XOFF does.  Pass 'now' when the
 * arrival time is exact.
 *
 * Returns the priorities that went from not_paused to paused, for the
 * aCBFCPAUSETransitions_n counters (seed 002 4.5).  A frame that re-arms a
 * running timer is no transition. */
uint8_t
pfc_pause_receive(struct pfc_pause *p, const struct pfc_frame *frame,
                  const struct pfc_timebase *tb, uint64_t now,
                  uint64_t earliest)
{
    uint8_t transitions = 0;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint8_t bit = 1u << n;

        if (!(frame->enable & bit)) {
            continue;
        }
        if (MIN(earliest, now) >= p->until[n]) {
            /* A pause that ran out by itself ended at until[n]. */
            pfc_pause_close(p, n, p->until[n]);
        }
        if (frame->time[n]) {
            p->xon &= ~bit;
            if (!(p->open & bit)) {
                p->open |= bit;
                p->since[n] = now;
                transitions |= bit;
            }
            p->until[n] = now + pfc_quanta_to_ticks(tb, frame->time[n]);
        } else {
            pfc_pause_close(p, n, now);
            p->until[n] = MIN(earliest, now);
            p->xon |= bit;
        }
    }
    return transitions;
}

/* Acts on the valid PFC frame 'frame', received at tick 'now' on a port whose
 * PFC-enabled priorities (pfc-enable) are 'enabled', and counts it in 'c'.
 * Only priorities in 'enabled' are paused or resumed (pfc_pause_receive()
 * with 'earliest'), as NICs and switch ASICs do: PFC operates only on the
 * priorities for which it is enabled (IEEE 802.1Q-2018 clause 36), and
 * 802.3 Annex 31D leaves to the MAC Control client which priorities honour
 * the request.  A partner may not pause lossy traffic.  The frame counts in
 * rx_frames[n] for every e[n] = 1, and in rx_ignored[n] where n is not
 * enabled.  Returns the priorities that went from not_paused to paused. */
uint8_t
pfc_receive(struct pfc_pause *p, struct pfc_counters *c,
            const struct pfc_frame *frame, uint8_t enabled,
            const struct pfc_timebase *tb, uint64_t now, uint64_t earliest)
{
    struct pfc_frame honoured = *frame;
    uint8_t transitions;

    honoured.enable &= enabled;
    transitions = pfc_pause_receive(p, &honoured, tb, now, earliest);
    pfc_counters_count_rx(c, frame, transitions);
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if (frame->enable & ~enabled & (1u << n)) {
            c->rx_ignored[n]++;
        }
    }
    return transitions;
}

/* Returns the status vector at tick 'now' (seed 000 4.5): bit n is set if
 * priority n is paused. */
uint8_t
pfc_pause_status(const struct pfc_pause *p, uint64_t now)
{
    uint8_t paused = 0;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if (now < p->until[n]) {
            paused |= 1u << n;
        }
    }
    return paused;
}

/* Returns the ticks left until priority 'prio' resumes, 0 if not paused. */
uint64_t
pfc_pause_remaining(const struct pfc_pause *p, int prio, uint64_t now)
{
    return now < p->until[prio] ? p->until[prio] - now : 0;
}

/* Returns the ticks priority 'prio' has spent paused, up to 'now'. */
uint64_t
pfc_pause_total(const struct pfc_pause *p, int prio, uint64_t now)
{
    uint64_t total = p->paused_ticks[prio];

    if (p->open & (1u << prio)) {
        uint64_t end = MIN(now, p->until[prio]);

        total += end > p->since[prio] ? end - p->since[prio] : 0;
    }
    return total;
}

/* Returns the traffic classes that may not send, given the 'paused' status
 * vector: a class shared by several priorities is sendable only when none of
 * them is paused (seed 000 6). */
uint8_t
pfc_tcs_blocked(const uint8_t prio_to_tc[PFC_N_PRIOS], uint8_t paused)
{
    uint8_t blocked = 0;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if (paused & (1u << n)) {
            blocked |= 1u << prio_to_tc[n];
        }
    }
    return blocked;
}

/* Returns the priorities among 'enabled' that are paused at 'now', by
 * pfc_pause_holds() applied to the pause of each priority n, which ends at
 * until[n] (TSC cycles, 0 if it never began), with the rx poll stamp
 * 'polled' and the cap 'cap' (cycles) of that function.  Priorities not in
 * 'enabled' are never paused: a pause set before pfc-enable changed no longer
 * applies (seed 000 4.4 acts on enabled priorities only).
 *
 * Sets '*valid_until' to the TSC until which the answer stays right if no PFC
 * frame is read meanwhile: the first end of a running pause, 0 if a pause
 * that expired still waits for a poll (the answer may change at any moment),
 * or UINT64_MAX if none is paused. */
uint8_t
pfc_paused_prios(const uint64_t until[PFC_N_PRIOS], uint8_t enabled,
                 uint64_t now, uint64_t polled, uint64_t cap,
                 uint64_t *valid_until)
{
    uint64_t valid = UINT64_MAX;
    uint8_t paused = 0;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if (enabled & (1u << n)
            && pfc_pause_holds(until[n], now, polled, cap)) {
            paused |= 1u << n;
            valid = MIN(valid, now < until[n] ? until[n] : 0);
        }
    }
    *valid_until = valid;
    return paused;
}

/* Accounts for a poll of an rx queue of 'ring' descriptors that began at tick
 * 'start' (nonzero) and read 'n' frames, and 'emptied' the ring or not.
 * Returns the poll stamp the queue may publish (struct pfc_rxq_drain), or 0
 * if none. */
uint64_t
pfc_rxq_drain_poll(struct pfc_rxq_drain *d, uint64_t start, uint32_t n,
                   bool emptied, uint32_t ring)
{
    uint64_t stamp;

    if (emptied) {
        d->since = 0;
        d->read = 0;
        return start;
    }
    if (!d->since) {
        d->since = start;
        d->read = 0;
    }
    d->read += n;
    if (d->read < MAX(ring, 1)) {
        return 0;
    }
    stamp = d->since;
    d->since = 0;
    d->read = 0;
    return stamp;
}

/* Returns the ticks a link takes to fill an rx ring of 'ring' descriptors
 * with minimum-size frames (64 octets plus 20 of preamble and inter-frame
 * gap): how late a pause may end under a flood that the PMD thread keeps up
 * with (struct pfc_rxq_drain). */
uint64_t
pfc_rxq_drain_ticks(const struct pfc_timebase *tb, uint32_t ring)
{
    uint64_t bits = (uint64_t) ring * (64 + 20) * 8;

    return (uint64_t) ((double) bits * tb->hz / tb->link_speed) + 1;
}

void
pfc_xoff_init(struct pfc_xoff *x)
{
    memset(x, 0, sizeof *x);
}

/* Counts the received valid PFC frame 'frame', which caused 'transitions'
 * (from pfc_pause_receive()). */
void
pfc_counters_count_rx(struct pfc_counters *c, const struct pfc_frame *frame,
                      uint8_t transitions)
{
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if (frame->enable & (1u << n)) {
            c->rx_frames[n]++;
        }
        if (transitions & (1u << n)) {
            c->transitions[n]++;
        }
    }
}

/* Counts the sent PFC frame 'frame'. */
void
pfc_counters_count_tx(struct pfc_counters *c, const struct pfc_frame *frame)
{
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if (frame->enable & (1u << n)) {
            c->tx_frames[n]++;
        }
    }
}
