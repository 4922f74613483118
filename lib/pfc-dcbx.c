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
#include "pfc-dcbx.h"

#include <errno.h>
#include <string.h>

#include "packets.h"
#include "util.h"

/* TLV types (IEEE 802.1AB-2016 8.4). */
enum {
    TLV_END = 0,
    TLV_CHASSIS_ID = 1,
    TLV_PORT_ID = 2,
    TLV_TTL = 3,
    TLV_ORG = 127,
};

/* Organizationally specific TLVs of IEEE 802.1 (OUI 00-80-C2) that DCBX
 * uses (IEEE 802.1Q-2018 D.2.8, D.2.10). */
#define OUI_8021 0x0080c2
#define OUI_CEE 0x001b21        /* Pre-standard CEE DCBX. */
#define SUBTYPE_ETS_CONFIG 0x09
#define SUBTYPE_ETS_REC 0x0a
#define SUBTYPE_PFC_CONFIG 0x0b
#define SUBTYPE_APP 0x0c
#define APP_TLV_MIN 5           /* OUI, subtype, reserved octet. */
#define APP_ENTRY_LEN 3
#define PFC_TLV_LEN 6           /* OUI, subtype, 2 octets. */
#define ETS_TLV_LEN 25          /* OUI, subtype, 21 octets. */

/* Chassis ID subtype 4 (MAC address) and Port ID subtype 5 (interface
 * name), IEEE 802.1AB-2016 tables 8-2 and 8-3. */
#define CHASSIS_SUBTYPE_MAC 4
#define PORT_SUBTYPE_IFNAME 5

#define PFC_WILLING 0x80
#define PFC_MBC 0x40
#define PFC_CAP_MASK 0x0f

static const struct eth_addr lldp_dst = ETH_ADDR_C(01, 80, c2, 00, 00, 0e);

static uint32_t
get_oui(const uint8_t *p)
{
    return ((uint32_t) p[0] << 16) | ((uint32_t) p[1] << 8) | p[2];
}

/* Parses the value 'v' (ETS_TLV_LEN octets from the OUI) of an ETS
 * Configuration or Recommendation TLV into '*t'. */
static void
ets_tlv_parse(const uint8_t *v, struct pfc_ets_tlv *t)
{
    t->willing = (v[4] & 0x80) != 0;
    t->cbs = (v[4] & 0x40) != 0;
    t->max_tcs = (v[4] & 0x07) ? v[4] & 0x07 : 8;
    for (int i = 0; i < 8; i++) {
        uint8_t b = v[5 + i / 2];

        t->prio_tc[i] = i % 2 ? b & 0x0f : b >> 4;
        t->bw[i] = v[9 + i];
        t->tsa[i] = v[17 + i];
    }
}

/* Puts the value of an ETS TLV of 'subtype' for '*t' into 'v'
 * (ETS_TLV_LEN octets). */
static void
ets_tlv_put(uint8_t *v, uint8_t subtype, const struct pfc_ets_tlv *t)
{
    v[0] = OUI_8021 >> 16;
    v[1] = (OUI_8021 >> 8) & 0xff;
    v[2] = OUI_8021 & 0xff;
    v[3] = subtype;
    v[4] = (subtype == SUBTYPE_ETS_CONFIG
            ? ((t->willing ? 0x80 : 0) | (t->cbs ? 0x40 : 0)
               | (t->max_tcs & 0x07))
            : 0);
    for (int i = 0; i < 4; i++) {
        v[5 + i] = ((t->prio_tc[2 * i] & 0x0f) << 4
                    | (t->prio_tc[2 * i + 1] & 0x0f));
    }
    memcpy(&v[9], t->bw, 8);
    memcpy(&v[17], t->tsa, 8);
}

/* Parses the value 'v', of 'tlen' octets from the OUI, of an Application
 * Priority TLV into '*t'.  Returns false if its length is not 5 + 3n. */
static bool
app_tlv_parse(const uint8_t *v, uint16_t tlen, struct pfc_app_tlv *t)
{
    if (tlen < APP_TLV_MIN || (tlen - APP_TLV_MIN) % APP_ENTRY_LEN) {
        return false;
    }
    memset(t, 0, sizeof *t);
    for (const uint8_t *e = v + APP_TLV_MIN; e < v + tlen;
         e += APP_ENTRY_LEN) {
        int prio = e[0] >> 5, sel = e[0] & 0x07;
        uint16_t pid = ((uint16_t) e[1] << 8) | e[2];

        if (sel != PFC_APP_SEL_DSCP || pid > 63) {
            t->n_ignored++;
        } else if (!(t->dscp_mask >> pid & 1) || prio > t->dscp_prio[pid]) {
            /* A DSCP listed twice: the highest priority. */
            t->dscp_mask |= UINT64_C(1) << pid;
            t->dscp_prio[pid] = prio;
        }
    }
    return true;
}

/* Makes '*t' advertise the whole DSCP map 'map' (priority of each of the 64
 * DSCPs). */
void
pfc_app_tlv_from_map(struct pfc_app_tlv *t, const uint8_t map[64])
{
    t->dscp_mask = UINT64_MAX;
    memcpy(t->dscp_prio, map, sizeof t->dscp_prio);
    t->n_ignored = 0;
}

/* Parses the organizationally specific TLV whose 'tlen' octets of value are
 * at 'v' into '*du': the PFC Configuration TLV, and the ETS Configuration
 * and Recommendation TLVs; others, and an ETS TLV of a bad length or a
 * second one, are counted as unsupported.  Returns 0, or EINVAL with a
 * static reason in '*why' (see pfc_lldpdu_parse()). */
static int
parse_org_tlv(const uint8_t *v, uint16_t tlen, struct pfc_lldpdu *du,
              const char **why)
{
    uint32_t oui;
    uint8_t subtype;

    if (tlen < 4) {
        *why = "organizationally specific TLV shorter than 4 octets";
        return EINVAL;
    }
    oui = get_oui(v);
    subtype = v[3];
    if (oui == OUI_8021 && subtype == SUBTYPE_PFC_CONFIG) {
        if (tlen != PFC_TLV_LEN) {
            *why = "PFC Configuration TLV of other than 6 octets";
            return EINVAL;
        }
        if (du->has_pfc) {
            *why = "a second PFC Configuration TLV";
            return EINVAL;
        }
        du->has_pfc = true;
        du->pfc.willing = (v[4] & PFC_WILLING) != 0;
        du->pfc.mbc = (v[4] & PFC_MBC) != 0;
        du->pfc.cap = v[4] & PFC_CAP_MASK;
        du->pfc.enable = v[5];
    } else if (oui == OUI_8021 && subtype == SUBTYPE_APP) {
        if (du->has_app) {
            *why = "a second Application Priority TLV";
            return EINVAL;
        }
        if (!app_tlv_parse(v, tlen, &du->app)) {
            *why = "Application Priority TLV of other than 5 + 3n octets";
            return EINVAL;
        }
        du->has_app = true;
    } else if (oui == OUI_8021 && subtype == SUBTYPE_ETS_CONFIG
               && tlen == ETS_TLV_LEN && !du->has_ets) {
        du->has_ets = true;
        ets_tlv_parse(v, &du->ets);
    } else if (oui == OUI_8021 && subtype == SUBTYPE_ETS_REC
               && tlen == ETS_TLV_LEN && !du->has_ets_rec) {
        du->has_ets_rec = true;
        ets_tlv_parse(v, &du->ets_rec);
        du->ets_rec.willing = du->ets_rec.cbs = false;
        du->ets_rec.max_tcs = 0;
    } else {
        /* Any other, or an ETS TLV of a bad length: unsupported, and
         * harmless to DCBX. */
        du->n_unsupported++;
        du->cee |= oui == OUI_CEE;
    }
    return 0;
}

/* Parses the LLDPDU in the 'len' octets at 'lldpdu' (the frame after its
 * EtherType; padding after the End TLV is ignored) into '*du'.  Returns 0,
 * or EINVAL with a static reason in '*why' if it is malformed:
 *
 *   - a TLV header or value runs past 'len', or there is no End TLV;
 *   - the first three TLVs are not Chassis ID, Port ID and TTL, or one of
 *     them has a bad length (an ID TLV of other than 2 to 256 octets, a TTL
 *     of other than 2 octets), or one of them appears again later;
 *   - End has a nonzero length;
 *   - a PFC Configuration TLV of other than 6 octets, or a second one;
 *   - an Application Priority TLV of other than 5 + 3n octets, or a second
 *     one;
 *   - an organizationally specific TLV of fewer than 4 octets.
 *
 * A malformed LLDPDU must be ignored whole (IEEE 802.1AB-2016 9.2.7.7.1):
 * the caller does not use '*du' then. */
int
pfc_lldpdu_parse(const void *lldpdu, size_t len, struct pfc_lldpdu *du,
                 const char **why)
{
    const uint8_t *p = lldpdu;
    size_t ofs = 0;
    int n = 0;

    memset(du, 0, sizeof *du);
    for (;;) {
        uint16_t hdr, tlen;
        const uint8_t *v;
        int type;

        if (len - ofs < 2) {
            *why = "no End of LLDPDU TLV";
            return EINVAL;
        }
        hdr = ((uint16_t) p[ofs] << 8) | p[ofs + 1];
        type = hdr >> 9;
        tlen = hdr & 0x1ff;
        if (tlen > len - ofs - 2) {
            *why = "a TLV runs past the end of the frame";
            return EINVAL;
        }
        v = &p[ofs + 2];
        ofs += 2 + tlen;

        if (n < 3 && type != n + 1) {
            *why = (n == 0 ? "the first TLV is not Chassis ID"
                    : n == 1 ? "the second TLV is not Port ID"
                    : "the third TLV is not Time To Live");
            return EINVAL;
        }
        switch (type) {
        case TLV_END:
            if (tlen) {
                *why = "End of LLDPDU TLV with a nonzero length";
                return EINVAL;
            }
            du->n_tlvs = n;
            return 0;

        case TLV_CHASSIS_ID:
        case TLV_PORT_ID:
            if (n >= 3) {
                *why = "a second Chassis ID or Port ID TLV";
                return EINVAL;
            }
            if (tlen < 2 || tlen > 256) {
                *why = "Chassis ID or Port ID TLV not of 2 to 256 octets";
                return EINVAL;
            }
            if (type == TLV_CHASSIS_ID) {
                du->chassis_subtype = v[0];
                du->chassis_len = tlen - 1;
                memcpy(du->chassis_id, v + 1, tlen - 1);
            } else {
                du->port_subtype = v[0];
                du->port_len = tlen - 1;
                memcpy(du->port_id, v + 1, tlen - 1);
            }
            break;

        case TLV_TTL:
            if (n >= 3) {
                *why = "a second Time To Live TLV";
                return EINVAL;
            }
            if (tlen != 2) {
                *why = "Time To Live TLV of other than 2 octets";
                return EINVAL;
            }
            du->ttl = ((uint16_t) v[0] << 8) | v[1];
            break;

        case TLV_ORG:
            if (parse_org_tlv(v, tlen, du, why)) {
                return EINVAL;
            }
            break;

        default:
            /* Other basic TLVs (port description, system name...). */
            break;
        }
        n++;
    }
}

/* Appends a TLV of 'type' with the 'len' octets at 'value' to the frame at
 * 'p', at offset '*ofs', and advances '*ofs' past it. */
static void
put_tlv(uint8_t *p, size_t *ofs, int type, const void *value, uint16_t len)
{
    size_t o = *ofs;

    p[o++] = (type << 1) | (len >> 8);
    p[o++] = len & 0xff;
    if (len) {
        memcpy(&p[o], value, len);
    }
    *ofs = o + len;
}

/* Builds into 'frame', of 'size' octets, the Ethernet frame (without FCS)
 * of an LLDPDU sent from MAC address 'src' on the port named 'port_name'
 * (its first 255 octets) with a Time To Live of 'ttl' seconds: Chassis ID
 * (subtype MAC address, 'src'), Port ID (subtype interface name), TTL, the
 * ETS Configuration TLV 'ets_config' and the ETS Recommendation TLV
 * 'ets_rec' (each if nonnull), the PFC Configuration TLV 'pfc', the
 * Application Priority TLV with the DSCP entries of 'app' (if nonnull) and
 * End,
 * padded with zeros to the 60-octet minimum.  Returns its length in octets,
 * or 0 if 'size' is too small (a frame needs at most PFC_LLDP_FRAME_MAX
 * octets). */
size_t
pfc_lldpdu_build(void *frame, size_t size, struct eth_addr src,
                 const char *port_name, uint16_t ttl,
                 const struct pfc_dcbx_tlv *pfc,
                 const struct pfc_ets_tlv *ets_config,
                 const struct pfc_ets_tlv *ets_rec,
                 const struct pfc_app_tlv *app)
{
    size_t name_len = MIN(strlen(port_name), 255);
    size_t app_len = (app ? APP_TLV_MIN
                      + APP_ENTRY_LEN * count_1bits(app->dscp_mask) : 0);
    uint8_t id[256], ttl_be[2], org[APP_TLV_MIN + APP_ENTRY_LEN * 64];
    uint8_t *p = frame;
    size_t ofs = 0;

    if (size < (ETH_HEADER_LEN
                + 2 + 1 + ETH_ADDR_LEN      /* Chassis ID. */
                + 2 + 1 + name_len          /* Port ID. */
                + 2 + 2                     /* Time To Live. */
                + (ets_config ? 2 + ETS_TLV_LEN : 0)
                + (ets_rec ? 2 + ETS_TLV_LEN : 0)
                + 2 + PFC_TLV_LEN           /* PFC Configuration. */
                + (app ? 2 + app_len : 0)
                + 2)                        /* End. */
        || size < ETH_TOTAL_MIN) {
        return 0;
    }
    memcpy(&p[0], lldp_dst.ea, ETH_ADDR_LEN);
    memcpy(&p[ETH_ADDR_LEN], src.ea, ETH_ADDR_LEN);
    p[12] = PFC_LLDP_ETH_TYPE >> 8;
    p[13] = PFC_LLDP_ETH_TYPE & 0xff;
    ofs = ETH_HEADER_LEN;

    id[0] = CHASSIS_SUBTYPE_MAC;
    memcpy(&id[1], src.ea, ETH_ADDR_LEN);
    put_tlv(p, &ofs, TLV_CHASSIS_ID, id, 1 + ETH_ADDR_LEN);

    id[0] = PORT_SUBTYPE_IFNAME;
    memcpy(&id[1], port_name, name_len);
    put_tlv(p, &ofs, TLV_PORT_ID, id, 1 + name_len);

    ttl_be[0] = ttl >> 8;
    ttl_be[1] = ttl & 0xff;
    put_tlv(p, &ofs, TLV_TTL, ttl_be, 2);

    if (ets_config) {
        ets_tlv_put(org, SUBTYPE_ETS_CONFIG, ets_config);
        put_tlv(p, &ofs, TLV_ORG, org, ETS_TLV_LEN);
    }
    if (ets_rec) {
        ets_tlv_put(org, SUBTYPE_ETS_REC, ets_rec);
        put_tlv(p, &ofs, TLV_ORG, org, ETS_TLV_LEN);
    }
    org[0] = OUI_8021 >> 16;
    org[1] = (OUI_8021 >> 8) & 0xff;
    org[2] = OUI_8021 & 0xff;
    org[3] = SUBTYPE_PFC_CONFIG;
    org[4] = ((pfc->willing ? PFC_WILLING : 0) | (pfc->mbc ? PFC_MBC : 0)
              | (pfc->cap & PFC_CAP_MASK));
    org[5] = pfc->enable;
    put_tlv(p, &ofs, TLV_ORG, org, PFC_TLV_LEN);

    if (app) {
        size_t o = APP_TLV_MIN;

        org[3] = SUBTYPE_APP;
        org[4] = 0;
        for (uint64_t m = app->dscp_mask; m; m &= m - 1) {
            int dscp = raw_ctz(m);

            org[o++] = (app->dscp_prio[dscp] & 7) << 5 | PFC_APP_SEL_DSCP;
            org[o++] = 0;
            org[o++] = dscp;
        }
        put_tlv(p, &ofs, TLV_ORG, org, app_len);
    }

    put_tlv(p, &ofs, TLV_END, NULL, 0);
    if (ofs < ETH_TOTAL_MIN) {
        memset(&p[ofs], 0, ETH_TOTAL_MIN - ofs);
        ofs = ETH_TOTAL_MIN;
    }
    return ofs;
}

/* The Time To Live that this port advertises, seconds: msgTxInterval x
 * msgTxHold + 1 (IEEE 802.1AB-2016 9.2.5.22), at most 65535. */
uint16_t
pfc_dcbx_ttl(const struct pfc_dcbx_params *params)
{
    return MIN((uint32_t) params->tx_interval * PFC_LLDP_TX_HOLD + 1,
               UINT16_MAX);
}

/* Returns true if 'a' and 'b' come from the same LLDP agent: the same MSAP
 * identifier, Chassis ID and Port ID with their subtypes (IEEE
 * 802.1AB-2016 6.2). */
bool
pfc_lldpdu_same_agent(const struct pfc_lldpdu *a, const struct pfc_lldpdu *b)
{
    return (a->chassis_subtype == b->chassis_subtype
            && a->chassis_len == b->chassis_len
            && !memcmp(a->chassis_id, b->chassis_id, a->chassis_len)
            && a->port_subtype == b->port_subtype
            && a->port_len == b->port_len
            && !memcmp(a->port_id, b->port_id, a->port_len));
}

/* The partner's last LLDPDU, if there is one partner and no second agent
 * (see the header's opening comment), else NULL. */
static const struct pfc_lldpdu *
pfc_dcbx_partner(const struct pfc_dcbx *dcbx)
{
    return dcbx->partner && !dcbx->second ? &dcbx->last : NULL;
}

static int
popcount8(uint8_t x)
{
    int n = 0;

    for (; x; x &= x - 1) {
        n++;
    }
    return n;
}

/* Decides the operational vector of a port configured by 'params', whose
 * MAC address is 'local', given the PFC Configuration TLV 'partner' of a
 * partner whose LLDPDUs come from 'partner_mac', or NULL if there is no
 * partner or it sent no PFC TLV.  Stores where the vector comes from in
 * '*source' and whether it is a mismatch in '*mismatch' (see the header's
 * opening comment).  If 'why' is nonnull, sets '*why' to why a vector that
 * the port would adopt is not (its headroom does not fit), or NULL. */
uint8_t
pfc_dcbx_decide(const struct pfc_dcbx_params *params, struct eth_addr local,
                const struct pfc_dcbx_tlv *partner,
                struct eth_addr partner_mac, enum pfc_dcbx_source *source,
                bool *mismatch, const char **why)
{
    bool adopt = false, refused = false;
    uint8_t oper;

    if (partner && params->willing) {
        /* Both willing: the lower MAC address adopts (as openlldp's
         * pfc_sm() does, and both ends agree on it). */
        adopt = (!partner->willing
                 || eth_addr_compare_3way(local, partner_mac) < 0);
    }
    if (adopt && params->limit_known
        && popcount8(partner->enable) > params->max_lossless) {
        /* The headroom of the partner's vector would not fit: reserving it
         * would take the shared pool from every other port. */
        adopt = false;
        refused = true;
    }
    oper = adopt ? partner->enable : params->admin;
    *source = adopt ? PFC_DCBX_PARTNER : PFC_DCBX_ADMIN;
    *mismatch = (partner
                 && (refused
                     || (!params->willing && !partner->willing
                         && partner->enable != params->admin)
                     || (partner->cap && popcount8(oper) > partner->cap)));
    if (why) {
        *why = (refused ? "the headroom of its vector does not fit in the "
                "shared buffer" : NULL);
    }
    return oper;
}

/* Decides the operational DSCP map of a port configured by 'params', whose
 * MAC address is 'local', given the last LLDPDU 'partner' (NULL if there is
 * no partner) of a partner whose LLDPDUs come from 'partner_mac': the
 * port's own map, params->dscp_admin, with the partner's DSCP entries over
 * it if the port adopts them (see the header's opening comment).  Stores
 * it in 'oper' and returns true if it has the partner's entries. */
bool
pfc_dcbx_app_decide(const struct pfc_dcbx_params *params,
                    struct eth_addr local, const struct pfc_lldpdu *partner,
                    struct eth_addr partner_mac, uint8_t oper[64])
{
    bool partner_willing;

    memcpy(oper, params->dscp_admin, 64);
    if (!params->app_dscp || !params->willing || !partner
        || !partner->has_app || !partner->app.dscp_mask) {
        return false;
    }
    partner_willing = (partner->has_pfc ? partner->pfc.willing
                       : partner->has_ets && partner->ets.willing);
    if (partner_willing && eth_addr_compare_3way(local, partner_mac) > 0) {
        return false;
    }
    for (uint64_t m = partner->app.dscp_mask; m; m &= m - 1) {
        int dscp = raw_ctz(m);

        oper[dscp] = partner->app.dscp_prio[dscp];
    }
    return true;
}

/* Recomputes the Application Priority decision of 'dcbx'
 * (pfc_dcbx_app_decide()), setting dcbx->app_changed if the operational
 * DSCP map changed. */
static void
pfc_dcbx_update_app(struct pfc_dcbx *dcbx,
                    const struct pfc_dcbx_params *params,
                    struct eth_addr local)
{
    uint8_t oper[64];
    bool adopted;

    adopted = pfc_dcbx_app_decide(params, local, pfc_dcbx_partner(dcbx),
                                  dcbx->partner_mac, oper);
    if (adopted != dcbx->app_adopted
        || memcmp(oper, dcbx->dscp_oper, sizeof oper)) {
        dcbx->app_changed = true;
    }
    dcbx->app_adopted = adopted;
    memcpy(dcbx->dscp_oper, oper, sizeof oper);
}

/* Decides the operational ETS configuration of a port configured by
 * 'params', given its partner's ETS Recommendation TLV 'partner_rec' (NULL
 * if there is no partner or it sent none): the recommendation if the port
 * is willing and can run it, else params->ets_admin.  Stores it in '*oper'
 * and returns true if it is the partner's.  Sets '*why' to why a
 * recommendation was refused, or NULL. */
bool
pfc_dcbx_ets_decide(const struct pfc_dcbx_params *params,
                    const struct pfc_ets_tlv *partner_rec,
                    struct pfc_ets_tlv *oper, const char **why)
{
    unsigned int sum = 0;
    bool any_ets = false;

    *why = NULL;
    *oper = params->ets_admin;
    if (!params->willing || !partner_rec) {
        return false;
    }
    for (int tc = 0; tc < 8; tc++) {
        if (partner_rec->tsa[tc] == 2) {
            if (!partner_rec->bw[tc]) {
                *why = "an ETS traffic class with 0% bandwidth";
                return false;
            }
            sum += partner_rec->bw[tc];
            any_ets = true;
        } else if (partner_rec->tsa[tc] != 0) {
            *why = "a TSA other than strict priority and ETS";
            return false;
        }
    }
    if (any_ets && sum != 100) {
        *why = "ETS bandwidths that do not sum to 100%";
        return false;
    }
    memcpy(oper->bw, partner_rec->bw, sizeof oper->bw);
    memcpy(oper->tsa, partner_rec->tsa, sizeof oper->tsa);
    for (int tc = 0; tc < 8; tc++) {
        if (oper->tsa[tc] != 2) {
            oper->bw[tc] = 0;
        }
    }
    return true;
}

/* Recomputes the ETS decision of 'dcbx' (pfc_dcbx_ets_decide()), setting
 * dcbx->ets_changed if the operational ETS configuration changed. */
static void
pfc_dcbx_update_ets(struct pfc_dcbx *dcbx,
                    const struct pfc_dcbx_params *params)
{
    const struct pfc_lldpdu *partner = pfc_dcbx_partner(dcbx);
    bool has = partner && partner->has_ets_rec;
    struct pfc_ets_tlv oper;
    const char *why;
    bool adopted;

    adopted = pfc_dcbx_ets_decide(params, has ? &dcbx->last.ets_rec : NULL,
                                  &oper, &why);
    oper.willing = params->willing;
    oper.max_tcs = 8;
    if (adopted != dcbx->ets_adopted
        || memcmp(&oper, &dcbx->ets_oper, sizeof oper)) {
        /* What the ETS Configuration TLV says changed: a local change, so
         * a fast start (IEEE 802.1AB-2016 9.2.7.7.2), due at once. */
        dcbx->ets_changed = true;
        pfc_dcbx_fast_start(dcbx, 0);
    }
    dcbx->ets_adopted = adopted;
    dcbx->ets_oper = oper;
    dcbx->ets_refused = why;
}

/* Recomputes the decision of 'dcbx'; returns true if the operational vector
 * changed (and sets dcbx->ets_changed if the operational ETS configuration
 * did, dcbx->app_changed if the operational DSCP map did). */
static bool
pfc_dcbx_update(struct pfc_dcbx *dcbx, const struct pfc_dcbx_params *params,
                struct eth_addr local)
{
    const struct pfc_lldpdu *partner = pfc_dcbx_partner(dcbx);
    bool has = partner && partner->has_pfc;
    uint8_t old = dcbx->oper;
    bool mismatch;

    pfc_dcbx_update_ets(dcbx, params);
    pfc_dcbx_update_app(dcbx, params, local);

    dcbx->oper = pfc_dcbx_decide(params, local,
                                 has ? &dcbx->last.pfc : NULL,
                                 dcbx->partner_mac, &dcbx->source, &mismatch,
                                 &dcbx->pfc_refused);
    if (mismatch && !dcbx->mismatch) {
        dcbx->mismatches++;
    }
    dcbx->mismatch = mismatch;
    return dcbx->oper != old;
}

/* Initializes 'dcbx' for a port configured by 'params' at tick 'now': no
 * partner, the administrative vector in force, a fast start of LLDPDUs due
 * at once. */
void
pfc_dcbx_init(struct pfc_dcbx *dcbx, const struct pfc_dcbx_params *params,
              uint64_t now)
{
    memset(dcbx, 0, sizeof *dcbx);
    dcbx->oper = params->admin;
    dcbx->source = PFC_DCBX_ADMIN;
    memcpy(dcbx->dscp_oper, params->dscp_admin, sizeof dcbx->dscp_oper);
    pfc_dcbx_update_ets(dcbx, params);
    pfc_dcbx_fast_start(dcbx, now);
}

/* Takes a new configuration 'params' of the port (its MAC is 'local') at
 * tick 'now', keeping the partner.  Returns true if the operational vector
 * changed.  A change of what this port advertises (its vector or
 * willingness) starts a fast start, as any local change does. */
bool
pfc_dcbx_reconfigure(struct pfc_dcbx *dcbx,
                     const struct pfc_dcbx_params *params,
                     struct eth_addr local, uint64_t now)
{
    pfc_dcbx_fast_start(dcbx, now);
    return pfc_dcbx_update(dcbx, params, local);
}

/* Makes the second agent of 'dcbx' its partner. */
static void
pfc_dcbx_promote(struct pfc_dcbx *dcbx)
{
    dcbx->partner = true;
    dcbx->partner_mac = dcbx->second_mac;
    dcbx->last = dcbx->second_last;
    dcbx->expiry = dcbx->second_expiry;
    dcbx->second = false;
}

/* Takes the valid LLDPDU 'du' from source address 'src' at tick 'now' into
 * the neighbours of 'dcbx': the partner's or the second agent's, by its
 * MSAP identifier (see the header's opening comment). */
static void
pfc_dcbx_rx_agent(struct pfc_dcbx *dcbx, const struct pfc_lldpdu *du,
                  struct eth_addr src, uint64_t now, uint64_t hz)
{
    bool is_partner = (dcbx->partner
                       && pfc_lldpdu_same_agent(du, &dcbx->last));
    bool is_second = (!is_partner && dcbx->second
                      && pfc_lldpdu_same_agent(du, &dcbx->second_last));

    if (!du->ttl) {
        /* Shutdown: only the agent it names leaves. */
        if (is_partner) {
            dcbx->partner = false;
            if (dcbx->second) {
                pfc_dcbx_promote(dcbx);
            }
        } else if (is_second) {
            dcbx->second = false;
        } else {
            dcbx->rx_shutdown_unknown++;
        }
    } else if (!dcbx->partner || is_partner) {
        dcbx->partner = true;
        dcbx->partner_mac = src;
        dcbx->last = *du;
        dcbx->expiry = now + du->ttl * hz;
    } else {
        dcbx->rx_second++;
        dcbx->second = true;
        dcbx->second_mac = src;
        dcbx->second_last = *du;
        dcbx->second_expiry = now + du->ttl * hz;
    }
}

/* Receives the LLDPDU in the 'len' octets at 'lldpdu' (after the
 * EtherType), from source address 'src', on a port configured by 'params'
 * whose MAC is 'local', at tick 'now' (the clock runs at 'hz' ticks per
 * second).  A malformed one is counted in rx_errors and changes nothing;
 * '*why' says why.  A valid one refreshes the agent it comes from, or
 * removes it if its TTL is 0 (shutdown LLDPDU): pfc_dcbx_rx_agent().
 * Returns true if the operational vector changed. */
bool
pfc_dcbx_rx(struct pfc_dcbx *dcbx, const struct pfc_dcbx_params *params,
            struct eth_addr local, struct eth_addr src, const void *lldpdu,
            size_t len, uint64_t now, uint64_t hz, const char **why)
{
    struct pfc_lldpdu du;

    *why = NULL;
    if (pfc_lldpdu_parse(lldpdu, len, &du, why)) {
        dcbx->rx_errors++;
        return false;
    }
    dcbx->rx_lldpdus++;
    dcbx->rx_tlvs += du.n_tlvs;
    dcbx->rx_pfc_tlvs += du.has_pfc;
    dcbx->rx_unsupported += du.n_unsupported;
    if (du.has_ets_rec && params->willing) {
        struct pfc_ets_tlv oper;
        const char *refused;

        if (!pfc_dcbx_ets_decide(params, &du.ets_rec, &oper, &refused)) {
            dcbx->rx_ets_rec_refused++;
        }
    }
    pfc_dcbx_rx_agent(dcbx, &du, src, now, hz);
    return pfc_dcbx_update(dcbx, params, local);
}

/* Ages the partner of 'dcbx' at tick 'now': once its TTL has run out, the
 * port falls back to its administrative vector.  Returns true if the
 * operational vector changed. */
bool
pfc_dcbx_run(struct pfc_dcbx *dcbx, const struct pfc_dcbx_params *params,
             struct eth_addr local, uint64_t now)
{
    bool aged = false;

    if (dcbx->second && now >= dcbx->second_expiry) {
        dcbx->second = false;
        dcbx->ageouts++;
        aged = true;
    }
    if (dcbx->partner && now >= dcbx->expiry) {
        dcbx->partner = false;
        dcbx->ageouts++;
        aged = true;
        if (dcbx->second) {
            pfc_dcbx_promote(dcbx);
        }
    }
    return aged && pfc_dcbx_update(dcbx, params, local);
}

/* Returns true if an LLDPDU is due at tick 'now'. */
bool
pfc_dcbx_tx_due(const struct pfc_dcbx *dcbx, uint64_t now)
{
    return now >= dcbx->next_tx;
}

/* Notes that an LLDPDU was sent at tick 'now' and schedules the next one:
 * msgFastTx later during a fast start, else msgTxInterval later. */
void
pfc_dcbx_tx_done(struct pfc_dcbx *dcbx, const struct pfc_dcbx_params *params,
                 uint64_t now, uint64_t hz)
{
    uint64_t s = params->tx_interval;

    if (dcbx->fast_left) {
        dcbx->fast_left--;
        s = PFC_LLDP_FAST_TX_S;
    }
    dcbx->tx_lldpdus++;
    dcbx->next_tx = now + s * hz;
}

/* Starts a fast start at tick 'now' (IEEE 802.1AB-2016 9.2.7.7.2, after a
 * local change or a link up): an LLDPDU now, then msgFastTx apart until
 * txFastInit were sent. */
void
pfc_dcbx_fast_start(struct pfc_dcbx *dcbx, uint64_t now)
{
    dcbx->fast_left = PFC_LLDP_FAST_INIT;
    dcbx->next_tx = now;
}
