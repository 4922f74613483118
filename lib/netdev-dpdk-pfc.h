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

#ifndef NETDEV_DPDK_PFC_H
#define NETDEV_DPDK_PFC_H 1

/* PFC for DPDK ethernet and vhost-user ports: the thin layer between
 * lib/netdev-dpdk.c and the protocol core in lib/pfc.c.
 *
 * Two kinds of state:
 *
 *   - Per DPDK port id, or per vhost-user port (one of PFC_MAX_VHOST slots
 *     after the port ids), kept for the life of the process: the pause timers
 *     set by received PFC frames, the XOFF state towards the link partner,
 *     the bytes held anywhere in the switch that arrived on the port (the
 *     ingress buffer occupancy, per priority) and the counters.
 *     Reconfiguring the QoS never resets a pause the partner asked for.
 *
 *   - Per QoS object ('struct netdev_dpdk_pfc'): the parsed configuration and,
 *     per tx queue, the eight traffic class queues.
 *
 * Threading (lib/netdev-dpdk-pfc.c explains the design):
 * netdev_dpdk_pfc_rx_begin() and netdev_dpdk_pfc_rx() run on the PMD thread
 * that polls an rx queue of the port.  netdev_dpdk_pfc_send() and
 * netdev_dpdk_pfc_tx_flush() run on any thread that transmits on the port,
 * with the caller holding netdev-dpdk's tx queue lock if the tx queue is
 * shared; they take the lock of the PFC tx queue, which only the thread that
 * sends on that tx queue takes in normal operation.
 * netdev_dpdk_pfc_filter_tx() runs on any thread that sends on any DPDK
 * port.  The rest runs on the main thread.
 *
 * Reconfiguration: a changed "pfc" QoS replaces its object with a new one
 * (netdev_dpdk_pfc_succeed()), which takes over the held packets in order.
 * Removing PFC from a port (netdev_dpdk_pfc_retire()) keeps the object in
 * place until the datapath reconfigures the port, with its transmit queues
 * idle; then netdev_dpdk_pfc_finish() sends the XON it owes and the packets
 * it holds.  Deleting the port finishes it too, but frees the held
 * packets. */

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

struct ds;
struct eth_addr;
struct netdev_custom_stats;
struct netdev_dpdk_pfc;
struct rte_mbuf;
struct rte_mempool;
struct smap;

int netdev_dpdk_pfc_create(const struct smap *details,
                           struct netdev_dpdk_pfc **pfcp);
/* What netdev-dpdk knows of a port, for netdev_dpdk_pfc_bind(). */
struct netdev_dpdk_pfc_port_info {
    const char *name;           /* Netdev name. */
    uint16_t port_id;           /* DPDK port id, < RTE_MAX_ETHPORTS for an
                                 * attached ethernet port. */
    bool vhost;                 /* A vhost-user port: no DPDK port id, no
                                 * MAC, no PFC frames; backpressure on the
                                 * guest instead (lib/pfc.h,
                                 * pfc_backpressure_next()). */
    const struct eth_addr *mac; /* Source address of sent PFC frames. */
    bool flow_ctrl;             /* 802.3x rx or tx flow control is on. */
    uint32_t mtu;               /* L3 MTU, bytes. */
    uint32_t txq_size;          /* Descriptors per tx queue. */
    uint32_t rxq_size;          /* Descriptors per rx queue. */
    struct rte_mempool *mp;     /* The port's mempool, or NULL. */
    int n_rxq;                  /* Rx queues of the port. */
    int n_txq;                  /* Tx queues of the port. */
    bool rx_steering;           /* Open vSwitch's rx-steering is configured
                                 * (options:rx-steering, Open vSwitch 3.3
                                 * and later): it owns the last rx queue
                                 * and the port's rte_flow rules, which
                                 * mac-control-queue would need. */
    bool lsc_interrupt;         /* The link state is read on the NIC's
                                 * interrupt (options:dpdk-lsc-interrupt),
                                 * not polled. */
    bool idle;                  /* No transmit thread uses the QoS object:
                                 * it is new, or netdev-dpdk is
                                 * reconfiguring the port.  False on a
                                 * rebind when the link comes up. */
};

int netdev_dpdk_pfc_bind(struct netdev_dpdk_pfc *,
                         const struct netdev_dpdk_pfc_port_info *);
uint32_t netdev_dpdk_pfc_txq_size(struct netdev_dpdk_pfc *, uint16_t port_id,
                                  uint32_t interface_size, uint32_t mtu,
                                  bool commit);
void netdev_dpdk_pfc_destroy(struct netdev_dpdk_pfc *);
int netdev_dpdk_pfc_ctrl_txq_ask(uint16_t port_id, const char *driver,
                                 uint16_t max_txq, int n_txq);
bool netdev_dpdk_pfc_ctrl_txq_drop(uint16_t port_id, int *n_txq);
void netdev_dpdk_pfc_ctrl_txq_claim(uint16_t port_id, int asked, int *n_txq);
void netdev_dpdk_pfc_port_stopping(uint16_t port_id);

/* Why a DPDK port is down, for netdev_dpdk_pfc_port_down(). */
#define NETDEV_PFC_DOWN_ADMIN 0x1   /* NETDEV_UP is off (admin down). */
#define NETDEV_PFC_DOWN_LINK 0x2    /* The link is down. */
void netdev_dpdk_pfc_port_down(uint16_t port_id, uint8_t why, bool down);

/* The members of netdev-dpdk's dpdk_qos_ops for QoS type pfc that need
 * nothing of netdev-dpdk but the PFC object, to which the adapters of
 * lib/netdev-dpdk-pfc-qos.h pass it. */
int netdev_dpdk_pfc_qos_get(const struct netdev_dpdk_pfc *,
                            struct smap *details);
bool netdev_dpdk_pfc_qos_is_equal(const struct netdev_dpdk_pfc *,
                                  const struct smap *details);
int netdev_dpdk_pfc_qos_queue_construct(const struct smap *details,
                                        uint32_t queue_id,
                                        struct netdev_dpdk_pfc *);
void netdev_dpdk_pfc_qos_queue_destruct(struct netdev_dpdk_pfc *,
                                        uint32_t queue_id);
/* Traffic classes, and so Queue rows, of a "pfc" QoS at most. */
#define NETDEV_DPDK_PFC_N_QUEUES 8
size_t netdev_dpdk_pfc_qos_queues(const struct netdev_dpdk_pfc *,
                                  uint32_t queues[NETDEV_DPDK_PFC_N_QUEUES]);
int netdev_dpdk_pfc_qos_queue_get(struct smap *details, uint32_t queue_id,
                                  const struct netdev_dpdk_pfc *);

uint64_t netdev_dpdk_pfc_rx_begin(uint16_t port_id, int qid);
int netdev_dpdk_pfc_rx(uint16_t port_id, int qid, struct rte_mbuf **pkts,
                       int cnt, uint64_t start);
int netdev_dpdk_pfc_send(struct netdev_dpdk_pfc *, int qid,
                         struct rte_mempool *mp, struct rte_mbuf **pkts,
                         int cnt, int *n_taken, uint64_t *qos_drops);
bool netdev_dpdk_pfc_tx_flush_pending(struct netdev_dpdk_pfc *);

/* DCBX, main thread: netdev 'run' and 'wait' of the DPDK ethernet class. */
struct netdev_class;
void netdev_dpdk_pfc_run(const struct netdev_class *);
bool netdev_dpdk_pfc_retiring(void);
bool netdev_dpdk_pfc_retire_run(struct netdev_dpdk_pfc *);
void netdev_dpdk_pfc_wait(const struct netdev_class *);
void netdev_dpdk_pfc_tx_flush(struct netdev_dpdk_pfc *, int qid,
                              struct rte_mempool *mp);

/* vhost-user ports.  'vid' is the vhost device id that the caller read for
 * this call (netdev_dpdk_get_vid()), or -1 if the guest is not there: then
 * what is held for it is freed and counted.  'qid' is the guest's queue
 * pair. */
int netdev_dpdk_pfc_send_vhost(struct netdev_dpdk_pfc *, int qid, int vid,
                               struct rte_mbuf **pkts, int cnt,
                               int *n_taken, uint64_t *qos_drops,
                               uint64_t *failure_drops);
void netdev_dpdk_pfc_tx_flush_vhost(struct netdev_dpdk_pfc *, int qid,
                                    int vid);
void netdev_dpdk_pfc_vhost_txq_hold(struct netdev_dpdk_pfc *);
void netdev_dpdk_pfc_vhost_txq_state(struct netdev_dpdk_pfc *, int qid,
                                     int to);
bool netdev_dpdk_pfc_vhost_rx_stopped(struct netdev_dpdk_pfc *);
void netdev_dpdk_pfc_mark_copy(struct rte_mbuf *);
void netdev_dpdk_pfc_vhost_rx(struct netdev_dpdk_pfc *,
                              struct rte_mbuf **pkts, int cnt);
void netdev_dpdk_pfc_vhost_get_custom_stats(struct netdev_dpdk_pfc *,
                                            struct netdev_custom_stats *);
int netdev_dpdk_pfc_filter_tx(uint16_t port_id, struct rte_mbuf **pkts,
                              int cnt);
uint64_t netdev_dpdk_pfc_tx_dropped(uint16_t port_id);
uint64_t netdev_dpdk_pfc_vhost_tx_dropped(const char *name);

void netdev_dpdk_pfc_succeed(struct netdev_dpdk_pfc *old,
                             struct netdev_dpdk_pfc *new);
bool netdev_dpdk_pfc_retire(struct netdev_dpdk_pfc *);
uint64_t netdev_dpdk_pfc_finish(struct netdev_dpdk_pfc *, struct rte_mempool *,
                                int vid, bool send_held);
void netdev_dpdk_pfc_port_destruct(uint16_t port_id);
void netdev_dpdk_pfc_get_custom_stats(uint16_t port_id,
                                      struct netdev_custom_stats *);
void netdev_dpdk_pfc_register_commands(void);

#endif /* netdev-dpdk-pfc.h */
