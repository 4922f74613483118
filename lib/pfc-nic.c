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

/* What PFC decides about a port's NIC (lib/pfc-nic.h). */

#include <config.h>
#include "pfc-nic.h"

#include <errno.h>
#include <string.h>

#include "openvswitch/util.h"
#include "pfc-config.h"
#include "util.h"

/* Returns the worst case, in bit times, of what a port still sends after its
 * PMD thread reads a PFC frame: a full tx ring of 'tx_desc' descriptors, every
 * one a 'max_frame'-byte frame with 20 bytes of preamble and inter-packet
 * gap.  Compare with PFC_RESPONSE_BOUND_BITS (seed 000 4.6).
 *
 * Nothing more is handed to the NIC for a paused class once the frame is read
 * (the "sent while paused" count of pfc/show checks it), so the ring is the
 * whole of it.  The time the frame waits in the receive ring before the PMD
 * thread reads it is not included: software cannot bound it. */
uint64_t
pfc_response_bits(uint32_t tx_desc, uint32_t max_frame)
{
    return (uint64_t) tx_desc * ((uint64_t) max_frame + 20) * 8;
}

/* Returns the worst-case XOFF send delay, in bit times at the link speed,
 * of a port with 'n_txq' data tx queues (at least 1) of 'tx_desc'
 * descriptors, sending frames of up to 'max_frame' bytes, to which a NIC
 * gives turns in round robin, a frame each (as NICs serve tx queues of one
 * traffic class):
 *
 *   - 'own_txq' false: the XOFF joins a data tx queue.  The frames already
 *     in its ring leave first, and as many from each of the other data tx
 *     queues meanwhile: 'n_txq' times pfc_response_bits().  0 if 'tx_desc'
 *     is 0.
 *
 *   - 'own_txq' true: the XOFF has a tx queue of its own
 *     (pfc_ctrl_txq_want()).  At most one frame of each data tx queue
 *     leaves before it, and at most one PFC frame per data tx queue's
 *     transmit thread is ahead of it in its own ring: 'n_txq' frames of
 *     'max_frame' bytes and 'n_txq' PFC frames of 64 bytes with their FCS,
 *     each with 20 bytes of preamble and inter-packet gap.
 *
 * Seed 000 4.6 bounds the delay of the response to a received PFC frame;
 * this is the same rings' delay on the XOFF that this switch sends, which
 * adds to the headroom of the delay model of seed 000 Annex A
 * (lib/pfc-headroom.h), which does not count it. */
uint64_t
pfc_xoff_delay_bits(uint32_t tx_desc, uint32_t max_frame, uint32_t n_txq,
                    bool own_txq)
{
    uint64_t n = MAX(n_txq, 1);

    if (own_txq) {
        return n * (pfc_response_bits(1, max_frame)
                    + pfc_response_bits(1, PFC_FRAME_LEN + 4));
    }
    return n * pfc_response_bits(tx_desc, max_frame);
}

/* Returns true if a port whose DPDK driver is 'driver', known for 'quirks'
 * (enum pfc_driver_quirk), should get one tx queue more than the 'n_txq'
 * that the datapath uses, for the PFC frames that this switch sends, so
 * that an XOFF never waits behind a data tx ring (pfc_xoff_delay_bits()):
 * the driver allows more than 'n_txq' tx queues ('max_txq'), and sends
 * MAC Control frames (a virtual device whose tx queues are independent
 * rings or sockets, or a physical NIC known to forward them that does not
 * drop them on transmit).  The datapath never sees that tx queue. */
bool
pfc_ctrl_txq_want(const char *driver, uint8_t quirks, uint32_t n_txq,
                  uint32_t max_txq)
{
    static const char *const independent[] = {
        "net_af_packet", "net_null", "net_pcap", "net_ring",
    };
    bool ok = false;

    if (!driver || !n_txq || max_txq <= n_txq) {
        return false;
    }
    for (size_t i = 0; i < ARRAY_SIZE(independent); i++) {
        ok = ok || !strcmp(driver, independent[i]);
    }
    return ok || ((quirks & PFC_QUIRK_FORWARDS)
                  && !(quirks & (PFC_QUIRK_IGNORES_FWD
                                 | PFC_QUIRK_TX_DROPS)));
}

/* Returns the largest tx ring, in descriptors, whose worst-case response
 * (pfc_response_bits()) with 'max_frame'-byte frames stays within
 * PFC_RESPONSE_BOUND_BITS, but at least 1: one frame of up to 1772 bytes
 * fits in the bound, none larger does. */
uint32_t
pfc_tx_ring_bound(uint32_t max_frame)
{
    uint64_t per_desc = ((uint64_t) max_frame + 20) * 8;

    return MAX(1, PFC_RESPONSE_BOUND_BITS / per_desc);
}

/* Returns the tx ring size, in descriptors, for a PFC port (PFC ports get a
 * tx ring sized to stay within the response bound where the driver allows
 * it):
 *
 *   - 'tx_ring_size' PFC_TX_RING_INTERFACE: 'interface_size', the Interface's
 *     n_txq_desc, untouched, as without PFC.
 *
 *   - PFC_TX_RING_AUTO: pfc_tx_ring_bound('max_frame'), then fitted to
 *     'lim'.
 *
 *   - 1..PFC_TX_RING_MAX: that many descriptors, fitted to 'lim'.
 *
 * Fitting raises the ring to lim->nb_min, rounds it up to a multiple of
 * lim->nb_align, and lowers it to the largest multiple within lim->nb_max,
 * so that the driver's queue setup cannot fail on the size. */
uint32_t
pfc_tx_ring_size(uint32_t tx_ring_size, uint32_t interface_size,
                 uint32_t max_frame, const struct pfc_ring_limits *lim)
{
    uint32_t align = MAX(lim->nb_align, 1);
    uint64_t ring;

    if (tx_ring_size == PFC_TX_RING_INTERFACE) {
        return interface_size;
    }
    ring = (tx_ring_size == PFC_TX_RING_AUTO ? pfc_tx_ring_bound(max_frame)
            : tx_ring_size);
    ring = MAX(ring, lim->nb_min);
    ring = ROUND_UP(ring, align);
    if (lim->nb_max && ring > lim->nb_max) {
        ring = ROUND_DOWN(lim->nb_max, align);
    }
    return MAX(ring, 1);
}

/* DPDK drivers of devices without a MAC of their own: software, or a
 * paravirtual NIC whose host hands frames through as they are.  MAC Control
 * frames reach this switch through them like any packet. */
static const char *const pfc_virtual_drivers[] = {
    "net_af_packet", "net_af_xdp", "net_pcap", "net_null", "net_ring",
    "net_tap", "net_virtio_user", "net_virtio", "net_vhost", "net_memif",
};

/* Returns true if 'driver', a DPDK driver name (rte_eth_dev_info's
 * driver_name), is a virtual device (pfc_virtual_drivers). */
bool
pfc_driver_is_virtual(const char *driver)
{
    for (size_t i = 0; i < ARRAY_SIZE(pfc_virtual_drivers); i++) {
        if (driver && !strcmp(driver, pfc_virtual_drivers[i])) {
            return true;
        }
    }
    return false;
}

/* The driver policy, by rte_eth_dev_info's driver_name (enum
 * pfc_driver_quirk).  Known to forward MAC Control frames when asked: the
 * drivers whose mac_ctrl_frame_fwd sets the MAC's "pass control frames"
 * bit, e1000 em, igb and igc (RCTL.PMCF), ixgbe (MFLCN.PMCF), i40e (and it
 * clears "discard pause frames"), txgbe and ngbe.  i40e also installs a tx
 * filter for EtherType 0x8808 at init: it sends none.  mlx5 does PFC in the
 * kernel or firmware only and ignores mac_ctrl_frame_fwd, as dpaa does; ice
 * honours it only on E830, and not for PFC frames.  Any other physical
 * driver (ice_dcf, mlx4, bnxt, cnxk, hns3, sfc...) is unknown. */
static const struct {
    const char *driver;
    uint8_t quirks;
} pfc_driver_policy[] = {
    { "net_e1000_em", PFC_QUIRK_FORWARDS },
    { "net_e1000_igb", PFC_QUIRK_FORWARDS },
    { "net_igc", PFC_QUIRK_FORWARDS },
    { "net_ixgbe", PFC_QUIRK_FORWARDS },
    { "net_i40e", PFC_QUIRK_FORWARDS | PFC_QUIRK_TX_DROPS },
    { "net_txgbe", PFC_QUIRK_FORWARDS },
    { "net_ngbe", PFC_QUIRK_FORWARDS },
    { "mlx5_pci", PFC_QUIRK_IGNORES_FWD },
    { "net_dpaa", PFC_QUIRK_IGNORES_FWD },
    { "net_ice", PFC_QUIRK_IGNORES_FWD },
};

/* Returns the enum pfc_driver_quirk bits of DPDK driver 'driver' (0 for a
 * driver the policy does not know, or NULL). */
uint8_t
pfc_driver_quirks(const char *driver)
{
    for (size_t i = 0; i < ARRAY_SIZE(pfc_driver_policy); i++) {
        if (driver && !strcmp(driver, pfc_driver_policy[i].driver)) {
            return pfc_driver_policy[i].quirks;
        }
    }
    return 0;
}

/* Returns true if the NIC of a port with driver 'driver' must be asked to pass
 * MAC Control frames to software before PFC can work on it: a physical NIC
 * whose driver is known to forward them ('quirks' has PFC_QUIRK_FORWARDS),
 * unless the operator set mac-control=trust ('trust').  Any other physical
 * NIC is not touched, and pfc_mac_control_decide() refuses it. */
bool
pfc_mac_control_needs_nic(const char *driver, bool trust, uint8_t quirks)
{
    return (!pfc_driver_is_virtual(driver) && !trust
            && (quirks & PFC_QUIRK_FORWARDS)
            && !(quirks & PFC_QUIRK_IGNORES_FWD));
}

/* Decides how MAC Control frames reach this switch on a port whose driver is
 * 'driver', known for 'quirks' (enum pfc_driver_quirk), with
 * mac-control=trust if 'trust', given what the driver answered ('answers',
 * ignored unless pfc_mac_control_needs_nic()).  mac-control=trust overrides
 * every quirk.  A physical NIC whose driver is not known to forward MAC
 * Control frames (PFC_QUIRK_FORWARDS) is refused.  On
 * PFC_MAC_CONTROL_REFUSED, stores in '*reason' a message, for the log and
 * pfc/show, that names the driver and the DPDK call that failed, or what
 * the driver is known to do; the caller frees it.  Otherwise '*reason' is
 * NULL. */
enum pfc_mac_control
pfc_mac_control_decide(const char *driver, bool trust, uint8_t quirks,
                       const struct pfc_mac_control_answers *answers,
                       char **reason)
{
    const char *call = NULL;
    int err = 0;

    *reason = NULL;
    if (pfc_driver_is_virtual(driver)) {
        return PFC_MAC_CONTROL_VIRTUAL;
    }
    if (trust) {
        return PFC_MAC_CONTROL_TRUSTED;
    }
    if (quirks & PFC_QUIRK_IGNORES_FWD) {
        *reason = xasprintf("driver %s accepts mac_ctrl_frame_fwd but "
                            "ignores it: PFC frames would never reach this "
                            "switch. Configure PFC on the NIC itself, or "
                            "set other_config:mac-control=trust only if "
                            "you made sure they do",
                            driver ? driver : "(unknown)");
        return PFC_MAC_CONTROL_REFUSED;
    }
    if (!(quirks & PFC_QUIRK_FORWARDS)) {
        *reason = xasprintf("driver %s is not known to pass MAC Control "
                            "frames to software (a driver may accept "
                            "mac_ctrl_frame_fwd and ignore it): PFC frames "
                            "might never reach this switch. Set other_config:"
                            "mac-control=trust only if you made sure they do",
                            driver ? driver : "(unknown)");
        return PFC_MAC_CONTROL_REFUSED;
    }
    if (answers->flow_ctrl_get) {
        call = "rte_eth_dev_flow_ctrl_get()";
        err = answers->flow_ctrl_get;
    } else if (answers->flow_ctrl_set) {
        call = "rte_eth_dev_flow_ctrl_set() with mac_ctrl_frame_fwd=1";
        err = answers->flow_ctrl_set;
    } else if (answers->allmulticast) {
        call = "rte_eth_allmulticast_enable() (to receive "
               "01-80-C2-00-00-01)";
        err = answers->allmulticast;
    } else {
        return (quirks & PFC_QUIRK_TX_DROPS ? PFC_MAC_CONTROL_RX_ONLY
                : PFC_MAC_CONTROL_NIC);
    }
    *reason = xasprintf("driver %s cannot pass MAC Control frames to "
                        "software: %s failed (%s); PFC frames would never "
                        "reach this switch. Set other_config:"
                        "mac-control=trust only if you made sure they do",
                        driver ? driver : "(unknown)", call,
                        ovs_strerror(err < 0 ? -err : err));
    return PFC_MAC_CONTROL_REFUSED;
}

/* Returns how pfc/show describes 'mc'. */
const char *
pfc_mac_control_name(enum pfc_mac_control mc)
{
    switch (mc) {
    case PFC_MAC_CONTROL_VIRTUAL:
        return "virtual device";
    case PFC_MAC_CONTROL_NIC:
        return "forwarded by the NIC";
    case PFC_MAC_CONTROL_TRUSTED:
        return "trusted by configuration";
    case PFC_MAC_CONTROL_RX_ONLY:
        return "forwarded by the NIC, receive only (the NIC drops the MAC "
               "Control frames this switch sends: no XOFF)";
    case PFC_MAC_CONTROL_REFUSED:
    default:
        return "refused by the driver";
    }
}

/* Returns what becomes of mac-control-queue ('want') on a port that is
 * virtual or not ('is_virtual'), has 'n_rxq' rx queues and whose driver
 * answered 'a' (struct pfc_mcq_answers): PFC_MCQ_ON only if every request
 * succeeded.  The glue makes the requests in the order of the members of
 * 'a' and stops at the first that fails.  'a' may be NULL for a virtual
 * port, which is asked nothing. */
enum pfc_mcq
pfc_mcq_decide(bool want, bool is_virtual, uint32_t n_rxq,
               const struct pfc_mcq_answers *a)
{
    if (!want) {
        return PFC_MCQ_OFF;
    } else if (a && a->rx_steering) {
        return PFC_MCQ_RX_STEERING;
    } else if (is_virtual) {
        return PFC_MCQ_VIRTUAL;
    } else if (n_rxq < 2) {
        return PFC_MCQ_ONE_RXQ;
    } else if (!a || !a->reta_size) {
        return PFC_MCQ_NO_RETA;
    } else if (a->flow_validate) {
        return PFC_MCQ_NO_FLOW;
    } else if (a->reta_update) {
        return PFC_MCQ_NO_RETA;
    } else if (a->flow_create) {
        return PFC_MCQ_NO_FLOW;
    }
    return PFC_MCQ_ON;
}

/* Returns how pfc/show describes 'mcq': where MAC Control frames are read,
 * and why not from a queue of their own. */
const char *
pfc_mcq_describe(enum pfc_mcq mcq)
{
    switch (mcq) {
    case PFC_MCQ_ON:
        return "read from an rx queue of their own (the last)";
    case PFC_MCQ_VIRTUAL:
        return "read from the data rx queues (a virtual device)";
    case PFC_MCQ_ONE_RXQ:
        return ("read from the data rx queues (mac-control-queue needs "
                "options:n_rxq of 2 or more)");
    case PFC_MCQ_NO_RETA:
        return ("read from the data rx queues (the driver has no RSS "
                "redirection table to update)");
    case PFC_MCQ_NO_FLOW:
        return ("read from the data rx queues (the driver refused an "
                "rte_flow rule for EtherType 0x8808)");
    case PFC_MCQ_RX_STEERING:
        return ("read from the data rx queues (mac-control-queue does not "
                "apply while options:rx-steering is set: Open vSwitch's rx "
                "steering owns the last rx queue and the port's rte_flow "
                "rules)");
    case PFC_MCQ_OFF:
    default:
        return "read from the data rx queues";
    }
}

/* Fills the 'n' entries of an RSS redirection table, 'queues', with rx
 * queues 0 to 'n_queues' - 1 in turn, as drivers do by default: with
 * 'n_queues' one less than the port's rx queues, data spreads over all but
 * the last.  'n_queues' 0 counts as 1. */
void
pfc_reta_spread(uint16_t *queues, size_t n, uint16_t n_queues)
{
    for (size_t i = 0; i < n; i++) {
        queues[i] = i % MAX(n_queues, 1);
    }
}
