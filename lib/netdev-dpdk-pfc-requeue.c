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

/* Requeueing of the DPDK glue of PFC (the opening comment of
 * lib/netdev-dpdk-pfc.c describes the threads and locks): what the main
 * thread does to the held packets of a QoS object when the priority to
 * traffic class map changes (a Queue row) or its class queues get other
 * sizes (pfc-enable, a vector that DCBX adopted).
 *
 * Transmit threads wait for a tx queue's lock, so the main thread holds
 * one only for work that does not grow with what is held:
 *
 *   1. Under every tx queue lock of the object, for as long as it takes to
 *      copy 8 queue headers per tx queue: it detaches the class queues of
 *      each tx queue, with their packets, and puts empty ones of the new
 *      sizes in their place; the new map takes effect.  A tx queue that
 *      held packets is marked 'requeue': until step 3, its transmit
 *      threads send nothing from it and hold every new packet, in the
 *      class of the new map (pfc_blocked() reports every class blocked).
 *      PFC frames still leave: an XOFF is not delayed.
 *
 *   2. With no lock held, it sorts the detached packets into class queues
 *      of the new map (pfc_holdq_regroup()), in order per priority, and
 *      frees the detached rings.
 *
 *   3. One tx queue at a time, under that queue's lock only, it puts the
 *      sorted packets ahead of those held meanwhile (pfc_holdq_join(): it
 *      copies the fewer of the two), and clears 'requeue'.  If a ring is
 *      short of room for both, it lets go of the lock, grows the ring, and
 *      tries again.
 *
 * No packet is dropped: the sorted queues have a slot for each packet.  The
 * ingress buffer occupancy that the packets are charged to does not
 * change, nor do the held counts of a tx queue's priorities: a packet stays
 * on its tx queue. */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <string.h>

#include <rte_cycles.h>
#include <rte_spinlock.h>

#include "coverage.h"
#include "openvswitch/vlog.h"
#include "pfc-holdq.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc_requeue);

COVERAGE_DEFINE(pfc_requeue);
COVERAGE_DEFINE(pfc_requeue_retry);

/* The packets that one tx queue gets while they are requeued. */
struct pfc_requeue_txq {
    struct pfc_holdq (*old)[PFC_N_PRIOS];   /* 'n_old' sets of detached
                                             * class queues, oldest
                                             * first. */
    size_t n_old;
    struct pfc_holdq new[PFC_N_PRIOS];  /* Sorted by the new map; no ring
                                         * where the class gets none. */
    struct pfc_holdq_tally tally;       /* What new[] got, per priority. */
    uint32_t n_held;                    /* Packets in old[], at step 1. */
};

/* Returns the slots of the traffic class queue of class 'tc' under 'cfg':
 * room for the whole buffer if a priority in pfc-enable maps to it, so that
 * every packet that admission holds has a slot, and a lossless packet is
 * never dropped for want of one (it goes into headroom, and XOFF);
 * otherwise queue-size, or PFC_LOSSY_QUEUE_SLOTS. */
uint32_t
pfc_class_slots(const struct pfc_config *cfg, int tc)
{
    if (pfc_tcs_prios(cfg->prio_to_tc, 1u << tc) & cfg->enabled) {
        return PFC_BUF_CELLS_MAX;
    }
    return cfg->queue_size ? cfg->queue_size : PFC_LOSSY_QUEUE_SLOTS;
}

/* Step 1: detaches the class queues of every tx queue of 'pfc' into 'rq',
 * puts 'empty' (n_txq x PFC_N_PRIOS queues, allocated by the caller) in
 * their place, and makes 'cfg' the configuration in force.  Takes every tx
 * queue lock, and copies only queue headers under them.  Returns the TSC
 * cycles for which it held them. */
static uint64_t
pfc_requeue_detach(struct netdev_dpdk_pfc *pfc, const struct pfc_config *cfg,
                   struct pfc_requeue_txq *rq, struct pfc_holdq *empty)
{
    uint64_t start;

    pfc_txqs_lock(pfc);
    start = rte_get_tsc_cycles();
    for (int i = 0; i < pfc->n_txq; i++) {
        struct pfc_txq *t = &pfc->txq[i];

        memcpy(rq[i].old[0], t->q, sizeof t->q);
        memcpy(t->q, &empty[i * PFC_N_PRIOS], sizeof t->q);
        rq[i].n_held = t->n_held;
        t->requeue = t->n_held != 0;
        t->n_held = 0;
        pfc_txq_all_empty(t);
        t->blocked_until = 0;   /* The classes blocked may have changed. */
    }
    pfc->cfg = *cfg;
    start = rte_get_tsc_cycles() - start;
    pfc_txqs_unlock(pfc);
    return start;
}

/* Step 2, with no lock held: sorts the packets detached for one tx queue
 * into rq->new[] by 'prio_to_tc', with 'slots' as limits and 'margin' more
 * slots for what its transmit threads hold meanwhile, and counts them in
 * rq->tally. */
static void
pfc_requeue_sort(struct pfc_requeue_txq *rq,
                 const uint8_t prio_to_tc[PFC_N_PRIOS],
                 const uint32_t slots[PFC_N_PRIOS], uint32_t margin)
{
    uint32_t need[PFC_N_PRIOS] = { 0 };

    memset(rq->new, 0, sizeof rq->new);
    memset(&rq->tally, 0, sizeof rq->tally);
    for (size_t k = 0; k < rq->n_old; k++) {
        pfc_holdq_count_by_class(rq->old[k], prio_to_tc, need);
    }
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        if (need[tc]) {
            pfc_holdq_init(&rq->new[tc], MAX(slots[tc], need[tc] + margin));
            rq->new[tc].limit = slots[tc];
        }
    }
    for (size_t k = 0; k < rq->n_old; k++) {
        pfc_holdq_regroup(rq->old[k], prio_to_tc, rq->new, &rq->tally);
    }
}

/* Adds the packets of 'tally' to the held counts of tx queue 't', and if
 * 'owner' to those of its object, with 'sign' +1, or takes them off with
 * -1; not the lossy counts. */
static void
pfc_requeue_add_held(struct pfc_txq *t, const struct pfc_holdq_tally *tally,
                     int sign, bool owner)
{
    for (int p = 0; p < PFC_N_PRIOS; p++) {
        uint32_t orig;

        if (!tally->pkts[p]) {
            continue;
        }
        pfc_count(&t->held_pkts[p], sign * tally->pkts[p]);
        pfc_count(&t->held_bytes[p], sign * tally->bytes[p]);
        if (!owner) {
            continue;
        } else if (sign > 0) {
            atomic_add_relaxed(&t->owner->held_prio[p], tally->pkts[p], &orig);
        } else {
            atomic_sub_relaxed(&t->owner->held_prio[p], tally->pkts[p], &orig);
        }
    }
}

/* Step 3 for tx queue 't' of 'pfc': puts the packets sorted in rq->new[]
 * ahead of those that 't' held meanwhile, under t->lock alone, and lets
 * its transmit threads send again.  Grows a ring that is short of
 * room with no lock held, and tries again.  Frees the rings left over.
 * Adds to '*copied' the entries copied under the lock, and raises
 * '*locked' to the TSC cycles for which it held it, if longer. */
static void
pfc_requeue_join(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
                 struct pfc_requeue_txq *rq, uint32_t margin,
                 uint64_t *copied, uint64_t *locked)
{
    for (;;) {
        uint32_t short_of[PFC_N_PRIOS] = { 0 };
        bool done = true;

        uint64_t start;

        rte_spinlock_lock(&t->lock);
        start = rte_get_tsc_cycles();
        t->n_held = 0;
        t->nonempty = 0;
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            if (!pfc_holdq_join(&t->q[tc], &rq->new[tc], copied)) {
                short_of[tc] = t->q[tc].n;
                done = false;
            }
            t->n_held += t->q[tc].n;
            t->nonempty |= (t->q[tc].n != 0) << tc;
        }
        if (done) {
            t->requeue = false;
            t->blocked_until = 0;
        }
        pfc_note_holding(pfc, t);
        start = rte_get_tsc_cycles() - start;
        rte_spinlock_unlock(&t->lock);
        *locked = MAX(*locked, start);
        if (done) {
            break;
        }
        COVERAGE_INC(pfc_requeue_retry);
        margin *= 2;
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            if (short_of[tc]) {
                pfc_holdq_reserve(&rq->new[tc],
                                  rq->new[tc].n + short_of[tc] + margin);
            }
        }
    }
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        pfc_holdq_destroy(&rq->new[tc]);
    }
}

/* Steps 2 and 3 for every tx queue of 'pfc' in turn, under its
 * configuration in force, so that the first wait the least, for packets
 * detached from 'from': 'pfc' itself, or the object it replaces, whose
 * lossy counts then move to 'pfc' as the sort finds them.  Frees the
 * detached rings, also those that held nothing.  Logs what moved, the
 * entries copied under a lock and the longest time a lock was held ('locked'
 * TSC cycles in step 1, or longer in step 3), unless nothing moved.  Frees
 * 'rq'. */
static void
pfc_requeue_finish(struct netdev_dpdk_pfc *pfc, struct pfc_requeue_txq *rq,
                   struct netdev_dpdk_pfc *from, uint64_t locked)
{
    const uint32_t margin = 4 * PFC_TX_BURST;
    uint32_t slots[PFC_N_PRIOS];
    uint64_t moved = 0, copied = 0;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        slots[tc] = pfc_class_slots(&pfc->cfg, tc);
    }
    for (int i = 0; i < pfc->n_txq; i++) {
        if (rq[i].n_held) {
            pfc_requeue_sort(&rq[i], pfc->cfg.prio_to_tc, slots, margin);
            for (int p = 0; from != pfc && p < PFC_N_PRIOS; p++) {
                uint32_t lossy = rq[i].tally.lossy[p], orig;

                atomic_sub_relaxed(&from->lossy_prio[p], lossy, &orig);
                atomic_add_relaxed(&pfc->lossy_prio[p], lossy, &orig);
            }
            pfc_requeue_join(pfc, &pfc->txq[i], &rq[i], margin, &copied,
                             &locked);
            moved += rq[i].n_held;
        }
        for (size_t k = 0; k < rq[i].n_old; k++) {
            for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
                pfc_holdq_destroy(&rq[i].old[k][tc]);
            }
        }
        free(rq[i].old);
    }
    free(rq);
    if (moved) {
        VLOG_INFO("%s: PFC: %"PRIu64" held packets requeued for the new "
                  "traffic classes; %"PRIu64" queue entries copied under "
                  "a tx queue lock; tx queue locks held at most %.1f us",
                  pfc->port ? pfc->port->name : "?", moved, copied,
                  locked * 1e6 / rte_get_tsc_hz());
    }
}

/* Makes 'cfg' the configuration in force of 'pfc' and gives every traffic
 * class queue the slots that it asks for (pfc_class_slots()), moving each
 * held packet to the queue of the class that its priority maps to now, in
 * order per priority, ahead of what is held after the change (see the
 * opening comment).  Drops nothing.  The caller holds netdev-dpdk's mutex
 * of the port (the main thread, or the thread that rebinds a port whose
 * link came up), which serializes every change of the configuration and
 * the class queues of a QoS object. */
void
pfc_requeue(struct netdev_dpdk_pfc *pfc, const struct pfc_config *cfg)
{
    int n = pfc->n_txq;
    struct pfc_requeue_txq *rq = xcalloc(MAX(n, 1), sizeof *rq);
    struct pfc_holdq *empty = xcalloc(MAX(n, 1) * PFC_N_PRIOS, sizeof *empty);

    COVERAGE_INC(pfc_requeue);
    for (int i = 0; i < n; i++) {
        rq[i].old = xmalloc(sizeof *rq[i].old);
        rq[i].n_old = 1;
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            pfc_holdq_init(&empty[i * PFC_N_PRIOS + tc],
                           pfc_class_slots(cfg, tc));
        }
    }
    /* While packets are set aside, their cells stay charged with no tx
     * queue counting them: the requeue itself is a reason to flush, so
     * that an XOFF that they make due is sent meanwhile. */
    netdev_tx_flush_want(true);
    uint64_t locked = pfc_requeue_detach(pfc, cfg, rq, empty);

    free(empty);
    pfc_requeue_finish(pfc, rq, pfc, locked);
    netdev_tx_flush_want(false);
    if (pfc->port) {
        pfc_quiet_end(pfc->port);
    }
}

/* Moves the packets held by 'old' into 'new', which replaces it as the QoS
 * object of the same port and which no thread uses yet, and retires 'old'
 * (netdev_dpdk_pfc_succeed()).  Tx queue i of 'old' goes to tx queue
 * i % n of 'new', after those of lower i, in the classes of the map of
 * 'new': the packets of a flow all come from one tx queue, so they stay in
 * order.  As pfc_requeue(), under the locks of 'old' it only sets the
 * class queues aside, and the tx queues of 'new' that get packets send
 * nothing, and hold every packet, until theirs are put ahead. */
void
pfc_requeue_into(struct netdev_dpdk_pfc *old, struct netdev_dpdk_pfc *new)
{
    int nn = new->n_txq;
    struct pfc_requeue_txq *rq = xcalloc(nn, sizeof *rq);

    COVERAGE_INC(pfc_requeue);
    for (int j = 0; j < nn; j++) {
        rq[j].n_old = old->n_txq / nn + (j < old->n_txq % nn);
        rq[j].old = xcalloc(MAX(rq[j].n_old, 1), sizeof *rq[j].old);
    }
    uint64_t locked;

    netdev_tx_flush_want(true);     /* As in pfc_requeue(). */
    pfc_txqs_lock(old);
    locked = rte_get_tsc_cycles();
    for (int i = 0; i < old->n_txq; i++) {
        struct pfc_txq *from = &old->txq[i];
        struct pfc_requeue_txq *to = &rq[i % nn];
        struct pfc_holdq_tally tally;

        memcpy(to->old[i / nn], from->q, sizeof from->q);
        memset(from->q, 0, sizeof from->q);
        if (from->n_held) {
            /* The held counts move to 'new' now, so that its egress bound
             * and ECN count the packets while they are set aside, and a
             * packet that leaves is taken off counts that have it.  The
             * lossy counts move once the sort finds them. */
            memset(&tally, 0, sizeof tally);
            for (int p = 0; p < PFC_N_PRIOS; p++) {
                atomic_read_relaxed(&from->held_pkts[p], &tally.pkts[p]);
                atomic_read_relaxed(&from->held_bytes[p], &tally.bytes[p]);
            }
            pfc_requeue_add_held(from, &tally, -1, true);
            pfc_requeue_add_held(&new->txq[i % nn], &tally, 1, true);
            to->n_held += from->n_held;
            new->txq[i % nn].requeue = true;
        }
        from->n_held = 0;
        pfc_txq_all_empty(from);
        pfc_note_holding(old, from);
    }
    old->retired = true;
    old->next = new;
    locked = rte_get_tsc_cycles() - locked;
    pfc_txqs_unlock(old);
    pfc_requeue_finish(new, rq, old, locked);
    netdev_tx_flush_want(false);
    if (new->port) {
        pfc_quiet_end(new->port);
    }
}

/* Frees the 'n' packets held in the class queues 'q', which were set aside
 * from tx queue 'from' of 'pfc' with the tx queue's held counts already
 * taken off: off the pool, their ingress groups and the object's held
 * counts, counted as hold drops of 'from' (taking its lock once) and in
 * tx_dropped.  No lock held.  Empties 'q'. */
static void
pfc_requeue_free(struct netdev_dpdk_pfc *pfc, struct pfc_txq *from,
                 struct pfc_holdq q[PFC_N_PRIOS], size_t n)
{
    uint64_t drops[PFC_N_PRIOS] = { 0 }, orig;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        for (uint32_t i = 0; i < q[tc].n; i++) {
            const struct pfc_held *h = pfc_holdq_peek(&q[tc], i);
            uint32_t orig32;

            pfc_buf_txq_release(NULL, h);
            atomic_sub_relaxed(&pfc->held_prio[h->prio], 1, &orig32);
            if (h->lossy) {
                atomic_sub_relaxed(&pfc->lossy_prio[h->prio], 1, &orig32);
            }
            drops[h->prio]++;
            rte_pktmbuf_free(h->pkt);
        }
        pfc_holdq_pop(&q[tc], q[tc].n);
    }
    rte_spinlock_lock(&from->lock);
    for (int p = 0; p < PFC_N_PRIOS; p++) {
        pfc_count(&from->hold_drops[p], drops[p]);
    }
    rte_spinlock_unlock(&from->lock);
    atomic_add_relaxed(&pfc->port->held_dropped, n, &orig);
}

/* For a vhost-user port 'pfc' whose guest disabled ('disabled') or enabled
 * the receive virtqueue of queue pair 'from' (netdev_dpdk_pfc_vhost_txq_
 * state()).  Once disabled, the flows of 'from' go to queue pair 'dst', or
 * to none if 'dst' is NULL: what 'from' holds is older than what they hold
 * in 'dst' from now on, so it moves ahead of what 'dst' holds, in order, as
 * pfc_requeue() moves packets: under the two tx queues' locks only queue
 * headers move, and 'dst' holds every packet and sends none until they
 * are joined.  Without 'dst', they are freed once the locks are released,
 * counted as hold drops and in tx_dropped.  Returns how many moved, and
 * stores how many were freed in '*freed'.  With netdev-dpdk's mutex of the
 * port (pfc_requeue()). */
size_t
pfc_requeue_vq(struct netdev_dpdk_pfc *pfc, struct pfc_txq *from,
               struct pfc_txq *dst, bool disabled, size_t *freed)
{
    const uint32_t margin = 4 * PFC_TX_BURST;
    struct pfc_requeue_txq rq;
    struct pfc_holdq empty[2][PFC_N_PRIOS];
    uint32_t slots[PFC_N_PRIOS];
    uint64_t locked, copied = 0;
    size_t moved = 0;

    *freed = 0;
    netdev_tx_flush_want(true);     /* As in pfc_requeue(). */
    memset(&rq, 0, sizeof rq);
    rq.old = xcalloc(2, sizeof *rq.old);
    memset(empty, 0, sizeof empty);
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        slots[tc] = pfc_class_slots(&pfc->cfg, tc);
        for (int k = 0; disabled && k < 2; k++) {
            pfc_holdq_init(&empty[k][tc], slots[tc]);
        }
    }
    /* In index order, as pfc_txqs_lock(). */
    rte_spinlock_lock(dst && dst < from ? &dst->lock : &from->lock);
    if (dst) {
        rte_spinlock_lock(dst < from ? &from->lock : &dst->lock);
    }
    locked = rte_get_tsc_cycles();
    from->vq_disabled = disabled;
    if (disabled && from->n_held) {
        struct pfc_holdq_tally tally;

        memset(&tally, 0, sizeof tally);
        for (int p = 0; p < PFC_N_PRIOS; p++) {
            atomic_read_relaxed(&from->held_pkts[p], &tally.pkts[p]);
            atomic_read_relaxed(&from->held_bytes[p], &tally.bytes[p]);
        }
        pfc_requeue_add_held(from, &tally, -1, dst != NULL);
        memcpy(rq.old[0], from->q, sizeof from->q);
        memcpy(from->q, empty[0], sizeof from->q);
        memset(empty[0], 0, sizeof empty[0]);
        rq.n_old = 1;
        rq.n_held = moved = from->n_held;
        from->n_held = 0;
        pfc_txq_all_empty(from);
        if (dst) {
            pfc_requeue_add_held(dst, &tally, 1, true);
            memcpy(rq.old[1], dst->q, sizeof dst->q);
            memcpy(dst->q, empty[1], sizeof dst->q);
            memset(empty[1], 0, sizeof empty[1]);
            rq.n_old = 2;
            rq.n_held += dst->n_held;
            dst->requeue = true;
            dst->n_held = 0;
            pfc_txq_all_empty(dst);
            dst->blocked_until = 0;
            pfc_note_holding(pfc, dst);
        }
    }
    pfc_note_holding(pfc, from);    /* Emptied: no flush is pending. */
    pfc_buf_txq_give_cache(from);
    locked = rte_get_tsc_cycles() - locked;
    if (dst) {
        rte_spinlock_unlock(&dst->lock);
    }
    rte_spinlock_unlock(&from->lock);

    if (rq.n_old && dst) {
        pfc_requeue_sort(&rq, pfc->cfg.prio_to_tc, slots, margin);
        pfc_requeue_join(pfc, dst, &rq, margin, &copied, &locked);
    } else if (rq.n_old) {
        pfc_requeue_free(pfc, from, rq.old[0], moved);
        *freed = moved;
        moved = 0;
    }
    for (size_t k = 0; k < 2; k++) {
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            pfc_holdq_destroy(&rq.old[k][tc]);
            pfc_holdq_destroy(&empty[k][tc]);
        }
    }
    free(rq.old);
    netdev_tx_flush_want(false);
    if (pfc->port) {
        pfc_quiet_end(pfc->port);
    }
    if (moved || *freed) {
        VLOG_INFO("%s: the guest disabled queue pair %d: %"PRIuSIZE" held "
                  "packets moved to queue pair %d, %"PRIuSIZE" freed (hold "
                  "drops, tx_dropped); %"PRIu64" queue entries copied under "
                  "a tx queue lock; tx queue locks held at most %.1f us",
                  pfc->port->name, (int) (from - pfc->txq), moved,
                  dst ? (int) (dst - pfc->txq) : -1, *freed, copied,
                  locked * 1e6 / rte_get_tsc_hz());
    }
    return moved;
}

/* Gives every traffic class queue of 'pfc' the slots that its priority map
 * and the vector in force ask for (pfc_class_slots()), if one has other
 * slots now (pfc_requeue(), whose caller's lock it needs). */
void
pfc_class_queues_fit(struct netdev_dpdk_pfc *pfc)
{
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        uint32_t slots = pfc_class_slots(&pfc->cfg, tc);

        for (int i = 0; i < pfc->n_txq; i++) {
            if (pfc->txq[i].q[tc].limit != slots) {
                struct pfc_config cfg = pfc->cfg;

                pfc_requeue(pfc, &cfg);
                return;
            }
        }
    }
}
