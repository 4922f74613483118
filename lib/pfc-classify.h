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

#ifndef PFC_CLASSIFY_H
#define PFC_CLASSIFY_H 1

/* Ingress classification: the priority (0..7) of a packet, decided once, by
 * the port it arrives on, from that port's trust mode.  This is a switch
 * ASIC's ingress QoS map (SAI's DOT1P_TO_TC and DSCP_TO_TC, SONiC's
 * PORT_QOS_MAP): the priority then travels with the packet to every egress,
 * whose traffic class queue, pause check and the ingress priority group
 * charged all follow it, whatever tag the packet leaves with (popped,
 * pushed, rewritten, or a tunnel header around it).
 *
 * Trust modes:
 *
 *   - PFC_TRUST_PCP: the 802.1p priority (PCP) of the outer 802.1Q or
 *     802.1ad tag (IEEE 802.1Q-2018 6.9.3); an untagged frame, or one too
 *     short to tell, takes the port's default priority.
 *
 *   - PFC_TRUST_DSCP: the DSCP (RFC 2474) of an IPv4 or IPv6 packet, behind
 *     at most two tags, through the port's DSCP map; a frame that is not IP
 *     falls back to the PCP rule.  The default map gives priority DSCP / 8
 *     (the class selector, RFC 2474 4.2.2.1): AF31 (26) gives 3, EF (46)
 *     gives 5, CS6 (48) gives 6.
 *
 *   - PFC_TRUST_NONE: every frame takes the default priority: a port whose
 *     markings buy nothing, such as a guest's port without QoS pfc.
 *
 * DPDK-free, with unit tests in tests/test-pfc-classify.c. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "compiler.h"

struct ds;

#define PFC_N_DSCP 64

enum pfc_trust {
    PFC_TRUST_PCP,              /* trust=pcp (the default). */
    PFC_TRUST_DSCP,             /* trust=dscp. */
    PFC_TRUST_NONE,             /* Every frame: the default priority. */
};

/* The ingress rule of one port.  Immutable once published: a change of
 * configuration publishes a new one. */
struct pfc_classifier {
    uint8_t trust;              /* An enum pfc_trust. */
    uint8_t default_prio;       /* Priority of untagged frames, 0..7. */
    bool dscp_default;          /* dscp_to_prio is the default map. */
    uint8_t dscp_to_prio[PFC_N_DSCP]; /* Priority of each DSCP, 0..7. */
};

void pfc_dscp_map_default(uint8_t map[PFC_N_DSCP]);
int pfc_dscp_map_parse(const char *s, uint8_t map[PFC_N_DSCP], char **errp);
void pfc_dscp_map_format(struct ds *, const uint8_t map[PFC_N_DSCP]);
bool pfc_dscp_map_is_default(const uint8_t map[PFC_N_DSCP]);
const char *pfc_trust_name(enum pfc_trust);
bool pfc_trust_from_string(const char *, enum pfc_trust *);

void pfc_classifier_init(struct pfc_classifier *, enum pfc_trust,
                         int default_prio,
                         const uint8_t dscp_to_prio[PFC_N_DSCP]);

/* Ethertypes, host order. */
#define PFC_CLS_ETH_VLAN 0x8100
#define PFC_CLS_ETH_QINQ 0x88a8
#define PFC_CLS_ETH_IPV4 0x0800
#define PFC_CLS_ETH_IPV6 0x86dd

/* Returns the DSCP, 0..63, of the IPv4 or IPv6 packet in the Ethernet frame
 * of 'len' octets at 'data', behind at most two 802.1Q/802.1ad tags, or -1
 * if it is not one (or too short to tell). */
static inline int
pfc_frame_dscp(const uint8_t *data, size_t len)
{
    size_t off = 12;

    for (int tags = 0; ; tags++) {
        uint16_t type;

        if (len < off + 4) {
            return -1;
        }
        type = (data[off] << 8) | data[off + 1];
        off += 2;
        if (type == PFC_CLS_ETH_IPV4) {
            return (data[off] >> 4) == 4 ? data[off + 1] >> 2 : -1;
        } else if (type == PFC_CLS_ETH_IPV6) {
            return ((data[off] >> 4) == 6
                    ? ((data[off] & 0x0f) << 2) | (data[off + 1] >> 6) : -1);
        } else if (tags == 2
                   || (type != PFC_CLS_ETH_VLAN && type != PFC_CLS_ETH_QINQ)) {
            return -1;
        }
        off += 2;               /* The TCI. */
    }
}

/* Returns the priority, 0..7, that a port of trust mode 'trust' (an enum
 * pfc_trust), default priority 'def' and DSCP map 'map' (NULL for the
 * default map, DSCP / 8, computed without a table) gives the Ethernet
 * frame of 'len' octets at 'data' (see the trust modes above).  The common
 * frames, untagged IPv4 under trust=dscp and any frame of one tag or none
 * under trust=pcp, take a few loads.  Always inline, with the rule in
 * scalars: the receive path calls it (through pfc_rx_decide() on a port
 * with QoS pfc) for every packet, with 'trust' constant in each of its
 * loops, and keeps the rest in registers while it writes each packet's
 * mark. */
static inline int ALWAYS_INLINE
pfc_classify__(int trust, int def, const uint8_t map[PFC_N_DSCP],
               const uint8_t *data, size_t len)
{
    if (len >= 18) {
        uint16_t type = (data[12] << 8) | data[13];

        if (trust == PFC_TRUST_DSCP) {
            int dscp;

            if (OVS_LIKELY(type == PFC_CLS_ETH_IPV4
                           && (data[14] >> 4) == 4)) {
                return map ? map[data[15] >> 2] : data[15] >> 5;
            }
            dscp = pfc_frame_dscp(data, len);
            if (dscp >= 0) {
                return map ? map[dscp] : dscp >> 3;
            }
        } else if (trust == PFC_TRUST_NONE) {
            return def;
        }
        return (type == PFC_CLS_ETH_VLAN || type == PFC_CLS_ETH_QINQ
                ? data[14] >> 5 : def);
    }
    if (trust == PFC_TRUST_DSCP) {
        int dscp = pfc_frame_dscp(data, len);

        if (dscp >= 0) {
            return map ? map[dscp] : dscp >> 3;
        }
    }
    return def;                 /* Too short to hold a tag. */
}

/* Returns the priority, 0..7, that 'c' gives the Ethernet frame of 'len'
 * octets at 'data' (pfc_classify__()). */
static inline int
pfc_classify(const struct pfc_classifier *c, const void *data, size_t len)
{
    return pfc_classify__(c->trust, c->default_prio,
                          c->dscp_default ? NULL : c->dscp_to_prio, data,
                          len);
}

/* Clears the 802.1p priority (PCP, the top 3 bits of the TCI) of the first
 * two VLAN tags (TPID 0x8100 or 0x88a8) of the Ethernet frame of 'len'
 * octets at 'data', keeping their DEI and VID: what a port that trusts no
 * marking does to the frames it receives (IEEE 802.1Q-2018 6.9.3 lets a
 * port regenerate received priorities; here all become 0), so that a tag
 * that the switch keeps, or pushes over a priority-tagged frame, leaves
 * with priority 0.  The IP DSCP is not touched.  Returns true if an octet
 * changed. */
static inline bool
pfc_clear_pcp(uint8_t *data, size_t len)
{
    bool changed = false;
    size_t off = 12;

    for (int tags = 0; tags < 2 && len >= off + 4; tags++, off += 4) {
        uint16_t type = (data[off] << 8) | data[off + 1];

        if (type != PFC_CLS_ETH_VLAN && type != PFC_CLS_ETH_QINQ) {
            break;
        }
        if (data[off + 2] & 0xe0) {
            data[off + 2] &= 0x1f;
            changed = true;
        }
    }
    return changed;
}

/* Egress remarking: an egress port may rewrite, from the priority that a
 * packet carries, the markings with which it leaves, so that its link
 * partner, which classifies by its own trust mode, gives it the same
 * priority (SONiC's TC_TO_DOT1P_MAP and TC_TO_DSCP_MAP).  The QoS keys
 * rewrite-pcp (the PCP of the outer tag, if the frame leaves tagged) and
 * rewrite-dscp (the DSCP of the outer IPv4 or IPv6 header, behind at most
 * two tags, for the priorities listed: after a tunnel's encapsulation, the
 * outer header's).  The ECN field (RFC 3168) is kept. */
struct pfc_rewrite {
    bool pcp;                   /* rewrite-pcp=true. */
    uint8_t dscp_prios;         /* Bit n: priority n has a DSCP. */
    uint8_t prio_to_dscp[8];    /* DSCP of priority n, 0..63. */
};

int pfc_rewrite_dscp_parse(const char *s, struct pfc_rewrite *, char **errp);
void pfc_rewrite_dscp_format(struct ds *, const struct pfc_rewrite *);
bool pfc_rewrite_frame(void *data, size_t len, int prio,
                       const struct pfc_rewrite *);

#endif /* pfc-classify.h */
