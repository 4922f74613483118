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

/* Held packets leave: the DPDK glue of PFC hands the packets that a tx
 * queue holds, once their class may send, to the NIC or the guest, in the
 * order that the ETS scheduler (lib/pfc-ets.h) chooses and within the port
 * shaper's tokens; frees those that the watchdog drops, and all of them
 * when the port is removed or goes down.  Called by the transmit path
 * (lib/netdev-dpdk-pfc-tx.c) under the lock of the tx queue, and by the
 * retirement of a QoS object (lib/netdev-dpdk-pfc-retire.c), whose tx
 * queues no other thread touches any more. */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "pfc.h"
#include "pfc-compat.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc_drain);
static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

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

        pfc_release(t, h);
        drops[h->prio]++;
        n_drops++;
        rte_pktmbuf_free(h->pkt);
        pfc_holdq_pop(q, 1);
        t->n_held--;
    }
    if (n_drops) {
        for (int p = 0; p < PFC_N_PRIOS; p++) {
            pfc_count_storm(&port->wd.tx_dropped[p], drops[p]);
        }
        pfc_count_storm(&port->held_dropped, n_drops);
    }
    n = MIN(n, q->n);
    while (k < n && !((t->wd_dropped >> pfc_holdq_peek(q, k)->prio) & 1)) {
        k++;
    }
    return k;
}

/* Of the held packets at the head of 'q', stores in burst[] those that
 * leave in one burst, at most 'n' (<= PFC_TX_BURST), and returns how many
 * they are: pfc_ets_burst() decides, from the scheduler's 'budget' and the
 * shaper's 'tokens' (bytes). */
static uint16_t
pfc_burst_take(const struct pfc_holdq *q, uint16_t n, uint64_t budget,
               int64_t tokens, struct rte_mbuf **burst)
{
    uint32_t lens[PFC_TX_BURST];
    int k;

    n = MIN(n, q->n);
    for (k = 0; k < n; k++) {
        lens[k] = pfc_holdq_peek(q, k)->len;
    }
    n = pfc_ets_burst(lens, n, budget, tokens);
    for (k = 0; k < n; k++) {
        burst[k] = pfc_holdq_peek(q, k)->pkt;
    }
    return n;
}

/* Takes the 'sent' packets at the head of 'q', class 'tc' of 't', off it
 * once they left: off the held counts and the ingress occupancy, into the
 * counters of the watchdog and of ETS, and reports their bytes to the
 * scheduler and to the shaper. */
static void
pfc_drain_sent(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t, int tc,
               struct pfc_holdq *q, uint16_t sent)
{
    struct pfc_port *port = pfc->port;
    uint64_t bytes = 0, left, orig;

    if (!sent) {
        return;
    }
    for (uint16_t i = 0; i < sent; i++) {
        const struct pfc_held *h = pfc_holdq_peek(q, i);

        bytes += h->len;
        pfc_release(t, h);
    }
    if (OVS_UNLIKELY(t->wd_ignored)) {
        uint64_t fwd[PFC_N_PRIOS] = { 0 };

        for (uint16_t i = 0; i < sent; i++) {
            int prio = pfc_holdq_peek(q, i)->prio;

            fwd[prio] += (t->wd_ignored >> prio) & 1;
        }
        for (int p = 0; p < PFC_N_PRIOS; p++) {
            pfc_count_storm(&port->wd.tx_forwarded[p], fwd[p]);
        }
    }
    pfc_holdq_pop(q, sent);
    t->n_held -= sent;
    /* Only this thread, which holds t->lock, writes it. */
    atomic_read_relaxed(&t->left[tc], &left);
    atomic_store_relaxed(&t->left[tc], left + sent);
    atomic_add_relaxed(&port->ets.pkts[tc], sent, &orig);
    atomic_add_relaxed(&port->ets.bytes[tc], bytes, &orig);
    pfc_ets_sent(&t->ets, &pfc->ets, tc, bytes);
    pfc_shaper_spend(pfc, bytes);
}

/* The packet at the head of 'q', class queue of 't', fails tx preparation:
 * frees it, logs it and counts it as a hold drop. */
static void
pfc_drain_bad_head(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t,
                   struct pfc_holdq *q)
{
    const struct pfc_held *h = pfc_holdq_peek(q, 0);
    uint64_t orig;

    VLOG_WARN_RL(&rl, "%s: PFC: held packet of priority %d dropped: it "
                 "fails tx preparation: %s", pfc->port->name, h->prio,
                 rte_strerror(rte_errno));
    pfc_release(t, h);
    pfc_count(&t->hold_drops[h->prio], 1);
    rte_pktmbuf_free(h->pkt);
    pfc_holdq_pop(q, 1);
    t->n_held--;
    atomic_add_relaxed(&pfc->port->held_dropped, 1, &orig);
}

/* Hands the held packets of 't' (tx queue 'qid' of 'pfc') whose classes are
 * not in 'blocked' to the NIC (or to guest 'vid', pfc_xmit()), in the order
 * that the ETS scheduler chooses (pfc_ets_next(): strict classes first,
 * highest first, then the ETS classes by deficit round robin), within what
 * the port shaper allows at TSC 'now'; in order within a class.  What the
 * tx ring refuses stays held.  Where netdev-dpdk prepares what it sends
 * (pfc_tx_prepare_needed()), they are prepared first
 * (rte_eth_tx_prepare()); a packet that fails preparation is freed, logged
 * and counted as a hold drop, and the packets behind it are still sent. */
void
pfc_drain(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t, int qid, int vid,
          uint8_t blocked, uint64_t now)
{
    uint16_t port_id = pfc->port - pfc_ports;
    bool prepare = (pfc_tx_prepare_needed()
                    && !pfc_port_is_vhost(pfc->port));

    for (;;) {
        uint8_t ready = t->nonempty & ~blocked;
        uint32_t head_len[PFC_N_PRIOS];
        struct rte_mbuf *burst[PFC_TX_BURST];
        uint16_t n = PFC_TX_BURST, n_ok, sent;
        struct pfc_holdq *q;
        uint64_t budget;
        int64_t tokens;
        int tc;

        if (!ready) {
            return;
        }
        tokens = pfc_shaper_grant(pfc, now);
        if (tokens <= 0) {
            return;             /* The shaper's next period sends more. */
        }
        for (uint32_t r = ready; r; r &= r - 1) {
            int c = raw_ctz(r);

            head_len[c] = pfc_holdq_peek(&t->q[c], 0)->len;
        }
        tc = pfc_ets_next(&t->ets, &pfc->ets, ready, head_len, &budget);
        q = &t->q[tc];
        if (OVS_UNLIKELY(t->wd_ignored)) {
            n = pfc_wd_drain_head(pfc, t, q, n);
        }
        n = n ? pfc_burst_take(q, n, budget, tokens, burst) : 0;
        if (n) {
            n_ok = (OVS_UNLIKELY(prepare)
                    ? rte_eth_tx_prepare(port_id, qid, burst, n) : n);
            sent = pfc_xmit(pfc->port, qid, vid, burst, n_ok);
            if (OVS_UNLIKELY(pfc_port_is_vhost(pfc->port))) {
                pfc_vq_note(t, sent, n_ok);
            }
            pfc_drain_sent(pfc, t, tc, q, sent);
            if (sent < n_ok) {
                return;         /* The tx ring is full. */
            }
            if (n_ok < n) {
                pfc_drain_bad_head(pfc, t, q);
            }
        }
        if (!q->n) {
            pfc_txq_class_empty(t, tc);
        }
    }
}

/* Frees the packets held in 't', a tx queue of 'pfc' that nothing will send
 * them on (a vhost-user guest that is gone, PFC removed from a port that did
 * not send them in time).  Counts them as hold drops and in tx_dropped.  The
 * caller holds t->lock, or 'pfc' is retired (no other thread touches its
 * tx queues). */
void
pfc_txq_free_held(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t)
{
    uint64_t n = 0, orig;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        struct pfc_holdq *q = &t->q[tc];

        while (q->n) {
            const struct pfc_held *h = pfc_holdq_peek(q, 0);

            pfc_release(t, h);
            pfc_count(&t->hold_drops[h->prio], 1);
            rte_pktmbuf_free(h->pkt);
            pfc_holdq_pop(q, 1);
            n++;
        }
    }
    t->n_held = 0;
    pfc_txq_all_empty(t);
    pfc_note_holding(pfc, t);
    pfc_buf_txq_give_cache(t);
    atomic_add_relaxed(&pfc->port->held_dropped, n, &orig);
}
