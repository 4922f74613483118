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
 * in lib/pfc.c, which has no DPDK in it; this file plumbs them into DPDK
 * ports and PMD threads.
 *
 * Terms
 * -----
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
 * or after it holds them.  A packet is held on, and leaves by, the tx
 * queue it was sent to, so the packets of a flow, which one rx queue
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
 * (netdev_dpdk_pfc_rx_begin() and netdev_dpdk_pfc_rx()); a pause holds its
 * priority until it expired and every rx queue was stamped at or after its
 * expiry.  A PFC frame read on any rx queue acts on the whole port.
 *
 * vhost-user ports: a guest has no MAC, so the port sends and honours no PFC
 * frames; it has no pause timers and no XOFF state.  Its state is one of
 * PFC_MAX_VHOST slots of pfc_ports[] after the DPDK port ids
 * (pfc_port_is_vhost()), taken at bind by name.  Transmit: the same traffic
 * class queues, one per guest queue pair, under the same per tx queue
 * locks; what the guest's receive virtqueue refuses of a lossless priority
 * is held, as what a full tx ring refuses is held on an ethernet port, and
 * pfc_xmit() copies held packets into the virtqueue as the guest frees
 * descriptors.  Receive: the mbufs dequeued from the guest carry the slot
 * in mbuf.port, so that what the guest sent counts in the slot's ingress
 * buffer occupancy while it is held at an egress; instead of an XOFF, the
 * PMD thread that polls the guest does not dequeue while
 * pfc_backpressure_next() says the occupancy is over XOFF, until it falls
 * to XON.
 *
 * PFC watchdog: lib/pfc.h, pfc_wd_run().  Each received PFC frame updates the
 * watchdog under port->lock, with the pause timers.  A thread that flushes
 * the port checks it at most every PFC_WD_CHECK_MS, and only if port->lock
 * is free (trylock): no thread waits for it.  What it decides, the
 * priorities whose pauses are ignored and whose packets are dropped, is
 * published through atomics and pause_gen, like a pause, so transmit
 * threads cache it with the blocked classes.  Storms are logged after every
 * lock is released.  On a vhost-user port, which reads no PFC frames, the
 * transmit paths count per tx queue what the guest's receive virtqueue took
 * and refused (pfc_vq_note()), and the check reads those counts
 * (pfc_wd_vq_stalled()): a guest that reads nothing is the storm.
 *
 * DCBX: lib/pfc-dcbx.h.  The PMD thread that polls an rx queue consumes the
 * LLDPDUs to 01-80-C2-00-00-0E and parses them under port->lock (no
 * allocation, no driver call; it logs after the lock is released).  The
 * main thread (netdev_dpdk_pfc_run(), the ethernet class's 'run') ages the
 * partner, prepares under port->lock the LLDPDU that is due, which the next
 * PMD thread that flushes the port copies out and sends on its own tx queue
 * (pfc_tx_lldp()), and applies a new operational vector by setting the QoS
 * again: netdev_dpdk_pfc_qos_is_equal() then sees a difference, and a new QoS
 * object, bound with the vector, replaces the old one and takes over its
 * held packets as on any reconfiguration. */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <errno.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>
#include <rte_vhost.h>

#include "netdev.h"
#include "netdev-offload.h"
#include "netdev-provider.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/usdt-probes.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "pfc.h"
#include "pfc-dcbx.h"
#include "pfc-headroom.h"
#include "smap.h"
#include "timeval.h"
#include "unixctl.h"
#include "userspace-tso.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc);
static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* Link speed assumed when neither the link nor other_config:link-speed gives
 * one, in bit/s. */
#define PFC_FALLBACK_LINK_SPEED 10000000000ULL

/* The virtqueue in which a guest receives on its queue pair 'qp': the
 * receiveq of a virtio-net device is virtqueue 2 x qp, its transmitq the
 * next one (virtio 1.1, 5.1.2). */
#define PFC_VIRTQ_RX(qp) ((qp) * 2)

/* Most held packets handed to the NIC in one rte_eth_tx_burst() call. */
#define PFC_TX_BURST 32

/* Packets that one rx poll reads at most (NETDEV_MAX_BURST).  A poll that
 * reads fewer emptied its rx ring. */
#define PFC_RX_BURST 32

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

/* The PFC watchdog of a port is checked at most this often, in ms, by a
 * thread that flushes the port (pfc_wd_check()): a storm is detected within
 * watchdog-detection-time plus this plus one PMD iteration. */
#define PFC_WD_CHECK_MS 1

/* Adds 'n' to 'counter', which only the holder of the lock of its tx queue
 * writes: a plain load and store, no locked instruction, for the transmit
 * path. */
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

/* Publishes what the watchdog of 'port' does (pfc_wd_ignored(),
 * pfc_wd_dropped()) for lock-free readers, and makes transmit threads
 * evaluate their pauses again if that changed.  The caller holds
 * port->lock. */
static void
pfc_wd_publish(struct pfc_port *port)
{
    uint8_t ignored = pfc_wd_ignored(&port->wd, &port->wd_params);
    uint8_t dropped = pfc_wd_dropped(&port->wd, &port->wd_params);
    uint8_t old_ignored, old_dropped;

    atomic_read_relaxed(&port->wd_ignored, &old_ignored);
    atomic_read_relaxed(&port->wd_dropped, &old_dropped);
    atomic_store_relaxed(&port->wd_stormed, port->wd.stormed);
    if (ignored != old_ignored || dropped != old_dropped) {
        atomic_store_relaxed(&port->wd_ignored, ignored);
        atomic_store_relaxed(&port->wd_dropped, dropped);
        pfc_port_bump_gen(port);
    }
}

struct pfc_port pfc_ports[PFC_N_PORTS];

/* True while pfc_dcbx_apply() sets a QoS again.  Main thread only. */
static bool pfc_dcbx_applying;

/* Hands up to 'n' packets, in order from pkts[0], to tx queue 'qid' of
 * 'port': the NIC's tx ring (rte_eth_tx_burst(), which takes the mbufs), or
 * for a vhost-user port the guest's receive virtqueue of queue pair 'qid'
 * (rte_vhost_enqueue_burst() copies them: those it took are freed here).
 * Returns how many were taken; the others stay with the caller.  A vhost
 * port whose guest is not there takes nothing. */
static inline uint16_t
pfc_xmit(struct pfc_port *port, int qid, struct rte_mbuf **pkts, uint16_t n)
{
    uint16_t k;
    int vid;

    if (OVS_LIKELY(!pfc_port_is_vhost(port))) {
        return n ? rte_eth_tx_burst(port - pfc_ports, qid, pkts, n) : 0;
    }
    atomic_read_relaxed(&port->vid, &vid);
    if (vid < 0 || !n) {
        return 0;
    }
    k = rte_vhost_enqueue_burst(vid, PFC_VIRTQ_RX(qid), pkts, n);
    if (k) {
        rte_pktmbuf_free_bulk(pkts, k);
    }
    return k;
}

/* Returns true if the frame of 'len' octets at 'data' is an LLDPDU to the
 * nearest bridge address 01-80-C2-00-00-0E, untagged (IEEE 802.1AB-2016
 * 7.1), which DCBX consumes. */
static inline bool
pfc_is_lldp(const uint8_t *data, size_t len)
{
    static const uint8_t dst[ETH_ADDR_LEN] = {
        0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e
    };

    return (len >= ETH_HEADER_LEN
            && data[12] == (PFC_LLDP_ETH_TYPE >> 8)
            && data[13] == (PFC_LLDP_ETH_TYPE & 0xff)
            && !memcmp(data, dst, ETH_ADDR_LEN));
}

/* Receives the LLDPDU in 'm' on 'port' (DCBX on): updates the port's DCBX
 * state under port->lock, and logs what changed once it is released.  The
 * caller frees 'm'. */
static void
pfc_rx_lldp(struct pfc_port *port, const struct rte_mbuf *m)
{
    const uint8_t *data = rte_pktmbuf_mtod(m, const uint8_t *);
    size_t len = rte_pktmbuf_data_len(m);
    char name[sizeof port->name];
    uint8_t old_oper, oper;
    bool old_mm, mm, changed;
    struct eth_addr src;
    const char *why;

    memcpy(src.ea, data + ETH_ADDR_LEN, ETH_ADDR_LEN);
    rte_spinlock_lock(&port->lock);
    old_oper = port->dcbx.oper;
    old_mm = port->dcbx.mismatch;
    changed = pfc_dcbx_rx(&port->dcbx, &port->dcbx_params, port->mac, src,
                          data + ETH_HEADER_LEN, len - ETH_HEADER_LEN,
                          rte_get_tsc_cycles(), port->tb.hz, &why);
    if (why) {
        port->dcbx_error = why;
    }
    port->dcbx_changed |= changed;
    oper = port->dcbx.oper;
    mm = port->dcbx.mismatch;
    ovs_strlcpy(name, port->name, sizeof name);
    rte_spinlock_unlock(&port->lock);

    if (why) {
        VLOG_WARN_RL(&rl, "%s: DCBX: malformed LLDPDU ignored: %s", name,
                     why);
    }
    if (changed) {
        VLOG_INFO_RL(&rl, "%s: DCBX: operational PFC enable vector 0x%02"
                     PRIx8" -> 0x%02"PRIx8, name, old_oper, oper);
    }
    if (mm && !old_mm) {
        VLOG_WARN_RL(&rl, "%s: DCBX: PFC configuration mismatch with the "
                     "link partner (see pfc/show)", name);
    }
}

/* Sends the LLDPDU that the main thread prepared for the port of 'pfc', if
 * one is due (netdev_dpdk_pfc_run()), on tx queue 'qid', with an mbuf from
 * 'mp'.  The frame is copied out under port->lock; the mbuf is allocated
 * and sent after it is released.  The caller holds the tx queue's lock. */
static void
pfc_tx_lldp(struct netdev_dpdk_pfc *pfc, int qid, struct rte_mempool *mp)
{
    struct pfc_port *port = pfc->port;
    uint8_t frame[PFC_LLDP_FRAME_MAX];
    struct rte_mbuf *m;
    bool due;
    uint16_t len;

    atomic_read_relaxed(&port->lldp_due, &due);
    if (!due || !mp
        || !atomic_compare_exchange_strong(&port->lldp_due, &due, false)) {
        return;
    }
    rte_spinlock_lock(&port->lock);
    len = port->lldp_len;
    memcpy(frame, port->lldp_frame, len);
    rte_spinlock_unlock(&port->lock);

    m = rte_pktmbuf_alloc(mp);
    if (m) {
        char *p = rte_pktmbuf_append(m, len);

        if (p) {
            memcpy(p, frame, len);
            if (rte_eth_tx_burst(port - pfc_ports, qid, &m, 1) == 1) {
                return;
            }
        }
        rte_pktmbuf_free(m);
    }
    /* Not sent: the next flush tries again, unless DCBX stopped. */
    rte_spinlock_lock(&port->lock);
    if (port->conf) {
        atomic_store_relaxed(&port->lldp_due, true);
    }
    rte_spinlock_unlock(&port->lock);
}

/* For the watchdog of a vhost-user port: counts that the guest's receive
 * queue of 't' took 'taken' of the 'offered' packets of one transmit
 * attempt (pfc_wd_vq_stalled()).  The caller holds t->lock. */
static inline void
pfc_vq_note(struct pfc_txq *t, uint16_t taken, uint16_t offered)
{
    if (taken) {
        pfc_count(&t->vq_taken, taken);
    }
    if (taken < offered) {
        pfc_count(&t->vq_refused, 1);
    }
}

void
netdev_dpdk_pfc_ports_init(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        for (int i = 0; i < PFC_N_PORTS; i++) {
            rte_spinlock_init(&pfc_ports[i].lock);
            atomic_init(&pfc_ports[i].vid, -1);
        }
        ovsthread_once_done(&once);
    }
}

static void pfc_txqs_resize(struct netdev_dpdk_pfc *, int n);

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
    pfc->keep_map = pfc_dcbx_applying;
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

/* Returns the state of the vhost-user port named 'name': the slot it had,
 * or a free one, or NULL if all PFC_MAX_VHOST are taken.  A slot is free
 * when no QoS object uses it and no packet from its port is still held
 * anywhere.  Main thread only. */
static struct pfc_port *
pfc_vhost_port(const char *name)
{
    struct pfc_port *free_port = NULL;

    for (int i = RTE_MAX_ETHPORTS; i < PFC_N_PORTS; i++) {
        struct pfc_port *port = &pfc_ports[i];
        bool mine, usable;

        rte_spinlock_lock(&port->lock);
        mine = port->name[0] && !strcmp(port->name, name);
        usable = !port->conf;   /* No QoS there now: free to reuse. */
        rte_spinlock_unlock(&port->lock);
        if (mine) {
            return port;
        }
        for (int n = 0; usable && n < PFC_N_PRIOS; n++) {
            uint64_t cells;

            atomic_read_relaxed(&port->pg_cells[n], &cells);
            usable = !cells;
        }
        if (usable && !free_port) {
            free_port = port;
        }
    }
    return free_port;
}

/* Prepares in 'port' the LLDPDU that the next PMD thread to flush the port
 * sends (pfc_tx_lldp()), with a Time To Live of 'ttl' seconds (0: a
 * shutdown LLDPDU).  It advertises the administrative vector and the
 * willing bit, as IEEE 802.1Q-2018 clause 38 (symmetric attribute passing)
 * and lldpad do, and a PFC cap of 8.  The caller holds port->lock. */
static void
pfc_lldp_prepare(struct pfc_port *port, uint16_t ttl)
{
    struct pfc_dcbx_tlv tlv = {
        .willing = port->dcbx_params.willing,
        .cap = PFC_N_PRIOS,
        .enable = port->dcbx_params.admin,
    };

    port->lldp_len = pfc_lldpdu_build(port->lldp_frame,
                                      sizeof port->lldp_frame, port->mac,
                                      port->name, ttl, &tlv);
    atomic_store_relaxed(&port->lldp_due, port->lldp_len != 0);
}

/* Stops DCBX on 'port': no LLDPDU is consumed, sent or applied any more.
 * The partner ages out our information.  The caller holds port->lock. */
static void
pfc_dcbx_stop__(struct pfc_port *port)
{
    atomic_store_relaxed(&port->dcbx_on, false);
    port->dcbx_changed = false;
    atomic_store_relaxed(&port->lldp_due, false);
}

/* pfc_dcbx_stop__() for a port whose PFC is being removed.  Takes
 * port->lock. */
static void
pfc_dcbx_stop(struct pfc_port *port)
{
    rte_spinlock_lock(&port->lock);
    pfc_dcbx_stop__(port);
    rte_spinlock_unlock(&port->lock);
}

/* DCBX part of binding 'pfc' to 'port' (pfc_bind__()), under port->lock:
 * starts, reconfigures or stops DCBX on the port, and, if 'pfc' is bound
 * for the first time (no PMD thread uses it yet), makes the operational
 * vector that DCBX decided its pfc->cfg.enabled. */
static void
pfc_dcbx_bind(struct netdev_dpdk_pfc *pfc, struct pfc_port *port, bool first)
{
    uint64_t now = rte_get_tsc_cycles();
    bool was_on;

    atomic_read_relaxed(&port->dcbx_on, &was_on);
    if (!pfc->cfg.dcbx) {
        pfc_dcbx_stop__(port);
        if (was_on) {
            /* A shutdown LLDPDU (Time To Live 0, IEEE 802.1AB-2016
             * 9.2.7.7.1), so that the partner forgets us at once. */
            pfc_lldp_prepare(port, 0);
        }
        if (first) {
            pfc->cfg.enabled = pfc->cfg.admin;
        }
        return;
    }

    struct pfc_dcbx_params dp = {
        .enabled = true,
        .willing = pfc->cfg.dcbx_willing,
        .admin = pfc->cfg.admin,
        .tx_interval = pfc->cfg.lldp_tx_interval,
    };

    if (!was_on) {
        pfc_dcbx_init(&port->dcbx, &dp, now);
        port->dcbx_error = NULL;
    } else if (dp.willing != port->dcbx_params.willing
               || dp.admin != port->dcbx_params.admin
               || dp.tx_interval != port->dcbx_params.tx_interval) {
        pfc_dcbx_reconfigure(&port->dcbx, &dp, port->mac, now);
    } else if (!first) {
        /* The port was reconfigured or its link came up: fast start
         * (IEEE 802.1AB-2016 9.2.7.7.2). */
        pfc_dcbx_fast_start(&port->dcbx, now);
    }
    port->dcbx_params = dp;
    if (first) {
        pfc->cfg.enabled = port->dcbx.oper;
        port->dcbx_changed = false;
    }
    atomic_store_relaxed(&port->dcbx_on, true);
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
static int
pfc_bind__(struct netdev_dpdk_pfc *pfc,
           const struct netdev_dpdk_pfc_port_info *info)
{
    struct pfc_ring_limits ring_lim;
    struct pfc_port_limits limits;
    struct pfc_thresholds thr;
    struct pfc_port *port;
    bool first = !pfc->port;
    bool from_link = false;
    bool ring_lim_known;
    char *err, *old_error;

    /* The tx queues follow the port's, even if the binding is refused
     * below, but only while no transmit thread uses 'pfc'
     * (pfc_txqs_resize()).  Otherwise tx queue 'qid' of the port keeps
     * using traffic class queues qid % pfc->n_txq. */
    if (info->idle && pfc->n_txq != MAX(info->n_txq, 1)) {
        pfc_txqs_resize(pfc, MAX(info->n_txq, 1));
    }
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

    if (info->vhost) {
        /* No link: the speed only scales the derived headroom, which a
         * guest, stopped at once, does not need; at the fallback speed it
         * errs on the safe side. */
        from_link = true;
        limits.link_speed = (pfc->cfg.link_speed ? pfc->cfg.link_speed
                             : PFC_FALLBACK_LINK_SPEED);
    } else {
        limits.link_speed = (pfc->cfg.link_speed ? pfc->cfg.link_speed
                             : pfc_link_speed(info->port_id, &from_link));
    }
    if (!pfc->cfg.link_speed && !from_link) {
        VLOG_WARN("%s: link speed unknown, assuming %"PRIu64" bit/s for "
                  "pause quanta; set other_config:link-speed", info->name,
                  limits.link_speed);
    }
    limits.max_frame = info->mtu + ETH_HEADER_LEN + VLAN_HEADER_LEN
                       + 4 /* FCS */;
    if (info->mp) {
        /* What the rx rings keep is not there to be held. */
        uint64_t rx_kept = (uint64_t) info->n_rxq * info->rxq_size;

        limits.mbufs = (info->mp->size > rx_kept
                        ? info->mp->size - rx_kept : UINT64_MAX);
        limits.mbuf_size = rte_pktmbuf_data_room_size(info->mp);
    } else {
        limits.mbufs = UINT64_MAX;
        limits.mbuf_size = 0;
    }
    limits.n_rxq = MAX(info->n_rxq, 1);
    limits.rxq_desc = info->rxq_size;
    limits.cable = !info->vhost;
    if (pfc_derive_thresholds(&pfc->cfg, &limits, &thr, &err)
        || pfc_headroom_fits(pfc, port, &limits, &thr, &err)) {
        VLOG_ERR("%s: QoS type pfc: %s; keeping the previous configuration",
                 info->name, err);
        pfc_port_set_error(port, info->name, err);
        return EINVAL;
    }

    struct rte_eth_dev_info dev_info;
    enum pfc_mac_control mac_control;
    const char *driver;

    memset(&dev_info, 0, sizeof dev_info);
    memset(&ring_lim, 0, sizeof ring_lim);
    if (info->vhost) {
        driver = "vhost-user";
        mac_control = PFC_MAC_CONTROL_VIRTUAL;
    } else {
        driver = (!rte_eth_dev_info_get(info->port_id, &dev_info)
                  && dev_info.driver_name ? dev_info.driver_name : "unknown");
        mac_control = pfc_mac_control_setup(info->port_id, driver,
                                            pfc->cfg.mac_control_trust, &err);
    }
    if (mac_control == PFC_MAC_CONTROL_REFUSED) {
        VLOG_ERR("%s: QoS type pfc refused: %s", info->name, err);
        pfc_port_set_error(port, info->name, err);
        return EINVAL;
    }

    ring_lim_known = (!info->vhost
                      && pfc_ring_limits_get(info->port_id, &ring_lim));
    rte_spinlock_lock(&port->lock);
    if (!port->conf && (port->dead || strcmp(port->name, info->name))) {
        /* A new netdev on this port id: start from scratch, except for the
         * ingress buffer occupancy, which packets still held elsewhere
         * own. */
        pfc_pause_init(&port->pause);
        pfc_xoff_init(&port->xoff);
        memset(&port->counters, 0, sizeof port->counters);
        atomic_store_relaxed(&port->tx_mac_control_filtered, 0);
        atomic_store_relaxed(&port->held_dropped, 0);
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            atomic_store_relaxed(&port->until[n], 0);
        }
        atomic_store_relaxed(&port->max_until, 0);
        pfc_wd_init(&port->wd);
        pfc_dcbx_stop__(port);
        atomic_store_relaxed(&port->bp_stopped, 0);
        port->bp_stops = port->bp_cycles = 0;
        memset(port->bp_stops_prio, 0, sizeof port->bp_stops_prio);
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            atomic_store_relaxed(&port->wd_tx_dropped[n], 0);
            atomic_store_relaxed(&port->wd_tx_forwarded[n], 0);
            atomic_store_relaxed(&port->wd_rx_dropped[n], 0);
        }
        pfc_port_bump_gen(port);
    }
    ovs_strlcpy(port->name, info->name, sizeof port->name);
    port->mac = *info->mac;
    port->dead = false;
    old_error = port->last_error;   /* Freed once port->lock is released. */
    port->last_error = NULL;
    port->txq_size = info->txq_size;
    port->ring_lim = ring_lim;
    port->ring_lim_known = ring_lim_known;
    port->max_frame = limits.max_frame;
    port->mac_control = mac_control;
    ovs_strlcpy(port->driver, driver, sizeof port->driver);
    port->tb.hz = rte_get_tsc_hz();
    port->poll_cap = port->tb.hz / 1000 * PFC_POLL_CAP_MS;
    atomic_store_relaxed(&port->rxq_desc, pfc_rx_ring_size(info));
    port->adopt = port->tb.hz / 1000 * PFC_ADOPT_MS;
    atomic_store_relaxed(&port->n_rxq,
                         MIN(MAX(info->n_rxq, 1), RTE_MAX_QUEUES_PER_PORT));
    port->tb.link_speed = limits.link_speed;
    port->speed_from_link = from_link;
    atomic_store_relaxed(&port->late_bound,
                         2 * pfc_rxq_drain_ticks(&port->tb,
                                                 pfc_rx_ring_size(info))
                         + port->tb.hz / 1000000 * PFC_LATE_SLACK_US);
    if (!port->conf) {
        /* PFC applied anew: no storm carries over from an earlier QoS. */
        port->wd.stormed = 0;
        port->wd.detecting = 0;
    }
    pfc_dcbx_bind(pfc, port, first);
    pfc_wd_params_init(&port->wd_params, &pfc->cfg, port->tb.hz);
    port->wd_params.guest = pfc_port_is_vhost(port);
    atomic_store_relaxed(&port->default_prio, pfc->cfg.default_priority);
    pfc_wd_publish(port);
    pfc->thr = thr;
    pfc->xparams = (struct pfc_xoff_params) {
        .enabled = pfc->cfg.enabled,
        .pause_quanta = pfc->cfg.pause_quanta,
        .tb = port->tb,
    };
    pfc_buf_pg_params_init(&pfc->xparams.pg, &pfc->cfg, &thr);
    pfc_buf_egress_params_init(&pfc->eparams, &pfc->cfg);
    atomic_store_relaxed(&port->xoff_bytes_pub, pfc->thr.xoff_bytes);
    atomic_store_relaxed(&port->buf_pub,
                         pfc_buf_pub_pack(pfc->cfg.enabled,
                                          &pfc->xparams.pg));
    atomic_store_relaxed(&port->buf_mbufs, limits.mbufs);
    atomic_store_relaxed(&port->buf_reserved,
                         (uint64_t) pfc->xparams.pg.headroom
                         * count_1bits(pfc->cfg.enabled));
    port->conf = pfc;
    pfc->port = port;
    atomic_store_relaxed(&port->active, true);
    rte_spinlock_unlock(&port->lock);
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
        /* Being removed: keeps what it has until it is flushed. */
        return 0;
    }
    error = pfc_bind__(pfc, info);

    if (!error && bound
        && old.headroom.total != pfc->thr.headroom.total) {
        VLOG_INFO("%s: PFC headroom derived again for MTU %"PRIu32", "
                  "%"PRIu64" bit/s and %d rx queues of %"PRIu32" "
                  "descriptors: %"PRIu64" cells per lossless priority",
                  info->name, info->mtu, pfc->port->tb.link_speed,
                  info->n_rxq, info->rxq_size, pfc->thr.headroom.total);
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
        changed = size != port->txq_size;
        port->txq_size = size;
        port->max_frame = max_frame;
        port->ring_lim = lim;
        port->ring_lim_known = known;
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

/* Adds 'h' to (sign > 0) or takes it off (sign < 0) the held counts of 't'.
 * Only the holder of t->lock writes them (pfc_count()). */
static void
pfc_txq_count_held(struct pfc_txq *t, const struct pfc_held *h, int sign)
{
    uint64_t len = h->len;

    pfc_count(&t->held_pkts[h->prio], sign > 0 ? 1 : UINT64_MAX);
    pfc_count(&t->held_bytes[h->prio], sign > 0 ? len : -len);
}

/* Takes 'h', which is leaving a traffic class queue of 't', off the held
 * counts of 't' and off the occupancy of its ingress port. */
static void
pfc_unhold(struct pfc_txq *t, const struct pfc_held *h)
{
    pfc_buf_unhold(t, h);
    pfc_txq_count_held(t, h, -1);
}

/* Notes in pfc->holding whether tx queue 't' of 'pfc' holds packets. */
static void
pfc_note_holding(struct netdev_dpdk_pfc *pfc, const struct pfc_txq *t)
{
    int qid = t - pfc->txq;
    uint64_t bit = UINT64_C(1) << MIN(qid, 63);
    uint64_t orig;

    if (t->n_held) {
        atomic_read_relaxed(&pfc->holding, &orig);
        if (!(orig & bit)) {
            atomic_or_relaxed(&pfc->holding, bit, &orig);
        }
    } else if (qid < 63) {
        /* Bit 63 is shared by tx queues 63 and up: never cleared. */
        atomic_and_relaxed(&pfc->holding, ~bit, &orig);
    }
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

            pfc_buf_unhold(t, h);
            if (sum) {
                sum->hold_drops[h->prio]++;
            }
            n_freed++;
            rte_pktmbuf_free(h->pkt);
            pfc_holdq_pop(q, 1);
        }
        pfc_holdq_destroy(q);
    }
    pfc_buf_txq_flush_cache(t);
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
static void
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

/* Returns true if every packet that 'from' holds fits, in the class queue
 * that 'prio_to_tc' maps its priority to, into the ring of 'to'.  The caller
 * holds the lock of 'from'. */
static bool
pfc_txq_fits(const struct pfc_txq *from, const struct pfc_txq *to,
             const uint8_t prio_to_tc[])
{
    uint32_t need[PFC_N_PRIOS] = { 0 };

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        for (uint32_t i = 0; i < from->q[tc].n; i++) {
            need[prio_to_tc[pfc_holdq_peek(&from->q[tc], i)->prio]]++;
        }
    }
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        if (need[tc] > to->q[tc].cap - to->q[tc].n) {
            return false;
        }
    }
    return true;
}

/* Moves every packet held in 'from' to the tail of the class queue of 'to'
 * that 'prio_to_tc' maps its priority to, in order, past that queue's limit
 * if need be: the caller made room (pfc_txq_fits()).  The ingress buffer
 * occupancy does not change. */
static void
pfc_txq_move(struct pfc_txq *from, struct pfc_txq *to,
             const uint8_t prio_to_tc[])
{
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        struct pfc_holdq *q = &from->q[tc];

        while (q->n) {
            const struct pfc_held *h = pfc_holdq_peek(q, 0);
            int new_tc = prio_to_tc[h->prio];

            ovs_assert(pfc_holdq_append(&to->q[new_tc], h));
            to->nonempty |= 1u << new_tc;
            to->n_held++;
            pfc_txq_count_held(to, h, 1);
            pfc_txq_count_held(from, h, -1);
            pfc_holdq_pop(q, 1);
        }
    }
    from->n_held = 0;
    from->nonempty = 0;
    to->blocked_until = 0;
}

/* Returns the slots of the traffic class queue of class 'tc': room for the
 * whole buffer if a priority in pfc-enable maps to it, so that every packet
 * that admission holds has a slot; otherwise queue-size, or
 * PFC_LOSSY_QUEUE_SLOTS. */
static uint32_t
pfc_class_slots(const struct pfc_config *cfg, int tc)
{
    if (pfc_tcs_prios(cfg->prio_to_tc, 1u << tc) & cfg->enabled) {
        return PFC_BUF_CELLS_MAX;
    }
    return cfg->queue_size ? cfg->queue_size : PFC_LOSSY_QUEUE_SLOTS;
}

/* Gives 'pfc' 'n' tx queues, moving what the old ones hold, tx queue i into
 * tx queue i % n: the packets of a flow all come from one tx queue, so they
 * stay in order.  Only for a QoS object that no transmit thread uses: one
 * not yet published, or one whose port netdev-dpdk is reconfiguring. */
static void
pfc_txqs_resize(struct netdev_dpdk_pfc *pfc, int n)
{
    struct pfc_txq *txq = xzalloc_cacheline(n * sizeof *txq);
    uint64_t holding = 0;

    for (int i = 0; i < n; i++) {
        rte_spinlock_init(&txq[i].lock);
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
    for (int i = 0; i < n; i++) {
        if (txq[i].n_held) {
            holding |= UINT64_C(1) << MIN(i, 63);
        }
    }
    free_cacheline(pfc->txq);
    pfc->txq = txq;
    pfc->n_txq = n;
    atomic_store_relaxed(&pfc->holding, holding);
}

/* Locks every tx queue of 'pfc', in order.  For the main thread, which may
 * wait meanwhile for a transmit thread to finish a batch. */
static void
pfc_txqs_lock(struct netdev_dpdk_pfc *pfc)
{
    for (int i = 0; i < pfc->n_txq; i++) {
        rte_spinlock_lock(&pfc->txq[i].lock);
    }
}

static void
pfc_txqs_unlock(struct netdev_dpdk_pfc *pfc)
{
    for (int i = pfc->n_txq - 1; i >= 0; i--) {
        rte_spinlock_unlock(&pfc->txq[i].lock);
    }
}

/* Frees 'pfc'.  No thread may use it any more (the caller postponed this
 * with RCU).  Packets still held are freed and counted as hold drops. */
void
netdev_dpdk_pfc_destroy(struct netdev_dpdk_pfc *pfc)
{
    struct pfc_txq_totals sum;
    struct pfc_port *port = pfc->port;
    uint64_t n_freed = 0;

    if (port) {
        /* First off the port, so that nothing reads its tx queues any
         * more (pfc/show, the custom statistics). */
        rte_spinlock_lock(&port->lock);
        if (port->conf == pfc) {
            port->conf = NULL;
            atomic_store_relaxed(&port->active, false);
            atomic_store_relaxed(&port->buf_pub, 0);
            atomic_store_relaxed(&port->buf_reserved, 0);
            pfc_dcbx_stop__(port);
        }
        rte_spinlock_unlock(&port->lock);
        pfc_pool_resize();
    }
    memset(&sum, 0, sizeof sum);
    for (int i = 0; i < pfc->n_txq; i++) {
        n_freed += pfc_txq_destroy(&pfc->txq[i], &sum);
    }
    free_cacheline(pfc->txq);
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
netdev_dpdk_pfc_qos_is_equal(const struct qos_conf *conf,
                             const struct smap *details)
{
    const struct netdev_dpdk_pfc *pfc = netdev_dpdk_pfc_from_qos(conf);
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
        oper = port->dcbx.oper;
        rte_spinlock_unlock(&port->lock);
        return oper == pfc->cfg.enabled;
    }
    return true;
}

/* dpdk_qos_ops 'qos_get': stores the QoS other_config that configures the
 * PFC object of 'conf' into 'details' (for ovs-appctl qos/show and
 * netdev_get_qos()).  Returns 0. */
int
netdev_dpdk_pfc_qos_get(const struct qos_conf *conf, struct smap *details)
{
    pfc_config_to_smap(&netdev_dpdk_pfc_from_qos(conf)->cfg, details);
    return 0;
}

/* Room for pfc_remap_held(), allocated before the tx queue locks are taken:
 * a transmit thread may wait for them, so nothing is allocated or freed,
 * and nothing logged, while they are held.  Only the main thread resizes
 * class queues, so the room stays enough. */
struct pfc_remap {
    struct pfc_held *moved;     /* Scratch, for one tx queue. */
    struct pfc_held *dropped;   /* Those that did not fit, on every queue. */
    size_t n_dropped;
};

static void
pfc_remap_init(struct pfc_remap *r, const struct netdev_dpdk_pfc *pfc)
{
    size_t max = 0, total = 0;

    for (int i = 0; i < pfc->n_txq; i++) {
        size_t room = pfc_holdq_room(pfc->txq[i].q);

        max = MAX(max, room);
        total += room;
    }
    r->moved = xmalloc(MAX(max, 1) * sizeof *r->moved);
    r->dropped = xmalloc(MAX(total, 1) * sizeof *r->dropped);
    r->n_dropped = 0;
}

/* Frees the packets pfc_remap_held() dropped, with no lock held, logs them,
 * and frees 'r'. */
static void
pfc_remap_finish(struct pfc_remap *r, const struct netdev_dpdk_pfc *pfc)
{
    for (size_t k = 0; k < r->n_dropped; k++) {
        rte_pktmbuf_free(r->dropped[k].pkt);
    }
    if (r->n_dropped) {
        VLOG_WARN("%s: PFC: %"PRIuSIZE" held packets dropped: their new "
                  "traffic class had no room for them",
                  pfc->port ? pfc->port->name : "?", r->n_dropped);
    }
    free(r->moved);
    free(r->dropped);
}

/* After a change of the priority to traffic class map, moves the packets
 * held in each traffic class queue whose priority now maps to another class
 * to that class's queue (pfc_holdq_remap()), on every tx queue, and counts
 * as hold drops those that do not fit, which it stores in 'r' for
 * pfc_remap_finish() to free.  The caller holds every tx queue lock of
 * 'pfc'. */
static void
pfc_remap_held(struct netdev_dpdk_pfc *pfc, struct pfc_remap *r)
{
    for (int i = 0; i < pfc->n_txq; i++) {
        struct pfc_txq *t = &pfc->txq[i];
        struct pfc_held *dropped = &r->dropped[r->n_dropped];
        size_t n_dropped;

        t->blocked_until = 0;   /* The classes blocked may have changed. */
        if (!t->n_held) {
            continue;
        }
        n_dropped = pfc_holdq_remap(t->q, pfc->cfg.prio_to_tc, r->moved,
                                    dropped);
        for (size_t k = 0; k < n_dropped; k++) {
            pfc_unhold(t, &dropped[k]);
            pfc_count(&t->hold_drops[dropped[k].prio], 1);
        }
        r->n_dropped += n_dropped;
        t->n_held -= n_dropped;
        t->nonempty = 0;
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            if (t->q[tc].n) {
                t->nonempty |= 1u << tc;
            }
        }
        pfc_note_holding(pfc, t);
    }
    if (r->n_dropped && pfc->port) {
        uint64_t orig;

        atomic_add_relaxed(&pfc->port->held_dropped, r->n_dropped, &orig);
    }
}

/* dpdk_qos_ops 'qos_queue_construct': maps the priorities in 'details' to
 * traffic class 'queue_id' (0..7) of the PFC object of 'conf'.  Returns 0
 * or EINVAL, after logging why. */
int
netdev_dpdk_pfc_qos_queue_construct(const struct smap *details,
                                    uint32_t queue_id, struct qos_conf *conf)
{
    struct netdev_dpdk_pfc *pfc = netdev_dpdk_pfc_from_qos(conf);
    struct pfc_config cfg = pfc->cfg;  /* Only this thread writes it. */
    struct pfc_remap r;
    char *err;
    int error;

    error = pfc_config_set_queue(&cfg, queue_id, details, &err);
    if (error) {
        VLOG_ERR("%s: QoS type pfc: %s; keeping the previous mapping",
                 pfc->port ? pfc->port->name : "?", err);
        free(err);
        return error;
    }
    pfc_remap_init(&r, pfc);
    pfc_txqs_lock(pfc);
    pfc->cfg = cfg;
    pfc_remap_held(pfc, &r);
    pfc_txqs_unlock(pfc);
    pfc_remap_finish(&r, pfc);
    return 0;
}

/* dpdk_qos_ops 'qos_queue_destruct': removes the priority mapping of traffic
 * class 'queue_id' (0..7; others are ignored) of the PFC object of 'conf':
 * its priorities return to the class of their own number. */
void
netdev_dpdk_pfc_qos_queue_destruct(struct qos_conf *conf, uint32_t queue_id)
{
    struct netdev_dpdk_pfc *pfc = netdev_dpdk_pfc_from_qos(conf);
    struct pfc_remap r;

    pfc_remap_init(&r, pfc);
    pfc_txqs_lock(pfc);
    pfc_config_clear_queue(&pfc->cfg, queue_id);
    pfc_remap_held(pfc, &r);
    pfc_txqs_unlock(pfc);
    pfc_remap_finish(&r, pfc);
}

/* dpdk_qos_ops 'qos_queue_get': stores the other_config of traffic class
 * 'queue_id' ("priorities") of the PFC object of 'conf' into 'details'.
 * Returns 0, or EINVAL if 'queue_id' is not 0..7. */
int
netdev_dpdk_pfc_qos_queue_get(struct smap *details, uint32_t queue_id,
                              const struct qos_conf *conf)
{
    const struct netdev_dpdk_pfc *pfc = netdev_dpdk_pfc_from_qos(conf);
    struct ds d = DS_EMPTY_INITIALIZER;

    if (queue_id >= PFC_N_PRIOS) {
        return EINVAL;
    }
    pfc_format_prios(&d, pfc->cfg.tc_prios[queue_id]);
    smap_add(details, "priorities", ds_cstr(&d));
    ds_destroy(&d);
    return 0;
}

/* Copies the pause timers of 'port', changed by a PFC frame read at TSC
 * 'now', to the atomics that transmit threads read.  The caller holds
 * port->lock. */
static void
pfc_port_publish(struct pfc_port *port, uint64_t now)
{
    uint64_t max = 0;

#ifdef HAVE_USDT_PROBES
    atomic_store_relaxed(&port->pause_read, now);   /* Probe "paused". */
#else
    (void) now;
#endif
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        atomic_store_relaxed(&port->until[n], port->pause.until[n]);
        max = MAX(max, port->pause.until[n]);
    }
    atomic_store_relaxed(&port->max_until, max);
    pfc_port_bump_gen(port);
}

/* Acts on a MAC Control frame of kind 'kind' (decoded into 'frame') read on
 * 'port' at TSC 'now', which arrived after TSC 'earliest' (the start of the
 * previous poll of its rx queue that emptied the ring). */
static void
pfc_rx_frame(struct pfc_port *port, enum pfc_rx_kind kind,
             const struct pfc_frame *frame, uint64_t now, uint64_t earliest)
{
    uint8_t enabled, started = 0, xon = 0;

    rte_spinlock_lock(&port->lock);
    switch (kind) {
    case PFC_RX_PFC:
        /* Only priorities in pfc-enable honour the frame. */
        enabled = port->conf ? port->conf->cfg.enabled : 0;
        started = pfc_receive(&port->pause, &port->counters, frame, enabled,
                              &port->tb, now, earliest);
        pfc_wd_frame(&port->wd, frame, enabled, started, now);
        pfc_port_publish(port, now);
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
    for (int n = 0; kind == PFC_RX_PFC && n < PFC_N_PRIOS; n++) {
        xon |= (frame->enable & (1u << n) && !frame->time[n]) << n;
    }
    /* Vectors: the frame's priority_enable_vector, the priorities it
     * resumes (time 0: XON) << 8, those it paused that were not paused
     * << 16.  The last argument is when the pause timers it set were in
     * force for every transmit decision.  (At most 6 arguments: bpftrace
     * reads no more on x86_64.) */
    OVS_USDT_PROBE(netdev_dpdk_pfc, rx_frame, (int) (port - pfc_ports),
                   (int) kind,
                   (uint32_t) frame->enable | xon << 8 | started << 16, now,
                   rte_get_tsc_cycles());
    (void) started;
    (void) xon;
}

/* Returns the TSC to pass to netdev_dpdk_pfc_rx() for the poll of rx queue
 * 'qid' of DPDK port 'port_id' that is about to begin, or 0 if the port has
 * no PFC or if its poll stamp needs no update (no pause can wait for it).
 * Costs two loads on a PFC port with no pause in force. */
uint64_t
netdev_dpdk_pfc_rx_begin(uint16_t port_id, int qid)
{
    struct pfc_port *port;
    uint64_t max, polled;
    bool active;

    if (port_id >= RTE_MAX_ETHPORTS || qid >= RTE_MAX_QUEUES_PER_PORT) {
        return 0;
    }
    port = &pfc_ports[port_id];
    atomic_read_relaxed(&port->active, &active);
    if (!active) {
        return 0;
    }
    atomic_read_relaxed(&port->max_until, &max);
    atomic_read_relaxed(&port->rxq_polled[qid], &polled);
    if (polled < max) {
        uint64_t start = rte_get_tsc_cycles();

        /* RDTSC is not ordered with the loads that follow it: without a
         * fence, the driver could read the rx ring's descriptors before the
         * TSC, and the stamp would cover a frame that arrived in between
         * unread.  A load fence (LFENCE on x86) keeps them after it. */
        rte_rmb();
        return start;
    }
    return 0;
}

/* During a storm of PFC frames received on 'port' whose watchdog action is
 * "drop": frees 'm', received on 'port', and returns true if its priority is
 * in 'dropped' (the stormed priorities); counts it in wd_rx_dropped. */
static bool
pfc_wd_rx_drop(struct pfc_port *port, struct rte_mbuf *m, uint8_t dropped)
{
    uint64_t orig;
    uint8_t def;
    int prio;

    atomic_read_relaxed(&port->default_prio, &def);
    prio = pfc_packet_priority(rte_pktmbuf_mtod(m, const void *),
                               rte_pktmbuf_data_len(m), def);
    if (!((dropped >> prio) & 1)) {
        return false;
    }
    atomic_add_relaxed(&port->wd_rx_dropped[prio], 1, &orig);
    rte_pktmbuf_free(m);
    return true;
}

/* Consumes the MAC Control frames among the 'cnt' packets (possibly 0) just
 * read in 'pkts' from rx queue 'qid' of DPDK port 'port_id', if the port has
 * QoS type pfc: valid PFC frames set the pause timers, every MAC Control
 * frame is counted and freed, none reaches the datapath.  'start' is what
 * netdev_dpdk_pfc_rx_begin() returned before the poll: if nonzero and the
 * poll emptied the ring (read fewer than PFC_RX_BURST packets), it becomes
 * the queue's poll stamp (pfc_pause_holds()).  Compacts 'pkts' and returns
 * how many remain. */
int
netdev_dpdk_pfc_rx(uint16_t port_id, int qid, struct rte_mbuf **pkts,
                   int cnt, uint64_t start)
{
    struct pfc_port *port;
    uint64_t earliest = 0;
    uint8_t wd_dropped;
    bool active, dcbx_on;
    int kept = 0;

    if (port_id >= RTE_MAX_ETHPORTS || qid >= RTE_MAX_QUEUES_PER_PORT) {
        return cnt;
    }
    port = &pfc_ports[port_id];
    atomic_read_relaxed(&port->active, &active);
    if (!active) {
        return cnt;
    }

    atomic_read_relaxed(&port->wd_dropped, &wd_dropped);
    atomic_read_relaxed(&port->dcbx_on, &dcbx_on);
    for (int i = 0; i < cnt; i++) {
        struct rte_mbuf *m = pkts[i];
        struct pfc_frame frame;
        enum pfc_rx_kind kind;

        if (OVS_LIKELY(!pfc_maybe_mac_control(rte_pktmbuf_mtod(m, void *),
                                              rte_pktmbuf_data_len(m)))) {
            if (OVS_UNLIKELY(dcbx_on)
                && pfc_is_lldp(rte_pktmbuf_mtod(m, const void *),
                               rte_pktmbuf_data_len(m))) {
                pfc_rx_lldp(port, m);
                rte_pktmbuf_free(m);
                continue;
            }
            if (OVS_UNLIKELY(wd_dropped)
                && pfc_wd_rx_drop(port, m, wd_dropped)) {
                continue;
            }
            pkts[kept++] = m;
            continue;
        }
        kind = pfc_frame_decode(rte_pktmbuf_mtod(m, const void *),
                                rte_pktmbuf_data_len(m), &frame);
        if (kind == PFC_RX_NOT_MAC_CONTROL) {
            pkts[kept++] = m;
        } else {
            if (!earliest) {
                atomic_read_relaxed(&port->rxq_polled[qid], &earliest);
                earliest = earliest ? earliest : 1;
            }
            pfc_rx_frame(port, kind, &frame, rte_get_tsc_cycles(),
                         earliest);
            rte_pktmbuf_free(m);
        }
    }
    if (start) {
        uint32_t ring;
        uint64_t stamp;

        atomic_read_relaxed(&port->rxq_desc, &ring);
        stamp = pfc_rxq_drain_poll(&port->rxq_drain[qid], start, cnt,
                                   cnt < PFC_RX_BURST, ring);
        if (stamp) {
            /* After the frames of this poll took effect. */
            atomic_store_explicit(&port->rxq_polled[qid], stamp,
                                  memory_order_release);
        }
    }
    return kept;
}

/* Returns the earliest poll stamp over the rx queues of 'port', with acquire
 * order: the pause timers read after it include every PFC frame that those
 * polls read. */
static uint64_t
pfc_rx_polled(struct pfc_port *port)
{
    uint64_t polled = UINT64_MAX;
    uint32_t n_rxq;

    atomic_read_relaxed(&port->n_rxq, &n_rxq);
    for (uint32_t i = 0; i < n_rxq; i++) {
        uint64_t p;

        atomic_read_explicit(&port->rxq_polled[i], &p, memory_order_acquire);
        polled = MIN(polled, p);
    }
    return polled;
}

/* Counts, once per pause, the pauses of the priorities of the traffic classes
 * 'tcs' of 'pfc', which end at TSC 'now', that end later than
 * port->late_bound after until[] (their expiry, or the read of their
 * XON). */
static void
pfc_note_late_ends(struct netdev_dpdk_pfc *pfc, uint8_t tcs,
                   const uint64_t until[PFC_N_PRIOS], uint64_t now)
{
    struct pfc_port *port = pfc->port;
    uint64_t bound;

    atomic_read_relaxed(&port->late_bound, &bound);
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint64_t counted, orig;

        if (!(tcs & (1u << pfc->cfg.prio_to_tc[n])) || !until[n]
            || now < until[n] || now - until[n] <= bound) {
            continue;
        }
        atomic_read_relaxed(&port->late_counted[n], &counted);
        if (counted < until[n]
            && atomic_compare_exchange_strong_relaxed(
                   &port->late_counted[n], &counted, until[n])) {
            atomic_add_relaxed(&port->late_ends[n], 1, &orig);
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
    uint8_t paused, blocked;

    atomic_read_explicit(&port->pause_gen, &gen, memory_order_acquire);
    if (OVS_LIKELY(gen == t->blocked_gen && now < t->blocked_until)) {
        return t->blocked;
    }
    /* The poll stamps first: the timers read next are at least as recent as
     * the frames those polls read. */
    polled = pfc_rx_polled(port);
    atomic_read_explicit(&port->pause_gen, &gen, memory_order_acquire);
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        atomic_read_relaxed(&port->until[n], &until[n]);
    }
    paused = pfc_paused_prios(until, pfc->cfg.enabled, now, polled,
                              port->poll_cap, &valid);
    /* A stormed priority whose pauses the watchdog ignores. */
    atomic_read_relaxed(&port->wd_ignored, &t->wd_ignored);
    atomic_read_relaxed(&port->wd_dropped, &t->wd_dropped);
    paused &= ~t->wd_ignored;
    blocked = pfc_tcs_blocked(pfc->cfg.prio_to_tc, paused);
    if (OVS_UNLIKELY(t->blocked & ~blocked)) {
        pfc_note_late_ends(pfc, t->blocked & ~blocked, until, now);
    }
#ifdef HAVE_USDT_PROBES
    if (blocked & ~t->blocked) {
        uint64_t read;

        /* First decision on this tx queue that honours a new pause, and the
         * TSC at which the frame that set it was read. */
        atomic_read_relaxed(&port->pause_read, &read);
        OVS_USDT_PROBE(netdev_dpdk_pfc, paused, (int) (port - pfc_ports),
                       (int) (t - pfc->txq), blocked & ~t->blocked, read,
                       now);
    }
    if (t->blocked & ~blocked & t->nonempty) {
        uint8_t tcs = t->blocked & ~blocked;
        uint64_t ended = 0;

        /* Held packets of 'tcs' may leave: their pauses ended at the
         * latest until[] of their priorities (expiry, or the read of an
         * XON). */
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            if (tcs & (1u << pfc->cfg.prio_to_tc[n])) {
                ended = MAX(ended, until[n]);
            }
        }
        OVS_USDT_PROBE(netdev_dpdk_pfc, unpause, (int) (port - pfc_ports),
                       (int) (t - pfc->txq), tcs, ended, now);
    }
#endif
    t->blocked = blocked;
    t->blocked_gen = gen;
    /* During a storm, the transmit path looks at every packet's priority
     * (pfc_send__()): no fast path. */
    t->blocked_until = t->wd_ignored ? MIN(valid, UINT64_MAX - 1) : valid;
    return blocked;
}

/* Returns true if pfc_tx_control() may have a PFC frame to send for 'pfc':
 * pfc_xoff_action() is not PFC_XOFF_NONE for an enabled priority, or an XON
 * is owed for one no longer enabled; or if an LLDPDU is due
 * (pfc_tx_lldp()).  Lock-free: the reads of the occupancy
 * and of the XOFF state are racy, which is fine: the XOFF state changes only
 * under port->lock, and a stale value only costs taking it, or a frame one
 * call later.  Reads the TSC into '*now', if it is 0, only while an XOFF is
 * in force (its refresh time). */
static inline bool
pfc_control_pending(const struct netdev_dpdk_pfc *pfc, uint64_t *now)
{
    struct pfc_port *port = pfc->port;
    uint8_t asserted = port->xoff.asserted;

    if (pfc_port_is_vhost(port)) {
        return false;           /* No PFC frames: backpressure instead. */
    }
    if (OVS_UNLIKELY(asserted & ~pfc->xparams.enabled)) {
        return true;
    }

    bool lldp_due;

    atomic_read_relaxed(&port->lldp_due, &lldp_due);
    if (OVS_UNLIKELY(lldp_due)) {
        return true;
    }

    uint64_t free = UINT64_MAX;

    for (uint32_t en = pfc->xparams.enabled; en; en &= en - 1) {
        int n = raw_ctz(en);
        bool in_force = asserted & (1u << n);
        struct pfc_buf_pg g;

        pfc_port_pg(port, n, &g);
        if (!in_force && !g.shared && !g.headroom
            && g.bytes < pfc->xparams.pg.xoff_bytes) {
            continue;           /* Nothing held: nothing due. */
        }
        if (in_force && !*now) {
            *now = rte_get_tsc_cycles();
        }
        if (free == UINT64_MAX) {
            free = pfc_pool_free();
        }
        if (pfc_buf_xoff_action(&pfc->xparams.pg, &g, free, in_force,
                                port->xoff.refresh_at[n], *now)
            != PFC_XOFF_NONE) {
            return true;
        }
    }
    return false;
}

/* Sends on tx queue 'qid', ahead of any data, the XOFF or XON that the
 * ingress buffer occupancy of the port of 'pfc' calls for at TSC 'now'.
 * The decision is taken under port->lock, so that one thread sends each
 * frame; the mbuf is allocated and sent outside it.  The caller holds the
 * lock of tx queue 'qid'. */
static void
pfc_tx_control(struct netdev_dpdk_pfc *pfc, int qid, struct rte_mempool *mp,
               uint64_t now)
{
    struct pfc_port *port = pfc->port;
    struct pfc_buf_pg pg[PFC_N_PRIOS];
    struct pfc_frame frame;
    struct rte_mbuf *m = NULL;
    struct eth_addr mac;
    bool due;

    uint64_t free;

    if (!pfc_control_pending(pfc, &now)) {
        return;
    }
    pfc_port_pgs(port, pg);
    free = pfc_pool_free();

    rte_spinlock_lock(&port->lock);
    due = pfc_xoff_run(&port->xoff, &pfc->xparams, pg, free, now, &frame);
    mac = port->mac;
    rte_spinlock_unlock(&port->lock);
    if (!due) {
        return;
    }

    m = mp ? rte_pktmbuf_alloc(mp) : NULL;
    if (m) {
        pfc_frame_encode(rte_pktmbuf_append(m, PFC_FRAME_LEN), &mac, &frame);
        if (rte_eth_tx_burst(port - pfc_ports, qid, &m, 1) != 1) {
            rte_pktmbuf_free(m);
            m = NULL;
        }
    }

    rte_spinlock_lock(&port->lock);
    if (m) {
        pfc_counters_count_tx(&port->counters, &frame);
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
    }
    rte_spinlock_unlock(&port->lock);
    if (m) {
#ifdef HAVE_USDT_PROBES
        uint64_t crossed = 0;
        uint32_t xoff = 0;

        /* For an XOFF: when the occupancy of its first priority that it
         * pauses last reached XOFF (pfc_occupy()). */
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            if (frame.enable & (1u << n) && frame.time[n] && !xoff) {
                xoff = frame.time[n];
                atomic_read_relaxed(&port->xoff_crossed[n], &crossed);
            }
        }
        OVS_USDT_PROBE(netdev_dpdk_pfc, tx_frame, (int) (port - pfc_ports),
                       qid, frame.enable, xoff, crossed,
                       rte_get_tsc_cycles());
#endif
    } else {
        VLOG_WARN_RL(&rl, "%s: could not send PFC frame, will retry",
                     port->name);
    }
}

/* Adds 'n', if nonzero, to a watchdog counter of a port, which any transmit
 * thread may write, only during a storm, once per batch. */
static void
pfc_count_storm(atomic_uint64_t *counter, uint64_t n)
{
    uint64_t orig;

    if (n) {
        atomic_add_relaxed(counter, n, &orig);
    }
}

/* During a storm whose action is "drop": frees the held packets at the head
 * of 'q', a traffic class queue of 't', whose priority the watchdog drops
 * (t->wd_dropped), and returns how many of the next 'n' packets at most may
 * leave in one burst: those before the next one it drops.  Counts the
 * freed packets as watchdog drops and in tx_dropped. */
static uint16_t
pfc_wd_drain_head(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
                  struct pfc_holdq *q, uint16_t n)
{
    uint64_t drops[PFC_N_PRIOS] = { 0 }, n_drops = 0;
    struct pfc_port *port = pfc->port;
    uint16_t k = 0;

    while (q->n && (t->wd_dropped >> pfc_holdq_peek(q, 0)->prio) & 1) {
        const struct pfc_held *h = pfc_holdq_peek(q, 0);

        pfc_unhold(t, h);
        drops[h->prio]++;
        n_drops++;
        rte_pktmbuf_free(h->pkt);
        pfc_holdq_pop(q, 1);
        t->n_held--;
    }
    if (n_drops) {
        for (int p = 0; p < PFC_N_PRIOS; p++) {
            pfc_count_storm(&port->wd_tx_dropped[p], drops[p]);
        }
        pfc_count_storm(&port->held_dropped, n_drops);
    }
    n = MIN(n, q->n);
    while (k < n && !((t->wd_dropped >> pfc_holdq_peek(q, k)->prio) & 1)) {
        k++;
    }
    return k;
}

/* Hands the held packets of 't' (tx queue 'qid' of 'pfc') whose classes are
 * not in 'blocked' to the NIC, oldest first.  What the tx ring refuses
 * stays held.  With userspace TSO they are prepared first
 * (rte_eth_tx_prepare()), as netdev-dpdk prepares what it sends.  A packet
 * that fails preparation is freed, logged and counted as a hold drop; the
 * packets behind it are still sent. */
static void
pfc_drain(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t, int qid,
          uint8_t blocked)
{
    uint16_t port_id = pfc->port - pfc_ports;
    bool prepare = (userspace_tso_enabled()
                    && !pfc_port_is_vhost(pfc->port));

    for (uint32_t tcs = t->nonempty & ~blocked; tcs; tcs &= tcs - 1) {
        int tc = raw_ctz(tcs);
        struct pfc_holdq *q = &t->q[tc];

        while (q->n) {
            struct rte_mbuf *burst[PFC_TX_BURST];
            uint16_t n = MIN(q->n, PFC_TX_BURST);
            uint16_t n_ok, sent;

            if (OVS_UNLIKELY(t->wd_ignored)) {
                n = pfc_wd_drain_head(pfc, t, q, n);
                if (!n) {
                    continue;
                }
            }
            for (uint16_t i = 0; i < n; i++) {
                burst[i] = pfc_holdq_peek(q, i)->pkt;
            }
            if (OVS_UNLIKELY(prepare)) {
                n_ok = rte_eth_tx_prepare(port_id, qid, burst, n);
            } else {
                n_ok = n;
            }
            sent = pfc_xmit(pfc->port, qid, burst, n_ok);
            if (OVS_UNLIKELY(pfc_port_is_vhost(pfc->port))) {
                pfc_vq_note(t, sent, n_ok);
            }
            for (uint16_t i = 0; i < sent; i++) {
                pfc_unhold(t, pfc_holdq_peek(q, i));
            }
            if (OVS_UNLIKELY(t->wd_ignored)) {
                uint64_t fwd[PFC_N_PRIOS] = { 0 };

                for (uint16_t i = 0; i < sent; i++) {
                    int prio = pfc_holdq_peek(q, i)->prio;

                    fwd[prio] += (t->wd_ignored >> prio) & 1;
                }
                for (int p = 0; p < PFC_N_PRIOS; p++) {
                    pfc_count_storm(&pfc->port->wd_tx_forwarded[p], fwd[p]);
                }
            }
            pfc_holdq_pop(q, sent);
            t->n_held -= sent;
            if (sent < n_ok) {
                return;
            }
            if (n_ok < n) {
                /* burst[n_ok], now at the head, fails preparation. */
                const struct pfc_held *h = pfc_holdq_peek(q, 0);
                uint64_t orig;

                VLOG_WARN_RL(&rl, "%s: PFC: held packet of priority %d "
                             "dropped: it fails tx preparation: %s",
                             pfc->port->name, h->prio,
                             rte_strerror(rte_errno));
                pfc_unhold(t, h);
                pfc_count(&t->hold_drops[h->prio], 1);
                rte_pktmbuf_free(h->pkt);
                pfc_holdq_pop(q, 1);
                t->n_held--;
                atomic_add_relaxed(&pfc->port->held_dropped, 1, &orig);
            }
        }
        t->nonempty &= ~(1u << tc);
    }
}

/* Frees the packets held in 't', a tx queue of 'pfc' whose vhost-user guest
 * is gone: nothing can take them.  Counts them as hold drops and in
 * tx_dropped.  The caller holds t->lock. */
static void
pfc_txq_free_held(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t)
{
    uint64_t n = 0, orig;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        struct pfc_holdq *q = &t->q[tc];

        while (q->n) {
            const struct pfc_held *h = pfc_holdq_peek(q, 0);

            pfc_unhold(t, h);
            pfc_count(&t->hold_drops[h->prio], 1);
            rte_pktmbuf_free(h->pkt);
            pfc_holdq_pop(q, 1);
            n++;
        }
    }
    t->n_held = 0;
    t->nonempty = 0;
    pfc_note_holding(pfc, t);
    atomic_add_relaxed(&pfc->port->held_dropped, n, &orig);
}

/* Locks tx queue 'qid' of 'pfc', or with 'try' only if that does not wait,
 * and returns 'pfc' with '*tp' set to that tx queue; or, if a
 * reconfiguration replaced 'pfc' (netdev_dpdk_pfc_succeed()), the object
 * that now holds its packets, with its tx queue locked.  Returns NULL, with
 * nothing locked, if 'try' and a lock is taken, or if PFC was removed from
 * the port: then the caller sends as on a port without QoS. */
static struct netdev_dpdk_pfc *
pfc_lock_live(struct netdev_dpdk_pfc *pfc, int qid, bool try,
              struct pfc_txq **tp)
{
    while (pfc && pfc->n_txq) {
        struct pfc_txq *t = &pfc->txq[qid % pfc->n_txq];
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

/* Sends the PFC frames due on 'pfc' at TSC 'now', then hands to the NIC the
 * held packets of its tx queue 't' whose class may send again.  Returns the
 * traffic classes blocked at 'now' (pfc_blocked()).  The caller holds
 * t->lock. */
static uint8_t
pfc_service(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
            struct rte_mempool *mp, uint64_t now)
{
    int qid = t - pfc->txq;
    uint8_t blocked;

    if (OVS_UNLIKELY(pfc_port_is_vhost(pfc->port))) {
        int vid;

        atomic_read_relaxed(&pfc->port->vid, &vid);
        if (vid < 0 && t->n_held) {
            pfc_txq_free_held(pfc, t);
        }
    } else {
        pfc_tx_lldp(pfc, qid, mp);
        if (pfc->xparams.enabled || pfc->port->xoff.asserted) {
            pfc_tx_control(pfc, qid, mp, now);
        }
    }
    blocked = pfc_blocked(pfc, t, now);
    if (t->n_held) {
        pfc_drain(pfc, t, qid, blocked);
        pfc_note_holding(pfc, t);
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

    atomic_read_explicit(&pfc->port->pause_gen, &gen, memory_order_acquire);
    return (gen == t->blocked_gen && *now < t->blocked_until
            && !(t->nonempty & ~t->blocked)
            && !pfc_port_is_vhost(pfc->port)
            && !pfc_control_pending(pfc, now));
}

/* What one watchdog check found, for pfc_wd_log() to report once no lock
 * is held. */
struct pfc_wd_events {
    uint8_t detected;                   /* Priorities that became stormed. */
    uint8_t restored;                   /* And operational again. */
    uint64_t since[PFC_N_PRIOS];        /* TSC: start of the detection. */
    uint64_t stormed_at[PFC_N_PRIOS];   /* TSC: detection of the storm. */
    uint64_t now, hz;                   /* TSC of the check, TSC cycles/s. */
    enum pfc_wd_action action;
    uint32_t restore_ms;
    bool guest;                         /* A vhost-user port. */
    char name[MEMBER_SIZEOF(struct pfc_port, name)];
};

/* Runs the PFC watchdog of the port of 'pfc' at TSC 'now' (pfc_wd_run()), at
 * most once per PFC_WD_CHECK_MS and only if port->lock is free, so that the
 * thread that flushes the port never waits here.  A priority counts as
 * paused while a pause timer that XOFF set runs, and as waiting while a tx
 * queue of 'pfc' holds packets of its traffic class.  Stores in '*ev' the
 * storms detected and restored, for the caller to log with pfc_wd_log()
 * once it has released its locks.  The caller holds the lock of one tx
 * queue of 'pfc', which keeps pfc->txq in place. */
static void
pfc_wd_check(struct netdev_dpdk_pfc *pfc, uint64_t now,
             struct pfc_wd_events *ev)
{
    struct pfc_port *port = pfc->port;
    uint8_t waiting = 0, paused;
    uint64_t next, hz;

    ev->detected = ev->restored = 0;
    atomic_read_relaxed(&port->wd_next_check, &next);
    if (now < next || !rte_spinlock_trylock(&port->lock)) {
        return;
    }
    if (port->conf != pfc) {
        rte_spinlock_unlock(&port->lock);
        return;
    }
    hz = port->tb.hz;
    atomic_store_relaxed(&port->wd_next_check,
                         now + hz / 1000 * PFC_WD_CHECK_MS);
    /* A priority waits while its traffic class holds packets, of any of
     * the class's priorities. */
    for (int i = 0; i < pfc->n_txq; i++) {
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            uint64_t held;

            atomic_read_relaxed(&pfc->txq[i].held_pkts[n], &held);
            waiting |= (held != 0) << pfc->cfg.prio_to_tc[n];
        }
    }
    waiting = pfc_tcs_prios(pfc->cfg.prio_to_tc, waiting);
    if (pfc_port_is_vhost(port)) {
        /* No PFC frames: a receive queue of the guest that refused
         * packets and took none since the last check stalls the lossless
         * priorities held on it, and those already stormed (whose
         * packets it refuses instead of holding them). */
        paused = 0;
        for (int i = 0; i < pfc->n_txq; i++) {
            struct pfc_txq *t = &pfc->txq[i];
            uint64_t refused, taken;
            uint8_t held = 0;

            atomic_read_relaxed(&t->vq_refused, &refused);
            atomic_read_relaxed(&t->vq_taken, &taken);
            if (!pfc_wd_vq_stalled(&t->wd_vq, refused, taken)) {
                continue;
            }
            for (int n = 0; n < PFC_N_PRIOS; n++) {
                uint64_t pkts;

                atomic_read_relaxed(&t->held_pkts[n], &pkts);
                held |= (pkts != 0) << n;
            }
            paused |= pfc->cfg.enabled & (held | port->wd.stormed);
        }
        pfc_wd_stall(&port->wd, paused, pfc->cfg.enabled, now);
    } else {
        paused = pfc_pause_status(&port->pause, now);
    }
    memcpy(ev->since, port->wd.since, sizeof ev->since);
    pfc_wd_run(&port->wd, &port->wd_params, paused, waiting, now,
               &ev->detected, &ev->restored);
    if (ev->detected | ev->restored) {
        pfc_wd_publish(port);
        memcpy(ev->stormed_at, port->wd.stormed_at, sizeof ev->stormed_at);
        ev->now = now;
        ev->hz = hz;
        ev->action = port->wd_params.action;
        ev->restore_ms = pfc->cfg.wd_restore_ms;
        ev->guest = pfc_port_is_vhost(port);
        ovs_strlcpy(ev->name, port->name, sizeof ev->name);
    }
    rte_spinlock_unlock(&port->lock);
}

/* Logs what pfc_wd_check() found in 'ev': one WARN per storm detected, one
 * INFO per storm restored.  Call it with no lock held. */
static void
pfc_wd_log(const struct pfc_wd_events *ev)
{
    for (uint8_t d = ev->detected; d; d &= d - 1) {
        int n = raw_ctz(d);

        VLOG_WARN("%s: PFC storm on priority %d: %s, with packets "
                  "waiting, for %"PRIu64" ms; watchdog action %s",
                  ev->name, n,
                  (ev->guest
                   ? "the guest read nothing from its full receive queue"
                   : "paused by the link partner"),
                  (ev->now - MIN(ev->since[n], ev->now)) * 1000 / ev->hz,
                  (ev->guest && ev->action == PFC_WD_FORWARD
                   ? "forward (drops on a vhost-user port)"
                   : pfc_wd_action_name(ev->action)));
    }
    for (uint8_t r = ev->restored; r; r &= r - 1) {
        int n = raw_ctz(r);
        uint64_t lasted = ev->now - MIN(ev->stormed_at[n], ev->now);

        VLOG_INFO("%s: PFC storm on priority %d over after %"PRIu64" ms "
                  "(%s for %"PRIu32" ms, or the watchdog is off for it); "
                  "watchdog action was %s: %s again", ev->name, n,
                  lasted * 1000 / ev->hz,
                  ev->guest ? "the guest not stalled" : "no XOFF for it",
                  ev->restore_ms, pfc_wd_action_name(ev->action),
                  ev->guest ? "its packets are held" : "pauses are honoured");
    }
}

/* Returns true if netdev_dpdk_pfc_tx_flush() has work on 'pfc': a tx queue
 * holds packets, or a PFC frame may be due.  Lock-free and cheap, for the
 * PMD loop (netdev 'tx_flush_pending'): a few loads.  Reads are racy: a stale
 * answer only defers the work by one iteration. */
bool
netdev_dpdk_pfc_tx_flush_pending(struct netdev_dpdk_pfc *pfc)
{
    uint64_t holding, now = 0;
    uint8_t stormed;

    if (!pfc->port) {
        return false;
    }
    atomic_read_relaxed(&pfc->holding, &holding);
    atomic_read_relaxed(&pfc->port->wd_stormed, &stormed);
    return holding || stormed || pfc_control_pending(pfc, &now);
}

/* netdev 'tx_flush' of a port with QoS 'pfc', called by a PMD thread once per
 * iteration after its rx polls while netdev_dpdk_pfc_tx_flush_pending() says
 * so, with the tx queue 'qid' it sends on: sends the PFC frames due and the
 * held packets of that tx queue whose class may send again (mbufs for PFC
 * frames from 'mp').  Then does the same for the tx queues that hold packets
 * and that their own thread has not serviced for PFC_ADOPT_MS.  Never waits
 * for a lock: a tx queue whose lock is taken is being serviced. */
void
netdev_dpdk_pfc_tx_flush(struct netdev_dpdk_pfc *pfc, int qid,
                         struct rte_mempool *mp)
{
    uint64_t now = rte_get_tsc_cycles();
    struct netdev_dpdk_pfc *live, *other;
    struct pfc_wd_events ev;
    uint64_t holding;
    struct pfc_txq *t;

    live = pfc_lock_live(pfc, qid, true, &t);
    if (!live) {
        return;
    }
    if (!pfc_txq_settled(live, t, &now)) {
        pfc_service(live, t, mp, now);
    } else {
        atomic_store_relaxed(&t->serviced, now);
    }
    pfc_wd_check(live, now, &ev);
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
        if (now <= serviced || now - serviced <= live->port->adopt) {
            continue;
        }
        other = pfc_lock_live(live, i, true, &t);
        if (other) {
            pfc_service(other, t, mp, now);
            rte_spinlock_unlock(&t->lock);
        }
    }
}

/* Holds 'm', of priority 'prio', at the tail of the traffic class queue of
 * 't' for its class, if the buffer admits it (pfc_buf_hold()): charged to
 * its ingress priority group, or as lossy.  '*free' caches the shared
 * pool's free cells for the batch (UINT64_MAX: not read yet).  Returns
 * false, without taking 'm', if admission drops it. */
static inline bool
pfc_hold(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t, struct rte_mbuf *m,
         int prio, uint64_t now, uint64_t *free)
{
    int tc = pfc->cfg.prio_to_tc[prio];
    struct pfc_holdq *q = &t->q[tc];
    enum pfc_buf_verdict v;
    struct pfc_held h;

    h.pkt = m;
    h.len = rte_pktmbuf_pkt_len(m);
    h.prio = prio;
    h.in_port = UINT16_MAX;
    h.lossy = true;
    if (m->port < PFC_N_PORTS) {
        bool active;

        atomic_read_relaxed(&pfc_ports[m->port].active, &active);
        if (active) {
            h.in_port = m->port;
        }
    }
    if (*free == UINT64_MAX) {
        *free = pfc_pool_free();
    }
    v = pfc_buf_hold(pfc, t, q, &h, *free);
    if (v != PFC_BUF_SHARED && v != PFC_BUF_HEADROOM) {
        return false;           /* The caller drops 'm'. */
    }
    ovs_assert(pfc_holdq_append(q, &h));
    t->nonempty |= 1u << tc;
#ifdef HAVE_USDT_PROBES
    if (v == PFC_BUF_HEADROOM && h.in_port != UINT16_MAX) {
        /* Reported by the probe "tx_frame" of the XOFF that follows, so
         * that no probe runs between the two. */
        atomic_store_relaxed(&pfc_ports[h.in_port].xoff_crossed[prio], now);
    }
#else
    (void) now;
#endif
    pfc_txq_count_held(t, &h, 1);
    if (!t->n_held++) {
        pfc_note_holding(pfc, t);
    }
    return true;
}

/* Hands the 'cnt' packets in 'pkts' to tx queue 'qid' of 'port_id', retrying
 * while the driver takes some, as netdev-dpdk does.  With userspace TSO, the
 * packets are prepared first and those after the first one the driver
 * rejects are freed: '*n_bad' counts them.  Returns how many the driver took;
 * the others, pkts[sent] up to the prepared count 'cnt - *n_bad', are left
 * to the caller. */
static int
pfc_tx_burst(struct pfc_port *port, int qid, struct rte_mbuf **pkts, int cnt,
             int *n_bad)
{
    uint16_t port_id = port - pfc_ports;
    int n = cnt;
    int sent = 0;

    *n_bad = 0;
    if (OVS_UNLIKELY(userspace_tso_enabled()) && cnt
        && !pfc_port_is_vhost(port)) {
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
        uint16_t k = pfc_xmit(port, qid, pkts + sent, n - sent);

        if (!k) {
            break;
        }
        sent += k;
    }
    return sent;
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
static void
pfc_send__(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
           struct rte_mempool *mp, struct rte_mbuf **pkts, int cnt,
           int *n_taken, int *n_dropped, int *n_refused)
{
    uint64_t drops[PFC_N_PRIOS] = { 0 };
    uint64_t wd_drops[PFC_N_PRIOS] = { 0 }, wd_fwd[PFC_N_PRIOS] = { 0 };
    struct rte_mbuf *to_free[PFC_TX_BURST];
    int kept = 0, held = 0, dropped = 0, refused = 0;
    int sent, n_bad, n_tx_full = 0;
    int qid = t - pfc->txq;
    bool vhost = pfc_port_is_vhost(pfc->port);
    uint8_t lossy_refused;
    unsigned int n_free = 0;
    uint64_t free = UINT64_MAX;
    uint64_t now, gen;
    uint8_t blocked;

    /* Fast path: no pause in force or pending on any priority (the cached
     * answer of pfc_blocked() says so for as long as no PFC frame is read),
     * nothing held and no PFC frame due: send as is, without reading the
     * TSC (but pfc_control_pending() does while an XOFF is in force). */
    atomic_read_explicit(&pfc->port->pause_gen, &gen, memory_order_acquire);
    now = 0;
    if (OVS_LIKELY(!t->n_held && gen == t->blocked_gen
                   && t->blocked_until == UINT64_MAX
                   && !pfc_control_pending(pfc, &now))) {
        now = 0;
        blocked = 0;
    } else {
        now = rte_get_tsc_cycles();
        blocked = (pfc_txq_settled(pfc, t, &now) ? t->blocked
                   : pfc_service(pfc, t, mp, now));
    }

    if (OVS_LIKELY(!blocked && !t->n_held && !t->wd_ignored)) {
        kept = cnt;
    } else {
        /* The priorities whose class is paused or already holds packets:
         * theirs are held, behind those. */
        uint8_t hold_prios = pfc_tcs_prios(pfc->cfg.prio_to_tc,
                                           blocked | t->nonempty);
        uint8_t wd_ignored = t->wd_ignored, wd_dropped = t->wd_dropped;
        int def = pfc->cfg.default_priority;

        for (int i = 0; i < cnt; i++) {
            struct rte_mbuf *m = pkts[i];
            int prio = pfc_packet_priority(rte_pktmbuf_mtod(m, const void *),
                                           rte_pktmbuf_data_len(m), def);

            if (OVS_UNLIKELY((wd_ignored >> prio) & 1)) {
                if (vhost) {
                    /* A stormed guest: offered, never held.  Counted as
                     * forwarded, unless it refuses it: then dropped,
                     * below. */
                    wd_fwd[prio]++;
                    pkts[kept++] = m;
                    continue;
                }
                /* A stormed priority: dropped, or sent as if not paused
                 * (counted as forwarded when it leaves). */
                if ((wd_dropped >> prio) & 1) {
                    wd_drops[prio]++;
                    rte_pktmbuf_free(m);
                    dropped++;
                    continue;
                }
            }
            if (!((hold_prios >> prio) & 1)) {
                /* Forwarded, unless the tx ring refuses it below. */
                if (OVS_UNLIKELY(wd_ignored)) {
                    wd_fwd[prio] += (wd_ignored >> prio) & 1;
                }
                pkts[kept++] = m;
            } else if (pfc_hold(pfc, t, m, prio, now, &free)) {
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

    sent = pfc_tx_burst(pfc->port, qid, pkts, kept, &n_bad);
    dropped += n_bad;
    if (OVS_UNLIKELY(vhost) && kept > n_bad) {
        pfc_vq_note(t, sent, kept - n_bad);
    }

    /* The tx ring is full: hold the rest, in order, behind nothing (their
     * classes had no packets held, or they would have been held above).  On
     * a vhost port, only the lossless priorities. */
    if (sent < kept - n_bad && !now) {
        now = rte_get_tsc_cycles();
    }
    lossy_refused = vhost ? (uint8_t) ~pfc->cfg.enabled : 0;
    for (int i = sent; i < kept - n_bad; i++) {
        struct rte_mbuf *m = pkts[i];
        int prio = pfc_packet_priority(rte_pktmbuf_mtod(m, const void *),
                                       rte_pktmbuf_data_len(m),
                                       pfc->cfg.default_priority);

        if (OVS_UNLIKELY(vhost && (t->wd_ignored >> prio) & 1)) {
            /* A stormed guest refuses it: dropped, not held. */
            rte_pktmbuf_free(m);
            wd_fwd[prio]--;
            wd_drops[prio]++;
            dropped++;
        } else if (OVS_UNLIKELY(lossy_refused >> prio & 1)) {
            /* A vhost port: a lossy priority that the guest's virtqueue
             * refuses is dropped, as without PFC (retried first, by
             * pfc_tx_burst(), while the guest takes some). */
            rte_pktmbuf_free(m);
            dropped++;
            refused++;
        } else {
            /* Counted as forwarded above, but not sent now: if it is held,
             * pfc_drain() counts it when it leaves. */
            wd_fwd[prio] -= (t->wd_ignored >> prio) & 1;
            if (pfc_hold(pfc, t, m, prio, now, &free)) {
                held++;
                n_tx_full++;
            } else {
                rte_pktmbuf_free(m);
                drops[prio]++;
                dropped++;
            }
        }
    }
    if (OVS_UNLIKELY(t->wd_ignored)) {
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            pfc_count_storm(&pfc->port->wd_tx_dropped[n], wd_drops[n]);
            pfc_count_storm(&pfc->port->wd_tx_forwarded[n], wd_fwd[n]);
        }
    }
    if (now) {
        atomic_store_relaxed(&t->serviced, now);
    }

    if (dropped) {
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            if (drops[n]) {
                pfc_count(&t->hold_drops[n], drops[n]);
            }
        }
    }
    if (n_tx_full) {
        pfc_count(&t->tx_full_held, n_tx_full);
    }
    *n_taken = sent + held;
    *n_dropped = dropped;
    *n_refused = refused;
}

/* pfc_send__() on tx queue 'qid' of the live object that 'pfc' is or was
 * replaced by, under that tx queue's lock.  Returns 'cnt' if PFC no longer
 * applies to the port (nothing was done), else 0. */
static int
pfc_send_locked(struct netdev_dpdk_pfc *pfc, int qid, struct rte_mempool *mp,
                struct rte_mbuf **pkts, int cnt, int *n_taken,
                int *n_dropped, int *n_refused)
{
    struct pfc_txq *t;

    *n_taken = *n_dropped = *n_refused = 0;
    pfc = pfc_lock_live(pfc, qid, false, &t);
    if (!pfc) {
        return cnt;
    }
    if (!pfc->port) {
        rte_spinlock_unlock(&t->lock);
        return cnt;
    }
    pfc_send__(pfc, t, mp, pkts, cnt, n_taken, n_dropped, n_refused);
    rte_spinlock_unlock(&t->lock);
    return 0;
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

    left = pfc_send_locked(pfc, qid, mp, pkts, cnt, n_taken, &dropped,
                           &refused);
    *qos_drops += dropped;
    return left;
}

/* Notes 'vid', the vhost device id that a caller names, in the port of
 * 'pfc', if it changed: a shared write only when the guest changes. */
static void
pfc_vhost_note_vid(struct netdev_dpdk_pfc *pfc, int vid)
{
    struct pfc_port *port = pfc->port;
    int old;

    if (port) {
        atomic_read_relaxed(&port->vid, &old);
        if (old != vid) {
            atomic_store_relaxed(&port->vid, vid);
        }
    }
}

/* netdev_dpdk_pfc_send() for a vhost-user port whose guest is 'vid' (or -1
 * if it is not there), on the guest's queue pair 'qid': a packet of a
 * lossless priority (pfc-enable) that the guest's receive virtqueue
 * refuses is held in order instead of dropped, counted in the ingress
 * buffer occupancy of its ingress port and priority, and handed to the
 * guest as it frees descriptors (netdev_dpdk_pfc_tx_flush_vhost()).  A
 * lossy priority is retried while the guest takes some, then dropped and
 * added to '*failure_drops', as without PFC; a packet freed because its
 * traffic class queue is full is added to '*qos_drops'.  Every mbuf of
 * 'pkts' is sent (and so freed), held or freed, unless the return value, as
 * for netdev_dpdk_pfc_send(), is 'cnt': then the caller sends them as
 * without QoS.  The caller holds netdev-dpdk's lock of the queue. */
int
netdev_dpdk_pfc_send_vhost(struct netdev_dpdk_pfc *pfc, int qid, int vid,
                           struct rte_mbuf **pkts, int cnt, int *n_taken,
                           uint64_t *qos_drops, uint64_t *failure_drops)
{
    int dropped, refused;
    int left;

    pfc_vhost_note_vid(pfc, vid);
    left = pfc_send_locked(pfc, qid, NULL, pkts, cnt, n_taken, &dropped,
                           &refused);
    *qos_drops += dropped - refused;
    *failure_drops += refused;
    return left;
}

/* netdev_dpdk_pfc_tx_flush() for a vhost-user port whose guest is 'vid' (or
 * -1: what it holds is freed and counted), on the guest's queue pair
 * 'qid'. */
void
netdev_dpdk_pfc_tx_flush_vhost(struct netdev_dpdk_pfc *pfc, int qid, int vid)
{
    pfc_vhost_note_vid(pfc, vid);
    netdev_dpdk_pfc_tx_flush(pfc, qid, NULL);
}

/* For the PMD thread about to dequeue what the guest of vhost-user port
 * 'pfc' sent: returns true if it must not, because the ingress buffer
 * occupancy of a priority in its pfc-enable is over XOFF and has not yet
 * fallen to XON (lib/pfc.h, pfc_backpressure_next()).  Reads the occupancy
 * of the enabled priorities, lock-free; takes port->lock only when the
 * decision changes, to count it. */
bool
netdev_dpdk_pfc_vhost_rx_stopped(struct netdev_dpdk_pfc *pfc)
{
    struct pfc_buf_pg pg[PFC_N_PRIOS];
    struct pfc_port *port = pfc->port;
    uint8_t old, next;

    if (!port) {
        return false;
    }
    atomic_read_relaxed(&port->bp_stopped, &old);
    memset(pg, 0, sizeof pg);
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if ((pfc->xparams.enabled | old) >> n & 1) {
            pfc_port_pg(port, n, &pg[n]);
        }
    }
    next = pfc_backpressure_next(&pfc->xparams, old, pg, pfc_pool_free());
    if (OVS_UNLIKELY(next != old)) {
        uint64_t now = rte_get_tsc_cycles();

        rte_spinlock_lock(&port->lock);
        atomic_read_relaxed(&port->bp_stopped, &old);
        if (next && !old) {
            port->bp_stops++;
            port->bp_since = now;
        } else if (!next && old) {
            port->bp_cycles += now - port->bp_since;
        }
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            port->bp_stops_prio[n] += (next & ~old) >> n & 1;
        }
        atomic_store_relaxed(&port->bp_stopped, next);
        rte_spinlock_unlock(&port->lock);
    }
    return next != 0;
}

/* Marks the 'cnt' packets in 'pkts', just dequeued from the guest of
 * vhost-user port 'pfc', as received on that port, so that while they are
 * held at an egress they count in its ingress buffer occupancy. */
void
netdev_dpdk_pfc_vhost_rx(struct netdev_dpdk_pfc *pfc, struct rte_mbuf **pkts,
                         int cnt)
{
    if (pfc->port) {
        uint16_t in = pfc->port - pfc_ports;

        for (int i = 0; i < cnt; i++) {
            pkts[i]->port = in;
        }
    }
}

/* Moves the packets held by 'old' into 'new', which replaces it as the QoS
 * object of the same port and which no thread uses yet, and retires 'old':
 * transmit threads that still use it go on with 'new' (pfc_lock_live()).
 * Each tx queue's packets go to the same tx queue of 'new'; each priority's
 * held packets stay in order, ahead of anything 'new' holds later, in the
 * class queue that 'new' maps the priority to, even past 'new''s
 * queue-size, so that no held packet is lost to a reconfiguration.  The
 * port's pause timers, XOFF state and ingress buffer occupancy are per port
 * and carry over; an XOFF in force for a priority that 'new' does not enable
 * is ended with an XON at the next transmit opportunity (pfc_xoff_run()).
 * Called by the main thread before it publishes 'new'. */
void
netdev_dpdk_pfc_succeed(struct netdev_dpdk_pfc *old,
                        struct netdev_dpdk_pfc *new)
{
    const uint8_t *map;

    if (new->keep_map) {
        /* Set again by DCBX: the priority map of the Queue rows stays. */
        memcpy(new->cfg.tc_prios, old->cfg.tc_prios,
               sizeof new->cfg.tc_prios);
        memcpy(new->cfg.prio_to_tc, old->cfg.prio_to_tc,
               sizeof new->cfg.prio_to_tc);
    }
    map = new->cfg.prio_to_tc;
    int nn = MAX(new->n_txq, 1);

    if (!new->n_txq) {
        pfc_txqs_resize(new, MAX(old->n_txq, 1));
        nn = new->n_txq;
    }
    for (;;) {
        bool fits = true;

        /* Make room first, without a lock: allocation is not allowed under
         * a lock that a PMD thread needs.  Packets may be held meanwhile;
         * then check again, with margin. */
        for (int i = 0; i < old->n_txq; i++) {
            struct pfc_txq *to = &new->txq[i % nn];
            uint32_t need[PFC_N_PRIOS] = { 0 };

            pfc_txq_need(&old->txq[i], map, need);
            for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
                pfc_holdq_reserve(&to->q[tc], to->q[tc].n + need[tc]
                                  + 2 * PFC_TX_BURST);
            }
        }
        pfc_txqs_lock(old);
        for (int i = 0; fits && i < old->n_txq; i++) {
            fits = pfc_txq_fits(&old->txq[i], &new->txq[i % nn], map);
        }
        if (fits) {
            break;
        }
        pfc_txqs_unlock(old);
    }

    for (int i = 0; i < old->n_txq; i++) {
        pfc_txq_move(&old->txq[i], &new->txq[i % nn], map);
        pfc_note_holding(old, &old->txq[i]);
    }
    for (int i = 0; i < nn; i++) {
        pfc_note_holding(new, &new->txq[i]);
    }
    old->retired = true;
    old->next = new;
    pfc_txqs_unlock(old);
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

    if (pfc->port) {
        /* DCBX stops with PFC: nothing must set the QoS again. */
        pfc_dcbx_stop(pfc->port);
    }
    pfc_txqs_lock(pfc);
    pfc->retiring = true;
    pfc->xparams.enabled = 0;
    owes = pfc->port && pfc->port->xoff.asserted;
    for (int i = 0; i < pfc->n_txq; i++) {
        owes = owes || pfc->txq[i].n_held;
    }
    if (!owes) {
        pfc->retired = true;
        pfc->next = NULL;
    }
    pfc_txqs_unlock(pfc);
    return owes;
}

/* Hands 'cnt' packets to tx queue 'qid' of 'port_id', retrying for up to
 * about 1 ms while the ring is full.  Returns how many the driver took. */
static int
pfc_tx_burst_blocking(struct pfc_port *port, int qid, struct rte_mbuf **pkts,
                      int cnt)
{
    int sent = 0;

    for (int tries = 0; sent < cnt && tries < 1000; tries++) {
        uint16_t k = pfc_xmit(port, qid, pkts + sent, cnt - sent);

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
 * 'send_held', the packets each tx queue holds, on that tx queue, oldest
 * first, whether paused or not.  What is not sent (no 'mp', 'send_held'
 * false, or everything from the first packet that a full ring refused for
 * 1 ms on) is freed and counted as hold drops and in tx_dropped.  Retires
 * 'pfc'.  Returns the number of held packets freed.  Calls the driver with
 * the tx queue locks of 'pfc' held, which no PMD thread takes while the port
 * is off the PMD threads, but never with port->lock held. */
uint64_t
netdev_dpdk_pfc_flush(struct netdev_dpdk_pfc *pfc, struct rte_mempool *mp,
                      bool send_held)
{
    struct pfc_port *port = pfc->port;
    uint64_t freed = 0, sent_held = 0;
    bool closing = !send_held;

    pfc_txqs_lock(pfc);
    if (!port) {
        goto out;
    }

    /* The XON for every XOFF in force: decided under port->lock, sent
     * outside it. */
    struct pfc_xoff_params none = pfc->xparams;
    struct pfc_buf_pg zero[PFC_N_PRIOS];
    struct rte_mbuf *m = NULL;
    struct pfc_frame frame;
    bool due;

    none.enabled = 0;
    memset(zero, 0, sizeof zero);
    rte_spinlock_lock(&port->lock);
    due = pfc_xoff_run(&port->xoff, &none, zero, 0, 0, &frame);
    rte_spinlock_unlock(&port->lock);
    m = due && mp ? rte_pktmbuf_alloc(mp) : NULL;
    if (m) {
        pfc_frame_encode(rte_pktmbuf_append(m, PFC_FRAME_LEN), &port->mac,
                         &frame);
    }
    if (m && pfc_tx_burst_blocking(port, 0, &m, 1) == 1) {
        rte_spinlock_lock(&port->lock);
        pfc_counters_count_tx(&port->counters, &frame);
        rte_spinlock_unlock(&port->lock);
    } else if (m) {
        rte_pktmbuf_free(m);
    }

    for (int i = 0; i < pfc->n_txq; i++) {
        struct pfc_txq *t = &pfc->txq[i];

        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            struct pfc_holdq *q = &t->q[tc];

            while (q->n) {
                const struct pfc_held *h = pfc_holdq_peek(q, 0);
                struct rte_mbuf *pkt = h->pkt;

                pfc_unhold(t, h);
                if (send_held && (mp || pfc_port_is_vhost(port))
                    && pfc_tx_burst_blocking(port, i, &pkt, 1)) {
                    sent_held++;
                } else {
                    /* A ring that did not drain in 1 ms will not: free the
                     * rest rather than keep the main thread waiting. */
                    send_held = false;
                    pfc_count(&t->hold_drops[h->prio], 1);
                    rte_pktmbuf_free(pkt);
                    freed++;
                }
                pfc_holdq_pop(q, 1);
            }
        }
        t->n_held = 0;
        t->nonempty = 0;
        pfc_note_holding(pfc, t);
    }
    if (freed) {
        uint64_t orig;

        atomic_add_relaxed(&port->held_dropped, freed, &orig);
    }
    if (closing && pfc_port_is_vhost(port)) {
        /* The slot may serve another vhost-user port from now on. */
        atomic_store_relaxed(&port->vid, -1);
        atomic_store_relaxed(&port->bp_stopped, 0);
        rte_spinlock_lock(&port->lock);
        port->dead = true;
        rte_spinlock_unlock(&port->lock);
    }

out:
    pfc->retired = true;
    pfc->next = NULL;
    pfc_txqs_unlock(pfc);
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

/* Returns the held packets of the vhost-user port named 'name' freed outside
 * a transmit call (watchdog drops of held packets, a guest gone, a
 * reconfiguration), for its tx_dropped statistic; 0 if it never had QoS
 * type pfc.  Main thread, which alone names the slots. */
uint64_t
netdev_dpdk_pfc_vhost_tx_dropped(const char *name)
{
    for (int i = RTE_MAX_ETHPORTS; i < PFC_N_PORTS; i++) {
        struct pfc_port *port = &pfc_ports[i];

        if (port->name[0] && !strcmp(port->name, name)) {
            uint64_t n;

            atomic_read_relaxed(&port->held_dropped, &n);
            return n;
        }
    }
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
        rte_spinlock_unlock(&port->lock);
    }
}

/* How often the main thread looks at the DCBX state of the ports, ms: the
 * delay before a partner's new vector is applied, and the precision of the
 * LLDPDU transmit timer and of the partner's Time To Live. */
#define PFC_DCBX_RUN_MS 100

/* Applies the operational vector that DCBX decided on the port named
 * 'name': sets its QoS again with the same configuration, which
 * netdev_dpdk_pfc_qos_is_equal() no longer finds equal, so that a new QoS
 * object with the vector in force replaces the old one, keeping its held
 * packets (netdev_dpdk_pfc_succeed()).  Main thread, no lock held. */
static void
pfc_dcbx_apply(const char *name)
{
    struct netdev *netdev = netdev_from_name(name);
    struct smap details = SMAP_INITIALIZER(&details);
    const char *type;

    if (!netdev) {
        return;
    }
    if (!netdev_get_qos(netdev, &type, &details) && !strcmp(type, "pfc")) {
        /* The new object keeps the Queue rows' priority map, which
         * 'details' do not carry (netdev_dpdk_pfc_succeed()). */
        pfc_dcbx_applying = true;
        netdev_set_qos(netdev, type, &details);
        pfc_dcbx_applying = false;
    }
    smap_destroy(&details);
    netdev_close(netdev);
}

/* netdev 'run' of the DPDK ethernet class, main thread: for every port with
 * DCBX on, ages the partner, prepares the LLDPDU when it is due (a PMD
 * thread that flushes the port sends it, pfc_tx_lldp()), and applies a new
 * operational vector. */
void
netdev_dpdk_pfc_run(const struct netdev_class *netdev_class OVS_UNUSED)
{
    static long long int next_run;
    long long int now_ms = time_msec();
    uint64_t now;

    if (now_ms < next_run) {
        return;
    }
    next_run = now_ms + PFC_DCBX_RUN_MS;
    now = rte_get_tsc_cycles();
    for (int id = 0; id < RTE_MAX_ETHPORTS; id++) {
        struct pfc_port *port = &pfc_ports[id];
        char name[sizeof port->name];
        bool active, on, apply;
        uint8_t old, oper;

        atomic_read_relaxed(&port->active, &active);
        atomic_read_relaxed(&port->dcbx_on, &on);
        if (!active || !on) {
            continue;
        }
        rte_spinlock_lock(&port->lock);
        old = port->dcbx.oper;
        port->dcbx_changed |= pfc_dcbx_run(&port->dcbx, &port->dcbx_params,
                                           port->mac, now);
        oper = port->dcbx.oper;
        if (pfc_dcbx_tx_due(&port->dcbx, now)) {
            pfc_lldp_prepare(port, pfc_dcbx_ttl(&port->dcbx_params));
            pfc_dcbx_tx_done(&port->dcbx, &port->dcbx_params, now,
                             port->tb.hz);
        }
        apply = port->dcbx_changed;
        port->dcbx_changed = false;
        ovs_strlcpy(name, port->name, sizeof name);
        rte_spinlock_unlock(&port->lock);

        if (old != oper) {
            VLOG_INFO("%s: DCBX: the partner's Time To Live ran out: "
                      "operational PFC enable vector 0x%02"PRIx8" -> 0x%02"
                      PRIx8" (pfc-enable)", name, old, oper);
        }
        if (apply) {
            pfc_dcbx_apply(name);
        }
    }
}

/* netdev 'wait' of the DPDK ethernet class: wakes the main thread for
 * netdev_dpdk_pfc_run() while a port has DCBX on. */
void
netdev_dpdk_pfc_wait(const struct netdev_class *netdev_class OVS_UNUSED)
{
    for (int id = 0; id < RTE_MAX_ETHPORTS; id++) {
        bool active, on;

        atomic_read_relaxed(&pfc_ports[id].active, &active);
        atomic_read_relaxed(&pfc_ports[id].dcbx_on, &on);
        if (active && on) {
            poll_timer_wait(PFC_DCBX_RUN_MS);
            return;
        }
    }
}
