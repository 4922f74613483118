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
 * from 'now', and a time of 0 ends the pause of priority n at once.  Timers
 * with e[n] = 0 are untouched.
 *
 * 'earliest' (<= now) is the earliest tick at which the frame may have
 * arrived: a software port reads its rx ring only when polled, so a frame
 * read at 'now' may have arrived as early as the previous poll.  A pause whose
 * timer ran out after 'earliest' is treated as still running, so that a
 * refresh read late does not count a new pause.  Pass 'now' when the arrival
 * time is exact.
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
            if (!(p->open & bit)) {
                p->open |= bit;
                p->since[n] = now;
                transitions |= bit;
            }
            p->until[n] = now + pfc_quanta_to_ticks(tb, frame->time[n]);
        } else {
            pfc_pause_close(p, n, now);
            p->until[n] = now;
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

/* Returns the priorities that 'prio_to_tc' maps to the traffic classes in
 * 'tcs' (one bit per class): the inverse of pfc_tcs_blocked(). */
uint8_t
pfc_tcs_prios(const uint8_t prio_to_tc[PFC_N_PRIOS], uint8_t tcs)
{
    uint8_t prios = 0;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        prios |= ((tcs >> prio_to_tc[n]) & 1u) << n;
    }
    return prios;
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

/* Initializes 'q' as an empty queue that accepts 'limit' packets (>= 1). */
void
pfc_holdq_init(struct pfc_holdq *q, uint32_t limit)
{
    q->ring = xmalloc(limit * sizeof *q->ring);
    q->cap = q->limit = limit;
    q->head = 0;
    q->n = 0;
    q->n_lossy = 0;
}

/* Makes room in the ring of 'q' for at least 'n' packets, keeping those it
 * holds in order.  Allocates: the caller must not hold a lock that a PMD
 * thread may need.  Does not change the limit of pfc_holdq_push(). */
void
pfc_holdq_reserve(struct pfc_holdq *q, uint32_t n)
{
    struct pfc_held *ring;

    if (n <= q->cap) {
        return;
    }
    ring = xmalloc(n * sizeof *ring);
    for (uint32_t i = 0; i < q->n; i++) {
        ring[i] = *pfc_holdq_peek(q, i);
    }
    free(q->ring);
    q->ring = ring;
    q->cap = n;
    q->head = 0;
}

/* Moves the packets that 'q' holds, in order, into '*ring', a ring of 'cap'
 * slots that the caller allocated (cap >= q->n), which 'q' uses from now
 * on, and returns its old ring in '*ring' for the caller to free.  For a
 * caller that must not allocate: the copy is all it does.  Does not change
 * the limit of pfc_holdq_push(). */
void
pfc_holdq_swap_ring(struct pfc_holdq *q, struct pfc_held **ring, uint32_t cap)
{
    struct pfc_held *old = q->ring;

    ovs_assert(cap >= q->n);
    for (uint32_t i = 0; i < q->n; i++) {
        (*ring)[i] = *pfc_holdq_peek(q, i);
    }
    q->ring = *ring;
    q->cap = cap;
    q->head = 0;
    *ring = old;
}

/* Appends 'h' at the tail of 'q', past its limit if need be, as long as its
 * ring has room (pfc_holdq_reserve()).  For packets that a reconfiguration
 * moves, which must not be lost.  Returns false if the ring is full. */
bool
pfc_holdq_append(struct pfc_holdq *q, const struct pfc_held *h)
{
    uint32_t tail;

    if (q->n >= q->cap) {
        return false;
    }
    tail = q->head + q->n;
    if (tail >= q->cap) {
        tail -= q->cap;
    }
    q->ring[tail] = *h;
    q->n++;
    q->n_lossy += h->lossy;
    return true;
}

/* Frees the queue's memory, not the packets it holds: the caller must have
 * popped them. */
void
pfc_holdq_destroy(struct pfc_holdq *q)
{
    free(q->ring);
    q->ring = NULL;
}

/* Appends 'h' at the tail of 'q'.  Returns false, holding nothing, if 'q' is
 * full. */
bool
pfc_holdq_push(struct pfc_holdq *q, const struct pfc_held *h)
{
    return q->n < q->limit && pfc_holdq_append(q, h);
}

/* Returns the 'i'th oldest packet in 'q', where i < q->n. */
const struct pfc_held *
pfc_holdq_peek(const struct pfc_holdq *q, uint32_t i)
{
    uint32_t idx = q->head + i;

    ovs_assert(i < q->n);
    return &q->ring[idx >= q->cap ? idx - q->cap : idx];
}

/* Removes the 'n' oldest packets (n <= q->n) from 'q'. */
void
pfc_holdq_pop(struct pfc_holdq *q, uint32_t n)
{
    ovs_assert(n <= q->n);
    if (q->n_lossy) {
        for (uint32_t i = 0; i < n; i++) {
            q->n_lossy -= pfc_holdq_peek(q, i)->lossy;
        }
    }
    q->head += n;
    if (q->head >= q->cap) {
        q->head -= q->cap;
    }
    q->n -= n;
}

/* After a change of the priority to traffic class map 'prio_to_tc', moves
 * the packets held in the class queues 'q' whose priority now maps to
 * another class to the tail of that class's queue.  A priority's packets so
 * stay in order (a bridge must not reorder the frames of one priority
 * between a source and a destination, IEEE 802.1Q): those held before the
 * change leave before those held after it, which the new queue gets.  All
 * held packets of a priority are in the queue of the class it mapped to
 * before (each change calls this), and they move together, in order.
 * Packets that stay keep their place.  A packet that does not fit in its new
 * queue is stored in 'dropped', for the caller to free and count.  'moved'
 * (scratch) and 'dropped' must each have room for every held packet
 * (pfc_holdq_room()), so that this allocates nothing: the caller may hold a
 * lock that transmit threads wait for.  Returns how many were dropped. */
size_t
pfc_holdq_remap(struct pfc_holdq q[PFC_N_PRIOS],
                const uint8_t prio_to_tc[PFC_N_PRIOS],
                struct pfc_held *moved, struct pfc_held *dropped)
{
    size_t n_moved = 0, n_dropped = 0;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        /* Rotate the queue once: packets that stay go back to its tail. */
        for (uint32_t i = 0, n = q[tc].n; i < n; i++) {
            struct pfc_held h = *pfc_holdq_peek(&q[tc], 0);

            pfc_holdq_pop(&q[tc], 1);
            if (prio_to_tc[h.prio] == tc) {
                pfc_holdq_append(&q[tc], &h);
            } else {
                moved[n_moved++] = h;
            }
        }
    }
    for (size_t i = 0; i < n_moved; i++) {
        if (!pfc_holdq_push(&q[prio_to_tc[moved[i].prio]], &moved[i])) {
            dropped[n_dropped++] = moved[i];
        }
    }
    return n_dropped;
}

/* Moves the packets that the class queues 'src' hold to the head of the
 * queue of the same class in 'dst', ahead of the packets there, keeping
 * their order: for a transmit path that moves from one queue to another
 * (a guest that disables a queue pair), the packets a flow left in 'src'
 * are older than those it has since queued in 'dst', and leave first.  A
 * packet moves if the ring of its new queue has a slot (past its limit if
 * need be, as pfc_holdq_append()); those that find none, the oldest of
 * their class, stay in 'src' for the caller to free and count.  Moves no
 * charge: the caller keeps the packets' buffer occupancy.  Allocates
 * nothing.  Returns how many packets moved. */
size_t
pfc_holdq_merge(struct pfc_holdq dst[PFC_N_PRIOS],
                struct pfc_holdq src[PFC_N_PRIOS])
{
    size_t n_moved = 0;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        struct pfc_holdq *d = &dst[tc], *s = &src[tc];
        uint32_t fit = MIN(d->cap - d->n, s->n);

        /* Newest first, each in front of the one placed before it. */
        for (uint32_t i = 0; i < fit; i++) {
            const struct pfc_held *h = pfc_holdq_peek(s, s->n - 1);

            d->head = d->head ? d->head - 1 : d->cap - 1;
            d->ring[d->head] = *h;
            d->n++;
            d->n_lossy += h->lossy;
            s->n_lossy -= h->lossy;
            s->n--;
        }
        n_moved += fit;
    }
    return n_moved;
}

/* Returns how many packets the class queues 'q' can hold at most (the sum
 * of their ring sizes): room enough for pfc_holdq_remap(). */
size_t
pfc_holdq_room(const struct pfc_holdq q[PFC_N_PRIOS])
{
    size_t room = 0;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        room += q[tc].cap;
    }
    return room;
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

/* Returns 'ms' milliseconds in ticks of a clock of 'hz' ticks per second
 * (> 0), rounded up so that no watchdog time is ever cut short, saturating
 * at UINT64_MAX. */
uint64_t
pfc_ms_to_ticks(uint64_t hz, uint32_t ms)
{
    unsigned __int128 t = ((unsigned __int128) hz * ms + 999) / 1000;

    return t > UINT64_MAX ? UINT64_MAX : (uint64_t) t;
}

/* Sets '*params' from the watchdog keys of 'cfg' (milliseconds) for a clock
 * of 'hz' ticks per second, the TSC frequency in the DPDK datapath.  The
 * priorities watched are those of pfc-enable. */
void
pfc_wd_params_init(struct pfc_wd_params *params, const struct pfc_config *cfg,
                   uint64_t hz)
{
    params->enabled = cfg->enabled;
    params->detect_ticks = pfc_ms_to_ticks(hz, cfg->wd_detect_ms);
    params->restore_ticks = pfc_ms_to_ticks(hz, cfg->wd_restore_ms);
    params->action = cfg->wd_action;
    params->guest = false;
}

/* For the watchdog of a port without a MAC: returns true if one receive
 * queue of its guest was stalled over the check interval that ends now: it
 * refused packets ('refused', the count of transmit attempts it refused in
 * part or whole, grew since the last check), and either took none ('taken',
 * the count of packets it took, did not grow) or has not yet taken, since
 * the check that began the current drain window, as many packets as were
 * waiting for it then.  'waiting' is the packets waiting for it now.
 *
 * The drain window is what "packets waiting, nothing sent" means for a
 * guest that reads a trickle: it takes some at times, never what waits.  A
 * guest that keeps up, however slowly, takes the backlog of each window
 * within a few checks; the check at which it did is not stalled, which ends
 * any detection interval, and begins the next window.  A queue that was not
 * offered anything is not stalled.  Updates '*seen'. */
bool
pfc_wd_vq_stalled(struct pfc_wd_vq *seen, uint64_t refused, uint64_t taken,
                  uint64_t waiting)
{
    bool refusing = refused != seen->refused;
    bool drained = taken - seen->base >= seen->backlog;
    bool stalled = refusing && (taken == seen->taken || !drained);

    if (drained) {
        seen->backlog = waiting;
        seen->base = taken;
    }
    seen->refused = refused;
    seen->taken = taken;
    return stalled;
}

/* For the watchdog of a port with a MAC: returns the traffic classes of one
 * of its tx queues that stalled over the check interval that ends now
 * ("packets waiting, nothing sent", as SONiC's pfcwd judges a queue): each
 * held packets at the last check and holds some now ('waiting', one bit per
 * class), sent none of them in between ('left[tc]', the count of held
 * packets of class tc that left for the tx ring, did not grow), and either
 * may not send now ('blocked', as the transmit path decides it, pauses
 * extended by the pause-end rule included) or the tx queue sent no held
 * packet of any class in between (the egress does not drain).  A class that
 * only waits behind other classes of an egress that drains is not stalled:
 * that is congestion.  The caller passes the priorities of the stalled
 * classes to pfc_wd_run() with those its pause timers pause.  Updates
 * '*seen'. */
uint8_t
pfc_wd_txq_stalled(struct pfc_wd_txq *seen, const uint64_t left[PFC_N_PRIOS],
                   uint8_t waiting, uint8_t blocked)
{
    uint8_t idle = 0, stalled;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        idle |= (left[tc] == seen->left[tc]) << tc;
        seen->left[tc] = left[tc];
    }
    stalled = waiting & seen->waiting & idle;
    if (idle != 0xff) {
        /* Held packets left: the egress drains. */
        stalled &= blocked;
    }
    seen->waiting = waiting;
    return stalled;
}

/* Tells the watchdog 'wd' of a port without a MAC, whose pfc-enable is
 * 'enabled', that its guest stalled the priorities 'prios' over the check
 * interval that ends at tick 'now' (pfc_wd_vq_stalled()): for each of them
 * in 'enabled', as a PFC frame with time[n] > 0 would (pfc_wd_frame()), the
 * stall holds restoration back for watchdog-restoration-time.  Pass the
 * same 'prios' as 'paused' to pfc_wd_run() for the same check. */
void
pfc_wd_stall(struct pfc_wd *wd, uint8_t prios, uint8_t enabled, uint64_t now)
{
    for (uint8_t p = prios & enabled; p; p &= p - 1) {
        wd->last_xoff[raw_ctz(p)] = now;
    }
}

/* Initializes 'wd': every priority operational, no counts. */
void
pfc_wd_init(struct pfc_wd *wd)
{
    memset(wd, 0, sizeof *wd);
}

/* Returns the ticks from 'then' to 'now', or 0 if 'now' is not later: a
 * stamp taken a little after 'now' never makes an interval look long. */
static uint64_t
pfc_ticks_since(uint64_t now, uint64_t then)
{
    return now > then ? now - then : 0;
}

/* Tells the watchdog 'wd' about the valid PFC frame 'frame' received at tick
 * 'now' on a port whose pfc-enable is 'enabled'.  Call it for every such
 * frame, also for priorities whose pauses pfc_wd_ignored() ignores: their
 * XOFF frames hold restoration back.  'began' is what pfc_receive() returned
 * for the frame, the priorities whose pause began with it because the
 * previous one had ended, by XON or by expiry (0 if unknown).
 *
 * For each priority n in 'enabled' with e[n] = 1:
 *   - time[n] > 0 (XOFF, or its refresh): last_xoff[n] = now, which holds
 *     restoration back for watchdog-restoration-time;
 *   - time[n] = 0 (XON): the pause ended, so the current detection interval
 *     ends; restoration is not held back.
 * A pause in 'began' also ends the current detection interval: the previous
 * pause ended, even if both checks around the frame saw the priority
 * paused.  Priorities not in 'enabled' are ignored. */
void
pfc_wd_frame(struct pfc_wd *wd, const struct pfc_frame *frame,
             uint8_t enabled, uint8_t began, uint64_t now)
{
    uint8_t named = frame->enable & enabled;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint8_t bit = 1u << n;

        if (!(named & bit)) {
            continue;
        }
        if (frame->time[n]) {
            wd->last_xoff[n] = now;
        } else {
            wd->detecting &= ~bit;
        }
    }
    wd->detecting &= ~(began & enabled);
}

/* Runs one check of the watchdog 'wd' configured by 'params' at tick 'now'.
 * 'paused' has bit n if priority n is paused now by its pause timer (XOFF
 * not ended by XON nor expired, as pfc_paused_prios() says), whether or not
 * pfc_wd_ignored() ignores it.  'waiting' has bit n if the traffic class of
 * priority n holds packets that could not leave.
 *
 * For each priority n in params->enabled, with the watchdog on
 * (params->detect_ticks > 0):
 *
 *   - Operational: a check that sees n in both 'paused' and 'waiting' starts
 *     a detection interval at 'now' if none runs; a check that does not
 *     (expiry, XON or an empty queue), like an XON or a new pause seen by
 *     pfc_wd_frame(), ends it.  At the first check where now - since[n] >=
 *     params->detect_ticks, n becomes stormed: detected, counted in
 *     storms_detected[n], stormed_at[n] = now.
 *
 *   - Stormed: at the first check where both now - stormed_at[n] and now -
 *     last_xoff[n] are at least params->restore_ticks, n becomes operational
 *     again: restored, counted in storms_restored[n].  Detection starts from
 *     scratch at the next check.
 *
 * With the watchdog off (detect_ticks 0) nothing is watched, and every
 * stormed priority is restored at once, at this check.  So is a stormed
 * priority that left pfc-enable; and the detection interval of a priority
 * not watched ends.
 *
 * Stores in '*detected' and '*restored' the priorities that became stormed
 * and operational at this check, for the caller to log and act on, and
 * returns the stormed priorities after it. */
uint8_t
pfc_wd_run(struct pfc_wd *wd, const struct pfc_wd_params *params,
           uint8_t paused, uint8_t waiting, uint64_t now,
           uint8_t *detectedp, uint8_t *restoredp)
{
    uint8_t watched = params->detect_ticks ? params->enabled : 0;
    uint8_t detected = 0, restored = 0;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint8_t bit = 1u << n;

        if (!(watched & bit)) {
            restored |= wd->stormed & bit;
            wd->detecting &= ~bit;
            if (!(params->enabled & bit)) {
                wd->last_xoff[n] = 0;
            }
        } else if (wd->stormed & bit) {
            /* Not while the last XOFF's timer still runs: honouring that
             * pause again would only start the next storm. */
            if (pfc_ticks_since(now, wd->stormed_at[n])
                >= params->restore_ticks
                && pfc_ticks_since(now, wd->last_xoff[n])
                   >= params->restore_ticks
                && !(paused & bit)) {
                restored |= bit;
            }
        } else if (!(paused & waiting & bit)) {
            wd->detecting &= ~bit;
        } else if (!(wd->detecting & bit)) {
            wd->detecting |= bit;
            wd->since[n] = now;
        } else if (pfc_ticks_since(now, wd->since[n])
                   >= params->detect_ticks) {
            detected |= bit;
        }
    }

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint8_t bit = 1u << n;

        if (restored & bit) {
            wd->storms_restored[n]++;
        } else if (detected & bit) {
            wd->stormed_at[n] = now;
            wd->storms_detected[n]++;
        }
    }
    wd->stormed = (wd->stormed & ~restored) | detected;
    wd->detecting &= ~(restored | detected);

    *detectedp = detected;
    *restoredp = restored;
    return wd->stormed;
}

/* Returns the worst case, in bit times, of what a port still sends after its
 * PMD thread reads a PFC frame: a full tx ring of 'tx_desc' descriptors, every
 * one a 'max_frame'-byte frame with 20 bytes of preamble and inter-packet
 * gap.  Compare with PFC_RESPONSE_BOUND_BITS (seed 000 4.6).
 *
 * Nothing more is handed to the NIC for a paused class once the frame is read
 * (the "sent while paused" count of pfc/show checks it), so the ring is the
 * whole of it.  The time the frame waits in the receive ring before the PMD
 * thread reads it is not included: software cannot bound it. */
uint64_t
pfc_response_bits(uint32_t tx_desc, uint32_t max_frame)
{
    return (uint64_t) tx_desc * ((uint64_t) max_frame + 20) * 8;
}

/* Returns the largest tx ring, in descriptors, whose worst-case response
 * (pfc_response_bits()) with 'max_frame'-byte frames stays within
 * PFC_RESPONSE_BOUND_BITS, but at least 1: one frame of up to 1772 bytes
 * fits in the bound, none larger does. */
uint32_t
pfc_tx_ring_bound(uint32_t max_frame)
{
    uint64_t per_desc = ((uint64_t) max_frame + 20) * 8;

    return MAX(1, PFC_RESPONSE_BOUND_BITS / per_desc);
}

/* Returns the tx ring size, in descriptors, for a PFC port (PFC ports get a
 * tx ring sized to stay within the response bound where the driver allows
 * it):
 *
 *   - 'tx_ring_size' PFC_TX_RING_INTERFACE: 'interface_size', the Interface's
 *     n_txq_desc, untouched, as without PFC.
 *
 *   - PFC_TX_RING_AUTO: pfc_tx_ring_bound('max_frame'), then fitted to
 *     'lim'.
 *
 *   - 1..PFC_TX_RING_MAX: that many descriptors, fitted to 'lim'.
 *
 * Fitting raises the ring to lim->nb_min, rounds it up to a multiple of
 * lim->nb_align, and lowers it to the largest multiple within lim->nb_max,
 * so that the driver's queue setup cannot fail on the size. */
uint32_t
pfc_tx_ring_size(uint32_t tx_ring_size, uint32_t interface_size,
                 uint32_t max_frame, const struct pfc_ring_limits *lim)
{
    uint32_t align = MAX(lim->nb_align, 1);
    uint64_t ring;

    if (tx_ring_size == PFC_TX_RING_INTERFACE) {
        return interface_size;
    }
    ring = (tx_ring_size == PFC_TX_RING_AUTO ? pfc_tx_ring_bound(max_frame)
            : tx_ring_size);
    ring = MAX(ring, lim->nb_min);
    ring = ROUND_UP(ring, align);
    if (lim->nb_max && ring > lim->nb_max) {
        ring = ROUND_DOWN(lim->nb_max, align);
    }
    return MAX(ring, 1);
}

/* DPDK drivers of devices without a MAC of their own: software, or a
 * paravirtual NIC whose host hands frames through as they are.  MAC Control
 * frames reach this switch through them like any packet. */
static const char *const pfc_virtual_drivers[] = {
    "net_af_packet", "net_af_xdp", "net_pcap", "net_null", "net_ring",
    "net_tap", "net_virtio_user", "net_virtio", "net_vhost", "net_memif",
};

/* Returns true if 'driver', a DPDK driver name (rte_eth_dev_info's
 * driver_name), is a virtual device (pfc_virtual_drivers). */
bool
pfc_driver_is_virtual(const char *driver)
{
    for (size_t i = 0; i < ARRAY_SIZE(pfc_virtual_drivers); i++) {
        if (driver && !strcmp(driver, pfc_virtual_drivers[i])) {
            return true;
        }
    }
    return false;
}

/* The driver policy, by rte_eth_dev_info's driver_name (enum
 * pfc_driver_quirk).  Known to forward MAC Control frames when asked: the
 * drivers whose mac_ctrl_frame_fwd sets the MAC's "pass control frames"
 * bit, e1000 em, igb and igc (RCTL.PMCF), ixgbe (MFLCN.PMCF), i40e (and it
 * clears "discard pause frames"), txgbe and ngbe.  i40e also installs a tx
 * filter for EtherType 0x8808 at init: it sends none.  mlx5 does PFC in the
 * kernel or firmware only and ignores mac_ctrl_frame_fwd, as dpaa does; ice
 * honours it only on E830, and not for PFC frames.  Any other physical
 * driver (ice_dcf, mlx4, bnxt, cnxk, hns3, sfc...) is unknown. */
static const struct {
    const char *driver;
    uint8_t quirks;
} pfc_driver_policy[] = {
    { "net_e1000_em", PFC_QUIRK_FORWARDS },
    { "net_e1000_igb", PFC_QUIRK_FORWARDS },
    { "net_igc", PFC_QUIRK_FORWARDS },
    { "net_ixgbe", PFC_QUIRK_FORWARDS },
    { "net_i40e", PFC_QUIRK_FORWARDS | PFC_QUIRK_TX_DROPS },
    { "net_txgbe", PFC_QUIRK_FORWARDS },
    { "net_ngbe", PFC_QUIRK_FORWARDS },
    { "mlx5_pci", PFC_QUIRK_IGNORES_FWD },
    { "net_dpaa", PFC_QUIRK_IGNORES_FWD },
    { "net_ice", PFC_QUIRK_IGNORES_FWD },
};

/* Returns the enum pfc_driver_quirk bits of DPDK driver 'driver' (0 for a
 * driver the policy does not know, or NULL). */
uint8_t
pfc_driver_quirks(const char *driver)
{
    for (size_t i = 0; i < ARRAY_SIZE(pfc_driver_policy); i++) {
        if (driver && !strcmp(driver, pfc_driver_policy[i].driver)) {
            return pfc_driver_policy[i].quirks;
        }
    }
    return 0;
}

/* Returns true if the NIC of a port with driver 'driver' must be asked to pass
 * MAC Control frames to software before PFC can work on it: a physical NIC
 * whose driver is known to forward them ('quirks' has PFC_QUIRK_FORWARDS),
 * unless the operator set mac-control=trust ('trust').  Any other physical
 * NIC is not touched, and pfc_mac_control_decide() refuses it. */
bool
pfc_mac_control_needs_nic(const char *driver, bool trust, uint8_t quirks)
{
    return (!pfc_driver_is_virtual(driver) && !trust
            && (quirks & PFC_QUIRK_FORWARDS)
            && !(quirks & PFC_QUIRK_IGNORES_FWD));
}

/* Decides how MAC Control frames reach this switch on a port whose driver is
 * 'driver', known for 'quirks' (enum pfc_driver_quirk), with
 * mac-control=trust if 'trust', given what the driver answered ('answers',
 * ignored unless pfc_mac_control_needs_nic()).  mac-control=trust overrides
 * every quirk.  A physical NIC whose driver is not known to forward MAC
 * Control frames (PFC_QUIRK_FORWARDS) is refused.  On
 * PFC_MAC_CONTROL_REFUSED, stores in '*reason' a message, for the log and
 * pfc/show, that names the driver and the DPDK call that failed, or what
 * the driver is known to do; the caller frees it.  Otherwise '*reason' is
 * NULL. */
enum pfc_mac_control
pfc_mac_control_decide(const char *driver, bool trust, uint8_t quirks,
                       const struct pfc_mac_control_answers *answers,
                       char **reason)
{
    const char *call = NULL;
    int err = 0;

    *reason = NULL;
    if (pfc_driver_is_virtual(driver)) {
        return PFC_MAC_CONTROL_VIRTUAL;
    }
    if (trust) {
        return PFC_MAC_CONTROL_TRUSTED;
    }
    if (quirks & PFC_QUIRK_IGNORES_FWD) {
        *reason = xasprintf("driver %s accepts mac_ctrl_frame_fwd but "
                            "ignores it: PFC frames would never reach this "
                            "switch. Configure PFC on the NIC itself, or "
                            "set other_config:mac-control=trust only if "
                            "you made sure they do",
                            driver ? driver : "(unknown)");
        return PFC_MAC_CONTROL_REFUSED;
    }
    if (!(quirks & PFC_QUIRK_FORWARDS)) {
        *reason = xasprintf("driver %s is not known to pass MAC Control "
                            "frames to software (a driver may accept "
                            "mac_ctrl_frame_fwd and ignore it): PFC frames "
                            "might never reach this switch. Set other_config:"
                            "mac-control=trust only if you made sure they do",
                            driver ? driver : "(unknown)");
        return PFC_MAC_CONTROL_REFUSED;
    }
    if (answers->flow_ctrl_get) {
        call = "rte_eth_dev_flow_ctrl_get()";
        err = answers->flow_ctrl_get;
    } else if (answers->flow_ctrl_set) {
        call = "rte_eth_dev_flow_ctrl_set() with mac_ctrl_frame_fwd=1";
        err = answers->flow_ctrl_set;
    } else if (answers->allmulticast) {
        call = "rte_eth_allmulticast_enable() (to receive "
               "01-80-C2-00-00-01)";
        err = answers->allmulticast;
    } else {
        return (quirks & PFC_QUIRK_TX_DROPS ? PFC_MAC_CONTROL_RX_ONLY
                : PFC_MAC_CONTROL_NIC);
    }
    *reason = xasprintf("driver %s cannot pass MAC Control frames to "
                        "software: %s failed (%s); PFC frames would never "
                        "reach this switch. Set other_config:"
                        "mac-control=trust only if you made sure they do",
                        driver ? driver : "(unknown)", call,
                        ovs_strerror(err < 0 ? -err : err));
    return PFC_MAC_CONTROL_REFUSED;
}

/* Returns how pfc/show describes 'mc'. */
const char *
pfc_mac_control_name(enum pfc_mac_control mc)
{
    switch (mc) {
    case PFC_MAC_CONTROL_VIRTUAL:
        return "virtual device";
    case PFC_MAC_CONTROL_NIC:
        return "forwarded by the NIC";
    case PFC_MAC_CONTROL_TRUSTED:
        return "trusted by configuration";
    case PFC_MAC_CONTROL_RX_ONLY:
        return "forwarded by the NIC, receive only (the NIC drops the MAC "
               "Control frames this switch sends: no XOFF)";
    case PFC_MAC_CONTROL_REFUSED:
    default:
        return "refused by the driver";
    }
}

/* Returns what becomes of mac-control-queue ('want') on a port that is
 * virtual or not ('is_virtual'), has 'n_rxq' rx queues and whose driver
 * answered 'a' (struct pfc_mcq_answers): PFC_MCQ_ON only if every request
 * succeeded.  The glue makes the requests in the order of the members of
 * 'a' and stops at the first that fails.  'a' may be NULL for a virtual
 * port, which is asked nothing. */
enum pfc_mcq
pfc_mcq_decide(bool want, bool is_virtual, uint32_t n_rxq,
               const struct pfc_mcq_answers *a)
{
    if (!want) {
        return PFC_MCQ_OFF;
    } else if (a && a->rx_steering) {
        return PFC_MCQ_RX_STEERING;
    } else if (is_virtual) {
        return PFC_MCQ_VIRTUAL;
    } else if (n_rxq < 2) {
        return PFC_MCQ_ONE_RXQ;
    } else if (!a || !a->reta_size) {
        return PFC_MCQ_NO_RETA;
    } else if (a->flow_validate) {
        return PFC_MCQ_NO_FLOW;
    } else if (a->reta_update) {
        return PFC_MCQ_NO_RETA;
    } else if (a->flow_create) {
        return PFC_MCQ_NO_FLOW;
    }
    return PFC_MCQ_ON;
}

/* Returns how pfc/show describes 'mcq': where MAC Control frames are read,
 * and why not from a queue of their own. */
const char *
pfc_mcq_describe(enum pfc_mcq mcq)
{
    switch (mcq) {
    case PFC_MCQ_ON:
        return "read from an rx queue of their own (the last)";
    case PFC_MCQ_VIRTUAL:
        return "read from the data rx queues (a virtual device)";
    case PFC_MCQ_ONE_RXQ:
        return ("read from the data rx queues (mac-control-queue needs "
                "options:n_rxq of 2 or more)");
    case PFC_MCQ_NO_RETA:
        return ("read from the data rx queues (the driver has no RSS "
                "redirection table to update)");
    case PFC_MCQ_NO_FLOW:
        return ("read from the data rx queues (the driver refused an "
                "rte_flow rule for EtherType 0x8808)");
    case PFC_MCQ_RX_STEERING:
        return ("read from the data rx queues (mac-control-queue does not "
                "apply while options:rx-steering is set: Open vSwitch's rx "
                "steering owns the last rx queue and the port's rte_flow "
                "rules)");
    case PFC_MCQ_OFF:
    default:
        return "read from the data rx queues";
    }
}

/* Fills the 'n' entries of an RSS redirection table, 'queues', with rx
 * queues 0 to 'n_queues' - 1 in turn, as drivers do by default: with
 * 'n_queues' one less than the port's rx queues, data spreads over all but
 * the last.  'n_queues' 0 counts as 1. */
void
pfc_reta_spread(uint16_t *queues, size_t n, uint16_t n_queues)
{
    for (size_t i = 0; i < n; i++) {
        queues[i] = i % MAX(n_queues, 1);
    }
}
