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

/* What the DPDK glue of PFC sends of its own on a port, and what it keeps
 * off the wire: the XOFF and XON that the ingress buffer occupancy calls
 * for, the LLDPDUs of DCBX, and the tx filter that keeps the datapath's
 * MAC Control frames (and, on a DCBX port, other ports' LLDPDUs) off every
 * DPDK port.  The frames are sent by the transmit path
 * (lib/netdev-dpdk-pfc-tx.c) under the lock of a tx queue; the filter runs
 * in netdev-dpdk's send of every DPDK port, PFC or not, with no lock of
 * PFC's. */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "openvswitch/usdt-probes.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "pfc.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc_ctrl);
static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* Hands PFC frame 'm' to the NIC of 'port': on the PFC frames' own tx
 * queue if the port has one (port->hw.ctrl_txq), else on data tx queue
 * 'qid', whose lock the caller holds, behind the data in its ring.  Returns
 * true if the NIC took it.  Returns false with '*busy' true if another
 * thread was sending on the PFC frames' own tx queue: the caller tries
 * again on its next call rather than wait. */
static bool
pfc_tx_control_send(struct pfc_port *port, int qid, struct rte_mbuf *m,
                    bool *busy)
{
    uint16_t port_id = port - pfc_ports;
    uint16_t sent;
    int cq;

    *busy = false;
    atomic_read_relaxed(&port->hw.ctrl_txq, &cq);
    if (cq < 0) {
        return rte_eth_tx_burst(port_id, qid, &m, 1) == 1;
    }
    if (!rte_spinlock_trylock(&port->hw.ctrl_lock)) {
        *busy = true;
        return false;
    }
    sent = rte_eth_tx_burst(port_id, cq, &m, 1);
    rte_spinlock_unlock(&port->hw.ctrl_lock);
    if (sent) {
        uint64_t orig;

        atomic_add_relaxed(&port->hw.ctrl_sent, 1, &orig);
    }
    return sent == 1;
}

/* Sends, ahead of any data, the XOFF or XON that the ingress buffer
 * occupancy of the port of 'pfc' calls for at TSC 'now': on the PFC frames'
 * own tx queue where the port has one, else on tx queue 'qid'
 * (pfc_tx_control_send()).  The decision is taken under port->lock, so that
 * one thread sends each frame; the mbuf is allocated and sent outside it.
 * The caller holds the lock of tx queue 'qid'. */
void
pfc_tx_control(struct netdev_dpdk_pfc *pfc, int qid, struct rte_mempool *mp,
               uint64_t now)
{
    struct pfc_port *port = pfc->port;
    struct pfc_buf_pg pg[PFC_N_PRIOS];
    struct pfc_frame frame;
    struct rte_mbuf *m = NULL;
    struct eth_addr mac;
    bool busy = false;
    bool due;

    uint64_t free;
#ifdef HAVE_USDT_PROBES
    uint8_t was_asserted;
#endif

    if (!pfc_control_pending(pfc, &now)) {
        return;
    }
    pfc_port_pgs(port, pg);
    free = pfc_pool_free();

    rte_spinlock_lock(&port->lock);
#ifdef HAVE_USDT_PROBES
    was_asserted = port->buf.xoff.asserted;
#endif
    due = pfc_xoff_run(&port->buf.xoff, &pfc_bound(pfc)->xparams, pg, free,
                       now, &frame);
    pfc_port_note_flush(port);
    mac = port->mac;
    rte_spinlock_unlock(&port->lock);
    if (!due) {
        return;
    }

    m = mp ? rte_pktmbuf_alloc(mp) : NULL;
    if (m) {
        pfc_frame_encode(rte_pktmbuf_append(m, PFC_FRAME_LEN), &mac, &frame);
        if (!pfc_tx_control_send(port, qid, m, &busy)) {
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
                    port->buf.xoff.refresh_at[n] = now;
                } else {
                    port->buf.xoff.asserted |= 1u << n;
                }
            }
        }
        pfc_port_note_flush(port);
    }
    rte_spinlock_unlock(&port->lock);
    if (m) {
#ifdef HAVE_USDT_PROBES
        uint64_t crossed = 0;
        uint32_t xoff = 0;

        /* For an XOFF: its pause quanta and, if it starts a pause of a
         * priority (not only refreshes one), when the occupancy of the
         * first such priority went over its XOFF level
         * (pfc_buf_txq_admit()); 0 for a refresh, which a crossing while
         * XOFF was in force must not be timed against. */
        for (int n = 0; n < PFC_N_PRIOS; n++) {
            if (frame.enable & (1u << n) && frame.time[n]) {
                xoff = xoff ? xoff : frame.time[n];
                if (!crossed && !(was_asserted & (1u << n))) {
                    atomic_read_relaxed(&port->buf.xoff_crossed[n],
                                        &crossed);
                }
            }
        }
        OVS_USDT_PROBE(netdev_dpdk_pfc, tx_frame, (int) (port - pfc_ports),
                       qid, frame.enable, xoff, crossed,
                       rte_get_tsc_cycles());
#endif
    } else if (!busy) {
        VLOG_WARN_RL(&rl, "%s: could not send PFC frame, will retry",
                     port->name);
    }
}

/* Sends the LLDPDU that the main thread prepared for the port of 'pfc', if
 * one is due (netdev_dpdk_pfc_run()), on tx queue 'qid', with an mbuf from
 * 'mp'.  The frame is copied out under port->lock; the mbuf is allocated
 * and sent after it is released.  The caller holds the tx queue's lock. */
void
pfc_tx_lldp(struct netdev_dpdk_pfc *pfc, int qid, struct rte_mempool *mp)
{
    struct pfc_port *port = pfc->port;
    uint8_t frame[PFC_LLDP_FRAME_MAX];
    struct rte_mbuf *m;
    bool due;
    uint16_t len;

    atomic_read_relaxed(&port->dcbx.lldp_due, &due);
    if (!due || !mp) {
        return;
    }
    rte_spinlock_lock(&port->lock);
    atomic_read_relaxed(&port->dcbx.lldp_due, &due);
    if (!due) {
        rte_spinlock_unlock(&port->lock);
        return;                 /* Another thread took it. */
    }
    atomic_store_relaxed(&port->dcbx.lldp_due, false);
    pfc_port_note_flush(port);
    len = port->dcbx.lldp_len;
    memcpy(frame, port->dcbx.lldp_frame, len);
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
        atomic_store_relaxed(&port->dcbx.lldp_due, true);
        pfc_port_note_flush(port);
    }
    rte_spinlock_unlock(&port->lock);
}

/* Returns true if 'm', about to be sent on a port that speaks DCBX if 'dcbx'
 * is true, must not leave: pfc_tx_forbidden(), or on a DCBX port an LLDPDU
 * that it did not make (pfc_lldp_foreign()).  Sets '*lldp' for the
 * latter. */
static inline bool
pfc_tx_filtered(const struct rte_mbuf *m, bool dcbx, bool *lldp)
{
    const uint8_t *data = rte_pktmbuf_mtod(m, const uint8_t *);
    uint16_t len = rte_pktmbuf_data_len(m);

    *lldp = dcbx && pfc_lldp_foreign(data, len);
    return *lldp || pfc_tx_forbidden(data, len);
}

/* Drops, from the 'cnt' packets in 'pkts' about to be sent on DPDK port
 * 'port_id' (RTE_MAX_ETHPORTS or more for a vhost port), those that must
 * never leave: MAC Control frames and frames to 01-80-C2-00-00-01
 * (pfc_tx_forbidden()), and, on a port with DCBX on, LLDPDUs to the LLDP
 * group addresses (pfc_lldp_foreign()).  This switch's own PFC frames and
 * LLDPDUs do not pass here.  Compacts 'pkts' and returns how many remain.
 * Costs one look at the first 18 octets of each packet (pfc_tx_plain()),
 * and more only for a frame to 01-80-C2-00-00-00/24, with two tags, or
 * one that is dropped. */
int
netdev_dpdk_pfc_filter_tx(uint16_t port_id, struct rte_mbuf **pkts, int cnt)
{
    uint64_t n_lldp = 0, orig;
    bool dcbx = false, lldp;
    int i, kept;

    if (port_id < RTE_MAX_ETHPORTS) {
        atomic_read_relaxed(&pfc_ports[port_id].dcbx.on, &dcbx);
    }
    for (i = 0; i < cnt; i++) {
        const struct rte_mbuf *m = pkts[i];

        if (OVS_LIKELY(pfc_tx_plain(rte_pktmbuf_mtod(m, const uint8_t *),
                                    rte_pktmbuf_data_len(m)))) {
            continue;
        }
        if (pfc_tx_filtered(m, dcbx, &lldp)) {
            break;
        }
    }
    if (OVS_LIKELY(i == cnt)) {
        return cnt;
    }
    for (kept = i; i < cnt; i++) {
        struct rte_mbuf *m = pkts[i];

        if (pfc_tx_filtered(m, dcbx, &lldp)) {
            n_lldp += lldp;
            rte_pktmbuf_free(m);
        } else {
            pkts[kept++] = m;
        }
    }
    if (port_id < RTE_MAX_ETHPORTS) {
        struct pfc_port *port = &pfc_ports[port_id];

        atomic_add_relaxed(&port->tx_mac_control_filtered,
                           cnt - kept - n_lldp, &orig);
        if (n_lldp) {
            atomic_add_relaxed(&port->tx_lldp_filtered, n_lldp, &orig);
        }
    }
    return kept;
}
