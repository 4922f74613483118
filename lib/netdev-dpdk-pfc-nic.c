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

/* What PFC asks of the NIC of a DPDK ethernet port (lib/pfc-nic.h decides;
 * the opening comment of lib/netdev-dpdk-pfc.c describes the threads and
 * locks): its link speed, its tx ring limits, MAC Control frames passed to
 * the switch rather than acted on, and the NIC's own flow control given
 * back when PFC leaves the port, and a tx queue of their own for the PFC
 * frames that the switch sends.  mac-control-queue is
 * lib/netdev-dpdk-pfc-steer.c's. */

#include <config.h>
#include "netdev-dpdk-pfc-private.h"
#include "netdev-dpdk-pfc.h"

#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_spinlock.h>

#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc_nic);

/* Returns the speed of the link of 'port_id', in bit/s, with '*from_link'
 * true, or PFC_FALLBACK_LINK_SPEED with '*from_link' false if the link is
 * down or gives no speed (what a down link reports is the last or a nominal
 * speed, not the one it will come up at). */
uint64_t
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

/* Reads the tx ring limits of the driver of 'port_id' into '*lim'.  Returns
 * false, with '*lim' allowing any ring, if the driver gives none. */
bool
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
 * 01-80-C2-00-00-01 accepted.  Stores what was asked and answered in '*a',
 * for pfc/show.  Returns what pfc_mac_control_decide() makes of the
 * driver's answers, with '*reason' set on PFC_MAC_CONTROL_REFUSED. */
enum pfc_mac_control
pfc_mac_control_setup(struct pfc_port *port, uint16_t port_id,
                      const char *driver, bool trust,
                      struct pfc_mac_control_answers *a, char **reason)
{
    uint8_t quirks = pfc_driver_quirks(driver);

    memset(a, 0, sizeof *a);
    if (pfc_mac_control_needs_nic(driver, trust, quirks)) {
        struct rte_eth_fc_conf fc;

        memset(&fc, 0, sizeof fc);
        a->asked = true;
        a->flow_ctrl_get = rte_eth_dev_flow_ctrl_get(port_id, &fc);
        if (!a->flow_ctrl_get && !port->hw.nic_saved) {
            port->hw.fc_saved = fc;
            port->hw.nic_saved = true;
        }
        if (!a->flow_ctrl_get) {
            fc.mode = RTE_ETH_FC_NONE;
            fc.mac_ctrl_frame_fwd = 1;
            a->flow_ctrl_set = rte_eth_dev_flow_ctrl_set(port_id, &fc);
        }
        if (!a->flow_ctrl_get && !a->flow_ctrl_set
            && rte_eth_promiscuous_get(port_id) != 1
            && rte_eth_allmulticast_get(port_id) != 1) {
            a->allmulticast_asked = true;
            a->allmulticast = rte_eth_allmulticast_enable(port_id);
            port->hw.allmulti_by_pfc = !a->allmulticast;
        }
    }
    return pfc_mac_control_decide(driver, trust, quirks, a, reason);
}

/* Gives the NIC of 'port', an ethernet port, back the flow control and
 * all-multicast state it had before PFC first asked it to pass MAC Control
 * frames (pfc_mac_control_setup()): when PFC leaves the port, and when its
 * first bind is refused.  Main thread. */
void
pfc_nic_restore(struct pfc_port *port)
{
    uint16_t port_id = port - pfc_ports;
    int fc_err = 0, am_err = 0;

    if (pfc_port_is_vhost(port) || (!port->hw.nic_saved
                                    && !port->hw.allmulti_by_pfc)) {
        return;
    }
    if (port->hw.nic_saved) {
        fc_err = rte_eth_dev_flow_ctrl_set(port_id, &port->hw.fc_saved);
    }
    if (port->hw.allmulti_by_pfc) {
        am_err = rte_eth_allmulticast_disable(port_id);
    }
    if (fc_err || am_err) {
        VLOG_WARN("%s: PFC: could not restore the NIC's state: "
                  "rte_eth_dev_flow_ctrl_set() %s, "
                  "rte_eth_allmulticast_disable() %s", port->name,
                  fc_err ? ovs_strerror(-fc_err) : "ok",
                  am_err ? ovs_strerror(-am_err) : "ok");
    } else {
        VLOG_INFO("%s: PFC: NIC flow control%s restored", port->name,
                  port->hw.allmulti_by_pfc ? " and all-multicast" : "");
    }
    port->hw.nic_saved = false;
    port->hw.allmulti_by_pfc = false;
}

/* netdev-dpdk is about to configure DPDK ethernet port 'port_id', whose
 * driver 'driver' allows 'max_txq' tx queues, with the 'n_txq' tx queues
 * that the datapath uses.  Returns 1 if it should set up one more, the last,
 * for the PFC frames that this switch sends (pfc_ctrl_txq_want()), or 0.
 * Whether or not the port has QoS pfc: PFC can then be applied later
 * without a port restart.  Until netdev_dpdk_pfc_ctrl_txq_claim(), PFC
 * frames have no tx queue of their own.  Main thread, while no transmit
 * thread uses the port. */
int
netdev_dpdk_pfc_ctrl_txq_ask(uint16_t port_id, const char *driver,
                             uint16_t max_txq, int n_txq)
{
    struct pfc_port *port;

    if (port_id >= RTE_MAX_ETHPORTS || n_txq <= 0) {
        return 0;
    }
    netdev_dpdk_pfc_ports_init();
    port = &pfc_ports[port_id];
    atomic_store_relaxed(&port->hw.ctrl_txq, -1);
    port->hw.ctrl_warned = false;
    port->hw.max_txq = max_txq;
    port->hw.ctrl_asked = pfc_ctrl_txq_want(driver, pfc_driver_quirks(driver),
                                            n_txq, max_txq);
    return port->hw.ctrl_asked;
}

/* netdev-dpdk could not configure port 'port_id' with the '*n_txq' tx
 * queues it asked for: if one of them was the PFC frames' own
 * (netdev_dpdk_pfc_ctrl_txq_ask()), takes it off '*n_txq' and returns true,
 * so that netdev-dpdk tries again without it (a driver that reports more
 * tx queues than it accepts); otherwise returns false.  Main thread. */
bool
netdev_dpdk_pfc_ctrl_txq_drop(uint16_t port_id, int *n_txq)
{
    struct pfc_port *port;

    if (port_id >= RTE_MAX_ETHPORTS || !pfc_ports[port_id].hw.ctrl_asked
        || *n_txq <= 1) {
        return false;
    }
    port = &pfc_ports[port_id];
    port->hw.ctrl_asked = false;
    (*n_txq)--;
    VLOG_INFO("port %"PRIu16": configured again without a tx queue for PFC "
              "frames", port_id);
    return true;
}

/* netdev-dpdk configured port 'port_id' with '*n_txq' tx queues, having
 * asked for 'asked', which includes the one that
 * netdev_dpdk_pfc_ctrl_txq_ask() returned.  If that one was asked and set
 * up, keeps the last tx queue for PFC frames and takes it off '*n_txq',
 * which the datapath then uses; otherwise PFC frames join the data tx
 * queues (a driver that sets up fewer tx queues than asked).  Main
 * thread. */
void
netdev_dpdk_pfc_ctrl_txq_claim(uint16_t port_id, int asked, int *n_txq)
{
    struct pfc_port *port;

    if (port_id >= RTE_MAX_ETHPORTS) {
        return;
    }
    port = &pfc_ports[port_id];
    if (port->hw.ctrl_asked && *n_txq == asked && asked > 1) {
        (*n_txq)--;
        atomic_store_relaxed(&port->hw.ctrl_txq, *n_txq);
        VLOG_DBG("port %"PRIu16": tx queue %d is the PFC frames' own",
                 port_id, *n_txq);
    }
}

/* Warns, once for each configuration of the port of 'pfc' described by
 * 'info', just bound, if its PFC frames have no tx queue of their own
 * (pfc_ctrl_txq_want()): how long an XOFF may wait behind the data tx
 * rings, and how much its link partner may send meanwhile, which the
 * headroom does not count.  Main thread, no lock held. */
void
pfc_nic_log_xoff_delay(const struct netdev_dpdk_pfc *pfc,
                   const struct netdev_dpdk_pfc_port_info *info)
{
    struct pfc_port *port = pfc->port;
    uint64_t speed = MAX(port->rx.tb.link_speed, 1);
    uint64_t bits;
    int cq;

    atomic_read_relaxed(&port->hw.ctrl_txq, &cq);
    if (cq >= 0 || pfc_port_is_vhost(port) || port->hw.ctrl_warned) {
        return;
    }
    port->hw.ctrl_warned = true;        /* Once per port configuration. */
    bits = pfc_xoff_delay_bits(port->hw.txq_size, port->hw.max_frame,
                               MAX(info->n_txq, 1), false);
    VLOG_WARN("%s: PFC frames have no tx queue of their own (the driver "
              "has none to spare, or is not known to send MAC Control "
              "frames): an XOFF may wait %.0f us behind the data tx rings, "
              "while the link partner sends up to %"PRIu64" bytes that the "
              "headroom does not count (pfc/show: xoff send delay)",
              info->name, (double) bits * 1e6 / speed, bits / 8);
}
