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

/* DPDK glue of Priority-based Flow Control (IEEE 802.1Qbb): the QoS type
 * "pfc" of netdev-dpdk.  The protocol decisions (frame codec, pause timers,
 * when a paused priority may send again, when XOFF and XON are due) are made
 * in lib/pfc.c, which has no DPDK in it; the glue plumbs them into DPDK
 * ports and PMD threads.  It is split by concern:
 *
 *   lib/netdev-dpdk-pfc.c          This file: the QoS objects (create, bind
 *                                  to a port, tx queues, reconfiguration,
 *                                  destruction).
 *   lib/netdev-dpdk-pfc-retire.c   Succession and removal of a QoS object,
 *                                  link down, and the class's 'run' and
 *                                  'wait'.
 *   lib/netdev-dpdk-pfc-requeue.c  Held packets moved to new class queues
 *                                  (a new map, new sizes, a successor)
 *                                  without O(held) work under a lock.
 *   lib/netdev-dpdk-pfc-rx.c       Receive: MAC Control frames and LLDPDUs
 *                                  consumed, pause timers set, rx polls
 *                                  stamped, the ingress rule published.
 *   lib/netdev-dpdk-pfc-tx.c       Transmit: packets held and sent by the
 *                                  verdict of lib/pfc-send.c, tx flush.
 *   lib/netdev-dpdk-pfc-drain.c    Held packets leave, in ETS order within
 *                                  the shaper, or are freed.
 *   lib/netdev-dpdk-pfc-ctrl.c     PFC frames and LLDPDUs sent, the tx
 *                                  filter.
 *   lib/netdev-dpdk-pfc-wd.c       The PFC watchdog's check.
 *   lib/netdev-dpdk-pfc-vhost.c    vhost-user ports.
 *   lib/netdev-dpdk-pfc-dcbx.c     DCBX: bind, LLDPDUs prepared, the
 *                                  partner aged, its vector applied.
 *   lib/netdev-dpdk-pfc-ets.c      Which ETS a QoS object runs.
 *   lib/netdev-dpdk-pfc-nic.c      What PFC asks of a NIC.
 *   lib/netdev-dpdk-pfc-buffer.c   The shared buffer's counters.
 *   lib/netdev-dpdk-pfc-ports.c    pfc_ports[], the per-port state.
 *   lib/netdev-dpdk-pfc-show.c     Statistics and pfc/show.
 *   lib/netdev-dpdk-pfc-private.h  What they share.
 *   lib/netdev-dpdk-pfc-qos.h      The adapters between netdev-dpdk's QoS
 *                                  framework and the QoS objects, included
 *                                  by lib/netdev-dpdk.c.
 *
 * Terms
 * -----
 *
 * The words of lib/pfc.h's glossary (hold, admit, charge, release, finish,
 * retire, ...) mean the same here.
 *
 * Traffic class queue: a FIFO of packets of one traffic class that wait to be
 *     handed to the NIC, because their class is paused by the link partner
 *     (PFC frames received on this port) or has packets waiting already, or
 *     because the NIC's tx ring was full.  Such a packet is "held"; it
 *     "leaves" when it is handed to the NIC.
 *
 * Ingress buffer occupancy: the bytes and packets that arrived on a port with
 *     a given priority and that the switch holds in traffic class queues of
 *     any egress port.  XOFF and XON sent out of that port follow it, summed
 *     over every tx queue (pfc_xoff_run()).  Comparable to the priority
 *     group buffer of a switch ASIC.
 *
 * tx flush: the netdev op that each PMD thread calls once per iteration,
 *     after its rx polls, for ports with work pending, so that held packets
 *     leave when a pause ends and due XOFF/XON go out even when no new
 *     packet is sent to the port.
 *
 * Threads and locks
 * -----------------
 *
 * Per DPDK port (struct pfc_port), shared by every PMD thread: the pause
 * timers that received PFC frames set, the XOFF state towards the partner,
 * the ingress buffer occupancy and the counters.  port->lock protects the
 * pause timers, the XOFF state and the counters; it is held only to update
 * them, never across a driver call, an allocation or a log message.  PMD
 * threads read the pause timers without it, through the atomics until[] and
 * pause_gen.  The occupancy is atomic.
 *
 * Per tx queue (struct pfc_txq), in the QoS object: the traffic class
 * queues.  Every packet sent on a PFC port, held or not, and every PFC frame,
 * is handed to the NIC by the thread that holds the lock of its tx queue, in
 * order.  The thread that sends on a tx queue (one PMD thread in static tx
 * queue mode; in XPS mode the one that holds netdev-dpdk's tx queue lock)
 * is the only one that takes it in normal operation, so a PMD thread never
 * waits for another PMD thread's rte_eth_tx_burst() on it.  The main thread
 * takes them all to reconfigure, and allocates, frees and logs only before
 * or after it holds them; under them it does no work that grows with what
 * is held (lib/netdev-dpdk-pfc-requeue.c).  What PMD threads read of a
 * QoS object's bind without a lock (struct pfc_bound) is published whole
 * by RCU, never rewritten in place.  A packet is held on, and leaves by,
 * the tx queue it was sent to, so the packets of a flow, which one rx queue
 * receives and so one PMD thread forwards, leave in the order they arrived,
 * and a NIC that arbitrates between its tx queues cannot reorder them.  A
 * tx queue whose thread stopped servicing it for PFC_ADOPT_MS (the main
 * thread's, used for packet-outs, or a descheduled PMD thread's) is flushed
 * by whichever thread finds its lock free (a trylock).  That is the one
 * case in which a PMD thread can wait for another's rte_eth_tx_burst(): if
 * its own thread comes back during that flush, it waits for it to end.
 *
 * When a pause ends: lib/pfc.h, pfc_pause_holds().  Every rx queue of the
 * port stamps the start of each poll that emptied its ring
 * (netdev_dpdk_pfc_rx_begin() and netdev_dpdk_pfc_rx(), in
 * lib/netdev-dpdk-pfc-rx.c); a pause holds its priority until it expired
 * and every rx queue was stamped at or after its expiry (pfc_blocked(), in
 * lib/netdev-dpdk-pfc-tx.c).  A PFC frame read on any rx queue acts on the
 * whole port.
 *
 * vhost-user ports: a guest has no MAC, so the port sends and honours no PFC
 * frames; it has no pause timers and no XOFF state.  Its state is one of
 * PFC_MAX_VHOST slots of pfc_ports[] after the DPDK port ids
 * (pfc_port_is_vhost()), taken at bind by name (pfc_vhost_port(), in
 * lib/netdev-dpdk-pfc-vhost.c, with the rest of what is particular to them).
 * Transmit: the same traffic class queues, one per guest queue pair, under the
 * same per tx queue locks; what the guest's receive virtqueue refuses of a
 * lossless priority is held, as what a full tx ring refuses is held on an
 * ethernet port, and pfc_xmit() copies held packets into the virtqueue as the
 * guest frees descriptors.  Receive: the mbufs dequeued from the guest carry
 * the slot in mbuf.port, so that what the guest sent counts in the slot's
 * ingress buffer occupancy while it is held at an egress; instead of an XOFF,
 * the PMD thread that polls the guest does not dequeue while
 * pfc_backpressure_next() says the occupancy is over XOFF, until it falls to
 * XON.
 *
 * PFC watchdog: lib/pfc.h, pfc_wd_run().  Each received PFC frame updates the
 * watchdog under port->lock, with the pause timers.  A thread that flushes the
 * port checks it (pfc_wd_check(), in lib/netdev-dpdk-pfc-wd.c) at most every
 * PFC_WD_CHECK_MS, and only if port->lock is free (trylock): no thread waits
 * for it.  What it decides, the priorities whose pauses are ignored and whose
 * packets are dropped, is published through atomics and pause_gen, like a
 * pause, so transmit threads cache it with the blocked classes.  Storms are
 * logged after every lock is released.  On a vhost-user port, which reads no
 * PFC frames, the transmit paths count per tx queue what the guest's receive
 * virtqueue took and refused (pfc_vq_note()), and the check reads those counts
 * (pfc_wd_vq_stalled()): a guest that reads nothing is the storm.
 *
 * DCBX: lib/pfc-dcbx.h.  The PMD thread that polls an rx queue consumes the
 * LLDPDUs to 01-80-C2-00-00-0E and parses them under port->lock
 * (pfc_rx_lldp(); no allocation, no driver call; it logs after the lock is
 * released).  The main thread (netdev_dpdk_pfc_run(), the ethernet class's
 * 'run', in lib/netdev-dpdk-pfc-dcbx.c) ages the partner, prepares under
 * port->lock the LLDPDU that is due, which the next PMD thread that flushes
 * the port copies out and sends on its own tx queue (pfc_tx_lldp()), and
 * applies a new operational vector by setting the QoS again:
 * netdev_dpdk_pfc_qos_is_equal() then sees a difference, and a new QoS object,
 * bound with the vector, replaces the old one and takes over its held packets
 * as on any reconfiguration. */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "coverage.h"
#include "netdev-offload.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "pfc.h"
#include "pfc-headroom.h"
#include "smap.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc);

/* Changes of the priority to traffic class map applied to a QoS object:
 * each takes every tx queue lock of its port.  An OVSDB transaction that
 * changes nothing of a port's Queue rows makes none. */
COVERAGE_DEFINE(pfc_remap);

/* A pause whose expiry every rx queue has not yet been polled after ends
 * anyway this many ms after its expiry (the 'cap' of pfc_pause_holds()),
 * for a port whose rx queues are not polled or never empty. */
#define PFC_POLL_CAP_MS 100

/* A pause that ends more than this many us after twice the time its rx
 * queues take to fill at link speed (pfc_rxq_drain_ticks(), struct
 * pfc_rxq_drain) is counted as late: the allowance for one PMD iteration. */
#define PFC_LATE_SLACK_US 100

/* A tx queue with held packets that its own thread has not serviced for this
 * many ms is flushed by another thread (see the opening comment). */
#define PFC_ADOPT_MS 1


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

    netdev_dpdk_pfc_ports_init();
    error = pfc_config_parse(details, &cfg, &err);
    if (error) {
        VLOG_ERR("QoS type pfc: %s; keeping the previous configuration",
                 err);
        free(err);
        return error;
    }

    pfc = xzalloc(sizeof *pfc);
    pfc->cfg = cfg;
    ovsrcu_set_hidden(&pfc->bound, xzalloc(sizeof(struct pfc_bound)));
    pfc_classifier_init(&pfc->cls, cfg.trust, cfg.default_priority,
                        cfg.dscp_to_prio);
    pfc->keep_map = pfc_dcbx_applying;
    pfc_ets_params_init(&pfc->ets, 0, cfg.tc_bw, ETH_PAYLOAD_MAX
                        + ETH_HEADER_LEN + VLAN_HEADER_LEN);
    pfc->ets_admin = pfc->ets;
    rte_spinlock_init(&pfc->shaper_lock);
    *pfcp = pfc;
    return 0;
}

/* Publishes 'fresh', which 'pfc' owns from now on, as the parameters that
 * transmit threads read without a lock (struct pfc_bound), and returns the
 * block it replaces, for the caller to free with ovsrcu_postpone() once it
 * holds no lock.  Allocates nothing. */
struct pfc_bound *
pfc_bound_swap(struct netdev_dpdk_pfc *pfc, struct pfc_bound *fresh)
{
    struct pfc_bound *old = ovsrcu_get_protected(struct pfc_bound *,
                                                 &pfc->bound);

    ovsrcu_set(&pfc->bound, fresh);
    return old;
}

/* Publishes a copy of 'b' as pfc_bound_swap() does, and frees the block it
 * replaces after an RCU grace period.  Allocates: no lock held. */
void
pfc_bound_set(struct netdev_dpdk_pfc *pfc, const struct pfc_bound *b)
{
    ovsrcu_postpone(free, pfc_bound_swap(pfc, xmemdup(b, sizeof *b)));
}

/* Records 'error' (taking it) as why the last configuration of 'port' was
 * refused.  port->last_error is written under port->lock and freed after
 * it, by the main thread or by netdev-dpdk's link-state thread (a rebind
 * on link up): readers copy it under port->lock. */
static void
pfc_port_set_error(struct pfc_port *port, const char *name, char *error)
{
    char *old;

    rte_spinlock_lock(&port->lock);
    if (!port->conf) {
        ovs_strlcpy(port->name, name, sizeof port->name);
    }
    old = port->last_error;
    port->last_error = error;
    rte_spinlock_unlock(&port->lock);
    free(old);
}

/* Returns the descriptors of the largest rx ring of the port that 'info'
 * describes, for struct pfc_rxq_drain: the Interface's n_rxq_desc, or what
 * the driver says one of its rx queues has if that is more.  A ring larger
 * than this would end pauses early under a flood: a driver that sizes its
 * ring by other means (net_af_packet's framecnt) must not exceed
 * n_rxq_desc. */
static uint32_t
pfc_rx_ring_size(const struct netdev_dpdk_pfc_port_info *info)
{
    uint32_t ring = MAX(info->rxq_size, 1);

    if (!info->vhost && info->port_id < RTE_MAX_ETHPORTS) {
        for (int q = 0; q < info->n_rxq; q++) {
            struct rte_eth_rxq_info qinfo;

            memset(&qinfo, 0, sizeof qinfo);
            if (!rte_eth_rx_queue_info_get(info->port_id, q, &qinfo)) {
                ring = MAX(ring, qinfo.nb_desc);
            }
        }
    }
    return ring;
}

/* Returns 0 if the headroom in 'thr' of every lossless priority of 'pfc' on
 * 'port' fits in the buffer with what other ports reserve
 * (pfc_pool_fits()), else EINVAL with the numbers and the remedies in
 * '*errp'. */
static int
pfc_headroom_fits(const struct netdev_dpdk_pfc *pfc,
                  const struct pfc_port *port,
                  const struct pfc_port_limits *limits,
                  const struct pfc_thresholds *thr, char **errp)
{
    int n = count_1bits(pfc->cfg.enabled);
    uint64_t total, others;

    if (pfc_pool_fits(port, limits->mbufs, thr->headroom.total * n, &total,
                      &others)) {
        return 0;
    }
    *errp = xasprintf("headroom does not fit: %s over cable-length %"PRIu32
                      " m at %"PRIu64" bit/s needs %"PRIu64" cells per "
                      "lossless priority (model %"PRIu64", rx ring %"PRIu64
                      ", iteration %"PRIu64") for %d priorities, but the "
                      "buffer has %"PRIu64" cells (at most %d, and what the "
                      "mempool holds), of which other ports reserve %"PRIu64
                      " and %d stay shared: shorten cable-length, make "
                      "fewer priorities lossless, or use smaller rx rings",
                      pfc_headroom_model_name(pfc->cfg.headroom_model),
                      pfc->cfg.cable_length, limits->link_speed,
                      thr->headroom.total, thr->headroom.model,
                      thr->headroom.rx_ring, thr->headroom.iteration, n,
                      total, PFC_BUF_CELLS_MAX, others, PFC_BUF_SHARED_MIN);
    return EINVAL;
}

/* What pfc_bind__() finds out about a port before it takes port->lock. */
struct pfc_bind {
    struct pfc_port *port;              /* The port's state. */
    struct pfc_port_limits limits;      /* What the port can hold. */
    struct pfc_thresholds thr;          /* Derived from 'limits'. */
    bool from_link;                     /* limits.link_speed is the link's
                                         * (or the port has no link). */
    uint32_t rx_ring;                   /* pfc_rx_ring_size(). */
    enum pfc_mac_control mac_control;   /* How MAC Control frames reach
                                         * this switch. */
    struct pfc_mac_control_answers nic; /* What the NIC was asked, and
                                         * answered. */
    enum pfc_mcq mcq;                   /* And whether to an rx queue of
                                         * their own: */
    int mcq_queue;                      /* which, or -1, */
    uint64_t mcq_since;                 /* since when (TSC), or 0 if
                                         * unchanged. */
    char driver[MEMBER_SIZEOF(struct pfc_port_hw, driver)];
    bool lsc_capable;                   /* The driver has a link state
                                         * interrupt. */
    struct pfc_ring_limits ring_lim;    /* The driver's tx ring limits, */
    bool ring_lim_known;                /* if it gave them. */
    uint8_t max_lossless;               /* The most lossless priorities
                                         * whose headroom fits (DCBX). */
};

/* The refusals of pfc_bind__() that need nothing derived: DCBX on a
 * vhost-user port, no vhost-user slot free, a port that is not an attached
 * DPDK ethernet port, 802.3x flow control on, or flow offload enabled.
 * Returns 0 with '*portp' set to the state of the port that 'info'
 * describes, or EINVAL after logging why (and keeping it for pfc/show once
 * the port's state is known). */
static int
pfc_bind_check(const struct netdev_dpdk_pfc *pfc,
               const struct netdev_dpdk_pfc_port_info *info,
               struct pfc_port **portp)
{
    struct pfc_port *port;
    char *err;

    if (info->vhost && pfc->cfg.dcbx) {
        VLOG_ERR("%s: QoS type pfc: other_config:dcbx=ieee needs a port "
                 "with a MAC, not a vhost-user port; keeping the previous "
                 "configuration", info->name);
        return EINVAL;
    }
    if (info->vhost) {
        port = pfc_vhost_port(info->name);
        if (!port) {
            VLOG_ERR("%s: QoS type pfc: at most %d vhost-user ports can have "
                     "it", info->name, PFC_MAX_VHOST);
            return EINVAL;
        }
    } else if (info->port_id >= RTE_MAX_ETHPORTS) {
        VLOG_ERR("%s: QoS type pfc needs an attached DPDK port", info->name);
        return EINVAL;
    } else {
        port = &pfc_ports[info->port_id];
    }
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
    *portp = port;
    return 0;
}

/* Derives into 'b' the limits of the port that 'info' describes, its link
 * speed (other_config:link-speed, or the link's) and its rx ring, and the
 * thresholds of 'pfc' on it (pfc_derive_thresholds()).  Returns 0, or
 * EINVAL after logging why and keeping it for pfc/show: the thresholds
 * cannot be derived, or the headroom does not fit (pfc_headroom_fits()). */
static int
pfc_bind_limits(const struct netdev_dpdk_pfc *pfc,
                const struct netdev_dpdk_pfc_port_info *info,
                struct pfc_bind *b)
{
    struct pfc_port_limits *limits = &b->limits;
    char *err;

    b->from_link = false;
    if (info->vhost) {
        /* No link: the speed only scales the derived headroom, which a
         * guest, stopped at once, does not need; at the fallback speed it
         * errs on the safe side. */
        b->from_link = true;
        limits->link_speed = (pfc->cfg.link_speed ? pfc->cfg.link_speed
                              : PFC_FALLBACK_LINK_SPEED);
    } else {
        limits->link_speed = (pfc->cfg.link_speed ? pfc->cfg.link_speed
                              : pfc_link_speed(info->port_id,
                                               &b->from_link));
    }
    if (!pfc->cfg.link_speed && !b->from_link) {
        VLOG_WARN("%s: link speed unknown, assuming %"PRIu64" bit/s for "
                  "pause quanta; set other_config:link-speed", info->name,
                  limits->link_speed);
    }
    limits->max_frame = info->mtu + ETH_HEADER_LEN + VLAN_HEADER_LEN
                        + 4 /* FCS */;
    if (info->mp) {
        /* What the rx rings keep is not there to be held. */
        uint64_t rx_kept = (uint64_t) info->n_rxq * info->rxq_size;

        limits->mbufs = (info->mp->size > rx_kept
                         ? info->mp->size - rx_kept : 0);
        limits->mbuf_size = rte_pktmbuf_data_room_size(info->mp);
    } else {
        limits->mbufs = UINT64_MAX;
        limits->mbuf_size = 0;
    }
    limits->n_rxq = MAX(info->n_rxq, 1);
    limits->rxq_desc = info->rxq_size;
    limits->cable = !info->vhost;
    b->rx_ring = pfc_rx_ring_size(info);
    if (pfc_derive_thresholds(&pfc->cfg, limits, &b->thr, &err)
        || pfc_headroom_fits(pfc, b->port, limits, &b->thr, &err)) {
        VLOG_ERR("%s: QoS type pfc: %s; keeping the previous configuration",
                 info->name, err);
        pfc_port_set_error(b->port, info->name, err);
        return EINVAL;
    }
    /* How many lossless priorities DCBX may adopt from a partner. */
    for (b->max_lossless = PFC_N_PRIOS; b->max_lossless > 0;
         b->max_lossless--) {
        uint64_t total, others;

        if (pfc_pool_fits(b->port, limits->mbufs,
                          b->thr.headroom.total * b->max_lossless, &total,
                          &others)) {
            break;
        }
    }
    return 0;
}

/* On a physical NIC, asks the port that 'info' describes to pass MAC
 * Control frames to software (pfc_mac_control_setup()), and reads its
 * driver's name and tx ring limits, into 'b'.  Returns 0, or EINVAL after
 * logging why and keeping it for pfc/show if the driver refuses. */
static int
pfc_bind_driver(const struct netdev_dpdk_pfc *pfc,
                const struct netdev_dpdk_pfc_port_info *info,
                struct pfc_bind *b)
{
    struct rte_eth_dev_info dev_info;
    const char *driver;
    char *err;

    memset(&dev_info, 0, sizeof dev_info);
    memset(&b->ring_lim, 0, sizeof b->ring_lim);
    memset(&b->nic, 0, sizeof b->nic);
    b->lsc_capable = false;
    if (info->vhost) {
        driver = "vhost-user";
        b->mac_control = PFC_MAC_CONTROL_VIRTUAL;
    } else {
        bool got = !rte_eth_dev_info_get(info->port_id, &dev_info);

        driver = got && dev_info.driver_name ? dev_info.driver_name
                                             : "unknown";
        b->lsc_capable = (got && dev_info.dev_flags
                          && *dev_info.dev_flags & RTE_ETH_DEV_INTR_LSC);
        b->mac_control = pfc_mac_control_setup(b->port, info->port_id,
                                               driver,
                                               pfc->cfg.mac_control_trust,
                                               &b->nic, &err);
    }
    if (b->mac_control == PFC_MAC_CONTROL_REFUSED) {
        bool active;

        VLOG_ERR("%s: QoS type pfc refused: %s", info->name, err);
        pfc_port_set_error(b->port, info->name, err);
        atomic_read_relaxed(&b->port->active, &active);
        if (!active) {
            /* No earlier PFC configuration stays in force. */
            pfc_nic_restore(b->port);
        }
        return EINVAL;
    }
    if (b->mac_control == PFC_MAC_CONTROL_RX_ONLY) {
        VLOG_WARN("%s: PFC receive only: driver %s drops the MAC Control "
                  "frames that software sends (EtherType 0x8808 tx "
                  "filter): the port honours PFC frames but sends no XOFF, "
                  "so lossless traffic that arrives on it is dropped once "
                  "its headroom is full", info->name, driver);
    }
    ovs_strlcpy(b->driver, driver, sizeof b->driver);
    /* Only the main thread writes port->hw.mcq. */
    b->mcq = b->port->hw.mcq;
    b->mcq_queue = -1;
    b->mcq_since = 0;
    if (info->vhost) {
        b->mcq = pfc_mcq_decide(pfc->cfg.mac_control_queue, true,
                                info->n_rxq, NULL);
    } else {
        if (b->mcq == PFC_MCQ_ON
            && (info->idle || !pfc->cfg.mac_control_queue)) {
            /* While the rule is set up again, or removed, MAC Control
             * frames may reach any rx queue: every one counts for the end
             * of a pause until pfc_bind_port_state() says otherwise. */
            atomic_store_relaxed(&b->port->hw.mcq_queue, -1);
        }
        b->mcq_queue = pfc_mcq_apply(info->name, info->port_id,
                                     pfc->cfg.mac_control_queue,
                                     info->rx_steering, info->idle,
                                     &b->mcq, &b->mcq_since);
    }

    b->ring_lim_known = (!info->vhost
                         && pfc_ring_limits_get(info->port_id, &b->ring_lim));
    return 0;
}

/* Starts the state of 'port' from scratch, for a new netdev on its port id,
 * except for the ingress buffer occupancy, which packets still held
 * elsewhere own.  The caller holds port->lock. */
static void
pfc_port_reset(struct pfc_port *port)
{
    pfc_pause_init(&port->rx.pause);
    pfc_xoff_init(&port->buf.xoff);
    port->hw.mcq = PFC_MCQ_OFF;
    atomic_store_relaxed(&port->hw.mcq_queue, -1);
    memset(&port->counters, 0, sizeof port->counters);
    atomic_store_relaxed(&port->tx_mac_control_filtered, 0);
    atomic_store_relaxed(&port->tx_lldp_filtered, 0);
    atomic_store_relaxed(&port->held_dropped, 0);
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        atomic_store_relaxed(&port->rx.until[n], 0);
    }
    atomic_store_relaxed(&port->rx.max_until, 0);
    atomic_store_relaxed(&port->rx.xon, 0);
    pfc_wd_init(&port->wd.state);
    pfc_dcbx_stop__(port);
    atomic_store_relaxed(&port->vhost.bp_stopped, 0);
    port->vhost.bp_stops = port->vhost.bp_cycles = 0;
    memset(port->vhost.bp_stops_prio, 0, sizeof port->vhost.bp_stops_prio);
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        atomic_store_relaxed(&port->wd.tx_dropped[n], 0);
        atomic_store_relaxed(&port->wd.tx_forwarded[n], 0);
        atomic_store_relaxed(&port->wd.rx_dropped[n], 0);
    }
    pfc_port_bump_gen(port);
}

/* Records in 'port' what pfc_bind__() found out about the port that 'info'
 * describes ('b'): its name, address, driver, rings and link, and the
 * timebase and bounds that follow from them.  Returns the error that the
 * port kept from an earlier refusal, for the caller to free once it
 * released port->lock.  The caller holds port->lock. */
static char *
pfc_bind_port_state(struct pfc_port *port,
                    const struct netdev_dpdk_pfc_port_info *info,
                    const struct pfc_bind *b)
{
    char *old_error;

    if (!port->conf && (port->dead || strcmp(port->name, info->name))) {
        pfc_port_reset(port);
    }
    ovs_strlcpy(port->name, info->name, sizeof port->name);
    port->mac = *info->mac;
    port->dead = false;
    old_error = port->last_error;
    port->last_error = NULL;
    port->hw.txq_size = info->txq_size;
    port->hw.ring_lim = b->ring_lim;
    port->hw.ring_lim_known = b->ring_lim_known;
    port->hw.max_frame = b->limits.max_frame;
    port->hw.mac_control = b->mac_control;
    port->hw.nic = b->nic;
    port->hw.mcq = b->mcq;
    if (b->mcq_since) {
        atomic_store_relaxed(&port->hw.mcq_since, b->mcq_since);
    }
    atomic_store_explicit(&port->hw.mcq_queue, b->mcq_queue,
                          memory_order_release);
    ovs_strlcpy(port->hw.driver, b->driver, sizeof port->hw.driver);
    port->hw.lsc_interrupt = info->lsc_interrupt;
    port->hw.lsc_capable = b->lsc_capable;
    port->rx.tb.hz = rte_get_tsc_hz();
    port->rx.poll_cap = port->rx.tb.hz / 1000 * PFC_POLL_CAP_MS;
    atomic_store_relaxed(&port->rx.rxq_desc, b->rx_ring);
    port->rx.adopt = port->rx.tb.hz / 1000 * PFC_ADOPT_MS;
    atomic_store_relaxed(&port->rx.n_rxq,
                         MIN(MAX(info->n_rxq, 1), RTE_MAX_QUEUES_PER_PORT));
    port->rx.tb.link_speed = b->limits.link_speed;
    port->rx.speed_from_link = b->from_link;
    atomic_store_relaxed(&port->rx.late_bound,
                         2 * pfc_rxq_drain_ticks(&port->rx.tb, b->rx_ring)
                         + port->rx.tb.hz / 1000000 * PFC_LATE_SLACK_US);
    if (!port->conf) {
        /* PFC applied anew: no storm carries over from an earlier QoS. */
        port->wd.state.stormed = 0;
        port->wd.state.detecting = 0;
    }
    return old_error;
}

/* Makes 'pfc', with the limits and thresholds in 'b', the QoS object of
 * 'port', and publishes what PMD threads read of it: DCBX (pfc_dcbx_bind(),
 * 'first' if 'pfc' was never bound), the watchdog's parameters, the XOFF
 * parameters and the thresholds of the port's priority groups.  The caller
 * holds port->lock. */
static void
pfc_bind_publish(struct netdev_dpdk_pfc *pfc, struct pfc_port *port,
                 const struct pfc_bind *b, bool first,
                 struct pfc_bound *fresh, struct pfc_bound **old)
{
    struct netdev_dpdk_pfc *prev = port->conf;

    if (first && prev && prev != pfc) {
        /* 'pfc' replaces 'prev' (netdev_dpdk_pfc_succeed() follows): what
         * DCBX advertises from now on must not lose the Queue rows' ETS,
         * nor, when DCBX set the QoS again, their priority map.  No thread
         * uses 'pfc' yet. */
        pfc->cfg.tsa_ets = prev->cfg.tsa_ets;
        pfc->cfg.queues = prev->cfg.queues;
        memcpy(pfc->cfg.tc_bw, prev->cfg.tc_bw, sizeof pfc->cfg.tc_bw);
        pfc->ets_admin = prev->ets_admin;
        pfc->ets = pfc->cfg.dcbx ? prev->ets : prev->ets_admin;
        if (pfc->keep_map) {
            memcpy(pfc->cfg.tc_prios, prev->cfg.tc_prios,
                   sizeof pfc->cfg.tc_prios);
            memcpy(pfc->cfg.prio_to_tc, prev->cfg.prio_to_tc,
                   sizeof pfc->cfg.prio_to_tc);
        }
    }
    pfc_dcbx_bind(pfc, port, first, b->max_lossless);
    pfc_wd_params_init(&port->wd.params, &pfc->cfg, port->rx.tb.hz);
    port->wd.params.guest = pfc_port_is_vhost(port);
    pfc_wd_publish(port);
    pfc->thr = b->thr;
    struct pfc_bound *bound = fresh;

    memset(bound, 0, sizeof *bound);
    bound->xparams.enabled = (b->mac_control == PFC_MAC_CONTROL_RX_ONLY
                              ? 0 /* The NIC drops what this switch sends:
                                   * no XOFF at all. */
                              : pfc->cfg.enabled);
    bound->xparams.pause_quanta = pfc->cfg.pause_quanta;
    bound->xparams.tb = port->rx.tb;
    pfc_buf_pg_params_init(&bound->xparams.pg, &pfc->cfg, &b->thr);
    pfc_buf_egress_params_init(&bound->eparams, &pfc->cfg);
    *old = pfc_bound_swap(pfc, bound);
    struct pfc_shaper_params sp;

    pfc_shaper_params_init(&sp, pfc->cfg.max_rate, port->rx.tb.hz,
                           b->limits.max_frame);
    if (memcmp(&sp, &pfc->sparams, sizeof sp)) {
        /* A first bind, or a new largest frame: the bucket's size.  The
         * rate is the object's (max-rate makes a new object), so that
         * transmit threads may test it without the lock. */
        rte_spinlock_lock(&pfc->shaper_lock);
        if (!pfc->sparams.rate) {
            pfc->sparams = sp;
            pfc_shaper_init(&pfc->shaper, &pfc->sparams,
                            rte_get_tsc_cycles());
        } else {
            pfc->sparams = sp;
            pfc->shaper.tokens = MIN(pfc->shaper.tokens, sp.depth);
        }
        rte_spinlock_unlock(&pfc->shaper_lock);
    }
    atomic_store_relaxed(&port->buf.xoff_bytes_pub, pfc->thr.xoff_bytes);
    atomic_store_relaxed(&port->buf.pub,
                         pfc_buf_pub_pack(pfc->cfg.enabled,
                                          &bound->xparams.pg));
    atomic_store_relaxed(&port->buf.mbufs, b->limits.mbufs);
    atomic_store_relaxed(&port->buf.reserved,
                         (uint64_t) bound->xparams.pg.headroom
                         * count_1bits(pfc->cfg.enabled));
    port->conf = pfc;
    pfc->port = port;
    atomic_store_relaxed(&port->active, true);
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
 * reason is kept for pfc/show.
 *
 * Everything that calls the driver, allocates or logs happens before
 * port->lock is taken (pfc_bind_check(), pfc_bind_limits(),
 * pfc_bind_driver()) or after it is released. */
static int
pfc_bind__(struct netdev_dpdk_pfc *pfc,
           const struct netdev_dpdk_pfc_port_info *info)
{
    bool first = !pfc->port;
    struct pfc_bound *fresh, *stale;
    struct pfc_bind b;
    char *old_error;
    int error;

    /* The tx queues follow the port's, even if the binding is refused
     * below, but only while no transmit thread uses 'pfc'
     * (pfc_txqs_resize()).  Otherwise tx queue 'qid' of the port keeps
     * using traffic class queues qid % pfc->n_txq. */
    if (info->idle && pfc->n_txq != MAX(info->n_txq, 1)) {
        pfc_txqs_resize(pfc, MAX(info->n_txq, 1));
    }
    error = pfc_bind_check(pfc, info, &b.port);
    if (!error) {
        error = pfc_bind_limits(pfc, info, &b);
    }
    if (!error) {
        error = pfc_bind_driver(pfc, info, &b);
    }
    if (error) {
        return error;
    }

    fresh = xmalloc(sizeof *fresh);     /* Not under port->lock. */
    rte_spinlock_lock(&b.port->lock);
    old_error = pfc_bind_port_state(b.port, info, &b);
    pfc_bind_publish(pfc, b.port, &b, first, fresh, &stale);
    rte_spinlock_unlock(&b.port->lock);
    ovsrcu_postpone(free, stale);

    /* The ingress rule, published by RCU, once DCBX decided on the new
     * object's configuration. */
    pfc_cls_publish(b.port);
    pfc_pool_resize();
    free(old_error);
    return 0;
}

/* Binds 'pfc' to the port that 'info' describes (pfc_bind__()): a QoS
 * object just created, or one bound already, whose thresholds are derived
 * again after netdev-dpdk reconfigured the port or saw its link come up: its
 * MTU, mempool, tx ring or link speed may have changed since.  A port whose
 * link was down when the QoS was applied assumed PFC_FALLBACK_LINK_SPEED,
 * which is wrong for any other speed: pause quanta and headroom are in bit
 * times.  A transaction that sets a Port's qos and its Interface's
 * mtu_request together, for example, binds the QoS before the new MTU takes
 * effect, and headroom for 1522-byte frames is far short of what 9000-byte
 * frames need.  If the headroom no longer fits, the thresholds in force are
 * kept, and the reason is logged and shown in pfc/show.
 *
 * Returns 0, or EINVAL as pfc_bind__(). */
int
netdev_dpdk_pfc_bind(struct netdev_dpdk_pfc *pfc,
                     const struct netdev_dpdk_pfc_port_info *info)
{
    struct pfc_thresholds old = pfc->thr;
    bool bound = pfc->port != NULL;
    int error;

    if (pfc->retiring) {
        /* Being removed: keeps what it has until it finished. */
        return 0;
    }
    if (info->idle && pfc->port) {
        /* The port may have been restarted: until the bind sets the rule of
         * mac-control-queue up again, MAC Control frames may reach any rx
         * queue, even if the bind is refused. */
        atomic_store_relaxed(&pfc->port->hw.mcq_queue, -1);
    }
    error = pfc_bind__(pfc, info);

    if (!error && bound
        && old.headroom.total != pfc->thr.headroom.total) {
        VLOG_INFO("%s: PFC headroom derived again for MTU %"PRIu32", "
                  "%"PRIu64" bit/s and %d rx queues of %"PRIu32" "
                  "descriptors: %"PRIu64" cells per lossless priority",
                  info->name, info->mtu, pfc->port->rx.tb.link_speed,
                  info->n_rxq, info->rxq_size, pfc->thr.headroom.total);
    }
    if (!error && !bound) {
        pfc_nic_log_xoff_delay(pfc, info);
    }
    if (!error) {
        /* DCBX may have changed the vector, or the map come from the object
         * this one replaces. */
        pfc_class_queues_fit(pfc);
        /* The quanta follow the port's largest frame, and the ETS in force
         * whether DCBX is on. */
        pfc_ets_update(pfc);
    }
    return error;
}


/* Returns the tx ring size, in descriptors, for DPDK port 'port_id' with QoS
 * 'pfc': pfc_tx_ring_size() of the QoS key tx-ring-size, for frames of an
 * 'mtu'-byte MTU, within the driver's tx_desc_lim.  'interface_size' is the
 * Interface's n_txq_desc, in descriptors, which is also the size without
 * PFC ('pfc' NULL) and for a port that is not an attached ethernet port.
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

    if (!pfc || port_id >= RTE_MAX_ETHPORTS || !pfc->port) {
        return interface_size;
    }
    known = pfc_ring_limits_get(port_id, &lim);
    size = pfc_tx_ring_size(pfc->cfg.tx_ring_size, interface_size, max_frame,
                            &lim);
    if (commit) {
        char name[sizeof port->name];
        bool changed;

        port = pfc->port;
        rte_spinlock_lock(&port->lock);
        changed = size != port->hw.txq_size;
        port->hw.txq_size = size;
        port->hw.max_frame = max_frame;
        port->hw.ring_lim = lim;
        port->hw.ring_lim_known = known;
        ovs_strlcpy(name, port->name, sizeof name);
        rte_spinlock_unlock(&port->lock);

        if (changed) {
            /* Logged with no lock held: PMD threads take port->lock. */
            struct ds d = DS_EMPTY_INITIALIZER;

            VLOG_INFO("%s: PFC: tx ring of %"PRIu32" descriptors per queue "
                      "(tx-ring-size=%s; the 802.1Qbb response bound allows "
                      "%"PRIu32" with %"PRIu32"-byte frames; driver allows "
                      "%"PRIu32" to %"PRIu32" in steps of %"PRIu32")",
                      name, size,
                      pfc_tx_ring_size_name(pfc->cfg.tx_ring_size, &d),
                      pfc_tx_ring_bound(max_frame), max_frame, lim.nb_min,
                      lim.nb_max, MAX(lim.nb_align, 1));
            ds_destroy(&d);
        }
    }
    return size;
}

/* Counters of destroyed tx queues, for their port (pfc_txq_destroy()). */
struct pfc_txq_totals {
    uint64_t hold_drops[PFC_N_PRIOS];
    uint64_t tx_full_held;
};

/* Frees the packets held in 't' and its queues, adding its counters to
 * 'sum' (if nonnull), and returns how many packets it freed. */
static uint64_t
pfc_txq_destroy(struct pfc_txq *t, struct pfc_txq_totals *sum)
{
    uint64_t n_freed = 0;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        struct pfc_holdq *q = &t->q[tc];

        while (q->n) {
            const struct pfc_held *h = pfc_holdq_peek(q, 0);

            pfc_buf_txq_release(t, h);
            if (sum) {
                sum->hold_drops[h->prio]++;
            }
            n_freed++;
            rte_pktmbuf_free(h->pkt);
            pfc_holdq_pop(q, 1);
        }
        pfc_holdq_destroy(q);
    }
    pfc_buf_txq_give_cache(t);
    pfc_txq_note_flush__(t, true);
    if (sum) {
        uint64_t d;

        for (int n = 0; n < PFC_N_PRIOS; n++) {
            atomic_read_relaxed(&t->hold_drops[n], &d);
            sum->hold_drops[n] += d;
        }
        atomic_read_relaxed(&t->tx_full_held, &d);
        sum->tx_full_held += d;
    }
    return n_freed;
}

/* Counts, per traffic class of 'prio_to_tc', the packets that 'from' holds,
 * into need[].  Lock-free and racy: for reserving room ahead. */
void
pfc_txq_need(const struct pfc_txq *from, const uint8_t prio_to_tc[],
             uint32_t need[PFC_N_PRIOS])
{
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint64_t held;

        atomic_read_relaxed(&CONST_CAST(struct pfc_txq *, from)->held_pkts[n],
                            &held);
        need[prio_to_tc[n]] += held;
    }
}

/* Moves every packet held in 'from' to the tail of the class queue of 'to'
 * that 'prio_to_tc' maps its priority to, in order, past that queue's limit
 * if need be: the caller made room (pfc_holdq_reserve()).  The ingress
 * buffer occupancy does not change.  For tx queues that no transmit thread
 * uses (pfc_txqs_resize()): the held counts move once per priority. */
void
pfc_txq_move(struct pfc_txq *from, struct pfc_txq *to,
             const uint8_t prio_to_tc[])
{
    uint64_t pkts[PFC_N_PRIOS] = { 0 }, bytes[PFC_N_PRIOS] = { 0 };
    uint32_t lossy[PFC_N_PRIOS] = { 0 };

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        struct pfc_holdq *q = &from->q[tc];

        while (q->n) {
            const struct pfc_held *h = pfc_holdq_peek(q, 0);
            int new_tc = prio_to_tc[h->prio];

            ovs_assert(pfc_holdq_append(&to->q[new_tc], h));
            to->nonempty |= 1u << new_tc;
            pkts[h->prio]++;
            bytes[h->prio] += h->len;
            lossy[h->prio] += h->lossy;
            pfc_holdq_pop(q, 1);
        }
    }
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint32_t orig;

        if (!pkts[n]) {
            continue;
        }
        to->n_held += pkts[n];
        pfc_count(&to->held_pkts[n], pkts[n]);
        pfc_count(&to->held_bytes[n], bytes[n]);
        pfc_count(&from->held_pkts[n], -pkts[n]);
        pfc_count(&from->held_bytes[n], -bytes[n]);
        atomic_add_relaxed(&to->owner->held_prio[n], pkts[n], &orig);
        atomic_sub_relaxed(&from->owner->held_prio[n], pkts[n], &orig);
        if (lossy[n]) {
            atomic_add_relaxed(&to->owner->lossy_prio[n], lossy[n], &orig);
            atomic_sub_relaxed(&from->owner->lossy_prio[n], lossy[n], &orig);
        }
    }
    from->n_held = 0;
    pfc_txq_all_empty(from);
    to->blocked_until = 0;
}

/* Gives 'pfc' 'n' tx queues, moving what the old ones hold, tx queue i into
 * tx queue i % n: the packets of a flow all come from one tx queue, so they
 * stay in order.  Only for a QoS object that no transmit thread uses: one
 * not yet published, or one whose port netdev-dpdk is reconfiguring. */
void
pfc_txqs_resize(struct netdev_dpdk_pfc *pfc, int n)
{
    struct pfc_txq *txq = xzalloc_cacheline(n * sizeof *txq);
    uint64_t holding = 0;

    for (int i = 0; i < n; i++) {
        rte_spinlock_init(&txq[i].lock);
        txq[i].owner = pfc;
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            pfc_holdq_init(&txq[i].q[tc], pfc_class_slots(&pfc->cfg, tc));
        }
    }
    for (int i = 0; i < pfc->n_txq; i++) {
        struct pfc_txq *from = &pfc->txq[i], *to = &txq[i % n];
        uint32_t need[PFC_N_PRIOS] = { 0 };
        uint64_t d;

        pfc_txq_need(from, pfc->cfg.prio_to_tc, need);
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            pfc_holdq_reserve(&to->q[tc], to->q[tc].n + need[tc]);
        }
        pfc_txq_move(from, to, pfc->cfg.prio_to_tc);
        for (int p = 0; p < PFC_N_PRIOS; p++) {
            atomic_read_relaxed(&from->hold_drops[p], &d);
            pfc_count(&to->hold_drops[p], d);
        }
        atomic_read_relaxed(&from->tx_full_held, &d);
        pfc_count(&to->tx_full_held, d);
        pfc_txq_destroy(from, NULL);
    }
    uint32_t n_high = 0;

    for (int i = 0; i < n; i++) {
        pfc_txq_note_flush(&txq[i]);
        if (txq[i].n_held) {
            holding |= UINT64_C(1) << MIN(i, 63);
            if (i >= 63) {
                txq[i].high_noted = true;
                n_high++;
            }
        }
    }
    free_cacheline(pfc->txq);
    pfc->txq = txq;
    pfc->n_txq = n;
    atomic_store_relaxed(&pfc->n_high_holding, n_high);
    atomic_store_relaxed(&pfc->holding, holding);
    if (pfc->port) {
        pfc_quiet_end(pfc->port);   /* Noted on the old tx queues. */
    }
}

/* Frees 'pfc'.  No thread may use it any more (the caller postponed this
 * with RCU).  Packets still held are freed and counted as hold drops. */
void
netdev_dpdk_pfc_destroy(struct netdev_dpdk_pfc *pfc)
{
    const struct pfc_classifier *stale_cls = NULL;
    struct pfc_txq_totals sum;
    struct pfc_port *port = pfc->port;
    uint8_t storm_detected, storm_over = 0;
    uint64_t n_freed = 0;

    if (port) {
        /* First off the port, so that nothing reads its tx queues any
         * more (pfc/show, the custom statistics). */
        rte_spinlock_lock(&port->lock);
        if (port->conf == pfc) {
            port->conf = NULL;
            atomic_store_relaxed(&port->active, false);
            atomic_store_relaxed(&port->buf.pub, 0);
            atomic_store_relaxed(&port->buf.reserved, 0);
            pfc_dcbx_stop__(port);
            /* The ingress rule goes with the object: a QoS applied later
             * classifies by the default rule (trust=pcp, priority 0) until
             * it publishes its own (pfc_cls_publish()), never by this
             * one. */
            stale_cls = ovsrcu_get_protected(const struct pfc_classifier *,
                                             &port->cls);
            ovsrcu_set(&port->cls, NULL);
            /* Nothing is owed without PFC, so that no reason for deferred
             * work stays counted: an XOFF still in force (PFC was removed
             * while the link was down) ends with the partner's timer, and
             * a storm in progress ends, counted as restored, as it does
             * when the watchdog is turned off (pfc_wd_run()). */
            struct pfc_wd_params off = port->wd.params;

            pfc_xoff_init(&port->buf.xoff);
            off.detect_ticks = 0;
            pfc_wd_run(&port->wd.state, &off, 0, 0, rte_get_tsc_cycles(),
                       &storm_detected, &storm_over);
            pfc_wd_publish(port);
        }
        rte_spinlock_unlock(&port->lock);
        if (stale_cls) {
            ovsrcu_postpone(free, CONST_CAST(struct pfc_classifier *,
                                             stale_cls));
        }
        if (storm_over) {
            VLOG_INFO("%s: PFC removed: storm on priorities 0x%02x over",
                      port->name, storm_over);
        }
        pfc_pool_resize();
    }
    memset(&sum, 0, sizeof sum);
    for (int i = 0; i < pfc->n_txq; i++) {
        n_freed += pfc_txq_destroy(&pfc->txq[i], &sum);
    }
    free_cacheline(pfc->txq);
    free(ovsrcu_get_protected(struct pfc_bound *, &pfc->bound));
    free(pfc->ets_error);
    if (pfc->retire_counted) {
        unsigned int orig;

        atomic_sub_relaxed(&pfc_n_retiring, 1, &orig);
    }
    if (port) {
        uint64_t orig;

        /* Then its counters, which the port keeps. */
        rte_spinlock_lock(&port->lock);
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            port->counters.hold_drops[n] += sum.hold_drops[n];
        }
        port->tx_full_held += sum.tx_full_held;
        rte_spinlock_unlock(&port->lock);
        atomic_add_relaxed(&port->held_dropped, n_freed, &orig);
        if (n_freed) {
            VLOG_INFO("%s: freed %"PRIu64" held packets on PFC "
                      "reconfiguration (counted as hold drops)",
                      port->name, n_freed);
        }
    }
    free(pfc);
}

/* dpdk_qos_ops 'qos_is_equal': returns true if the PFC object of 'conf' is
 * configured as 'details' would configure it. */
bool
netdev_dpdk_pfc_qos_is_equal(const struct netdev_dpdk_pfc *pfc,
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
    if (!pfc_config_equal(&pfc->cfg, &cfg)) {
        return false;
    }
    if (cfg.dcbx && pfc->port) {
        /* Not equal once DCBX decided another operational vector:
         * netdev_dpdk_pfc_run() sets the QoS again to apply it. */
        struct pfc_port *port = pfc->port;
        uint8_t oper;

        rte_spinlock_lock(&port->lock);
        oper = port->dcbx.state.oper;
        rte_spinlock_unlock(&port->lock);
        return oper == pfc->cfg.enabled;
    }
    return true;
}

/* dpdk_qos_ops 'qos_get': stores the QoS other_config that configures the
 * PFC object of 'conf' into 'details' (for ovs-appctl qos/show and
 * netdev_get_qos()).  Returns 0. */
int
netdev_dpdk_pfc_qos_get(const struct netdev_dpdk_pfc *pfc,
                        struct smap *details)
{
    pfc_config_to_smap(&pfc->cfg, details);
    return 0;
}

/* Returns true if the ECN keys of every traffic class are alike in 'a' and
 * 'b' (pfc_ecn_equal()). */
static bool
pfc_ecn_tcs_equal(const struct pfc_ecn_params a[PFC_N_PRIOS],
                  const struct pfc_ecn_params b[PFC_N_PRIOS])
{
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        if (!pfc_ecn_equal(&a[tc], &b[tc])) {
            return false;
        }
    }
    return true;
}

/* dpdk_qos_ops 'qos_queue_construct': maps the priorities in 'details' to
 * traffic class 'queue_id' (0..7) of the PFC object of 'conf'.  Returns 0
 * or EINVAL, after logging why. */
int
netdev_dpdk_pfc_qos_queue_construct(const struct smap *details,
                                    uint32_t queue_id,
                                    struct netdev_dpdk_pfc *pfc)
{
    struct pfc_config cfg = pfc->cfg;  /* Only this thread writes it. */
    char *err;
    int error;

    error = pfc_config_set_queue(&cfg, queue_id, details, &err);
    if (error) {
        VLOG_ERR("%s: QoS type pfc: %s; keeping the previous mapping",
                 pfc->port ? pfc->port->name : "?", err);
        free(err);
        return error;
    }
    if (!memcmp(cfg.tc_prios, pfc->cfg.tc_prios, sizeof cfg.tc_prios)) {
        /* The bridge sets every Queue row again at each transaction: the
         * same mapping takes no lock and allocates nothing. */
        if (cfg.tsa_ets != pfc->cfg.tsa_ets || cfg.queues != pfc->cfg.queues
            || memcmp(cfg.tc_bw, pfc->cfg.tc_bw, sizeof cfg.tc_bw)
            || !pfc_ecn_tcs_equal(cfg.ecn_tc, pfc->cfg.ecn_tc)) {
            pfc_txqs_lock(pfc);
            pfc->cfg = cfg;
            pfc_txqs_unlock(pfc);
            pfc_ets_update(pfc);
        }
        return 0;
    }
    COVERAGE_INC(pfc_remap);
    pfc_requeue(pfc, &cfg);
    pfc_ets_update(pfc);
    return 0;
}

/* dpdk_qos_ops 'qos_queue_destruct': removes the priority mapping of traffic
 * class 'queue_id' (0..7; others are ignored) of the PFC object of 'conf':
 * its priorities return to the class of their own number. */
void
netdev_dpdk_pfc_qos_queue_destruct(struct netdev_dpdk_pfc *pfc,
                                   uint32_t queue_id)
{
    struct pfc_config cfg = pfc->cfg;  /* Only this thread writes it. */

    COVERAGE_INC(pfc_remap);
    pfc_config_clear_queue(&cfg, queue_id);
    pfc_requeue(pfc, &cfg);
    pfc_ets_update(pfc);
}

/* For dpdk_qos_ops 'qos_queue_dump_state_init': stores in 'queues' the
 * traffic classes (0..7) that Queue rows configure in the PFC object of
 * 'conf' (with keys or without, and those with priorities of their own
 * ("priorities"), an ETS TSA ("tsa", "tc-bw") or ECN keys carried over from
 * the object it replaced), and returns how many.  The bridge removes a
 * Queue row that it no longer has only if the dump lists it. */
size_t
netdev_dpdk_pfc_qos_queues(const struct netdev_dpdk_pfc *pfc,
                           uint32_t queues[NETDEV_DPDK_PFC_N_QUEUES])
{
    size_t n = 0;

    BUILD_ASSERT_DECL(NETDEV_DPDK_PFC_N_QUEUES == PFC_N_PRIOS);
    for (uint32_t tc = 0; tc < PFC_N_PRIOS; tc++) {
        if ((pfc->cfg.queues >> tc) & 1 || pfc->cfg.tc_prios[tc]
            || (pfc->cfg.tsa_ets >> tc) & 1 || pfc->cfg.ecn_tc[tc].on) {
            queues[n++] = tc;
        }
    }
    return n;
}

/* dpdk_qos_ops 'qos_queue_get': stores the other_config of traffic class
 * 'queue_id' ("priorities", "tsa" and, for an ets class, "tc-bw") of the PFC
 * object of 'conf' into 'details': as configured, even while an invalid sum
 * keeps the previous ETS in force (pfc/show shows both).  Returns 0, or
 * EINVAL if 'queue_id' is not 0..7. */
int
netdev_dpdk_pfc_qos_queue_get(struct smap *details, uint32_t queue_id,
                              const struct netdev_dpdk_pfc *pfc)
{
    struct ds d = DS_EMPTY_INITIALIZER;

    if (queue_id >= PFC_N_PRIOS) {
        return EINVAL;
    }
    pfc_format_prios(&d, pfc->cfg.tc_prios[queue_id]);
    smap_add(details, "priorities", ds_cstr(&d));
    ds_destroy(&d);
    if ((pfc->cfg.tsa_ets >> queue_id) & 1) {
        smap_add(details, "tsa", "ets");
        smap_add_format(details, "tc-bw", "%"PRIu8,
                        pfc->cfg.tc_bw[queue_id]);
    } else {
        smap_add(details, "tsa", "strict");
    }
    pfc_ecn_to_smap(&pfc->cfg.ecn_tc[queue_id], details);
    return 0;
}

/* Notes that the netdev on 'port_id' is being destroyed, so that a later
 * netdev on the same port id starts with fresh state. */
void
netdev_dpdk_pfc_port_destruct(uint16_t port_id)
{
    if (port_id < RTE_MAX_ETHPORTS) {
        struct pfc_port *port = &pfc_ports[port_id];

        netdev_dpdk_pfc_ports_init();
        rte_spinlock_lock(&port->lock);
        port->dead = true;
        /* For the id's next port. */
        atomic_store_relaxed(&port->down, 0);
        pfc_port_note_flush(port);
        rte_spinlock_unlock(&port->lock);
        port->hw.nic_saved = false;
        port->hw.allmulti_by_pfc = false;
        pfc_port_wm_reset(port);
        atomic_store_relaxed(&port->hw.ctrl_sent, 0);
    }
}
