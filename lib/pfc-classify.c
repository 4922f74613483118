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

#include <config.h>
#include "pfc-classify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "openvswitch/dynamic-string.h"
#include "util.h"

/* Stores the default DSCP map in 'map': priority DSCP / 8, the class
 * selector of RFC 2474 4.2.2.1 (SONiC's and Linux dcb's default grouping of
 * the 64 code points into eight). */
void
pfc_dscp_map_default(uint8_t map[PFC_N_DSCP])
{
    for (int d = 0; d < PFC_N_DSCP; d++) {
        map[d] = d >> 3;
    }
}

/* True if 'map' is the default map. */
bool
pfc_dscp_map_is_default(const uint8_t map[PFC_N_DSCP])
{
    for (int d = 0; d < PFC_N_DSCP; d++) {
        if (map[d] != d >> 3) {
            return false;
        }
    }
    return true;
}

/* Parses 's', a comma-separated list of KEY:VALUE pairs (spaces allowed
 * around each), KEY from 0 to 'key_max' and VALUE from 0 to 'value_max',
 * storing VALUE in values[KEY] and setting bit KEY of '*keys' (KEY below
 * 64).  A KEY listed twice takes its last VALUE; an empty string is no
 * pair.  Returns false, leaving 'values' and '*keys' partly written, if
 * 's' is not such a list. */
static bool
parse_pairs(const char *s, unsigned long key_max, unsigned long value_max,
            uint8_t values[], uint64_t *keys)
{
    const char *p = s;

    *keys = 0;
    while (*p) {
        unsigned long key, value;
        char *end;

        p += strspn(p, " ");
        if (!*p) {
            break;
        }
        errno = 0;
        key = strtoul(p, &end, 10);
        if (end == p || *p == '-' || errno || key > key_max) {
            return false;
        }
        p = end + strspn(end, " ");
        if (*p++ != ':') {
            return false;
        }
        p += strspn(p, " ");
        value = strtoul(p, &end, 10);
        if (end == p || *p == '-' || errno || value > value_max) {
            return false;
        }
        values[key] = value;
        *keys |= UINT64_C(1) << key;
        p = end + strspn(end, " ");
        if (*p == ',') {
            p++;
        } else if (*p) {
            return false;
        }
    }
    return true;
}

/* Parses 's', the value of dscp-map: a comma-separated list of DSCP:PRIORITY
 * pairs, DSCP 0..63 and PRIORITY 0..7 (spaces allowed around each), over
 * the default map (pfc_dscp_map_default()).  A DSCP listed twice takes its
 * last priority.  An empty string is the default map.  Returns 0, or EINVAL
 * with a message in '*errp' (the caller frees it), leaving 'map' as
 * unchanged. */
int
pfc_dscp_map_parse(const char *s, uint8_t map[PFC_N_DSCP], char **errp)
{
    uint8_t m[PFC_N_DSCP];
    uint64_t keys;

    pfc_dscp_map_default(m);
    if (!parse_pairs(s, PFC_N_DSCP - 1, 7, m, &keys)) {
        *errp = xasprintf("other_config:dscp-map=\"%s\" is invalid: must be "
                          "a comma-separated list of DSCP:PRIORITY pairs, "
                          "DSCP from 0 to 63 and PRIORITY from 0 to 7 (the "
                          "DSCPs not listed take DSCP / 8)", s);
        return EINVAL;
    }
    memcpy(map, m, sizeof m);
    return 0;
}

/* Appends to 'ds' the entries of 'map' that differ from the default map, as
 * pfc_dscp_map_parse() reads them, or "default" if none does. */
void
pfc_dscp_map_format(struct ds *ds, const uint8_t map[PFC_N_DSCP])
{
    bool any = false;

    for (int d = 0; d < PFC_N_DSCP; d++) {
        if (map[d] != d >> 3) {
            ds_put_format(ds, "%s%d:%d", any ? "," : "", d, map[d]);
            any = true;
        }
    }
    if (!any) {
        ds_put_cstr(ds, "default");
    }
}

/* The name of 'trust' as the key "trust" spells it ("none" for a port that
 * no key configures: an untrusted guest). */
const char *
pfc_trust_name(enum pfc_trust trust)
{
    switch (trust) {
    case PFC_TRUST_PCP:
        return "pcp";
    case PFC_TRUST_DSCP:
        return "dscp";
    case PFC_TRUST_NONE:
    default:
        return "none";
    }
}

/* Parses 's', the value of the key "trust": "pcp" or "dscp".  Returns
 * false for anything else. */
bool
pfc_trust_from_string(const char *s, enum pfc_trust *trust)
{
    if (!strcmp(s, "pcp")) {
        *trust = PFC_TRUST_PCP;
    } else if (!strcmp(s, "dscp")) {
        *trust = PFC_TRUST_DSCP;
    } else {
        return false;
    }
    return true;
}

/* Initializes 'c' with 'trust', 'default_prio' (0..7) and 'dscp_to_prio'
 * (NULL: the default map). */
void
pfc_classifier_init(struct pfc_classifier *c, enum pfc_trust trust,
                    int default_prio, const uint8_t dscp_to_prio[PFC_N_DSCP])
{
    ovs_assert(default_prio >= 0 && default_prio < 8);
    memset(c, 0, sizeof *c);
    c->trust = trust;
    c->default_prio = default_prio;
    if (dscp_to_prio) {
        memcpy(c->dscp_to_prio, dscp_to_prio, sizeof c->dscp_to_prio);
    } else {
        pfc_dscp_map_default(c->dscp_to_prio);
    }
    c->dscp_default = pfc_dscp_map_is_default(c->dscp_to_prio);
}

/* Parses 's', the value of rewrite-dscp: a comma-separated list of
 * PRIORITY:DSCP pairs, priority 0..7 and DSCP 0..63 (spaces allowed), into
 * 'rw'.  A priority not listed keeps the DSCP it has.  Returns 0, or EINVAL
 * with a message in '*errp' (the caller frees it), leaving 'rw' as it
 * was. */
int
pfc_rewrite_dscp_parse(const char *s, struct pfc_rewrite *rw, char **errp)
{
    uint8_t dscp[8] = { 0 };
    uint64_t prios;

    if (!parse_pairs(s, 7, PFC_N_DSCP - 1, dscp, &prios)) {
        *errp = xasprintf("other_config:rewrite-dscp=\"%s\" is invalid: "
                          "must be a comma-separated list of PRIORITY:DSCP "
                          "pairs, PRIORITY from 0 to 7 and DSCP from 0 to 63",
                          s);
        return EINVAL;
    }
    rw->dscp_prios = prios;
    memcpy(rw->prio_to_dscp, dscp, sizeof dscp);
    return 0;
}

/* Appends the rewrite-dscp map of 'rw' to 'ds', as
 * pfc_rewrite_dscp_parse() reads it, or "none". */
void
pfc_rewrite_dscp_format(struct ds *ds, const struct pfc_rewrite *rw)
{
    bool any = false;

    for (int n = 0; n < 8; n++) {
        if ((rw->dscp_prios >> n) & 1) {
            ds_put_format(ds, "%s%d:%d", any ? "," : "", n,
                          rw->prio_to_dscp[n]);
            any = true;
        }
    }
    if (!any) {
        ds_put_cstr(ds, "none");
    }
}

/* Adds to the 16-bit one's complement checksum 'csum' (network order, as
 * in the header) the change of one 16-bit word from 'old' to 'new' (RFC
 * 1624, eqn. 3). */
static uint16_t
csum_update16(uint16_t csum, uint16_t old, uint16_t new)
{
    uint32_t sum = (uint16_t) ~csum + (uint16_t) ~old + new;

    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return ~sum;
}

/* Rewrites the markings of the Ethernet frame of 'len' octets at 'data',
 * of priority 'prio' (0..7), as 'rw' asks: the PCP of its outer tag, and
 * the DSCP of its IPv4 or IPv6 header behind at most two tags, keeping the
 * ECN field.  Updates an IPv4 header's checksum incrementally (RFC 1624):
 * where a NIC computes that checksum it overwrites the field anyway.
 * Returns true if it changed anything. */
bool
pfc_rewrite_frame(void *data_, size_t len, int prio,
                  const struct pfc_rewrite *rw)
{
    uint8_t *data = data_;
    bool changed = false;
    size_t off = 12;

    if (len < 14) {
        return false;
    }
    for (int tags = 0; ; tags++) {
        uint16_t type = (data[off] << 8) | data[off + 1];

        if (type == PFC_CLS_ETH_VLAN || type == PFC_CLS_ETH_QINQ) {
            if (tags == 2 || len < off + 6) {
                return changed;
            }
            if (!tags && rw->pcp && (data[off + 2] >> 5) != prio) {
                data[off + 2] = (data[off + 2] & 0x1f) | (prio << 5);
                changed = true;
            }
            off += 4;
            continue;
        }
        off += 2;
        if (!((rw->dscp_prios >> prio) & 1)) {
            return changed;
        }
        uint8_t dscp = rw->prio_to_dscp[prio];

        if (type == PFC_CLS_ETH_IPV4 && len >= off + 20
            && (data[off] >> 4) == 4 && (data[off + 1] >> 2) != dscp) {
            uint16_t old = (data[off] << 8) | data[off + 1];
            uint8_t tos = (dscp << 2) | (data[off + 1] & 3);
            uint16_t new = (data[off] << 8) | tos;

            uint16_t csum = (data[off + 10] << 8) | data[off + 11];

            data[off + 1] = tos;
            csum = csum_update16(csum, old, new);
            data[off + 10] = csum >> 8;
            data[off + 11] = csum & 0xff;
            changed = true;
        } else if (type == PFC_CLS_ETH_IPV6 && len >= off + 40
                   && (data[off] >> 4) == 6) {
            uint8_t tc = ((data[off] & 0x0f) << 4) | (data[off + 1] >> 4);
            uint8_t ntc = (dscp << 2) | (tc & 3);

            if (ntc != tc) {
                data[off] = (data[off] & 0xf0) | (ntc >> 4);
                data[off + 1] = (data[off + 1] & 0x0f) | ((ntc & 0x0f) << 4);
                changed = true;
            }
        }
        return changed;
    }
}
