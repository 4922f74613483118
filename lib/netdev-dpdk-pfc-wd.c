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

/* The PFC watchdog of the DPDK glue (lib/pfc-wd.h, pfc_wd_run(); the opening
 * comment of lib/netdev-dpdk-pfc.c describes the threads and locks).  A
 * thread that flushes a port checks it (netdev_dpdk_pfc_tx_flush()),
 * publishes what it decides for the receive and transmit paths, and logs
 * the storms once it holds no lock. */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <string.h>

#include <rte_spinlock.h>

#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "pfc.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc_wd);

/* The PFC watchdog of a port is checked at most this often, in ms, by a
 * thread that flushes the port (pfc_wd_check()): a storm is detected within
 * watchdog-detection-time plus this plus one PMD iteration. */
#define PFC_WD_CHECK_MS 1

/* Publishes what the watchdog of 'port' does (pfc_wd_ignored(),
 * pfc_wd_dropped()) for lock-free readers, and makes transmit threads
 * evaluate their pauses again if that changed.  The caller holds
 * port->lock. */
void
pfc_wd_publish(struct pfc_port *port)
{
    uint8_t ignored = pfc_wd_ignored(&port->wd.state, &port->wd.params);
    uint8_t dropped = pfc_wd_dropped(&port->wd.state, &port->wd.params);
    uint8_t old_ignored, old_dropped;

    atomic_read_relaxed(&port->wd.ignored, &old_ignored);
    atomic_read_relaxed(&port->wd.dropped, &old_dropped);
    atomic_store_relaxed(&port->wd.stormed, port->wd.state.stormed);
    atomic_store_relaxed(&port->wd.watching,
                         port->wd.params.detect_ticks != 0);
    pfc_port_note_flush(port);
    if (ignored != old_ignored || dropped != old_dropped) {
        atomic_store_relaxed(&port->wd.ignored, ignored);
        atomic_store_relaxed(&port->wd.dropped, dropped);
        pfc_port_bump_gen(port);
    }
}

/* Returns the priorities in pfc-enable of 'pfc', a QoS object bound to a port
 * with a MAC, whose traffic class stalled on one of its tx queues over the
 * check interval that ends at TSC 'now' (pfc_wd_txq_stalled()): held
 * packets waited and none left, while the class was blocked as the transmit
 * path decides it (pfc_paused_prios(), with the rx poll stamps) or while
 * the tx queue sent no held packet at all, unless the port shaper held it
 * back during the interval (pfc->shaper_waited).  The caller holds
 * port->lock and the lock of one tx queue of 'pfc'. */
static uint8_t
pfc_wd_txqs_stalled(struct netdev_dpdk_pfc *pfc, uint64_t now)
{
    struct pfc_port *port = pfc->port;
    uint8_t paused, blocked, stalled = 0;
    uint64_t valid, waited;
    bool shaped;

    paused = pfc_paused_prios(port->rx.pause.until, pfc->cfg.enabled, now,
                              pfc_rx_polled(port), port->rx.poll_cap, &valid);
    paused &= ~pfc_wd_ignored(&port->wd.state, &port->wd.params);
    blocked = pfc_tcs_blocked(pfc->cfg.prio_to_tc, paused);
    /* The shaper held the egress back during the interval. */
    atomic_read_relaxed(&pfc->shaper_waited, &waited);
    shaped = pfc->sparams.rate
             && waited + port->rx.tb.hz / 1000 * PFC_WD_CHECK_MS >= now;
    for (int i = 0; i < pfc->n_txq; i++) {
        struct pfc_txq *t = &pfc->txq[i];
        uint64_t left[PFC_N_PRIOS];
        uint8_t waiting, moved;

        /* A class waits while it holds packets: of its priorities, or of
         * others that set_queue moved there.  A class that holds moved
         * packets and that no pause of its own priorities blocks may be
         * stopped by their own priorities' pauses
         * (pfc_send_blocked_moved()): it does not stand in for a pause of
         * its priorities, whose packets are held behind. */
        atomic_read_relaxed(&t->moved_tcs, &moved);
        waiting = moved;
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            uint64_t held;

            atomic_read_relaxed(&t->held_pkts[n], &held);
            waiting |= (held != 0) << pfc->cfg.prio_to_tc[n];
            atomic_read_relaxed(&t->left[n], &left[n]);
        }
        stalled |= (pfc_wd_txq_stalled(&t->wd_txq, left, waiting, blocked,
                                       shaped)
                    & ~(moved & ~blocked));
    }
    return pfc_tcs_prios(pfc->cfg.prio_to_tc, stalled) & pfc->cfg.enabled;
}

/* Runs the PFC watchdog of the port of 'pfc' at TSC 'now' (pfc_wd_run()), at
 * most once per PFC_WD_CHECK_MS and only if port->lock is free, so that the
 * thread that flushes the port never waits here.  A priority counts as
 * paused while a pause timer that XOFF set runs or its traffic class
 * stalled (pfc_wd_txqs_stalled()), and as waiting while a tx queue of 'pfc'
 * holds packets of its traffic class.  Stores in '*ev' the
 * storms detected and restored, for the caller to log with pfc_wd_log()
 * once it has released its locks.  The caller holds the lock of one tx
 * queue of 'pfc', which keeps pfc->txq in place. */
void
pfc_wd_check(struct netdev_dpdk_pfc *pfc, uint64_t now,
             struct pfc_wd_events *ev)
{
    struct pfc_port *port = pfc->port;
    uint8_t waiting = 0, paused, timer = 0;
    uint64_t next, hz;

    ev->detected = ev->restored = 0;
    atomic_read_relaxed(&port->wd.next_check, &next);
    if (now < next || !rte_spinlock_trylock(&port->lock)) {
        return;
    }
    if (port->conf != pfc) {
        rte_spinlock_unlock(&port->lock);
        return;
    }
    hz = port->rx.tb.hz;
    atomic_store_relaxed(&port->wd.next_check,
                         now + hz / 1000 * PFC_WD_CHECK_MS);
    /* A priority waits while its traffic class holds packets, of any of
     * the class's priorities or moved there by set_queue. */
    for (int i = 0; i < pfc->n_txq; i++) {
        uint8_t moved;

        atomic_read_relaxed(&pfc->txq[i].moved_tcs, &moved);
        waiting |= moved;
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            uint64_t held;

            atomic_read_relaxed(&pfc->txq[i].held_pkts[n], &held);
            waiting |= (held != 0) << pfc->cfg.prio_to_tc[n];
        }
    }
    waiting = pfc_tcs_prios(pfc->cfg.prio_to_tc, waiting);
    if (pfc_port_is_vhost(port)) {
        /* No PFC frames: a receive queue of the guest that refused
         * packets and took none since the last check, or has not taken
         * what waited for it when its drain window began
         * (pfc_wd_vq_stalled()), stalls the lossless priorities held on
         * it, and those already stormed (whose packets it refuses instead
         * of holding them). */
        paused = 0;
        for (int i = 0; i < pfc->n_txq; i++) {
            struct pfc_txq *t = &pfc->txq[i];
            uint64_t refused, taken, n_held = 0;
            uint8_t held = 0;

            atomic_read_relaxed(&t->vq_refused, &refused);
            atomic_read_relaxed(&t->vq_taken, &taken);
            for (int n = 0; n < PFC_N_PRIOS; n++) {
                uint64_t pkts;

                atomic_read_relaxed(&t->held_pkts[n], &pkts);
                held |= (pkts != 0) << n;
                n_held += pkts;
            }
            if (!pfc_wd_vq_stalled(&t->wd_vq, refused, taken, n_held)) {
                continue;
            }
            paused |= pfc->cfg.enabled & (held | port->wd.state.stormed);
        }
        pfc_wd_stall(&port->wd.state, paused, pfc->cfg.enabled, now);
    } else {
        timer = pfc_pause_status(&port->rx.pause, now);
        paused = timer | pfc_wd_txqs_stalled(pfc, now);
    }
    memcpy(ev->since, port->wd.state.since, sizeof ev->since);
    pfc_wd_run(&port->wd.state, &port->wd.params, paused, waiting, now,
               &ev->detected, &ev->restored);
    if (ev->detected | ev->restored) {
        pfc_wd_publish(port);
        memcpy(ev->stormed_at, port->wd.state.stormed_at,
               sizeof ev->stormed_at);
        ev->now = now;
        ev->hz = hz;
        ev->action = port->wd.params.action;
        ev->restore_ms = pfc->cfg.wd_restore_ms;
        ev->guest = pfc_port_is_vhost(port);
        ev->timer = timer;
        ovs_strlcpy(ev->name, port->name, sizeof ev->name);
    }
    rte_spinlock_unlock(&port->lock);
}

/* Logs what pfc_wd_check() found in 'ev': one WARN per storm detected, one
 * INFO per storm restored.  Call it with no lock held. */
void
pfc_wd_log(const struct pfc_wd_events *ev)
{
    for (uint8_t d = ev->detected; d; d &= d - 1) {
        int n = raw_ctz(d);

        VLOG_WARN("%s: PFC storm on priority %d: %s, with packets "
                  "waiting, for %"PRIu64" ms; watchdog action %s",
                  ev->name, n,
                  (ev->guest
                   ? "the guest did not drain its full receive queue"
                   : ev->timer & (1u << n)
                   ? "paused by the link partner"
                   : "nothing sent (the tx ring does not drain, or a pause "
                     "outlasted its timer)"),
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
