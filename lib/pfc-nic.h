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

#ifndef PFC_NIC_H
#define PFC_NIC_H 1

/* What PFC decides about a port's NIC, from what its DPDK driver answers:
 * the worst-case response to a PFC frame and the tx ring size that bounds
 * it, how MAC Control frames reach the switch (the driver policy), and an
 * rx queue of their own for them (mac-control-queue).  Pure: the glue
 * (lib/netdev-dpdk-pfc-nic.c, lib/netdev-dpdk-pfc-steer.c) asks the driver and
 * applies the answer; no DPDK here. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pfc.h"

/* Worst-case response of a software port to a PFC frame (seed 000 4.6):
 * after the PMD thread reads the frame, everything already handed to the NIC's
 * tx ring still goes out. */
#define PFC_RESPONSE_BOUND_BITS 14336   /* Bit times, plus the PHY delay. */
uint64_t pfc_response_bits(uint32_t tx_desc, uint32_t max_frame);

/* Worst-case delay, in bit times, before a PFC frame that this switch
 * sends leaves the port (the XOFF send delay): behind the data tx rings,
 * or, on a tx queue of its own, behind a frame of each.  The link partner
 * goes on sending meanwhile, so the headroom that an XOFF needs grows by as
 * much; the headroom of lib/pfc-headroom.h does not count it. */
uint64_t pfc_xoff_delay_bits(uint32_t tx_desc, uint32_t max_frame,
                             uint32_t n_txq, bool own_txq);
bool pfc_ctrl_txq_want(const char *driver, uint8_t quirks, uint32_t n_txq,
                       uint32_t max_txq);

/* What a DPDK driver accepts as the size of a tx ring (rte_eth_dev_info's
 * tx_desc_lim), for pfc_tx_ring_size(). */
struct pfc_ring_limits {
    uint32_t nb_min;            /* Descriptors, smallest ring, 0 for none. */
    uint32_t nb_max;            /* Descriptors, largest ring, >= nb_min. */
    uint32_t nb_align;          /* Descriptors: the ring is a multiple of
                                 * this, >= 1 (0 is taken as 1). */
};

uint32_t pfc_tx_ring_bound(uint32_t max_frame);
uint32_t pfc_tx_ring_size(uint32_t tx_ring_size, uint32_t interface_size,
                          uint32_t max_frame, const struct pfc_ring_limits *);

/* How MAC Control frames reach this switch on a port (pfc_mac_control_
 * decide()).  Software PFC needs the NIC to pass received PFC frames to the
 * host and to send the host's: most NICs consume or drop them in hardware
 * unless told otherwise. */
enum pfc_mac_control {
    PFC_MAC_CONTROL_VIRTUAL,    /* A virtual device, which has no MAC of its
                                 * own: frames are ordinary packets. */
    PFC_MAC_CONTROL_NIC,        /* The NIC agreed to forward them (DPDK
                                 * mac_ctrl_frame_fwd) with 802.3x flow
                                 * control off. */
    PFC_MAC_CONTROL_TRUSTED,    /* mac-control=trust. */
    PFC_MAC_CONTROL_REFUSED,    /* The driver refused, or is known to
                                 * ignore the request: no PFC on the
                                 * port. */
    PFC_MAC_CONTROL_RX_ONLY,    /* As PFC_MAC_CONTROL_NIC, but the NIC drops
                                 * the MAC Control frames that software
                                 * sends (PFC_QUIRK_TX_DROPS): the port
                                 * honours PFC frames and sends none, no
                                 * XOFF. */
};

/* What is known of a DPDK driver beyond what it answers: the driver policy
 * table (pfc_driver_quirks()) gives these bits per driver name.  It is an
 * allowlist: a physical NIC whose driver is not known to forward MAC
 * Control frames (PFC_QUIRK_FORWARDS) is refused unless mac-control=trust,
 * since a driver may accept the request and ignore it. */
enum pfc_driver_quirk {
    PFC_QUIRK_FORWARDS = 1 << 2,    /* Known to pass received MAC Control
                                     * frames to software when asked
                                     * (mac_ctrl_frame_fwd sets the MAC's
                                     * "pass control frames" bit). */
    PFC_QUIRK_IGNORES_FWD = 1 << 0, /* Accepts mac_ctrl_frame_fwd and
                                     * ignores it: received PFC frames never
                                     * reach software (mlx5 and dpaa; ice,
                                     * which passes only other MAC Control
                                     * frames, and only on E830). */
    PFC_QUIRK_TX_DROPS = 1 << 1,    /* Drops transmitted EtherType 0x8808
                                     * frames in hardware (i40e's tx filter,
                                     * set at init). */
};

/* What the driver of a port answered to the requests that make it pass MAC
 * Control frames to software, as negative errno values or 0 (DPDK's
 * convention); a request that was not made is 0. */
struct pfc_mac_control_answers {
    int flow_ctrl_get;          /* rte_eth_dev_flow_ctrl_get(). */
    int flow_ctrl_set;          /* rte_eth_dev_flow_ctrl_set() with mode
                                 * RTE_ETH_FC_NONE, mac_ctrl_frame_fwd 1. */
    int allmulticast;           /* rte_eth_allmulticast_enable(), made only
                                 * if the port is neither promiscuous nor
                                 * all-multicast. */
    bool asked;                 /* The NIC was asked (flow_ctrl_get made). */
    bool allmulticast_asked;    /* rte_eth_allmulticast_enable() made. */
};

bool pfc_driver_is_virtual(const char *driver);
uint8_t pfc_driver_quirks(const char *driver);
bool pfc_mac_control_needs_nic(const char *driver, bool trust,
                               uint8_t quirks);
enum pfc_mac_control pfc_mac_control_decide(
    const char *driver, bool trust, uint8_t quirks,
    const struct pfc_mac_control_answers *, char **reason);
const char *pfc_mac_control_name(enum pfc_mac_control);

/* An rx queue of their own for MAC Control frames (mac-control-queue=true).
 *
 * PFC frames share the rx rings with data: under a flood a PFC frame waits
 * behind up to a ring of data frames, or is lost with them when the ring
 * overflows, and a pause ends only once every rx queue was polled after it
 * (struct pfc_rxq_drain).  Where the NIC allows it, the last rx queue of
 * the port is kept for frames of EtherType 0x8808, as upstream Open
 * vSwitch's rx-steering keeps one for LACP: the driver's RSS redirection
 * table spreads data over the other queues (pfc_reta_spread()), and an
 * rte_flow rule sends EtherType 0x8808 to the last one.  A pause then ends
 * as soon as that queue, which a flood never fills, was polled after it.
 * Nothing here calls a driver: the glue asks and passes the answers in. */
enum pfc_mcq {
    PFC_MCQ_OFF,            /* mac-control-queue=false (default). */
    PFC_MCQ_ON,             /* The last rx queue is the MAC Control
                             * frames' own. */
    PFC_MCQ_VIRTUAL,        /* No NIC: a virtual device. */
    PFC_MCQ_ONE_RXQ,        /* The port has one rx queue (options:n_rxq):
                             * none to spare. */
    PFC_MCQ_NO_RETA,        /* The driver has no RSS redirection table, or
                             * refused to update it. */
    PFC_MCQ_NO_FLOW,        /* The driver refused the rte_flow rule. */
    PFC_MCQ_RX_STEERING,    /* Refused: Open vSwitch's rx-steering
                             * (options:rx-steering) owns the port's last
                             * rx queue and its rte_flow rules. */
};

/* What the driver of a port answered, as negative errno values or 0
 * (DPDK's convention), for pfc_mcq_decide(); a request that was not made
 * is 0. */
struct pfc_mcq_answers {
    bool rx_steering;       /* Open vSwitch's rx-steering is configured on
                             * the port: nothing was asked. */
    uint16_t reta_size;     /* rte_eth_dev_info's reta_size: entries of
                             * the RSS redirection table, 0 if none. */
    int flow_validate;      /* rte_flow_validate() of the rule. */
    int reta_update;        /* rte_eth_dev_rss_reta_update(). */
    int flow_create;        /* rte_flow_create(): 0, or -rte_errno. */
};

enum pfc_mcq pfc_mcq_decide(bool want, bool is_virtual, uint32_t n_rxq,
                            const struct pfc_mcq_answers *);
const char *pfc_mcq_describe(enum pfc_mcq);
void pfc_reta_spread(uint16_t *queues, size_t n, uint16_t n_queues);

#endif /* pfc-nic.h */
