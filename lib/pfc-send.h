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

#ifndef PFC_SEND_H
#define PFC_SEND_H 1

/* The send verdict: what the transmit path of a PFC port does with each
 * packet of a batch that Open vSwitch sends on one of its tx queues.
 *
 * The DPDK glue (lib/netdev-dpdk-pfc-tx.c) reads the facts of the tx queue
 * once per batch (struct pfc_send_facts), asks pfc_send_decide() once, for
 * a verdict per priority (every rule below depends on a packet's priority
 * and on facts of the whole batch only), and applies to each packet the
 * verdict of the priority that it carries from its ingress
 * (pfc_mbuf_priority(), lib/netdev-dpdk-pfc-private.h).  If the NIC's tx
 * ring (or a guest's virtqueue) then refuses some of the packets that were
 * sent, pfc_send_refused() decides those.  Whether a held packet finds room
 * is the shared buffer's decision (pfc_buf_admit(), lib/pfc-buffer.h): a
 * packet that it refuses is a hold drop.
 *
 * The rules, in order, for a packet of priority p whose traffic class is c:
 *
 *   1. A priority in a storm (the watchdog, lib/pfc-wd.h) ignores pauses.  Its
 *      packets are dropped if the storm action is "drop".  On a vhost-user
 *      port they are always offered to the guest, never held: a stalled
 *      guest is the storm.
 *
 *   2. Class c is paused, or already holds packets on this tx queue: the
 *      packet is held, behind those (802.1Qbb keeps the order of a
 *      priority).
 *
 *   3. Every packet is held while another class that may send holds
 *      packets (the tx ring or the shaper made a backlog, and the ETS
 *      scheduler chooses what leaves next, lib/pfc-ets.h), and while the
 *      port shaper lacks the tokens for the whole batch.  On a vhost-user
 *      port only the shaper does that: a lossy packet that a guest refuses
 *      is dropped, as without PFC, so lossy traffic never queues there.
 *
 *   4. Otherwise the packet is handed to the NIC.
 *
 * The class c is the one that p maps to, unless OpenFlow set_queue chose
 * another (pfc_send_class()).  Such a packet is "moved": the rules above
 * apply to it with c, the class it joins, and it is also held while the
 * class of p is blocked (pfc_send_decide_moved()), since its partner
 * classifies it by a priority that may be paused.  A class that holds a
 * moved packet stops while that packet's own class is blocked
 * (pfc_send_blocked_moved()).
 *
 * And for a packet that the tx ring refused:
 *
 *   - on a vhost-user port, a stormed priority (the guest is stalled):
 *     dropped by the watchdog;
 *   - while the link is down: dropped, rather than held for a ring that
 *     does not drain;
 *   - on a vhost-user port, a lossy priority: dropped, as without PFC;
 *   - otherwise held, in order.
 *
 * Pure: no clock, no locks, no DPDK. */

#include <stdbool.h>
#include <stdint.h>

#include "pfc.h"

/* What happens to one packet. */
enum pfc_send_verdict {
    PFC_SEND_TX,                /* Handed to the NIC now. */
    PFC_SEND_HOLD,              /* Held at the tail of its class queue, if
                                 * the buffer admits it. */
    PFC_SEND_DROP_STORM,        /* Dropped by the watchdog. */
    PFC_SEND_DROP_REFUSED,      /* A lossy priority that a guest's full
                                 * virtqueue refused (counted by netdev-dpdk
                                 * as a tx failure, as without PFC). */
    PFC_SEND_DROP_DOWN,         /* The link is down. */
};

/* The facts of one tx queue of a port, read once per batch. */
struct pfc_send_facts {
    const uint8_t *prio_to_tc;  /* [PFC_N_PRIOS]: each priority's traffic
                                 * class, 0..7. */
    uint8_t blocked;            /* Traffic classes that may not send: paused
                                 * (one bit per class). */
    uint8_t nonempty;           /* Traffic classes that hold packets on this
                                 * tx queue. */
    uint8_t lossless;           /* Priorities of pfc-enable (one bit per
                                 * priority). */
    uint8_t wd_ignored;         /* Priorities in a storm, whose pauses are
                                 * ignored. */
    uint8_t wd_dropped;         /* Of those, the priorities whose packets
                                 * are dropped (action "drop"). */
    bool vhost;                 /* A vhost-user port. */
    bool down;                  /* The link is down. */
    int64_t tokens;             /* Bytes that the port shaper lets leave
                                 * now, INT64_MAX without a shaper. */
    uint8_t queues;             /* Traffic classes that a Queue row of the
                                 * port configures (bit tc for queue tc):
                                 * those that set_queue may choose.  0: no
                                 * packet is moved, and the glue reads no
                                 * packet's queue id. */
    uint8_t lossless_tcs;       /* Traffic classes that a priority of
                                 * 'lossless' maps to: the class queues with
                                 * a slot for every packet that the buffer
                                 * admits.  Read only with 'queues'. */
};

/* True if every packet of a batch is handed to the NIC whatever its
 * priority: no traffic class blocked ('blocked', a bitmap of classes) or
 * holding packets ('holding'), no priority in a storm ('stormed', a bitmap
 * of priorities whose pauses the watchdog ignores) and no port shaper
 * ('shaped').  The glue's fast path reads only these four, without the
 * packets or the other facts. */
static inline bool
pfc_send_fast(uint8_t blocked, bool holding, uint8_t stormed, bool shaped)
{
    return !blocked && !holding && !stormed && !shaped;
}

/* pfc_send_fast() of the facts 'f'. */
static inline bool
pfc_send_all_tx(const struct pfc_send_facts *f)
{
    return pfc_send_fast(f->blocked, f->nonempty, f->wd_ignored,
                         f->tokens != INT64_MAX);
}

/* Returns the traffic classes of 'f' whose packets are held rather than
 * sent (rules 2 and 3 above), for a batch of 'bytes' bytes
 * (read only with a shaper). */
static inline uint8_t
pfc_send_hold_tcs(const struct pfc_send_facts *f, uint64_t bytes)
{
    if (!f->vhost && f->nonempty & ~f->blocked) {
        return 0xff;
    }
    if (f->tokens != INT64_MAX && f->tokens < (int64_t) bytes) {
        return 0xff;
    }
    return f->blocked | f->nonempty;
}

/* Decides, by the rules above, what becomes of the packets of a
 * batch on the tx queue whose facts are 'f'.  Every rule depends on a
 * packet's priority and on facts of the whole batch only, so the batch is
 * decided once, per priority: verdicts[p] receives the enum
 * pfc_send_verdict of every packet of priority p (0..7).  'bytes' is the
 * length of the whole batch in bytes, the frames as the NIC sends them
 * (read only when 'f' has a shaper, so 0 will do without one).  Returns the
 * priorities whose verdict is PFC_SEND_TX (bit p for priority p).  Inline,
 * as rte_meter's checks are: the transmit path asks it once per batch. */
static inline uint8_t
pfc_send_decide(const struct pfc_send_facts *f, uint64_t bytes,
                uint8_t verdicts[PFC_N_PRIOS])
{
    /* Rule 1: on a vhost-user port a stormed priority is offered to the
     * guest; elsewhere it is dropped with action "drop", and otherwise
     * ignores pauses (pfc_blocked() no longer counts them) but keeps its
     * order behind what it holds. */
    uint8_t offered = f->vhost ? f->wd_ignored : 0;
    uint8_t dropped = f->vhost ? 0 : f->wd_ignored & f->wd_dropped;
    uint8_t hold = (pfc_tcs_prios(f->prio_to_tc, pfc_send_hold_tcs(f, bytes))
                    & ~offered & ~dropped);

    for (int p = 0; p < PFC_N_PRIOS; p++) {
        verdicts[p] = ((hold >> p) & 1 ? PFC_SEND_HOLD
                       : (dropped >> p) & 1 ? PFC_SEND_DROP_STORM
                       : PFC_SEND_TX);
    }
    return ~(hold | dropped);
}

void pfc_send_refused(const struct pfc_send_facts *,
                      uint8_t verdicts[PFC_N_PRIOS]);

/* Returns the traffic class, 0..7, of a packet of priority 'prio' (0..7)
 * whose datapath queue id is 'queue', on the egress whose facts are 'f'.
 * The queue id is what OpenFlow set_queue (or enqueue) gave the packet, as
 * in Open vSwitch's other QoS types: in the userspace datapath the
 * skb_priority of the packet's metadata, the queue number itself, 0 when no
 * action set it.
 *
 *   - Queue id 1..7 of a Queue row of the port (f->queues): that Queue's
 *     class, unless 'prio' is lossless on this egress (f->lossless) and no
 *     lossless priority maps to that class.  Only the class queue of a
 *     lossless class has a slot for every packet that the buffer admits: a
 *     lossless packet moved into another one could be dropped for want of
 *     a slot, where it must go into headroom and cause XOFF.
 *   - Otherwise the class that 'prio' maps to: no set_queue, set_queue:0
 *     (which the userspace datapath cannot tell from none), a queue id that
 *     no Queue row of the port configures (as Open vSwitch sends such a
 *     packet to the default queue), or a refused move as above.
 *
 * The packet still carries 'prio': it is charged to that priority group of
 * its ingress port, counted in that priority's class for the port's egress
 * bound, and leaves with the markings of 'prio'. */
static inline int
pfc_send_class(const struct pfc_send_facts *f, int prio, uint32_t queue)
{
    if (OVS_LIKELY(!queue) || queue >= PFC_N_PRIOS
        || !((f->queues >> queue) & 1)
        || ((f->lossless >> prio) & 1 && !((f->lossless_tcs >> queue) & 1))) {
        return f->prio_to_tc[prio];
    }
    return queue;
}

/* Returns the verdict of a packet of priority 'prio' that set_queue moved
 * into traffic class 'tc' (pfc_send_class()), in a batch whose facts are
 * 'f' and whose classes held rather than sent are 'hold_tcs'
 * (pfc_send_hold_tcs()).  The rules of pfc_send_decide(), with 'tc' as the
 * packet's class, and one more: it is held while the class of 'prio' is
 * blocked.  Its partner classifies it by 'prio' (the tag it leaves with,
 * or the remarking from its priority), and PFC (IEEE 802.1Q-2018 clause
 * 36) lets no frame of a paused priority leave; the class of
 * 'prio' is blocked while any of that class's priorities is paused, which
 * can only hold the packet longer.  For a packet of the class that 'prio'
 * maps to, this is the verdict that pfc_send_decide() gives 'prio'. */
static inline enum pfc_send_verdict
pfc_send_decide_moved(const struct pfc_send_facts *f, uint8_t hold_tcs,
                      int prio, int tc)
{
    if ((f->wd_ignored >> prio) & 1) {
        if (f->vhost) {
            return PFC_SEND_TX;         /* Rule 1: offered to the guest. */
        }
        if ((f->wd_dropped >> prio) & 1) {
            return PFC_SEND_DROP_STORM;
        }
    }
    return ((hold_tcs >> tc) & 1 || (f->blocked >> f->prio_to_tc[prio]) & 1
            ? PFC_SEND_HOLD : PFC_SEND_TX);
}

/* Returns the traffic classes 'blocked' (bit tc) with, added, those that
 * hold a moved packet whose own class is in 'blocked': moved[tc], for each
 * class tc in 'moved_tcs', has bit p if a packet of priority p that
 * set_queue moved into class tc was held there since that class queue was
 * last empty ('prio_to_tc' maps priorities to their own classes).  Such a
 * class stops as a whole, in order, while a priority that it holds for
 * another class is blocked (pfc_send_decide_moved()): conservative, since
 * the packet may already have left, and exact once the class queue
 * empties. */
static inline uint8_t
pfc_send_blocked_moved(const uint8_t prio_to_tc[PFC_N_PRIOS],
                       const uint8_t moved[PFC_N_PRIOS], uint8_t moved_tcs,
                       uint8_t blocked)
{
    uint8_t prios = pfc_tcs_prios(prio_to_tc, blocked);
    uint8_t more = 0;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        more |= (((moved_tcs >> tc) & 1) && (moved[tc] & prios)) << tc;
    }
    return blocked | more;
}

/* The quiet of the flush pass.  A PMD thread flushes each PFC port it may
 * send to once per iteration, after its rx polls, while any port has
 * deferred work: to send the held packets whose class may send again, even
 * when nothing new is sent.  A flush that finds that none may (every class
 * that holds is blocked by a pause, and nothing else is due) notes a quiet:
 * the facts that made it so.  While they stand, the port's held packets
 * are no reason for the pass, which then costs one load per iteration if
 * no port has other work, instead of a call per port it may send to.  The
 * quiet ends at the first of:
 *
 *   - 'until': the earliest expiry at which a pause that blocks a class
 *     that holds may end (a pause never ends earlier, lib/pfc.h), or the
 *     port's next watchdog check (lib/pfc-wd.h) while the watchdog
 *     watches; the first poll of the port's rx queues that begins then
 *     ends it;
 *   - a new pause generation of the port ('gen'): a PFC frame read, the
 *     port down or up, a watchdog verdict;
 *   - another set of tx queues that hold ('holding', bit qid);
 *   - an explicit end: any packet held (it may leave at once, or it took
 *     cells of the buffer, charged to its ingress priority group or from
 *     the shared pool, which may make an XOFF due on any port); the tx
 *     queue that stops holding; a reconfiguration.
 *
 * A quiet is noted only where its end is sure to be seen in time
 * (pfc_quiet_may_note()): 'until' known, and a PMD thread polling the
 * port's rx queues, as the poll stamps of a pause in force show.
 *
 * A skipped flush could only have found what the noting one found, so a
 * held packet leaves neither earlier nor later than without the quiet,
 * and the PFC frames that ports send (XOFF, XON, LLDPDUs) are due as
 * before. */
struct pfc_quiet {
    uint64_t until;             /* TSC; 0: no quiet. */
    uint64_t gen;               /* The port's pause generation. */
    uint64_t holding;           /* The tx queues that hold, bit qid. */
};

/* Returns the end of a quiet noted by a flush that found the classes that
 * hold blocked until TSC 'blocked_until' at the earliest, on a port whose
 * next watchdog check is at TSC 'next_check' (UINT64_MAX while the watchdog
 * does not watch; 0 before its first check).  0 if either is 0: no quiet
 * may be noted then. */
static inline uint64_t
pfc_quiet_until(uint64_t blocked_until, uint64_t next_check)
{
    return blocked_until < next_check ? blocked_until : next_check;
}

/* Returns true if a flush at TSC 'now' may note a quiet that ends at 'until'
 * (pfc_quiet_until()) on a port whose latest rx poll stamp, over its rx
 * queues, is 'polled' (TSC, 0 for none).  Not if 'until' is 0: nothing
 * would end the quiet by time.  Not if no rx queue of the port was polled
 * within 'recent' cycles: a quiet ends by time at the first poll of the
 * port's rx queues at or after 'until', and a port that no PMD thread polls
 * would keep it until the main thread ends it, later.  A stamp after 'now'
 * (read on another core) is recent. */
static inline bool
pfc_quiet_may_note(uint64_t until, uint64_t polled, uint64_t now,
                   uint64_t recent)
{
    return until && polled && (polled >= now || now - polled <= recent);
}

/* Returns true if the quiet 'q' holds at TSC 'now' for a port whose pause
 * generation is 'gen' and whose tx queues that hold are 'holding': a flush
 * may skip the port. */
static inline bool
pfc_quiet_holds(const struct pfc_quiet *q, uint64_t gen, uint64_t holding,
                uint64_t now)
{
    return q->until && now < q->until && gen == q->gen
           && holding == q->holding;
}

#endif /* pfc-send.h */
