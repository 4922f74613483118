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

/* Statistics and unixctl commands of PFC on DPDK ports: the custom
 * statistics pfc_*, "pfc/show" and the registration of "pfc/headroom". */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <string.h>

#include <rte_cycles.h>

#include "netdev.h"
#include "netdev-provider.h"
#include "openvswitch/json.h"
#include "openvswitch/dynamic-string.h"
#include "packets.h"
#include "pfc-dcbx.h"
#include "pfc-compat.h"
#include "pfc-headroom.h"
#include "timeval.h"
#include "unixctl.h"

/* Adds the hold drops that 'pfc' counted since it was bound to 'c'. */
static void
pfc_add_live_drops(const struct netdev_dpdk_pfc *pfc, struct pfc_counters *c)
{
    for (int i = 0; i < pfc->n_txq; i++) {
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            uint64_t d;

            atomic_read_relaxed(&pfc->txq[i].hold_drops[n], &d);
            c->hold_drops[n] += d;
        }
    }
}

static void
add_stat(struct netdev_custom_stats *stats, size_t *n, const char *name,
         uint64_t value)
{
    struct netdev_custom_counter *counter = &stats->counters[(*n)++];

    ovs_strlcpy(counter->name, name, NETDEV_CUSTOM_STATS_NAME_SIZE);
    counter->value = value;
}

/* add_stat() of the counter named 'prefix' followed by 'i' in decimal, as
 * "pfc_rx_frames_p" and 3 give "pfc_rx_frames_p3". */
static void
add_stat_i(struct netdev_custom_stats *stats, size_t *n, const char *prefix,
           int i, uint64_t value)
{
    char name[NETDEV_CUSTOM_STATS_NAME_SIZE];

    snprintf(name, sizeof name, "%s%d", prefix, i);
    add_stat(stats, n, name, value);
}

/* Appends the watchdog's counters of priority 'p' of 'port' to 'stats' at
 * '*n': pfc_wd_storms_detected_pN and pfc_wd_storms_restored_pN ('detected'
 * and 'restored', read under port->lock), pfc_wd_tx_dropped_pN and
 * pfc_wd_tx_forwarded_pN. */
static void
add_wd_stats(struct netdev_custom_stats *stats, size_t *n,
             struct pfc_port *port, int p, uint64_t detected,
             uint64_t restored)
{
    uint64_t v;

    add_stat_i(stats, n, "pfc_wd_storms_detected_p", p, detected);
    add_stat_i(stats, n, "pfc_wd_storms_restored_p", p, restored);
    atomic_read_relaxed(&port->wd.tx_dropped[p], &v);
    add_stat_i(stats, n, "pfc_wd_tx_dropped_p", p, v);
    atomic_read_relaxed(&port->wd.tx_forwarded[p], &v);
    add_stat_i(stats, n, "pfc_wd_tx_forwarded_p", p, v);
}

/* Appends the ETS counters of 'port' to 'stats', from '*n':
 * pfc_ets_tx_packets_tcN and pfc_ets_tx_bytes_tcN (N = 0..7), what the
 * scheduler sent of each traffic class from a backlog.  The caller made
 * room for 2 * PFC_N_PRIOS. */
static void
add_ets_stats(struct netdev_custom_stats *stats, size_t *n,
              struct pfc_port *port)
{
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        uint64_t v;

        atomic_read_relaxed(&port->ets.pkts[tc], &v);
        add_stat_i(stats, n, "pfc_ets_tx_packets_tc", tc, v);
        atomic_read_relaxed(&port->ets.bytes[tc], &v);
        add_stat_i(stats, n, "pfc_ets_tx_bytes_tc", tc, v);
    }
}

/* Adds to 'stats', from index '*n' on, the statistics of priority (and
 * traffic class) 'p' of 'port' that come before the watchdog's: 'c' are
 * its counters. */
static void
add_prio_stats(struct netdev_custom_stats *stats, size_t *n,
               struct pfc_port *port, const struct pfc_counters *c, int p)
{
    add_stat_i(stats, n, "pfc_rx_frames_p", p, c->rx_frames[p]);
    add_stat_i(stats, n, "pfc_tx_frames_p", p, c->tx_frames[p]);
    add_stat_i(stats, n, "pfc_pause_transitions_p", p, c->transitions[p]);
    add_stat_i(stats, n, "pfc_hold_drops_p", p, c->hold_drops[p]);
    add_stat_i(stats, n, "pfc_rx_ignored_p", p, c->rx_ignored[p]);

    uint64_t v;

    atomic_read_relaxed(&port->buf.hdrm_drops[p], &v);
    add_stat_i(stats, n, "pfc_headroom_drops_p", p, v);
    atomic_read_relaxed(&port->rx.late_ends[p], &v);
    add_stat_i(stats, n, "pfc_pause_late_ends_p", p, v);

    /* Watermarks, the persistent view (pfc/watermark). */
    add_stat_i(stats, n, "pfc_watermark_shared_p", p,
               pfc_wm_persistent(&port->buf.wm_shared[p]));
    add_stat_i(stats, n, "pfc_watermark_headroom_p", p,
               pfc_wm_persistent(&port->buf.wm_headroom[p]));
    add_stat_i(stats, n, "pfc_watermark_held_tc", p,
               pfc_wm_persistent(&port->buf.wm_held[p]));

    /* ECN, per traffic class. */
    atomic_read_relaxed(&port->ecn.ect[p], &v);
    add_stat_i(stats, n, "pfc_ecn_ect_tc", p, v);
    atomic_read_relaxed(&port->ecn.marked[p], &v);
    add_stat_i(stats, n, "pfc_ecn_marked_tc", p, v);
    atomic_read_relaxed(&port->ecn.not_ect[p], &v);
    add_stat_i(stats, n, "pfc_ecn_not_ect_tc", p, v);
}

/* Appends the PFC counters of 'port_id' to 'stats', if it has QoS type pfc:
 * pfc_rx_frames_pN, pfc_tx_frames_pN, pfc_pause_transitions_pN,
 * pfc_hold_drops_pN, pfc_rx_ignored_pN, and the watchdog's
 * pfc_wd_storms_detected_pN, pfc_wd_storms_restored_pN, pfc_wd_tx_dropped_pN,
 * pfc_wd_tx_forwarded_pN and pfc_wd_rx_dropped_pN (N = 0..7), then
 * the ETS counters (add_ets_stats()), pfc_rx_invalid_frames,
 * pfc_rx_pause_ignored and
 * pfc_rx_unsupported_frames, and, with DCBX on, dcbx_rx_lldpdus,
 * dcbx_rx_tlvs, dcbx_rx_pfc_tlvs, dcbx_rx_errors, dcbx_rx_unsupported_tlvs,
 * dcbx_mismatches, dcbx_ageouts, dcbx_pfc_enable_oper (the operational
 * vector, bit n for priority n) and lldp_tx_frames. */
void
netdev_dpdk_pfc_get_custom_stats(uint16_t port_id,
                                 struct netdev_custom_stats *stats)
{
    uint64_t detected[PFC_N_PRIOS], restored[PFC_N_PRIOS];
    struct pfc_counters c;
    struct pfc_port *port;
    struct pfc_dcbx dcbx;
    bool active, dcbx_on;
    size_t n;

    if (port_id >= RTE_MAX_ETHPORTS) {
        return;
    }
    port = &pfc_ports[port_id];
    atomic_read_relaxed(&port->active, &active);
    if (!active) {
        return;
    }
    rte_spinlock_lock(&port->lock);
    c = port->counters;
    if (port->conf) {
        pfc_add_live_drops(port->conf, &c);
    }
    memcpy(detected, port->wd.state.storms_detected, sizeof detected);
    memcpy(restored, port->wd.state.storms_restored, sizeof restored);
    atomic_read_relaxed(&port->dcbx.on, &dcbx_on);
    dcbx = port->dcbx.state;
    rte_spinlock_unlock(&port->lock);

    n = stats->size;
    stats->size += 20 * PFC_N_PRIOS + 3 + (dcbx_on ? 12 : 0);
    stats->counters = xrealloc(stats->counters,
                               stats->size * sizeof *stats->counters);
    for (int p = 0; p < PFC_N_PRIOS; p++) {
        uint64_t v;

        add_prio_stats(stats, &n, port, &c, p);
        add_wd_stats(stats, &n, port, p, detected[p], restored[p]);
        atomic_read_relaxed(&port->wd.rx_dropped[p], &v);
        add_stat_i(stats, &n, "pfc_wd_rx_dropped_p", p, v);
    }
    add_ets_stats(stats, &n, port);
    add_stat(stats, &n, "pfc_rx_invalid_frames", c.rx_invalid);
    add_stat(stats, &n, "pfc_rx_pause_ignored", c.rx_pause_ignored);
    add_stat(stats, &n, "pfc_rx_unsupported_frames", c.rx_unsupported);
    if (dcbx_on) {
        add_stat(stats, &n, "dcbx_rx_lldpdus", dcbx.rx_lldpdus);
        add_stat(stats, &n, "dcbx_rx_tlvs", dcbx.rx_tlvs);
        add_stat(stats, &n, "dcbx_rx_pfc_tlvs", dcbx.rx_pfc_tlvs);
        add_stat(stats, &n, "dcbx_rx_errors", dcbx.rx_errors);
        add_stat(stats, &n, "dcbx_rx_unsupported_tlvs", dcbx.rx_unsupported);
        add_stat(stats, &n, "dcbx_mismatches", dcbx.mismatches);
        add_stat(stats, &n, "dcbx_ageouts", dcbx.ageouts);
        add_stat(stats, &n, "dcbx_pfc_enable_oper", dcbx.oper);
        add_stat(stats, &n, "lldp_tx_frames", dcbx.tx_lldpdus);
        add_stat(stats, &n, "dcbx_rx_other_agent", dcbx.rx_second);
        add_stat(stats, &n, "dcbx_rx_shutdown_unknown",
                 dcbx.rx_shutdown_unknown);

        uint64_t lldp_filtered;

        atomic_read_relaxed(&port->tx_lldp_filtered, &lldp_filtered);
        add_stat(stats, &n, "lldp_tx_filtered", lldp_filtered);
    }
}

/* Returns the TSC cycles for which the guest of vhost-user 'port' has been
 * stopped, including the stop in force at TSC 'now'.  The caller holds
 * port->lock, or 'port' is a copy. */
static uint64_t
pfc_bp_cycles(const struct pfc_port *port, uint8_t stopped, uint64_t now)
{
    return port->vhost.bp_cycles + (stopped && now > port->vhost.bp_since
                                    ? now - port->vhost.bp_since : 0);
}

/* Appends the PFC counters of vhost-user port 'pfc' to 'stats':
 * pfc_hold_drops_pN, pfc_vhost_stops_pN and the watchdog's
 * pfc_wd_storms_detected_pN, pfc_wd_storms_restored_pN, pfc_wd_tx_dropped_pN
 * and pfc_wd_tx_forwarded_pN (N = 0..7), the ETS counters
 * (add_ets_stats()), then pfc_vhost_stopped (1 while
 * the guest's transmit is stopped), pfc_vhost_stops and
 * pfc_vhost_stopped_ms. */
void
netdev_dpdk_pfc_vhost_get_custom_stats(struct netdev_dpdk_pfc *pfc,
                                       struct netdev_custom_stats *stats)
{
    uint64_t stops_prio[PFC_N_PRIOS], stops, cycles, hz;
    uint64_t detected[PFC_N_PRIOS], restored[PFC_N_PRIOS];
    struct pfc_port *port = pfc ? pfc->port : NULL;
    struct pfc_counters c;
    uint8_t stopped;
    size_t n;

    if (!port) {
        return;
    }
    rte_spinlock_lock(&port->lock);
    c = port->counters;
    if (port->conf) {
        pfc_add_live_drops(port->conf, &c);
    }
    atomic_read_relaxed(&port->vhost.bp_stopped, &stopped);
    memcpy(stops_prio, port->vhost.bp_stops_prio, sizeof stops_prio);
    memcpy(detected, port->wd.state.storms_detected, sizeof detected);
    memcpy(restored, port->wd.state.storms_restored, sizeof restored);
    stops = port->vhost.bp_stops;
    cycles = pfc_bp_cycles(port, stopped, rte_get_tsc_cycles());
    hz = port->rx.tb.hz;
    rte_spinlock_unlock(&port->lock);

    n = stats->size;
    stats->size += 9 * PFC_N_PRIOS + 3;
    stats->counters = xrealloc(stats->counters,
                               stats->size * sizeof *stats->counters);
    for (int p = 0; p < PFC_N_PRIOS; p++) {
        add_stat_i(stats, &n, "pfc_hold_drops_p", p, c.hold_drops[p]);
        add_stat_i(stats, &n, "pfc_vhost_stops_p", p, stops_prio[p]);

        uint64_t v;

        atomic_read_relaxed(&port->buf.hdrm_drops[p], &v);
        add_stat_i(stats, &n, "pfc_headroom_drops_p", p, v);
        add_wd_stats(stats, &n, port, p, detected[p], restored[p]);
    }
    add_ets_stats(stats, &n, port);
    add_stat(stats, &n, "pfc_vhost_stopped", stopped != 0);
    add_stat(stats, &n, "pfc_vhost_stops", stops);
    add_stat(stats, &n, "pfc_vhost_stopped_ms",
             hz ? cycles / (hz / 1000) : 0);
}

/* What "pfc/show" prints about one port, copied under its lock so that it is
 * formatted without holding it: a PMD thread that reads a PFC frame
 * meanwhile must not wait for that (tens of us; the rx ring of a 10 Gb/s
 * port fills in about 140 us). */
struct pfc_show_snap {
    struct pfc_port port;       /* Copy of the port; 'port.lock',
                                 * 'port.conf' and 'port.last_error' are
                                 * not to be used. */
    char last_error[512];       /* Copy of port->last_error, or "". */
    int port_id;                /* DPDK port id. */
    struct pfc_config cfg;      /* Copy of the bound QoS object's... */
    struct pfc_thresholds thr;  /* ...configuration and thresholds. */
    struct pfc_counters counters;       /* With the live hold drops. */
    uint64_t held_pkts[PFC_N_PRIOS];    /* Packets held, per priority. */
    uint64_t held_bytes[PFC_N_PRIOS];   /* Bytes held, per priority. */
    uint64_t occ_bytes[PFC_N_PRIOS];    /* Ingress buffer occupancy, bytes
                                         * and... */
    uint64_t occ_pkts[PFC_N_PRIOS];     /* ...packets, per priority. */
    uint64_t occ_hdrm[PFC_N_PRIOS];     /* Of which in headroom. */
    uint64_t hdrm_drops[PFC_N_PRIOS];   /* Headroom drops. */
    uint64_t pool_free;                 /* Free shared cells. */
    uint64_t tx_full;                   /* Live tx-full holds. */
    uint64_t wd_tx_dropped[PFC_N_PRIOS];    /* Watchdog counters. */
    uint64_t wd_tx_forwarded[PFC_N_PRIOS];
    uint64_t wd_rx_dropped[PFC_N_PRIOS];
    int n_txq;                          /* Tx queues of the QoS object. */
    uint32_t n_rxq;                     /* Rx queues of the port. */
    uint64_t now;                       /* TSC when copied. */
    struct pfc_ets_params ets;          /* ETS in force. */
    char ets_error[256];                /* Why the Queue rows' ETS keys are
                                         * not in force, or "". */
    uint64_t max_rate;                  /* Shaper in force, bit/s, or 0. */
    uint64_t ets_pkts[PFC_N_PRIOS];     /* Sent by the scheduler. */
    uint64_t ets_bytes[PFC_N_PRIOS];
    uint64_t ets_prev[PFC_N_PRIOS];     /* ets_bytes at the previous
                                         * pfc/show, and */
    long long int ets_prev_ms;          /* when (0: never). */
};

/* Copies into 'snap' what pfc_show_port() prints of 'port', which has a
 * bound QoS object.  The caller holds port->lock.  Copies nothing that needs
 * allocating: port->last_error, which a rebind on link up (another thread)
 * may free once the lock is released, is copied into a fixed buffer. */
static void
pfc_show_snapshot(struct pfc_show_snap *snap, struct pfc_port *port)
{
    struct netdev_dpdk_pfc *pfc = port->conf;

    memcpy(&snap->port, port, sizeof snap->port);
    snap->port.last_error = NULL;
    ovs_strlcpy(snap->last_error, port->last_error ? port->last_error : "",
                sizeof snap->last_error);
    snap->port_id = port - pfc_ports;
    snap->cfg = pfc->cfg;
    snap->thr = pfc->thr;
    snap->counters = port->counters;
    pfc_add_live_drops(pfc, &snap->counters);
    memset(snap->held_pkts, 0, sizeof snap->held_pkts);
    memset(snap->held_bytes, 0, sizeof snap->held_bytes);
    snap->tx_full = 0;
    for (int i = 0; i < pfc->n_txq; i++) {
        struct pfc_txq *t = &pfc->txq[i];
        uint64_t v;

        for (int n = 0; n < PFC_N_PRIOS; n++) {
            atomic_read_relaxed(&t->held_pkts[n], &v);
            snap->held_pkts[n] += v;
            atomic_read_relaxed(&t->held_bytes[n], &v);
            snap->held_bytes[n] += v;
        }
        atomic_read_relaxed(&t->tx_full_held, &v);
        snap->tx_full += v;
    }
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        atomic_read_relaxed(&port->buf.occ_bytes[n], &snap->occ_bytes[n]);
        struct pfc_buf_pg g;

        pfc_port_pg(port, n, &g);
        snap->occ_pkts[n] = (uint64_t) g.shared + g.headroom;
        snap->occ_hdrm[n] = g.headroom;
        atomic_read_relaxed(&port->buf.hdrm_drops[n], &snap->hdrm_drops[n]);
        atomic_read_relaxed(&port->wd.tx_dropped[n],
                            &snap->wd_tx_dropped[n]);
        atomic_read_relaxed(&port->wd.tx_forwarded[n],
                            &snap->wd_tx_forwarded[n]);
        atomic_read_relaxed(&port->wd.rx_dropped[n],
                            &snap->wd_rx_dropped[n]);
    }
    snap->n_txq = pfc->n_txq;
    snap->ets = pfc->ets;
    ovs_strlcpy(snap->ets_error, pfc->ets_error ? pfc->ets_error : "",
                sizeof snap->ets_error);
    snap->max_rate = pfc->sparams.rate;
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        atomic_read_relaxed(&port->ets.pkts[tc], &snap->ets_pkts[tc]);
        atomic_read_relaxed(&port->ets.bytes[tc], &snap->ets_bytes[tc]);
    }
    /* Main thread only: the interval of the "share" column. */
    memcpy(snap->ets_prev, port->ets.shown, sizeof snap->ets_prev);
    snap->ets_prev_ms = port->ets.shown_ms;
    memcpy(port->ets.shown, snap->ets_bytes, sizeof port->ets.shown);
    port->ets.shown_ms = time_msec();
    snap->pool_free = pfc_pool_free();
    atomic_read_relaxed(&port->rx.n_rxq, &snap->n_rxq);
    snap->now = rte_get_tsc_cycles();
}

static void pfc_show_wd(struct ds *, const struct pfc_show_snap *);

/* The ETS lines of "pfc/show": the port shaper, then per traffic class its
 * TSA, TC bandwidth and DRR quantum, what the scheduler sent of it from a
 * backlog, and its share of those bytes since the previous pfc/show. */
static void
pfc_show_ets(struct ds *ds, const struct pfc_show_snap *snap)
{
    const struct pfc_ets_params *e = &snap->ets;
    uint64_t total = 0;

    if (snap->max_rate) {
        ds_put_format(ds, "  ets: max-rate %"PRIu64" bit/s (port shaper)\n",
                      snap->max_rate);
    } else {
        ds_put_cstr(ds, "  ets: no max-rate (the link is the "
                    "bottleneck)\n");
    }
    if (snap->ets_error[0]) {
        ds_put_format(ds, "  ets: Queue keys refused: %s; the previous "
                      "transmission selection stays in force\n",
                      snap->ets_error);
    }
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        total += snap->ets_bytes[tc] - snap->ets_prev[tc];
    }
    ds_put_format(ds, "  %-2s %-6s %5s %8s %12s %14s %6s\n", "tc", "tsa",
                  "tc-bw", "quantum", "sched-pkts", "sched-bytes",
                  "share");
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        bool ets = (e->ets >> tc) & 1;
        uint64_t d = snap->ets_bytes[tc] - snap->ets_prev[tc];
        char bw[8], quantum[16], share[16];

        if (ets) {
            snprintf(bw, sizeof bw, "%u%%", e->bw[tc]);
            snprintf(quantum, sizeof quantum, "%"PRIu32, e->quantum[tc]);
        } else {
            ovs_strlcpy(bw, "-", sizeof bw);
            ovs_strlcpy(quantum, "-", sizeof quantum);
        }
        if (total) {
            snprintf(share, sizeof share, "%.1f%%", 100.0 * d / total);
        } else {
            ovs_strlcpy(share, "-", sizeof share);
        }
        ds_put_format(ds, "  %-2d %-6s %5s %8s %12"PRIu64" %14"PRIu64
                      " %6s\n", tc, ets ? "ets" : "strict", bw, quantum,
                      snap->ets_pkts[tc], snap->ets_bytes[tc], share);
    }
    if (snap->ets_prev_ms) {
        ds_put_format(ds, "  (share: of the bytes the scheduler sent since "
                      "the previous pfc/show, %lld ms ago)\n",
                      time_msec() - snap->ets_prev_ms);
    } else {
        ds_put_cstr(ds, "  (share: of the bytes the scheduler sent since "
                    "start)\n");
    }
}

/* The threshold, headroom and egress bound lines of "pfc/show". */
static void
pfc_show_buffer_config(struct ds *ds, const struct pfc_show_snap *snap,
                       bool cable)
{
    const struct pfc_config *cfg = &snap->cfg;
    const struct pfc_thresholds *thr = &snap->thr;
    const struct pfc_buf_headroom *h = &thr->headroom;

    if (thr->dynamic) {
        uint64_t th = pfc_buf_dyn(cfg->dyn_th, snap->pool_free);

        ds_put_format(ds, "  xoff: dynamic-th %d, now %"PRIu64" cells "
                      "(alpha x %"PRIu64" free shared cells); xon: ",
                      cfg->dyn_th, th, snap->pool_free);
        if (cfg->xon_hysteresis) {
            ds_put_format(ds, "xoff - %"PRIu32" cells\n",
                          cfg->xon_hysteresis);
        } else {
            ds_put_cstr(ds, "xoff / 2\n");
        }
    } else {
        ds_put_format(ds, "  xoff-threshold: %"PRIu64" bytes, "
                      "xon-threshold: %"PRIu64" bytes%s\n",
                      cfg->xoff_threshold, cfg->xon_threshold,
                      cfg->xon_default ? " (default)" : "");
    }
    ds_put_format(ds, "  headroom: %"PRIu64" cells per lossless priority ("
                  "model %"PRIu64, h->total, h->model);
    if (cable) {
        ds_put_format(ds, ": %s, cable-length %"PRIu32" m, %"PRIu32
                      "-byte frames, %"PRIu64" bit times",
                      pfc_headroom_model_name(cfg->headroom_model),
                      cfg->cable_length, snap->port.hw.max_frame,
                      thr->headroom_bits);
    }
    ds_put_format(ds, "; rx ring %"PRIu64"; iteration %"PRIu64")\n",
                  h->rx_ring, h->iteration);
    if (cfg->queue_size) {
        ds_put_format(ds, "  queue-size: %"PRIu32" packets", cfg->queue_size);
    } else {
        ds_put_format(ds, "  queue-size: dynamic, egress-dynamic-th %d",
                      cfg->egress_dyn_th);
    }
    ds_put_format(ds, ", lossy-dynamic-th %d, default-priority: %d\n",
                  cfg->lossy_dyn_th, cfg->default_priority);
    ds_put_format(ds, "  ingress: trust %s", pfc_trust_name(cfg->trust));
    if (cfg->trust == PFC_TRUST_DSCP) {
        bool adopted = cfg->dcbx && snap->port.dcbx.state.app_adopted;

        ds_put_cstr(ds, ", dscp-map ");
        pfc_dscp_map_format(ds, adopted ? snap->port.dcbx.state.dscp_oper
                            : cfg->dscp_to_prio);
        if (adopted) {
            ds_put_cstr(ds, " (with the DCBX partner's Application Priority "
                        "entries)");
        }
    }
    ds_put_cstr(ds, " (the priority each received packet carries to every "
                "egress)\n");
    if (cfg->rewrite.pcp || cfg->rewrite.dscp_prios) {
        ds_put_format(ds, "  egress rewrite: pcp %s, dscp ",
                      cfg->rewrite.pcp ? "from the priority" : "kept");
        pfc_rewrite_dscp_format(ds, &cfg->rewrite);
        ds_put_char(ds, '\n');
    }
}

/* "pfc/show" of a vhost-user port: no MAC, no pause timers and no PFC
 * frames; its guest is stopped instead (backpressure). */
static void
pfc_show_vhost_port(struct ds *ds, const struct pfc_show_snap *snap)
{
    const struct pfc_port *port = &snap->port;
    const struct pfc_config *cfg = &snap->cfg;
    const struct pfc_counters *c = &snap->counters;
    uint8_t stopped;
    bool guest;

    atomic_read_relaxed(&CONST_CAST(struct pfc_port *, port)->vhost.bp_stopped,
                        &stopped);
    atomic_read_relaxed(&CONST_CAST(struct pfc_port *, port)->vhost.guest,
                        &guest);
    ds_put_format(ds, "%s:\n", port->name);
    ds_put_format(ds, "  vhost-user port (%s): backpressure on the guest, "
                  "no PFC frames\n", guest ? "guest attached"
                                               : "no guest");
    ds_put_cstr(ds, "  pfc-enable: ");
    pfc_format_prios(ds, cfg->enabled);
    ds_put_char(ds, '\n');
    pfc_show_buffer_config(ds, snap, false);
    ds_put_cstr(ds, "  guest tx: ");
    if (stopped) {
        ds_put_cstr(ds, "stopped by ");
        pfc_format_prios(ds, stopped);
    } else {
        ds_put_cstr(ds, "running");
    }
    ds_put_format(ds, ", stops %"PRIu64", stopped %"PRIu64" ms in all\n",
                  port->vhost.bp_stops,
                  pfc_ticks_to_ns(&port->rx.tb,
                                  pfc_bp_cycles(port, stopped, snap->now))
                  / 1000000);
    if (snap->last_error[0]) {
        ds_put_format(ds, "  last configuration refused: %s\n",
                      snap->last_error);
    }
    ds_put_format(ds, "  %-4s %-2s %9s %10s %13s %12s %7s %10s %13s "
                  "%10s\n", "prio", "tc", "held-pkts", "held-bytes",
                  "ingress-bytes", "ingress-pkts", "stops", "hold-drops",
                  "headroom-pkts", "hdrm-drops");
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        ds_put_format(ds, "  p%-3d %-2d %9"PRIu64" %10"PRIu64" %13"PRIu64
                      " %12"PRIu64" %7"PRIu64" %10"PRIu64" %13"PRIu64
                      " %10"PRIu64"\n",
                      n, cfg->prio_to_tc[n], snap->held_pkts[n],
                      snap->held_bytes[n], snap->occ_bytes[n],
                      snap->occ_pkts[n], port->vhost.bp_stops_prio[n],
                      c->hold_drops[n], snap->occ_hdrm[n],
                      snap->hdrm_drops[n]);
    }
    pfc_show_ets(ds, snap);
    pfc_show_wd(ds, snap);
}

/* Appends the 'len' octets of an LLDP Chassis ID or Port ID of 'subtype' to
 * 'ds': a MAC address (subtype 4 of Chassis ID, 3 of Port ID), printable
 * text, or hex. */
static void
pfc_format_lldp_id(struct ds *ds, bool chassis, uint8_t subtype,
                   const uint8_t *id, uint8_t len)
{
    bool printable = len > 0;

    if (len == ETH_ADDR_LEN && subtype == (chassis ? 4 : 3)) {
        struct eth_addr mac;

        memcpy(mac.ea, id, ETH_ADDR_LEN);
        ds_put_format(ds, ETH_ADDR_FMT, ETH_ADDR_ARGS(mac));
        return;
    }
    for (int i = 0; i < len; i++) {
        printable = printable && id[i] >= 0x20 && id[i] < 0x7f;
    }
    if (printable) {
        ds_put_buffer(ds, (const char *) id, len);
    } else {
        ds_put_hex(ds, id, len);
    }
}

/* Appends to 'ds' what the NIC was asked so that MAC Control frames reach
 * software, and what its driver answered ('a'), if it was asked. */
static void
pfc_show_nic(struct ds *ds, const struct pfc_mac_control_answers *a)
{
    if (!a->asked) {
        return;
    }
    ds_put_format(ds, "  NIC asked: flow_ctrl_get: %s", a->flow_ctrl_get
                  ? ovs_strerror(-a->flow_ctrl_get) : "ok");
    if (!a->flow_ctrl_get) {
        ds_put_format(ds, ", flow_ctrl_set (802.3x off, mac_ctrl_frame_fwd "
                      "1): %s", a->flow_ctrl_set
                      ? ovs_strerror(-a->flow_ctrl_set) : "ok");
    }
    if (a->allmulticast_asked) {
        ds_put_format(ds, ", allmulticast_enable: %s", a->allmulticast
                      ? ovs_strerror(-a->allmulticast) : "ok");
    } else if (!a->flow_ctrl_get && !a->flow_ctrl_set) {
        ds_put_cstr(ds, ", allmulticast: not needed (already promiscuous "
                    "or all-multicast)");
    }
    ds_put_char(ds, '\n');
}

/* One line of "pfc/show" for the ETS TLV 't', labelled 'what': the willing
 * bit (if 'config', an ETS Configuration TLV), then per priority its
 * traffic class, per traffic class its bandwidth and TSA. */
static void
pfc_show_ets_tlv(struct ds *ds, const char *what, const struct pfc_ets_tlv *t,
                 bool config)
{
    ds_put_format(ds, "  %s:", what);
    if (config) {
        ds_put_format(ds, " willing %s,", t->willing ? "yes" : "no");
    }
    ds_put_cstr(ds, " priority->tc");
    for (int n = 0; n < 8; n++) {
        ds_put_format(ds, "%c%d", n ? ',' : ' ', t->prio_tc[n]);
    }
    ds_put_cstr(ds, ", tc-bw %");
    for (int n = 0; n < 8; n++) {
        ds_put_format(ds, "%c%d", n ? ',' : ' ', t->bw[n]);
    }
    ds_put_cstr(ds, ", tsa");
    for (int n = 0; n < 8; n++) {
        ds_put_format(ds, "%c%s", n ? ',' : ' ',
                      t->tsa[n] == PFC_TSA_STRICT ? "strict"
                      : t->tsa[n] == PFC_TSA_ETS ? "ets"
                      : t->tsa[n] == 1 ? "cbs" : "vendor");
    }
    ds_put_char(ds, '\n');
}

/* The Application Priority line of "pfc/show" of 'port' (DCBX on): what it
 * advertises, and its partner's DSCP entries. */
static void
pfc_show_dcbx_app(struct ds *ds, const struct pfc_port *port)
{
    const struct pfc_dcbx *d = &port->dcbx.state;

    ds_put_format(ds, "  dcbx app: %s, partner ",
                  port->dcbx.params.app_dscp
                  ? "advertises the dscp map (64 DSCP entries)"
                  : "none advertised (trust pcp)");
    if (d->partner && d->last.has_app) {
        bool any = false;

        for (uint64_t m = d->last.app.dscp_mask; m; m &= m - 1) {
            int dscp = raw_ctz(m);

            ds_put_format(ds, "%s%d:%d", any ? "," : "dscp ", dscp,
                          d->last.app.dscp_prio[dscp]);
            any = true;
        }
        ds_put_format(ds, "%s (%"PRIu16" other entries ignored)",
                      any ? "" : "no DSCP entry", d->last.app.n_ignored);
    } else {
        ds_put_cstr(ds, d->partner ? "(no Application Priority TLV)"
                    : "(none)");
    }
    ds_put_format(ds, ", %s\n", d->app_adopted ? "adopted" : "not adopted");
}

/* The DCBX lines of "pfc/show" of an ethernet port with dcbx=ieee. */
static void
pfc_show_dcbx(struct ds *ds, const struct pfc_show_snap *snap)
{
    const struct pfc_port *port = &snap->port;
    const struct pfc_dcbx *d = &port->dcbx.state;
    const struct pfc_config *cfg = &snap->cfg;

    if (!cfg->dcbx) {
        return;
    }
    ds_put_format(ds, "  dcbx: ieee, willing %s, lldp-tx-interval %"PRIu32
                  " s, ttl %"PRIu16" s\n", cfg->dcbx_willing ? "yes" : "no",
                  cfg->lldp_tx_interval, pfc_dcbx_ttl(&port->dcbx.params));
    ds_put_cstr(ds, "  dcbx pfc-enable: admin ");
    pfc_format_prios(ds, cfg->admin);
    ds_put_cstr(ds, ", partner ");
    if (d->partner && d->last.has_pfc) {
        pfc_format_prios(ds, d->last.pfc.enable);
        ds_put_format(ds, " (willing %s, cap %d)",
                      d->last.pfc.willing ? "yes" : "no", d->last.pfc.cap);
    } else {
        ds_put_cstr(ds, d->partner ? "(no PFC TLV)" : "(none)");
    }
    ds_put_cstr(ds, ", operational ");
    pfc_format_prios(ds, d->oper);
    ds_put_format(ds, " (%s)%s%s%s\n",
                  d->source == PFC_DCBX_PARTNER ? "partner's" : "pfc-enable",
                  d->mismatch ? ", MISMATCH" : "",
                  d->pfc_refused ? ": the partner's vector is not adopted: "
                  : "", d->pfc_refused ? d->pfc_refused : "");
    if (d->partner) {
        uint64_t left = d->expiry > snap->now ? d->expiry - snap->now : 0;

        ds_put_cstr(ds, "  dcbx partner: chassis ");
        pfc_format_lldp_id(ds, true, d->last.chassis_subtype,
                           d->last.chassis_id, d->last.chassis_len);
        ds_put_cstr(ds, ", port ");
        pfc_format_lldp_id(ds, false, d->last.port_subtype, d->last.port_id,
                           d->last.port_len);
        ds_put_format(ds, ", source "ETH_ADDR_FMT", ttl left %"PRIu64" s\n",
                      ETH_ADDR_ARGS(d->partner_mac),
                      port->rx.tb.hz ? left / port->rx.tb.hz : 0);
        if (d->last.has_ets) {
            pfc_show_ets_tlv(ds, "dcbx partner ets", &d->last.ets, true);
        }
        if (d->last.has_ets_rec) {
            pfc_show_ets_tlv(ds, "dcbx partner ets recommendation",
                             &d->last.ets_rec, false);
        }
    }
    if (d->second) {
        ds_put_cstr(ds, "  dcbx: SEVERAL NEIGHBOURS: another LLDP agent, "
                    "chassis ");
        pfc_format_lldp_id(ds, true, d->second_last.chassis_subtype,
                           d->second_last.chassis_id,
                           d->second_last.chassis_len);
        ds_put_cstr(ds, ", port ");
        pfc_format_lldp_id(ds, false, d->second_last.port_subtype,
                           d->second_last.port_id, d->second_last.port_len);
        ds_put_format(ds, ", source "ETH_ADDR_FMT", is heard too: the "
                      "administrative configuration is in force until one "
                      "of them leaves\n", ETH_ADDR_ARGS(d->second_mac));
    }
    pfc_show_dcbx_app(ds, port);
    pfc_show_ets_tlv(ds, "dcbx ets recommended",
                     &port->dcbx.params.ets_admin, false);
    ds_put_format(ds, "  dcbx ets operational: %s%s%s\n",
                  d->ets_adopted ? "the partner's recommendation"
                  : "the Queue rows'",
                  d->ets_refused ? "; the partner's recommendation is not "
                  "adopted: " : "", d->ets_refused ? d->ets_refused : "");
    ds_put_format(ds, "  dcbx counters: rx lldpdus %"PRIu64", tlvs %"PRIu64
                  ", pfc tlvs %"PRIu64", errors %"PRIu64", unsupported %"
                  PRIu64", mismatches %"PRIu64", ageouts %"PRIu64
                  ", ets recommendations not adopted %"PRIu64
                  ", from another agent %"PRIu64", unknown shutdowns %"
                  PRIu64", tx lldpdus %"PRIu64"\n", d->rx_lldpdus,
                  d->rx_tlvs, d->rx_pfc_tlvs, d->rx_errors,
                  d->rx_unsupported, d->mismatches, d->ageouts,
                  d->rx_ets_rec_refused, d->rx_second,
                  d->rx_shutdown_unknown, d->tx_lldpdus);
    if (port->dcbx.error) {
        ds_put_format(ds, "  dcbx last malformed LLDPDU: %s\n",
                      port->dcbx.error);
    }
}

/* The lines of "pfc/show" on the transmit side of the port of 'snap': its
 * tx ring, the worst-case response that ring gives, its queues, and
 * whether it is down. */
static void
pfc_show_tx(struct ds *ds, const struct pfc_show_snap *snap)
{
    const struct pfc_port *port = &snap->port;
    const struct pfc_config *cfg = &snap->cfg;
    struct ds name = DS_EMPTY_INITIALIZER;
    ds_put_format(ds, "  tx ring: %"PRIu32" descriptors (tx-ring-size=%s",
                  port->hw.txq_size,
                  pfc_tx_ring_size_name(cfg->tx_ring_size, &name));
    ds_destroy(&name);
    if (port->hw.ring_lim_known) {
        ds_put_format(ds, "; driver allows %"PRIu32" to %"PRIu32" in steps "
                      "of %"PRIu32, port->hw.ring_lim.nb_min,
                      port->hw.ring_lim.nb_max,
                      MAX(port->hw.ring_lim.nb_align, 1));
    }
    ds_put_format(ds, "), tx-full held: %"PRIu64"\n",
                  port->tx_full_held + snap->tx_full);
    /* What a full tx ring costs the response to a received pause: the
     * frames already in it leave first. */
    uint64_t resp = pfc_response_bits(port->hw.txq_size, port->hw.max_frame);
    uint64_t speed = MAX(port->rx.tb.link_speed, 1);
    ds_put_format(ds, "  response: worst case %"PRIu64" bit times, %"PRIu64
                  " ns at link speed (%"PRIu32" tx descriptors of %"PRIu32
                  "-byte frames), bound %d bit times + PHY delay",
                  resp, resp * 1000000000 / speed,
                  port->hw.txq_size, port->hw.max_frame,
                  PFC_RESPONSE_BOUND_BITS);
    if (resp > PFC_RESPONSE_BOUND_BITS) {
        ds_put_cstr(ds, ": EXCEEDED");
        if (cfg->tx_ring_size != PFC_TX_RING_AUTO) {
            ds_put_cstr(ds, " (tx-ring-size=auto meets it where the driver "
                        "allows, at the cost of a port restart when it is "
                        "applied or removed)");
        }
    }
    ds_put_char(ds, '\n');

    /* The other direction: an XOFF waits behind the data tx rings, or,
     * on a tx queue of its own, behind a frame of each. */
    int cq;
    atomic_read_relaxed(&CONST_CAST(struct pfc_port *, port)->hw.ctrl_txq,
                        &cq);
    uint64_t xoff = pfc_xoff_delay_bits(port->hw.txq_size,
                                        port->hw.max_frame, snap->n_txq,
                                        cq >= 0);
    /* In double: bit times times 10^9 overflow 64 bits with many large
     * rings. */
    ds_put_format(ds, "  xoff send delay: worst case %"PRIu64" bit times, "
                  "%"PRIu64" ns at link speed (", xoff,
                  (uint64_t) ((double) xoff * 1e9 / speed));
    if (cq >= 0) {
        uint64_t sent;

        atomic_read_relaxed(&CONST_CAST(struct pfc_port *, port)
                            ->hw.ctrl_sent, &sent);
        ds_put_format(ds, "on tx queue %d, the PFC frames' own, %"PRIu64
                      " sent there, behind at most one frame of each of %d "
                      "tx queues)", cq, sent, MAX(snap->n_txq, 1));
    } else {
        ds_put_format(ds, "behind %"PRIu32" tx descriptors on each of %d tx "
                      "queues; %s)", port->hw.txq_size, MAX(snap->n_txq, 1),
                      port->hw.max_txq > snap->n_txq
                      ? "the driver is not known to send MAC Control "
                        "frames from a tx queue of their own"
                      : "the driver has no tx queue to spare for PFC "
                        "frames");
    }
    ds_put_format(ds, ": up to %"PRIu64" bytes that the link partner sends "
                  "meanwhile, which the headroom does not count\n",
                  xoff / 8);
    ds_put_format(ds, "  queues: %"PRIu32" rx, %d tx (a traffic class "
                  "queue per class per tx queue)\n", snap->n_rxq,
                  snap->n_txq);
    /* A link that goes down releases what the port holds, once seen. */
    if (port->hw.lsc_interrupt) {
        ds_put_cstr(ds, "  link state: read on the NIC's interrupt\n");
    } else {
        ds_put_format(ds, "  link state: polled every %d s: a link that "
                      "goes down is seen, and what the port holds released, "
                      "up to that late (%s)\n", PFC_LINK_POLL_S,
                      port->hw.lsc_capable
                      ? "options:dpdk-lsc-interrupt=true reads it on the "
                        "NIC's interrupt"
                      : "the driver has no link state interrupt");
    }
    uint8_t down;
    atomic_read_relaxed(&CONST_CAST(struct pfc_port *, port)->down, &down);
    if (down) {
        ds_put_format(ds, "  port down (%s%s%s): pauses not honoured, "
                      "nothing held\n",
                      down & NETDEV_PFC_DOWN_ADMIN ? "admin" : "",
                      down == (NETDEV_PFC_DOWN_ADMIN | NETDEV_PFC_DOWN_LINK)
                      ? ", " : "",
                      down & NETDEV_PFC_DOWN_LINK ? "link" : "");
    }
}

/* The "ecn" lines of pfc/show: for each traffic class with ECN keys
 * (lib/pfc-ecn.h), its thresholds and what the port saw. */
static void
pfc_show_ecn(struct ds *ds, const struct pfc_show_snap *snap)
{
    struct pfc_port_ecn *c = CONST_CAST(struct pfc_port_ecn *,
                                        &snap->port.ecn);

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        const struct pfc_ecn_params *e = pfc_config_ecn(&snap->cfg, tc);
        uint64_t ect, marked, not_ect;

        if (!e->on) {
            continue;
        }
        atomic_read_relaxed(&c->ect[tc], &ect);
        atomic_read_relaxed(&c->marked[tc], &marked);
        atomic_read_relaxed(&c->not_ect[tc], &not_ect);
        ds_put_format(ds, "  ecn tc%d: min %"PRIu64" max %"PRIu64" bytes, "
                      "max-probability %"PRIu32"%%%s: ect %"PRIu64", "
                      "marked %"PRIu64", not-ect above min %"PRIu64"\n",
                      tc, e->min_bytes, e->max_bytes, e->max_prob,
                      snap->cfg.ecn_tc[tc].on ? "" : " (QoS default)",
                      ect, marked, not_ect);
    }
}

static void
pfc_show_port(struct ds *ds, const struct pfc_show_snap *snap)
{
    const struct pfc_port *port = &snap->port;
    const struct pfc_config *cfg = &snap->cfg;
    const struct pfc_counters *c = &snap->counters;
    uint64_t now = snap->now;
    uint64_t q_ps = pfc_quantum_ps(&port->rx.tb);

    ds_put_format(ds, "%s:\n", port->name);
    ds_put_format(ds, "  dpdk port %d, link speed %"PRIu64" bit/s (%s), "
                  "quantum %"PRIu64".%03"PRIu64" ns\n",
                  snap->port_id, port->rx.tb.link_speed,
                  (snap->cfg.link_speed ? "link-speed"
                   : port->rx.speed_from_link ? "link" : "assumed"),
                  q_ps / 1000, q_ps % 1000);
    ds_put_cstr(ds, "  pfc-enable: ");
    pfc_format_prios(ds, cfg->enabled);
    ds_put_char(ds, '\n');
    pfc_show_buffer_config(ds, snap, true);
    ds_put_format(ds, "  pause-quanta: %"PRIu16"\n", cfg->pause_quanta);
    /* Unless MAC Control frames have an rx queue of their own
     * (mac-control-queue), a flood delays a PFC frame behind one ring of
     * data at most (struct pfc_rxq_drain), or loses it with the data when
     * the ring overflows. */
    int mcq_queue;
    atomic_read_relaxed(&CONST_CAST(struct pfc_port *, port)->hw.mcq_queue,
                        &mcq_queue);
    ds_put_format(ds, "  mac-control: %s (%s), ",
                  pfc_mac_control_name(port->hw.mac_control), port->hw.driver);
    if (port->hw.mcq == PFC_MCQ_ON && mcq_queue >= 0) {
        ds_put_format(ds, "read from rx queue %d, their own\n", mcq_queue);
    } else {
        ds_put_format(ds, "%s\n", pfc_mcq_describe(port->hw.mcq));
    }
    pfc_show_nic(ds, &port->hw.nic);
    ds_put_format(ds, "  rx invalid: %"PRIu64", pause ignored: %"PRIu64
                  ", unsupported: %"PRIu64"\n",
                  c->rx_invalid, c->rx_pause_ignored, c->rx_unsupported);
    uint64_t filtered;
    atomic_read_relaxed(&CONST_CAST(struct pfc_port *, port)
                        ->tx_mac_control_filtered, &filtered);
    ds_put_format(ds, "  tx MAC Control frames filtered: %"PRIu64"\n",
                  filtered);
    if (snap->cfg.dcbx) {
        atomic_read_relaxed(&CONST_CAST(struct pfc_port *, port)
                            ->tx_lldp_filtered, &filtered);
        ds_put_format(ds, "  tx LLDPDUs of other ports filtered: %"PRIu64
                      "\n", filtered);
    }
    pfc_show_tx(ds, snap);

    uint64_t late = 0, bound;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint64_t v;

        atomic_read_relaxed(&CONST_CAST(struct pfc_port *, port)
                            ->rx.late_ends[n], &v);
        late += v;
    }
    atomic_read_relaxed(&CONST_CAST(struct pfc_port *, port)->rx.late_bound,
                        &bound);
    ds_put_format(ds, "  late pause ends: %"PRIu64" (more than %"PRIu64
                  " us after expiry)\n", late,
                  pfc_ticks_to_ns(&port->rx.tb, bound) / 1000);
    if (snap->last_error[0]) {
        ds_put_format(ds, "  last configuration refused: %s\n",
                      snap->last_error);
    }
    ds_put_format(ds, "  %-4s %-2s %-10s %9s %9s %10s %13s %12s %4s %9s "
                  "%9s %11s %11s %10s %10s %13s %10s\n", "prio", "tc",
                  "egress", "left-us",
                  "held-pkts", "held-bytes", "ingress-bytes", "ingress-pkts",
                  "xoff",
                  "rx-frames", "tx-frames", "transitions", "paused-us",
                  "hold-drops", "rx-ignored", "headroom-pkts", "hdrm-drops");
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint64_t left = pfc_pause_remaining(&port->rx.pause, n, now);
        uint64_t total = pfc_pause_total(&port->rx.pause, n, now);
        uint64_t pkts = snap->held_pkts[n], bytes = snap->held_bytes[n];
        uint64_t occ = snap->occ_bytes[n], occ_pkts = snap->occ_pkts[n];
        ds_put_format(ds, "  p%-3d %-2d %-10s %9"PRIu64" %9"PRIu64" %10"PRIu64
                      " %13"PRIu64" %12"PRIu64" %4s %9"PRIu64" %9"PRIu64
                      " %11"PRIu64" %11"PRIu64" %10"PRIu64" %10"PRIu64
                      " %13"PRIu64" %10"PRIu64"\n",
                      n, cfg->prio_to_tc[n],
                      left ? "paused" : "not_paused",
                      pfc_ticks_to_ns(&port->rx.tb, left) / 1000, pkts, bytes,
                      occ, occ_pkts,
                      port->buf.xoff.asserted & (1u << n) ? "yes" : "no",
                      c->rx_frames[n], c->tx_frames[n], c->transitions[n],
                      pfc_ticks_to_ns(&port->rx.tb, total) / 1000,
                      c->hold_drops[n], c->rx_ignored[n], snap->occ_hdrm[n],
                      snap->hdrm_drops[n]);
    }

    pfc_show_ets(ds, snap);
    pfc_show_ecn(ds, snap);
    pfc_show_wd(ds, snap);
    pfc_show_dcbx(ds, snap);
}

/* The PFC watchdog lines of "pfc/show": the configuration, then one line per
 * priority in pfc-enable (or stormed). */
static void
pfc_show_wd(struct ds *ds, const struct pfc_show_snap *snap)
{
    const struct pfc_config *cfg = &snap->cfg;
    const struct pfc_wd *wd = &snap->port.wd.state;

    if (!cfg->wd_detect_ms) {
        ds_put_cstr(ds, "  watchdog: off (watchdog-detection-time=0)\n");
    } else {
        ds_put_format(ds, "  watchdog: detection-time %"PRIu32" ms, "
                      "restoration-time %"PRIu32" ms, action %s\n",
                      cfg->wd_detect_ms, cfg->wd_restore_ms,
                      pfc_wd_action_name(cfg->wd_action));
    }
    for (uint32_t en = cfg->enabled | wd->stormed; en; en &= en - 1) {
        int n = raw_ctz(en);

        ds_put_format(ds, "  watchdog p%d: %s, storms detected %"PRIu64
                      ", restored %"PRIu64", tx dropped %"PRIu64
                      ", tx forwarded %"PRIu64", rx dropped %"PRIu64"\n",
                      n, wd->stormed & (1u << n) ? "stormed" : "operational",
                      wd->storms_detected[n], wd->storms_restored[n],
                      snap->wd_tx_dropped[n], snap->wd_tx_forwarded[n],
                      snap->wd_rx_dropped[n]);
    }
}

/* Adds "NAME": V, an integer, to JSON object 'o'. */
static void
pfc_json_int(struct json *o, const char *name, uint64_t v)
{
    json_object_put(o, name, json_integer_create(MIN(v, INT64_MAX)));
}

/* Returns the priorities in bitmap 'prios' as a JSON array of integers. */
static struct json *
pfc_json_prios(uint8_t prios)
{
    struct json *a = json_array_create_empty();

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if ((prios >> n) & 1) {
            json_array_add(a, json_integer_create(n));
        }
    }
    return a;
}

/* The JSON of pfc/show for the port of 'snap' (a vhost-user port if
 * 'vhost'): its configuration in brief, one object per priority with the
 * figures of pfc/show's table, and one per traffic class with ECN keys.
 * The numbers are numbers: bit/s, ns, us, packets, bytes. */
static struct json *
pfc_show_json(const struct pfc_show_snap *snap, bool vhost)
{
    const struct pfc_port *port = &snap->port;
    const struct pfc_config *cfg = &snap->cfg;
    const struct pfc_counters *c = &snap->counters;
    struct json *o = json_object_create();
    struct json *prios = json_array_create_empty();
    struct json *ecn = json_array_create_empty();

    json_object_put_string(o, "type", vhost ? "vhost-user" : "dpdk");
    if (!vhost) {
        int cq;

        pfc_json_int(o, "dpdk_port", snap->port_id);
        pfc_json_int(o, "link_speed", port->rx.tb.link_speed);
        pfc_json_int(o, "tx_ring", port->hw.txq_size);
        atomic_read_relaxed(&CONST_CAST(struct pfc_port *, port)
                            ->hw.ctrl_txq, &cq);
        json_object_put(o, "pfc_frames_txq", (cq >= 0
                                              ? json_integer_create(cq)
                                              : json_null_create()));
        uint64_t xoff = pfc_xoff_delay_bits(port->hw.txq_size,
                                            port->hw.max_frame, snap->n_txq,
                                            cq >= 0);
        pfc_json_int(o, "xoff_send_delay_ns",
                     (uint64_t) ((double) xoff * 1e9
                                 / MAX(port->rx.tb.link_speed, 1)));
        pfc_json_int(o, "rx_invalid", c->rx_invalid);
    }
    json_object_put(o, "pfc_enable", pfc_json_prios(cfg->enabled));
    json_object_put_string(o, "trust", pfc_trust_name(cfg->trust));
    pfc_json_int(o, "rx_queues", snap->n_rxq);
    pfc_json_int(o, "tx_queues", snap->n_txq);
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        struct json *r = json_object_create();
        uint64_t left = pfc_pause_remaining(&port->rx.pause, n, snap->now);
        uint64_t total = pfc_pause_total(&port->rx.pause, n, snap->now);

        pfc_json_int(r, "priority", n);
        pfc_json_int(r, "tc", cfg->prio_to_tc[n]);
        json_object_put(r, "paused", json_boolean_create(left != 0));
        pfc_json_int(r, "pause_left_us",
                     pfc_ticks_to_ns(&port->rx.tb, left) / 1000);
        pfc_json_int(r, "held_pkts", snap->held_pkts[n]);
        pfc_json_int(r, "held_bytes", snap->held_bytes[n]);
        pfc_json_int(r, "ingress_bytes", snap->occ_bytes[n]);
        pfc_json_int(r, "ingress_pkts", snap->occ_pkts[n]);
        json_object_put(r, "xoff", json_boolean_create(
                            (port->buf.xoff.asserted >> n) & 1));
        pfc_json_int(r, "rx_frames", c->rx_frames[n]);
        pfc_json_int(r, "tx_frames", c->tx_frames[n]);
        pfc_json_int(r, "transitions", c->transitions[n]);
        pfc_json_int(r, "paused_us",
                     pfc_ticks_to_ns(&port->rx.tb, total) / 1000);
        pfc_json_int(r, "hold_drops", c->hold_drops[n]);
        pfc_json_int(r, "rx_ignored", c->rx_ignored[n]);
        pfc_json_int(r, "headroom_pkts", snap->occ_hdrm[n]);
        pfc_json_int(r, "headroom_drops", snap->hdrm_drops[n]);
        json_array_add(prios, r);
    }
    json_object_put(o, "priorities", prios);
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        const struct pfc_ecn_params *e = pfc_config_ecn(cfg, tc);
        struct pfc_port_ecn *pe = CONST_CAST(struct pfc_port_ecn *,
                                             &port->ecn);
        struct json *r;
        uint64_t v;

        if (!e->on) {
            continue;
        }
        r = json_object_create();
        pfc_json_int(r, "tc", tc);
        pfc_json_int(r, "min_threshold", e->min_bytes);
        pfc_json_int(r, "max_threshold", e->max_bytes);
        pfc_json_int(r, "max_probability", e->max_prob);
        atomic_read_relaxed(&pe->ect[tc], &v);
        pfc_json_int(r, "ect", v);
        atomic_read_relaxed(&pe->marked[tc], &v);
        pfc_json_int(r, "marked", v);
        atomic_read_relaxed(&pe->not_ect[tc], &v);
        pfc_json_int(r, "not_ect_above_min", v);
        json_array_add(ecn, r);
    }
    json_object_put(o, "ecn", ecn);
    return o;
}

/* "pfc/show NAME" of a port without QoS pfc: how it classifies what it
 * receives (its trust).  Returns false if there is no netdev 'name'. */
static bool
pfc_show_plain_port(struct ds *ds, const char *name)
{
    struct netdev *netdev = netdev_from_name(name);
    const char *type;

    if (!netdev) {
        return false;
    }
    type = netdev_get_type(netdev);
    ds_put_format(ds, "%s: no QoS pfc (type %s)\n  ingress: ", name, type);
    if (!strcmp(type, "dpdk")) {
        ds_put_cstr(ds, "trust pcp, default-priority 0 (the priority each "
                    "received packet carries to every egress)\n");
    } else if (!strncmp(type, "dpdkvhostuser", 13)) {
        ds_put_cstr(ds, "untrusted: every packet the guest sends is "
                    "priority 0, and its 802.1p priority is cleared "
                    "(QoS pfc with trust=pcp or trust=dscp trusts it)\n");
    } else {
        ds_put_cstr(ds, "none: its packets carry no priority, and each "
                    "egress reads the priority of the tag they leave "
                    "with\n");
    }
    netdev_close(netdev);
    return true;
}

static void
pfc_unixctl_show(struct unixctl_conn *conn, int argc, const char *argv[],
                 void *aux OVS_UNUSED)
{
    struct pfc_show_snap *snap = xmalloc(sizeof *snap);
    bool json = pfc_unixctl_wants_json(conn, &argc, &argv);
    struct json *ports = json ? json_object_create() : NULL;
    struct ds ds = DS_EMPTY_INITIALIZER;
    bool found = false;

    if (argc > 2) {
        json_destroy(ports);
        free(snap);
        unixctl_command_reply_error(conn, "usage: pfc/show [--json] [port]");
        return;
    }
    netdev_dpdk_pfc_ports_init();
    for (int i = 0; i < PFC_N_PORTS; i++) {
        struct pfc_port *port = &pfc_ports[i];
        bool show;

        rte_spinlock_lock(&port->lock);
        show = port->conf && (argc < 2 || !strcmp(argv[1], port->name));
        if (show) {
            pfc_show_snapshot(snap, port);
        }
        rte_spinlock_unlock(&port->lock);
        if (show && json) {
            json_object_put(ports, port->name,
                            pfc_show_json(snap, pfc_port_is_vhost(port)));
            found = true;
        } else if (show && pfc_port_is_vhost(port)) {
            pfc_show_vhost_port(&ds, snap);
            found = true;
        } else if (show) {
            pfc_show_port(&ds, snap);
            found = true;
        }
    }
    free(snap);

    if (json) {
        if (argc > 1 && !found) {
            /* A port without QoS pfc has no PFC figures to give. */
            json_destroy(ports);
            unixctl_command_reply_error(conn, "no such port with QoS type "
                                        "pfc");
        } else {
            pfc_unixctl_reply_json(conn, ports);
        }
    } else if (argc > 1 && !found && !pfc_show_plain_port(&ds, argv[1])) {
        unixctl_command_reply_error(conn, "no such port");
    } else {
        unixctl_command_reply(conn, ds_cstr(&ds));
    }
    ds_destroy(&ds);
}

/* The lines of "pfc/buffer" for 'port', whose QoS object is 'pfc': its
 * lossless priority groups, then its traffic class queues that hold
 * something or have a priority in pfc-enable, read without locks.  'free'
 * is the shared pool's free cells.  Main thread. */
static void
pfc_buffer_port(struct ds *ds, struct pfc_port *port,
                const struct netdev_dpdk_pfc *pfc, uint64_t free)
{
    const struct pfc_bound *bd = pfc_bound(pfc);
    const struct pfc_config *cfg = &pfc->cfg;
    bool vhost = pfc_port_is_vhost(port);
    uint8_t stopped;

    atomic_read_relaxed(&port->vhost.bp_stopped, &stopped);
    for (uint32_t en = cfg->enabled; en; en &= en - 1) {
        int n = raw_ctz(en);
        uint64_t th = pfc_buf_pg_threshold(&bd->xparams.pg, free);
        bool over = vhost ? (stopped >> n) & 1
                          : (port->buf.xoff.asserted >> n) & 1;
        struct pfc_buf_pg g;
        uint64_t drops;

        pfc_port_pg(port, n, &g);
        atomic_read_relaxed(&port->buf.hdrm_drops[n], &drops);
        ds_put_format(ds, "  %-15s pg p%d: shared %"PRIu32", headroom %"
                      PRIu32"/%"PRIu32", bytes %"PRIu64", ",
                      port->name, n, g.shared, g.headroom,
                      bd->xparams.pg.headroom, g.bytes);
        if (th == UINT64_MAX) {
            ds_put_format(ds, "xoff %"PRIu64" bytes", pfc->thr.xoff_bytes);
        } else {
            ds_put_format(ds, "xoff %"PRIu64" cells", th);
        }
        ds_put_format(ds, ", %s, headroom drops %"PRIu64"\n",
                      over ? (vhost ? "stopped" : "XOFF") : "running",
                      drops);
    }
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        uint32_t held = 0, lossy = 0;
        uint64_t drops = 0, d;

        for (int i = 0; i < pfc->n_txq; i++) {
            held += pfc->txq[i].q[tc].n;
            lossy += pfc->txq[i].q[tc].n_lossy;
        }
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            if (cfg->prio_to_tc[n] == tc) {
                drops += port->counters.hold_drops[n];
                for (int i = 0; i < pfc->n_txq; i++) {
                    atomic_read_relaxed(&pfc->txq[i].hold_drops[n], &d);
                    drops += d;
                }
            }
        }
        if (!held && !drops
            && !(pfc_tcs_prios(cfg->prio_to_tc, 1u << tc) & cfg->enabled)) {
            continue;
        }
        ds_put_format(ds, "  %-15s tc%d: held %"PRIu32" (lossy %"PRIu32
                      ") on %d tx queues, bound %"PRIu64" for the port "
                      "(%s), lossy limit %"PRIu64", drops %"PRIu64"\n",
                      port->name, tc, held, lossy, pfc->n_txq,
                      pfc_buf_egress_bound(&bd->eparams, free),
                      bd->eparams.limit ? "queue-size" : "dynamic",
                      pfc_buf_lossy_limit(&bd->eparams, free), drops);
    }
}

/* The JSON of pfc/buffer for 'port', whose QoS object is 'pfc': the same
 * priority groups and traffic classes as pfc_buffer_port(), 'free' the
 * shared pool's free cells. */
static struct json *
pfc_buffer_port_json(struct pfc_port *port, const struct netdev_dpdk_pfc *pfc,
                     uint64_t free)
{
    const struct pfc_bound *bd = pfc_bound(pfc);
    const struct pfc_config *cfg = &pfc->cfg;
    struct json *o = json_object_create();
    struct json *pgs = json_array_create_empty();
    struct json *tcs = json_array_create_empty();
    bool vhost = pfc_port_is_vhost(port);
    uint8_t stopped;

    atomic_read_relaxed(&port->vhost.bp_stopped, &stopped);
    for (uint32_t en = cfg->enabled; en; en &= en - 1) {
        int n = raw_ctz(en);
        uint64_t th = pfc_buf_pg_threshold(&bd->xparams.pg, free);
        bool over = vhost ? (stopped >> n) & 1
                          : (port->buf.xoff.asserted >> n) & 1;
        struct json *g = json_object_create();
        struct pfc_buf_pg pg;
        uint64_t drops;

        pfc_port_pg(port, n, &pg);
        atomic_read_relaxed(&port->buf.hdrm_drops[n], &drops);
        pfc_json_int(g, "priority", n);
        pfc_json_int(g, "shared", pg.shared);
        pfc_json_int(g, "headroom", pg.headroom);
        pfc_json_int(g, "headroom_size", bd->xparams.pg.headroom);
        pfc_json_int(g, "bytes", pg.bytes);
        if (th == UINT64_MAX) {
            pfc_json_int(g, "xoff_bytes", pfc->thr.xoff_bytes);
        } else {
            pfc_json_int(g, "xoff_cells", th);
        }
        json_object_put(g, "xoff", json_boolean_create(over));
        pfc_json_int(g, "headroom_drops", drops);
        json_array_add(pgs, g);
    }
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        uint32_t held = 0, lossy = 0;
        struct json *t;

        for (int i = 0; i < pfc->n_txq; i++) {
            held += pfc->txq[i].q[tc].n;
            lossy += pfc->txq[i].q[tc].n_lossy;
        }
        if (!held
            && !(pfc_tcs_prios(cfg->prio_to_tc, 1u << tc) & cfg->enabled)) {
            continue;
        }
        t = json_object_create();
        pfc_json_int(t, "tc", tc);
        pfc_json_int(t, "held", held);
        pfc_json_int(t, "lossy", lossy);
        pfc_json_int(t, "tx_queues", pfc->n_txq);
        pfc_json_int(t, "bound", pfc_buf_egress_bound(&bd->eparams, free));
        pfc_json_int(t, "lossy_limit",
                     pfc_buf_lossy_limit(&bd->eparams, free));
        json_array_add(tcs, t);
    }
    json_object_put(o, "priority_groups", pgs);
    json_object_put(o, "traffic_classes", tcs);
    return o;
}

/* "pfc/buffer": the shared buffer, its priority groups and its egresses. */
static void
pfc_unixctl_buffer(struct unixctl_conn *conn, int argc, const char *argv[],
                   void *aux OVS_UNUSED)
{
    bool json = pfc_unixctl_wants_json(conn, &argc, &argv);
    struct json *ports = json ? json_object_create() : NULL;
    struct ds ds = DS_EMPTY_INITIALIZER;
    uint64_t total, reserved, shared, used, free, hdrm = 0;

    if (argc > 1) {
        json_destroy(ports);
        unixctl_command_reply_error(conn, "usage: pfc/buffer [--json]");
        return;
    }

    netdev_dpdk_pfc_ports_init();
    atomic_read_relaxed(&pfc_pool.total, &total);
    atomic_read_relaxed(&pfc_pool.reserved, &reserved);
    atomic_read_relaxed(&pfc_pool.shared, &shared);
    atomic_read_relaxed(&pfc_pool.used, &used);
    free = pfc_pool_free();
    for (int i = 0; i < PFC_N_PORTS; i++) {
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            struct pfc_buf_pg g;

            pfc_port_pg(&pfc_ports[i], n, &g);
            hdrm += g.headroom;
        }
    }
    ds_put_format(&ds, "buffer: %"PRIu64" cells: %"PRIu64" headroom "
                  "reserved (%"PRIu64" in use), %"PRIu64" shared (%"PRIu64
                  " taken by tx queues, %"PRIu64" free)\n", total, reserved,
                  hdrm, shared, used, free);
    for (int i = 0; i < PFC_N_PORTS; i++) {
        struct pfc_port *port = &pfc_ports[i];

        struct netdev_dpdk_pfc *pfc;

        /* The main thread, which runs this, is the one that destroys QoS
         * objects: 'pfc' stays valid once the lock is released, and nothing
         * is formatted with the lock held. */
        rte_spinlock_lock(&port->lock);
        pfc = port->conf;
        rte_spinlock_unlock(&port->lock);
        if (pfc && json) {
            json_object_put(ports, port->name,
                            pfc_buffer_port_json(port, pfc, free));
        } else if (pfc) {
            pfc_buffer_port(&ds, port, pfc, free);
        }
    }
    if (json) {
        struct json *o = json_object_create();

        pfc_json_int(o, "cells", total);
        pfc_json_int(o, "headroom_reserved", reserved);
        pfc_json_int(o, "headroom_in_use", hdrm);
        pfc_json_int(o, "shared", shared);
        pfc_json_int(o, "taken_by_tx_queues", used);
        pfc_json_int(o, "free", free);
        pfc_json_int(o, "flush_reasons", netdev_tx_flush_reasons());
        json_object_put(o, "ports", ports);
        pfc_unixctl_reply_json(conn, o);
    } else {
        unixctl_command_reply(conn, ds_cstr(&ds));
    }
    ds_destroy(&ds);
}

/* Registers "pfc/show [PORT]", "pfc/buffer", "pfc/headroom" and the
 * watermark commands (lib/pfc-unixctl.man). */
void
netdev_dpdk_pfc_register_commands(void)
{
    netdev_dpdk_pfc_ports_init();
    pfc_mark_register();
    unixctl_command_register("pfc/show", "[--json] [port]", 0, 2,
                             pfc_unixctl_show, NULL);
    unixctl_command_register("pfc/buffer", "[--json]", 0, 1,
                             pfc_unixctl_buffer, NULL);
    pfc_headroom_register_commands();
    pfc_watermark_register_commands();
}
