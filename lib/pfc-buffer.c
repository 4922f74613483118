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
#include "pfc-buffer.h"

#include <errno.h>
#include <string.h>

#include "pfc-headroom.h"
#include "util.h"

/* Returns the shared cells at which a lossless priority group reaches XOFF
 * at 'free' free shared cells (dynamic threshold), or UINT64_MAX if its
 * threshold is static, in bytes. */
uint64_t
pfc_buf_pg_threshold(const struct pfc_buf_pg_params *p, uint64_t free)
{
    return (p->xoff_bytes != UINT64_MAX ? UINT64_MAX
            : pfc_buf_dyn(p->dyn_th, free));
}

/* Decides whether to hold a packet of 'len' bytes that arrived in priority
 * group 'p' (occupancy 'g'; NULL 'p', or one not lossless, for a lossy
 * packet) in a traffic class queue with bound 'e' and occupancy 'q', when
 * the shared pool has 'free' cells free.  'copy' is true for a copy of a
 * frame that is also output elsewhere (a flood, a mirror; the copies made
 * before its last output).  The caller applies the answer with
 * pfc_buf_charge() for the group, and adds the packet to 'q' if it holds it.
 *
 * A lossless packet takes a shared cell while its group is under its
 * threshold, the egress under its bound and the pool not full; otherwise a
 * cell of its group's headroom, which makes XOFF due; and is dropped only
 * when that headroom is full.  A lossy packet takes a shared cell within the
 * lossy limit and the bound of the egress, or is dropped.
 *
 * The headroom covers the frames that arrive after XOFF, one cell each, as
 * a switch ASIC counts a replicated frame once at its ingress; a frame
 * output to K ports would otherwise need K cells of it.  So a lossless
 * copy never takes headroom: where the frame would take a headroom cell (its
 * group over its threshold, or the egress over its bound), the copy takes a
 * shared cell while the pool has one, and is dropped (PFC_BUF_DROP_COPY)
 * only when the pool is empty.  The frame's last copy takes the headroom,
 * and makes XOFF due. */
enum pfc_buf_verdict
pfc_buf_admit(const struct pfc_buf_pg_params *p, const struct pfc_buf_pg *g,
              const struct pfc_buf_egress_params *e,
              const struct pfc_buf_egress *q, uint64_t free, uint32_t len,
              bool copy)
{
    uint64_t bound = pfc_buf_egress_bound(e, free);

    if (!p || !p->lossless) {
        return (pfc_buf_lossy_admits(e, q, free)
                ? PFC_BUF_SHARED : PFC_BUF_DROP_EGRESS);
    }

    bool pg_room;

    if (p->xoff_bytes != UINT64_MAX) {
        pg_room = g->bytes + len <= p->xoff_bytes;
    } else {
        pg_room = g->shared < pfc_buf_dyn(p->dyn_th, free);
    }
    if (pg_room && !g->headroom && free && q->held < bound) {
        return PFC_BUF_SHARED;
    }
    if (copy) {
        return free ? PFC_BUF_SHARED : PFC_BUF_DROP_COPY;
    }
    return g->headroom < p->headroom ? PFC_BUF_HEADROOM
           : PFC_BUF_DROP_HEADROOM;
}

/* Charges a packet of 'len' bytes that pfc_buf_admit() answered 'v' to the
 * priority group 'g'. */
void
pfc_buf_charge(struct pfc_buf_pg *g, enum pfc_buf_verdict v, uint32_t len)
{
    switch (v) {
    case PFC_BUF_SHARED:
        g->shared++;
        g->bytes += len;
        break;
    case PFC_BUF_HEADROOM:
        g->headroom++;
        g->bytes += len;
        break;
    case PFC_BUF_DROP_EGRESS:
    case PFC_BUF_DROP_HEADROOM:
    case PFC_BUF_DROP_COPY:
    default:
        break;
    }
}

/* Takes 'cells' packets of 'bytes' bytes in all, which leave the switch or
 * are freed, off the priority group 'g'.  Headroom cells are given back
 * first, as a switch ASIC does: the group leaves its headroom as soon as it
 * drains, and the whole headroom is free again before its next XOFF.
 * Returns how many shared cells were given back, for the shared pool. */
uint32_t
pfc_buf_release(struct pfc_buf_pg *g, uint32_t cells, uint64_t bytes)
{
    uint32_t from_hdrm = MIN(cells, g->headroom);
    uint32_t from_shared = MIN(cells - from_hdrm, g->shared);

    g->headroom -= from_hdrm;
    g->shared -= from_shared;
    g->bytes -= MIN(bytes, g->bytes);
    return from_shared;
}

/* Decides, at tick 'now', whether a port must send a PFC frame to its link
 * partner, given pg[n], the occupancy of its priority group n, and 'free'
 * free shared cells.  For each enabled priority n (pfc_buf_xoff_action()):
 *
 *   - XOFF (time[n] = pause_quanta) when the group is over;
 *   - the same XOFF again while it is not under, half a pause after the
 *     previous one, before the partner's timer runs out;
 *   - XON (time[n] = 0) when it is under.
 *
 * Priorities not enabled are never paused by a frame (seed 000 5).  An XOFF
 * in force for a priority that is no longer enabled (a reconfiguration, or
 * 'params->enabled' 0 when PFC is removed from the port) is ended with an XON
 * in the next frame, rather than left to run out at the partner: up to
 * 65535 quanta, 3.4 s at 10 Mb/s.  That XON is the one frame that names a
 * priority not enabled; it only withdraws this port's own request.
 *
 * Returns true, with the frame to send in '*frame', if a frame is due.  The
 * caller must send it: the state already assumes it was sent. */
bool
pfc_xoff_run(struct pfc_xoff *x, const struct pfc_xoff_params *params,
             const struct pfc_buf_pg pg[PFC_N_PRIOS], uint64_t free,
             uint64_t now, struct pfc_frame *frame)
{
    uint64_t pause = pfc_quanta_to_ticks(&params->tb, params->pause_quanta);

    memset(frame, 0, sizeof *frame);
    frame->enable = x->asserted & ~params->enabled;   /* time[n] = 0. */
    x->asserted &= params->enabled;
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint8_t bit = 1u << n;

        if (!(params->enabled & bit)) {
            continue;
        }
        switch (pfc_buf_xoff_action(&params->pg, &pg[n], free,
                                    x->asserted & bit, x->refresh_at[n],
                                    now)) {
        case PFC_XOFF_XON:
            x->asserted &= ~bit;
            frame->enable |= bit;
            frame->time[n] = 0;
            break;
        case PFC_XOFF_START:
        case PFC_XOFF_REFRESH:
            x->asserted |= bit;
            frame->enable |= bit;
            frame->time[n] = params->pause_quanta;
            x->refresh_at[n] = now + MAX(pause / 2, 1);
            break;
        case PFC_XOFF_NONE:
        default:
            break;
        }
    }
    return frame->enable != 0;
}

/* Backpressure of a port that has no MAC, such as a vhost-user port: it
 * sends no PFC frame.  Instead, while one of its lossless priority groups
 * is over (pfc_buf_pg_over()), the switch stops reading what the port's
 * peer (a guest) sends, and the peer's own transmit ring fills.  A stop
 * lasts until every stopped group is under, whatever the time.
 *
 * Returns the priorities that stop the port, given those that 'stopped' it
 * so far (one bit per priority), the occupancy of its groups 'pg' and
 * 'free' free shared cells.  A priority not in params->enabled never stops
 * it: a priority dropped from pfc-enable resumes at once. */
uint8_t
pfc_backpressure_next(const struct pfc_xoff_params *params, uint8_t stopped,
                      const struct pfc_buf_pg pg[PFC_N_PRIOS], uint64_t free)
{
    uint8_t next = 0;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if (!((params->enabled >> n) & 1)) {
            continue;
        }
        if ((stopped >> n) & 1
            ? !pfc_buf_pg_under(&params->pg, &pg[n], free)
            : pfc_buf_pg_over(&params->pg, &pg[n], free)) {
            next |= 1u << n;
        }
    }
    return next;
}

/* Before a tx queue charges one shared cell: returns how many cells it must
 * take from the shared pool first, and takes the cell from its cache.  An
 * empty cache takes PFC_BUF_CHUNK cells, or what is free, but at least one:
 * the cell is charged whatever another thread took since pfc_buf_admit()
 * looked, so the pool's count may exceed its size by one cell per tx
 * queue. */
uint32_t
pfc_buf_cache_take(struct pfc_buf_cache *c, uint64_t free)
{
    uint32_t take = 0;

    if (!c->credit) {
        take = MAX(MIN(PFC_BUF_CHUNK, free), 1);
        c->credit = take;
    }
    c->credit--;
    return take;
}

/* After a tx queue released 'cells' shared cells: returns how many cells it
 * must give back to the shared pool, keeping at most 2 x PFC_BUF_CHUNK in
 * its cache, a chunk after giving back. */
uint32_t
pfc_buf_cache_give(struct pfc_buf_cache *c, uint32_t cells)
{
    uint32_t give = 0;

    c->credit += cells;
    if (c->credit > 2 * PFC_BUF_CHUNK) {
        give = c->credit - PFC_BUF_CHUNK;
        c->credit = PFC_BUF_CHUNK;
    }
    return give;
}

/* After a tx queue emptied its traffic class queues: returns how many cells
 * it must give back to the shared pool, all of its cache, so that a tx
 * queue that holds nothing strands no shared cells (with many ports and tx
 * queues, caches kept while idle would take a large part of the pool). */
uint32_t
pfc_buf_cache_idle(struct pfc_buf_cache *c)
{
    uint32_t give = c->credit;

    c->credit = 0;
    return give;
}

/* Sizes the buffer: 'mbufs' is what PFC may hold of the ports' mempools,
 * 'reserved' the headroom of every lossless priority group, both in cells. */
void
pfc_buf_size(struct pfc_buf_size *s, uint64_t mbufs, uint64_t reserved)
{
    s->total = MIN(mbufs, PFC_BUF_CELLS_MAX);
    s->reserved = reserved;
    s->shared = s->total > reserved ? s->total - reserved : 0;
}

/* Returns true if a port may reserve 'reserve' cells of headroom in a buffer
 * of 'total' cells of which other ports reserve 'others': at least
 * PFC_BUF_SHARED_MIN cells stay shared. */
bool
pfc_buf_fits(uint64_t total, uint64_t others, uint64_t reserve)
{
    return total >= PFC_BUF_SHARED_MIN
           && others + reserve <= total - PFC_BUF_SHARED_MIN;
}

/* Computes the headroom of one lossless priority group of a port with
 * 'n_rxq' rx queues of 'rxq_desc' descriptors each, whose headroom model
 * gives 'model_cells' (0 for a port with no cable, such as a vhost-user
 * port, which also has no rx ring of its own to drain: 'rxq_desc' 0). */
void
pfc_buf_headroom(struct pfc_buf_headroom *h, uint64_t model_cells,
                 uint32_t n_rxq, uint32_t rxq_desc)
{
    n_rxq = MAX(n_rxq, 1);
    h->model = model_cells;
    h->rx_ring = (uint64_t) n_rxq * rxq_desc;
    h->iteration = (uint64_t) n_rxq * PFC_BUF_ITERATION_CELLS;
    h->total = h->model + h->rx_ring + h->iteration;
}

/* Computes the thresholds and the headroom of the priority groups of a port
 * configured by 'cfg' whose datapath can hold what 'limits' says.
 *
 * Without xoff-threshold, the threshold is dynamic (dynamic-th); with it,
 * static in bytes.  Either way each lossless priority group has headroom,
 * in cells, because in this switch a packet takes one mbuf whatever its size
 * (as a packet takes whole cells in the Nexus example of seed 003):
 *
 *   model     = packets that may still arrive after the partner receives
 *               XOFF, from the headroom model (lib/pfc-headroom.c) at the
 *               link speed, over cable-length, with MTU[S] = MTU[R] =
 *               limits->max_frame, counting every 64-byte frame as one mbuf
 *   rx ring   = n_rxq x rx descriptors: already received, not yet read
 *   iteration = n_rxq x PFC_BUF_ITERATION_CELLS
 *
 * A port without a cable (vhost-user: backpressure stops reading at once)
 * has only the iteration term.  Returns 0, or an errno value with a message
 * in '*errp' when the model cannot be computed. */
int
pfc_derive_thresholds(const struct pfc_config *cfg,
                      const struct pfc_port_limits *limits,
                      struct pfc_thresholds *t, char **errp)
{
    struct pfc_headroom_input in;
    struct pfc_headroom_result r;
    int error;

    *errp = NULL;
    memset(t, 0, sizeof *t);
    t->dynamic = !cfg->xoff_threshold;
    t->xoff_bytes = t->dynamic ? UINT64_MAX : cfg->xoff_threshold;
    t->xon_bytes = t->dynamic ? UINT64_MAX : cfg->xon_threshold;
    if (!limits->cable) {
        pfc_buf_headroom(&t->headroom, 0, limits->n_rxq, 0);
        return 0;
    }

    pfc_headroom_input_init(&in, cfg->headroom_model);
    in.speed = limits->link_speed;
    in.cable_length = cfg->cable_length;
    in.class_mtu = in.port_mtu = MAX(limits->max_frame, PFC_HEADROOM_MTU_MIN);
    in.granularity = PFC_HEADROOM_MBUF;
    in.cell_size = MAX(limits->mbuf_size, 1);
    in.min_frame = 64;
    error = pfc_headroom_compute(&in, &r);
    if (error) {
        *errp = xasprintf("cannot compute the headroom for link speed "
                          "%"PRIu64" bit/s, cable-length %"PRIu32" m and "
                          "%"PRIu32"-byte frames", limits->link_speed,
                          cfg->cable_length, limits->max_frame);
        return error;
    }
    t->headroom_bits = r.bits;
    pfc_buf_headroom(&t->headroom, r.cells, limits->n_rxq, limits->rxq_desc);
    return 0;
}

/* Initializes 'p' as the thresholds of a lossless priority group of a port
 * configured by 'cfg' with thresholds 't'. */
void
pfc_buf_pg_params_init(struct pfc_buf_pg_params *p,
                       const struct pfc_config *cfg,
                       const struct pfc_thresholds *t)
{
    memset(p, 0, sizeof *p);
    p->lossless = true;
    p->dyn_th = cfg->dyn_th;
    p->xoff_bytes = t->xoff_bytes;
    p->xon_bytes = t->xon_bytes;
    p->xon_hysteresis = cfg->xon_hysteresis;
    p->headroom = MIN(t->headroom.total, UINT32_MAX);
}

/* Initializes 'e' as the bound of the traffic classes of a port configured
 * by 'cfg'. */
void
pfc_buf_egress_params_init(struct pfc_buf_egress_params *e,
                           const struct pfc_config *cfg)
{
    e->limit = cfg->queue_size;
    e->dyn_th = cfg->egress_dyn_th;
    e->lossy_dyn_th = cfg->lossy_dyn_th;
}

/* Ends the clearable period of 'wm': its peak counts in the persistent view
 * from now on, and the clearable view starts again from 0.  Main thread. */
void
pfc_wm_clear(struct pfc_wm *wm)
{
    uint64_t peak, persistent;

    peak = atomic_exchange_explicit(&wm->peak, 0, memory_order_relaxed);
    atomic_read_relaxed(&wm->persistent, &persistent);
    atomic_store_relaxed(&wm->persistent, MAX(persistent, peak));
}

/* Sets both views of 'wm' to 0 (its port is removed).  Main thread. */
void
pfc_wm_reset(struct pfc_wm *wm)
{
    atomic_store_relaxed(&wm->peak, 0);
    atomic_store_relaxed(&wm->persistent, 0);
}

/* Returns the clearable view of 'wm': the peak since the last clear. */
uint64_t
pfc_wm_peak(const struct pfc_wm *wm)
{
    uint64_t peak;

    atomic_read_relaxed(&CONST_CAST(struct pfc_wm *, wm)->peak, &peak);
    return peak;
}

/* Returns the persistent view of 'wm': the peak over every clear period,
 * the current one included. */
uint64_t
pfc_wm_persistent(const struct pfc_wm *wm)
{
    uint64_t persistent;

    atomic_read_relaxed(&CONST_CAST(struct pfc_wm *, wm)->persistent,
                        &persistent);
    return MAX(persistent, pfc_wm_peak(wm));
}
