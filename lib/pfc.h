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
 * The core is all of PFC that does not touch a NIC, one concern per file:
 *
 *   lib/pfc.h            This file: the frame codec, the eight pause timers
 *                        of a receiving port and the rule that ends a
 *                        pause, the XOFF state of a port, the counters.
 *   lib/pfc-config.h     The "pfc" QoS configuration (lib/pfc-config.c
 *                        parses it).
 *   lib/pfc-classify.h   The priority a packet gets at ingress.
 *   lib/pfc-holdq.h      The traffic class queues ("held" packets).
 *   lib/pfc-send.h       Send, hold or drop, per packet of a batch.
 *   lib/pfc-buffer.h     The shared buffer: admission, XOFF and XON.
 *   lib/pfc-ets.h        Which traffic class sends next; the shaper.
 *   lib/pfc-wd.h         The watchdog.
 *   lib/pfc-dcbx.h       DCBX.
 *   lib/pfc-headroom.h   Headroom and buffer sizing.
 *   lib/pfc-nic.h        What the NIC's driver allows.
 *
 * One word for one thing, here and in the glue (lib/netdev-dpdk-pfc*.c):
 *
 *   priority        The 802.1p priority, 0..7, that a packet gets once, at
 *                   ingress ("classify", lib/pfc-classify.h), and carries
 *                   to every egress whatever tag it leaves with.
 *   traffic class   One of the 8 egress queues of a port, 0..7; each
 *                   priority maps to one.  A paused priority "blocks" its
 *                   class.
 *   priority group  The ingress account of one priority of a port: what its
 *                   packets occupy, wherever they are held.
 *   hold            Keep a packet in its traffic class queue of a tx queue
 *                   instead of sending it (pfc_hold(); a "held" packet).
 *   admit           The shared buffer's verdict on a packet to be held:
 *                   shared pool, headroom, or drop (pfc_buf_admit()).
 *   charge          Count an admitted packet against its ingress priority
 *                   group and the shared pool (pfc_buf_charge()).
 *   release         A held packet leaves its queue, sent or freed, and gives
 *                   its cells back, headroom first (pfc_buf_release()).
 *   spend           Take bytes from the port shaper's tokens.
 *   XOFF, XON       A PFC frame this switch sends to pause a priority of its
 *                   link partner, and the frame (time 0) that resumes it.
 *   storm           A priority paused for longer than the watchdog allows.
 *   tx_flush        The PMD threads' call, once per iteration, that sends the
 *                   PFC frames due and the held packets whose class may send
 *                   again (the netdev 'tx_flush' operation).
 *   finish          What a PFC object does when it is replaced or its port
 *                   stops: send the XON it owes and what it holds, free the
 *                   rest (netdev_dpdk_pfc_finish()).
 *   retire          Keep a removed PFC object in place until it finished on
 *                   its own (lib/netdev-dpdk-pfc-retire.c).
 *
 * Like DPDK's rte_meter, the core holds no clock of its own: every function
 * that depends on time takes 'now' in ticks of a caller-chosen monotonic
 * clock (the TSC in the DPDK datapath), and 'struct pfc_timebase' converts
 * pause quanta into those ticks.  Nothing here includes DPDK, so every
 * timing rule is testable with a fake clock (tests/test-pfc*.c).
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

/* EtherType of an LLDPDU (IEEE 802.1AB-2016 7.2). */
#define PFC_LLDP_ETH_TYPE 0x88cc

/* Returns true if the receive path of a PFC port must look closer at the
 * frame of 'len' octets at 'data': it has fewer than 18 octets (too short to
 * tell), pfc_maybe_mac_control() is true, or 'lldp' (DCBX runs on the port)
 * and its EtherType is 0x88cc, which an LLDPDU has (IEEE 802.1AB-2016 7.1).
 * False says that the frame is ordinary traffic, neither consumed nor
 * counted on receive.  The receive path's common case, for every packet of
 * a PFC port but those that pfc_rx_decide() tells apart by their
 * classification: the first 18 octets, and the EtherType that says MAC
 * Control (the outer one, or the one behind an 802.1Q or 802.1ad tag)
 * compared once. */
static inline bool
pfc_rx_special(const void *data_, size_t len, bool lldp)
{
    const uint8_t *data = data_;
    unsigned int outer, inner, next;

    if (len < ETH_HEADER_LEN + VLAN_HEADER_LEN) {
        return true;
    }
    outer = (data[12] << 8) | data[13];
    inner = (data[16] << 8) | data[17];
    next = (outer == ETH_TYPE_VLAN_8021Q || outer == ETH_TYPE_VLAN_8021AD
            ? inner : outer);
    return ((next == PFC_ETH_TYPE_MAC_CONTROL)
            | (outer == (lldp ? PFC_LLDP_ETH_TYPE
                         : PFC_ETH_TYPE_MAC_CONTROL)));
}

/* The receive path's per-packet work on a PFC port: returns the priority,
 * 0..7, that the rule 'trust', 'def', 'map' gives the frame of 'len' octets
 * at 'data' (pfc_classify__()), and sets '*special' if pfc_rx_special()
 * with 'lldp' is true for it (leaves it alone otherwise).  A frame of 18
 * octets or more with the outer EtherType of IPv4 (0x0800) is neither a MAC
 * Control frame nor an LLDPDU: under trust=dscp, where untagged IPv4 is the
 * common case of a routed fabric, the compare that starts its
 * classification also tells it apart, and pfc_rx_special() is not called
 * for it.  Always inline, for the same reasons as pfc_classify__(). */
static inline int ALWAYS_INLINE
pfc_rx_decide(int trust, int def, const uint8_t map[PFC_N_DSCP],
              const uint8_t *data, size_t len, bool lldp, bool *special)
{
    if (trust == PFC_TRUST_DSCP
        && OVS_LIKELY(len >= ETH_HEADER_LEN + VLAN_HEADER_LEN
                      && ((data[12] << 8) | data[13]) == PFC_CLS_ETH_IPV4)) {
        return pfc_classify__(trust, def, map, data, len);
    }
    *special |= pfc_rx_special(data, len, lldp);
    return pfc_classify__(trust, def, map, data, len);
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

/* Returns true if the frame of 'len' octets at 'data' is certainly neither
 * pfc_tx_forbidden() nor, whether DCBX runs or not, an LLDPDU that the
 * transmit filter drops (pfc_lldp_foreign(), lib/pfc-dcbx.h): it has at
 * least 18 octets, its destination is not in 01-80-C2-00-00-00/24, and
 * neither its EtherType nor, behind one 802.1Q or 802.1ad tag, the next one
 * is 0x8808 or another tag.  False says nothing: the caller then asks those
 * two.  The transmit filter's common case, for every packet that a DPDK
 * port sends: no loop, and the first 18 octets only. */
static inline bool
pfc_tx_plain(const void *data_, size_t len)
{
    const uint8_t *data = data_;
    uint16_t outer, inner;

    if (len < ETH_HEADER_LEN + VLAN_HEADER_LEN
        || (data[0] == 0x01 && data[1] == 0x80 && data[2] == 0xc2)) {
        return false;
    }
    outer = (data[12] << 8) | data[13];
    inner = (data[16] << 8) | data[17];
    if ((outer == ETH_TYPE_VLAN_8021Q || outer == ETH_TYPE_VLAN_8021AD)
        && (inner == ETH_TYPE_VLAN_8021Q || inner == ETH_TYPE_VLAN_8021AD)) {
        return false;           /* Two tags: the full checks look deeper. */
    }
    return !pfc_maybe_mac_control(data, len);
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
    uint8_t xon;                    /* Bit n: the last frame that named
                                     * priority n was an XON, which ended
                                     * its pause: until[n] is the XON's
                                     * earliest arrival, not its read. */
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

/* Returns the priorities that 'prio_to_tc' maps to the traffic classes in
 * 'tcs' (one bit per class): the inverse of pfc_tcs_blocked().  Inline: the
 * transmit path calls it once per batch. */
static inline uint8_t
pfc_tcs_prios(const uint8_t prio_to_tc[PFC_N_PRIOS], uint8_t tcs)
{
    uint8_t prios = 0;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        prios |= ((tcs >> (prio_to_tc[n] & (PFC_N_PRIOS - 1))) & 1u) << n;
    }
    return prios;
}

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

/* Returns true if a pause of a priority that ended at 'until' (TSC cycles, 0
 * if it never began), released at TSC 'now', ended late: more than 'bound'
 * cycles after its expiry.  Never a pause that an XON ended ('xon', struct
 * pfc_pause): its 'until' is the XON's earliest arrival, which under a flood
 * may be two ring-fill times before its read, and it is released as soon as
 * the XON is read. */
static inline bool
pfc_pause_ended_late(uint64_t until, bool xon, uint64_t now, uint64_t bound)
{
    return until && !xon && now >= until && now - until > bound;
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


#endif /* pfc.h */
