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

/* Transmit side of the DPDK glue of PFC (the opening comment of
 * lib/netdev-dpdk-pfc.c describes the threads and locks).  What a thread
 * that sends on a port with QoS type pfc does under the lock of its tx
 * queue: it works out which traffic classes pauses block, holds their
 * packets in traffic class queues and hands them to the NIC, or the guest,
 * once they may leave (on a send and on the PMD thread's tx flush).  The
 * held packets leave in lib/netdev-dpdk-pfc-drain.c; PFC frames, LLDPDUs
 * and the tx filter are in lib/netdev-dpdk-pfc-ctrl.c. */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>
#include <rte_vhost.h>

#include "coverage.h"
#include "dp-packet.h"
#include "netdev.h"
#include "openvswitch/usdt-probes.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "pfc.h"
#include "pfc-compat.h"
#include "pfc-send.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc_tx);

/* Packets that OpenFlow set_queue moved into another traffic class while
 * that class or their own was blocked or held packets (pfc_send_class());
 * and packets of a lossless priority that it would have moved into a class
 * without one, which stay in their own (counted while the port holds or a
 * class is blocked: the fast path reads no queue id). */
COVERAGE_DEFINE(pfc_set_queue_moved);
COVERAGE_DEFINE(pfc_set_queue_kept);
static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);


/* Counts, once per pause, the pauses of the priorities of the traffic classes
 * 'tcs' of 'pfc', which end at TSC 'now', that end late by
 * pfc_pause_ended_late() with port->rx.late_bound; 'xon' (read with until[])
 * has the priorities whose pause an XON ended. */
static void
pfc_note_late_ends(struct netdev_dpdk_pfc *pfc, uint8_t tcs,
                   const uint64_t until[PFC_N_PRIOS], uint8_t xon,
                   uint64_t now)
{
    struct pfc_port *port = pfc->port;
    uint64_t bound;

    atomic_read_relaxed(&port->rx.late_bound, &bound);
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint64_t counted, orig;

        if (!(tcs & (1u << pfc->cfg.prio_to_tc[n]))
            || !pfc_pause_ended_late(until[n], (xon >> n) & 1, now, bound)) {
            continue;
        }
        atomic_read_relaxed(&port->rx.late_counted[n], &counted);
        if (counted < until[n]
            && atomic_compare_exchange_strong_relaxed(
                   &port->rx.late_counted[n], &counted, until[n])) {
            atomic_add_relaxed(&port->rx.late_ends[n], 1, &orig);
        }
    }
}

/* Returns the traffic classes of 'pfc' that may not send on its tx queue 't'
 * at TSC 'now' (pfc_paused_prios(), pfc_tcs_blocked()).  Costs one load and
 * two compares while nothing changed since the last call: the answer is
 * cached until a PFC frame is read or the first pause in force expires.
 * The caller holds t->lock. */
static uint8_t
pfc_blocked(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t, uint64_t now)
{
    struct pfc_port *port = pfc->port;
    uint64_t until[PFC_N_PRIOS];
    uint64_t gen, polled, valid;
    uint8_t paused, blocked, xon;

    atomic_read_explicit(&port->rx.pause_gen, &gen, memory_order_acquire);
    if (OVS_LIKELY(gen == t->blocked_gen && now < t->blocked_until)) {
        return t->blocked;
    }
    if (OVS_UNLIKELY(t->requeue)) {
        /* The main thread is moving what this tx queue held: nothing
         * leaves ahead of it (pfc_requeue()).  'blocked_until' stays 0,
         * so that the next call looks again. */
        return UINT8_MAX;
    }
    /* The poll stamps first: the timers read next are at least as recent as
     * the frames those polls read. */
    polled = pfc_rx_polled(port);
    atomic_read_explicit(&port->rx.pause_gen, &gen, memory_order_acquire);
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        atomic_read_relaxed(&port->rx.until[n], &until[n]);
    }
    atomic_read_relaxed(&port->rx.xon, &xon);
    paused = pfc_paused_prios(until, pfc->cfg.enabled, now, polled,
                              port->rx.poll_cap, &valid);
    uint8_t down;

    atomic_read_relaxed(&port->down, &down);
    if (OVS_UNLIKELY(down)) {
        /* A port that is down holds nothing (netdev_dpdk_pfc_port_down()):
         * its partner's pauses ended with the link. */
        paused = 0;
    }
    /* A stormed priority whose pauses the watchdog ignores. */
    atomic_read_relaxed(&port->wd.ignored, &t->wd_ignored);
    atomic_read_relaxed(&port->wd.dropped, &t->wd_dropped);
    paused &= ~t->wd_ignored;
    blocked = pfc_tcs_blocked(pfc->cfg.prio_to_tc, paused);
    if (OVS_UNLIKELY(t->blocked & ~blocked)) {
        pfc_note_late_ends(pfc, t->blocked & ~blocked, until, xon, now);
    }
#ifdef HAVE_USDT_PROBES
    if (blocked & ~t->blocked) {
        uint64_t read;

        /* First decision on this tx queue that honours a new pause, and the
         * TSC at which the frame that set it was read. */
        atomic_read_relaxed(&port->rx.pause_read, &read);
        OVS_USDT_PROBE(netdev_dpdk_pfc, paused, (int) (port - pfc_ports),
                       (int) (t - pfc->txq), blocked & ~t->blocked, read,
                       now);
    }
    if (t->blocked & ~blocked & t->nonempty) {
        uint8_t tcs = t->blocked & ~blocked;
        uint64_t ended = 0, read;

        /* Held packets of 'tcs' may leave: their pauses ended at the
         * latest until[] of their priorities (expiry, or the earliest
         * arrival of an XON). */
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            if (tcs & (1u << pfc->cfg.prio_to_tc[n])) {
                ended = MAX(ended, until[n]);
            }
        }
        /* And the TSC at which the last PFC frame that set the timers was
         * read: for a pause ended by an XON, the read of that XON. */
        atomic_read_relaxed(&port->rx.pause_read, &read);
        OVS_USDT_PROBE(netdev_dpdk_pfc, unpause, (int) (port - pfc_ports),
                       (int) (t - pfc->txq), tcs, ended, now, read);
    }
#endif
    t->blocked = blocked;
    t->blocked_gen = gen;
    /* During a storm, the transmit path looks at every packet's priority
     * (pfc_send__()): no fast path. */
    t->blocked_until = t->wd_ignored ? MIN(valid, UINT64_MAX - 1) : valid;
    return blocked;
}

/* Returns 'blocked', the traffic classes of 'pfc' that pauses block on its
 * tx queue 't', with the classes that hold a packet that set_queue moved
 * there from a class in 'blocked' (pfc_send_blocked_moved()).  One load
 * while no class of 't' holds a moved packet.  The caller holds t->lock. */
static inline uint8_t
pfc_txq_blocked(const struct netdev_dpdk_pfc *pfc, const struct pfc_txq *t,
                uint8_t blocked)
{
    uint8_t moved;

    atomic_read_relaxed(&CONST_CAST(struct pfc_txq *, t)->moved_tcs, &moved);
    if (OVS_LIKELY(!moved)) {
        return blocked;
    }
    return pfc_send_blocked_moved(pfc->cfg.prio_to_tc, t->moved, moved,
                                  blocked);
}

/* Locks tx queue 'qid' of 'pfc', or with 'try' only if that does not wait,
 * and returns 'pfc' with '*tp' set to that tx queue; or, if a
 * reconfiguration replaced 'pfc' (netdev_dpdk_pfc_succeed()), the object
 * that now holds its packets, with its tx queue locked.  Returns NULL, with
 * nothing locked, if 'try' and a lock is taken, or if PFC was removed from
 * the port: then the caller sends as on a port without QoS. */
static inline struct netdev_dpdk_pfc * ALWAYS_INLINE
pfc_lock_live(struct netdev_dpdk_pfc *pfc, int qid, bool try,
              struct pfc_txq **tp)
{
    while (pfc && pfc->n_txq) {
        /* 'qid' is below n_txq but while a reconfiguration changes the
         * number of tx queues: no division in the common case. */
        int i = OVS_LIKELY(qid < pfc->n_txq) ? qid : qid % pfc->n_txq;
        struct pfc_txq *t = &pfc->txq[i];
        struct netdev_dpdk_pfc *next;

        if (try) {
            if (!rte_spinlock_trylock(&t->lock)) {
                return NULL;
            }
        } else {
            rte_spinlock_lock(&t->lock);
        }
        if (OVS_LIKELY(!pfc->retired)) {
            *tp = t;
            return pfc;
        }
        next = pfc->next;
        rte_spinlock_unlock(&t->lock);
        pfc = next;
    }
    return NULL;
}

/* Sends the PFC frames due on 'pfc' at TSC 'now' (mbufs from 'mp'), then
 * hands to the NIC the held packets of its tx queue 't' whose class may
 * send again.  On a vhost-user port, hands them to guest 'vid' instead
 * (pfc_xmit()), or frees them if that guest is gone or no longer receives
 * on this queue pair (t->vq_disabled).  Returns the traffic classes blocked
 * at 'now' (pfc_blocked()).  The caller holds t->lock. */
static uint8_t
pfc_service(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
            struct rte_mempool *mp, int vid, uint64_t now)
{
    int qid = t - pfc->txq;
    uint8_t blocked;

    if (OVS_UNLIKELY(pfc_port_is_vhost(pfc->port))) {
        if ((vid < 0 || t->vq_disabled) && t->n_held) {
            pfc_txq_free_held(pfc, t);
        }
    } else {
        pfc_tx_lldp(pfc, qid, mp);
        if (pfc_bound(pfc)->xparams.enabled
            || pfc->port->buf.xoff.asserted) {
            pfc_tx_control(pfc, qid, mp, now);
        }
    }
    blocked = pfc_txq_blocked(pfc, t, pfc_blocked(pfc, t, now));
    if (t->n_held) {
        pfc_drain(pfc, t, qid, vid, blocked, now);
        pfc_note_holding(pfc, t);
        if (!t->n_held) {
            pfc_buf_txq_give_cache(t);
        }
    }
    atomic_store_relaxed(&t->serviced, now);
    return blocked;
}

/* Returns true if pfc_service() would only return t->blocked for tx queue
 * 't' of 'pfc' at TSC '*now': the cached answer of pfc_blocked() is
 * current, no traffic class that holds packets may send, and no PFC frame
 * or LLDPDU is due (pfc_control_pending()).  Ethernet ports only: on a
 * vhost-user port, pfc_service() also frees what a guest that left cannot
 * take.  The caller holds t->lock. */
static inline bool
pfc_txq_settled(const struct netdev_dpdk_pfc *pfc, const struct pfc_txq *t,
                uint64_t *now)
{
    uint64_t gen;

    atomic_read_explicit(&pfc->port->rx.pause_gen, &gen, memory_order_acquire);
    return (gen == t->blocked_gen && *now < t->blocked_until
            && !(t->nonempty & ~pfc_txq_blocked(pfc, t, t->blocked))
            && !pfc_port_is_vhost(pfc->port)
            && !pfc_control_pending(pfc, now));
}

/* Notes the quiet of the port of 'pfc' (struct pfc_port_quiet) for
 * pfc_tx_flush(), which found its tx queue 't' settled (pfc_txq_settled()),
 * at TSC 'now', if 't' is the only one that holds, nothing ended the quiet
 * since the pause state that 't' cached, and pfc_quiet_may_note() agrees:
 * then the reason for deferred work that 't' counts is taken off the count
 * until the quiet ends.  Its end is the earliest expiry that may unblock a
 * class of 't' (t->blocked_until) or, while the watchdog watches, its next
 * check.  The caller holds t->lock. */
static void
pfc_quiet_note(struct netdev_dpdk_pfc *pfc, const struct pfc_txq *t,
               uint64_t now)
{
    struct pfc_port *port = pfc->port;
    int qid = t - pfc->txq;
    uint64_t holding, next, gen, until;
    bool watching, off;

    atomic_read_relaxed(&pfc->holding, &holding);
    if (qid >= 63 || holding != UINT64_C(1) << qid || !t->flush_wanted) {
        return;
    }
    atomic_read_relaxed(&port->wd.watching, &watching);
    next = UINT64_MAX;
    if (watching) {
        atomic_read_relaxed(&port->wd.next_check, &next);
    }
    until = pfc_quiet_until(t->blocked_until, next);
    if (!pfc_quiet_may_note(until, pfc_rx_polled_latest(port), now,
                            port->rx.tb.hz / 1000 * PFC_QUIET_LATE_MS)) {
        return;
    }
    /* 'off' before 'until', and 'gen' read again after it: a
     * pfc_quiet_end() that runs meanwhile, after a change of pause_gen
     * (pfc_port_bump_gen()) or not, either sees this quiet and ends it, or
     * this thread sees the new generation and ends it itself. */
    off = atomic_exchange(&port->quiet.off, true);
    if (!off) {
        netdev_tx_flush_want(false);
    }
    atomic_store_relaxed(&port->quiet.gen, t->blocked_gen);
    atomic_store_relaxed(&port->quiet.holding, holding);
    atomic_store(&port->quiet.until, until);
    atomic_read(&port->rx.pause_gen, &gen);
    if (gen != t->blocked_gen) {
        pfc_quiet_end(port);
    }
}

/* Returns true if the quiet of the port of 'pfc', whose tx queues hold
 * packets as 'holding' says, holds (pfc_quiet_holds()) at TSC '*now', which
 * it reads if 0.  Lock-free; a stale answer only defers a flush. */
static inline bool
pfc_quiet(const struct netdev_dpdk_pfc *pfc, uint64_t holding, uint64_t *now)
{
    struct pfc_port *port = pfc->port;
    struct pfc_quiet q;
    uint64_t gen;

    atomic_read_explicit(&port->quiet.until, &q.until, memory_order_acquire);
    if (!q.until) {
        return false;
    }
    atomic_read_relaxed(&port->quiet.gen, &q.gen);
    atomic_read_relaxed(&port->quiet.holding, &q.holding);
    atomic_read_explicit(&port->rx.pause_gen, &gen, memory_order_acquire);
    if (!*now) {
        *now = rte_get_tsc_cycles();
    }
    return pfc_quiet_holds(&q, gen, holding, *now);
}

/* Returns true if netdev_dpdk_pfc_tx_flush() has work on 'pfc': a tx queue
 * holds packets, unless they are quiet (pfc_quiet()), or a PFC frame may be
 * due.  Lock-free and cheap, for the PMD loop (netdev 'tx_flush_pending'): a
 * few loads, and the TSC while something is held or an XOFF is in force.
 * Reads are racy: a stale answer only defers the work by one iteration. */
bool
netdev_dpdk_pfc_tx_flush_pending(struct netdev_dpdk_pfc *pfc)
{
    uint64_t holding, now = 0;
    uint8_t stormed, down;

    if (!pfc->port) {
        return false;
    }
    atomic_read_relaxed(&pfc->holding, &holding);
    if (holding) {
        /* The thread stays awake to see the quiet end. */
        netdev_pmd_stay_awake();
        if (!pfc_quiet(pfc, holding, &now)) {
            return true;        /* To send them, or to free them if down. */
        }
    }
    atomic_read_relaxed(&pfc->port->wd.stormed, &stormed);
    if (OVS_LIKELY(!stormed && !pfc_control_pending(pfc, &now))) {
        return false;
    }
    /* A port that is down sends nothing: not even PFC frames. */
    atomic_read_relaxed(&pfc->port->down, &down);
    return !down;
}

/* netdev 'tx_flush' of a port with QoS 'pfc' that is down
 * (netdev_dpdk_pfc_port_down()): frees what its tx queues hold, counted as
 * hold drops and in tx_dropped, and sends nothing, neither held packets nor
 * PFC frames.  A tx queue whose lock is taken is skipped: its sender is
 * there, and it or the next flush frees what it holds. */
static void
pfc_tx_flush_down(struct netdev_dpdk_pfc *pfc)
{
    uint64_t holding;

    atomic_read_relaxed(&pfc->holding, &holding);
    for (; holding; holding &= holding - 1) {
        int first = raw_ctz(holding);
        /* Bit 63 stands for tx queues 63 and up. */
        int last = first < 63 ? first : pfc->n_txq - 1;

        for (int i = first; i <= last && i < pfc->n_txq; i++) {
            struct netdev_dpdk_pfc *live;
            struct pfc_txq *t;

            live = pfc_lock_live(pfc, i, true, &t);
            if (live) {
                if (t->n_held) {
                    pfc_txq_free_held(live, t);
                }
                rte_spinlock_unlock(&t->lock);
            }
        }
    }
}

/* netdev 'tx_flush' of a port with QoS 'pfc', called by a PMD thread once per
 * iteration after its rx polls while netdev_dpdk_pfc_tx_flush_pending() says
 * so, with the tx queue 'qid' it sends on: sends the PFC frames due and the
 * held packets of that tx queue whose class may send again (mbufs for PFC
 * frames from 'mp'; on a vhost-user port, to guest 'vid').  Then does the
 * same for the tx queues that hold packets and that their own thread has
 * not serviced for PFC_ADOPT_MS.  Never waits for a lock: a tx queue whose
 * lock is taken is being serviced. */
void
pfc_tx_flush(struct netdev_dpdk_pfc *pfc, int qid, struct rte_mempool *mp,
             int vid)
{
    uint64_t now = rte_get_tsc_cycles();
    struct netdev_dpdk_pfc *live, *other;
    struct pfc_wd_events ev;
    uint64_t holding;
    struct pfc_txq *t;
    bool settled;
    uint8_t down;

    atomic_read_relaxed(&pfc->port->down, &down);
    if (OVS_UNLIKELY(down)) {
        pfc_tx_flush_down(pfc);
        return;
    }
    live = pfc_lock_live(pfc, qid, true, &t);
    if (!live) {
        return;
    }
    settled = pfc_txq_settled(live, t, &now);
    if (!settled) {
        pfc_service(live, t, mp, vid, now);
    } else {
        atomic_store_relaxed(&t->serviced, now);
    }
    pfc_wd_check(live, now, &ev);
    if (settled) {
        pfc_quiet_note(live, t, now);
    }
    rte_spinlock_unlock(&t->lock);
    if (OVS_UNLIKELY(ev.detected | ev.restored)) {
        pfc_wd_log(&ev);
    }

    atomic_read_relaxed(&live->holding, &holding);
    for (; holding; holding &= holding - 1) {
        int i = raw_ctz(holding);
        uint64_t serviced;

        if (i == qid % live->n_txq || i >= live->n_txq) {
            continue;
        }
        atomic_read_relaxed(&live->txq[i].serviced, &serviced);
        if (now <= serviced || now - serviced <= live->port->rx.adopt) {
            continue;
        }
        other = pfc_lock_live(live, i, true, &t);
        if (other) {
            pfc_service(other, t, mp, vid, now);
            rte_spinlock_unlock(&t->lock);
        }
    }
}

/* pfc_tx_flush() for an ethernet port. */
void
netdev_dpdk_pfc_tx_flush(struct netdev_dpdk_pfc *pfc, int qid,
                         struct rte_mempool *mp)
{
    pfc_tx_flush(pfc, qid, mp, -1);
}

/* Holds 'm', of priority 'prio', at the tail of the queue of its traffic
 * class 'tc' in 't' (the class of 'prio', or the one that set_queue chose,
 * pfc_send_class()), if the buffer admits it (pfc_buf_txq_admit()):
 * charged to its ingress priority group, or as lossy, in the batch 'b'.
 * Returns false, without taking 'm', if admission drops it. */
static inline bool
pfc_hold(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t, struct rte_mbuf *m,
         int prio, int tc, struct pfc_buf_batch *b)
{
    struct pfc_holdq *q = &t->q[tc];
    enum pfc_buf_verdict v;
    struct pfc_held h;

    h.pkt = m;
    h.len = rte_pktmbuf_pkt_len(m);
    h.prio = prio;
    h.in_port = UINT16_MAX;
    h.lossy = true;
    if (m->port < PFC_N_PORTS && pfc_mbuf_maybe_lossless(m)) {
        bool active;

        atomic_read_relaxed(&pfc_ports[m->port].active, &active);
        if (active) {
            h.in_port = m->port;
        }
    }
    v = pfc_buf_txq_admit(pfc, t, q, &h, b, pfc_mbuf_is_copy(m));
    if (v != PFC_BUF_SHARED && v != PFC_BUF_HEADROOM) {
        return false;           /* The caller drops 'm'. */
    }

    const struct pfc_ecn_params *ecn = pfc_config_ecn(&pfc->cfg, tc);

    if (OVS_UNLIKELY(ecn->on)) {
        pfc_hold_ecn(pfc, tc, m, ecn);
    }
    ovs_assert(pfc_holdq_append(q, &h));
    t->nonempty |= 1u << tc;
    if (OVS_UNLIKELY(tc != pfc->cfg.prio_to_tc[prio])) {
        uint8_t moved;

        atomic_read_relaxed(&t->moved_tcs, &moved);
        atomic_store_relaxed(&t->moved_tcs, moved | (1u << tc));
        t->moved[tc] |= 1u << prio;
    }
    /* It may leave at the next flush; or it took cells of the buffer,
     * charged to its ingress priority group or from the shared pool (which
     * lowers every group's dynamic threshold), so that a port may now owe
     * an XOFF: the flush pass must look at every port it sends to
     * (pfc_control_pending()).  Two loads while the port is not quiet. */
    pfc_quiet_end(pfc->port);
    pfc_txq_count_held(t, &h, 1);
    if (!t->n_held++) {
        pfc_note_holding(pfc, t);
    }
    return true;
}

/* Hands the 'cnt' packets in 'pkts' to tx queue 'qid' of 'port_id', retrying
 * while the driver takes some, as netdev-dpdk does.  With userspace TSO, the
 * packets are prepared first: each one that fails preparation is freed
 * ('*n_bad' counts them), and the others are compacted, in order, at the
 * head of 'pkts'.  Returns how many the driver took; the others, pkts[sent]
 * up to the prepared count 'cnt - *n_bad', are left to the caller. */
static inline int ALWAYS_INLINE
pfc_tx_burst(struct pfc_port *port, int qid, int vid, struct rte_mbuf **pkts,
             int cnt, int *n_bad)
{
    uint16_t port_id = port - pfc_ports;
    int n = cnt;
    int sent = 0;

    *n_bad = 0;
    if (OVS_UNLIKELY(pfc_tx_prepare_needed()) && cnt
        && !pfc_port_is_vhost(port)) {
        /* rte_eth_tx_prepare() stops at the first packet that fails: free
         * that one only, and prepare the packets behind it. */
        int i = 0;

        n = 0;
        while (i < cnt) {
            uint16_t k = rte_eth_tx_prepare(port_id, qid, &pkts[i], cnt - i);

            memmove(&pkts[n], &pkts[i], k * sizeof *pkts);
            n += k;
            i += k;
            if (i < cnt) {
                VLOG_WARN_RL(&rl, "dpdk port %"PRIu16": a packet fails tx "
                             "preparation: %s", port_id,
                             rte_strerror(rte_errno));
                rte_pktmbuf_free(pkts[i++]);
                (*n_bad)++;
            }
        }
    }
    while (sent < n) {
        uint16_t k = pfc_xmit(port, qid, vid, pkts + sent, n - sent);

        if (!k) {
            break;
        }
        sent += k;
    }
    return sent;
}

/* What one pfc_send__() call did with its packets, beyond those sent.  The
 * per-priority arrays are zeroed, and 'per_prio' set, only by a call that
 * looks at the packets' priorities (pfc_tally_prios()): a batch on the fast
 * path neither writes nor reads them. */
struct pfc_send_tally {
    bool per_prio;                  /* The arrays below are in use. */
    uint64_t drops[PFC_N_PRIOS];    /* Per priority, hold drops (a full
                                     * class queue, or admission). */
    uint64_t wd_drops[PFC_N_PRIOS]; /* Per priority, dropped by the
                                     * watchdog. */
    uint64_t wd_fwd[PFC_N_PRIOS];   /* Per priority, forwarded during a
                                     * storm. */
    int held;                       /* Packets held. */
    int dropped;                    /* Packets freed. */
    int refused;                    /* Of those, lossy ones that a guest's
                                     * full virtqueue refused. */
    int n_tx_full;                  /* Held because the tx ring was full. */
    struct pfc_buf_batch batch;     /* Admission's reads of the batch. */
};

/* Zeroes the per-priority counters of 's', once per pfc_send__() call. */
static inline void
pfc_tally_prios(struct pfc_send_tally *s)
{
    if (!s->per_prio) {
        memset(s->drops, 0, sizeof s->drops);
        memset(s->wd_drops, 0, sizeof s->wd_drops);
        memset(s->wd_fwd, 0, sizeof s->wd_fwd);
        s->per_prio = true;
    }
}

/* First step of pfc_send__() on tx queue 't' of 'pfc': sends due PFC frames
 * and releasable held packets (pfc_service()), and returns the traffic
 * classes that may not send.  Sets '*now' to the TSC, or to 0 on the fast
 * path: no pause in force or pending on any priority (the cached answer of
 * pfc_blocked() says so for as long as no PFC frame is read), nothing held
 * and no PFC frame due, which does not read the TSC (but
 * pfc_control_pending() does while an XOFF is in force). */
static inline uint8_t
pfc_send_service(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
                 struct rte_mempool *mp, int vid, uint64_t *now)
{
    uint64_t gen;

    atomic_read_explicit(&pfc->port->rx.pause_gen, &gen, memory_order_acquire);
    *now = 0;
    if (OVS_LIKELY(!t->n_held && gen == t->blocked_gen
                   && t->blocked_until == UINT64_MAX
                   && !pfc_control_pending(pfc, now))) {
        *now = 0;
        return 0;
    }
    *now = rte_get_tsc_cycles();
    return (pfc_txq_settled(pfc, t, now) ? pfc_txq_blocked(pfc, t, t->blocked)
            : pfc_service(pfc, t, mp, vid, *now));
}

/* Reads the facts of tx queue 't' of 'pfc' that pfc_send_decide() needs,
 * into 'f': the traffic classes 'blocked' may not send.  Reads the shaper's
 * tokens at TSC '*now', first setting '*now' if it is 0, only if the port
 * has a shaper. */
static inline void
pfc_send_facts(struct netdev_dpdk_pfc *pfc, const struct pfc_txq *t,
               uint8_t blocked, uint64_t *now, struct pfc_send_facts *f)
{
    f->prio_to_tc = pfc->cfg.prio_to_tc;
    f->blocked = blocked;
    f->nonempty = t->n_held ? t->nonempty : 0;
    f->lossless = pfc->cfg.enabled;
    /* While the main thread requeues what 't' held (pfc_requeue()), every
     * packet is held behind it: even a stormed priority's, which a guest
     * would otherwise take at once, ahead of its older packets. */
    f->wd_ignored = OVS_UNLIKELY(t->requeue) ? 0 : t->wd_ignored;
    f->wd_dropped = OVS_UNLIKELY(t->requeue) ? 0 : t->wd_dropped;
    f->vhost = pfc_port_is_vhost(pfc->port);
    f->down = false;
    f->tokens = INT64_MAX;
    f->queues = pfc->cfg.queues;
    f->lossless_tcs = (OVS_UNLIKELY(f->queues)
                       ? pfc_tcs_blocked(f->prio_to_tc, f->lossless) : 0);
    if (OVS_UNLIKELY(pfc->sparams.rate)) {
        if (!*now) {
            *now = rte_get_tsc_cycles();
        }
        f->tokens = pfc_shaper_grant(pfc, *now);
    }
}

/* Holds 'm', of priority 'prio', in class 'tc' of tx queue 't'
 * (pfc_hold()) and tallies it in 's': returns true if it is held, else
 * counts a hold drop of 'prio' and returns false (the caller frees 'm'). */
static inline bool
pfc_send_hold(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
              struct rte_mbuf *m, int prio, int tc, struct pfc_send_tally *s)
{
    if (pfc_hold(pfc, t, m, prio, tc, &s->batch)) {
        s->held++;
        return true;
    }
    s->drops[prio]++;
    return false;
}

/* The packets of a batch that pfc_send_apply() does not send now. */
struct pfc_send_rest {
    struct rte_mbuf *pkts[PFC_TX_BURST];
    uint8_t prios[PFC_TX_BURST];    /* The priority each carries. */
    uint8_t tcs[PFC_TX_BURST];      /* With Queue rows (f->queues): the */
    uint8_t verdicts[PFC_TX_BURST]; /* class and the verdict of each. */
    int n;
};

/* The queue id that OpenFlow set_queue (or enqueue) gave 'm', 0 for none:
 * the skb_priority of its datapath metadata, which netdev-dpdk's
 * trtcm-policer reads too.  Every mbuf that netdev-dpdk sends is the first
 * member of a struct dp_packet. */
static inline uint32_t
pfc_mbuf_queue(struct rte_mbuf *m)
{
    return CONTAINER_OF(m, struct dp_packet, mbuf)->md.skb_priority;
}

/* The class of 'm', of priority 'prio', on the egress whose facts are 'f':
 * pfc_send_class() of its queue id, read only if the port has Queue rows
 * (f->queues). */
static inline int
pfc_send_mbuf_class(const struct pfc_send_facts *f, struct rte_mbuf *m,
                    int prio)
{
    return (OVS_LIKELY(!f->queues) ? f->prio_to_tc[prio]
            : pfc_send_class(f, prio, pfc_mbuf_queue(m)));
}

/* pfc_send_apply()'s first pass on a port with Queue rows (f->queues): each
 * packet's class (pfc_send_mbuf_class()) and, for a packet that set_queue
 * moved, its verdict (pfc_send_decide_moved(), with 'hold_tcs'); others
 * take 'verdicts' of their priority.  A moved packet may be held in a
 * class that sends, for its own priority's pause; the packets of that
 * class's own priorities in the batch still leave (those that the tx ring
 * refuses are held after it, in order), and the class stops from the next
 * batch on (pfc_send_blocked_moved()).  Compacts the packets to send now at
 * the head of 'pkts', in order, returns how many they are, and puts the
 * others, in order, in 'r'. */
static int
pfc_send_sort_queues(const struct pfc_send_facts *f, uint8_t hold_tcs,
                     const uint8_t verdicts[PFC_N_PRIOS],
                     struct rte_mbuf **pkts, int cnt, struct pfc_send_rest *r)
{
    int kept = 0, n_moved = 0, n_kept = 0;

    for (int i = 0; i < cnt; i++) {
        struct rte_mbuf *m = pkts[i];
        int prio = pfc_mbuf_priority(m);
        uint32_t queue = pfc_mbuf_queue(m);
        int tc = pfc_send_class(f, prio, queue);
        uint8_t v = verdicts[prio];

        if (OVS_UNLIKELY(tc != f->prio_to_tc[prio])) {
            v = pfc_send_decide_moved(f, hold_tcs, prio, tc);
            n_moved += v == PFC_SEND_HOLD;
        } else if (OVS_UNLIKELY(queue && queue < PFC_N_PRIOS
                                && queue != tc && (f->queues >> queue) & 1)) {
            n_kept++;           /* A lossless priority, kept in its class. */
        }
        if (v == PFC_SEND_TX) {
            pkts[kept++] = m;
        } else {
            r->pkts[r->n] = m;
            r->prios[r->n] = prio;
            r->tcs[r->n] = tc;
            r->verdicts[r->n++] = v;
        }
    }
    COVERAGE_ADD(pfc_set_queue_moved, n_moved);
    COVERAGE_ADD(pfc_set_queue_kept, n_kept);
    return kept;
}

/* Applies pfc_send_decide()'s verdicts, for the tx queue 't' of 'pfc' whose
 * facts are 'f', to the 'cnt' packets in 'pkts' (at most PFC_TX_BURST):
 * holds, in order, those to hold, and frees those that the watchdog drops
 * and those that their full class queue or the buffer refuses (hold drops).
 * Compacts the packets to send now at the head of 'pkts' and
 * returns how many they are.  Counts in 's'.
 *
 * The verdict is per priority, decided once for the batch, so a packet
 * costs a load (the priority it carries) and a bit test; only the packets
 * not sent now are looked at again.  On a port with Queue rows, a packet
 * also costs the load of its queue id (pfc_send_sort_queues()). */
static int
pfc_send_apply(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
               const struct pfc_send_facts *f, struct rte_mbuf **pkts,
               int cnt, struct pfc_send_tally *s)
{
    uint8_t verdicts[PFC_N_PRIOS];
    struct pfc_send_rest r;
    uint64_t bytes = 0;
    int kept = 0, n_free = 0;
    uint8_t tx;

    if (OVS_UNLIKELY(f->tokens != INT64_MAX)) {
        /* Only the shaper's rule reads the lengths. */
        for (int i = 0; i < cnt; i++) {
            bytes += rte_pktmbuf_pkt_len(pkts[i]);
        }
    }
    tx = pfc_send_decide(f, bytes, verdicts);
    r.n = 0;
    if (OVS_UNLIKELY(f->queues)) {
        kept = pfc_send_sort_queues(f, pfc_send_hold_tcs(f, bytes), verdicts,
                                    pkts, cnt, &r);
    } else {
        int n_rest = 0;

        for (int i = 0; i < cnt; i++) {
            /* Without a branch: the priorities of a batch are mixed, and a
             * mispredicted branch per held packet would cost more than the
             * stores. */
            struct rte_mbuf *m = pkts[i];
            uint8_t prio = pfc_mbuf_priority(m);
            int send = (tx >> prio) & 1;

            pkts[kept] = m;
            kept += send;
            r.prios[n_rest] = prio;
            r.pkts[n_rest] = m;
            n_rest += !send;
        }
        r.n = n_rest;
    }
    if (OVS_UNLIKELY(f->wd_ignored)) {
        /* Counted as forwarded during a storm, unless the tx ring refuses
         * them (pfc_send_tx_full()). */
        for (int i = 0; i < kept; i++) {
            int prio = pfc_mbuf_priority(pkts[i]);

            s->wd_fwd[prio] += (f->wd_ignored >> prio) & 1;
        }
    }
    for (int i = 0; i < r.n; i++) {
        struct rte_mbuf *m = r.pkts[i];
        int prio = r.prios[i];
        int tc = f->queues ? r.tcs[i] : f->prio_to_tc[prio];

        switch ((enum pfc_send_verdict) (f->queues ? r.verdicts[i]
                                         : verdicts[prio])) {
        case PFC_SEND_HOLD:
            if ((s->batch.lossy_full >> f->prio_to_tc[prio]) & 1
                && !pfc_mbuf_maybe_lossless(m)) {
                /* Refused as admission would (pfc_buf_txq_admit()): the
                 * class of its priority refused a lossy packet of this
                 * batch. */
                s->drops[prio]++;
                break;
            }
            if (pfc_send_hold(pfc, t, m, prio, tc, s)) {
                continue;
            }
            break;
        case PFC_SEND_DROP_STORM:
            s->wd_drops[prio]++;
            break;
        case PFC_SEND_TX:
        case PFC_SEND_DROP_REFUSED:
        case PFC_SEND_DROP_DOWN:
        default:
            OVS_NOT_REACHED();
        }
        /* Compacted in 'r', which is read no more: a paused class whose
         * queue is full drops every packet, freed in one go below. */
        r.pkts[n_free++] = m;
        s->dropped++;
    }
    if (n_free) {
        rte_pktmbuf_free_bulk(r.pkts, n_free);
    }
    return kept;
}

/* Sorts the 'cnt' packets in 'pkts' (at most PFC_TX_BURST: a datapath batch)
 * that pfc_send__() sends on the tx queue 't' of 'pfc' whose facts are 'f',
 * by one pfc_send_decide() for the whole batch
 * (pfc_send_apply()).  Compacts the packets to send now at the head of
 * 'pkts' and returns how many they are.  Counts in 's'.  Not called while
 * pfc_send_all_tx(): then every packet is sent. */
BUILD_ASSERT_DECL(NETDEV_MAX_BURST <= PFC_TX_BURST);
static int
pfc_send_classify(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
                  const struct pfc_send_facts *f, struct rte_mbuf **pkts,
                  int cnt, struct pfc_send_tally *s)
{
    ovs_assert(cnt <= PFC_TX_BURST);    /* A datapath batch, decided whole. */
    pfc_tally_prios(s);
    return pfc_send_apply(pfc, t, f, pkts, cnt, s);
}

/* The 'cnt' packets in 'pkts' (at most PFC_TX_BURST), prepared, were
 * refused by the full tx ring of tx queue 't' of 'pfc' (or the guest's full
 * virtqueue), whose facts are 'f': applies pfc_send_refused()'s verdicts.
 * Those held are held behind nothing (their classes had no
 * packets held, or pfc_send_decide() would have held them).  Counts in
 * 's'. */
static void
pfc_send_tx_full__(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
                   const struct pfc_send_facts *f, struct rte_mbuf **pkts,
                   int cnt, struct pfc_send_tally *s)
{
    uint8_t verdicts[PFC_N_PRIOS];

    pfc_send_refused(f, verdicts);
    for (int i = 0; i < cnt; i++) {
        struct rte_mbuf *m = pkts[i];
        int prio = pfc_mbuf_priority(m);
        int tc = pfc_send_mbuf_class(f, m, prio);

        /* Counted as forwarded by pfc_send_apply(), but not sent now: if
         * it is held, pfc_drain() counts it when it leaves. */
        s->wd_fwd[prio] -= (f->wd_ignored >> prio) & 1;
        switch ((enum pfc_send_verdict) verdicts[prio]) {
        case PFC_SEND_HOLD:
            if (pfc_send_hold(pfc, t, m, prio, tc, s)) {
                if (OVS_UNLIKELY(tc != f->prio_to_tc[prio])) {
                    COVERAGE_INC(pfc_set_queue_moved);
                }
                s->n_tx_full++;
                continue;
            }
            break;
        case PFC_SEND_DROP_STORM:
            s->wd_drops[prio]++;
            break;
        case PFC_SEND_DROP_REFUSED:
        case PFC_SEND_DROP_DOWN:
            /* A lossy priority that the guest's virtqueue refuses is
             * retried first, by pfc_tx_burst(), while the guest takes
             * some.  Counted by netdev-dpdk as a tx failure. */
            s->refused++;
            break;
        case PFC_SEND_TX:
        default:
            OVS_NOT_REACHED();
        }
        rte_pktmbuf_free(m);
        s->dropped++;
    }
}

/* pfc_send_tx_full__() with the link state read now. */
static void
pfc_send_tx_full(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
                 struct pfc_send_facts *f, struct rte_mbuf **pkts, int cnt,
                 struct pfc_send_tally *s)
{
    uint8_t down;

    atomic_read_relaxed(&pfc->port->down, &down);
    f->down = down;
    ovs_assert(cnt <= PFC_TX_BURST);
    pfc_tally_prios(s);
    pfc_send_tx_full__(pfc, t, f, pkts, cnt, s);
}

/* Adds what one pfc_send__() call on tx queue 't' of 'pfc' tallied in 's'
 * to the counters of 't' and, during a storm, to the watchdog counters of
 * the port. */
static inline void
pfc_send_count(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
               const struct pfc_send_tally *s)
{
    if (OVS_LIKELY(!s->per_prio)) {
        return;
    }
    if (OVS_UNLIKELY(t->wd_ignored)) {
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            pfc_count_storm(&pfc->port->wd.tx_dropped[n], s->wd_drops[n]);
            pfc_count_storm(&pfc->port->wd.tx_forwarded[n], s->wd_fwd[n]);
        }
    }
    if (s->dropped) {
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            if (s->drops[n]) {
                pfc_count(&t->hold_drops[n], s->drops[n]);
            }
        }
    }
    if (s->n_tx_full) {
        pfc_count(&t->tx_full_held, s->n_tx_full);
    }
}

/* Applies PFC to the 'cnt' packets in 'pkts' to be sent on tx queue 't' of
 * 'pfc', and sends them.  Due PFC frames and releasable held packets go
 * first.  Packets whose traffic class is paused, or has packets already held
 * on this tx queue, are held in order.  The others are handed to the NIC;
 * what its tx ring refuses (the ring is kept small on PFC ports, see
 * netdev_dpdk_pfc_txq_size()) is held too, instead of being dropped, so that
 * a congested egress adds to the occupancy of its ingress ports and ends in
 * XOFF rather than loss.  A packet whose class queue is full is freed and
 * counted as a hold drop.
 *
 * Sets '*n_taken' to the packets sent or held and '*n_dropped' to those
 * freed; the two add up to 'cnt'.  Of those freed, '*n_refused' are
 * packets of a lossy priority that a guest's full virtqueue refused (vhost
 * ports only), which netdev-dpdk counts as tx failures, as without PFC. */
static inline void ALWAYS_INLINE
pfc_send__(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
           struct rte_mempool *mp, int vid, struct rte_mbuf **pkts, int cnt,
           int *n_taken, int *n_dropped, int *n_refused)
{
    struct pfc_send_facts f;
    struct pfc_send_tally s;
    uint64_t now;
    int qid = t - pfc->txq;
    int kept, sent, n_bad;
    uint8_t blocked;

    /* Not the arrays: see pfc_tally_prios(). */
    s.per_prio = false;
    s.held = s.dropped = s.refused = s.n_tx_full = 0;
    s.batch.free = UINT64_MAX;
    s.batch.lossy_full = 0;

    blocked = pfc_send_service(pfc, t, mp, vid, &now);
    f.prio_to_tc = NULL;        /* The facts are not read yet. */
    if (OVS_LIKELY(pfc_send_fast(blocked, t->n_held, t->wd_ignored,
                                 pfc->sparams.rate))) {
        kept = cnt;
    } else {
        pfc_send_facts(pfc, t, blocked, &now, &f);
        if (!now) {
            now = rte_get_tsc_cycles();     /* For t->serviced. */
        }
        kept = pfc_send_classify(pfc, t, &f, pkts, cnt, &s);
    }

    uint64_t offered = 0;

    if (OVS_UNLIKELY(pfc->sparams.rate)) {
        /* Read before the driver owns them. */
        for (int i = 0; i < kept; i++) {
            offered += rte_pktmbuf_pkt_len(pkts[i]);
        }
    }
    sent = pfc_tx_burst(pfc->port, qid, vid, pkts, kept, &n_bad);
    if (OVS_UNLIKELY(offered)) {
        /* What left, and what failed preparation: the shaper errs on the
         * slow side. */
        for (int i = sent; i < kept - n_bad; i++) {
            offered -= rte_pktmbuf_pkt_len(pkts[i]);
        }
        pfc_shaper_spend(pfc, offered);
    }
    s.dropped += n_bad;
    if (OVS_UNLIKELY(pfc_port_is_vhost(pfc->port)) && kept > n_bad) {
        pfc_vq_note(t, sent, kept - n_bad);
    }
    if (sent < kept - n_bad) {
        /* The tx ring is full. */
        if (!f.prio_to_tc) {
            pfc_send_facts(pfc, t, blocked, &now, &f);
        }
        if (!now) {
            now = rte_get_tsc_cycles();     /* For t->serviced. */
        }
        pfc_send_tx_full(pfc, t, &f, &pkts[sent], kept - n_bad - sent, &s);
    }

    pfc_send_count(pfc, t, &s);
    if (now) {
        atomic_store_relaxed(&t->serviced, now);
    }
    *n_taken = sent + s.held;
    *n_dropped = s.dropped;
    *n_refused = s.refused;
}

/* Rewrites the markings of the 'cnt' packets in 'pkts' from the priority
 * each carries, as 'rw' (rewrite-pcp, rewrite-dscp) asks
 * (pfc_rewrite_frame()).  The IPv4 header rewritten is the outermost one,
 * and its checksum is always updated: where the NIC computes that header's
 * checksum it overwrites the field anyway, and where it computes another
 * one (the inner header of a tunnel packet, whose outer checksum Open
 * vSwitch computed in software) the update is what keeps it valid. */
static void
pfc_send_rewrite(const struct pfc_rewrite *rw, struct rte_mbuf **pkts,
                 int cnt)
{
    for (int i = 0; i < cnt; i++) {
        struct rte_mbuf *m = pkts[i];

        pfc_rewrite_frame(rte_pktmbuf_mtod(m, void *),
                          rte_pktmbuf_data_len(m), pfc_mbuf_priority(m), rw);
    }
}

/* pfc_send__() on tx queue 'qid' of the live object that 'pfc' is or was
 * replaced by, under that tx queue's lock, after the egress remarking of
 * 'pfc' (pfc_send_rewrite()).  Returns 'cnt' if PFC no longer applies to
 * the port (nothing was done), else 0. */
static inline int ALWAYS_INLINE
pfc_send_locked__(struct netdev_dpdk_pfc *pfc, int qid, struct rte_mempool *mp,
                  int vid, struct rte_mbuf **pkts, int cnt, int *n_taken,
                  int *n_dropped, int *n_refused)
{
    struct pfc_txq *t;

    *n_taken = *n_dropped = *n_refused = 0;
    if (OVS_UNLIKELY(pfc->cfg.rewrite.pcp || pfc->cfg.rewrite.dscp_prios)) {
        /* Immutable in an object: a change of the keys makes a new one. */
        pfc_send_rewrite(&pfc->cfg.rewrite, pkts, cnt);
    }
    pfc = pfc_lock_live(pfc, qid, false, &t);
    if (!pfc) {
        return cnt;
    }
    if (!pfc->port) {
        rte_spinlock_unlock(&t->lock);
        return cnt;
    }
    pfc_send__(pfc, t, mp, vid, pkts, cnt, n_taken, n_dropped, n_refused);
    rte_spinlock_unlock(&t->lock);
    return 0;
}

int
pfc_send_locked(struct netdev_dpdk_pfc *pfc, int qid, struct rte_mempool *mp,
                int vid, struct rte_mbuf **pkts, int cnt, int *n_taken,
                int *n_dropped, int *n_refused)
{
    return pfc_send_locked__(pfc, qid, mp, vid, pkts, cnt, n_taken,
                             n_dropped, n_refused);
}

/* Applies PFC to the 'cnt' packets in 'pkts' to be sent on tx queue 'qid',
 * and sends them (pfc_send__()).  The caller holds netdev-dpdk's tx queue
 * lock if the queue is shared.  Returns how many of 'pkts' are left for the
 * caller to send: 0, or 'cnt' if PFC no longer applies to the port.  Sets
 * '*n_taken' to the packets sent or held, and adds those freed (a full
 * traffic class queue) to '*qos_drops'. */
int
netdev_dpdk_pfc_send(struct netdev_dpdk_pfc *pfc, int qid,
                     struct rte_mempool *mp, struct rte_mbuf **pkts, int cnt,
                     int *n_taken, uint64_t *qos_drops)
{
    int dropped, refused;
    int left;

    left = pfc_send_locked__(pfc, qid, mp, -1, pkts, cnt, n_taken, &dropped,
                             &refused);
    *qos_drops += dropped;
    return left;
}

/* Hands 'cnt' packets to tx queue 'qid' of 'port' (of guest 'vid' for a
 * vhost-user port, pfc_xmit()), retrying for up to about 1 ms while the
 * ring is full.  Returns how many the driver took. */
int
pfc_tx_burst_blocking(struct pfc_port *port, int qid, int vid,
                      struct rte_mbuf **pkts, int cnt)
{
    int sent = 0;

    for (int tries = 0; sent < cnt && tries < 1000; tries++) {
        uint16_t k = pfc_xmit(port, qid, vid, pkts + sent, cnt - sent);

        sent += k;
        if (!k) {
            rte_delay_us_block(1);
        }
    }
    return sent;
}

/* Locks every tx queue of 'pfc', in order.  For the main thread, which may
 * wait meanwhile for a transmit thread to finish a batch. */
void
pfc_txqs_lock(struct netdev_dpdk_pfc *pfc)
{
    for (int i = 0; i < pfc->n_txq; i++) {
        rte_spinlock_lock(&pfc->txq[i].lock);
    }
    if (pfc->port) {
        pfc_quiet_end(pfc->port);   /* What the caller changes may end it. */
    }
}

/* Unlocks every tx queue of 'pfc', in the reverse order. */
void
pfc_txqs_unlock(struct netdev_dpdk_pfc *pfc)
{
    for (int i = pfc->n_txq - 1; i >= 0; i--) {
        rte_spinlock_unlock(&pfc->txq[i].lock);
    }
}
