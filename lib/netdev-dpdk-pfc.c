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
#include "netdev-dpdk-pfc.h"

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "netdev-offload.h"
#include "netdev-provider.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "pfc.h"
#include "pfc-headroom.h"
#include "smap.h"
#include "unixctl.h"
#include "userspace-tso.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc);
static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* Link speed assumed when neither the link nor other_config:link-speed gives
 * one, in bit/s. */
#define PFC_FALLBACK_LINK_SPEED 10000000000ULL

/* A pause ends at its expiry if the port's receive queues were polled at most
 * this many ns before it, without waiting for one more poll.  A refresh that
 * arrives in those last 2 us, and waits in the rx ring, is then missed: a
 * partner that refreshes at half the pause (as this switch does) never sends
 * one that late.  What the rule is for, a PMD thread descheduled for
 * milliseconds, stays covered.  2 us is less than one PMD iteration at full
 * load on the reference machine (about 3.5 us), so the pause ends within the
 * timer-error target of the benchmark issue instead of up to two iterations
 * late. */
#define PFC_POLL_GRACE_NS 2000

/* Most held packets handed to the NIC in one rte_eth_tx_burst() call. */
#define PFC_TX_BURST 32

/* A PMD thread that just polled a port's receive queues and finds that a
 * pause holding packets ends later than PFC_POLL_GRACE_NS after that poll,
 * but at most this many ns later still, busy-waits and polls them again
 * rather than come back one iteration (about 4.5 us at full load on the
 * reference machine, more when it is disturbed) late (pfc_repoll_wait()). */
#define PFC_REPOLL_WAIT_NS 4000

/* A PMD thread busy-waits for the end of a pause that holds packets, so that
 * they leave on time rather than one batch late (pfc_release_on_time(): at
 * most PFC_REPOLL_WAIT_NS + PFC_POLL_GRACE_NS, 6 us), at most once per this
 * many ns per port.  That bounds what a partner that sends pause after short
 * pause can take from the PMD thread to 6/128, under 5%, per port. */
#define PFC_WAIT_INTERVAL_NS 128000

/* netdev_dpdk_pfc_tx_pending() says yes at least once per this many calls
 * while packets are held, so that the 100 ms cap of pfc_pause_holds() still
 * releases them on a port whose receive queues are no longer polled. */
#define PFC_IDLE_CHECKS 1024

/* Per DPDK port id state, for the life of the process (see the header). */
struct pfc_port {
    rte_spinlock_t lock;        /* Protects the members marked [L]. */

    /* Written by the main thread under 'lock', read by PMD threads. */
    atomic_bool active;         /* The port has QoS type pfc: its MAC
                                 * Control frames are consumed at rx. */
    struct netdev_dpdk_pfc *conf;   /* [L] Current QoS object, or NULL. */
    char name[64];              /* [L] Netdev name, for pfc/show. */
    struct eth_addr mac;        /* [L] Source address of sent PFC frames. */
    bool dead;                  /* [L] The netdev was destroyed. */
    char *last_error;           /* [L] Why the last configuration was
                                 * refused, or NULL. */
    uint32_t txq_size;          /* [L] Tx descriptors per queue: the ring
                                 * in use once the port is reconfigured
                                 * (netdev_dpdk_pfc_txq_size()). */
    struct pfc_ring_limits ring_lim;    /* [L] The driver's tx ring limits,
                                         * descriptors. */
    bool ring_lim_known;        /* [L] ring_lim was read from the driver. */
    uint64_t tx_full_held;      /* [L] Packets that the tx ring refused and
                                 * that were held instead of dropped. */
    uint32_t max_frame;         /* [L] Largest frame, bytes. */
    enum pfc_mac_control mac_control;   /* [L] How MAC Control frames reach
                                         * this switch. */
    char driver[32];            /* [L] DPDK driver name. */
    atomic_uint64_t tx_mac_control_filtered;    /* Frames that the
                                                 * datapath sent to the
                                                 * port and that
                                                 * netdev_dpdk_pfc_filter_tx()
                                                 * dropped. */
    atomic_uint64_t held_dropped;   /* Held packets freed outside the
                                     * transmit call that took them
                                     * (reconfiguration, tx preparation
                                     * failure, port deletion), for
                                     * tx_dropped. */

    /* Receive side: pause timers (seed 000 4.4). */
    struct pfc_pause pause;             /* [L] */
    struct pfc_timebase tb;             /* [L] TSC hz and link speed. */
    bool speed_from_link;               /* [L] tb.link_speed is the link's;
                                         * if neither this nor the QoS key
                                         * link-speed gave it, it is
                                         * PFC_FALLBACK_LINK_SPEED, until
                                         * the link comes up
                                         * (netdev_dpdk_pfc_reconfigured()).
                                         */
    atomic_uint64_t until[PFC_N_PRIOS]; /* Copy of pause.until[], TSC
                                         * cycles, for lock-free reads. */
    atomic_uint64_t max_until;          /* Largest of until[], TSC cycles. */
    atomic_uint64_t pause_gen;          /* Incremented, with release order,
                                         * after until[] and max_until
                                         * change (pfc_port_publish()), so
                                         * that transmit threads can cache
                                         * what they derive from them. */
    atomic_uint64_t rx_poll_tsc;        /* TSC of the end of the last poll of
                                         * the port's receive queues, kept
                                         * up to date only until it passes
                                         * max_until (netdev_dpdk_pfc_rx()).
                                         * A
                                         * pause is over only once the port
                                         * was polled no earlier than
                                         * PFC_POLL_GRACE_NS before its end,
                                         * so that a refresh waiting in the
                                         * rx ring while the PMD was
                                         * descheduled is read before held
                                         * packets leave.  Waits at most 100
                                         * ms past the end, if the queues
                                         * are never polled again. */
    uint64_t poll_grace;                /* [L] PFC_POLL_GRACE_NS in TSC
                                         * cycles. */
    uint64_t wait_interval;             /* [L] PFC_WAIT_INTERVAL_NS in TSC
                                         * cycles. */
    uint64_t repoll_wait;               /* [L] PFC_REPOLL_WAIT_NS in TSC
                                         * cycles. */

    /* Transmit side: bytes held in the switch that arrived on this port with
     * each priority, and the XOFF state towards the link partner. */
    atomic_uint64_t charge[PFC_N_PRIOS];        /* Bytes. */
    atomic_uint64_t charge_pkts[PFC_N_PRIOS];   /* Packets. */
    struct pfc_xoff xoff;               /* [L] */

    struct pfc_counters counters;       /* [L] */

    /* Instrumentation (issue "benchmark"), recorded once per event, never
     * per packet. */
    struct pfc_samples reaction;        /* [L] PMD reads a PFC frame ->
                                         * first transmit decision on this
                                         * port that honours it. */
    struct pfc_samples timer_error;     /* [L] End of a pause (timer expiry
                                         * or XON) -> first held packet of
                                         * the class handed to the NIC. */
    struct pfc_samples xoff_gen;        /* [L] Ingress charge reaches XOFF ->
                                         * PFC frame handed to the NIC. */
    uint64_t sent_while_paused;         /* [L] Packets of a paused class
                                         * handed to the NIC after the pause
                                         * took effect (target 0). */
    uint64_t release_waits;             /* [L] Pauses whose end a PMD
                                         * thread busy-waited for
                                         * (pfc_release_on_time()). */
    uint64_t release_wait_ns;           /* [L] Total time busy-waited, ns,
                                         * with the waits to poll the
                                         * receive queues again. */
    atomic_uint64_t rx_tsc[PFC_N_PRIOS];    /* TSC when a PFC frame pausing
                                             * priority n was read; 0 once
                                             * its reaction is sampled. */
    atomic_uint64_t cross_tsc[PFC_N_PRIOS]; /* TSC when the charge of
                                             * priority n reached XOFF, or
                                             * 0. */
    atomic_uint64_t xoff_bytes_pub;     /* Thresholds in force, published */
    atomic_uint64_t xoff_pkts_pub;      /* for egress threads charging this
                                         * port. */
};

static struct pfc_port pfc_ports[RTE_MAX_ETHPORTS];

/* A QoS object of type "pfc". */
struct netdev_dpdk_pfc {
    /* Serializes the transmit threads that use this object, and the main
     * thread when it changes the class map or retires the object.  Taken by
     * pfc_lock_live(), which follows 'next'. */
    rte_spinlock_t lock;
    bool retired;                   /* Replaced: its held packets moved to
                                     * 'next', or, if 'next' is NULL, it no
                                     * longer applies (packets go out as on
                                     * a port without QoS).  Under 'lock'. */
    struct netdev_dpdk_pfc *next;   /* The object that replaced it. */
    bool retiring;                  /* PFC is being removed from the port
                                     * (netdev_dpdk_pfc_retire()). */
    struct pfc_config cfg;          /* Written under the QoS lock by
                                     * set_queue(), read by PMDs. */
    struct pfc_thresholds thr;      /* XOFF/XON in force, set at bind. */
    struct pfc_xoff_params xparams; /* pfc-enable, 'thr', pause-quanta and
                                     * the port's timebase, set at bind, for
                                     * pfc_xoff_run() and
                                     * pfc_control_pending(). */
    struct pfc_port *port;          /* Bound port, NULL before bind. */
    struct pfc_holdq q[PFC_N_PRIOS];    /* Hold queue per traffic class. */
    uint64_t tc_until[PFC_N_PRIOS];     /* TSC at which the pause that blocks
                                         * class tc ends, while it is
                                         * blocked with packets held; 0
                                         * otherwise.  For timer_error. */
    uint32_t n_held;                /* Packets in all of q[]. */
    uint8_t nonempty;               /* Traffic classes with packets in q[],
                                     * one bit per class. */
    uint64_t seen_gen;              /* port->pause_gen when
                                     * netdev_dpdk_pfc_tx_poll() last looked
                                     * (netdev_dpdk_pfc_tx_pending()). */

    /* pfc_blocked() caches its answer: 'blocked' holds while port->pause_gen
     * equals 'blocked_gen' and the TSC is below 'blocked_until', the first
     * end of a pause in force (0 forces a new evaluation). */
    uint8_t blocked;                /* Traffic classes, one bit each. */
    uint64_t blocked_gen;           /* port->pause_gen. */
    uint64_t blocked_until;         /* TSC cycles. */

    uint64_t next_release;          /* TSC cycles: when a held packet may next
                                     * leave (pfc_note_release()): 0 for now,
                                     * UINT64_MAX when none is held. */
    uint64_t wait_ok;               /* TSC cycles: no release wait before
                                     * this (PFC_WAIT_INTERVAL_NS). */
    bool repolled;                  /* pfc_release_on_time() asked for the
                                     * receive queues to be polled again:
                                     * the wait that follows is allowed. */
    atomic_uint32_t idle_checks;    /* netdev_dpdk_pfc_tx_pending() calls
                                     * since it last said yes while packets
                                     * were held (PFC_IDLE_CHECKS). */
    atomic_uint64_t held_pkts[PFC_N_PRIOS];     /* Per priority, packets. */
    atomic_uint64_t held_bytes[PFC_N_PRIOS];    /* Per priority, bytes. */
    atomic_uint64_t hold_drops[PFC_N_PRIOS];    /* Per priority, packets
                                                 * dropped on a full class
                                                 * queue since bind.  Folded
                                                 * into the port's counters
                                                 * on destroy. */
    atomic_uint64_t tx_full_held;   /* Packets held because the tx ring was
                                     * full, since bind (idem). */
};

/* Adds 'n' to 'counter', which only the holder of the QoS lock writes: a
 * plain load and store, no locked instruction, for the transmit path. */
static inline void
pfc_count(atomic_uint64_t *counter, uint64_t n)
{
    uint64_t v;

    atomic_read_relaxed(counter, &v);
    atomic_store_relaxed(counter, v + n);
}

/* Tells transmit threads that port->until[] changed (port->pause_gen).  The
 * caller holds port->lock. */
static void
pfc_port_bump_gen(struct pfc_port *port)
{
    uint64_t gen;

    atomic_read_relaxed(&port->pause_gen, &gen);
    atomic_store_explicit(&port->pause_gen, gen + 1, memory_order_release);
}

static void
pfc_ports_init(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        for (int i = 0; i < RTE_MAX_ETHPORTS; i++) {
            rte_spinlock_init(&pfc_ports[i].lock);
        }
        ovsthread_once_done(&once);
    }
}

/* Parses 'details' into a new QoS object in '*pfcp'.  Returns 0, or EINVAL
 * after logging the key at fault and its allowed range. */
int
netdev_dpdk_pfc_create(const struct smap *details,
                       struct netdev_dpdk_pfc **pfcp)
{
    struct netdev_dpdk_pfc *pfc;
    struct pfc_config cfg;
    char *err;
    int error;

    pfc_ports_init();
    error = pfc_config_parse(details, &cfg, &err);
    if (error) {
        VLOG_ERR("QoS type pfc: %s; keeping the previous configuration",
                 err);
        free(err);
        return error;
    }

    pfc = xzalloc(sizeof *pfc);
    rte_spinlock_init(&pfc->lock);
    pfc->cfg = cfg;
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        pfc_holdq_init(&pfc->q[tc], cfg.queue_size);
    }
    *pfcp = pfc;
    return 0;
}

/* Returns the speed of the link of 'port_id', in bit/s, with '*from_link'
 * true, or PFC_FALLBACK_LINK_SPEED with '*from_link' false if the link is
 * down or gives no speed (what a down link reports is the last or a nominal
 * speed, not the one it will come up at). */
static uint64_t
pfc_link_speed(uint16_t port_id, bool *from_link)
{
    struct rte_eth_link link;

    memset(&link, 0, sizeof link);
    if (!rte_eth_link_get_nowait(port_id, &link)
        && link.link_status == RTE_ETH_LINK_UP
        && link.link_speed && link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN) {
        *from_link = true;
        return (uint64_t) link.link_speed * 1000000;
    }
    *from_link = false;
    return PFC_FALLBACK_LINK_SPEED;
}

static void
pfc_port_set_error(struct pfc_port *port, const char *name, char *error)
{
    rte_spinlock_lock(&port->lock);
    if (!port->conf) {
        ovs_strlcpy(port->name, name, sizeof port->name);
    }
    free(port->last_error);
    port->last_error = error;
    rte_spinlock_unlock(&port->lock);
}

/* Reads the tx ring limits of the driver of 'port_id' into '*lim'.  Returns
 * false, with '*lim' allowing any ring, if the driver gives none. */
static bool
pfc_ring_limits_get(uint16_t port_id, struct pfc_ring_limits *lim)
{
    struct rte_eth_dev_info info;

    lim->nb_min = 0;
    lim->nb_max = UINT16_MAX;
    lim->nb_align = 1;
    if (rte_eth_dev_info_get(port_id, &info)) {
        return false;
    }
    lim->nb_min = info.tx_desc_lim.nb_min;
    lim->nb_max = info.tx_desc_lim.nb_max;
    lim->nb_align = info.tx_desc_lim.nb_align;
    return true;
}

/* Makes the NIC of 'port_id', whose driver is 'driver', pass MAC Control
 * frames to software if it must be asked (pfc_mac_control_needs_nic()):
 * 802.3x flow control off and mac_ctrl_frame_fwd on, and
 * 01-80-C2-00-00-01 accepted.  Returns what pfc_mac_control_decide() makes
 * of the driver's answers, with '*reason' set on PFC_MAC_CONTROL_REFUSED. */
static enum pfc_mac_control
pfc_mac_control_setup(uint16_t port_id, const char *driver, bool trust,
                      char **reason)
{
    struct pfc_mac_control_answers a = { 0, 0, 0 };

    if (pfc_mac_control_needs_nic(driver, trust)) {
        struct rte_eth_fc_conf fc;

        memset(&fc, 0, sizeof fc);
        a.flow_ctrl_get = rte_eth_dev_flow_ctrl_get(port_id, &fc);
        if (!a.flow_ctrl_get) {
            fc.mode = RTE_ETH_FC_NONE;
            fc.mac_ctrl_frame_fwd = 1;
            a.flow_ctrl_set = rte_eth_dev_flow_ctrl_set(port_id, &fc);
        }
        if (!a.flow_ctrl_get && !a.flow_ctrl_set
            && rte_eth_promiscuous_get(port_id) != 1
            && rte_eth_allmulticast_get(port_id) != 1) {
            a.allmulticast = rte_eth_allmulticast_enable(port_id);
        }
    }
    return pfc_mac_control_decide(driver, trust, &a, reason);
}

/* Attaches 'pfc', just created, to the port described by 'info', and derives
 * its thresholds (pfc_derive_thresholds()).  On a physical NIC, asks it to
 * pass MAC Control frames to software (pfc_mac_control_setup()).
 *
 * Returns 0, or EINVAL after logging why: 802.3x flow control is on (PFC and
 * PAUSE are mutually exclusive, seed 000 3.3), the port is not an attached
 * DPDK ethernet port, flow offload is enabled (other_config:hw-offload:
 * offloaded flows would bypass the traffic class queues), the driver
 * refuses to pass MAC Control frames, or the headroom does not fit.  The
 * reason is kept for pfc/show. */
int
netdev_dpdk_pfc_bind(struct netdev_dpdk_pfc *pfc,
                     const struct netdev_dpdk_pfc_port_info *info)
{
    struct pfc_ring_limits ring_lim;
    struct pfc_port_limits limits;
    struct pfc_thresholds thr;
    struct pfc_port *port;
    bool from_link = false;
    bool ring_lim_known;
    char *err;

    if (info->port_id >= RTE_MAX_ETHPORTS) {
        VLOG_ERR("%s: QoS type pfc needs an attached DPDK port", info->name);
        return EINVAL;
    }
    port = &pfc_ports[info->port_id];
    if (info->flow_ctrl) {
        err = xasprintf("QoS type pfc and 802.3x flow control are mutually "
                        "exclusive: set options:rx-flow-ctrl=false and "
                        "options:tx-flow-ctrl=false on the Interface first");
        VLOG_ERR("%s: %s", info->name, err);
        pfc_port_set_error(port, info->name, err);
        return EINVAL;
    }

    if (netdev_is_flow_api_enabled()) {
        err = xasprintf("QoS type pfc is refused while other_config:"
                        "hw-offload=true: offloaded flows would forward "
                        "around the traffic class queues and ignore pauses; "
                        "set hw-offload=false and restart ovs-vswitchd");
        VLOG_ERR("%s: %s", info->name, err);
        pfc_port_set_error(port, info->name, err);
        return EINVAL;
    }

    limits.link_speed = (pfc->cfg.link_speed ? pfc->cfg.link_speed
                         : pfc_link_speed(info->port_id, &from_link));
    if (!pfc->cfg.link_speed && !from_link) {
        VLOG_WARN("%s: link speed unknown, assuming %"PRIu64" bit/s for "
                  "pause quanta; set other_config:link-speed", info->name,
                  limits.link_speed);
    }
    limits.max_frame = info->mtu + ETH_HEADER_LEN + VLAN_HEADER_LEN
                       + 4 /* FCS */;
    limits.mbufs = info->mbufs ? info->mbufs : UINT64_MAX;
    limits.mbuf_size = info->mbuf_size;
    if (pfc_derive_thresholds(&pfc->cfg, &limits, &thr, &err)) {
        VLOG_ERR("%s: QoS type pfc: %s; keeping the previous configuration",
                 info->name, err);
        pfc_port_set_error(port, info->name, err);
        return EINVAL;
    }

    struct rte_eth_dev_info dev_info;
    enum pfc_mac_control mac_control;
    const char *driver;

    memset(&dev_info, 0, sizeof dev_info);
    driver = (!rte_eth_dev_info_get(info->port_id, &dev_info)
              && dev_info.driver_name ? dev_info.driver_name : "unknown");
    mac_control = pfc_mac_control_setup(info->port_id, driver,
                                        pfc->cfg.mac_control_trust, &err);
    if (mac_control == PFC_MAC_CONTROL_REFUSED) {
        VLOG_ERR("%s: QoS type pfc refused: %s", info->name, err);
        pfc_port_set_error(port, info->name, err);
        return EINVAL;
    }

    ring_lim_known = pfc_ring_limits_get(info->port_id, &ring_lim);
    rte_spinlock_lock(&port->lock);
    if (!port->conf && (port->dead || strcmp(port->name, info->name))) {
        /* A new netdev on this port id: start from scratch, except for the
         * ingress charges, which packets still held elsewhere own. */
        pfc_pause_init(&port->pause);
        pfc_xoff_init(&port->xoff);
        memset(&port->counters, 0, sizeof port->counters);
        atomic_store_relaxed(&port->tx_mac_control_filtered, 0);
        atomic_store_relaxed(&port->held_dropped, 0);
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            atomic_store_relaxed(&port->until[n], 0);
        }
        atomic_store_relaxed(&port->max_until, 0);
        pfc_port_bump_gen(port);
    }
    ovs_strlcpy(port->name, info->name, sizeof port->name);
    port->mac = *info->mac;
    port->dead = false;
    free(port->last_error);
    port->last_error = NULL;
    port->txq_size = info->txq_size;
    port->ring_lim = ring_lim;
    port->ring_lim_known = ring_lim_known;
    port->max_frame = limits.max_frame;
    port->mac_control = mac_control;
    ovs_strlcpy(port->driver, driver, sizeof port->driver);
    port->tb.hz = rte_get_tsc_hz();
    port->poll_grace = port->tb.hz * PFC_POLL_GRACE_NS / 1000000000;
    port->wait_interval = port->tb.hz * PFC_WAIT_INTERVAL_NS / 1000000000;
    port->repoll_wait = port->tb.hz * PFC_REPOLL_WAIT_NS / 1000000000;
    port->tb.link_speed = limits.link_speed;
    port->speed_from_link = from_link;
    pfc->thr = thr;
    pfc->xparams = (struct pfc_xoff_params) {
        .enabled = pfc->cfg.enabled,
        .xoff_threshold = pfc->thr.xoff_bytes,
        .xon_threshold = pfc->thr.xon_bytes,
        .xoff_pkts = pfc->thr.xoff_pkts,
        .xon_pkts = pfc->thr.xon_pkts,
        .pause_quanta = pfc->cfg.pause_quanta,
        .tb = port->tb,
    };
    atomic_store_relaxed(&port->xoff_bytes_pub, pfc->thr.xoff_bytes);
    atomic_store_relaxed(&port->xoff_pkts_pub, pfc->thr.xoff_pkts);
    port->conf = pfc;
    pfc->port = port;
    atomic_store_relaxed(&port->active, true);
    rte_spinlock_unlock(&port->lock);
    return 0;
}

/* Derives the thresholds of 'pfc', bound to the port that 'info' describes,
 * again (netdev_dpdk_pfc_bind()) after netdev-dpdk reconfigured that port, or
 * saw its link come up: its MTU, mempool, tx ring or link speed may have
 * changed since.  A port whose link was down when the QoS was applied
 * assumed PFC_FALLBACK_LINK_SPEED, which is wrong for any other speed: pause
 * quanta and headroom are in bit times.  A
 * transaction that sets a Port's qos and its Interface's mtu_request
 * together, for example, binds the QoS before the new MTU takes effect, and
 * headroom for 1522-byte frames is far short of what 9000-byte frames need.
 * If the headroom no longer fits, the thresholds in force are kept, and the
 * reason is logged and shown in pfc/show. */
void
netdev_dpdk_pfc_reconfigured(struct netdev_dpdk_pfc *pfc,
                             const struct netdev_dpdk_pfc_port_info *info)
{
    struct pfc_thresholds old = pfc->thr;

    if (!pfc->port || netdev_dpdk_pfc_bind(pfc, info)) {
        return;
    }
    if (old.xoff_bytes != pfc->thr.xoff_bytes
        || old.xon_bytes != pfc->thr.xon_bytes
        || old.xoff_pkts != pfc->thr.xoff_pkts
        || old.xon_pkts != pfc->thr.xon_pkts) {
        const struct pfc_thresholds *t = &pfc->thr;

        VLOG_INFO("%s: PFC thresholds derived again for MTU %"PRIu32" at "
                  "%"PRIu64" bit/s: xoff %"PRIu64" %s, xon %"PRIu64" %s",
                  info->name, info->mtu, pfc->port->tb.link_speed,
                  t->derived ? t->xoff_pkts : t->xoff_bytes,
                  t->derived ? "packets" : "bytes",
                  t->derived ? t->xon_pkts : t->xon_bytes,
                  t->derived ? "packets" : "bytes");
    }
}

/* Returns the tx ring size, in descriptors, for DPDK port 'port_id' with QoS
 * 'pfc': pfc_tx_ring_size() of the QoS key tx-ring-size, for frames of an
 * 'mtu'-byte MTU, within the driver's tx_desc_lim.  'interface_size' is the
 * Interface's n_txq_desc, in descriptors.
 *
 * With 'commit', the caller is about to set up the port's tx queues with the
 * returned size: it is recorded for pfc/show and logged when it changes.
 * Called by netdev-dpdk with the device mutex held. */
uint32_t
netdev_dpdk_pfc_txq_size(struct netdev_dpdk_pfc *pfc, uint16_t port_id,
                         uint32_t interface_size, uint32_t mtu, bool commit)
{
    uint32_t max_frame = mtu + ETH_HEADER_LEN + VLAN_HEADER_LEN + 4;
    struct pfc_ring_limits lim;
    struct pfc_port *port;
    uint32_t size;
    bool known;

    if (port_id >= RTE_MAX_ETHPORTS || !pfc->port) {
        return interface_size;
    }
    known = pfc_ring_limits_get(port_id, &lim);
    size = pfc_tx_ring_size(pfc->cfg.tx_ring_size, interface_size, max_frame,
                            &lim);
    if (commit) {
        port = pfc->port;
        rte_spinlock_lock(&port->lock);
        if (size != port->txq_size) {
            struct ds d = DS_EMPTY_INITIALIZER;

            VLOG_INFO("%s: PFC: tx ring of %"PRIu32" descriptors per queue "
                      "(tx-ring-size=%s; the 802.1Qbb response bound allows "
                      "%"PRIu32" with %"PRIu32"-byte frames; driver allows "
                      "%"PRIu32" to %"PRIu32" in steps of %"PRIu32")",
                      port->name, size,
                      pfc_tx_ring_size_name(pfc->cfg.tx_ring_size, &d),
                      pfc_tx_ring_bound(max_frame), max_frame, lim.nb_min,
                      lim.nb_max, MAX(lim.nb_align, 1));
            ds_destroy(&d);
        }
        port->txq_size = size;
        port->max_frame = max_frame;
        port->ring_lim = lim;
        port->ring_lim_known = known;
        rte_spinlock_unlock(&port->lock);
    }
    return size;
}

static void
pfc_discharge(const struct pfc_held *h)
{
    if (h->in_port < RTE_MAX_ETHPORTS) {
        uint64_t orig;

        atomic_sub_relaxed(&pfc_ports[h->in_port].charge[h->prio], h->len,
                           &orig);
        atomic_sub_relaxed(&pfc_ports[h->in_port].charge_pkts[h->prio], 1,
                           &orig);
    }
}

/* Takes 'h', which is leaving a hold queue of 'pfc', off the held counts of
 * 'pfc' and off the charge of its ingress port. */
static void
pfc_unhold(struct netdev_dpdk_pfc *pfc, const struct pfc_held *h)
{
    uint64_t orig;

    pfc_discharge(h);
    atomic_sub_relaxed(&pfc->held_pkts[h->prio], 1, &orig);
    atomic_sub_relaxed(&pfc->held_bytes[h->prio], h->len, &orig);
}

/* Frees 'pfc'.  No thread may use it any more (the caller postponed this
 * with RCU).  Packets still held are freed and counted as hold drops. */
void
netdev_dpdk_pfc_destroy(struct netdev_dpdk_pfc *pfc)
{
    struct pfc_port *port = pfc->port;
    uint64_t freed[PFC_N_PRIOS] = { 0 };
    uint64_t n_freed = 0;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        struct pfc_holdq *q = &pfc->q[tc];

        while (q->n) {
            const struct pfc_held *h = pfc_holdq_peek(q, 0);

            pfc_discharge(h);
            freed[h->prio]++;
            n_freed++;
            rte_pktmbuf_free(h->pkt);
            pfc_holdq_pop(q, 1);
        }
        pfc_holdq_destroy(q);
    }

    if (port) {
        rte_spinlock_lock(&port->lock);
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            uint64_t d;

            atomic_read_relaxed(&pfc->hold_drops[n], &d);
            port->counters.hold_drops[n] += freed[n] + d;
        }
        uint64_t full, orig;
        atomic_read_relaxed(&pfc->tx_full_held, &full);
        port->tx_full_held += full;
        atomic_add_relaxed(&port->held_dropped, n_freed, &orig);
        if (port->conf == pfc) {
            port->conf = NULL;
            atomic_store_relaxed(&port->active, false);
        }
        if (n_freed) {
            VLOG_INFO("%s: freed %"PRIu64" held packets on PFC "
                      "reconfiguration (counted as hold drops)",
                      port->name, n_freed);
        }
        rte_spinlock_unlock(&port->lock);
    }
    free(pfc);
}

/* Returns true if 'pfc' is configured as 'details' would configure it. */
bool
netdev_dpdk_pfc_equal(const struct netdev_dpdk_pfc *pfc,
                      const struct smap *details)
{
    struct pfc_config cfg;
    char *err;

    if (pfc->retiring) {
        return false;
    }
    if (pfc_config_parse(details, &cfg, &err)) {
        free(err);
        return false;
    }
    return pfc_config_equal(&pfc->cfg, &cfg);
}

/* Stores the QoS other_config that configures 'pfc' into 'details' (for
 * ovs-appctl qos/show and netdev_get_qos()). */
void
netdev_dpdk_pfc_get(const struct netdev_dpdk_pfc *pfc, struct smap *details)
{
    pfc_config_to_smap(&pfc->cfg, details);
}

/* After a change of the priority to traffic class map of 'pfc': moves the
 * held packets of each priority to its new class, in order, behind what
 * that class holds (pfc_holdq_remap()), and frees, counting them as hold
 * drops, those that do not fit, and returns how many.  Its caller holds
 * pfc->lock, so no PMD thread uses 'pfc' meanwhile. */
static size_t
pfc_remap_held(struct netdev_dpdk_pfc *pfc)
{
    struct pfc_held *dropped;
    size_t n_dropped;

    pfc->blocked_until = 0;     /* The classes blocked may have changed. */
    if (!pfc->n_held) {
        return 0;
    }
    dropped = xmalloc(pfc->n_held * sizeof *dropped);
    n_dropped = pfc_holdq_remap(pfc->q, pfc->cfg.prio_to_tc, dropped);
    for (size_t i = 0; i < n_dropped; i++) {
        const struct pfc_held *h = &dropped[i];

        pfc_unhold(pfc, h);
        pfc_count(&pfc->hold_drops[h->prio], 1);
        rte_pktmbuf_free(h->pkt);
    }
    pfc->n_held -= n_dropped;
    free(dropped);
    if (n_dropped && pfc->port) {
        uint64_t orig;

        atomic_add_relaxed(&pfc->port->held_dropped, n_dropped, &orig);
    }
    pfc->nonempty = 0;
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        if (pfc->q[tc].n) {
            pfc->nonempty |= 1u << tc;
        } else {
            pfc->tc_until[tc] = 0;
        }
    }
    pfc->next_release = 0;      /* Look again at the next tx_poll. */
    return n_dropped;
}

static void
pfc_log_remap_drops(const struct netdev_dpdk_pfc *pfc, size_t n_dropped)
{
    if (n_dropped) {
        VLOG_WARN("%s: PFC: %"PRIuSIZE" held packets dropped: their new "
                  "traffic class had no room for them",
                  pfc->port ? pfc->port->name : "?", n_dropped);
    }
}

/* Maps the priorities in 'details' to traffic class 'queue_id'.  Returns 0
 * or EINVAL, after logging why. */
int
netdev_dpdk_pfc_set_queue(struct netdev_dpdk_pfc *pfc, uint32_t queue_id,
                          const struct smap *details)
{
    size_t n_dropped = 0;
    char *err;
    int error;

    rte_spinlock_lock(&pfc->lock);
    error = pfc_config_set_queue(&pfc->cfg, queue_id, details, &err);
    if (!error) {
        n_dropped = pfc_remap_held(pfc);
    }
    rte_spinlock_unlock(&pfc->lock);
    pfc_log_remap_drops(pfc, n_dropped);

    if (error) {
        VLOG_ERR("%s: QoS type pfc: %s; keeping the previous mapping",
                 pfc->port ? pfc->port->name : "?", err);
        free(err);
    }
    return error;
}

/* Removes the priority mapping of traffic class 'queue_id' (0..7; others
 * are ignored): its priorities return to the class of their own number. */
void
netdev_dpdk_pfc_clear_queue(struct netdev_dpdk_pfc *pfc, uint32_t queue_id)
{
    size_t n_dropped;

    rte_spinlock_lock(&pfc->lock);
    pfc_config_clear_queue(&pfc->cfg, queue_id);
    n_dropped = pfc_remap_held(pfc);
    rte_spinlock_unlock(&pfc->lock);
    pfc_log_remap_drops(pfc, n_dropped);
}

/* Stores the other_config of traffic class 'queue_id' ("priorities") into
 * 'details'.  Returns 0, or EINVAL if 'queue_id' is not 0..7. */
int
netdev_dpdk_pfc_get_queue(const struct netdev_dpdk_pfc *pfc,
                          uint32_t queue_id, struct smap *details)
{
    struct ds d = DS_EMPTY_INITIALIZER;

    if (queue_id >= PFC_N_PRIOS) {
        return EINVAL;
    }
    pfc_format_prios(&d, pfc->cfg.tc_prios[queue_id]);
    smap_add(details, "priorities", ds_cstr(&d));
    ds_destroy(&d);
    return 0;
}

static void
pfc_port_publish(struct pfc_port *port)
{
    uint64_t max = 0;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        atomic_store_relaxed(&port->until[n], port->pause.until[n]);
        max = MAX(max, port->pause.until[n]);
    }
    atomic_store_relaxed(&port->max_until, max);
    pfc_port_bump_gen(port);
}

static void
pfc_rx_frame(struct pfc_port *port, enum pfc_rx_kind kind,
             const struct pfc_frame *frame)
{
    uint64_t now = rte_get_tsc_cycles();
    uint8_t enabled;
    uint64_t poll;

    /* The frame arrived after the previous poll of the port. */
    atomic_read_relaxed(&port->rx_poll_tsc, &poll);
    rte_spinlock_lock(&port->lock);
    switch (kind) {
    case PFC_RX_PFC:
        /* Only priorities in pfc-enable honour the frame. */
        enabled = port->conf ? port->conf->cfg.enabled : 0;
        pfc_receive(&port->pause, &port->counters, frame, enabled,
                    &port->tb, now, poll);
        pfc_port_publish(port);
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            if (frame->enable & enabled & (1u << n) && frame->time[n]) {
                atomic_store_relaxed(&port->rx_tsc[n], now);
            }
        }
        break;
    case PFC_RX_PAUSE:
        port->counters.rx_pause_ignored++;
        break;
    case PFC_RX_UNSUPPORTED:
        port->counters.rx_unsupported++;
        break;
    case PFC_RX_INVALID:
        port->counters.rx_invalid++;
        break;
    case PFC_RX_NOT_MAC_CONTROL:
    default:
        OVS_NOT_REACHED();
    }
    rte_spinlock_unlock(&port->lock);
}

/* Consumes the MAC Control frames among the 'cnt' packets (possibly 0) just
 * received in 'pkts' on DPDK port 'port_id', if the port has QoS type pfc:
 * valid PFC frames set the pause timers, every MAC Control frame is counted
 * and freed, none reaches the datapath.  Must be called after every poll,
 * even an empty one: a pause ends only once the port was polled after, or
 * at most PFC_POLL_GRACE_NS before, its end.  Compacts 'pkts' and returns
 * how many remain. */
int
netdev_dpdk_pfc_rx(uint16_t port_id, struct rte_mbuf **pkts, int cnt)
{
    struct pfc_port *port;
    bool active;
    int kept = 0;

    if (port_id >= RTE_MAX_ETHPORTS) {
        return cnt;
    }
    port = &pfc_ports[port_id];
    atomic_read_relaxed(&port->active, &active);
    if (!active) {
        return cnt;
    }

    for (int i = 0; i < cnt; i++) {
        struct rte_mbuf *m = pkts[i];
        struct pfc_frame frame;
        enum pfc_rx_kind kind;

        if (OVS_LIKELY(!pfc_maybe_mac_control(rte_pktmbuf_mtod(m, void *),
                                              rte_pktmbuf_data_len(m)))) {
            pkts[kept++] = m;
            continue;
        }
        kind = pfc_frame_decode(rte_pktmbuf_mtod(m, const void *),
                                rte_pktmbuf_data_len(m), &frame);
        if (kind == PFC_RX_NOT_MAC_CONTROL) {
            pkts[kept++] = m;
        } else {
            pfc_rx_frame(port, kind, &frame);
            rte_pktmbuf_free(m);
        }
    }
    /* After the frames of this burst took effect.  Only while a pause may
     * still be running: once a poll is stamped past the end of every pause,
     * the stamp stays valid for pfc_blocked() and for the next frame's
     * 'earliest' (only pauses that ended before it matter), and idle polls
     * skip reading the TSC. */
    uint64_t max, poll;

    atomic_read_relaxed(&port->max_until, &max);
    atomic_read_relaxed(&port->rx_poll_tsc, &poll);
    if (max > poll) {
        atomic_store_relaxed(&port->rx_poll_tsc, rte_get_tsc_cycles());
    }
    return kept;
}

/* Records in 'samples' of 'port' an interval from TSC 'start' to 'end'. */
static void
pfc_port_sample(struct pfc_port *port, struct pfc_samples *samples,
                uint64_t start, uint64_t end)
{
    rte_spinlock_lock(&port->lock);
    pfc_samples_add(samples, pfc_ticks_to_ns(&port->tb, end - start), start);
    rte_spinlock_unlock(&port->lock);
}

/* Returns the traffic classes of 'pfc' that may not send at TSC 'now'.
 * Costs two loads and a compare while nothing changed since the last call:
 * the answer is cached until a PFC frame is read or the first pause in force
 * ends. */
static uint8_t
pfc_blocked(struct netdev_dpdk_pfc *pfc, uint64_t now)
{
    struct pfc_port *port = pfc->port;
    uint64_t gen, max, poll, valid = UINT64_MAX;
    uint8_t paused = 0, blocked = 0;

    atomic_read_explicit(&port->pause_gen, &gen, memory_order_acquire);
    if (OVS_LIKELY(gen == pfc->blocked_gen && now < pfc->blocked_until)) {
        return pfc->blocked;
    }
    atomic_read_relaxed(&port->max_until, &max);
    atomic_read_relaxed(&port->rx_poll_tsc, &poll);
    if (now < max || poll + port->poll_grace < max) {
        uint64_t end[PFC_N_PRIOS] = { 0 };

        for (int n = 0; n < PFC_N_PRIOS; n++) {
            uint64_t until, rx;

            if (!(pfc->cfg.enabled & (1u << n))) {
                /* Not PFC-enabled: a pause set before pfc-enable changed
                 * no longer applies. */
                continue;
            }
            atomic_read_relaxed(&port->until[n], &until);
            if (!pfc_pause_holds(until, now, poll, port->poll_grace,
                                 port->tb.hz / 10)) {
                /* Only a new PFC frame can pause it again. */
                continue;
            }
            int tc = pfc->cfg.prio_to_tc[n];

            paused |= 1u << n;
            end[tc] = MAX(end[tc], until);
            /* Until its end; past it, waiting for a poll: every call. */
            valid = MIN(valid, now < until ? until : 0);
            atomic_read_relaxed(&port->rx_tsc[n], &rx);
            if (rx && atomic_compare_exchange_strong(&port->rx_tsc[n], &rx,
                                                     0)) {
                pfc_port_sample(port, &port->reaction, rx, now);
            }
        }
        blocked = pfc_tcs_blocked(pfc->cfg.prio_to_tc, paused);
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            if (blocked & (1u << tc)) {
                /* The end of the pause in force now: an XON or a shorter
                 * re-arm may have moved it earlier. */
                pfc->tc_until[tc] = end[tc];
            }
        }
    }
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        if (!(blocked & (1u << tc)) && !pfc->q[tc].n) {
            /* Nothing held waits for this pause: no timer_error sample. */
            pfc->tc_until[tc] = 0;
        }
    }
    pfc->blocked = blocked;
    pfc->blocked_gen = gen;
    pfc->blocked_until = valid;
    return blocked;
}

/* Returns true if pfc_tx_control() may have a PFC frame to send for 'pfc':
 * pfc_xoff_action() is not PFC_XOFF_NONE for an enabled priority.  A charge
 * below XOFF costs nothing, so a port that holds packets from its own
 * ingress does not take port->lock for every batch.  Lock-free: the reads of
 * the charges and of the XOFF state are racy, which is fine: the XOFF state
 * changes only under port->lock, and a stale value only costs taking it, or
 * a frame one call later.  Reads the TSC into '*now', if it is 0, only while
 * an XOFF is in force (its refresh time). */
static inline bool
pfc_control_pending(const struct netdev_dpdk_pfc *pfc, uint64_t *now)
{
    struct pfc_port *port = pfc->port;
    uint8_t asserted = port->xoff.asserted;

    if (OVS_UNLIKELY(asserted & ~pfc->xparams.enabled)) {
        /* XON owed for a priority that no longer does PFC. */
        return true;
    }
    for (uint32_t en = pfc->xparams.enabled; en; en &= en - 1) {
        int n = raw_ctz(en);
        bool in_force = asserted & (1u << n);
        uint64_t charge, pkts;

        atomic_read_relaxed(&port->charge[n], &charge);
        atomic_read_relaxed(&port->charge_pkts[n], &pkts);
        if (in_force && !*now) {
            *now = rte_get_tsc_cycles();
        }
        if (pfc_xoff_action(&pfc->xparams, in_force, charge, pkts,
                            port->xoff.refresh_at[n], *now)
            != PFC_XOFF_NONE) {
            return true;
        }
    }
    return false;
}

/* Sends the XOFF or XON that the ingress charges of this port call for, ahead
 * of any data (issue: generated frames go out ahead of held data). */
static void
pfc_tx_control(struct netdev_dpdk_pfc *pfc, int qid, struct rte_mempool *mp,
               uint64_t now)
{
    struct pfc_port *port = pfc->port;
    uint64_t charge[PFC_N_PRIOS] = { 0 };
    uint64_t charge_pkts[PFC_N_PRIOS] = { 0 };
    struct pfc_frame frame;
    struct rte_mbuf *m;
    uint64_t sent = 0;

    if (!pfc_control_pending(pfc, &now)) {
        return;
    }
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if (pfc->xparams.enabled & (1u << n)) {
            atomic_read_relaxed(&port->charge[n], &charge[n]);
            atomic_read_relaxed(&port->charge_pkts[n], &charge_pkts[n]);
        }
    }

    rte_spinlock_lock(&port->lock);
    if (!pfc_xoff_run(&port->xoff, &pfc->xparams, charge, charge_pkts, now,
                      &frame)) {
        rte_spinlock_unlock(&port->lock);
        return;
    }

    m = mp ? rte_pktmbuf_alloc(mp) : NULL;
    if (m) {
        void *buf = rte_pktmbuf_append(m, PFC_FRAME_LEN);

        pfc_frame_encode(buf, &port->mac, &frame);
        sent = rte_get_tsc_cycles();
        if (rte_eth_tx_burst(port - pfc_ports, qid, &m, 1) != 1) {
            rte_pktmbuf_free(m);
            m = NULL;
        }
    }
    if (m) {
        pfc_counters_count_tx(&port->counters, &frame);
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            uint64_t cross;

            if (!(frame.enable & (1u << n))) {
                continue;
            }
            atomic_read_relaxed(&port->cross_tsc[n], &cross);
            if (cross) {
                if (frame.time[n]) {
                    pfc_samples_add(&port->xoff_gen,
                                    pfc_ticks_to_ns(&port->tb,
                                                    sent - cross), cross);
                }
                atomic_store_relaxed(&port->cross_tsc[n], 0);
            }
        }
    } else {
        /* Not sent: make the next call try again. */
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            if (frame.enable & (1u << n)) {
                if (frame.time[n]) {
                    port->xoff.refresh_at[n] = now;
                } else {
                    port->xoff.asserted |= 1u << n;
                }
            }
        }
        VLOG_WARN_RL(&rl, "%s: could not send PFC frame, will retry",
                     port->name);
    }
    rte_spinlock_unlock(&port->lock);
}

/* Hands held packets of the classes not in 'blocked' to the NIC, oldest
 * first.  What the tx ring refuses stays held.  With userspace TSO they are
 * prepared first (rte_eth_tx_prepare()), as netdev-dpdk prepares what it
 * sends: packets held because their class was paused were not, and
 * preparing again those that the full ring refused is harmless.  A packet
 * that fails preparation is freed, logged and counted as a hold drop; the
 * packets behind it are still sent. */
static void
pfc_drain(struct netdev_dpdk_pfc *pfc, int qid, uint8_t blocked)
{
    uint16_t port_id = pfc->port - pfc_ports;
    bool prepare = userspace_tso_enabled();

    for (uint32_t tcs = pfc->nonempty & ~blocked; tcs; tcs &= tcs - 1) {
        int tc = raw_ctz(tcs);
        struct pfc_holdq *q = &pfc->q[tc];
        bool first = pfc->tc_until[tc] != 0;

        while (q->n) {
            struct rte_mbuf *burst[PFC_TX_BURST];
            uint16_t n = MIN(q->n, PFC_TX_BURST);
            uint16_t n_ok, sent;
            uint64_t handed;

            for (uint16_t i = 0; i < n; i++) {
                burst[i] = pfc_holdq_peek(q, i)->pkt;
            }
            if (OVS_UNLIKELY(prepare)) {
                n_ok = rte_eth_tx_prepare(port_id, qid, burst, n);
            } else {
                n_ok = n;
            }
            /* Timed when handed to the driver, as xoff_gen is. */
            handed = first ? rte_get_tsc_cycles() : 0;
            sent = n_ok ? rte_eth_tx_burst(port_id, qid, burst, n_ok) : 0;
            if (first && sent) {
                if (handed > pfc->tc_until[tc]) {
                    pfc_port_sample(pfc->port, &pfc->port->timer_error,
                                    pfc->tc_until[tc], handed);
                }
                pfc->tc_until[tc] = 0;
                first = false;
            }
            for (uint16_t i = 0; i < sent; i++) {
                pfc_unhold(pfc, pfc_holdq_peek(q, i));
            }
            pfc_holdq_pop(q, sent);
            pfc->n_held -= sent;
            if (sent < n_ok) {
                return;
            }
            if (n_ok < n) {
                /* burst[n_ok], now at the head, fails preparation. */
                const struct pfc_held *h = pfc_holdq_peek(q, 0);

                VLOG_WARN_RL(&rl, "%s: PFC: held packet of priority %d "
                             "dropped: it fails tx preparation: %s",
                             pfc->port->name, h->prio,
                             rte_strerror(rte_errno));
                pfc_unhold(pfc, h);
                pfc_count(&pfc->hold_drops[h->prio], 1);
                rte_pktmbuf_free(h->pkt);
                pfc_holdq_pop(q, 1);
                pfc->n_held--;
                uint64_t orig;
                atomic_add_relaxed(&pfc->port->held_dropped, 1, &orig);
            }
        }
        pfc->nonempty &= ~(1u << tc);
    }
}

/* Notes in pfc->next_release when a held packet may next leave, given the
 * traffic classes 'blocked' now: at once for a class that may send (the tx
 * ring refused its packets), else at the end of the first pause that holds
 * packets back. */
static void
pfc_note_release(struct netdev_dpdk_pfc *pfc, uint8_t blocked)
{
    uint64_t next = UINT64_MAX;

    for (uint32_t tcs = pfc->nonempty; tcs; tcs &= tcs - 1) {
        int tc = raw_ctz(tcs);

        next = MIN(next, blocked & (1u << tc) ? pfc->tc_until[tc] : 0);
    }
    pfc->next_release = next;
}

/* Locks 'pfc', or with 'try' only if that does not wait, and returns it; or,
 * if a reconfiguration replaced it (netdev_dpdk_pfc_succeed()), the object
 * that now holds its packets, locked.  Returns NULL, with nothing locked, if
 * 'try' and a lock is taken, or if PFC was removed from the port: then the
 * caller sends as on a port without QoS. */
static struct netdev_dpdk_pfc *
pfc_lock_live(struct netdev_dpdk_pfc *pfc, bool try)
{
    while (pfc) {
        struct netdev_dpdk_pfc *next;

        if (try) {
            if (!rte_spinlock_trylock(&pfc->lock)) {
                return NULL;
            }
        } else {
            rte_spinlock_lock(&pfc->lock);
        }
        if (OVS_LIKELY(!pfc->retired)) {
            return pfc;
        }
        next = pfc->next;
        rte_spinlock_unlock(&pfc->lock);
        pfc = next;
    }
    return NULL;
}

/* Sends the PFC frames due on 'pfc' at TSC 'now', then hands to tx queue
 * 'qid' the held packets whose class may send again.  Returns the traffic
 * classes blocked at 'now' (pfc_blocked()). */
static uint8_t
pfc_service(struct netdev_dpdk_pfc *pfc, int qid, struct rte_mempool *mp,
            uint64_t now)
{
    uint8_t blocked;

    if (pfc->xparams.enabled || pfc->port->xoff.asserted) {
        pfc_tx_control(pfc, qid, mp, now);
    }
    /* pfc_blocked() also notes when a new pause takes effect, so it runs
     * even with nothing held. */
    blocked = pfc_blocked(pfc, now);
    if (pfc->n_held) {
        pfc_drain(pfc, qid, blocked);
        pfc_note_release(pfc, blocked);
    }
    return blocked;
}

/* Returns true if netdev_dpdk_pfc_tx_poll() has work on 'pfc': a PFC frame
 * may be due, a PFC frame was read since it last looked, or a held packet
 * may leave: its class may send, or the port's receive queues were polled
 * late enough that the pause holding it ends now or within a release wait
 * (pfc_release_on_time()).  Lock-free and cheap, for the PMD loop (netdev
 * 'tx_poll_needed'): a port that holds packets behind a long pause costs a
 * few loads per iteration.  Reads are racy: a stale answer only defers the
 * work by one iteration. */
bool
netdev_dpdk_pfc_tx_pending(struct netdev_dpdk_pfc *pfc)
{
    struct pfc_port *port = pfc->port;
    uint64_t gen, poll, now = 0;
    uint32_t idle;

    if (!port) {
        return false;
    }
    if (pfc_control_pending(pfc, &now)) {
        return true;
    }
    atomic_read_relaxed(&port->pause_gen, &gen);
    if (gen != pfc->seen_gen) {
        return true;
    }
    if (!pfc->n_held) {
        return false;
    }
    /* pfc_release_on_time() may wait for the next release, directly or
     * after polling the receive queues again, if it comes soon enough after
     * their last poll. */
    atomic_read_relaxed(&port->rx_poll_tsc, &poll);
    if (poll + port->poll_grace + port->repoll_wait >= pfc->next_release) {
        return true;
    }
    /* The receive queues may no longer be polled: look anyway now and
     * then, for the 100 ms cap of pfc_pause_holds(). */
    atomic_read_relaxed(&pfc->idle_checks, &idle);
    atomic_store_relaxed(&pfc->idle_checks,
                         idle < PFC_IDLE_CHECKS ? idle + 1 : 0);
    return idle >= PFC_IDLE_CHECKS;
}

/* Busy-waits, if pfc_release_wait() says so, for the end of the pause that
 * holds the next packets to leave 'pfc', then hands them to tx queue 'qid'
 * (pfc_service(), with 'mp').  'now' is the TSC.  If the pause ends a little
 * later than that allows and 'rx_polled' says that the caller can poll the
 * port's receive queues again at once, busy-waits for the time to do so
 * (pfc_repoll_wait()) and returns EAGAIN to ask for it.  Both waits together
 * take at most PFC_REPOLL_WAIT_NS + PFC_POLL_GRACE_NS, at most once per
 * PFC_WAIT_INTERVAL_NS.  Returns 0 otherwise. */
static int
pfc_release_on_time(struct netdev_dpdk_pfc *pfc, int qid,
                    struct rte_mempool *mp, uint64_t now, bool rx_polled)
{
    struct pfc_port *port = pfc->port;
    uint64_t poll, wait, start = now;
    bool repoll = false;

    if (now < pfc->wait_ok && !pfc->repolled) {
        return 0;
    }
    pfc->repolled = false;
    atomic_read_relaxed(&port->rx_poll_tsc, &poll);
    wait = pfc_release_wait(pfc->next_release, now, poll, port->poll_grace);
    if (!wait) {
        repoll = rx_polled && pfc_repoll_wait(pfc->next_release, now, poll,
                                              port->poll_grace,
                                              port->repoll_wait, &wait);
        if (!repoll) {
            return 0;
        }
    }
    while (rte_get_tsc_cycles() - start < wait) {
        rte_pause();
    }
    now = rte_get_tsc_cycles();
    pfc->wait_ok = now + port->wait_interval;

    rte_spinlock_lock(&port->lock);
    port->release_waits += !repoll;
    port->release_wait_ns += pfc_ticks_to_ns(&port->tb, now - start);
    rte_spinlock_unlock(&port->lock);

    if (repoll) {
        pfc->repolled = true;
        return EAGAIN;
    }
    pfc_service(pfc, qid, mp, now);
    return 0;
}

/* Runs the periodic work of 'pfc' on tx queue 'qid': PFC frames due on this
 * port, then held packets whose class may send again.  Called by PMD threads
 * when netdev_dpdk_pfc_tx_pending() says so (netdev 'tx_poll'), right after
 * they poll the port's receive queues ('rx_polled' true) and at the end of
 * each iteration, so that held packets leave when a timer expires or an XON
 * arrives even with no new traffic.  A pause that ends within a few us is
 * waited for (pfc_release_on_time()).  'mp' supplies PFC frame mbufs.
 * Returns EAGAIN if the receive queues should be polled again at once, and
 * this called again with 'rx_polled' false, else 0. */
int
netdev_dpdk_pfc_tx_poll(struct netdev_dpdk_pfc *pfc, int qid,
                        struct rte_mempool *mp, bool rx_polled)
{
    uint64_t now;
    int error = 0;

    /* Another thread that holds the lock does the same work. */
    pfc = pfc_lock_live(pfc, true);
    if (!pfc) {
        return 0;
    }
    if (pfc->port) {
        atomic_read_relaxed(&pfc->port->pause_gen, &pfc->seen_gen);
        now = rte_get_tsc_cycles();
        pfc_service(pfc, qid, mp, now);
        if (pfc->n_held) {
            error = pfc_release_on_time(pfc, qid, mp, now, rx_polled);
        }
    }
    rte_spinlock_unlock(&pfc->lock);
    return error;
}

/* Charges 'len' bytes and one packet of priority 'prio' to ingress port
 * 'in', noting when its charge reaches XOFF (for the xoff_gen samples). */
static void
pfc_charge(struct pfc_port *in, int prio, uint32_t len, uint64_t now)
{
    uint64_t bytes, pkts, xoff_bytes, xoff_pkts, cross;

    atomic_add_relaxed(&in->charge[prio], len, &bytes);
    atomic_add_relaxed(&in->charge_pkts[prio], 1, &pkts);
    atomic_read_relaxed(&in->xoff_bytes_pub, &xoff_bytes);
    atomic_read_relaxed(&in->xoff_pkts_pub, &xoff_pkts);
    if ((bytes < xoff_bytes && bytes + len >= xoff_bytes)
        || (pkts < xoff_pkts && pkts + 1 >= xoff_pkts)) {
        atomic_read_relaxed(&in->cross_tsc[prio], &cross);
        if (!cross) {
            atomic_store_relaxed(&in->cross_tsc[prio], now);
        }
    }
}

/* Counts, as "sent while paused", the packets among the 'cnt' in 'pkts' about
 * to be handed to the NIC whose class a PFC frame read since the transmit
 * decision, made at port->pause_gen 'gen0', blocked.  One atomic load when
 * nothing changed. */
static void
pfc_check_late(struct netdev_dpdk_pfc *pfc, struct rte_mbuf **pkts, int cnt,
               uint64_t gen0, uint8_t blocked0)
{
    struct pfc_port *port = pfc->port;
    uint8_t late;
    uint64_t gen;
    int n = 0;

    atomic_read_relaxed(&port->pause_gen, &gen);
    if (OVS_LIKELY(gen == gen0) || !cnt) {
        return;
    }
    late = pfc_blocked(pfc, rte_get_tsc_cycles()) & ~blocked0;
    if (!late) {
        return;
    }
    for (int i = 0; i < cnt; i++) {
        int prio = pfc_packet_priority(rte_pktmbuf_mtod(pkts[i], void *),
                                       rte_pktmbuf_data_len(pkts[i]),
                                       pfc->cfg.default_priority);

        n += (late >> pfc->cfg.prio_to_tc[prio]) & 1;
    }
    if (n) {
        rte_spinlock_lock(&port->lock);
        port->sent_while_paused += n;
        rte_spinlock_unlock(&port->lock);
    }
}

/* Holds 'm', of priority 'prio', at the tail of the queue of its traffic
 * class, charging it to its ingress port.  Returns false, without taking 'm',
 * if the queue is full. */
static bool
pfc_hold(struct netdev_dpdk_pfc *pfc, struct rte_mbuf *m, int prio,
         uint64_t now)
{
    int tc = pfc->cfg.prio_to_tc[prio];
    struct pfc_holdq *q = &pfc->q[tc];
    struct pfc_held h;
    uint64_t orig;

    if (q->n >= q->cap) {
        return false;
    }
    h.pkt = m;
    h.len = rte_pktmbuf_pkt_len(m);
    h.prio = prio;
    h.in_port = UINT16_MAX;
    if (m->port < RTE_MAX_ETHPORTS) {
        bool active;

        atomic_read_relaxed(&pfc_ports[m->port].active, &active);
        if (active) {
            h.in_port = m->port;
        }
    }
    if (!pfc_holdq_push(q, &h)) {
        return false;
    }
    pfc->nonempty |= 1u << tc;
    if (h.in_port != UINT16_MAX) {
        pfc_charge(&pfc_ports[h.in_port], prio, h.len, now);
    }
    atomic_add_relaxed(&pfc->held_pkts[prio], 1, &orig);
    atomic_add_relaxed(&pfc->held_bytes[prio], h.len, &orig);
    pfc->n_held++;
    return true;
}

/* Hands the 'cnt' packets in 'pkts' to tx queue 'qid' of 'port_id', retrying
 * while the driver takes some, as netdev-dpdk does.  With userspace TSO, the
 * packets are prepared first and those after the first one the driver
 * rejects are freed: '*n_bad' counts them.  Returns how many the driver took;
 * the others, pkts[sent] up to the prepared count 'cnt - *n_bad', are left
 * to the caller. */
static int
pfc_tx_burst(uint16_t port_id, int qid, struct rte_mbuf **pkts, int cnt,
             int *n_bad)
{
    int n = cnt;
    int sent = 0;

    *n_bad = 0;
    if (OVS_UNLIKELY(userspace_tso_enabled()) && cnt) {
        n = rte_eth_tx_prepare(port_id, qid, pkts, cnt);
        if (n < cnt) {
            VLOG_WARN_RL(&rl, "dpdk port %"PRIu16": %d of %d packets fail "
                         "tx preparation: %s", port_id, cnt - n, cnt,
                         rte_strerror(rte_errno));
            rte_pktmbuf_free_bulk(&pkts[n], cnt - n);
            *n_bad = cnt - n;
        }
    }
    while (sent < n) {
        uint16_t k = rte_eth_tx_burst(port_id, qid, pkts + sent, n - sent);

        if (!k) {
            break;
        }
        sent += k;
    }
    return sent;
}

/* Applies PFC to the 'cnt' packets in 'pkts' to be sent on tx queue 'qid',
 * and sends them.  Due PFC frames and releasable held packets go first.
 * Packets whose traffic class is paused, or has packets already held, are
 * held in order.  The others are handed to the NIC; what its tx ring refuses
 * (the ring is kept small on PFC ports, see netdev_dpdk_pfc_txq_size()) is
 * held too, instead of being dropped, so that a congested egress charges its
 * ingress ports and ends in XOFF rather than loss.  A packet whose class
 * queue is full is freed and counted as a hold drop.
 *
 * Returns 0: no packet is left for the caller to send.  Sets '*n_taken' to
 * the packets sent or held and '*n_dropped' to those freed; the two add up to
 * 'cnt'. */
static int
pfc_send__(struct netdev_dpdk_pfc *pfc, int qid, struct rte_mempool *mp,
           struct rte_mbuf **pkts, int cnt, int *n_taken, int *n_dropped)
{
    uint64_t drops[PFC_N_PRIOS] = { 0 };
    struct rte_mbuf *to_free[PFC_TX_BURST];
    int kept = 0, held = 0, dropped = 0;
    int sent, n_bad, n_tx_full = 0;
    unsigned int n_free = 0;
    uint64_t now, max0, gen0, poll;
    uint16_t port_id;
    uint8_t blocked;

    *n_taken = *n_dropped = 0;
    if (!pfc->port) {
        return cnt;
    }
    port_id = pfc->port - pfc_ports;

    atomic_read_explicit(&pfc->port->pause_gen, &gen0, memory_order_acquire);
    atomic_read_relaxed(&pfc->port->max_until, &max0);
    atomic_read_relaxed(&pfc->port->rx_poll_tsc, &poll);
    now = 0;
    if (OVS_LIKELY(!pfc->n_held && max0 <= poll
                   && !pfc_control_pending(pfc, &now))) {
        /* Every pause ended before a past poll, nothing is held and no PFC
         * frame can be due: send as is, without reading the TSC (but
         * pfc_control_pending() does while an XOFF is in force). */
        now = 0;
        blocked = 0;
    } else {
        now = rte_get_tsc_cycles();
        blocked = pfc_service(pfc, qid, mp, now);
    }

    if (OVS_LIKELY(!blocked && !pfc->n_held)) {
        kept = cnt;
    } else {
        /* The priorities whose class is paused or already holds packets:
         * theirs are held, behind those. */
        uint8_t hold_tcs = blocked | pfc->nonempty;
        uint32_t hold_prios = 0;

        for (int n = 0; n < PFC_N_PRIOS; n++) {
            hold_prios |= ((hold_tcs >> pfc->cfg.prio_to_tc[n]) & 1u) << n;
        }
        for (int i = 0; i < cnt; i++) {
            struct rte_mbuf *m = pkts[i];
            int prio = pfc_packet_priority(rte_pktmbuf_mtod(m, const void *),
                                           rte_pktmbuf_data_len(m),
                                           pfc->cfg.default_priority);

            if (!((hold_prios >> prio) & 1)) {
                pkts[kept++] = m;
            } else if (pfc_hold(pfc, m, prio, now)) {
                held++;
            } else {
                if (n_free < ARRAY_SIZE(to_free)) {
                    to_free[n_free++] = m;
                } else {
                    rte_pktmbuf_free(m);
                }
                drops[prio]++;
                dropped++;
            }
        }
        if (n_free) {
            /* A paused class whose queue is full drops every packet: free
             * them in one go. */
            rte_pktmbuf_free_bulk(to_free, n_free);
        }
    }

    pfc_check_late(pfc, pkts, kept, gen0, blocked);
    sent = pfc_tx_burst(port_id, qid, pkts, kept, &n_bad);
    dropped += n_bad;

    /* The tx ring is full: hold the rest, in order, behind nothing (their
     * classes had no packets held, or they would have been held above). */
    if (sent < kept - n_bad && !now) {
        now = rte_get_tsc_cycles();
    }
    for (int i = sent; i < kept - n_bad; i++) {
        struct rte_mbuf *m = pkts[i];
        int prio = pfc_packet_priority(rte_pktmbuf_mtod(m, const void *),
                                       rte_pktmbuf_data_len(m),
                                       pfc->cfg.default_priority);

        if (pfc_hold(pfc, m, prio, now)) {
            held++;
            n_tx_full++;
        } else {
            rte_pktmbuf_free(m);
            drops[prio]++;
            dropped++;
        }
    }

    if (dropped) {
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            if (drops[n]) {
                pfc_count(&pfc->hold_drops[n], drops[n]);
            }
        }
    }
    if (n_tx_full) {
        pfc_count(&pfc->tx_full_held, n_tx_full);
    }
    if (pfc->n_held) {
        pfc_note_release(pfc, blocked);
    }
    *n_taken = sent + held;
    *n_dropped = dropped;
    return 0;
}

/* Applies PFC to the 'cnt' packets in 'pkts' to be sent on tx queue 'qid',
 * and sends them (pfc_send__()).  The caller holds the tx queue lock if the
 * queue is shared.  Returns how many of 'pkts' are left for the caller to
 * send: 0, or 'cnt' if PFC no longer applies to the port.  Sets '*n_taken'
 * to the packets sent or held and '*n_dropped' to those freed. */
int
netdev_dpdk_pfc_send(struct netdev_dpdk_pfc *pfc, int qid,
                     struct rte_mempool *mp, struct rte_mbuf **pkts, int cnt,
                     int *n_taken, int *n_dropped)
{
    int left;

    pfc = pfc_lock_live(pfc, false);
    if (!pfc) {
        *n_taken = *n_dropped = 0;
        return cnt;
    }
    left = pfc_send__(pfc, qid, mp, pkts, cnt, n_taken, n_dropped);
    rte_spinlock_unlock(&pfc->lock);
    return left;
}

/* Moves the packets held by 'old' into 'new', which replaces it as the QoS
 * object of the same port and which no thread uses yet, and retires 'old':
 * transmit threads that still use it go on with 'new' (pfc_lock_live()).
 * Each priority's held packets stay in order, ahead of anything 'new' holds
 * later, in the class queue that 'new' maps the priority to, even past
 * 'new''s queue-size, so that no held packet is lost to a reconfiguration.
 * The port's pause timers, XOFF state and ingress charges are per port and
 * carry over; an XOFF in force for a priority that 'new' does not enable
 * is ended with an XON at the next transmit opportunity (pfc_xoff_run()).
 * Called by the main thread before it publishes 'new'. */
void
netdev_dpdk_pfc_succeed(struct netdev_dpdk_pfc *old,
                        struct netdev_dpdk_pfc *new)
{
    uint32_t need[PFC_N_PRIOS];

    for (;;) {
        /* Make room first, without the lock: allocation is not allowed
         * under a lock that PMD threads take.  Packets may be held
         * meanwhile; then check again, with margin. */
        memset(need, 0, sizeof need);
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            uint64_t held;

            atomic_read_relaxed(&old->held_pkts[n], &held);
            need[new->cfg.prio_to_tc[n]] += held;
        }
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            pfc_holdq_reserve(&new->q[tc], need[tc] + 2 * PFC_TX_BURST);
        }

        rte_spinlock_lock(&old->lock);
        bool fits = true;
        memset(need, 0, sizeof need);
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            for (uint32_t i = 0; i < old->q[tc].n; i++) {
                need[new->cfg.prio_to_tc[pfc_holdq_peek(&old->q[tc],
                                                        i)->prio]]++;
            }
        }
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            fits = fits && need[tc] <= new->q[tc].cap - new->q[tc].n;
        }
        if (fits) {
            break;
        }
        rte_spinlock_unlock(&old->lock);
    }

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        struct pfc_holdq *q = &old->q[tc];

        while (q->n) {
            const struct pfc_held *h = pfc_holdq_peek(q, 0);
            int new_tc = new->cfg.prio_to_tc[h->prio];
            uint64_t orig;

            pfc_holdq_append(&new->q[new_tc], h);
            new->nonempty |= 1u << new_tc;
            new->n_held++;
            atomic_add_relaxed(&new->held_pkts[h->prio], 1, &orig);
            atomic_add_relaxed(&new->held_bytes[h->prio], h->len, &orig);
            atomic_sub_relaxed(&old->held_pkts[h->prio], 1, &orig);
            atomic_sub_relaxed(&old->held_bytes[h->prio], h->len, &orig);
            pfc_holdq_pop(q, 1);
        }
    }
    old->n_held = 0;
    old->nonempty = 0;
    new->next_release = 0;
    old->retired = true;
    old->next = new;
    rte_spinlock_unlock(&old->lock);
}

/* PFC is being removed from the port of 'pfc' (its QoS is deleted or gets
 * another type).  From now on 'pfc' sends no XOFF, and an XOFF in force is
 * ended with an XON at the next transmit opportunity (pfc_xoff_run()).
 * Returns true if 'pfc' must stay the port's QoS object until
 * netdev_dpdk_pfc_flush() sends what it owes, with the port's transmit
 * queues idle: it holds packets, or an XOFF is in force.  Otherwise retires
 * it at once (a transmit thread that still uses it sends as on a port
 * without QoS) and returns false. */
bool
netdev_dpdk_pfc_retire(struct netdev_dpdk_pfc *pfc)
{
    bool owes;

    rte_spinlock_lock(&pfc->lock);
    pfc->retiring = true;
    pfc->xparams.enabled = 0;
    owes = pfc->n_held || (pfc->port && pfc->port->xoff.asserted);
    if (!owes) {
        pfc->retired = true;
        pfc->next = NULL;
    }
    rte_spinlock_unlock(&pfc->lock);
    return owes;
}

/* Hands 'cnt' packets to tx queue 0 of 'port_id', retrying for up to about
 * 1 ms while the ring is full.  Returns how many the driver took. */
static int
pfc_tx_burst_blocking(uint16_t port_id, struct rte_mbuf **pkts, int cnt)
{
    int sent = 0;

    for (int tries = 0; sent < cnt && tries < 1000; tries++) {
        uint16_t k = rte_eth_tx_burst(port_id, 0, pkts + sent, cnt - sent);

        sent += k;
        if (!k) {
            rte_delay_us_block(1);
        }
    }
    return sent;
}

/* For a port that no transmit thread uses (the datapath is reconfiguring it,
 * or deleting it): sends on tx queue 0, with mbufs from 'mp', the XON that
 * 'pfc' owes for each priority whose XOFF is in force, then, if
 * 'send_held', the packets it holds, oldest first, whether paused or not.
 * What is not sent (no 'mp', 'send_held' false, or everything from the
 * first packet that a full ring refused for 1 ms on) is freed and counted as
 * hold drops and in tx_dropped.  Retires 'pfc'.  Returns the number of
 * held packets freed.  Calls the driver with pfc->lock held, which no PMD
 * thread takes while the port is off the PMD threads, but never with
 * port->lock held. */
uint64_t
netdev_dpdk_pfc_flush(struct netdev_dpdk_pfc *pfc, struct rte_mempool *mp,
                      bool send_held)
{
    struct pfc_port *port = pfc->port;
    uint64_t freed = 0, sent_held = 0;
    uint16_t port_id;

    rte_spinlock_lock(&pfc->lock);
    if (!port) {
        goto out;
    }
    port_id = port - pfc_ports;

    /* The XON for every XOFF in force: decided under port->lock, sent
     * outside it. */
    struct pfc_xoff_params none = pfc->xparams;
    uint64_t zero[PFC_N_PRIOS] = { 0 };
    struct rte_mbuf *m = NULL;
    struct pfc_frame frame;
    bool due;

    none.enabled = 0;
    rte_spinlock_lock(&port->lock);
    due = pfc_xoff_run(&port->xoff, &none, zero, zero, 0, &frame);
    if (due && mp) {
        m = rte_pktmbuf_alloc(mp);
        if (m) {
            pfc_frame_encode(rte_pktmbuf_append(m, PFC_FRAME_LEN),
                             &port->mac, &frame);
        }
    }
    rte_spinlock_unlock(&port->lock);
    if (m && pfc_tx_burst_blocking(port_id, &m, 1) == 1) {
        rte_spinlock_lock(&port->lock);
        pfc_counters_count_tx(&port->counters, &frame);
        rte_spinlock_unlock(&port->lock);
    } else if (m) {
        rte_pktmbuf_free(m);
    }

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        struct pfc_holdq *q = &pfc->q[tc];

        while (q->n) {
            const struct pfc_held *h = pfc_holdq_peek(q, 0);
            struct rte_mbuf *pkt = h->pkt;

            pfc_unhold(pfc, h);
            if (send_held && mp
                && pfc_tx_burst_blocking(port_id, &pkt, 1)) {
                sent_held++;
            } else {
                /* A ring that did not drain in 1 ms will not: free the
                 * rest rather than keep the main thread waiting. */
                send_held = false;
                pfc_count(&pfc->hold_drops[h->prio], 1);
                rte_pktmbuf_free(pkt);
                freed++;
            }
            pfc_holdq_pop(q, 1);
        }
    }
    pfc->n_held = 0;
    pfc->nonempty = 0;
    if (freed) {
        uint64_t orig;

        atomic_add_relaxed(&port->held_dropped, freed, &orig);
    }

out:
    pfc->retired = true;
    pfc->next = NULL;
    rte_spinlock_unlock(&pfc->lock);
    if (port && (freed || sent_held)) {
        VLOG_INFO("%s: PFC no longer applies: %"PRIu64" held packets sent, "
                  "%"PRIu64" freed (counted as hold drops and tx_dropped)",
                  port->name, sent_held, freed);
    }
    return freed;
}

/* Drops, from the 'cnt' packets in 'pkts' about to be sent on DPDK port
 * 'port_id' (RTE_MAX_ETHPORTS or more for a vhost port), those that
 * pfc_tx_forbidden() says must never leave: MAC Control frames, and frames
 * to 01-80-C2-00-00-01.  This switch's own PFC frames do not pass here.
 * Compacts 'pkts' and returns how many remain.  Costs one look at the
 * header of each packet, and nothing else unless a packet is dropped. */
int
netdev_dpdk_pfc_filter_tx(uint16_t port_id, struct rte_mbuf **pkts, int cnt)
{
    int i, kept;

    for (i = 0; i < cnt; i++) {
        if (OVS_UNLIKELY(pfc_tx_forbidden(rte_pktmbuf_mtod(pkts[i], void *),
                                          rte_pktmbuf_data_len(pkts[i])))) {
            break;
        }
    }
    if (OVS_LIKELY(i == cnt)) {
        return cnt;
    }
    for (kept = i; i < cnt; i++) {
        struct rte_mbuf *m = pkts[i];

        if (pfc_tx_forbidden(rte_pktmbuf_mtod(m, void *),
                             rte_pktmbuf_data_len(m))) {
            rte_pktmbuf_free(m);
        } else {
            pkts[kept++] = m;
        }
    }
    if (port_id < RTE_MAX_ETHPORTS) {
        uint64_t orig;

        atomic_add_relaxed(&pfc_ports[port_id].tx_mac_control_filtered,
                           cnt - kept, &orig);
    }
    return kept;
}

/* Returns the held packets of DPDK port 'port_id' freed outside a transmit
 * call (netdev_dpdk_pfc_flush(), reconfigurations, tx preparation
 * failures), for its tx_dropped statistic. */
uint64_t
netdev_dpdk_pfc_tx_dropped(uint16_t port_id)
{
    uint64_t n = 0;

    if (port_id < RTE_MAX_ETHPORTS) {
        atomic_read_relaxed(&pfc_ports[port_id].held_dropped, &n);
    }
    return n;
}

/* Notes that the netdev on 'port_id' is being destroyed, so that a later
 * netdev on the same port id starts with fresh state. */
void
netdev_dpdk_pfc_port_destruct(uint16_t port_id)
{
    if (port_id < RTE_MAX_ETHPORTS) {
        struct pfc_port *port = &pfc_ports[port_id];

        pfc_ports_init();
        rte_spinlock_lock(&port->lock);
        port->dead = true;
        rte_spinlock_unlock(&port->lock);
    }
}

/* Adds the hold drops that 'pfc' counted since it was bound to 'c'. */
static void
pfc_add_live_drops(const struct netdev_dpdk_pfc *pfc, struct pfc_counters *c)
{
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint64_t d;

        atomic_read_relaxed(&CONST_CAST(struct netdev_dpdk_pfc *, pfc)
                            ->hold_drops[n], &d);
        c->hold_drops[n] += d;
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

/* Appends the PFC counters of 'port_id' to 'stats', if it has QoS type pfc:
 * pfc_rx_frames_pN, pfc_tx_frames_pN, pfc_pause_transitions_pN,
 * pfc_hold_drops_pN, pfc_rx_ignored_pN (N = 0..7), pfc_rx_invalid_frames,
 * pfc_rx_pause_ignored
 * and pfc_rx_unsupported_frames. */
void
netdev_dpdk_pfc_get_custom_stats(uint16_t port_id,
                                 struct netdev_custom_stats *stats)
{
    struct pfc_counters c;
    struct pfc_port *port;
    bool active;
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
    rte_spinlock_unlock(&port->lock);

    n = stats->size;
    stats->size += 5 * PFC_N_PRIOS + 3;
    stats->counters = xrealloc(stats->counters,
                               stats->size * sizeof *stats->counters);
    for (int p = 0; p < PFC_N_PRIOS; p++) {
        char name[NETDEV_CUSTOM_STATS_NAME_SIZE];

        snprintf(name, sizeof name, "pfc_rx_frames_p%d", p);
        add_stat(stats, &n, name, c.rx_frames[p]);
        snprintf(name, sizeof name, "pfc_tx_frames_p%d", p);
        add_stat(stats, &n, name, c.tx_frames[p]);
        snprintf(name, sizeof name, "pfc_pause_transitions_p%d", p);
        add_stat(stats, &n, name, c.transitions[p]);
        snprintf(name, sizeof name, "pfc_hold_drops_p%d", p);
        add_stat(stats, &n, name, c.hold_drops[p]);
        snprintf(name, sizeof name, "pfc_rx_ignored_p%d", p);
        add_stat(stats, &n, name, c.rx_ignored[p]);
    }
    add_stat(stats, &n, "pfc_rx_invalid_frames", c.rx_invalid);
    add_stat(stats, &n, "pfc_rx_pause_ignored", c.rx_pause_ignored);
    add_stat(stats, &n, "pfc_rx_unsupported_frames", c.rx_unsupported);
}

static void
pfc_show_samples(struct ds *ds, const char *name,
                 const struct pfc_samples *samples)
{
    struct pfc_samples_summary sum;

    pfc_samples_summarize(samples, &sum);
    ds_put_format(ds, "  %s: %"PRIu64" samples, p50 %"PRIu32" ns, p99 %"
                  PRIu32" ns, max %"PRIu32" ns\n", name, sum.n, sum.p50,
                  sum.p99, sum.max);
}

/* What "pfc/show" prints about one port, copied under its lock so that it is
 * formatted, and its samples sorted, without holding it: a PMD thread that
 * reads a PFC frame or records a sample meanwhile must not wait for that
 * (hundreds of us; the rx ring of a 10 Gb/s port fills in about 140 us). */
struct pfc_show_snap {
    struct pfc_port port;       /* Copy of the port; 'port.lock' and
                                 * 'port.conf' are not to be used. */
    int port_id;                /* DPDK port id. */
    struct pfc_config cfg;      /* Copy of the bound QoS object's... */
    struct pfc_thresholds thr;  /* ...configuration and thresholds. */
    struct pfc_counters counters;       /* With the live hold drops. */
    uint64_t held_pkts[PFC_N_PRIOS];    /* Packets held, per priority. */
    uint64_t held_bytes[PFC_N_PRIOS];   /* Bytes held, per priority. */
    uint64_t charge[PFC_N_PRIOS];       /* Ingress charge, bytes... */
    uint64_t charge_pkts[PFC_N_PRIOS];  /* ...and packets, per priority. */
    uint64_t tx_full;                   /* Live tx-full holds. */
    uint64_t now;                       /* TSC when copied. */
};

/* Copies into 'snap' what pfc_show_port() prints of 'port', which has a
 * bound QoS object.  The caller holds port->lock. */
static void
pfc_show_snapshot(struct pfc_show_snap *snap, struct pfc_port *port)
{
    struct netdev_dpdk_pfc *pfc = port->conf;

    memcpy(&snap->port, port, sizeof snap->port);
    snap->port.last_error = nullable_xstrdup(port->last_error);
    snap->port_id = port - pfc_ports;
    snap->cfg = pfc->cfg;
    snap->thr = pfc->thr;
    snap->counters = port->counters;
    pfc_add_live_drops(pfc, &snap->counters);
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        atomic_read_relaxed(&pfc->held_pkts[n], &snap->held_pkts[n]);
        atomic_read_relaxed(&pfc->held_bytes[n], &snap->held_bytes[n]);
        atomic_read_relaxed(&port->charge[n], &snap->charge[n]);
        atomic_read_relaxed(&port->charge_pkts[n], &snap->charge_pkts[n]);
    }
    atomic_read_relaxed(&pfc->tx_full_held, &snap->tx_full);
    snap->now = rte_get_tsc_cycles();
}

static void
pfc_show_port(struct ds *ds, const struct pfc_show_snap *snap)
{
    const struct pfc_port *port = &snap->port;
    const struct pfc_config *cfg = &snap->cfg;
    const struct pfc_thresholds *thr = &snap->thr;
    const struct pfc_counters *c = &snap->counters;
    uint64_t now = snap->now;
    uint64_t q_ps = pfc_quantum_ps(&port->tb);

    ds_put_format(ds, "%s:\n", port->name);
    ds_put_format(ds, "  dpdk port %d, link speed %"PRIu64" bit/s (%s), "
                  "quantum %"PRIu64".%03"PRIu64" ns\n",
                  snap->port_id, port->tb.link_speed,
                  (snap->cfg.link_speed ? "link-speed"
                   : port->speed_from_link ? "link" : "assumed"),
                  q_ps / 1000, q_ps % 1000);
    ds_put_cstr(ds, "  pfc-enable: ");
    pfc_format_prios(ds, cfg->enabled);
    ds_put_char(ds, '\n');
    if (thr->derived) {
        ds_put_format(ds, "  xoff: %"PRIu64" packets, xon: %"PRIu64
                      " packets (derived: %"PRIu64" packets available - "
                      "%"PRIu64" headroom; %s, cable-length %"PRIu32" m, "
                      "%"PRIu32"-byte frames, %"PRIu64" bit times)\n",
                      thr->xoff_pkts, thr->xon_pkts,
                      thr->avail_pkts, thr->headroom_pkts,
                      pfc_headroom_model_name(cfg->headroom_model),
                      cfg->cable_length, port->max_frame,
                      thr->headroom_bits);
    } else {
        ds_put_format(ds, "  xoff-threshold: %"PRIu64" bytes, "
                      "xon-threshold: %"PRIu64" bytes%s\n",
                      cfg->xoff_threshold, cfg->xon_threshold,
                      cfg->xon_default ? " (default)" : "");
    }
    ds_put_format(ds, "  pause-quanta: %"PRIu16", queue-size: %"PRIu32
                  " packets, default-priority: %d\n",
                  cfg->pause_quanta, cfg->queue_size, cfg->default_priority);
    ds_put_format(ds, "  mac-control: %s (%s)\n",
                  pfc_mac_control_name(port->mac_control), port->driver);
    ds_put_format(ds, "  rx invalid: %"PRIu64", pause ignored: %"PRIu64
                  ", unsupported: %"PRIu64"\n",
                  c->rx_invalid, c->rx_pause_ignored, c->rx_unsupported);
    uint64_t filtered;
    atomic_read_relaxed(&CONST_CAST(struct pfc_port *, port)
                        ->tx_mac_control_filtered, &filtered);
    ds_put_format(ds, "  tx MAC Control frames filtered: %"PRIu64"\n",
                  filtered);
    struct ds name = DS_EMPTY_INITIALIZER;
    ds_put_format(ds, "  tx ring: %"PRIu32" descriptors (tx-ring-size=%s",
                  port->txq_size,
                  pfc_tx_ring_size_name(cfg->tx_ring_size, &name));
    ds_destroy(&name);
    if (port->ring_lim_known) {
        ds_put_format(ds, "; driver allows %"PRIu32" to %"PRIu32" in steps "
                      "of %"PRIu32, port->ring_lim.nb_min,
                      port->ring_lim.nb_max, MAX(port->ring_lim.nb_align, 1));
    }
    ds_put_format(ds, "), tx-full held: %"PRIu64"\n",
                  port->tx_full_held + snap->tx_full);
    uint64_t resp = pfc_response_bits(port->txq_size, port->max_frame);
    ds_put_format(ds, "  response: worst case %"PRIu64" bit times (%"PRIu32
                  " tx descriptors of %"PRIu32"-byte frames), bound %d bit "
                  "times + PHY delay%s\n",
                  resp, port->txq_size, port->max_frame,
                  PFC_RESPONSE_BOUND_BITS,
                  resp > PFC_RESPONSE_BOUND_BITS ? ": EXCEEDED" : "");
    pfc_show_samples(ds, "pause reaction", &port->reaction);
    pfc_show_samples(ds, "timer error", &port->timer_error);
    pfc_show_samples(ds, "xoff generation", &port->xoff_gen);
    ds_put_format(ds, "  sent while paused: %"PRIu64"\n",
                  port->sent_while_paused);
    ds_put_format(ds, "  release waits: %"PRIu64", busy-waited %"PRIu64
                  " ns\n",
                  port->release_waits, port->release_wait_ns);
    if (port->last_error) {
        ds_put_format(ds, "  last configuration refused: %s\n",
                      port->last_error);
    }
    ds_put_format(ds, "  %-4s %-2s %-10s %9s %9s %10s %13s %12s %4s %9s "
                  "%9s %11s %11s %10s %10s\n", "prio", "tc", "egress",
                  "left-us",
                  "held-pkts", "held-bytes", "ingress-bytes", "ingress-pkts",
                  "xoff",
                  "rx-frames", "tx-frames", "transitions", "paused-us",
                  "hold-drops", "rx-ignored");
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint64_t left = pfc_pause_remaining(&port->pause, n, now);
        uint64_t total = pfc_pause_total(&port->pause, n, now);
        uint64_t pkts = snap->held_pkts[n], bytes = snap->held_bytes[n];
        uint64_t charge = snap->charge[n], charge_pkts = snap->charge_pkts[n];
        ds_put_format(ds, "  p%-3d %-2d %-10s %9"PRIu64" %9"PRIu64" %10"PRIu64
                      " %13"PRIu64" %12"PRIu64" %4s %9"PRIu64" %9"PRIu64
                      " %11"PRIu64" %11"PRIu64" %10"PRIu64" %10"PRIu64"\n",
                      n, cfg->prio_to_tc[n],
                      left ? "paused" : "not_paused",
                      pfc_ticks_to_ns(&port->tb, left) / 1000, pkts, bytes,
                      charge, charge_pkts,
                      port->xoff.asserted & (1u << n) ? "yes" : "no",
                      c->rx_frames[n], c->tx_frames[n], c->transitions[n],
                      pfc_ticks_to_ns(&port->tb, total) / 1000,
                      c->hold_drops[n], c->rx_ignored[n]);
    }
}

static void
pfc_unixctl_show(struct unixctl_conn *conn, int argc, const char *argv[],
                 void *aux OVS_UNUSED)
{
    struct pfc_show_snap *snap = xmalloc(sizeof *snap);
    struct ds ds = DS_EMPTY_INITIALIZER;
    bool found = false;

    pfc_ports_init();
    for (int i = 0; i < RTE_MAX_ETHPORTS; i++) {
        struct pfc_port *port = &pfc_ports[i];
        bool show;

        rte_spinlock_lock(&port->lock);
        show = port->conf && (argc < 2 || !strcmp(argv[1], port->name));
        if (show) {
            pfc_show_snapshot(snap, port);
        }
        rte_spinlock_unlock(&port->lock);
        if (show) {
            pfc_show_port(&ds, snap);
            free(snap->port.last_error);
            found = true;
        }
    }
    free(snap);

    if (argc > 1 && !found) {
        unixctl_command_reply_error(conn, "no such port with QoS type pfc");
    } else {
        unixctl_command_reply(conn, ds_cstr(&ds));
    }
    ds_destroy(&ds);
}

/* The kinds of latency sample that "pfc/samples" prints, by name. */
static const char *const pfc_sample_kinds[3] = {
    "reaction", "timer-error", "xoff-generation",
};

/* "pfc/samples PORT [KIND]": the samples behind the percentiles of pfc/show,
 * oldest first, each with the TSC at which its interval began.  They are
 * copied under the port's lock and formatted without it, as for pfc/show. */
static void
pfc_unixctl_samples(struct unixctl_conn *conn, int argc, const char *argv[],
                    void *aux OVS_UNUSED)
{
    struct pfc_samples *copy;
    struct ds ds = DS_EMPTY_INITIALIZER;
    bool found = false;
    int kind = -1;
    uint64_t hz = 0;

    for (int k = 0; argc > 2 && k < ARRAY_SIZE(pfc_sample_kinds); k++) {
        if (!strcmp(argv[2], pfc_sample_kinds[k])) {
            kind = k;
        }
    }
    if (argc > 2 && kind < 0) {
        unixctl_command_reply_error(conn, "unknown kind (allowed: reaction, "
                                    "timer-error, xoff-generation)");
        return;
    }

    copy = xmalloc(ARRAY_SIZE(pfc_sample_kinds) * sizeof *copy);
    pfc_ports_init();
    for (int i = 0; i < RTE_MAX_ETHPORTS && !found; i++) {
        struct pfc_port *port = &pfc_ports[i];

        rte_spinlock_lock(&port->lock);
        if (port->conf && !strcmp(argv[1], port->name)) {
            copy[0] = port->reaction;
            copy[1] = port->timer_error;
            copy[2] = port->xoff_gen;
            hz = port->tb.hz;
            found = true;
        }
        rte_spinlock_unlock(&port->lock);
    }

    if (found) {
        ds_put_format(&ds, "%s: tsc-hz %"PRIu64"\n", argv[1], hz);
        ds_put_format(&ds, "  %-16s %20s %10s\n", "kind", "start-tsc", "ns");
    }
    for (int k = 0; found && k < ARRAY_SIZE(pfc_sample_kinds); k++) {
        if (kind >= 0 && k != kind) {
            continue;
        }
        for (size_t i = 0; i < pfc_samples_kept(&copy[k]); i++) {
            uint32_t ns;
            uint64_t at;

            pfc_samples_get(&copy[k], i, &ns, &at);
            ds_put_format(&ds, "  %-16s %20"PRIu64" %10"PRIu32"\n",
                          pfc_sample_kinds[k], at, ns);
        }
    }
    free(copy);
    if (found) {
        unixctl_command_reply(conn, ds_cstr(&ds));
    } else {
        unixctl_command_reply_error(conn, "no such port with QoS type pfc");
    }
    ds_destroy(&ds);
}

/* Registers "pfc/show [PORT]" and "pfc/samples PORT [KIND]"
 * (lib/pfc-unixctl.man). */
void
netdev_dpdk_pfc_register_commands(void)
{
    pfc_ports_init();
    unixctl_command_register("pfc/show", "[port]", 0, 1, pfc_unixctl_show,
                             NULL);
    unixctl_command_register("pfc/samples", "port [kind]", 1, 2,
                             pfc_unixctl_samples, NULL);
    pfc_headroom_register_commands();
}
