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

#ifndef PFC_DCBX_H
#define PFC_DCBX_H 1

/* IEEE 802.1Qaz DCBX for PFC: agreeing with the link partner on which
 * priorities are lossless, over LLDP (IEEE 802.1AB).  The protocol core, in
 * the spirit of lib/pfc.c: the LLDPDU codec and the "willing" state machine,
 * with no DPDK in it and the clock passed in, in ticks of 'hz' per second.
 *
 * Wire format (IEEE 802.1AB-2016 clause 8, IEEE 802.1Q-2018 D.2.10):
 *
 *   Ethernet: destination 01-80-C2-00-00-0E (nearest bridge), EtherType
 *   0x88CC, never VLAN-tagged.  Then TLVs, each a 2-octet header (7-bit
 *   type, 9-bit length of the value in octets) and its value:
 *
 *     type 1   Chassis ID: 1-octet subtype, 1 to 255 octets of ID
 *     type 2   Port ID: 1-octet subtype, 1 to 255 octets of ID
 *     type 3   Time To Live: 2 octets, seconds
 *     ...      optional TLVs, in any order
 *     type 0   End of LLDPDU: length 0
 *
 *   The first three are mandatory, in that order.  The PFC Configuration
 *   TLV is an organizationally specific TLV (type 127): OUI 00-80-C2,
 *   subtype 0x0B, length 6, then
 *
 *     octet 1: bit 7 Willing, bit 6 MBC (MACsec bypass capability), bits
 *              5-4 reserved, bits 3-0 PFC cap (how many traffic classes may
 *              have PFC enabled at once, 0 to 8)
 *     octet 2: PFC enable, bit n for priority n
 *
 *   The ETS Configuration TLV (subtype 0x09, D.2.9) and the ETS
 *   Recommendation TLV (subtype 0x0A, D.2.10) are of length 25: OUI,
 *   subtype, then
 *
 *     octet 1: Configuration: bit 7 Willing, bit 6 CBS, bits 5-3 reserved,
 *              bits 2-0 Max TCs (0 means 8); Recommendation: reserved
 *     octets 2-5: Priority Assignment Table, 4 bits per priority, priority
 *              0 in the high nibble of octet 2: its traffic class
 *     octets 6-13: TC Bandwidth Table, percent per traffic class
 *     octets 14-21: TSA Assignment Table per traffic class (0 strict
 *              priority, 1 credit-based shaper, 2 ETS, 255 vendor)
 *
 *   The Application Priority TLV (subtype 0x0C, D.2.12) is of length 5 +
 *   3n: OUI, subtype, a reserved octet, then n entries of 3 octets:
 *
 *     octet 1: bits 7-5 priority, bits 4-3 reserved, bits 2-0 Sel
 *     octets 2-3: Protocol ID
 *
 *   Of the selectors, this switch uses Sel 5, DSCP (IEEE 802.1Qcd-2015,
 *   802.1Q-2018 Table D-9), whose Protocol ID is a DSCP, 0 to 63.  Entries
 *   of the other selectors (Ethertype, TCP and UDP ports) tell an end
 *   station how to mark its applications, and are counted and ignored.
 *
 *   A TLV of the pre-standard CEE DCBX (OUI 00-1B-21) is counted as
 *   unsupported.
 *
 * Operational vector (IEEE 802.1Q-2018 clause 38, symmetric attribute
 * passing of the PFC TLV):
 *
 *   - no PFC TLV from a partner (none, or its TTL ran out): the
 *     administrative vector, the port's configured pfc-enable;
 *   - this port willing, the partner not: the partner's vector;
 *   - both willing: the port whose MAC address (the LLDPDU source address)
 *     is numerically lower adopts its partner's vector, the other keeps its
 *     own, so both end up with the same one;
 *   - this port not willing: its own vector.  When neither is willing and
 *     the vectors differ, that is a mismatch: both ends believe different
 *     priorities to be lossless.
 *
 * A partner's vector that enables more priorities than this port's PFC cap
 * (8) cannot be: it is never the case.  A willing port does not adopt a
 * vector whose headroom does not fit in the shared buffer (more priorities
 * than params->max_lossless): it keeps its own, and that is a mismatch,
 * with the reason.  A vector in force that enables more
 * priorities than the partner's PFC cap is shown, and counted, as a
 * mismatch too (the partner cannot honour PFC on all of them).  A PFC cap
 * of 0 is taken as unknown, not as "no PFC": some agents send 0.
 *
 * The port advertises its administrative vector and willing bit, as
 * lldpad does: what it adopted is its partner's own advertisement.
 *
 * ETS (802.1Q-2018 37.1, D.2.9.3 and D.2.10) is asymmetric, unlike PFC: a
 * port sends its operational ETS configuration in the ETS Configuration
 * TLV, with its willing bit, and what it recommends its partner use in the
 * ETS Recommendation TLV (its administrative configuration, the Queue
 * rows' keys).  A willing port whose partner sends a Recommendation TLV
 * makes it its operational configuration; otherwise its own is in force.
 * Both ends may be willing: each then runs its partner's recommendation.
 * This switch adopts the TSA and TC bandwidth of each traffic class; its
 * priority to traffic class map stays the one of its Queue rows (shown
 * beside the partner's).  A recommendation this switch cannot run (a TSA
 * other than strict priority and ETS, or ETS bandwidths that do not sum to
 * 100) is not adopted and counted.
 *
 * Application Priority (802.1Q-2018 D.2.12), DSCP selector: a port with
 * trust=dscp advertises its whole administrative DSCP map, 64 entries (its
 * dscp-map over DSCP / 8), so that a partner that trusts DSCP, or a NIC
 * whose DSCP table the partner's DCBX agent sets, classifies as this port
 * does.  A willing port with trust=dscp adopts its partner's DSCP entries
 * over its own map, by the PFC rule of who adopts: if the partner is not
 * willing (the willing bit of its PFC TLV, else of its ETS Configuration
 * TLV; a partner that sends neither is not willing), or both are and this
 * port's MAC address is the lower.  Where a partner lists a DSCP more
 * than once, the highest priority wins, as Linux's dcbnl does.  The
 * operational map is what the port's ingress classifies by; the TLV has no
 * willing bit of its own.
 *
 * The partner is one LLDP agent, known by its MSAP identifier (IEEE
 * 802.1AB-2016 6.2: its Chassis ID and Port ID).  Its LLDPDUs refresh
 * what it said; a shutdown LLDPDU (Time To Live 0) removes only the agent
 * it names.  While a second agent is heard on the link (two neighbours, as
 * behind a hub, a tenant's LLDP, or a NIC's firmware agent beside the
 * host's), the port does not know whose configuration to take: it runs its
 * administrative configuration (pfc-enable, its Queue rows' ETS, its DSCP
 * map), says why, and counts it, until one of them leaves or ages out; the
 * one left is then the partner.  A third agent replaces the second.
 *
 * Open vSwitch's own LLDP (lib/lldp, for Auto-Attach) is not used: it runs
 * in ofproto, on frames that reach the datapath of a bridge port with
 * lldp:enable, and knows no IEEE 802.1 TLVs.  DCBX belongs to the DPDK
 * port, like PFC frames: its LLDPDUs are consumed in the port's receive
 * path, before the datapath, and sent by the PMD threads that send the
 * port's PFC frames.  The two exclude each other on one interface. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/types.h"
#include "pfc.h"               /* PFC_LLDP_ETH_TYPE. */

/* Longest LLDPDU that pfc_lldpdu_build() makes, octets without FCS: the
 * Ethernet header, Chassis ID (9), Port ID (up to 258), TTL (4), ETS
 * Configuration and Recommendation (27 each), PFC Configuration (8),
 * Application Priority with 64 DSCP entries (199) and End (2). */
#define PFC_LLDP_FRAME_MAX 548

/* Sel of the Application Priority TLV's DSCP entries (IEEE 802.1Q-2018
 * Table D-9). */
#define PFC_APP_SEL_DSCP 5

/* Returns true if the frame of 'len' octets at 'data' is an LLDPDU (EtherType
 * 0x88CC, also behind one or two 802.1Q or 802.1ad tags) to one of the
 * three LLDP group addresses, 01-80-C2-00-00-0E (nearest bridge), -03
 * (nearest non-TPMR bridge) or -00 (nearest customer bridge), IEEE
 * 802.1AB-2016 7.1.  A port that speaks DCBX sends only its own: one that
 * another port or a guest sent would speak for the port to its link
 * partner.  Inline and cheap: a DCBX port calls it for every packet it
 * sends. */
static inline bool
pfc_lldp_foreign(const uint8_t *data, size_t len)
{
    size_t off = 12;

    if (len < 14 || data[0] != 0x01 || data[1] != 0x80 || data[2] != 0xc2
        || data[3] || data[4]
        || (data[5] != 0x0e && data[5] != 0x03 && data[5] != 0x00)) {
        return false;
    }
    for (int tags = 0; ; tags++) {
        uint16_t type = (data[off] << 8) | data[off + 1];

        if (type == PFC_LLDP_ETH_TYPE) {
            return true;
        }
        if (tags == 2 || (type != 0x8100 && type != 0x88a8)
            || len < off + 4 + 2) {
            return false;
        }
        off += 4;
    }
}

/* Minimum, default and maximum msgTxInterval, seconds (IEEE 802.1AB-2016
 * 9.2.5.7: 1 to 3600, default 30). */
#define PFC_LLDP_TX_INTERVAL_MIN 1
#define PFC_LLDP_TX_INTERVAL_DEFAULT 30
#define PFC_LLDP_TX_INTERVAL_MAX 3600

/* msgTxHold (9.2.5.6, default 4): TTL = msgTxInterval x msgTxHold + 1 s. */
#define PFC_LLDP_TX_HOLD 4

/* msgFastTx (9.2.5.5, default 1 s) and txFastInit (9.2.5.19, default 4):
 * after a change or link up, the next 4 LLDPDUs go 1 s apart. */
#define PFC_LLDP_FAST_TX_S 1
#define PFC_LLDP_FAST_INIT 4

/* The PFC Configuration TLV. */
struct pfc_dcbx_tlv {
    bool willing;
    bool mbc;                   /* MACsec bypass capability. */
    uint8_t cap;                /* PFC cap, 0 to 15 on the wire. */
    uint8_t enable;             /* Bit n: priority n has PFC. */
};

/* An ETS Configuration or ETS Recommendation TLV. */
struct pfc_ets_tlv {
    bool willing;               /* Configuration only. */
    bool cbs;                   /* Configuration only: credit-based shaper
                                 * supported. */
    uint8_t max_tcs;            /* Configuration only: 1..8. */
    uint8_t prio_tc[8];         /* Priority -> traffic class, 0..7. */
    uint8_t bw[8];              /* Per traffic class, percent. */
    uint8_t tsa[8];             /* Per traffic class (enum pfc_tsa). */
};

/* The DSCP entries of an Application Priority TLV. */
struct pfc_app_tlv {
    uint64_t dscp_mask;         /* Bit d: DSCP d (0..63) has an entry. */
    uint8_t dscp_prio[64];      /* Priority (0..7) of each DSCP in
                                 * 'dscp_mask'. */
    uint16_t n_ignored;         /* Received entries of other selectors, or
                                 * of Sel 5 with a Protocol ID above 63. */
};

/* What one received LLDPDU carried, as far as DCBX cares. */
struct pfc_lldpdu {
    uint8_t chassis_subtype;
    uint8_t chassis_len;
    uint8_t chassis_id[255];
    uint8_t port_subtype;
    uint8_t port_len;
    uint8_t port_id[255];
    uint16_t ttl;               /* Seconds; 0: the partner is leaving. */
    bool has_pfc;
    struct pfc_dcbx_tlv pfc;
    bool has_ets;               /* ETS Configuration TLV. */
    struct pfc_ets_tlv ets;
    bool has_ets_rec;           /* ETS Recommendation TLV. */
    struct pfc_ets_tlv ets_rec;
    bool has_app;               /* Application Priority TLV. */
    struct pfc_app_tlv app;
    uint16_t n_tlvs;            /* TLVs before End, End not counted. */
    uint16_t n_unsupported;     /* Organizationally specific TLVs other
                                 * than the PFC and ETS ones, CEE DCBX
                                 * (OUI 00-1B-21) among them. */
    bool cee;                   /* A CEE DCBX TLV was among them. */
};

int pfc_lldpdu_parse(const void *lldpdu, size_t len, struct pfc_lldpdu *,
                     const char **why);
size_t pfc_lldpdu_build(void *frame, size_t size, struct eth_addr src,
                        const char *port_name, uint16_t ttl,
                        const struct pfc_dcbx_tlv *,
                        const struct pfc_ets_tlv *ets_config,
                        const struct pfc_ets_tlv *ets_rec,
                        const struct pfc_app_tlv *app);

/* Configuration of DCBX on a port. */
struct pfc_dcbx_params {
    bool enabled;               /* dcbx=ieee. */
    bool willing;               /* dcbx-willing. */
    uint8_t admin;              /* pfc-enable: the administrative vector. */
    uint32_t tx_interval;       /* lldp-tx-interval, seconds. */
    struct pfc_ets_tlv ets_admin;   /* The Queue rows' ETS: recommended to
                                     * the partner, in force unless this
                                     * port adopts the partner's. */
    bool app_dscp;              /* trust=dscp: advertise 'dscp_admin' and,
                                 * if willing, adopt the partner's DSCP
                                 * entries. */
    uint8_t dscp_admin[64];     /* The port's DSCP map (dscp-map over DSCP
                                 * / 8), priority of each DSCP. */
    bool limit_known;           /* 'max_lossless' is known. */
    uint8_t max_lossless;       /* The most priorities, 0..8, whose
                                 * headroom fits in the shared buffer with
                                 * what the other ports reserve: a partner's
                                 * vector of more is not adopted. */
};

/* Where the operational vector comes from. */
enum pfc_dcbx_source {
    PFC_DCBX_ADMIN,             /* The port's own pfc-enable. */
    PFC_DCBX_PARTNER,           /* The partner's, adopted. */
};

/* DCBX state of a port. */
struct pfc_dcbx {
    /* The partner, while its last LLDPDU's TTL runs. */
    bool partner;               /* An LLDPDU was received and its TTL runs. */
    struct eth_addr partner_mac;    /* Its source address. */
    struct pfc_lldpdu last;     /* What it carried. */
    uint64_t expiry;            /* Tick at which its TTL runs out. */

    /* A second LLDP agent heard on the link, while its TTL runs: the port
     * then runs its administrative configuration. */
    bool second;
    struct eth_addr second_mac;
    struct pfc_lldpdu second_last;
    uint64_t second_expiry;

    /* The decision. */
    uint8_t oper;               /* Operational vector. */
    enum pfc_dcbx_source source;
    bool mismatch;              /* Neither willing and the vectors differ,
                                 * or more priorities than the partner's
                                 * PFC cap. */

    /* ETS (asymmetric). */
    bool ets_adopted;           /* ets_oper is the partner's
                                 * recommendation. */
    struct pfc_ets_tlv ets_oper;    /* Operational ETS configuration. */
    bool ets_changed;           /* ets_oper changed since the caller last
                                 * cleared this. */
    /* Application Priority, DSCP selector. */
    bool app_adopted;           /* dscp_oper has the partner's entries. */
    uint8_t dscp_oper[64];      /* Operational DSCP map. */
    bool app_changed;           /* dscp_oper or app_adopted changed since
                                 * the caller last cleared this. */

    const char *pfc_refused;    /* Why the partner's vector is not adopted
                                 * although this port would, or NULL. */
    const char *ets_refused;    /* Why the partner's recommendation is not
                                 * adopted although this port is willing,
                                 * or NULL. */

    /* Transmission. */
    uint64_t next_tx;           /* Tick of the next LLDPDU. */
    uint8_t fast_left;          /* LLDPDUs left to send msgFastTx apart. */

    /* Counters. */
    uint64_t rx_lldpdus;        /* Valid LLDPDUs received. */
    uint64_t rx_tlvs;           /* TLVs in them. */
    uint64_t rx_pfc_tlvs;       /* PFC Configuration TLVs in them. */
    uint64_t rx_errors;         /* Malformed LLDPDUs, ignored. */
    uint64_t rx_unsupported;    /* Unsupported TLVs (CEE DCBX among them). */
    uint64_t mismatches;        /* Transitions into 'mismatch'. */
    uint64_t ageouts;           /* Partners whose TTL ran out. */
    uint64_t rx_second;         /* LLDPDUs of another agent than the
                                 * partner (several neighbours). */
    uint64_t rx_shutdown_unknown;   /* Shutdown LLDPDUs of an agent that is
                                     * neither: ignored. */
    uint64_t rx_ets_rec_refused;    /* Recommendations not adopted: a TSA
                                     * other than strict and ETS, or ETS
                                     * bandwidths that do not sum to
                                     * 100. */
    uint64_t tx_lldpdus;        /* LLDPDUs sent. */
};

bool pfc_lldpdu_same_agent(const struct pfc_lldpdu *,
                           const struct pfc_lldpdu *);
void pfc_dcbx_init(struct pfc_dcbx *, const struct pfc_dcbx_params *,
                   uint64_t now);
bool pfc_dcbx_rx(struct pfc_dcbx *, const struct pfc_dcbx_params *,
                 struct eth_addr local, struct eth_addr src,
                 const void *lldpdu, size_t len, uint64_t now, uint64_t hz,
                 const char **why);
bool pfc_dcbx_run(struct pfc_dcbx *, const struct pfc_dcbx_params *,
                  struct eth_addr local, uint64_t now);
bool pfc_dcbx_reconfigure(struct pfc_dcbx *, const struct pfc_dcbx_params *,
                          struct eth_addr local, uint64_t now);
bool pfc_dcbx_tx_due(const struct pfc_dcbx *, uint64_t now);
void pfc_dcbx_tx_done(struct pfc_dcbx *, const struct pfc_dcbx_params *,
                      uint64_t now, uint64_t hz);
void pfc_dcbx_fast_start(struct pfc_dcbx *, uint64_t now);
uint16_t pfc_dcbx_ttl(const struct pfc_dcbx_params *);
bool pfc_dcbx_app_decide(const struct pfc_dcbx_params *,
                         struct eth_addr local,
                         const struct pfc_lldpdu *partner,
                         struct eth_addr partner_mac, uint8_t oper[64]);
void pfc_app_tlv_from_map(struct pfc_app_tlv *, const uint8_t map[64]);
bool pfc_dcbx_ets_decide(const struct pfc_dcbx_params *,
                         const struct pfc_ets_tlv *partner_rec,
                         struct pfc_ets_tlv *oper, const char **why);
uint8_t pfc_dcbx_decide(const struct pfc_dcbx_params *, struct eth_addr local,
                        const struct pfc_dcbx_tlv *partner,
                        struct eth_addr partner_mac,
                        enum pfc_dcbx_source *, bool *mismatch,
                        const char **why);

#endif /* pfc-dcbx.h */
