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

/* DPDK glue of the shared-buffer traffic manager (lib/pfc-buffer.h): the
 * counters that PMD threads share, and the calls that charge a held packet
 * to them and take it off again.  The decisions are pfc_buf_admit()'s and
 * pfc_buf_release()'s; this file keeps their inputs in atomics.
 *
 *   - The shared pool: one for the switch (pfc_pool).  'used' counts the
 *     cells that tx queues took for their caches (struct pfc_buf_cache): it
 *     is written once per PFC_BUF_CHUNK cells, never per packet.  Its size
 *     is computed by the main thread (pfc_pool_resize()) whenever a port's
 *     PFC is bound or removed.
 *
 *   - A priority group's cells: one 64-bit atomic per (port, priority),
 *     shared cells in the low half and headroom cells in the high half, so
 *     that a release, which gives headroom back first, changes both in one
 *     compare-and-swap.  Bytes in a second atomic.
 *
 *   - A priority group's thresholds, published by its port's bind in one
 *     64-bit atomic (pfc_buf_pub_pack()) for the threads that admit its
 *     packets at another port's egress, and the static XOFF in bytes in a
 *     second one.
 *
 *   - An egress's occupancy is its traffic class queue's (struct
 *     pfc_holdq, n and n_lossy), under its tx queue's lock.
 *
 * At admission it also raises the watermarks (struct pfc_wm) and, for a
 * class with ECN keys, marks the packet (pfc_hold_ecn(), lib/pfc-ecn.h
 * decides). */

#include <config.h>
#include "netdev-dpdk-pfc-private.h"

#include <rte_mbuf.h>

#include "ovs-thread.h"
#include "pfc-buffer.h"
#include "pfc-ecn.h"
#include "random.h"
#include "util.h"

struct pfc_pool pfc_pool;

/* Serializes pfc_pool_resize(). */
static struct ovs_mutex pfc_pool_mutex = OVS_MUTEX_INITIALIZER;

/* Sizes the shared pool from the ports that have PFC: the smallest of what
 * they may hold of their mempools, less the headroom that each reserves for
 * its lossless priority groups.  Any thread but a PMD thread. */
void
pfc_pool_resize(void)
{
    uint64_t mbufs = UINT64_MAX, reserved = 0;
    struct pfc_buf_size size;

    ovs_mutex_lock(&pfc_pool_mutex);
    for (int i = 0; i < PFC_N_PORTS; i++) {
        struct pfc_port *port = &pfc_ports[i];
        uint64_t m, r;
        bool active;

        atomic_read_relaxed(&port->active, &active);
        if (!active) {
            continue;
        }
        atomic_read_relaxed(&port->buf.mbufs, &m);
        atomic_read_relaxed(&port->buf.reserved, &r);
        mbufs = MIN(mbufs, m);
        reserved += r;
    }
    pfc_buf_size(&size, mbufs, reserved);
    atomic_store_relaxed(&pfc_pool.total, size.total);
    atomic_store_relaxed(&pfc_pool.reserved, size.reserved);
    atomic_store_relaxed(&pfc_pool.shared, size.shared);
    ovs_mutex_unlock(&pfc_pool_mutex);
}

/* Returns, for a port 'self' about to reserve 'reserve' cells of headroom
 * and whose mempool lets PFC hold 'mbufs', the cells the buffer would have
 * in all in '*total' and those other ports reserve in '*others'; true if
 * 'reserve' fits (pfc_buf_fits()).  Any thread but a PMD thread. */
bool
pfc_pool_fits(const struct pfc_port *self, uint64_t mbufs, uint64_t reserve,
              uint64_t *total, uint64_t *others)
{
    struct pfc_buf_size size;

    *others = 0;
    for (int i = 0; i < PFC_N_PORTS; i++) {
        struct pfc_port *port = &pfc_ports[i];
        uint64_t m, r;
        bool active;

        atomic_read_relaxed(&port->active, &active);
        if (!active || port == self) {
            continue;
        }
        atomic_read_relaxed(&port->buf.mbufs, &m);
        atomic_read_relaxed(&port->buf.reserved, &r);
        mbufs = MIN(mbufs, m);
        *others += r;
    }
    pfc_buf_size(&size, mbufs, 0);
    *total = size.total;
    return pfc_buf_fits(size.total, *others, reserve);
}

/* Packs the thresholds of the lossless priority groups of a port: the
 * lossless priorities in bits 0..7, dynamic_th + 128 in bits 8..15, the
 * headroom (cells) in bits 32..63. */
uint64_t
pfc_buf_pub_pack(uint8_t lossless, const struct pfc_buf_pg_params *p)
{
    return (lossless | (uint64_t) (uint8_t) (p->dyn_th + 128) << 8
            | (uint64_t) p->headroom << 32);
}

/* Sets '*p' to the thresholds of priority group 'prio' of 'port', as its
 * bind published them.  Returns false, for lossy admission, if the port has
 * no PFC or the priority is not lossless there. */
bool
pfc_port_pg_params(struct pfc_port *port, int prio,
                   struct pfc_buf_pg_params *p)
{
    uint64_t pub;

    atomic_read_relaxed(&port->buf.pub, &pub);
    if (!((pub >> prio) & 1)) {
        return false;
    }
    p->lossless = true;
    p->dyn_th = (int) ((pub >> 8) & 0xff) - 128;
    p->headroom = pub >> 32;
    atomic_read_relaxed(&port->buf.xoff_bytes_pub, &p->xoff_bytes);
    p->xon_bytes = 0;           /* Not used by admission. */
    p->xon_hysteresis = 0;
    return true;
}

/* Takes one shared cell for tx queue 't' from its cache, refilling the
 * cache from the pool if it is empty (pfc_buf_cache_take()).  The refill
 * is sized on the pool's free cells at the moment it is taken, with a
 * compare-and-swap: the free count that admission read for the batch may
 * be stale by what other tx queues took since, and a refill sized on it
 * would let the pool's count exceed its size by a chunk per tx queue
 * instead of the one cell that pfc_buf_cache_take() allows. */
static void
pfc_buf_take_cell(struct pfc_txq *t)
{
    struct pfc_buf_cache c;
    uint64_t shared, used;
    uint32_t take;

    if (t->cache.credit) {
        t->cache.credit--;
        return;
    }
    atomic_read_relaxed(&pfc_pool.shared, &shared);
    atomic_read_relaxed(&pfc_pool.used, &used);
    do {
        c = t->cache;
        take = pfc_buf_cache_take(&c, shared > used ? shared - used : 0);
    } while (!atomic_compare_exchange_weak_relaxed(&pfc_pool.used, &used,
                                                   used + take));
    t->cache = c;
    pfc_wm_note(&pfc_pool.wm, used + take);
}

/* Gives 'cells' shared cells back to tx queue 't''s cache, and what the
 * cache holds over its size back to the pool; with 't' NULL, all to the
 * pool. */
static void
pfc_buf_give_cells(struct pfc_txq *t, uint32_t cells)
{
    uint32_t give = t ? pfc_buf_cache_give(&t->cache, cells) : cells;

    if (give) {
        uint64_t orig;

        atomic_sub_relaxed(&pfc_pool.used, give, &orig);
    }
}

/* Stores in '*eg' what traffic class 'tc' of 'pfc' holds on all its tx
 * queues (pfc_buf_egress_sum()). */
static void
pfc_buf_class_occupancy(const struct netdev_dpdk_pfc *pfc, int tc,
                        struct pfc_buf_egress *eg)
{
    uint32_t held[PFC_N_PRIOS], lossy[PFC_N_PRIOS];
    uint8_t prios = pfc_tcs_prios(pfc->cfg.prio_to_tc, 1u << tc);

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        held[n] = lossy[n] = 0;
        if ((prios >> n) & 1) {
            struct netdev_dpdk_pfc *p = CONST_CAST(struct netdev_dpdk_pfc *,
                                                   pfc);

            atomic_read_relaxed(&p->held_prio[n], &held[n]);
            atomic_read_relaxed(&p->lossy_prio[n], &lossy[n]);
        }
    }
    pfc_buf_egress_sum(held, lossy, prios, eg);
}

/* Decides whether tx queue 't' of 'pfc' holds 'h' in its traffic class
 * queue 'q', in the batch 'b' (the pool's free cells read once per batch),
 * and charges it if so: to its ingress priority group and the pool, or to
 * the pool alone as lossy (h->lossy).  Returns the verdict; the caller
 * appends 'h' to 'q' for PFC_BUF_SHARED and PFC_BUF_HEADROOM, and counts
 * the drop otherwise.  The caller holds t->lock. */
enum pfc_buf_verdict
pfc_buf_txq_admit(const struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
                  const struct pfc_holdq *q, struct pfc_held *h,
                  struct pfc_buf_batch *b, bool copy)
{
    const struct pfc_bound *bd = pfc_bound(pfc);
    struct pfc_port *in = (h->in_port < PFC_N_PORTS
                           ? &pfc_ports[h->in_port] : NULL);
    struct pfc_buf_egress eg;
    struct pfc_buf_pg_params p;
    struct pfc_buf_pg g;
    enum pfc_buf_verdict v;
    uint64_t orig;

    if (q->n >= q->limit) {
        /* No slot: a lossy class's queue (queue-size, or 1024 per tx queue;
         * a class that carries a lossless priority has room for the whole
         * buffer, pfc_class_queues_fit()). */
        return PFC_BUF_DROP_EGRESS;
    }
    /* The egress bound is per port and class: what the class holds on
     * every tx queue of the port, so that several PMD threads sending to
     * one paused port take no more of the pool than one. */
    int tc = pfc->cfg.prio_to_tc[h->prio];

    if (b->free == UINT64_MAX) {
        b->free = pfc_pool_free();
    }
    h->lossy = !in || !pfc_port_pg_params(in, h->prio, &p);
    if (h->lossy) {
        if ((b->lossy_full >> tc) & 1) {
            return PFC_BUF_DROP_EGRESS;
        }
        /* The rule of pfc_buf_admit() for a lossy packet, inline: while a
         * paused class refuses packets from ports without PFC, the first
         * of the class in every batch comes here. */
        pfc_buf_class_occupancy(pfc, tc, &eg);
        if (!pfc_buf_lossy_admits(&bd->eparams, &eg, b->free)) {
            b->lossy_full |= 1u << tc;
            return PFC_BUF_DROP_EGRESS;
        }
        pfc_buf_take_cell(t);
        pfc_wm_note(&pfc->port->buf.wm_held[tc], eg.held + 1);
        pfc_wm_note(&pfc->port->buf.wm_lossy[tc], eg.lossy + 1);
        return PFC_BUF_SHARED;
    }

    pfc_buf_class_occupancy(pfc, tc, &eg);
    pfc_port_pg(in, h->prio, &g);
    v = pfc_buf_admit(&p, &g, &bd->eparams, &eg, b->free, h->len, copy);
#ifdef HAVE_USDT_PROBES
    if (pfc_buf_pg_crosses(&p, &g, v, h->len, b->free)) {
        /* Reported by the probe "tx_frame" of the XOFF that follows, so
         * that no probe runs between the two. */
        atomic_store_relaxed(&in->buf.xoff_crossed[h->prio],
                             rte_get_tsc_cycles());
    }
#endif
    if (v == PFC_BUF_SHARED) {
        pfc_buf_take_cell(t);
        atomic_add_relaxed(&in->buf.pg_cells[h->prio], 1, &orig);
        pfc_wm_note(&in->buf.wm_shared[h->prio], (uint32_t) orig + 1);
    } else if (v == PFC_BUF_HEADROOM) {
        atomic_add_relaxed(&in->buf.pg_cells[h->prio], UINT64_C(1) << 32,
                           &orig);
        pfc_wm_note(&in->buf.wm_headroom[h->prio], (orig >> 32) + 1);
    } else {
        if (v == PFC_BUF_DROP_HEADROOM) {
            atomic_add_relaxed(&in->buf.hdrm_drops[h->prio], 1, &orig);
        }
        return v;
    }
    pfc_wm_note(&pfc->port->buf.wm_held[tc], eg.held + 1);
    atomic_add_relaxed(&in->buf.occ_bytes[h->prio], h->len, &orig);
    pfc_wm_note(&in->buf.wm_bytes[h->prio], orig + h->len);
    return v;
}

/* Ends the clearable period of the watermarks of 'port' (pfc_wm_clear()).
 * Main thread. */
void
pfc_port_wm_clear(struct pfc_port *port)
{
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        pfc_wm_clear(&port->buf.wm_shared[n]);
        pfc_wm_clear(&port->buf.wm_headroom[n]);
        pfc_wm_clear(&port->buf.wm_bytes[n]);
        pfc_wm_clear(&port->buf.wm_held[n]);
        pfc_wm_clear(&port->buf.wm_lossy[n]);
    }
}

/* Sets both views of the watermarks of 'port', and its ECN counters, to 0:
 * the port is removed, or its slot goes to another port.  Main thread. */
void
pfc_port_wm_reset(struct pfc_port *port)
{
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        atomic_store_relaxed(&port->ecn.ect[n], 0);
        atomic_store_relaxed(&port->ecn.marked[n], 0);
        atomic_store_relaxed(&port->ecn.not_ect[n], 0);
        pfc_wm_reset(&port->buf.wm_shared[n]);
        pfc_wm_reset(&port->buf.wm_headroom[n]);
        pfc_wm_reset(&port->buf.wm_bytes[n]);
        pfc_wm_reset(&port->buf.wm_held[n]);
        pfc_wm_reset(&port->buf.wm_lossy[n]);
    }
}

/* Takes 'h', which leaves tx queue 't' (sent or freed), off the pool and
 * off its ingress priority group, headroom first (pfc_buf_release()).  The
 * caller holds t->lock; or 't' is NULL, for a packet set aside from its tx
 * queue (pfc_requeue_vq()): its cells then go straight to the pool. */
void
pfc_buf_txq_release(struct pfc_txq *t, const struct pfc_held *h)
{
    struct pfc_port *in;
    uint64_t cells, next, orig;
    uint32_t shared;

    if (h->lossy) {
        pfc_buf_give_cells(t, 1);
        return;
    }
    ovs_assert(h->in_port < PFC_N_PORTS);
    in = &pfc_ports[h->in_port];
    atomic_sub_relaxed(&in->buf.occ_bytes[h->prio], h->len, &orig);
    atomic_read_relaxed(&in->buf.pg_cells[h->prio], &cells);
    do {
        struct pfc_buf_pg g = { cells, cells >> 32, 0 };

        shared = pfc_buf_release(&g, 1, 0);
        next = g.shared | (uint64_t) g.headroom << 32;
    } while (!atomic_compare_exchange_weak_relaxed(&in->buf.pg_cells[h->prio],
                                                   &cells, next));
    if (shared) {
        pfc_buf_give_cells(t, shared);
    }
}

/* Takes 'h', which is leaving a traffic class queue of 't', off the held
 * counts of 't' and off the occupancy of its ingress port. */
void
pfc_release(struct pfc_txq *t, const struct pfc_held *h)
{
    pfc_buf_txq_release(t, h);
    pfc_txq_count_held(t, h, -1);
}

/* Gives the cells in 't''s cache back to the pool (pfc_buf_cache_idle()):
 * 't' holds nothing, or is destroyed.  The caller holds t->lock, or no
 * thread can reach 't' any more. */
void
pfc_buf_txq_give_cache(struct pfc_txq *t)
{
    uint32_t give = pfc_buf_cache_idle(&t->cache);

    if (give) {
        uint64_t orig;

        atomic_sub_relaxed(&pfc_pool.used, give, &orig);
    }
}

/* ECN marking (lib/pfc-ecn.h) of 'm', which joins traffic class 'tc' of
 * tx queue 't' of 'pfc', under the class's keys 'ecn': judged against the
 * bytes the class queues on every tx queue of the port, before 'm' joins
 * it.  Counts what it saw in port->ecn.  The caller holds t->lock. */
void
pfc_hold_ecn(struct netdev_dpdk_pfc *pfc, int tc, struct rte_mbuf *m,
             const struct pfc_ecn_params *ecn)
{
    uint8_t prios = pfc_tcs_prios(pfc->cfg.prio_to_tc, 1u << tc);
    struct pfc_port_ecn *c = &pfc->port->ecn;
    enum pfc_ecn_field f;
    uint64_t queued = 0;

    for (int i = 0; i < pfc->n_txq; i++) {
        for (uint8_t p = prios; p; p &= p - 1) {
            uint64_t bytes;

            atomic_read_relaxed(&pfc->txq[i].held_bytes[raw_ctz(p)],
                                &bytes);
            queued += bytes;
        }
    }
    bool mark = pfc_ecn_decide(ecn, queued, random_uint32());

    uint64_t orig;

    f = pfc_ecn_mark(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_data_len(m),
                     mark);
    if (f == PFC_ECN_NOT_ECT) {
        if (queued >= ecn->min_bytes) {
            atomic_add_relaxed(&c->not_ect[tc], 1, &orig);
        }
    } else if (f != PFC_ECN_NOT_IP) {
        atomic_add_relaxed(&c->ect[tc], 1, &orig);
        if (mark && f != PFC_ECN_CE) {
            atomic_add_relaxed(&c->marked[tc], 1, &orig);
        }
    }
}
