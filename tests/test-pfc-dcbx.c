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

/* Unit tests of lib/pfc-dcbx.c, DCBX (IEEE 802.1Qaz over LLDP): the LLDPDU
 * codec, the PFC, ETS and Application Priority TLVs, the willing
 * negotiation, the neighbour, the state machine and the keys. */

#include <config.h>
#undef NDEBUG
#include "pfc-dcbx.h"

#include <errno.h>
#include <string.h>

#include "command-line.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "ovstest.h"
#include "pfc.h"
#include "pfc-config.h"
#include "smap.h"
#include "test-pfc-parse.h"
#include "util.h"

/* DCBX (lib/pfc-dcbx.h). */

static const struct eth_addr dcbx_mac_lo = ETH_ADDR_C(02, 00, 00, 00, 0a, 01);
static const struct eth_addr dcbx_mac_hi = ETH_ADDR_C(02, 00, 00, 00, 0b, 01);

/* Appends a TLV to the LLDPDU being built in 'b' at '*n'. */
static void
dcbx_put(uint8_t *b, size_t *n, int type, const char *hex)
{
    size_t len = strlen(hex) / 2;

    b[(*n)++] = (type << 1) | (len >> 8);
    b[(*n)++] = len & 0xff;
    for (size_t i = 0; i < len; i++) {
        unsigned int x;

        ovs_assert(sscanf(&hex[2 * i], "%2x", &x) == 1);
        b[(*n)++] = x;
    }
}

/* An LLDPDU with the three mandatory TLVs (chassis MAC 02:00:00:00:0b:01,
 * port "eth1", TTL 'ttl'), then 'extra' (hex TLV values by type: "type:hex"
 * separated by spaces), then End.  Returns its length. */
static size_t
dcbx_lldpdu(uint8_t *b, uint16_t ttl, const char *extra)
{
    char ttl_hex[5];
    size_t n = 0;

    dcbx_put(b, &n, 1, "04020000000b01");
    dcbx_put(b, &n, 2, "0565746831");
    snprintf(ttl_hex, sizeof ttl_hex, "%04x", ttl);
    dcbx_put(b, &n, 3, ttl_hex);
    if (extra) {
        char *copy = xstrdup(extra), *save = NULL;

        for (char *tok = strtok_r(copy, " ", &save); tok;
             tok = strtok_r(NULL, " ", &save)) {
            int type = atoi(tok);

            dcbx_put(b, &n, type, strchr(tok, ':') + 1);
        }
        free(copy);
    }
    dcbx_put(b, &n, 0, "");
    return n;
}

static void
dcbx_bad(const uint8_t *b, size_t len, const char *want)
{
    struct pfc_lldpdu du;
    const char *why = NULL;

    ovs_assert(pfc_lldpdu_parse(b, len, &du, &why) == EINVAL);
    if (!why || !strstr(why, want)) {
        ovs_fatal(0, "LLDPDU rejected because \"%s\", want \"%s\"",
                  why ? why : "(null)", want);
    }
}

/* An LLDPDU built and parsed back, long names cut, the TLVs that are
 * decoded or counted, and padding after End. */
static void
dcbx_codec_good(void)
{
    struct pfc_dcbx_tlv tlv = { .willing = true, .cap = 8, .enable = 0x18 };
    uint8_t f[400], b[600];
    struct pfc_lldpdu du;
    const char *why;
    size_t n;

    /* Build. */
    n = pfc_lldpdu_build(f, sizeof f, dcbx_mac_lo, "dpdk-a", 121, &tlv, NULL,
                         NULL, NULL);
    static const uint8_t want[] = {
        0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e,     /* Nearest bridge. */
        0x02, 0x00, 0x00, 0x00, 0x0a, 0x01,
        0x88, 0xcc,
        0x02, 0x07, 0x04, 0x02, 0x00, 0x00, 0x00, 0x0a, 0x01, /* Chassis. */
        0x04, 0x07, 0x05, 'd', 'p', 'd', 'k', '-', 'a',      /* Port. */
        0x06, 0x02, 0x00, 0x79,                              /* TTL 121. */
        0xfe, 0x06, 0x00, 0x80, 0xc2, 0x0b, 0x88, 0x18,      /* PFC. */
        0x00, 0x00,                                          /* End. */
    };
    ovs_assert(n == ETH_TOTAL_MIN);
    ovs_assert(!memcmp(f, want, sizeof want));
    for (size_t i = sizeof want; i < n; i++) {
        ovs_assert(!f[i]);
    }
    ovs_assert(!pfc_lldpdu_build(f, 40, dcbx_mac_lo, "dpdk-a", 121, &tlv,
                                 NULL, NULL, NULL));

    /* Parse it back. */
    ovs_assert(!pfc_lldpdu_parse(f + ETH_HEADER_LEN, n - ETH_HEADER_LEN, &du,
                                 &why));
    ovs_assert(du.chassis_subtype == 4 && du.chassis_len == 6
               && !memcmp(du.chassis_id, dcbx_mac_lo.ea, 6));
    ovs_assert(du.port_subtype == 5 && du.port_len == 6
               && !memcmp(du.port_id, "dpdk-a", 6));
    ovs_assert(du.ttl == 121 && du.n_tlvs == 4 && !du.n_unsupported);
    ovs_assert(du.has_pfc && du.pfc.willing && !du.pfc.mbc
               && du.pfc.cap == 8 && du.pfc.enable == 0x18);

    /* A long port name is cut at 255 octets. */
    char name[300];

    memset(name, 'x', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    struct pfc_ets_tlv ets = { .max_tcs = 8 };

    struct pfc_app_tlv app;
    uint8_t map[64];

    pfc_dscp_map_default(map);
    pfc_app_tlv_from_map(&app, map);
    n = pfc_lldpdu_build(b, sizeof b, dcbx_mac_lo, name, 121, &tlv, &ets,
                         &ets, &app);
    ovs_assert(n == PFC_LLDP_FRAME_MAX);
    ovs_assert(!pfc_lldpdu_build(b, PFC_LLDP_FRAME_MAX - 1, dcbx_mac_lo, name,
                                 121, &tlv, &ets, &ets, &app));
    ovs_assert(!pfc_lldpdu_parse(b + ETH_HEADER_LEN, n - ETH_HEADER_LEN, &du,
                                 &why));
    ovs_assert(du.port_len == 255);

    /* MBC, other bits; ETS for display; unsupported TLVs, CEE too; other
     * basic TLVs (system name) are fine. */
    n = dcbx_lldpdu(b, 120, "127:0080c20b4f08 "
                    "127:0080c20983" "01234567" "0a141e2800000000"
                    "0202020000000000 "
                    "127:0080c201000a 127:001b21010203 5:6c656166");
    ovs_assert(!pfc_lldpdu_parse(b, n, &du, &why));
    ovs_assert(du.has_pfc && !du.pfc.willing && du.pfc.mbc
               && du.pfc.cap == 15 && du.pfc.enable == 0x08);
    ovs_assert(du.has_ets && du.ets.willing && !du.ets.cbs
               && du.ets.max_tcs == 3 && !du.has_ets_rec);
    for (int i = 0; i < 8; i++) {
        ovs_assert(du.ets.prio_tc[i] == i);
    }
    ovs_assert(du.ets.bw[0] == 10 && du.ets.bw[3] == 40 && !du.ets.bw[4]);
    ovs_assert(du.ets.tsa[0] == 2 && du.ets.tsa[3] == 0);
    ovs_assert(du.n_unsupported == 2 && du.cee && du.n_tlvs == 8);

    /* Padding after End is ignored. */
    memset(b + n, 0xee, 20);
    ovs_assert(!pfc_lldpdu_parse(b, n + 20, &du, &why));
}

/* Malformed LLDPDUs, each rejected with its reason. */
static void
dcbx_codec_malformed(void)
{
    uint8_t b[600];
    size_t n;

    n = dcbx_lldpdu(b, 120, "127:0080c20b8808 127:0080c20b8810");
    dcbx_bad(b, n, "a second PFC Configuration TLV");
    n = dcbx_lldpdu(b, 120, "127:0080c20b880800");
    dcbx_bad(b, n, "PFC Configuration TLV of other than 6 octets");
    n = dcbx_lldpdu(b, 120, "127:0080c2");
    dcbx_bad(b, n, "organizationally specific TLV shorter than 4 octets");
    n = dcbx_lldpdu(b, 120, "1:04020000000b01");
    dcbx_bad(b, n, "a second Chassis ID or Port ID TLV");
    n = dcbx_lldpdu(b, 120, "3:0078");
    dcbx_bad(b, n, "a second Time To Live TLV");
    n = dcbx_lldpdu(b, 120, NULL);
    dcbx_bad(b, 12, "a TLV runs past the end of the frame");
    dcbx_bad(b, n - 1, "no End of LLDPDU TLV");
    dcbx_bad(b, n - 2, "no End of LLDPDU TLV");
    dcbx_bad(b, 0, "no End of LLDPDU TLV");
    b[n - 1] = 1;               /* End of length 1, past the frame... */
    dcbx_bad(b, n, "a TLV runs past the end of the frame");
    b[n] = 0;                   /* ...or within it. */
    dcbx_bad(b, n + 1, "End of LLDPDU TLV with a nonzero length");

    n = 0;
    dcbx_put(b, &n, 2, "0565746831");
    dcbx_bad(b, n, "the first TLV is not Chassis ID");
    n = 0;
    dcbx_put(b, &n, 1, "04020000000b01");
    dcbx_put(b, &n, 3, "0078");
    dcbx_bad(b, n, "the second TLV is not Port ID");
    n = 0;
    dcbx_put(b, &n, 1, "04020000000b01");
    dcbx_put(b, &n, 2, "0565746831");
    dcbx_put(b, &n, 0, "");
    dcbx_bad(b, n, "the third TLV is not Time To Live");
    n = 0;
    dcbx_put(b, &n, 1, "04020000000b01");
    dcbx_put(b, &n, 2, "0565746831");
    dcbx_put(b, &n, 3, "00");
    dcbx_bad(b, n, "Time To Live TLV of other than 2 octets");
    n = 0;
    dcbx_put(b, &n, 1, "04");
    dcbx_bad(b, n, "Chassis ID or Port ID TLV not of 2 to 256 octets");
    n = 0;
    b[n++] = 0x03;              /* Chassis ID of 257 octets. */
    b[n++] = 0x01;
    memset(b + n, 4, 257);
    n += 257;
    dcbx_bad(b, n, "Chassis ID or Port ID TLV not of 2 to 256 octets");
}

/* The LLDPDU codec: what pfc_lldpdu_build() sends, octet by octet, parses
 * back; the PFC and ETS TLVs decode; malformed LLDPDUs are rejected with a
 * reason; unsupported TLVs, CEE DCBX among them, are counted. */
static void
test_dcbx_codec(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    dcbx_codec_good();
    dcbx_codec_malformed();
    printf("dcbx-codec: ok\n");
}

static struct pfc_dcbx_params
dcbx_params(bool willing, uint8_t admin)
{
    struct pfc_dcbx_params p = {
        .enabled = true, .willing = willing, .admin = admin,
        .tx_interval = PFC_LLDP_TX_INTERVAL_DEFAULT,
    };

    return p;
}

/* The ETS state of DCBX (pfc_dcbx_rx(), pfc_dcbx_run()) for a port with
 * the DCBX parameters 'params', whose partner sends PFC TLV 'pfc', ETS
 * Configuration 'cfg' and Recommendation 'rec': the recommendation
 * adopted on receipt, refused and counted, back to the Queue rows' when
 * the partner's TTL runs out. */
static void
test_dcbx_ets_state(const struct pfc_dcbx_tlv *pfc,
                    const struct pfc_ets_tlv *cfg,
                    const struct pfc_ets_tlv *rec,
                    const struct pfc_dcbx_params *params)
{
    struct pfc_ets_tlv bad;
    uint8_t f[400];
    const char *why;
    struct pfc_dcbx d;
    uint64_t hz = 1000, now = 0;
    size_t n;

    pfc_dcbx_init(&d, params, now);
    ovs_assert(!d.ets_adopted && d.ets_oper.bw[0] == 25);
    d.ets_changed = false;
    n = pfc_lldpdu_build(f, sizeof f, dcbx_mac_hi, "q", 3, pfc, cfg, rec,
                         NULL);
    pfc_dcbx_rx(&d, params, dcbx_mac_lo, dcbx_mac_hi, f + ETH_HEADER_LEN,
                n - ETH_HEADER_LEN, now, hz, &why);
    ovs_assert(d.ets_adopted && d.ets_changed && d.ets_oper.bw[0] == 60);
    ovs_assert(!d.rx_ets_rec_refused);
    d.ets_changed = false;
    bad = *rec;
    bad.bw[0] = 10;
    n = pfc_lldpdu_build(f, sizeof f, dcbx_mac_hi, "q", 3, pfc, cfg, &bad,
                         NULL);
    pfc_dcbx_rx(&d, params, dcbx_mac_lo, dcbx_mac_hi, f + ETH_HEADER_LEN,
                n - ETH_HEADER_LEN, now, hz, &why);
    ovs_assert(!d.ets_adopted && d.ets_changed && d.ets_oper.bw[0] == 25);
    ovs_assert(d.rx_ets_rec_refused == 1 && d.ets_refused);
    n = pfc_lldpdu_build(f, sizeof f, dcbx_mac_hi, "q", 3, pfc, cfg, rec,
                         NULL);
    pfc_dcbx_rx(&d, params, dcbx_mac_lo, dcbx_mac_hi, f + ETH_HEADER_LEN,
                n - ETH_HEADER_LEN, now, hz, &why);
    ovs_assert(d.ets_adopted);
    d.ets_changed = false;
    ovs_assert(!pfc_dcbx_run(&d, params, dcbx_mac_lo, 2999));
    ovs_assert(d.ets_adopted && !d.ets_changed);
    pfc_dcbx_run(&d, params, dcbx_mac_lo, 3000);
    ovs_assert(!d.ets_adopted && d.ets_changed && d.ets_oper.bw[0] == 25);
}

/* ETS over DCBX (IEEE 802.1Q-2018 D.2.9, D.2.10): the Configuration and
 * Recommendation TLVs as built, octet by octet, and parsed back; the
 * asymmetric decision: a willing port adopts its partner's recommendation
 * if it can run it, an unwilling one never does; the partner's TTL running
 * out brings the Queue rows' configuration back. */
static void
test_dcbx_ets(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_dcbx_tlv pfc = { .willing = true, .cap = 8, .enable = 0x08 };
    struct pfc_ets_tlv cfg = {
        .willing = true, .max_tcs = 8,
        .prio_tc = { 0, 1, 2, 3, 4, 5, 6, 7 },
        .bw = { 25, 75 }, .tsa = { 2, 2, 0, 0, 0, 0, 0, 0 },
    };
    struct pfc_ets_tlv rec = cfg;
    uint8_t f[400];
    struct pfc_lldpdu du;
    const char *why;
    size_t n;

    rec.bw[0] = 60;
    rec.bw[1] = 40;
    n = pfc_lldpdu_build(f, sizeof f, dcbx_mac_lo, "p", 121, &pfc, &cfg,
                         &rec, NULL);
    static const uint8_t want_cfg[] = {
        0xfe, 0x19, 0x00, 0x80, 0xc2, 0x09, 0x80,   /* Willing, 8 TCs. */
        0x01, 0x23, 0x45, 0x67,                     /* Priority -> TC. */
        25, 75, 0, 0, 0, 0, 0, 0,                   /* TC bandwidth. */
        2, 2, 0, 0, 0, 0, 0, 0,                     /* TSA. */
    };
    static const uint8_t want_rec[] = {
        0xfe, 0x19, 0x00, 0x80, 0xc2, 0x0a, 0x00,
        0x01, 0x23, 0x45, 0x67,
        60, 40, 0, 0, 0, 0, 0, 0,
        2, 2, 0, 0, 0, 0, 0, 0,
    };
    size_t at = ETH_HEADER_LEN + 9 + 4 + 4;     /* After the TTL TLV. */

    ovs_assert(n == at + 2 * 27 + 8 + 2);
    ovs_assert(!memcmp(&f[at], want_cfg, sizeof want_cfg));
    ovs_assert(!memcmp(&f[at + 27], want_rec, sizeof want_rec));
    ovs_assert(!pfc_lldpdu_parse(f + ETH_HEADER_LEN, n - ETH_HEADER_LEN, &du,
                                 &why));
    ovs_assert(du.has_ets && du.has_ets_rec && du.has_pfc);
    ovs_assert(du.ets.willing && du.ets.max_tcs == 8);
    ovs_assert(!memcmp(du.ets.bw, cfg.bw, 8)
               && !memcmp(du.ets.tsa, cfg.tsa, 8));
    ovs_assert(!memcmp(du.ets_rec.bw, rec.bw, 8)
               && !memcmp(du.ets_rec.prio_tc, rec.prio_tc, 8));

    /* The decision. */
    struct pfc_dcbx_params params = {
        .enabled = true, .willing = true, .admin = 0x08, .tx_interval = 30,
        .ets_admin = cfg,
    };
    struct pfc_ets_tlv oper;

    ovs_assert(pfc_dcbx_ets_decide(&params, &rec, &oper, &why) && !why);
    ovs_assert(oper.bw[0] == 60 && oper.bw[1] == 40 && oper.tsa[0] == 2);
    ovs_assert(!memcmp(oper.prio_tc, cfg.prio_tc, 8));  /* Our map stays. */
    ovs_assert(!pfc_dcbx_ets_decide(&params, NULL, &oper, &why));
    ovs_assert(oper.bw[0] == 25);
    params.willing = false;
    ovs_assert(!pfc_dcbx_ets_decide(&params, &rec, &oper, &why) && !why);
    ovs_assert(oper.bw[0] == 25);
    params.willing = true;

    struct pfc_ets_tlv bad = rec;

    bad.bw[1] = 50;
    ovs_assert(!pfc_dcbx_ets_decide(&params, &bad, &oper, &why));
    ovs_assert(why && strstr(why, "sum to 100"));
    bad = rec;
    bad.tsa[4] = 1;                                     /* CBS. */
    ovs_assert(!pfc_dcbx_ets_decide(&params, &bad, &oper, &why));
    ovs_assert(why && strstr(why, "TSA other than"));
    bad = rec;
    bad.tsa[2] = 2;                                     /* ETS with 0%. */
    ovs_assert(!pfc_dcbx_ets_decide(&params, &bad, &oper, &why));
    /* All strict is a valid recommendation. */
    memset(bad.tsa, 0, 8);
    memset(bad.bw, 0, 8);
    ovs_assert(pfc_dcbx_ets_decide(&params, &bad, &oper, &why));

    test_dcbx_ets_state(&pfc, &cfg, &rec, &params);
    printf("dcbx-ets: ok\n");
}

/* Application Priority, DSCP selector (IEEE 802.1Q-2018 D.2.12, 802.1Qcd):
 * the TLV as built and parsed, octet by octet; lldpad's entries; malformed
 * TLVs; who adopts the partner's DSCP map, and the state machine. */
static void
test_dcbx_app(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_dcbx_tlv pfc = { .willing = false, .cap = 8, .enable = 8 };
    struct pfc_dcbx_params params = {
        .enabled = true, .willing = true, .admin = 8, .tx_interval = 1,
        .app_dscp = true,
    };
    uint8_t f[PFC_LLDP_FRAME_MAX], b[512], oper[64];
    struct pfc_app_tlv app;
    struct pfc_lldpdu du;
    const char *why;
    size_t n;

    /* Built: the whole map, 64 entries of Sel 5, DSCP order. */
    pfc_dscp_map_default(params.dscp_admin);
    params.dscp_admin[10] = 3;
    pfc_app_tlv_from_map(&app, params.dscp_admin);
    n = pfc_lldpdu_build(f, sizeof f, dcbx_mac_lo, "p", 121, &pfc, NULL,
                         NULL, &app);
    static const uint8_t want_hdr[] = {
        0xfe, 0xc5, 0x00, 0x80, 0xc2, 0x0c, 0x00,   /* 197 octets. */
        0x05, 0x00, 0x00,                           /* DSCP 0: prio 0. */
    };
    const uint8_t *t = f + n - 2 - 199;
    ovs_assert(!memcmp(t, want_hdr, sizeof want_hdr));
    ovs_assert(t[7 + 3 * 10] == 0x65 && t[9 + 3 * 10] == 10);  /* 10: 3. */
    ovs_assert(t[7 + 3 * 46] == 0xa5 && t[9 + 3 * 46] == 46);  /* EF: 5. */
    ovs_assert(!pfc_lldpdu_parse(f + ETH_HEADER_LEN, n - ETH_HEADER_LEN, &du,
                                 &why));
    ovs_assert(du.has_app && du.app.dscp_mask == UINT64_MAX
               && !du.app.n_ignored
               && !memcmp(du.app.dscp_prio, params.dscp_admin, 64));

    /* As lldpad sends them (app=3,5,26): other selectors and DSCPs above
     * 63 are ignored and counted; a DSCP listed twice takes the highest
     * priority. */
    n = dcbx_lldpdu(b, 120, "127:0080c20c00" "65001a" "820cbc" "a5002e"
                    "25001a" "450040");
    ovs_assert(!pfc_lldpdu_parse(b, n, &du, &why));
    ovs_assert(du.has_app && du.app.n_ignored == 2);
    ovs_assert(du.app.dscp_mask
               == ((UINT64_C(1) << 26) | (UINT64_C(1) << 46)));
    ovs_assert(du.app.dscp_prio[26] == 3 && du.app.dscp_prio[46] == 5);
    n = dcbx_lldpdu(b, 120, "127:0080c20c00");
    ovs_assert(!pfc_lldpdu_parse(b, n, &du, &why) && du.has_app
               && !du.app.dscp_mask);

    /* Malformed: the LLDPDU is ignored whole. */
    n = dcbx_lldpdu(b, 120, "127:0080c20c0065");
    dcbx_bad(b, n, "Application Priority TLV of other than 5 + 3n octets");
    n = dcbx_lldpdu(b, 120, "127:0080c20c00");
    dcbx_bad(b, n - 2, "no End");
    n = dcbx_lldpdu(b, 120, "127:0080c20c0065001a 127:0080c20c00");
    dcbx_bad(b, n, "a second Application Priority TLV");

    /* Who adopts: a willing port with trust=dscp, from a partner that is
     * not willing, or is and has the higher MAC address. */
    n = dcbx_lldpdu(b, 120, "127:0080c20b0008 127:0080c20c00" "a5001a");
    ovs_assert(!pfc_lldpdu_parse(b, n, &du, &why));
    ovs_assert(pfc_dcbx_app_decide(&params, dcbx_mac_lo, &du, dcbx_mac_hi,
                                   oper));
    ovs_assert(oper[26] == 5 && oper[10] == 3 && oper[46] == 5);
    ovs_assert(pfc_dcbx_app_decide(&params, dcbx_mac_hi, &du, dcbx_mac_lo,
                                   oper) && oper[26] == 5);
    du.pfc.willing = true;
    ovs_assert(pfc_dcbx_app_decide(&params, dcbx_mac_lo, &du, dcbx_mac_hi,
                                   oper) && oper[26] == 5);
    ovs_assert(!pfc_dcbx_app_decide(&params, dcbx_mac_hi, &du, dcbx_mac_lo,
                                    oper) && oper[26] == 3);
    du.pfc.willing = false;
    params.willing = false;
    ovs_assert(!pfc_dcbx_app_decide(&params, dcbx_mac_lo, &du, dcbx_mac_hi,
                                    oper) && oper[26] == 3);
    params.willing = true;
    params.app_dscp = false;
    ovs_assert(!pfc_dcbx_app_decide(&params, dcbx_mac_lo, &du, dcbx_mac_hi,
                                    oper) && oper[26] == 3);
    params.app_dscp = true;
    ovs_assert(!pfc_dcbx_app_decide(&params, dcbx_mac_lo, NULL, dcbx_mac_hi,
                                    oper) && oper[26] == 3);
    du.has_pfc = false;
    du.has_ets = true;
    du.ets.willing = true;
    ovs_assert(!pfc_dcbx_app_decide(&params, dcbx_mac_hi, &du, dcbx_mac_lo,
                                    oper));

    /* The state machine: adopted on receipt, back to the port's own map
     * when the partner's TTL runs out. */
    struct pfc_dcbx d;
    uint64_t hz = 1000;

    pfc_dcbx_init(&d, &params, 0);
    ovs_assert(!d.app_adopted && d.dscp_oper[10] == 3);
    d.app_changed = false;
    n = dcbx_lldpdu(b, 3, "127:0080c20b0008 127:0080c20c00" "a5001a");
    ovs_assert(!pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, 0,
                            hz, &why));
    ovs_assert(d.app_adopted && d.app_changed && d.dscp_oper[26] == 5);
    d.app_changed = false;
    pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, 0, hz, &why);
    ovs_assert(d.app_adopted && !d.app_changed);
    pfc_dcbx_run(&d, &params, dcbx_mac_lo, 3000);
    ovs_assert(!d.app_adopted && d.app_changed && d.dscp_oper[26] == 3);
    printf("dcbx-app: ok\n");
}

/* An LLDPDU from the agent of Chassis ID 'chassis' and Port ID 'port'
 * (hex TLV values), Time To Live 'ttl', with a PFC Configuration TLV
 * (not willing) enabling 'enable'. */
static size_t
dcbx_agent_lldpdu(uint8_t *b, const char *chassis, const char *port,
                  uint16_t ttl, uint8_t enable)
{
    char hex[16];
    size_t n = 0;

    dcbx_put(b, &n, 1, chassis);
    dcbx_put(b, &n, 2, port);
    snprintf(hex, sizeof hex, "%04x", ttl);
    dcbx_put(b, &n, 3, hex);
    snprintf(hex, sizeof hex, "0080c20b08%02x", enable);
    dcbx_put(b, &n, 127, hex);
    dcbx_put(b, &n, 0, "");
    return n;
}

/* DCBX knows its neighbour by its MSAP identifier (IEEE 802.1AB-2016 6.2):
 * a shutdown LLDPDU of another agent is ignored; while a second agent is
 * heard, the administrative vector is in force; when one of them leaves or
 * ages out, the other is the partner. */
static void
test_dcbx_neighbours(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_dcbx_params params = {
        .enabled = true, .willing = true, .admin = 0x08, .tx_interval = 30,
    };
    static const char *p_chassis = "04020000000b01", *p_port = "0565746831";
    static const char *q_chassis = "04020000000c01", *q_port = "0565746832";
    struct eth_addr q_mac = ETH_ADDR_C(02, 00, 00, 00, 0c, 01);
    uint64_t hz = 1000, now = 0;
    struct pfc_dcbx d;
    const char *why;
    uint8_t b[256];
    size_t n;

    pfc_dcbx_init(&d, &params, now);
    n = dcbx_agent_lldpdu(b, p_chassis, p_port, 120, 0x10);
    ovs_assert(pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, now,
                           hz, &why));
    ovs_assert(d.oper == 0x10 && d.partner && !d.second);

    /* The same chassis, another port: another agent.  Its shutdown is
     * ignored and counted. */
    n = dcbx_agent_lldpdu(b, p_chassis, q_port, 0, 0x20);
    ovs_assert(!pfc_dcbx_rx(&d, &params, dcbx_mac_lo, q_mac, b, n, now, hz,
                            &why));
    ovs_assert(d.oper == 0x10 && d.partner && d.rx_shutdown_unknown == 1);

    /* A second agent: the administrative vector, until it leaves. */
    n = dcbx_agent_lldpdu(b, q_chassis, q_port, 10, 0x20);
    ovs_assert(pfc_dcbx_rx(&d, &params, dcbx_mac_lo, q_mac, b, n, now, hz,
                           &why));
    ovs_assert(d.oper == 0x08 && d.second && d.rx_second == 1);
    n = dcbx_agent_lldpdu(b, p_chassis, p_port, 120, 0x10);
    ovs_assert(!pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, now,
                            hz, &why));
    ovs_assert(d.oper == 0x08);
    n = dcbx_agent_lldpdu(b, q_chassis, q_port, 0, 0x20);
    ovs_assert(pfc_dcbx_rx(&d, &params, dcbx_mac_lo, q_mac, b, n, now, hz,
                           &why));
    ovs_assert(d.oper == 0x10 && !d.second && d.partner);

    /* Again; then the partner leaves: the second agent is the partner. */
    n = dcbx_agent_lldpdu(b, q_chassis, q_port, 10, 0x20);
    pfc_dcbx_rx(&d, &params, dcbx_mac_lo, q_mac, b, n, now, hz, &why);
    ovs_assert(d.oper == 0x08 && d.second);
    n = dcbx_agent_lldpdu(b, p_chassis, p_port, 0, 0x10);
    ovs_assert(pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, now,
                           hz, &why));
    ovs_assert(d.oper == 0x20 && d.partner && !d.second);
    ovs_assert(eth_addr_equals(d.partner_mac, q_mac));

    /* A second agent that ages out: the partner's vector again. */
    n = dcbx_agent_lldpdu(b, p_chassis, p_port, 3, 0x10);
    pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, now, hz, &why);
    ovs_assert(d.oper == 0x08 && d.second);
    ovs_assert(!pfc_dcbx_run(&d, &params, dcbx_mac_lo, 2999));
    ovs_assert(pfc_dcbx_run(&d, &params, dcbx_mac_lo, 3000));
    ovs_assert(d.oper == 0x20 && !d.second && d.ageouts == 1);

    /* The partner ages out while a second agent is heard: it becomes the
     * partner. */
    n = dcbx_agent_lldpdu(b, p_chassis, p_port, 100, 0x10);
    pfc_dcbx_rx(&d, &params, dcbx_mac_lo, dcbx_mac_hi, b, n, 5000, hz, &why);
    ovs_assert(d.oper == 0x08 && d.second);
    ovs_assert(pfc_dcbx_run(&d, &params, dcbx_mac_lo, 10000));  /* q: 10 s */
    ovs_assert(d.oper == 0x10 && d.partner && !d.second);
    ovs_assert(eth_addr_equals(d.partner_mac, dcbx_mac_hi));
    printf("dcbx-neighbours: ok\n");
}

static uint8_t
dcbx_decide(const struct pfc_dcbx_params *p, struct eth_addr local,
            const struct pfc_dcbx_tlv *r, struct eth_addr partner_mac,
            enum pfc_dcbx_source *src, bool *mm)
{
    return pfc_dcbx_decide(p, local, r, partner_mac, src, mm, NULL);
}

/* The willing rules, IEEE 802.1Q-2018 clause 38. */
static void
test_dcbx_willing(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_dcbx_tlv r = { .willing = false, .cap = 8, .enable = 0x10 };
    struct pfc_dcbx_params p = dcbx_params(true, 0x08);
    enum pfc_dcbx_source src;
    bool mm;

    /* No partner: the administrative vector. */
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, NULL, dcbx_mac_hi, &src, &mm)
               == 0x08 && src == PFC_DCBX_ADMIN && !mm);

    /* Willing, partner not: the partner's, whatever the MACs. */
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x10 && src == PFC_DCBX_PARTNER && !mm);
    ovs_assert(dcbx_decide(&p, dcbx_mac_hi, &r, dcbx_mac_lo, &src, &mm)
               == 0x10 && src == PFC_DCBX_PARTNER && !mm);

    /* Both willing: the lower MAC adopts, the higher keeps its own. */
    r.willing = true;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x10 && src == PFC_DCBX_PARTNER && !mm);
    ovs_assert(dcbx_decide(&p, dcbx_mac_hi, &r, dcbx_mac_lo, &src, &mm)
               == 0x08 && src == PFC_DCBX_ADMIN && !mm);

    /* Not willing: its own; a willing partner adopts it, no mismatch. */
    p.willing = false;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x08 && src == PFC_DCBX_ADMIN && !mm);

    /* Neither willing: a mismatch if the vectors differ. */
    r.willing = false;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x08 && src == PFC_DCBX_ADMIN && mm);
    r.enable = 0x08;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x08 && !mm);

    /* The partner's PFC cap: more priorities in force than it has PFC
     * classes is a mismatch; cap 0 says nothing. */
    p.admin = 0x38;
    r.enable = 0x38;
    r.cap = 2;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x38 && mm);
    r.cap = 3;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x38 && !mm);
    r.cap = 0;
    ovs_assert(dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm)
               == 0x38 && !mm);

    /* A willing port does not adopt a vector whose headroom does not fit
     * in the buffer: it keeps its own, a mismatch with the reason. */
    const char *why = "unset";

    p.willing = true;
    p.admin = 0x08;
    p.limit_known = true;
    p.max_lossless = 2;
    r.enable = 0xff;
    ovs_assert(pfc_dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm,
                               &why) == 0x08);
    ovs_assert(src == PFC_DCBX_ADMIN && mm && why
               && strstr(why, "does not fit"));
    r.enable = 0x18;
    ovs_assert(pfc_dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm,
                               &why) == 0x18);
    ovs_assert(src == PFC_DCBX_PARTNER && !mm && !why);
    p.max_lossless = 0;
    p.limit_known = false;
    r.enable = 0xff;
    ovs_assert(pfc_dcbx_decide(&p, dcbx_mac_lo, &r, dcbx_mac_hi, &src, &mm,
                               &why) == 0xff && !why);
    printf("dcbx-willing: ok\n");
}

/* The DCBX keys of QoS type pfc: defaults, values, errors that name the key
 * and its range, the round trip through pfc_config_to_smap(), and what
 * pfc_config_equal() compares (the administrative vector, not the
 * operational one). */
static void
test_dcbx_config(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_config cfg, cfg2;
    struct smap s;
    char *err;

    PARSE(&cfg, 0, NULL, "pfc-enable", "3");
    ovs_assert(!cfg.dcbx && cfg.dcbx_willing && cfg.lldp_tx_interval == 30);
    ovs_assert(cfg.admin == 0x08 && cfg.enabled == 0x08);
    PARSE(&cfg, 0, NULL, "pfc-enable", "3", "dcbx", "ieee",
          "dcbx-willing", "false", "lldp-tx-interval", "1");
    ovs_assert(cfg.dcbx && !cfg.dcbx_willing && cfg.lldp_tx_interval == 1);
    PARSE(&cfg, 0, NULL, "dcbx", "off", "lldp-tx-interval", "3600");
    ovs_assert(!cfg.dcbx && cfg.lldp_tx_interval == 3600);

    PARSE(&cfg, EINVAL, "other_config:dcbx=\"cee\" is invalid: must be "
          "\"off\" or \"ieee\"", "dcbx", "cee");
    PARSE(&cfg, EINVAL, "other_config:dcbx-willing=\"yes\" is invalid: "
          "must be \"true\" or \"false\"", "dcbx-willing", "yes");
    PARSE(&cfg, EINVAL, "other_config:lldp-tx-interval=\"0\" is invalid: "
          "must be an integer from 1 to 3600 seconds",
          "lldp-tx-interval", "0");
    PARSE(&cfg, EINVAL, "other_config:lldp-tx-interval=\"3601\" is "
          "invalid", "lldp-tx-interval", "3601");

    /* Round trip; the DCBX keys appear only with dcbx=ieee. */
    PARSE(&cfg, 0, NULL, "pfc-enable", "3,4", "dcbx", "ieee",
          "lldp-tx-interval", "10");
    smap_init(&s);
    pfc_config_to_smap(&cfg, &s);
    ovs_assert(!strcmp(smap_get(&s, "dcbx"), "ieee"));
    ovs_assert(!strcmp(smap_get(&s, "dcbx-willing"), "true"));
    ovs_assert(!strcmp(smap_get(&s, "lldp-tx-interval"), "10"));
    ovs_assert(!pfc_config_parse(&s, &cfg2, &err));
    ovs_assert(pfc_config_equal(&cfg, &cfg2));
    smap_destroy(&s);
    PARSE(&cfg, 0, NULL, "pfc-enable", "3,4");
    smap_init(&s);
    pfc_config_to_smap(&cfg, &s);
    ovs_assert(!smap_get(&s, "dcbx") && !smap_get(&s, "lldp-tx-interval"));
    smap_destroy(&s);

    /* An adopted vector: the smap and equality keep to pfc-enable. */
    PARSE(&cfg, 0, NULL, "pfc-enable", "3", "dcbx", "ieee");
    cfg2 = cfg;
    cfg.enabled = 0x10;
    ovs_assert(pfc_config_equal(&cfg, &cfg2));
    smap_init(&s);
    pfc_config_to_smap(&cfg, &s);
    ovs_assert(!strcmp(smap_get(&s, "pfc-enable"), "3"));
    smap_destroy(&s);
    cfg2.dcbx_willing = false;
    ovs_assert(!pfc_config_equal(&cfg, &cfg2));
    printf("dcbx-config: ok\n");
}

#define DCBX_HZ 1000ULL             /* Ticks of 1 ms. */

/* The state machine: adopt, fall back when the TTL runs out or at a
 * shutdown LLDPDU, malformed LLDPDUs change nothing, mismatches counted
 * once each; the transmit timer. */
static void
test_dcbx_state(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_dcbx_params p = dcbx_params(true, 0x08);
    struct pfc_dcbx d;
    const char *why;
    uint8_t b[300];
    uint64_t t;
    size_t n;

    pfc_dcbx_init(&d, &p, 1000);
    ovs_assert(d.oper == 0x08 && !d.partner && pfc_dcbx_tx_due(&d, 1000));
    ovs_assert(pfc_dcbx_ttl(&p) == 121);

    /* A partner, not willing, with priority 4, TTL 120 s: adopted. */
    n = dcbx_lldpdu(b, 120, "127:0080c20b0810");
    ovs_assert(pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, 2000,
                           DCBX_HZ, &why));
    ovs_assert(d.oper == 0x10 && d.source == PFC_DCBX_PARTNER && d.partner);
    ovs_assert(d.rx_lldpdus == 1 && d.rx_tlvs == 4 && d.rx_pfc_tlvs == 1);
    ovs_assert(d.expiry == 2000 + 120 * DCBX_HZ);

    /* The same again: no change. */
    ovs_assert(!pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, 3000,
                            DCBX_HZ, &why));

    /* Malformed ones change nothing and are counted. */
    n = dcbx_lldpdu(b, 120, "127:0080c20b0801 127:0080c20b0801");
    ovs_assert(!pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, 4000,
                            DCBX_HZ, &why));
    ovs_assert(why && d.rx_errors == 1 && d.oper == 0x10);
    ovs_assert(d.expiry == 3000 + 120 * DCBX_HZ);

    /* The TTL runs out: back to the administrative vector. */
    t = 3000 + 120 * DCBX_HZ;
    ovs_assert(!pfc_dcbx_run(&d, &p, dcbx_mac_lo, t - 1));
    ovs_assert(pfc_dcbx_run(&d, &p, dcbx_mac_lo, t));
    ovs_assert(d.oper == 0x08 && !d.partner && d.ageouts == 1);
    ovs_assert(!pfc_dcbx_run(&d, &p, dcbx_mac_lo, t + 1));

    /* A shutdown LLDPDU (TTL 0) removes the partner at once. */
    n = dcbx_lldpdu(b, 120, "127:0080c20b0810");
    ovs_assert(pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, t,
                           DCBX_HZ, &why));
    n = dcbx_lldpdu(b, 0, NULL);
    ovs_assert(pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, t + 1,
                           DCBX_HZ, &why));
    ovs_assert(d.oper == 0x08 && !d.partner);

    /* A partner without a PFC TLV: nothing to adopt. */
    n = dcbx_lldpdu(b, 120, NULL);
    ovs_assert(!pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, t + 2,
                            DCBX_HZ, &why));
    ovs_assert(d.partner && d.oper == 0x08);

    /* Not willing and different: one mismatch, counted once; it ends when
     * the partner agrees, and a new one is counted again. */
    p.willing = false;
    ovs_assert(!pfc_dcbx_reconfigure(&d, &p, dcbx_mac_lo, t + 3));
    n = dcbx_lldpdu(b, 120, "127:0080c20b0810");
    for (int i = 0; i < 3; i++) {
        ovs_assert(!pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n,
                                t + 4 + i, DCBX_HZ, &why));
        ovs_assert(d.mismatch && d.mismatches == 1 && d.oper == 0x08);
    }
    n = dcbx_lldpdu(b, 120, "127:0080c20b0808");
    pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, t + 10, DCBX_HZ,
                &why);
    ovs_assert(!d.mismatch && d.mismatches == 1);
    n = dcbx_lldpdu(b, 120, "127:0080c20b0810");
    pfc_dcbx_rx(&d, &p, dcbx_mac_lo, dcbx_mac_hi, b, n, t + 11, DCBX_HZ,
                &why);
    ovs_assert(d.mismatch && d.mismatches == 2);

    /* Willing again: adopted at once. */
    p.willing = true;
    ovs_assert(pfc_dcbx_reconfigure(&d, &p, dcbx_mac_lo, t + 12));
    ovs_assert(d.oper == 0x10 && !d.mismatch);

    /* Transmit timer: a fast start of 4 LLDPDUs 1 s apart, then every
     * msgTxInterval; a reconfiguration starts a fast start again. */
    pfc_dcbx_init(&d, &p, 0);
    t = 0;
    for (int i = 0; i < PFC_LLDP_FAST_INIT; i++) {
        ovs_assert(pfc_dcbx_tx_due(&d, t));
        pfc_dcbx_tx_done(&d, &p, t, DCBX_HZ);
        ovs_assert(!pfc_dcbx_tx_due(&d, t + 999));
        t += 1000;
    }
    ovs_assert(pfc_dcbx_tx_due(&d, t));
    pfc_dcbx_tx_done(&d, &p, t, DCBX_HZ);
    ovs_assert(!pfc_dcbx_tx_due(&d, t + 29999) && pfc_dcbx_tx_due(&d, t
                                                                 + 30000));
    ovs_assert(d.tx_lldpdus == PFC_LLDP_FAST_INIT + 1);
    pfc_dcbx_reconfigure(&d, &p, dcbx_mac_lo, t + 5);
    ovs_assert(pfc_dcbx_tx_due(&d, t + 5) && d.fast_left == 4);

    /* TTL: msgTxInterval x 4 + 1, at most 65535. */
    p.tx_interval = 1;
    ovs_assert(pfc_dcbx_ttl(&p) == 5);
    p.tx_interval = PFC_LLDP_TX_INTERVAL_MAX;
    ovs_assert(pfc_dcbx_ttl(&p) == 14401);
    printf("dcbx-state: ok\n");
}

static const struct ovs_cmdl_command commands[] = {
    { "dcbx-codec", NULL, 0, 0, test_dcbx_codec, OVS_RO },
    { "dcbx-ets", NULL, 0, 0, test_dcbx_ets, OVS_RO },
    { "dcbx-app", NULL, 0, 0, test_dcbx_app, OVS_RO },
    { "dcbx-neighbours", NULL, 0, 0, test_dcbx_neighbours, OVS_RO },
    { "dcbx-willing", NULL, 0, 0, test_dcbx_willing, OVS_RO },
    { "dcbx-state", NULL, 0, 0, test_dcbx_state, OVS_RO },
    { "dcbx-config", NULL, 0, 0, test_dcbx_config, OVS_RO },
    { NULL, NULL, 0, 0, NULL, OVS_RO },
};

/* "ovstest test-pfc-dcbx NAME" runs the test NAME. */
static void
test_pfc_dcbx_main(int argc, char *argv[])
{
    struct ovs_cmdl_context ctx = {
        .argc = argc - 1,
        .argv = argv + 1,
    };

    set_program_name(argv[0]);
    ovs_cmdl_run_command(&ctx, commands);
}

OVSTEST_REGISTER("test-pfc-dcbx", test_pfc_dcbx_main);
