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

#ifndef PFC_H
#define PFC_H 1

/* IEEE 802.1Qbb Priority-based Flow Control: protocol core.
 *
 * This module is the whole of PFC that does not touch a NIC: the frame
 * codec, the eight pause timers of a receiving port and the rule that ends a
 * pause, the XOFF/XON decision of a port whose ingress buffers fill, the
 * traffic class queues (struct pfc_holdq: "held" packets wait in them) and,
 * in lib/pfc-config.c, the parsing of the "pfc" QoS configuration.  Like
 * DPDK's rte_meter it holds no clock of its own: every function that
 * depends on time takes 'now' in ticks of a caller-chosen monotonic clock
 * (the TSC in the DPDK datapath), and 'struct pfc_timebase' converts pause
 * quanta into those ticks.  Nothing here
 * includes DPDK, so every timing rule is testable with a fake clock
 * (tests/test-pfc.c).
 *
 * None of these functions take locks; callers serialize access to each
 * object.
 *
 * Sources, referred to in comments below:
 *   - seed 000: IEEE 802.1 DCB TG, "Proposal for Priority Based Flow Control"
 *     (bb-pelissier-pfc-proposal-0508), sections 3 to 6.
 *   - seed 002: "Definition for new PAUSE function" (CBFC), section 4, for
 *     the management counters.
 *   - IEEE Std 802.3 Annex 31D, the final standard for the frame format;
 *     where it differs from the seeds, this code follows 802.3 and says so.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "openvswitch/types.h"
#include "packets.h"
#include "pfc-classify.h"

struct ds;
struct smap;

/* Number of 802.1p priorities, of pause timers and of traffic classes. */
#define PFC_N_PRIOS 8

/* MAC Control EtherType and opcodes (IEEE 802.3 Annex 31A). */
#define PFC_ETH_TYPE_MAC_CONTROL 0x8808
#define PFC_OPCODE_PAUSE 0x0001        /* 802.3x PAUSE (Annex 31B). */
#define PFC_OPCODE_PFC 0x0101          /* PFC (Annex 31D, seed 000 3.2). */

/* Octets of a PFC frame that carry meaning: DA, SA, EtherType (14), opcode
 * (2), priority_enable_vector (2), time[0..7] (16).  A received frame at least
 * this long is accepted even when unpadded. */
#define PFC_FRAME_MIN_LEN 34

/* Length of a PFC frame as sent, excluding the FCS: padded with zeros to the
 * 60-octet minimum (64 octets with the FCS). */
#define PFC_FRAME_LEN 60

/* One pause quantum is 512 bit times at the link speed (802.3 31B.2). */
#define PFC_QUANTUM_BITS 512

/* Largest time[n] value, in pause quanta. */
#define PFC_MAX_QUANTA 65535

/* Destination address of every MAC Control frame, 01-80-C2-00-00-01. */
extern const struct eth_addr pfc_mac_control_dst;

/* The request_operand of a PFC frame (seed 000 3.2, 4.1). */
struct pfc_frame {
    uint8_t enable;                 /* priority_enable_vector, low octet:
                                     * bit n is e[n].  The high octet is
                                     * reserved: sent as 0, ignored on
                                     * receive. */
    uint16_t time[PFC_N_PRIOS];     /* time[n], pause quanta, 0..65535.
                                     * Meaningful only where e[n] = 1;
                                     * 0 resumes priority n at once. */
};

/* What pfc_frame_decode() found in a received frame. */
enum pfc_rx_kind {
    PFC_RX_NOT_MAC_CONTROL, /* Ordinary traffic: give it to the datapath. */
    PFC_RX_PFC,             /* A valid PFC frame: act on it. */
    PFC_RX_PAUSE,           /* 802.3x PAUSE: on a PFC port it is ignored
                             * (seed 000 3.3) and counted. */
    PFC_RX_UNSUPPORTED,     /* MAC Control with any other opcode. */
    PFC_RX_INVALID,         /* Truncated, VLAN-tagged, or a PFC opcode with
                             * a DA other than 01-80-C2-00-00-01: counted,
                             * never acted on. */
};

enum pfc_rx_kind pfc_frame_decode(const void *data, size_t len,
                                  struct pfc_frame *frame);

/* Returns false if pfc_frame_decode() would return PFC_RX_NOT_MAC_CONTROL for
 * the 'len'-byte frame at 'data': its EtherType, or that behind one 802.1Q or
 * 802.1ad tag, is not 0x8808 (802.3 Annex 31A).  Inline, so that the receive
 * path of a PFC port pays two compares per ordinary packet, not a call. */
static inline bool
pfc_maybe_mac_control(const void *data_, size_t len)
{
    const uint8_t *data = data_;
    uint16_t type;

    if (len < ETH_HEADER_LEN) {
        return false;
    }
    type = (data[12] << 8) | data[13];
    if (type == PFC_ETH_TYPE_MAC_CONTROL) {
        return true;
    }
    return ((type == ETH_TYPE_VLAN_8021Q || type == ETH_TYPE_VLAN_8021AD)
            && len >= ETH_HEADER_LEN + VLAN_HEADER_LEN
            && ((data[16] << 8) | data[17]) == PFC_ETH_TYPE_MAC_CONTROL);
}
/* Returns true if the frame of 'len' octets at 'data' must never leave a port
 * unless this switch's PFC generated it: a MAC Control frame (EtherType
 * 0x8808, IEEE 802.3 Annex 31A), also behind one or two 802.1Q or 802.1ad
 * tags, or any frame to 01-80-C2-00-00-01, which IEEE 802.1Q-2018 Table 8-1
 * reserves and no bridge forwards.  IEEE 802.3 Clause 31 never passes MAC
 * Control frames to a MAC client, so a guest's PAUSE or PFC frame can only
 * reach the wire through a switch that forwards it: this one does not.
 * Inline and cheap: every DPDK port calls it for every packet it sends. */
static inline bool
pfc_tx_forbidden(const void *data_, size_t len)
{
    const uint8_t *data = data_;
    size_t off = 2 * ETH_ADDR_LEN;

    if (len < ETH_HEADER_LEN) {
        return false;
    }
    if (data[0] == 0x01 && data[1] == 0x80 && data[2] == 0xc2
        && !data[3] && !data[4] && data[5] == 0x01) {
        return true;
    }
    for (int tags = 0; ; tags++) {
        uint16_t type = (data[off] << 8) | data[off + 1];

        if (type == PFC_ETH_TYPE_MAC_CONTROL) {
            return true;
        }
        if (tags == 2
            || (type != ETH_TYPE_VLAN_8021Q && type != ETH_TYPE_VLAN_8021AD)
            || len < off + VLAN_HEADER_LEN + 2) {
            return false;
        }
        off += VLAN_HEADER_LEN;
    }
}

size_t pfc_frame_encode(void *buf, const struct eth_addr *src,
                        const struct pfc_frame *frame);

/* Returns the 802.1p priority, 0..7, of the frame of 'len' octets at 'data':
 * the PCP of its outer 802.1Q (or 802.1ad) tag, or 'default_priority' when it
 * is untagged or too short to tell.  Inline: the transmit path of a PFC port
 * classifies every packet while a class is paused. */
static inline int
pfc_packet_priority(const void *data_, size_t len, int default_priority)
{
    const uint8_t *data = data_;

    if (len >= ETH_HEADER_LEN + VLAN_HEADER_LEN) {
        uint16_t type = (data[12] << 8) | data[13];

        if (type == ETH_TYPE_VLAN_8021Q || type == ETH_TYPE_VLAN_8021AD) {
            return data[14] >> 5;
        }
    }
    return default_priority;
}

/* Converts pause quanta to clock ticks. */
struct pfc_timebase {
    uint64_t hz;                /* Clock ticks per second, > 0 (the TSC
                                 * frequency in the DPDK datapath). */
    uint64_t link_speed;        /* Link speed in bit/s, > 0. */
};

uint64_t pfc_quanta_to_ticks(const struct pfc_timebase *, uint32_t quanta);
uint64_t pfc_ticks_to_ns(const struct pfc_timebase *, uint64_t ticks);
uint64_t pfc_quantum_ps(const struct pfc_timebase *);

/* The eight pause timers Time(n) of a port that receives PFC frames (seed 000
 * 4.4, 4.5), and the time each priority spent paused.  Priority n is paused
 * at 'now' if and only if now < until[n]. */
struct pfc_pause {
    uint64_t until[PFC_N_PRIOS];    /* Tick at which priority n resumes.
                                     * 0 when it was never paused. */
    uint64_t since[PFC_N_PRIOS];    /* Tick at which the current pause of
                                     * priority n began. */
    uint64_t paused_ticks[PFC_N_PRIOS]; /* Ticks spent paused, in pauses that
                                         * have ended. */
    uint8_t open;                   /* Bit n: a pause of priority n began at
                                     * since[n] and is not yet accounted
                                     * in paused_ticks[n]. */
};

void pfc_pause_init(struct pfc_pause *);
uint8_t pfc_pause_receive(struct pfc_pause *, const struct pfc_frame *,
                          const struct pfc_timebase *, uint64_t now,
                          uint64_t earliest);
struct pfc_counters;
uint8_t pfc_receive(struct pfc_pause *, struct pfc_counters *,
                    const struct pfc_frame *, uint8_t enabled,
                    const struct pfc_timebase *, uint64_t now,
                    uint64_t earliest);
uint8_t pfc_pause_status(const struct pfc_pause *, uint64_t now);
uint64_t pfc_pause_remaining(const struct pfc_pause *, int prio,
                             uint64_t now);
uint64_t pfc_pause_total(const struct pfc_pause *, int prio, uint64_t now);

uint8_t pfc_tcs_prios(const uint8_t prio_to_tc[PFC_N_PRIOS], uint8_t tcs);
uint8_t pfc_tcs_blocked(const uint8_t prio_to_tc[PFC_N_PRIOS],
                        uint8_t paused);

/* Transmit side: the XOFF state of a port towards its link partner.  When
 * XOFF and XON are due is decided by the shared-buffer traffic manager
 * (lib/pfc-buffer.h, pfc_xoff_run()). */
struct pfc_xoff {
    uint8_t asserted;                   /* Bit n: XOFF is in force for
                                         * priority n at the partner. */
    uint64_t refresh_at[PFC_N_PRIOS];   /* Tick at which the XOFF for
                                         * priority n is sent again, half a
                                         * pause after the last one, so the
                                         * partner's timer never runs out
                                         * while the occupancy stays high. */
};

/* What pfc_xoff_run() does for one enabled priority. */
enum pfc_xoff_action {
    PFC_XOFF_NONE,              /* No frame names this priority. */
    PFC_XOFF_START,             /* XOFF: the occupancy reached a threshold. */
    PFC_XOFF_REFRESH,           /* XOFF again: half a pause since the last. */
    PFC_XOFF_XON,               /* XON (time 0): the occupancy fell to XON. */
};

void pfc_xoff_init(struct pfc_xoff *);

/* A packet held in a traffic class queue: it waits to be handed to the NIC
 * because its class is paused, has older packets waiting, or the tx ring
 * was full. */
struct pfc_held {
    void *pkt;                  /* The packet, opaque here. */
    uint32_t len;               /* Bytes it adds to the ingress buffer
                                 * occupancy of (in_port, prio). */
    uint16_t in_port;           /* Ingress port whose occupancy it adds
                                 * to, or UINT16_MAX for none. */
    uint8_t prio;               /* 802.1p priority, 0..7. */
    bool lossy;                 /* Admitted as lossy (lib/pfc-buffer.h):
                                 * charged to the shared pool and to no
                                 * priority group. */
};

/* A traffic class queue: a bounded FIFO of held packets, one per traffic
 * class of each tx queue of a port. */
struct pfc_holdq {
    struct pfc_held *ring;      /* 'cap' slots. */
    uint32_t cap;               /* Slots in 'ring', >= 'limit'. */
    uint32_t limit;             /* Packets pfc_holdq_push() accepts
                                 * (queue-size).  A reconfiguration can
                                 * leave more than this held
                                 * (pfc_holdq_append()). */
    uint32_t head;              /* Index of the oldest packet. */
    uint32_t n;                 /* Packets held, 0..cap. */
    uint32_t n_lossy;           /* Of which admitted as lossy. */
};

void pfc_holdq_init(struct pfc_holdq *, uint32_t cap);
void pfc_holdq_destroy(struct pfc_holdq *);
bool pfc_holdq_push(struct pfc_holdq *, const struct pfc_held *);
void pfc_holdq_reserve(struct pfc_holdq *, uint32_t n);
void pfc_holdq_swap_ring(struct pfc_holdq *, struct pfc_held **ring,
                         uint32_t cap);
bool pfc_holdq_append(struct pfc_holdq *, const struct pfc_held *);
const struct pfc_held *pfc_holdq_peek(const struct pfc_holdq *, uint32_t i);
void pfc_holdq_pop(struct pfc_holdq *, uint32_t n);
size_t pfc_holdq_remap(struct pfc_holdq q[PFC_N_PRIOS],
                       const uint8_t prio_to_tc[PFC_N_PRIOS],
                       struct pfc_held *moved, struct pfc_held *dropped);
size_t pfc_holdq_merge(struct pfc_holdq dst[PFC_N_PRIOS],
                       struct pfc_holdq src[PFC_N_PRIOS]);
size_t pfc_holdq_room(const struct pfc_holdq q[PFC_N_PRIOS]);

/* PFC watchdog: storm detection and restoration.
 *
 * A link partner that keeps pausing a priority and never lets it go (a "PFC
 * storm": a stuck NIC, a host that stopped reading its rings, a pause
 * deadlock) holds that priority's traffic at this port's egress for ever.
 * Since held packets count against the XOFF threshold of the ports they
 * arrived on, the pause then spreads to every port that feeds it.  The
 * watchdog declares such a (port, priority) "stormed" and, depending on
 * watchdog-action, stops honouring its pauses until the partner has been
 * quiet for a while, as SONiC's pfcwd does.
 *
 * Each priority in pfc-enable is in one of two states:
 *
 *   operational --(detection)--> stormed --(restoration)--> operational
 *
 *   - Detection: for the whole of watchdog-detection-time the priority
 *     stayed paused, by XOFF refreshed before it ran out, never ended by an
 *     XON (time 0) or by expiry, and its traffic class had packets waiting
 *     that could not leave.
 *   - Restoration: watchdog-restoration-time passed, counted from the
 *     detection, with no PFC frame that pauses the priority (time[n] > 0),
 *     and the pause of the last one ran out (or an XON ended it): honouring
 *     a pause still in force would only start the next storm.  XON frames
 *     do not hold restoration back, so an XOFF storm that turns into an XON
 *     storm is restored too.  After restoration the priority honours pauses
 *     again and detection starts from scratch.
 *
 * The same rule restores a priority whatever the action, also "alert".
 *
 * A port without a MAC, such as a vhost-user port, receives no PFC frames:
 * its partner is a guest, which stops this switch's transmit by not
 * reading its receive queue (virtqueue).  For such a port a check interval
 * in which a receive queue refused packets and took none
 * (pfc_wd_vq_stalled()) stands in for a refreshed XOFF of every priority in
 * pfc-enable (pfc_wd_stall()): the guest stormed when it read nothing for
 * watchdog-detection-time while packets waited, and is restored once it
 * was not seen stalled for watchdog-restoration-time.  A guest that reads
 * slowly but reads is never stormed: that is backpressure working.  As
 * "forward" cannot send to a guest that does not read, both "drop" and
 * "forward" drop there: what the guest's queue refuses of a stormed
 * priority is dropped instead of held (pfc_wd_dropped()).
 *
 * A port with a MAC judges as SONiC's pfcwd does, from what blocks
 * transmission: "packets waiting, nothing sent".  Besides the pause timers,
 * a traffic class of a tx queue that held packets at two checks in a row
 * and sent none of them in between (pfc_wd_txq_stalled()) stands in for a
 * pause of its enabled priorities, if in that interval it could not send
 * (a pause as the transmit path sees it, which the pause-end rule of struct
 * pfc_rxq_drain may extend past its timer) or the tx queue sent no held
 * packet of any class (an egress that does not drain: a stuck NIC, a full
 * tx ring that never empties).  A class that waits behind other classes of
 * an egress that drains is congested, not stormed.
 *
 * This is the state machine only, pure like the pause timers: the caller
 * passes the clock in (ticks, the TSC in the DPDK datapath), tells
 * pfc_wd_frame() about every valid PFC frame the port receives and calls
 * pfc_wd_run() at every check (every PMD iteration), and applies the action
 * itself (pfc_wd_ignored(), pfc_wd_dropped()).  Detection is exact given the
 * checks: a storm is declared at the first check at least
 * watchdog-detection-time after the first check that saw the condition, so
 * within watchdog-detection-time plus one check interval of it. */

/* What a stormed priority does (other_config:watchdog-action).  The core only
 * reports it; the caller acts. */
enum pfc_wd_action {
    PFC_WD_DROP,        /* "drop" (default): pauses of the priority are
                         * ignored; its packets held and newly sent at this
                         * egress are dropped and counted, and so are its
                         * packets arriving on this port; held packets no
                         * longer count against ingress XOFF. */
    PFC_WD_FORWARD,     /* "forward": pauses of the priority are ignored; its
                         * held and new packets are sent. */
    PFC_WD_ALERT,       /* "alert": logged and counted only; pauses are
                         * still honoured. */
};

/* Watchdog configuration of a port, in ticks (pfc_wd_params_init()). */
struct pfc_wd_params {
    uint8_t enabled;            /* Bit n: priority n is in pfc-enable and so
                                 * watched.  Other priorities are never
                                 * stormed. */
    uint64_t detect_ticks;      /* watchdog-detection-time in ticks, or 0
                                 * for the watchdog off. */
    uint64_t restore_ticks;     /* watchdog-restoration-time in ticks.  0
                                 * restores at the first check after the
                                 * detection. */
    enum pfc_wd_action action;  /* watchdog-action. */
    bool guest;                 /* The port has no MAC (a vhost-user port):
                                 * pfc_wd_stall() stands in for PFC frames,
                                 * and "forward" drops as "drop" does. */
};

/* Watchdog state of a port: per priority, operational or stormed. */
struct pfc_wd {
    uint8_t stormed;                /* Bit n: priority n is stormed; clear:
                                     * operational. */
    uint8_t detecting;              /* Bit n: since[n] holds the start of a
                                     * detection interval still running. */
    uint64_t since[PFC_N_PRIOS];    /* Tick of the first check of the
                                     * current detection interval of priority
                                     * n: the priority has been paused by
                                     * XOFF, with packets waiting, at every
                                     * check since.  Meaningful only where
                                     * 'detecting' has bit n. */
    uint64_t last_xoff[PFC_N_PRIOS]; /* Tick of the last received PFC frame
                                      * that paused priority n (time[n] > 0)
                                      * while it was enabled, 0 if none.  0
                                      * needs no flag: restoration also
                                      * waits from stormed_at[n], which is
                                      * never earlier. */
    uint64_t stormed_at[PFC_N_PRIOS]; /* Tick at which the current, or the
                                       * last, storm of priority n was
                                       * detected; meaningful once
                                       * storms_detected[n] > 0. */
    uint64_t storms_detected[PFC_N_PRIOS]; /* operational -> stormed. */
    uint64_t storms_restored[PFC_N_PRIOS]; /* stormed -> operational, also
                                            * when the watchdog was turned
                                            * off or the priority left
                                            * pfc-enable. */
};

/* Returns the priorities whose pauses must be ignored: stormed with an action
 * other than "alert".  The caller leaves them out of the paused status vector
 * before it blocks traffic classes (pfc_tcs_blocked()); they honour pauses
 * again once restored.  With the watchdog off it returns 0 at once, even
 * before the next pfc_wd_run() restores them.  Inline: transmit paths ask. */
static inline uint8_t
pfc_wd_ignored(const struct pfc_wd *wd, const struct pfc_wd_params *params)
{
    return (params->detect_ticks && params->action != PFC_WD_ALERT
            ? wd->stormed & params->enabled : 0);
}

/* Returns the stormed priorities whose packets must be dropped (action
 * "drop"): those held and newly sent at this egress, and those arriving on
 * this port.  A subset of pfc_wd_ignored(). */
static inline uint8_t
pfc_wd_dropped(const struct pfc_wd *wd, const struct pfc_wd_params *params)
{
    return (params->action == PFC_WD_DROP || params->guest
            ? pfc_wd_ignored(wd, params) : 0);
}

/* What the watchdog of a port with a MAC saw of the traffic class queues of
 * one of its tx queues at the last check (pfc_wd_txq_stalled()). */
struct pfc_wd_txq {
    uint64_t left[PFC_N_PRIOS]; /* Per traffic class, held packets that left
                                 * for the tx ring, since the port was
                                 * bound. */
    uint8_t waiting;            /* Traffic classes that held packets. */
};

/* What the watchdog of a port without a MAC saw of one receive queue of its
 * guest at the last check (pfc_wd_vq_stalled()). */
struct pfc_wd_vq {
    uint64_t refused;   /* Transmit attempts that the queue refused, in
                         * part or whole, since the port was bound. */
    uint64_t taken;     /* Packets the queue took, since the same time. */
    uint64_t backlog;   /* Packets that waited for the queue at the check
                         * that began the current drain window... */
    uint64_t base;      /* ...and 'taken' then. */
};

struct pfc_config;
uint64_t pfc_ms_to_ticks(uint64_t hz, uint32_t ms);
void pfc_wd_params_init(struct pfc_wd_params *, const struct pfc_config *,
                        uint64_t hz);
void pfc_wd_init(struct pfc_wd *);
void pfc_wd_frame(struct pfc_wd *, const struct pfc_frame *, uint8_t enabled,
                  uint8_t began, uint64_t now);
uint8_t pfc_wd_run(struct pfc_wd *, const struct pfc_wd_params *,
                   uint8_t paused, uint8_t waiting, uint64_t now,
                   uint8_t *detected, uint8_t *restored);
bool pfc_wd_vq_stalled(struct pfc_wd_vq *, uint64_t refused, uint64_t taken,
                       uint64_t waiting);
uint8_t pfc_wd_txq_stalled(struct pfc_wd_txq *,
                           const uint64_t left[PFC_N_PRIOS], uint8_t waiting,
                           uint8_t blocked);
void pfc_wd_stall(struct pfc_wd *, uint8_t prios, uint8_t enabled,
                  uint64_t now);
const char *pfc_wd_action_name(enum pfc_wd_action);
bool pfc_wd_action_from_string(const char *, enum pfc_wd_action *);

/* Configuration of a port with QoS type "pfc" (vswitchd/vswitch.xml). */
struct pfc_config {
    uint8_t enabled;            /* The operational vector: bit n set for
                                 * each lossless priority n.  'admin',
                                 * unless DCBX adopted the link partner's
                                 * (lib/pfc-dcbx.h). */
    uint8_t admin;              /* pfc-enable, as configured.  Default:
                                 * none. */
    bool dcbx;                  /* dcbx=ieee (default "off"): IEEE 802.1Qaz
                                 * DCBX over LLDP (lib/pfc-dcbx.h). */
    bool dcbx_willing;          /* dcbx-willing (default true). */
    uint32_t lldp_tx_interval;  /* lldp-tx-interval, seconds,
                                 * PFC_LLDP_TX_INTERVAL_MIN..MAX (default
                                 * 30). */
    uint64_t xoff_threshold;    /* xoff-threshold, bytes per priority group
                                 * (ingress port, priority), 64..2^32-1, or
                                 * 0 if not set: then the threshold is
                                 * dynamic (dyn_th, lib/pfc-buffer.h). */
    uint64_t xon_threshold;     /* xon-threshold, bytes, 0..xoff_threshold-1.
                                 * Default: xoff_threshold / 2.  Only with
                                 * xoff-threshold. */
    bool xon_default;           /* True if xon_threshold was derived. */
    uint32_t cable_length;      /* cable-length, metres, 0..100000 (default
                                 * 100): input of the headroom model. */
    int headroom_model;         /* headroom-model, an enum
                                 * pfc_headroom_model (default annex-a). */
    uint32_t xon_hysteresis;    /* xon-hysteresis, cells, 1..65536, or 0
                                 * for half the dynamic threshold: XON =
                                 * threshold - hysteresis.  Only without
                                 * xoff-threshold. */
    uint16_t pause_quanta;      /* pause-quanta, 1..65535 (default 65535). */
    bool mac_control_trust;     /* mac-control=trust: MAC Control frames
                                 * are taken to reach this switch without
                                 * asking the NIC (default "auto": see
                                 * pfc_mac_control_decide()). */
    bool mac_control_queue;     /* mac-control-queue=true: MAC Control
                                 * frames get an rx queue of their own where
                                 * the NIC allows it (pfc_mcq_decide()).
                                 * Default false. */
    uint32_t queue_size;        /* queue-size: static bound on the cells
                                 * one traffic class queue holds,
                                 * 1..65536, or 0 (default) for the
                                 * dynamic share (lib/pfc-buffer.h). */
    int8_t dyn_th;              /* dynamic-th: alpha of this port's
                                 * lossless priority groups,
                                 * PFC_DYN_TH_MIN..MAX (default 0). */
    int8_t egress_dyn_th;       /* egress-dynamic-th: alpha of the share
                                 * of one of its traffic class queues
                                 * (default 1). */
    int8_t lossy_dyn_th;        /* lossy-dynamic-th: alpha of the lossy
                                 * cells one of its traffic class queues
                                 * holds (default -1). */
    uint8_t default_priority;   /* default-priority: the priority of the
                                 * untagged frames that the port receives
                                 * (and, under trust=dscp, of those that are
                                 * neither tagged nor IP), 0..7 (default
                                 * 0). */
    uint8_t trust;              /* trust: an enum pfc_trust, pcp (default)
                                 * or dscp: how the port classifies what it
                                 * receives (lib/pfc-classify.h). */
    uint8_t dscp_to_prio[64];   /* dscp-map over the default DSCP / 8,
                                 * each 0..7; only under trust=dscp. */
    struct pfc_rewrite rewrite; /* rewrite-pcp and rewrite-dscp: the
                                 * markings the port writes, from each
                                 * packet's priority, on what it sends. */
    uint64_t link_speed;        /* link-speed override in bit/s, 0 for the
                                 * link's own speed. */
    uint32_t tx_ring_size;      /* tx-ring-size: descriptors per tx queue,
                                 * 1..4096, or PFC_TX_RING_AUTO (the
                                 * smallest ring within the 802.1Qbb
                                 * response bound, seed 000 4.6; applying
                                 * it restarts the port) or
                                 * PFC_TX_RING_INTERFACE (default: the
                                 * Interface's options:n_txq_desc, so that
                                 * PFC never restarts the port).  See
                                 * pfc_tx_ring_size(). */
    uint8_t tc_prios[PFC_N_PRIOS];  /* Bit n of tc_prios[tc]: priority n was
                                     * mapped to class tc by queue tc's
                                     * other_config:priorities. */
    uint8_t prio_to_tc[PFC_N_PRIOS]; /* Traffic class of each priority,
                                      * derived from tc_prios; identity for
                                      * priorities no queue names. */
    uint32_t wd_detect_ms;      /* watchdog-detection-time, ms: 0 (watchdog
                                 * off) or PFC_WD_DETECT_MIN..
                                 * PFC_WD_DETECT_MAX (default 200). */
    uint32_t wd_restore_ms;     /* watchdog-restoration-time, ms,
                                 * PFC_WD_RESTORE_MIN..PFC_WD_RESTORE_MAX.
                                 * Default: twice wd_detect_ms, or twice
                                 * the default detection time when the
                                 * watchdog is off (then unused). */
    bool wd_restore_default;    /* True if wd_restore_ms was derived. */
    enum pfc_wd_action wd_action; /* watchdog-action (default drop). */
    uint64_t max_rate;          /* max-rate: port shaper, bit/s,
                                 * PFC_MAX_RATE_MIN..PFC_MAX_RATE_MAX, or 0
                                 * (default) for none (lib/pfc-ets.h). */
    uint8_t tsa_ets;            /* Bit tc: Queue tc has other_config:tsa=ets
                                 * (or tc-bw); the other classes are strict
                                 * priority, 802.1Q's default. */
    uint8_t tc_bw[PFC_N_PRIOS]; /* tc-bw of each ets class, percent,
                                 * 1..100; 0 for a strict class.  The sum
                                 * over the ets classes is checked once
                                 * every Queue is set
                                 * (pfc_ets_validate()). */
};

/* Slots of the traffic class queue of a class that no enabled priority
 * maps to, without queue-size: lossy classes hold only what a full tx ring
 * refuses. */
#define PFC_LOSSY_QUEUE_SLOTS 1024
#define PFC_QUEUE_SIZE_MAX 65536
#define PFC_XOFF_MIN 64
#define PFC_XOFF_MAX UINT32_MAX
#define PFC_LINK_SPEED_MIN 1000000ULL           /* 1 Mb/s. */
#define PFC_LINK_SPEED_MAX 1000000000000ULL     /* 1 Tb/s. */
#define PFC_TX_RING_AUTO 0                      /* tx-ring-size=auto. */
#define PFC_TX_RING_INTERFACE UINT32_MAX        /* tx-ring-size=interface. */
#define PFC_TX_RING_MAX 4096    /* Descriptors: OVS's n_txq_desc limit. */

/* PFC watchdog times, ms.  The watchdog is on by default on every PFC port,
 * as SONiC's pfcwd start_default turns it on, with detection 200 ms and
 * action drop as there; restoration defaults to twice the detection time,
 * the default of SONiC's "pfcwd start" without -r (start_default itself
 * uses 200 ms).
 *
 * Detection: 0 (off) or 10..5000 ms.  SONiC's floor of 100 ms comes from
 * polling counters every 100 to 1000 ms; a PMD thread checks at every
 * iteration, so a lower floor works.  But detection must outlast the longest
 * legitimate pause, one frame of 65535 quanta without refresh: 3.4 ms at
 * 10 Gb/s, 33.6 ms at 1 Gb/s, 336 ms at 100 Mb/s.  10 ms covers 10 Gb/s and
 * faster with a margin of three; on slower links keep the default (200 ms
 * outlasts one maximal pause down to 168 Mb/s), and raise it below that.
 * The ceiling of 5000 ms is SONiC's: a longer storm has long since stalled
 * the ports that feed this one.
 *
 * Restoration: 10..60000 ms, SONiC's ceiling, with the same floor as
 * detection. */
#define PFC_WD_DETECT_DEFAULT 200
#define PFC_WD_DETECT_MIN 10
#define PFC_WD_DETECT_MAX 5000
#define PFC_WD_RESTORE_MIN 10
#define PFC_WD_RESTORE_MAX 60000

int pfc_config_parse(const struct smap *details, struct pfc_config *,
                     char **errp);
int pfc_config_set_queue(struct pfc_config *, uint32_t queue_id,
                         const struct smap *details, char **errp);
void pfc_config_clear_queue(struct pfc_config *, uint32_t queue_id);
void pfc_config_to_smap(const struct pfc_config *, struct smap *);
bool pfc_config_equal(const struct pfc_config *, const struct pfc_config *);
void pfc_format_prios(struct ds *, uint8_t prios);
const char *pfc_tx_ring_size_name(uint32_t size, struct ds *);

/* The rule that ends a pause on a software port (seed 000 4.4, pause
 * timers; the poll condition is this switch's own).  A received PFC frame
 * waits in an rx ring until a PMD thread reads it, so a pause timer that
 * expired may have been refreshed by a frame not yet read.  A pause that
 * ends at 'until' (TSC cycles) therefore holds its priority at 'now':
 *
 *   - while now < until (never early); then
 *   - until every rx queue of the port has been polled, by a poll that began
 *     at or after 'until' and emptied its ring: 'polled' is the earliest,
 *     over the port's rx queues, of the start of the last such poll.  A
 *     refresh that arrived before the expiry is then read before any held
 *     packet leaves, even if the PMD thread that polls a queue was
 *     descheduled;
 *   - but never more than 'cap' cycles past 'until', for a port whose rx
 *     queues are no longer polled or never empty.
 *
 * A pause that ends late is safe: the priority stays paused a little longer
 * than asked and nothing is lost.  The end is late by at most one PMD
 * iteration once every rx queue is polled. */
static inline bool
pfc_pause_holds(uint64_t until, uint64_t now, uint64_t polled, uint64_t cap)
{
    return now < until || (polled < until && now - until < cap);
}

uint8_t pfc_paused_prios(const uint64_t until[PFC_N_PRIOS], uint8_t enabled,
                         uint64_t now, uint64_t polled, uint64_t cap,
                         uint64_t *valid_until);

/* The poll stamp of an rx queue that never empties.  A poll that empties the
 * ring stamps its start (pfc_pause_holds()'s 'polled').  A ring that a flood
 * keeps full never gives such a poll, yet the same guarantee holds once the
 * PMD thread has read as many frames as the ring has descriptors, in polls
 * that began at or after some time S: every frame that was in the ring at S
 * has then been read, whatever arrived since.  So such a run of polls stamps
 * S.  The run under way at a pause's expiry stamps a time before it, the
 * next one ends the pause: at most two rings' worth of frames after the
 * expiry instead of at the cap, that is, under a flood at line rate, twice
 * the time the link takes to fill the ring (pfc_rxq_drain_ticks()) plus one
 * PMD iteration.  The ring's size is the one the port configured
 * (n_rxq_desc); a driver whose ring is larger than that would end a pause
 * early, which is why the cap stays for queues that are not polled at
 * all. */
struct pfc_rxq_drain {
    uint64_t since;             /* Start of the first poll of the current
                                 * run of polls that did not empty the ring,
                                 * in ticks; 0 for none. */
    uint32_t read;              /* Frames those polls read. */
};

uint64_t pfc_rxq_drain_poll(struct pfc_rxq_drain *, uint64_t start,
                            uint32_t n, bool emptied, uint32_t ring);
uint64_t pfc_rxq_drain_ticks(const struct pfc_timebase *, uint32_t ring);

/* Worst-case response of a software port to a PFC frame (seed 000 4.6):
 * after the PMD thread reads the frame, everything already handed to the NIC's
 * tx ring still goes out. */
#define PFC_RESPONSE_BOUND_BITS 14336   /* Bit times, plus the PHY delay. */
uint64_t pfc_response_bits(uint32_t tx_desc, uint32_t max_frame);

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

/* Per-port management counters (seed 002 4.3 to 4.5, plus this switch's
 * own).  All count events since the port first had QoS type "pfc". */
struct pfc_counters {
    uint64_t rx_frames[PFC_N_PRIOS];    /* PFC frames received with e[n] = 1
                                         * (aCBFCPAUSEFramesReceived_n). */
    uint64_t tx_frames[PFC_N_PRIOS];    /* PFC frames sent with e[n] = 1
                                         * (aCBFCPAUSEFramesTransmitted_n). */
    uint64_t transitions[PFC_N_PRIOS];  /* not_paused -> paused transitions
                                         * (aCBFCPAUSETransitions_n). */
    uint64_t hold_drops[PFC_N_PRIOS];   /* Packets of priority n dropped
                                         * because their class queue was
                                         * full. */
    uint64_t rx_ignored[PFC_N_PRIOS];   /* PFC frames received with e[n] =
                                         * 1 for a priority n not in
                                         * pfc-enable: its time[n] was
                                         * ignored (pfc_receive()). */
    uint64_t rx_invalid;                /* Invalid MAC Control frames. */
    uint64_t rx_pause_ignored;          /* 802.3x PAUSE frames ignored. */
    uint64_t rx_unsupported;            /* MAC Control frames with another
                                         * opcode (aUnsupportedOpCodes-
                                         * Received). */
};

void pfc_counters_count_rx(struct pfc_counters *, const struct pfc_frame *,
                           uint8_t transitions);
void pfc_counters_count_tx(struct pfc_counters *, const struct pfc_frame *);

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

#endif /* pfc.h */
