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
    const char *p = s;

    pfc_dscp_map_default(m);
    while (*p) {
        unsigned long dscp, prio;
        char *end;

        p += strspn(p, " ");
        if (!*p) {
            break;
        }
        errno = 0;
        dscp = strtoul(p, &end, 10);
        if (end == p || *p == '-' || errno || dscp >= PFC_N_DSCP) {
            goto bad;
        }
        p = end + strspn(end, " ");
        if (*p++ != ':') {
            goto bad;
        }
        p += strspn(p, " ");
        prio = strtoul(p, &end, 10);
        if (end == p || *p == '-' || errno || prio > 7) {
            goto bad;
        }
        m[dscp] = prio;
        p = end + strspn(end, " ");
        if (*p == ',') {
            p++;
        } else if (*p) {
            goto bad;
        }
    }
    memcpy(map, m, sizeof m);
    return 0;

bad:
    *errp = xasprintf("other_config:dscp-map=\"%s\" is invalid: must be a "
                      "comma-separated list of DSCP:PRIORITY pairs, DSCP "
                      "from 0 to 63 and PRIORITY from 0 to 7 (the DSCPs "
                      "not listed take DSCP / 8)", s);
    return EINVAL;
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
