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

#ifndef PFC_BUFFER_H
#define PFC_BUFFER_H 1

/* Shared-buffer traffic manager of PFC: admission and XOFF/XON.
 *
 * The packets that PFC holds (they wait in traffic class queues,
 * lib/pfc-holdq.h struct pfc_holdq) live in one buffer that every port
 * shares, modelled on the MMU of a switch ASIC and on SAI/SONiC's buffer
 * model:
 *
 *   - The buffer is counted in cells.  A cell is one mbuf: one packet,
 *     whatever its length.  Its size is what PFC may hold of the ports'
 *     mempools, at most PFC_BUF_CELLS_MAX.
 *
 *   - Headroom: each lossless priority group (an ingress port and one of the
 *     priorities in its pfc-enable) has cells reserved for what still
 *     arrives after this switch decided to send XOFF: what is on the cable
 *     and in the link partner's MAC (the headroom models of
 *     lib/pfc-headroom.h), what already waits in the port's rx rings, and
 *     one PMD iteration.  Reserved cells are never shared.
 *
 *   - Shared pool: the rest.  A priority group may hold shared cells up to a
 *     dynamic threshold, alpha x (free shared cells), Choudhury and Hahne's
 *     dynamic threshold as SONiC's dynamic_th sets it: alpha = 2^dynamic_th.
 *     A group that reaches its threshold sends XOFF; what still arrives
 *     goes into its headroom.  Within XOFF plus headroom, a lossless packet
 *     is never dropped.  An operator may set a static threshold in bytes
 *     (xoff-threshold) instead.
 *
 *   - Egress bound: one traffic class queue of one tx queue may hold at
 *     most a dynamic share of the shared pool, alpha_egress x free (or a
 *     static queue-size).  A lossless packet that meets a full egress is
 *     charged to its group's headroom and makes its group send XOFF, so
 *     that many senders into one paused egress (incast) are all paused in
 *     time.  One slow or paused egress so takes at most its share of the
 *     pool: the other groups keep a threshold of their own.
 *
 *   - Lossy traffic (a priority its ingress port does not make lossless, or
 *     a port without PFC) has no priority group and no headroom.  It holds
 *     shared cells up to its own dynamic limit per traffic class queue,
 *     alpha_lossy x free, and within the egress bound; beyond them it is
 *     dropped and counted at that egress.
 *
 * Like DPDK's rte_meter, this is pure: no clock, no locks, no DPDK.  The
 * caller reads its counters (which the DPDK glue keeps in atomics shared by
 * PMD threads), asks, and applies the answer.  Races between threads that
 * admit at the same time can overshoot a threshold by at most one batch per
 * thread; the headroom's PMD iteration term covers it. */

#include <stdbool.h>
#include <stdint.h>
#include "ovs-atomic.h"
#include "pfc.h"
#include "pfc-config.h"
#include "pfc-holdq.h"

/* The largest buffer, cells (mbufs).  Also the slots of the traffic class
 * queue of a lossless class, so that any admitted packet has a slot. */
#define PFC_BUF_CELLS_MAX 65536

/* dynamic_th values: alpha = 2^dynamic_th, from 1/128 to 128 (SONiC's
 * range of -7..7 on most ASICs).  Defaults: lossless priority groups 0
 * (alpha 1, as SONiC's lossless profiles), egress share 1 (alpha 2: an
 * egress holds up to twice the free pool, so that incast stops at the
 * egress bound before one group's threshold), lossy -1 (alpha 1/2). */
#define PFC_DYN_TH_MIN (-7)
#define PFC_DYN_TH_MAX 7
#define PFC_DYN_TH_DEFAULT 0
#define PFC_EGRESS_DYN_TH_DEFAULT 1
#define PFC_LOSSY_DYN_TH_DEFAULT (-1)

/* Cells that one PMD iteration reads from one rx queue at most
 * (NETDEV_MAX_BURST): a term of the headroom. */
#define PFC_BUF_ITERATION_CELLS 32

/* Cells a tx queue takes from, or gives back to, the shared pool at a time
 * (pfc_buf_cache_take(), pfc_buf_cache_give()). */
#define PFC_BUF_CHUNK 32

/* Returns alpha x 'free' cells, alpha = 2^'dyn_th' (PFC_DYN_TH_MIN..MAX). */
static inline uint64_t
pfc_buf_dyn(int dyn_th, uint64_t free)
{
    return dyn_th >= 0 ? free << dyn_th : free >> -dyn_th;
}

/* A priority group's configuration: the ingress port's QoS. */
struct pfc_buf_pg_params {
    bool lossless;              /* The priority is in the ingress port's
                                 * pfc-enable: XOFF (or, on a vhost-user
                                 * port, backpressure) holds its sender.
                                 * False: lossy admission. */
    int8_t dyn_th;              /* dynamic-th, PFC_DYN_TH_MIN..MAX. */
    uint64_t xoff_bytes;        /* Static threshold (xoff-threshold),
                                 * bytes, or UINT64_MAX for the dynamic
                                 * threshold. */
    uint64_t xon_bytes;         /* Static XON, bytes < xoff_bytes; unused
                                 * with the dynamic threshold. */
    uint32_t xon_hysteresis;    /* Dynamic XON = threshold - hysteresis,
                                 * cells; 0 for half the threshold. */
    uint32_t headroom;          /* Cells reserved for the group. */
};

/* A priority group's occupancy. */
struct pfc_buf_pg {
    uint32_t shared;            /* Cells of the shared pool. */
    uint32_t headroom;          /* Cells of its headroom. */
    uint64_t bytes;             /* Bytes of both. */
};

/* What a traffic class queue may hold: the egress port's QoS. */
struct pfc_buf_egress_params {
    uint32_t limit;             /* Static bound (queue-size), cells, or 0
                                 * for the dynamic share. */
    int8_t dyn_th;              /* egress-dynamic-th. */
    int8_t lossy_dyn_th;        /* lossy-dynamic-th. */
};

/* A traffic class queue's occupancy. */
struct pfc_buf_egress {
    uint32_t held;              /* Cells held, every kind. */
    uint32_t lossy;             /* Of which lossy. */
};

/* pfc_buf_admit()'s answer for one packet. */
enum pfc_buf_verdict {
    PFC_BUF_SHARED,             /* Hold it, charged to the shared pool. */
    PFC_BUF_HEADROOM,           /* Hold it, charged to its group's
                                 * headroom: the group is over its
                                 * threshold, or the egress over its bound.
                                 * XOFF is due. */
    PFC_BUF_DROP_EGRESS,        /* Drop it (lossy): over the lossy limit or
                                 * the egress bound, or the pool is full. */
    PFC_BUF_DROP_HEADROOM,      /* Drop it (lossless): its group's headroom
                                 * is full.  The sender did not stop in
                                 * time: a partner that does not honour
                                 * PFC, or a headroom too small. */
    PFC_BUF_DROP_COPY,          /* Drop it (a lossless copy): it would
                                 * need headroom, and the pool is full. */
};

/* Stores in '*eg' the occupancy of a traffic class of an egress port: the
 * packets held, 'held', and of them lossy, 'lossy', of each priority in
 * 'prios' (the class's priorities, one bit each), summed over the port's
 * transmit queues by the caller.  The egress bound (pfc_buf_admit()) is
 * per port and class: judged per transmit queue, T PMD threads sending to
 * one paused port would each take a share of alpha x free, and the port
 * 2 T alpha / (1 + 2 T alpha) of the pool, leaving the other ports' groups
 * with nothing short of XOFF. */
static inline void
pfc_buf_egress_sum(const uint32_t held[8], const uint32_t lossy[8],
                   uint8_t prios, struct pfc_buf_egress *eg)
{
    eg->held = eg->lossy = 0;
    for (int n = 0; n < 8; n++) {     /* The eight priorities. */
        if ((prios >> n) & 1) {
            eg->held += held[n];
            eg->lossy += lossy[n];
        }
    }
}

/* Returns the most cells one traffic class queue may hold at 'free' free
 * shared cells: its static bound, or alpha_egress x free. */
static inline uint64_t
pfc_buf_egress_bound(const struct pfc_buf_egress_params *e, uint64_t free)
{
    return e->limit ? e->limit : pfc_buf_dyn(e->dyn_th, free);
}

/* Returns the most lossy cells one traffic class queue may hold at 'free'
 * free shared cells: alpha_lossy x free, and never more than its bound. */
static inline uint64_t
pfc_buf_lossy_limit(const struct pfc_buf_egress_params *e, uint64_t free)
{
    return MIN(pfc_buf_dyn(e->lossy_dyn_th, free),
               pfc_buf_egress_bound(e, free));
}

/* Returns true if a lossy packet may take a shared cell of a traffic class
 * queue with bound 'e' and occupancy 'q', when the shared pool has 'free'
 * cells free: the pool is not empty, and the class holds fewer cells than
 * its bound (queue-size, or alpha_egress x free) and fewer lossy cells than
 * alpha_lossy x free (pfc_buf_lossy_limit()).  The rule of pfc_buf_admit()
 * for a lossy packet; the answer depends on neither the packet's length nor
 * its group, and never turns to true as 'q' grows or 'free' shrinks. */
static inline bool
pfc_buf_lossy_admits(const struct pfc_buf_egress_params *e,
                     const struct pfc_buf_egress *q, uint64_t free)
{
    return (free && q->held < pfc_buf_egress_bound(e, free)
            && q->lossy < pfc_buf_lossy_limit(e, free));
}

uint64_t pfc_buf_pg_threshold(const struct pfc_buf_pg_params *,
                              uint64_t free);
enum pfc_buf_verdict pfc_buf_admit(const struct pfc_buf_pg_params *,
                                   const struct pfc_buf_pg *,
                                   const struct pfc_buf_egress_params *,
                                   const struct pfc_buf_egress *,
                                   uint64_t free, uint32_t len, bool copy);
void pfc_buf_charge(struct pfc_buf_pg *, enum pfc_buf_verdict, uint32_t len);
uint32_t pfc_buf_release(struct pfc_buf_pg *, uint32_t cells, uint64_t bytes);

/* XOFF and XON of a lossless priority group, at the free shared cells
 * 'free':
 *
 *   - over (XOFF due): it holds headroom cells, or its bytes reached the
 *     static xoff_bytes, or (dynamic) it holds shared cells and they
 *     reached its threshold;
 *   - under (XON due): no headroom cells, and its bytes at most xon_bytes
 *     (static) or its shared cells at most the threshold minus the
 *     hysteresis, which is at least 1 cell (dynamic).
 *
 * No group is ever both: the XON level is strictly below the XOFF level.
 *
 * Pure and cheap: transmit paths call it with racy reads of the counters. */
static inline bool
pfc_buf_pg_over(const struct pfc_buf_pg_params *p, const struct pfc_buf_pg *g,
                uint64_t free)
{
    if (g->headroom) {
        return true;
    }
    if (p->xoff_bytes != UINT64_MAX) {
        return g->bytes >= p->xoff_bytes;
    }
    return g->shared && g->shared >= pfc_buf_dyn(p->dyn_th, free);
}

static inline bool
pfc_buf_pg_under(const struct pfc_buf_pg_params *p,
                 const struct pfc_buf_pg *g, uint64_t free)
{
    uint64_t th, hyst;

    if (g->headroom) {
        return false;
    }
    if (p->xoff_bytes != UINT64_MAX) {
        return g->bytes <= p->xon_bytes;
    }
    th = pfc_buf_dyn(p->dyn_th, free);
    /* At least 1: the XON level is strictly below the XOFF level, so that a
     * group is never both over and under (at a threshold of 1, half of it
     * would be 0, and XOFF and XON would follow each other with nothing
     * changed). */
    hyst = MAX(p->xon_hysteresis ? p->xon_hysteresis : th / 2, 1);
    return g->shared <= (th > hyst ? th - hyst : 0);
}

/* Returns true if charging a packet of 'len' bytes, which pfc_buf_admit()
 * answered 'v', to group 'g' at 'free' free shared cells takes the group
 * over its XOFF level (pfc_buf_pg_over()): the moment its XOFF becomes
 * due, whenever the transmit side then sends it.  False for a verdict that
 * charges nothing, and for a group that was over already.  'free' is taken
 * as it was before the charge: the pool counts the cells that a tx queue
 * caches as used already (pfc_pool_free()), so one packet's cell seldom
 * changes it. */
static inline bool
pfc_buf_pg_crosses(const struct pfc_buf_pg_params *p,
                   const struct pfc_buf_pg *g, enum pfc_buf_verdict v,
                   uint32_t len, uint64_t free)
{
    struct pfc_buf_pg after = *g;

    if (pfc_buf_pg_over(p, g, free)) {
        return false;
    }
    pfc_buf_charge(&after, v, len);
    return pfc_buf_pg_over(p, &after, free);
}

/* What pfc_xoff_run() does for one lossless priority group at tick 'now',
 * given whether XOFF is in force at the partner ('asserted') and when it is
 * due again ('refresh_at', read only if 'asserted'). */
static inline enum pfc_xoff_action
pfc_buf_xoff_action(const struct pfc_buf_pg_params *p,
                    const struct pfc_buf_pg *g, uint64_t free, bool asserted,
                    uint64_t refresh_at, uint64_t now)
{
    if (asserted) {
        if (pfc_buf_pg_under(p, g, free)) {
            return PFC_XOFF_XON;
        }
        return now >= refresh_at ? PFC_XOFF_REFRESH : PFC_XOFF_NONE;
    }
    return pfc_buf_pg_over(p, g, free) ? PFC_XOFF_START : PFC_XOFF_NONE;
}

/* Transmit side of a port: when it must send XOFF and XON to its link
 * partner, from the occupancy of its priority groups. */
struct pfc_xoff_params {
    uint8_t enabled;            /* Bit n: priority n is lossless (pfc-enable).
                                 * No XOFF ever names a priority not enabled
                                 * (seed 000 5); only the XON that ends this
                                 * port's own XOFF for a priority no longer
                                 * enabled does (pfc_xoff_run()). */
    struct pfc_buf_pg_params pg;    /* Thresholds of the port's priority
                                     * groups ('lossless' unused: 'enabled'
                                     * says). */
    uint16_t pause_quanta;      /* time[n] in XOFF frames, 1..65535. */
    struct pfc_timebase tb;     /* Converts pause_quanta to ticks. */
};

bool pfc_xoff_run(struct pfc_xoff *, const struct pfc_xoff_params *,
                  const struct pfc_buf_pg pg[PFC_N_PRIOS], uint64_t free,
                  uint64_t now, struct pfc_frame *frame);
uint8_t pfc_backpressure_next(const struct pfc_xoff_params *,
                              uint8_t stopped,
                              const struct pfc_buf_pg pg[PFC_N_PRIOS],
                              uint64_t free);

/* Shared cells that a tx queue took from the pool and has not used: a cache
 * like a mempool's per-lcore cache, so that the shared pool's counter is
 * written once per PFC_BUF_CHUNK cells, not per packet.  A tx queue that
 * holds nothing gives all of it back (pfc_buf_cache_idle()). */
struct pfc_buf_cache {
    uint32_t credit;            /* Cells taken and not in use. */
};

uint32_t pfc_buf_cache_take(struct pfc_buf_cache *, uint64_t free);
uint32_t pfc_buf_cache_give(struct pfc_buf_cache *, uint32_t cells);
uint32_t pfc_buf_cache_idle(struct pfc_buf_cache *);

/* The sizes of the buffer (pfc_buf_size()). */
struct pfc_buf_size {
    uint64_t total;             /* Cells: min(mbufs PFC may hold,
                                 * PFC_BUF_CELLS_MAX). */
    uint64_t reserved;          /* Cells of headroom reserved, summed over
                                 * every lossless priority group. */
    uint64_t shared;            /* total - reserved, or 0 if reserved is
                                 * more. */
};

void pfc_buf_size(struct pfc_buf_size *, uint64_t mbufs, uint64_t reserved);

/* The fewest shared cells the buffer keeps: a port whose headroom would
 * leave fewer is refused. */
#define PFC_BUF_SHARED_MIN 256

bool pfc_buf_fits(uint64_t total, uint64_t others, uint64_t reserve);

/* The headroom of one lossless priority group, cells (pfc_buf_headroom()):
 * the model's term (lib/pfc-headroom.h) and this switch's own. */
struct pfc_buf_headroom {
    uint64_t model;             /* The headroom model's cells: cable,
                                 * partner and PHY delays. */
    uint64_t rx_ring;           /* n_rxq x rx ring descriptors: frames that
                                 * may already wait in the rx rings when
                                 * XOFF is decided. */
    uint64_t iteration;         /* n_rxq x PFC_BUF_ITERATION_CELLS: one
                                 * PMD iteration, and the overshoot of
                                 * concurrent admissions. */
    uint64_t total;             /* The sum. */
};

void pfc_buf_headroom(struct pfc_buf_headroom *, uint64_t model_cells,
                      uint32_t n_rxq, uint32_t rxq_desc);

/* What a port can hold, from the datapath, for pfc_derive_thresholds(). */
struct pfc_port_limits {
    uint64_t link_speed;        /* bit/s, > 0. */
    uint32_t max_frame;         /* Largest frame, bytes, DA to FCS with one
                                 * 802.1Q tag: MTU + 22. */
    uint64_t mbufs;             /* mbufs of the port's mempool that may be
                                 * held: its size minus what the rx rings
                                 * keep.  UINT64_MAX if unknown. */
    uint32_t mbuf_size;         /* Bytes of data per mbuf. */
    uint32_t n_rxq;             /* Rx queues, >= 1. */
    uint32_t rxq_desc;          /* Descriptors per rx queue. */
    bool cable;                 /* False for a port with no cable and no rx
                                 * ring of its own (vhost-user): its
                                 * headroom is one PMD iteration. */
};

/* The thresholds of a port's priority groups (pfc_derive_thresholds()). */
struct pfc_thresholds {
    bool dynamic;               /* True: dynamic threshold (dynamic-th);
                                 * false: static, in bytes, from
                                 * xoff-threshold and xon-threshold. */
    uint64_t xoff_bytes;        /* Bytes, or UINT64_MAX when dynamic. */
    uint64_t xon_bytes;         /* Bytes, or UINT64_MAX when dynamic. */
    uint64_t headroom_bits;     /* The model's headroom, bit times. */
    struct pfc_buf_headroom headroom;   /* Per lossless priority group,
                                         * cells. */
};

struct pfc_config;
int pfc_derive_thresholds(const struct pfc_config *,
                          const struct pfc_port_limits *,
                          struct pfc_thresholds *, char **errp);
void pfc_buf_pg_params_init(struct pfc_buf_pg_params *,
                            const struct pfc_config *,
                            const struct pfc_thresholds *);
void pfc_buf_egress_params_init(struct pfc_buf_egress_params *,
                                const struct pfc_config *);

/* Watermarks: the peak of an occupancy (cells, packets or bytes), as
 * operators size thresholds and headroom from it (SONiC's "show
 * priority-group watermark", "show queue watermark" and "show buffer_pool
 * watermark").  Two views:
 *
 *   - the clearable view: the peak since the last pfc_wm_clear();
 *
 *   - the persistent view: the peak since the watermark was made or last
 *     reset (pfc_wm_reset(): the port is removed), over every clear.
 *
 * Transmit threads raise the clearable peak as they admit packets
 * (pfc_wm_note(): a compare, and a compare-and-swap only when the peak
 * rises); the main thread clears, resets and reads.  A clear exchanges the
 * peak for 0, so that a value noted at the same moment counts in one period
 * or the next, never in neither. */
struct pfc_wm {
    atomic_uint64_t peak;       /* Since the last clear. */
    atomic_uint64_t persistent; /* Of the clear periods before it. */
};

/* Raises the clearable peak of 'wm' to 'value' if that is higher. */
static inline void
pfc_wm_note(struct pfc_wm *wm, uint64_t value)
{
    uint64_t peak;

    atomic_read_relaxed(&wm->peak, &peak);
    while (value > peak
           && !atomic_compare_exchange_weak_relaxed(&wm->peak, &peak,
                                                     value)) {
        continue;
    }
}

void pfc_wm_clear(struct pfc_wm *);
void pfc_wm_reset(struct pfc_wm *);
uint64_t pfc_wm_peak(const struct pfc_wm *);
uint64_t pfc_wm_persistent(const struct pfc_wm *);

#endif /* pfc-buffer.h */
