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

/* vhost-user ports of the DPDK glue of PFC (the opening comment of
 * lib/netdev-dpdk-pfc.c describes the threads and locks): their slots in
 * pfc_ports[]; their transmit calls, which note the guest's device id and
 * go through the traffic class queues of lib/netdev-dpdk-pfc-tx.c; and the
 * backpressure that stops dequeuing from a guest instead of an XOFF. */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "pfc.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc_vhost);

/* Returns the state of the vhost-user port named 'name': the slot it had,
 * or a free one, or NULL if all PFC_MAX_VHOST are taken.  A slot is free
 * when no QoS object uses it and no packet from its port is still held
 * anywhere.  Main thread only. */
struct pfc_port *
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

            atomic_read_relaxed(&port->buf.pg_cells[n], &cells);
            usable = !cells;
        }
        if (usable && !free_port) {
            free_port = port;
        }
    }
    if (free_port) {
        /* Another port's slot: its watermarks are not this one's. */
        pfc_port_wm_reset(free_port);
    }
    return free_port;
}

/* Notes for pfc/show whether the caller named a guest ('vid' >= 0), in the
 * port of 'pfc', if that changed: a shared write only when the guest comes
 * or goes.  Nothing reads it to send: each call passes its own 'vid'. */
static void
pfc_vhost_note_guest(struct netdev_dpdk_pfc *pfc, int vid)
{
    struct pfc_port *port = pfc->port;
    bool old;

    if (port) {
        atomic_read_relaxed(&port->vhost.guest, &old);
        if (old != (vid >= 0)) {
            atomic_store_relaxed(&port->vhost.guest, vid >= 0);
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

    pfc_vhost_note_guest(pfc, vid);
    left = pfc_send_locked(pfc, qid, NULL, vid, pkts, cnt, n_taken, &dropped,
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
    pfc_vhost_note_guest(pfc, vid);
    pfc_tx_flush(pfc, qid, NULL, vid);
}

/* Returns the QoS object that now holds the packets of 'pfc' (itself, or
 * the one that replaced it), or NULL if PFC no longer applies. */
static struct netdev_dpdk_pfc *
pfc_vhost_live(struct netdev_dpdk_pfc *pfc)
{
    while (pfc && pfc->retired && pfc->next) {
        pfc = pfc->next;
    }
    return pfc && pfc->port && !pfc->retired ? pfc : NULL;
}

/* Sets or clears 'requeue' on every tx queue of 'pfc' (pfc_blocked()), each
 * under its lock. */
static void
pfc_vhost_txqs_requeue(struct netdev_dpdk_pfc *pfc, bool requeue)
{
    for (int i = 0; i < pfc->n_txq; i++) {
        struct pfc_txq *t = &pfc->txq[i];

        rte_spinlock_lock(&t->lock);
        t->requeue = requeue;
        t->blocked_until = 0;
        rte_spinlock_unlock(&t->lock);
    }
}

/* For netdev-dpdk, before it maps the transmit queues of vhost-user port
 * 'pfc' (NULL: without QoS pfc, nothing to do) again because the guest
 * enabled or disabled a queue pair: every tx queue of the port holds every
 * packet and sends none held until netdev_dpdk_pfc_vhost_txq_state() has
 * moved what the disabled pair held.  Otherwise a packet that a PMD thread
 * sends by the new mapping could leave ahead of an older one of its flow,
 * still held for the disabled pair.  PFC frames are not held: a guest's
 * port sends none.  With netdev-dpdk's mutex of the port. */
void
netdev_dpdk_pfc_vhost_txq_hold(struct netdev_dpdk_pfc *pfc)
{
    pfc = pfc_vhost_live(pfc);
    if (pfc) {
        pfc_vhost_txqs_requeue(pfc, true);
    }
}

/* For netdev-dpdk, after the guest of vhost-user port 'pfc' enabled or
 * disabled the receive virtqueue of its queue pair 'qid' and the port's
 * transmit queues were mapped again (after
 * netdev_dpdk_pfc_vhost_txq_hold()): 'to' is the queue pair that now
 * serves transmit queue 'qid', that is 'qid' itself if the guest enabled
 * it, another if the guest disabled it, or -1 if the guest receives on
 * none.
 *
 * When 'qid' is disabled, the packets held for it move ahead of those held
 * for 'to', in order (pfc_requeue_vq()): the flows that moved from 'qid'
 * to 'to' keep their order, and none is dropped.  Without 'to', they are
 * freed and counted as hold drops and in tx_dropped, and so is what a
 * transmit thread that read the old mapping holds there afterwards
 * (pfc_service()).  Then every tx queue sends again.  With netdev-dpdk's
 * mutex of the port: nothing retires 'pfc', nor changes its class queues,
 * meanwhile.  Under the two tx queues' locks, only queue headers move. */
void
netdev_dpdk_pfc_vhost_txq_state(struct netdev_dpdk_pfc *pfc, int qid, int to)
{
    size_t freed;

    pfc = pfc_vhost_live(pfc);
    if (!pfc) {
        return;
    }
    if (qid >= 0 && qid < pfc->n_txq) {
        struct pfc_txq *dst = (to >= 0 && to != qid && to < pfc->n_txq
                               ? &pfc->txq[to] : NULL);

        pfc_requeue_vq(pfc, &pfc->txq[qid], dst, to != qid, &freed);
    }
    pfc_vhost_txqs_requeue(pfc, false);
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
    const struct pfc_xoff_params *xp = &pfc_bound(pfc)->xparams;

    atomic_read_relaxed(&port->vhost.bp_stopped, &old);
    memset(pg, 0, sizeof pg);
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if ((xp->enabled | old) >> n & 1) {
            pfc_port_pg(port, n, &pg[n]);
        }
    }
    next = pfc_backpressure_next(xp, old, pg, pfc_pool_free());
    if (OVS_UNLIKELY(next != old)) {
        uint64_t now = rte_get_tsc_cycles();

        rte_spinlock_lock(&port->lock);
        atomic_read_relaxed(&port->vhost.bp_stopped, &old);
        if (next && !old) {
            port->vhost.bp_stops++;
            port->vhost.bp_since = now;
        } else if (!next && old) {
            port->vhost.bp_cycles += now - port->vhost.bp_since;
        }
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            port->vhost.bp_stops_prio[n] += (next & ~old) >> n & 1;
        }
        atomic_store_relaxed(&port->vhost.bp_stopped, next);
        rte_spinlock_unlock(&port->lock);
    }
    return next != 0;
}

/* Classifies the 'cnt' packets in 'pkts', just dequeued from the guest of a
 * vhost-user port whose QoS object is 'pfc' (NULL if the port has no QoS
 * pfc): by the port's trust mode, or, without QoS pfc, as priority 0 (a
 * guest's markings buy it nothing unless its port trusts them).  With QoS
 * pfc, also marks them as received on that port, so that while they are
 * held at an egress they count in its ingress buffer occupancy. */
void
netdev_dpdk_pfc_vhost_rx(struct netdev_dpdk_pfc *pfc, struct rte_mbuf **pkts,
                         int cnt)
{
    pfc_rx_classify_guest(pfc ? &pfc->cls : NULL, pkts, cnt);
    if (pfc && pfc->port) {
        uint16_t in = pfc->port - pfc_ports;

        for (int i = 0; i < cnt; i++) {
            pkts[i]->port = in;
        }
    }
}
