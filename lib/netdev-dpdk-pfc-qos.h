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

#ifndef NETDEV_DPDK_PFC_QOS_H
#define NETDEV_DPDK_PFC_QOS_H 1

/* QoS type "pfc" in netdev-dpdk's QoS framework: the adapters between
 * 'struct dpdk_qos_ops' and the PFC object (lib/netdev-dpdk-pfc.h).
 *
 * They need netdev-dpdk's private types ('struct netdev_dpdk',
 * 'struct qos_conf', dpdk_list), so lib/netdev-dpdk.c includes this file
 * once, where those are defined (before check_link_status()), and nothing
 * else may include it.  Everything here is static to lib/netdev-dpdk.c.
 *
 * A PFC object is held in a 'struct pfc_qos_conf' and serializes the
 * senders of each tx queue itself, so qos_conf->lock is not taken for it.
 * Removing PFC from a port keeps the object in place ("retiring", with the
 * QoS object that replaces it kept aside) until the PMD threads sent what
 * it owes (pfc_netdev_run()), or a reconfiguration finishes it with the
 * port's tx queues idle (pfc_qos_finish()).  All of these run on the main
 * thread, with dev->mutex held where marked. */

#include "netdev-dpdk-pfc.h"
#include "pfc-compat.h"

/* QoS type "pfc" (lib/netdev-dpdk-pfc.c), without qos_conf.lock. */
struct pfc_qos_conf {
    struct qos_conf qos_conf;
    struct netdev_dpdk_pfc *pfc;
    bool retiring;                  /* Stays until it sent what it owes... */
    struct qos_conf *replacement;   /* ...then this replaces it. */
};

static struct netdev_dpdk_pfc *
netdev_dpdk_pfc_from_qos(const struct qos_conf *conf)
{
    return CONTAINER_OF(conf, struct pfc_qos_conf, qos_conf)->pfc;
}

/* Returns 'conf' as a QoS object of type pfc, or NULL if it is NULL or of
 * another type. */
static struct pfc_qos_conf *
pfc_qos_conf_cast(struct qos_conf *conf)
{
    return (conf && conf->ops == &pfc_qos_ops
            ? CONTAINER_OF(conf, struct pfc_qos_conf, qos_conf) : NULL);
}

/* Returns the PFC object of 'dev', or NULL if its QoS type is not pfc. */
static struct netdev_dpdk_pfc *
netdev_dpdk_pfc(const struct netdev_dpdk *dev)
{
    struct pfc_qos_conf *pqc
        = pfc_qos_conf_cast(ovsrcu_get(struct qos_conf *, &dev->qos_conf));

    return pqc ? pqc->pfc : NULL;
}

static int
pfc_qos_construct(const struct smap *details, struct qos_conf **conf)
{
    struct netdev_dpdk_pfc *pfc;
    int error = netdev_dpdk_pfc_create(details, &pfc);

    if (!error) {
        struct pfc_qos_conf *pqc = xzalloc(sizeof *pqc);

        pqc->qos_conf.ops = &pfc_qos_ops;
        rte_spinlock_init(&pqc->qos_conf.lock);
        pqc->pfc = pfc;
        *conf = &pqc->qos_conf;
    }
    return error;
}

static void
pfc_qos_destruct(struct qos_conf *conf)
{
    struct pfc_qos_conf *pqc = CONTAINER_OF(conf, struct pfc_qos_conf,
                                            qos_conf);

    if (pqc->replacement) {
        pqc->replacement->ops->qos_destruct(pqc->replacement);
    }
    netdev_dpdk_pfc_destroy(pqc->pfc);
    free(pqc);
}

/* netdev_dpdk_pfc_bind() 'new', or with 'new' NULL the port's PFC object,
 * 'idle' if no PMD thread uses the port.  Returns 0 or an errno value; on
 * error, destroys 'new'. */
static int
pfc_qos_bind(struct netdev_dpdk *dev, struct qos_conf *new, bool idle)
    OVS_REQUIRES(dev->mutex)
{
    struct netdev_dpdk_pfc *pfc = new ? netdev_dpdk_pfc_from_qos(new)
                                      : netdev_dpdk_pfc(dev);
    struct netdev_dpdk_pfc_port_info info = {
        .name = dev->up.name,
        .port_id = dev->port_id,
        .vhost = dev->type == DPDK_DEV_VHOST,
        .mac = &dev->hwaddr,
        .flow_ctrl = dev->fc_conf.mode != RTE_ETH_FC_NONE,
        .mtu = dev->mtu,
        .txq_size = dev->txq_size,
        .rxq_size = dev->rxq_size,
        .mp = dev->dpdk_mp ? dev->dpdk_mp->mp : NULL,
        .n_rxq = dev->up.n_rxq,
        .n_txq = dev->up.n_txq,
        .rx_steering = PFC_RX_STEERING(dev),
        .lsc_interrupt = dev->lsc_interrupt_mode,
        .idle = idle,
    };
    int error = pfc ? netdev_dpdk_pfc_bind(pfc, &info) : 0;

    if (error && new) {
        pfc_qos_destruct(new);
    }
    return error;
}

/* set_qos: returns true if 'old', a PFC object that owes an XON or holds
 * packets, stays until it sent them (pfc_qos_retire_run()) or
 * pfc_qos_finish(), and 'new' is kept for then. */
static bool
pfc_qos_replace(struct netdev_dpdk *dev OVS_UNUSED, struct qos_conf *old,
                struct qos_conf *new)
    OVS_REQUIRES(dev->mutex)
{
    struct pfc_qos_conf *pqc = pfc_qos_conf_cast(old);

    if (!pqc) {
        return false;
    }
    if (pqc->replacement) {
        /* Never published. */
        pqc->replacement->ops->qos_destruct(pqc->replacement);
        pqc->replacement = NULL;
    }
    if (new && new->ops == &pfc_qos_ops) {
        netdev_dpdk_pfc_succeed(pqc->pfc, netdev_dpdk_pfc_from_qos(new));
        return false;
    }
    if (pqc->retiring || netdev_dpdk_pfc_retire(pqc->pfc)) {
        pqc->retiring = true;
        pqc->replacement = new;
        return true;
    }
    return false;
}

/* Makes the QoS object kept for the retiring 'pqc' the QoS object of 'dev',
 * and destroys 'pqc' once no thread can use it (RCU). */
static void
pfc_qos_succeed_retired(struct netdev_dpdk *dev, struct pfc_qos_conf *pqc)
{
    ovsrcu_set(&dev->qos_conf, pqc->replacement);
    pqc->replacement = NULL;
    ovsrcu_postpone(pfc_qos_destruct, &pqc->qos_conf);
}

/* With the port's tx queues idle: a retiring PFC object sends what it owes
 * and is replaced; on deletion ('closing'), it sends its XON. */
static void
pfc_qos_finish(struct netdev_dpdk *dev, bool closing)
{
    struct pfc_qos_conf *pqc
        = pfc_qos_conf_cast(ovsrcu_get(struct qos_conf *, &dev->qos_conf));
    struct rte_mempool *mp = (dev->started && dev->dpdk_mp
                              ? dev->dpdk_mp->mp : NULL);
    int vid = dev->type == DPDK_DEV_VHOST ? netdev_dpdk_get_vid(dev) : -1;

    if (!pqc) {
        return;
    }
    if (closing) {
        netdev_dpdk_pfc_finish(pqc->pfc, mp, vid, false);
    } else if (pqc->retiring) {
        netdev_dpdk_pfc_finish(pqc->pfc, mp, vid, true);
        pfc_qos_succeed_retired(dev, pqc);
    }
}

/* Lists the traffic classes that Queue rows configure, so that the bridge
 * deletes those whose rows are gone (qos_queue_destruct). */
static int
pfc_qos_queue_dump_state_init(const struct qos_conf *conf,
                              struct netdev_dpdk_queue_state *state)
{
    const struct netdev_dpdk_pfc *pfc = netdev_dpdk_pfc_from_qos(conf);

    state->queues = xmalloc(NETDEV_DPDK_PFC_N_QUEUES * sizeof *state->queues);
    state->n_queues = netdev_dpdk_pfc_qos_queues(pfc, state->queues);
    state->cur_queue = 0;
    return 0;
}

/* The dpdk_qos_ops members that need only the PFC object. */
static int
pfc_qos_get(const struct qos_conf *conf, struct smap *details)
{
    return netdev_dpdk_pfc_qos_get(netdev_dpdk_pfc_from_qos(conf), details);
}

static bool
pfc_qos_is_equal(const struct qos_conf *conf, const struct smap *details)
{
    return netdev_dpdk_pfc_qos_is_equal(netdev_dpdk_pfc_from_qos(conf),
                                        details);
}

static int
pfc_qos_queue_construct(const struct smap *details, uint32_t queue_id,
                        struct qos_conf *conf)
{
    return netdev_dpdk_pfc_qos_queue_construct(
        details, queue_id, netdev_dpdk_pfc_from_qos(conf));
}

static void
pfc_qos_queue_destruct(struct qos_conf *conf, uint32_t queue_id)
{
    netdev_dpdk_pfc_qos_queue_destruct(netdev_dpdk_pfc_from_qos(conf),
                                       queue_id);
}

static int
pfc_qos_queue_get(struct smap *details, uint32_t queue_id,
                  const struct qos_conf *conf)
{
    return netdev_dpdk_pfc_qos_queue_get(details, queue_id,
                                         netdev_dpdk_pfc_from_qos(conf));
}

/* No qos_run: netdev_dpdk_pfc_send() holds and sends. */
static const struct dpdk_qos_ops pfc_qos_ops = {
    .qos_name = "pfc",
    .qos_construct = pfc_qos_construct,
    .qos_destruct = pfc_qos_destruct,
    .qos_get = pfc_qos_get,
    .qos_is_equal = pfc_qos_is_equal,
    .qos_queue_construct = pfc_qos_queue_construct,
    .qos_queue_destruct = pfc_qos_queue_destruct,
    .qos_queue_get = pfc_qos_queue_get,
    .qos_queue_dump_state_init = pfc_qos_queue_dump_state_init,
};

/* The tx ring size of 'dev': PFC chooses it on a PFC port. */
static int
netdev_dpdk_txq_size(struct netdev_dpdk *dev, bool commit)
    OVS_REQUIRES(dev->mutex)
{
    return netdev_dpdk_pfc_txq_size(netdev_dpdk_pfc(dev), dev->port_id,
                                    dev->requested_txq_size,
                                    dev->requested_mtu, commit);
}

/* A retiring PFC object of 'dev' that sent what it owes is replaced; the
 * port is reconfigured only if PFC had given it another tx ring. */
static void
pfc_qos_retire_run(struct netdev_dpdk *dev)
    OVS_REQUIRES(dev->mutex)
{
    struct pfc_qos_conf *pqc
        = pfc_qos_conf_cast(ovsrcu_get(struct qos_conf *, &dev->qos_conf));

    if (pqc && pqc->retiring && netdev_dpdk_pfc_retire_run(pqc->pfc)) {
        pfc_qos_succeed_retired(dev, pqc);
        if (dev->type == DPDK_DEV_ETH
            && netdev_dpdk_txq_size(dev, false) != dev->txq_size) {
            netdev_request_reconfigure(&dev->up);
        }
    }
}

/* netdev 'run' of the DPDK classes (Open vSwitch 3.1 has none: there, this
 * is the ethernet class's 'run'): PFC's DCBX timers, and the ports,
 * ethernet or vhost-user, that PFC is being removed from. */
static void
pfc_netdev_run(const struct netdev_class *netdev_class)
{
    struct netdev_dpdk *dev;

    netdev_dpdk_pfc_run(netdev_class);
    if (netdev_dpdk_pfc_retiring()) {
        ovs_mutex_lock(&dpdk_mutex);
        LIST_FOR_EACH (dev, list_node, &dpdk_list) {
            ovs_mutex_lock(&dev->mutex);
            pfc_qos_retire_run(dev);
            ovs_mutex_unlock(&dev->mutex);
        }
        ovs_mutex_unlock(&dpdk_mutex);
    }
}

#endif /* netdev-dpdk-pfc-qos.h */
