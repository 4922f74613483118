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

/* An rx queue of their own for MAC Control frames, on ports with
 * mac-control-queue=true (lib/pfc.h, enum pfc_mcq): the driver's RSS
 * redirection table spreads data over every rx queue but the last, and an
 * rte_flow rule sends EtherType 0x8808 to the last.  The main thread asks
 * the driver when it binds or retires the QoS object, with no lock held;
 * PMD threads only read port->hw.mcq_queue (pfc_rx_polled()). */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_flow.h>

#include "openvswitch/vlog.h"
#include "pfc.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc_steer);

/* Sets the RSS redirection table of 'port_id', of 'size' entries, to rx
 * queues 0 to 'n_queues' - 1 in turn (pfc_reta_spread()).  Returns 0 or a
 * negative errno value (rte_eth_dev_rss_reta_update()). */
static int
pfc_reta_set(uint16_t port_id, uint16_t size, uint16_t n_queues)
{
    size_t n_groups = DIV_ROUND_UP(size, RTE_ETH_RETA_GROUP_SIZE);
    struct rte_eth_rss_reta_entry64 *conf;
    uint16_t *queues;
    int error;

    conf = xcalloc(n_groups, sizeof *conf);
    queues = xcalloc(size, sizeof *queues);
    pfc_reta_spread(queues, size, n_queues);
    for (size_t i = 0; i < size; i++) {
        conf[i / RTE_ETH_RETA_GROUP_SIZE].mask
            |= UINT64_C(1) << (i % RTE_ETH_RETA_GROUP_SIZE);
        conf[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE]
            = queues[i];
    }
    error = rte_eth_dev_rss_reta_update(port_id, conf, size);
    free(queues);
    free(conf);
    return error;
}

/* Validates, or with nonnull 'flow' creates (its handle into '*flow'), on
 * 'port_id' the rte_flow rule that sends frames of EtherType 0x8808 (MAC
 * Control, untagged as 802.3 Annex 31B sends them) to rx queue 'queue'.
 * Returns 0 or a negative errno value, with the driver's message in '*msg'
 * (static, or NULL). */
static int
pfc_mcq_rule(uint16_t port_id, uint16_t queue, struct rte_flow **flow,
             const char **msg)
{
    const struct rte_flow_attr attr = { .ingress = 1 };
    struct rte_flow_item_eth spec, mask;
    struct rte_flow_action_queue action = { .index = queue };
    struct rte_flow_error ferr;
    int error;

    memset(&spec, 0, sizeof spec);
    memset(&mask, 0, sizeof mask);
    spec.hdr.ether_type = htons(PFC_ETH_TYPE_MAC_CONTROL);
    mask.hdr.ether_type = OVS_BE16_MAX;

    const struct rte_flow_item pattern[] = {
        { .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &spec, .mask = &mask },
        { .type = RTE_FLOW_ITEM_TYPE_END },
    };
    const struct rte_flow_action actions[] = {
        { .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &action },
        { .type = RTE_FLOW_ACTION_TYPE_END },
    };

    memset(&ferr, 0, sizeof ferr);
    if (flow) {
        *flow = rte_flow_create(port_id, &attr, pattern, actions, &ferr);
        error = *flow ? 0 : -(rte_errno ? rte_errno : EINVAL);
    } else {
        error = rte_flow_validate(port_id, &attr, pattern, actions, &ferr);
    }
    *msg = ferr.message;
    return error;
}

/* Logs a failure 'error' (a negative errno value) of 'what' on 'name'. */
static void
pfc_mcq_warn(const char *name, const char *what, int error)
{
    if (error) {
        VLOG_WARN("%s: PFC: mac-control-queue: %s failed: %s", name, what,
                  rte_strerror(-error));
    }
}

/* Destroys the rte_flow rule of mac-control-queue on 'port_id', named
 * 'name', if PFC created one (port->hw.mcq_flow): that rule only, never
 * another's, such as those of Open vSwitch's rx-steering.  Main thread, no
 * lock held. */
static void
pfc_mcq_rule_destroy(const char *name, uint16_t port_id)
{
    struct pfc_port *port = &pfc_ports[port_id];
    struct rte_flow_error ferr;

    if (port->hw.mcq_flow) {
        memset(&ferr, 0, sizeof ferr);
        pfc_mcq_warn(name, "rte_flow_destroy()",
                     rte_flow_destroy(port_id, port->hw.mcq_flow, &ferr));
        port->hw.mcq_flow = NULL;
    }
}

/* Gives MAC Control frames the last rx queue of the ethernet port 'port_id',
 * named 'name', if 'want' (mac-control-queue=true) and the driver allows it,
 * or undoes it.  Refused while 'rx_steering' (Open vSwitch's rx-steering is
 * configured: it owns the last rx queue and the port's rte_flow rules).
 * The port's rx queues are counted from the driver (rte_eth_dev_info's
 * nb_rx_queues).  'redo' asks for the set-up again even if '*mcq' says it
 * is in force: the port was reconfigured.  Updates '*mcq' and logs a change
 * of it.  Returns the rx queue of MAC Control frames, or -1 if they may
 * reach any; sets '*since' to the TSC at which the rule took effect if it
 * was set up now, else to 0.  Only the rule that PFC created is ever
 * destroyed.  Calls the driver: the caller holds no lock. */
int
pfc_mcq_apply(const char *name, uint16_t port_id, bool want,
              bool rx_steering, bool redo, enum pfc_mcq *mcq,
              uint64_t *since)
{
    struct pfc_port *port = &pfc_ports[port_id];
    struct rte_eth_dev_info info;
    struct pfc_mcq_answers a;
    enum pfc_mcq old = *mcq;
    const char *msg = NULL;
    uint16_t n_rxq;

    *since = 0;
    memset(&info, 0, sizeof info);
    if (rte_eth_dev_info_get(port_id, &info)) {
        info.reta_size = 0;
        info.nb_rx_queues = 0;
    }
    n_rxq = info.nb_rx_queues;
    if (old == PFC_MCQ_ON && want && !redo) {
        return n_rxq - 1;
    }
    memset(&a, 0, sizeof a);
    a.rx_steering = rx_steering;
    pfc_mcq_rule_destroy(name, port_id);
    if (old == PFC_MCQ_ON) {
        /* Undone first, also to set it up again. */
        if (info.reta_size) {
            pfc_mcq_warn(name, "rte_eth_dev_rss_reta_update()",
                         pfc_reta_set(port_id, info.reta_size, n_rxq));
        }
    }
    if (want && !rx_steering && n_rxq >= 2) {
        a.reta_size = info.reta_size;
    }
    if (a.reta_size) {
        a.flow_validate = pfc_mcq_rule(port_id, n_rxq - 1, NULL, &msg);
        if (!a.flow_validate) {
            a.reta_update = pfc_reta_set(port_id, a.reta_size, n_rxq - 1);
        }
        if (!a.flow_validate && !a.reta_update) {
            a.flow_create = pfc_mcq_rule(port_id, n_rxq - 1,
                                         &port->hw.mcq_flow, &msg);
            *since = rte_get_tsc_cycles();
        }
        if (a.reta_update || a.flow_create) {
            /* Data over every rx queue again. */
            pfc_mcq_warn(name, "rte_eth_dev_rss_reta_update()",
                         pfc_reta_set(port_id, a.reta_size, n_rxq));
        }
    }
    *mcq = pfc_mcq_decide(want, false, n_rxq, &a);
    if (*mcq != PFC_MCQ_ON) {
        *since = 0;
    }
    if (*mcq == old) {
        return *mcq == PFC_MCQ_ON ? n_rxq - 1 : -1;
    }
    if (*mcq == PFC_MCQ_ON) {
        VLOG_INFO("%s: PFC: MAC Control frames (EtherType 0x8808) have rx "
                  "queue %d of their own; data is spread over rx queues 0 "
                  "to %d", name, n_rxq - 1, n_rxq - 2);
    } else if (want) {
        VLOG_WARN("%s: PFC: mac-control-queue=true, but MAC Control frames "
                  "are %s%s%s", name, pfc_mcq_describe(*mcq),
                  msg ? ": " : "", msg ? msg : "");
    } else if (old == PFC_MCQ_ON) {
        VLOG_INFO("%s: PFC: MAC Control frames no longer have an rx queue "
                  "of their own", name);
    }
    return *mcq == PFC_MCQ_ON ? n_rxq - 1 : -1;
}

/* Undoes pfc_mcq_apply() on 'port', whose PFC is being removed: its rx
 * queues all take data again.  Calls the driver: the caller holds no
 * lock. */
void
pfc_mcq_remove(struct pfc_port *port)
{
    enum pfc_mcq mcq;
    uint64_t since;

    rte_spinlock_lock(&port->lock);
    mcq = port->hw.mcq;
    rte_spinlock_unlock(&port->lock);
    if (mcq != PFC_MCQ_ON || pfc_port_is_vhost(port)) {
        return;
    }
    /* Every rx queue counts for the end of a pause from now on. */
    atomic_store_relaxed(&port->hw.mcq_queue, -1);
    pfc_mcq_apply(port->name, port - pfc_ports, false, false, true, &mcq,
                  &since);
    rte_spinlock_lock(&port->lock);
    port->hw.mcq = mcq;
    rte_spinlock_unlock(&port->lock);
}

/* Called by netdev-dpdk before it stops or resets the ethernet port
 * 'port_id' to reconfigure it, and by netdev_dpdk_pfc_finish() before the
 * port is deleted: removes the rte_flow rule of mac-control-queue, as DPDK
 * asks before a port stops (rules need not survive a restart, and a driver
 * that restores them would restore one for an rx queue that may no longer
 * exist).  Every rx queue counts for the end of a pause until the bind
 * after the restart sets the rule up again.  The main thread calls it, with
 * no PFC lock held. */
void
netdev_dpdk_pfc_port_stopping(uint16_t port_id)
{
    struct pfc_port *port;

    if (port_id >= RTE_MAX_ETHPORTS) {
        return;
    }
    port = &pfc_ports[port_id];
    rte_spinlock_lock(&port->lock);
    if (port->hw.mcq != PFC_MCQ_ON) {
        rte_spinlock_unlock(&port->lock);
        return;
    }
    atomic_store_relaxed(&port->hw.mcq_queue, -1);
    port->hw.mcq = PFC_MCQ_OFF;
    rte_spinlock_unlock(&port->lock);
    pfc_mcq_rule_destroy(port->name, port_id);
}
