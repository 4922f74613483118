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

/* The retirement of the QoS objects of PFC on DPDK ports (the opening
 * comment of lib/netdev-dpdk-pfc.c describes the threads and locks): a new
 * object that succeeds an old one takes over what it holds; an object being
 * removed hands its held packets to the NIC, and its XON, for at most
 * PFC_RETIRE_MS; a port whose link goes down or that is destroyed drops
 * what it holds.  And the class's 'run' and 'wait' on the main thread,
 * which drive the retirement, DCBX and the ETS log. */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc_retire);

/* PFC being removed from a port hands its held packets to the NIC, and its
 * XON, for at most this many ms (netdev_dpdk_pfc_retire_run()); what is
 * still held then is freed and counted. */
#define PFC_RETIRE_MS 1000

/* QoS objects being removed that still owe an XON or hold packets
 * (netdev_dpdk_pfc_retiring()); netdev_dpdk_pfc_destroy() takes off those
 * it frees. */
atomic_uint pfc_n_retiring = ATOMIC_VAR_INIT(0);

/* Moves the packets held by 'old' into 'new', which replaces it as the QoS
 * object of the same port and which no thread uses yet, and retires 'old':
 * transmit threads that still use it go on with 'new' (pfc_lock_live()).
 * Each tx queue's packets go to the same tx queue of 'new', with no work
 * that grows with them under a lock (pfc_requeue_into()); each priority's
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
    if (new->keep_map) {
        /* Set again by DCBX: the priority map of the Queue rows stays. */
        memcpy(new->cfg.tc_prios, old->cfg.tc_prios,
               sizeof new->cfg.tc_prios);
        memcpy(new->cfg.prio_to_tc, old->cfg.prio_to_tc,
               sizeof new->cfg.prio_to_tc);
    }
    /* The ETS keys of the Queue rows, and the ETS in force, carry over
     * until the bridge sets the Queue rows of 'new'. */
    new->cfg.tsa_ets = old->cfg.tsa_ets;
    new->cfg.queues = old->cfg.queues;
    memcpy(new->cfg.tc_bw, old->cfg.tc_bw, sizeof new->cfg.tc_bw);
    new->ets_admin = old->ets_admin;
    /* The partner's recommendation only while DCBX stays on. */
    new->ets = new->cfg.dcbx ? old->ets : old->ets_admin;
    if (old->ets_error && !new->ets_error) {
        new->ets_error = xstrdup(old->ets_error);
        new->ets_logged = old->ets_logged;
    }
    if (!new->n_txq) {
        pfc_txqs_resize(new, MAX(old->n_txq, 1));
    }
    pfc_requeue_into(old, new);
    pfc_class_queues_fit(new);
}

/* PFC is being removed from the port of 'pfc' (its QoS is deleted or gets
 * another type).  From now on 'pfc' sends no XOFF, and an XOFF in force is
 * ended with an XON at the next transmit opportunity (pfc_xoff_run()).
 * Returns true if 'pfc' must stay the port's QoS object until it has sent
 * what it owes: it holds packets, or an XOFF is in force.  The PMD threads
 * then send the XON and the held packets, as pauses allow, on their own tx
 * queues, with neither a port restart nor an rx queue reassignment, and
 * netdev_dpdk_pfc_retire_run() says when the object is done.  Otherwise
 * retires it at once (a transmit thread that still uses it sends as on a
 * port without QoS) and returns false.  Main thread. */
bool
netdev_dpdk_pfc_retire(struct netdev_dpdk_pfc *pfc)
{
    bool owes;

    if (pfc->port) {
        /* DCBX stops with PFC: nothing must set the QoS again. */
        pfc_dcbx_stop(pfc->port);
        pfc_mcq_remove(pfc->port);
    }
    struct pfc_bound none = *pfc_bound(pfc);

    none.xparams.enabled = 0;       /* No XOFF from now on. */
    pfc_bound_set(pfc, &none);
    pfc_txqs_lock(pfc);
    pfc->retiring = true;
    owes = pfc->port && pfc->port->buf.xoff.asserted;
    for (int i = 0; i < pfc->n_txq; i++) {
        owes = owes || pfc->txq[i].n_held;
    }
    if (!owes) {
        pfc->retired = true;
        pfc->next = NULL;
    } else if (!pfc->retire_counted) {
        unsigned int orig;

        pfc->retire_counted = true;
        pfc->retire_deadline = time_msec() + PFC_RETIRE_MS;
        atomic_add_relaxed(&pfc_n_retiring, 1, &orig);
    }
    pfc_txqs_unlock(pfc);
    if (!owes && pfc->port) {
        pfc_nic_restore(pfc->port);     /* Outside the tx queue locks. */
    }
    return owes;
}

/* A port was quiet at the last pfc_quiets_run(). */
static bool pfc_quiet_wanted;

/* Ends the quiets (struct pfc_port_quiet) that ended more than
 * PFC_QUIET_LATE_MS ago: normally the port's next rx poll ends one, but
 * rx queues that no PMD thread polls would leave its held packets waiting
 * for the next packet sent to the port.  Returns true if a port is quiet.
 * Main thread. */
static bool
pfc_quiets_run(void)
{
    uint64_t now = rte_get_tsc_cycles();
    uint64_t late = rte_get_tsc_hz() / 1000 * PFC_QUIET_LATE_MS;
    bool quiet = false;

    for (int i = 0; i < RTE_MAX_ETHPORTS; i++) {
        struct pfc_port *port = &pfc_ports[i];
        uint64_t until;

        atomic_read_relaxed(&port->quiet.until, &until);
        if (until && now >= until && now - until >= late) {
            pfc_quiet_end(port);
        } else if (until) {
            quiet = true;
        }
    }
    return quiet;
}

/* netdev 'run' of the DPDK ethernet class, main thread: logs the ETS keys
 * that are not in force (pfc_ets_log_errors()), runs DCBX
 * (pfc_dcbx_ports_run()) and ends the quiets that no rx poll ended
 * (pfc_quiets_run()).  netdev-dpdk's 'run' calls
 * netdev_dpdk_pfc_retire_run() for each QoS object being removed. */
void
netdev_dpdk_pfc_run(const struct netdev_class *netdev_class OVS_UNUSED)
{
    pfc_ets_log_errors();
    pfc_dcbx_ports_run();
    pfc_quiet_wanted = pfc_quiets_run();
}

/* netdev 'wait' of the DPDK ethernet class: wakes the main thread for
 * netdev_dpdk_pfc_run() while a port has DCBX on or an ETS error to log,
 * and for netdev_dpdk_pfc_retire_run() while PFC is being removed from a
 * port. */
void
netdev_dpdk_pfc_wait(const struct netdev_class *netdev_class OVS_UNUSED)
{
    if (netdev_dpdk_pfc_retiring()) {
        poll_timer_wait(10);    /* ms: how late removal completes. */
    }
    if (pfc_quiet_wanted) {
        poll_timer_wait(PFC_QUIET_LATE_MS);
    }
    pfc_ets_wait();
    pfc_dcbx_ports_wait();
}

/* Returns true if a QoS object of type pfc is being removed and still owes
 * an XON or holds packets: netdev-dpdk's 'run' then calls
 * netdev_dpdk_pfc_retire_run() for it. */
bool
netdev_dpdk_pfc_retiring(void)
{
    unsigned int n;

    atomic_read_relaxed(&pfc_n_retiring, &n);
    return n > 0;
}

/* For 'pfc', retiring (netdev_dpdk_pfc_retire() returned true): returns
 * true, and retires it, once it neither holds packets nor has an XOFF in
 * force, or PFC_RETIRE_MS after its removal: then what it still holds (a
 * pause that does not end, a port that is down) is freed and counted as
 * hold drops and in tx_dropped, which discharges its ingress ports, and a
 * pause it was owed an XON for ends when its timer runs out.  From then on
 * a transmit thread that still uses it sends as on a port without QoS; the
 * caller replaces it as the port's QoS.  Returns false while it still owes
 * something.  Main thread. */
bool
netdev_dpdk_pfc_retire_run(struct netdev_dpdk_pfc *pfc)
{
    struct pfc_port *port = pfc->port;
    uint64_t holding, freed = 0, locked;
    bool late, asserted;

    if (!pfc->retiring || pfc->retired) {
        return pfc->retired;
    }
    atomic_read_relaxed(&pfc->holding, &holding);
    asserted = port && !pfc_port_is_vhost(port) && port->buf.xoff.asserted;
    late = time_msec() >= pfc->retire_deadline;
    if ((holding || asserted) && !late) {
        return false;
    }

    pfc_txqs_lock(pfc);
    locked = rte_get_tsc_cycles();
    asserted = port && !pfc_port_is_vhost(port) && port->buf.xoff.asserted;
    pfc->retired = true;
    pfc->next = NULL;
    locked = rte_get_tsc_cycles() - locked;
    pfc_txqs_unlock(pfc);
    /* Retired: from now on a transmit thread that locks one of its tx
     * queues lets go at once (pfc_lock_live()), so what they hold is this
     * thread's alone, and is freed with no lock held. */
    for (int i = 0; i < pfc->n_txq; i++) {
        if (pfc->txq[i].n_held) {
            freed += pfc->txq[i].n_held;
            pfc_txq_free_held(pfc, &pfc->txq[i]);
        }
    }
    if (port) {
        pfc_nic_restore(port);
    }
    if (port && (freed || asserted)) {
        VLOG_WARN("%s: PFC removed: %"PRIu64" packets still held after %d ms "
                  "freed (counted as hold drops and tx_dropped), with no tx "
                  "queue lock held (they were held at most %.1f us)%s",
                  port->name, freed, PFC_RETIRE_MS,
                  locked * 1e6 / rte_get_tsc_hz(),
                  asserted ? "; no XON sent: the link partner resumes when "
                  "its pause timer runs out" : "");
    } else if (port) {
        VLOG_INFO("%s: PFC removed: XON and held packets sent", port->name);
    }
    return true;
}

/* Returns the time, in ns, that the link of 'port' takes to send a full tx
 * ring of frames of its largest size with preamble and gap, at most
 * PFC_RING_DRAIN_MAX_NS. */
#define PFC_RING_DRAIN_MAX_NS (10 * 1000 * 1000)
static uint64_t
pfc_ring_drain_ns(const struct pfc_port *port)
{
    uint64_t bits = ((uint64_t) MAX(port->hw.txq_size, 1)
                     * ((uint64_t) port->hw.max_frame + 20) * 8);
    uint64_t speed = MAX(port->rx.tb.link_speed, 1);

    return MIN(bits * 1000000000 / speed, PFC_RING_DRAIN_MAX_NS);
}

/* Sends on tx queue 0 of the port of 'pfc', with an mbuf from 'mp', the XON
 * that it owes for each priority whose XOFF is in force: decided under
 * port->lock, sent outside it.  Returns true if an XON was due and had an
 * mbuf, sent or not (the caller then gives the NIC time to send its ring).
 * Sets '*no_mbuf' if one was due but 'mp' had no mbuf (or was NULL). */
static bool
pfc_finish_xon(struct netdev_dpdk_pfc *pfc, struct rte_mempool *mp,
               bool *no_mbuf)
{
    struct pfc_port *port = pfc->port;
    struct pfc_xoff_params none = pfc_bound(pfc)->xparams;
    struct pfc_buf_pg zero[PFC_N_PRIOS];
    struct rte_mbuf *m = NULL;
    struct pfc_frame frame;
    bool due;

    none.enabled = 0;
    memset(zero, 0, sizeof zero);
    rte_spinlock_lock(&port->lock);
    due = pfc_xoff_run(&port->buf.xoff, &none, zero, 0, 0, &frame);
    pfc_port_note_flush(port);
    rte_spinlock_unlock(&port->lock);
    m = due && mp ? rte_pktmbuf_alloc(mp) : NULL;
    *no_mbuf = due && !m;
    if (m) {
        pfc_frame_encode(rte_pktmbuf_append(m, PFC_FRAME_LEN), &port->mac,
                         &frame);
    }
    if (!m) {
        return false;
    }
    if (pfc_tx_burst_blocking(port, 0, -1, &m, 1) == 1) {
        rte_spinlock_lock(&port->lock);
        pfc_counters_count_tx(&port->counters, &frame);
        rte_spinlock_unlock(&port->lock);
    } else {
        rte_pktmbuf_free(m);
    }
    return true;
}

/* Empties every tx queue of 'pfc': if 'send_held', hands each held packet
 * to the NIC on its tx queue (to guest 'vid' on a vhost-user port), oldest
 * first, until a ring refuses one for 1 ms; frees the others and counts
 * them as hold drops.  Adds the packets sent to '*sent_held' and returns
 * how many it freed. */
static uint64_t
pfc_finish_held(struct netdev_dpdk_pfc *pfc, struct rte_mempool *mp, int vid,
                bool send_held, uint64_t *sent_held)
{
    struct pfc_port *port = pfc->port;
    uint64_t freed = 0;

    for (int i = 0; i < pfc->n_txq; i++) {
        struct pfc_txq *t = &pfc->txq[i];

        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            struct pfc_holdq *q = &t->q[tc];

            while (q->n) {
                const struct pfc_held *h = pfc_holdq_peek(q, 0);
                struct rte_mbuf *pkt = h->pkt;

                pfc_release(t, h);
                if (send_held && (mp || pfc_port_is_vhost(port))
                    && pfc_tx_burst_blocking(port, i, vid, &pkt, 1)) {
                    (*sent_held)++;
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
        pfc_txq_all_empty(t);
        pfc_note_holding(pfc, t);
    }
    return freed;
}

/* For a port that no transmit thread uses (the datapath is reconfiguring it,
 * or deleting it): sends on tx queue 0, with mbufs from 'mp', the XON that
 * 'pfc' owes for each priority whose XOFF is in force, then, if
 * 'send_held', the packets each tx queue holds, on that tx queue, oldest
 * first, whether paused or not (on a vhost-user port, to the guest whose
 * device id is 'vid', read by the caller now; -1 for none).  What is not
 * sent (no 'mp', 'send_held' false, or everything from the first packet
 * that a full ring refused for 1 ms on) is freed and counted as hold drops
 * and in tx_dropped.  Retires
 * 'pfc'.  Returns the number of held packets freed.  Calls the driver with
 * the tx queue locks of 'pfc' held, which no PMD thread takes while the port
 * is off the PMD threads, but never with port->lock held. */
uint64_t
netdev_dpdk_pfc_finish(struct netdev_dpdk_pfc *pfc, struct rte_mempool *mp,
                       int vid, bool send_held)
{
    struct pfc_port *port = pfc->port;
    uint64_t freed = 0, sent_held = 0;
    bool closing = !send_held;
    bool no_mbuf = false;

    if (closing && port && !pfc_port_is_vhost(port)) {
        /* The port stops next. */
        netdev_dpdk_pfc_port_stopping(port - pfc_ports);
    }
    pfc_txqs_lock(pfc);
    if (!port) {
        goto out;
    }

    bool xon = pfc_finish_xon(pfc, mp, &no_mbuf);

    freed = pfc_finish_held(pfc, mp, vid, send_held, &sent_held);
    if (freed) {
        uint64_t orig;

        atomic_add_relaxed(&port->held_dropped, freed, &orig);
    }
    if ((xon || sent_held) && !pfc_port_is_vhost(port)) {
        /* The port stops next: give the NIC the time to send a full tx
         * ring at link speed, so that a driver whose stop discards its
         * ring loses neither the XON nor the held packets. */
        xnanosleep_no_quiesce(pfc_ring_drain_ns(port));
    }
    if (closing && pfc_port_is_vhost(port)) {
        /* The slot may serve another vhost-user port from now on. */
        atomic_store_relaxed(&port->vhost.guest, false);
        atomic_store_relaxed(&port->vhost.bp_stopped, 0);
        rte_spinlock_lock(&port->lock);
        port->dead = true;
        rte_spinlock_unlock(&port->lock);
    }

out:
    pfc->retired = true;
    pfc->next = NULL;
    pfc_txqs_unlock(pfc);
    if (port && pfc->retiring && !closing) {
        pfc_nic_restore(port);
    }
    if (no_mbuf) {
        VLOG_WARN("%s: PFC no longer applies: no mbuf for the XON it owes; "
                  "the link partner resumes when its pause timer runs out",
                  port->name);
    }
    if (port && (freed || sent_held)) {
        VLOG_INFO("%s: PFC no longer applies: %"PRIu64" held packets sent, "
                  "%"PRIu64" freed (counted as hold drops and tx_dropped)",
                  port->name, sent_held, freed);
    }
    return freed;
}

/* DPDK port 'port_id' went down ('down' true), or up again, for the reason
 * 'why' (NETDEV_PFC_DOWN_ADMIN: NETDEV_UP turned off, the datapath drops
 * what it would send; NETDEV_PFC_DOWN_LINK: the link went down).  While
 * either holds, PFC holds nothing for the port: it no longer honours pauses
 * (a partner's pause does not outlive the link), what its tx ring refuses
 * is dropped, as without PFC, and the PMD threads that flush the port free
 * what it holds (netdev_dpdk_pfc_tx_flush()), counted as hold drops and in
 * tx_dropped.  That discharges the priority groups of the ports the packets
 * came from, which then send XON, and guests held back resume.  Main
 * thread, with the netdev's mutex held; for any DPDK ethernet port, with or
 * without PFC. */
void
netdev_dpdk_pfc_port_down(uint16_t port_id, uint8_t why, bool down)
{
    struct pfc_port *port;
    uint8_t old, new;
    bool active;

    if (port_id >= RTE_MAX_ETHPORTS) {
        return;
    }
    netdev_dpdk_pfc_ports_init();
    port = &pfc_ports[port_id];
    atomic_read_relaxed(&port->down, &old);
    new = down ? old | why : old & ~why;
    if (new == old) {
        return;
    }
    rte_spinlock_lock(&port->lock);
    atomic_store_relaxed(&port->down, new);
    pfc_port_bump_gen(port);            /* Transmit threads look again. */
    pfc_port_note_flush(port);
    rte_spinlock_unlock(&port->lock);
    atomic_read_relaxed(&port->active, &active);
    if (active && !old != !new) {
        VLOG_INFO("%s: PFC: port %s (%s): %s", port->name,
                  new ? "down" : "up",
                  why & NETDEV_PFC_DOWN_ADMIN ? "admin" : "link",
                  new ? "held packets are freed and nothing is held until "
                  "it is up" : "pauses honoured and packets held again");
    }
}

/* Returns the held packets of DPDK port 'port_id' freed outside a transmit
 * call (netdev_dpdk_pfc_finish(), reconfigurations, tx preparation
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
