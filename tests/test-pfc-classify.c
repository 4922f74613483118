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

/* Unit tests of lib/pfc-classify.c, ingress classification: the priority
 * that a port's trust mode gives each frame, the DSCP map and its parser,
 * and the QoS keys trust and dscp-map. */

#include <config.h>
#undef NDEBUG
#include "pfc-classify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "command-line.h"
#include "csum.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "ovstest.h"
#include "pfc.h"
#include "pfc-config.h"
#include "smap.h"
#include "timeval.h"
#include "util.h"

/* A frame to classify: 'n_tags' tags of priority 'pcp' (TPIDs 0x88a8 then
 * 0x8100 for two), then 'ethertype' and, for IPv4 or IPv6, a header whose
 * DSCP is 'dscp' and whose ECN field is 3 (which must not leak into the
 * DSCP).  Returns the frame's length, at most 'size'. */
static size_t
make_frame(uint8_t *buf, size_t size, int n_tags, int pcp, uint16_t ethertype,
           int dscp)
{
    size_t off = 12;

    ovs_assert(size >= 64);
    memset(buf, 0, size);
    memset(buf, 0xff, 6);
    for (int i = 0; i < n_tags; i++) {
        uint16_t tpid = n_tags == 2 && !i ? 0x88a8 : 0x8100;

        buf[off] = tpid >> 8;
        buf[off + 1] = tpid & 0xff;
        buf[off + 2] = (pcp << 5) | 0x01;   /* PCP, DEI 0, VID 0x1xx. */
        buf[off + 3] = 0x23;
        off += 4;
    }
    buf[off] = ethertype >> 8;
    buf[off + 1] = ethertype & 0xff;
    off += 2;
    if (ethertype == PFC_CLS_ETH_IPV4) {
        buf[off] = 0x45;
        buf[off + 1] = (dscp << 2) | 3;
    } else if (ethertype == PFC_CLS_ETH_IPV6) {
        uint8_t tc = (dscp << 2) | 3;

        buf[off] = 0x60 | (tc >> 4);
        buf[off + 1] = (tc & 0x0f) << 4 | 0x0a;    /* Flow label bits. */
    }
    return 60;
}

static int
classify(const struct pfc_classifier *c, int n_tags, int pcp,
         uint16_t ethertype, int dscp)
{
    uint8_t buf[64];
    size_t len = make_frame(buf, sizeof buf, n_tags, pcp, ethertype, dscp);

    return pfc_classify(c, buf, len);
}

/* trust=pcp: the outer tag's PCP, whatever the inner tag or the DSCP says;
 * untagged frames and runts take the default priority. */
static void
test_pcp(void)
{
    struct pfc_classifier c;

    for (int def = 0; def < 8; def++) {
        pfc_classifier_init(&c, PFC_TRUST_PCP, def, NULL);
        for (int pcp = 0; pcp < 8; pcp++) {
            ovs_assert(classify(&c, 1, pcp, PFC_CLS_ETH_IPV4, 46) == pcp);
            ovs_assert(classify(&c, 2, pcp, PFC_CLS_ETH_IPV6, 46) == pcp);
            ovs_assert(classify(&c, 1, pcp, 0x0806, 0) == pcp);
        }
        ovs_assert(classify(&c, 0, 0, PFC_CLS_ETH_IPV4, 46) == def);
        ovs_assert(classify(&c, 0, 0, PFC_CLS_ETH_IPV6, 26) == def);
        ovs_assert(classify(&c, 0, 0, 0x0806, 0) == def);
    }

    /* A tagged frame too short to hold the tag. */
    uint8_t buf[64];

    pfc_classifier_init(&c, PFC_TRUST_PCP, 2, NULL);
    make_frame(buf, sizeof buf, 1, 5, PFC_CLS_ETH_IPV4, 0);
    ovs_assert(pfc_classify(&c, buf, 17) == 2);
    ovs_assert(pfc_classify(&c, buf, 18) == 5);
    ovs_assert(pfc_classify(&c, buf, 0) == 2);
}

/* trust=dscp with the default map: every DSCP of IPv4 and IPv6, untagged,
 * behind one tag and behind two, gives DSCP / 8; the PCP is ignored. */
static void
test_dscp_default(void)
{
    struct pfc_classifier c;

    pfc_classifier_init(&c, PFC_TRUST_DSCP, 1, NULL);
    for (int dscp = 0; dscp < PFC_N_DSCP; dscp++) {
        for (int tags = 0; tags <= 2; tags++) {
            ovs_assert(classify(&c, tags, 7, PFC_CLS_ETH_IPV4, dscp)
                       == dscp / 8);
            ovs_assert(classify(&c, tags, 7, PFC_CLS_ETH_IPV6, dscp)
                       == dscp / 8);
        }
    }
    /* The default map without a table gives what the table gives. */
    uint8_t table[PFC_N_DSCP];

    pfc_dscp_map_default(table);
    ovs_assert(c.dscp_default);
    for (int dscp = 0; dscp < PFC_N_DSCP; dscp++) {
        uint8_t buf[64];
        size_t len = make_frame(buf, sizeof buf, 0, 0, PFC_CLS_ETH_IPV4, dscp);

        ovs_assert(pfc_classify__(PFC_TRUST_DSCP, 1, NULL, buf, len)
                   == pfc_classify__(PFC_TRUST_DSCP, 1, table, buf, len));
    }

    /* The well-known code points. */
    ovs_assert(classify(&c, 0, 0, PFC_CLS_ETH_IPV4, 26) == 3);   /* AF31. */
    ovs_assert(classify(&c, 0, 0, PFC_CLS_ETH_IPV4, 46) == 5);   /* EF. */
    ovs_assert(classify(&c, 0, 0, PFC_CLS_ETH_IPV6, 48) == 6);   /* CS6. */
}

/* trust=dscp: a frame that is not IP falls back to the PCP rule; so does an
 * IP ethertype whose version field disagrees, three tags, and a runt. */
static void
test_dscp_fallback(void)
{
    struct pfc_classifier c;
    uint8_t buf[64];
    size_t len;

    pfc_classifier_init(&c, PFC_TRUST_DSCP, 4, NULL);
    ovs_assert(classify(&c, 0, 0, 0x0806, 0) == 4);         /* ARP. */
    ovs_assert(classify(&c, 1, 6, 0x0806, 0) == 6);
    ovs_assert(classify(&c, 1, 6, 0x88cc, 0) == 6);         /* LLDP. */

    len = make_frame(buf, sizeof buf, 0, 0, PFC_CLS_ETH_IPV4, 26);
    buf[14] = 0x65;                     /* Version 6 under 0x0800. */
    ovs_assert(pfc_classify(&c, buf, len) == 4);
    len = make_frame(buf, sizeof buf, 1, 2, PFC_CLS_ETH_IPV6, 26);
    buf[18] = 0x45;                     /* Version 4 under 0x86dd. */
    ovs_assert(pfc_classify(&c, buf, len) == 2);

    /* Three tags: not looked through; the outer PCP. */
    len = make_frame(buf, sizeof buf, 2, 3, 0x8100, 0);
    buf[24] = 0x08;                     /* IPv4 behind the third tag. */
    buf[25] = 0x00;
    buf[26] = 0x45;
    buf[27] = 46 << 2;
    ovs_assert(pfc_classify(&c, buf, len) == 3);

    /* Runts: the IP header's first two octets must be there. */
    len = make_frame(buf, sizeof buf, 0, 0, PFC_CLS_ETH_IPV4, 46);
    ovs_assert(pfc_classify(&c, buf, 16) == 5);
    ovs_assert(pfc_classify(&c, buf, 15) == 4);
    len = make_frame(buf, sizeof buf, 1, 1, PFC_CLS_ETH_IPV4, 46);
    ovs_assert(pfc_classify(&c, buf, 20) == 5);
    ovs_assert(pfc_classify(&c, buf, 19) == 1);
}

/* trust=dscp with a map: listed code points take their priority, the others
 * keep DSCP / 8. */
static void
test_dscp_map(void)
{
    uint8_t map[PFC_N_DSCP];
    struct pfc_classifier c;
    char *err = NULL;

    ovs_assert(!pfc_dscp_map_parse("26:4, 46 : 3,0:7", map, &err));
    pfc_classifier_init(&c, PFC_TRUST_DSCP, 0, map);
    ovs_assert(classify(&c, 0, 0, PFC_CLS_ETH_IPV4, 26) == 4);
    ovs_assert(classify(&c, 0, 0, PFC_CLS_ETH_IPV6, 46) == 3);
    ovs_assert(classify(&c, 1, 5, PFC_CLS_ETH_IPV4, 0) == 7);
    ovs_assert(classify(&c, 0, 0, PFC_CLS_ETH_IPV4, 27) == 3);
    ovs_assert(classify(&c, 0, 0, PFC_CLS_ETH_IPV4, 63) == 7);
}

/* trust none: every frame takes the default priority. */
static void
test_none(void)
{
    struct pfc_classifier c;

    pfc_classifier_init(&c, PFC_TRUST_NONE, 0, NULL);
    for (int pcp = 0; pcp < 8; pcp++) {
        ovs_assert(classify(&c, 1, pcp, PFC_CLS_ETH_IPV4, 46) == 0);
        ovs_assert(classify(&c, 2, pcp, PFC_CLS_ETH_IPV6, 26) == 0);
    }
    ovs_assert(classify(&c, 0, 0, PFC_CLS_ETH_IPV4, 46) == 0);
    ovs_assert(!strcmp(pfc_trust_name(PFC_TRUST_NONE), "none"));
}

/* An untrusted port clears the PCP of the first two tags, keeping DEI, VID,
 * the ethertype and the DSCP; a frame without a tag, a runt and a third tag
 * are left alone. */
static void
test_clear_pcp(void)
{
    uint8_t buf[64], orig[64];
    size_t len;

    for (int n_tags = 0; n_tags <= 2; n_tags++) {
        for (int pcp = 0; pcp < 8; pcp++) {
            len = make_frame(buf, sizeof buf, n_tags, pcp, PFC_CLS_ETH_IPV4,
                             46);
            buf[14] |= n_tags ? 0x10 : 0;       /* DEI of the outer tag. */
            memcpy(orig, buf, sizeof buf);
            ovs_assert(pfc_clear_pcp(buf, len) == (n_tags && pcp));
            for (size_t i = 0; i < len; i++) {
                bool tci = (i == 14 && n_tags) || (i == 18 && n_tags == 2);

                ovs_assert(buf[i] == (tci ? orig[i] & 0x1f : orig[i]));
            }
            ovs_assert(pfc_frame_dscp(buf, len) == 46);
        }
    }

    /* A runt: the tag's TCI would lie past the end. */
    len = make_frame(buf, sizeof buf, 1, 5, PFC_CLS_ETH_IPV4, 0);
    ovs_assert(!pfc_clear_pcp(buf, 15) && buf[14] >> 5 == 5);

    /* A third tag keeps its PCP. */
    len = make_frame(buf, sizeof buf, 2, 5, PFC_CLS_ETH_VLAN, 0);
    buf[22] = 0xa0;
    ovs_assert(pfc_clear_pcp(buf, len));
    ovs_assert(buf[14] >> 5 == 0 && buf[18] >> 5 == 0 && buf[22] == 0xa0);
}

static void
check_map_error(const char *s)
{
    uint8_t map[PFC_N_DSCP];
    char *err = NULL;

    memset(map, 0xee, sizeof map);
    ovs_assert(pfc_dscp_map_parse(s, map, &err));
    ovs_assert(err && strstr(err, "dscp-map") && strstr(err, "0 to 63")
               && strstr(err, "0 to 7"));
    ovs_assert(map[0] == 0xee && map[63] == 0xee);  /* Left unchanged. */
    free(err);
}

/* The parser of dscp-map and its formatter. */
static void
test_map_parse(void)
{
    uint8_t map[PFC_N_DSCP];
    struct ds ds = DS_EMPTY_INITIALIZER;
    char *err = NULL;

    ovs_assert(!pfc_dscp_map_parse("", map, &err));
    ovs_assert(pfc_dscp_map_is_default(map));
    pfc_dscp_map_format(&ds, map);
    ovs_assert(!strcmp(ds_cstr(&ds), "default"));

    ovs_assert(!pfc_dscp_map_parse("46:3,26:4,26:5,", map, &err));
    ovs_assert(map[26] == 5 && map[46] == 3 && map[25] == 3);
    ds_clear(&ds);
    pfc_dscp_map_format(&ds, map);
    ovs_assert(!strcmp(ds_cstr(&ds), "26:5,46:3"));

    /* A map that lists defaults only is the default map. */
    ovs_assert(!pfc_dscp_map_parse("26:3,0:0", map, &err));
    ovs_assert(pfc_dscp_map_is_default(map));

    check_map_error("64:1");
    check_map_error("1:8");
    check_map_error("-1:2");
    check_map_error("1:-2");
    check_map_error("a:1");
    check_map_error("1:");
    check_map_error(":1");
    check_map_error("1");
    check_map_error("1:2;3:4");
    check_map_error("1:2 3:4");
    check_map_error("99999999999999999999:1");
    ds_destroy(&ds);
}

/* Makes 'buf' a valid IPv4 header's worth at 'off' (checksum included),
 * of DSCP 'dscp' and ECN 'ecn'. */
static void
make_ipv4(uint8_t *buf, size_t off, int dscp, int ecn)
{
    uint8_t *ip = buf + off;
    uint16_t sum;

    memset(ip, 0, 20);
    ip[0] = 0x45;
    ip[1] = (dscp << 2) | ecn;
    ip[3] = 46;                 /* Total length. */
    ip[8] = 64;                 /* TTL. */
    ip[9] = 17;
    ip[12] = 10, ip[15] = 1;
    ip[16] = 10, ip[19] = 2;
    sum = csum(ip, 20);
    memcpy(ip + 10, &sum, 2);
}

/* Egress remarking (pfc_rewrite_frame()): the PCP of the outer tag, the
 * DSCP of IPv4 (checksum still valid) and IPv6, behind tags or not, the
 * ECN field and the other header bits kept. */
static void
test_rewrite(void)
{
    struct pfc_rewrite rw;
    uint8_t buf[64];
    char *err = NULL;
    size_t len;

    memset(&rw, 0, sizeof rw);
    rw.pcp = true;
    ovs_assert(!pfc_rewrite_dscp_parse("3:26, 5:46", &rw, &err));
    ovs_assert(rw.dscp_prios == 0x28 && rw.prio_to_dscp[3] == 26);

    /* PCP: only the three bits. */
    len = make_frame(buf, sizeof buf, 1, 0, 0x88b5, 0);
    ovs_assert(pfc_rewrite_frame(buf, len, 3, &rw));
    ovs_assert(buf[14] == ((3 << 5) | 0x01) && buf[15] == 0x23);
    ovs_assert(!pfc_rewrite_frame(buf, len, 3, &rw));
    /* Two tags: the outer one. */
    len = make_frame(buf, sizeof buf, 2, 6, 0x88b5, 0);
    ovs_assert(pfc_rewrite_frame(buf, len, 0, &rw));
    ovs_assert(buf[14] >> 5 == 0 && buf[18] >> 5 == 6);
    /* Untagged: nothing to write. */
    len = make_frame(buf, sizeof buf, 0, 0, 0x88b5, 0);
    ovs_assert(!pfc_rewrite_frame(buf, len, 3, &rw));

    /* IPv4, untagged and tagged: DSCP, ECN kept, checksum valid. */
    for (int tags = 0; tags <= 2; tags++) {
        size_t off = 14 + 4 * tags;

        len = make_frame(buf, sizeof buf, tags, 3, PFC_CLS_ETH_IPV4, 0);
        make_ipv4(buf, off, 0, 2);
        ovs_assert(pfc_rewrite_frame(buf, len, 3, &rw));
        ovs_assert(buf[off + 1] == ((26 << 2) | 2));
        ovs_assert(csum(buf + off, 20) == 0);
        /* A priority the map does not list keeps its DSCP. */
        ovs_assert(!pfc_rewrite_frame(buf, len, 4, &rw)
                   || tags);        /* (The PCP may change.) */
        ovs_assert(buf[off + 1] == ((26 << 2) | 2));
    }
    /* IPv6: the traffic class's DSCP, its ECN and the flow label kept. */
    len = make_frame(buf, sizeof buf, 1, 3, PFC_CLS_ETH_IPV6, 8);
    ovs_assert(pfc_rewrite_frame(buf, len, 5, &rw));
    ovs_assert(pfc_frame_dscp(buf, len) == 46);
    ovs_assert((buf[19] & 0x30) == 0x30 && (buf[19] & 0x0f) == 0x0a);
    ovs_assert(buf[18] >> 4 == 6);

    /* The map's parser. */
    struct ds ds = DS_EMPTY_INITIALIZER;

    pfc_rewrite_dscp_format(&ds, &rw);
    ovs_assert(!strcmp(ds_cstr(&ds), "3:26,5:46"));
    ovs_assert(!pfc_rewrite_dscp_parse("", &rw, &err) && !rw.dscp_prios);
    ds_clear(&ds);
    pfc_rewrite_dscp_format(&ds, &rw);
    ovs_assert(!strcmp(ds_cstr(&ds), "none"));
    ds_destroy(&ds);
    static const char *const bad[] = { "8:1", "1:64", "-1:2", "1", "1:2;3" };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        rw.dscp_prios = 0x80;
        ovs_assert(pfc_rewrite_dscp_parse(bad[i], &rw, &err) == EINVAL);
        ovs_assert(strstr(err, "rewrite-dscp") && strstr(err, "0 to 63"));
        ovs_assert(rw.dscp_prios == 0x80);
        free(err);
    }
}

static int
parse_cfg(struct pfc_config *cfg, const char *trust, const char *map,
          char **err)
{
    struct smap details = SMAP_INITIALIZER(&details);
    int error;

    smap_add(&details, "pfc-enable", "3");
    if (trust) {
        smap_add(&details, "trust", trust);
    }
    if (map) {
        smap_add(&details, "dscp-map", map);
    }
    *err = NULL;
    error = pfc_config_parse(&details, cfg, err);
    smap_destroy(&details);
    return error;
}

/* The QoS keys: trust=pcp by default, dscp-map only with trust=dscp, and
 * both carried through pfc_config_to_smap() and pfc_config_equal(). */
static void
test_keys(void)
{
    struct pfc_config a, b;
    struct smap out = SMAP_INITIALIZER(&out);
    char *err;

    ovs_assert(!parse_cfg(&a, NULL, NULL, &err));
    ovs_assert(a.trust == PFC_TRUST_PCP);
    ovs_assert(pfc_dscp_map_is_default(a.dscp_to_prio));
    pfc_config_to_smap(&a, &out);
    ovs_assert(!strcmp(smap_get(&out, "trust"), "pcp"));
    ovs_assert(!smap_get(&out, "dscp-map"));
    smap_clear(&out);

    ovs_assert(!parse_cfg(&b, "dscp", NULL, &err));
    ovs_assert(b.trust == PFC_TRUST_DSCP);
    ovs_assert(!pfc_config_equal(&a, &b));
    ovs_assert(!parse_cfg(&a, "dscp", "26:4", &err));
    ovs_assert(a.dscp_to_prio[26] == 4);
    ovs_assert(!pfc_config_equal(&a, &b));
    pfc_config_to_smap(&a, &out);
    ovs_assert(!strcmp(smap_get(&out, "trust"), "dscp"));
    ovs_assert(!strcmp(smap_get(&out, "dscp-map"), "26:4"));
    ovs_assert(!parse_cfg(&b, "dscp", smap_get(&out, "dscp-map"), &err));
    ovs_assert(pfc_config_equal(&a, &b));
    smap_destroy(&out);

    ovs_assert(parse_cfg(&a, "cos", NULL, &err));
    ovs_assert(strstr(err, "other_config:trust=\"cos\" is invalid: must be "
                      "pcp or dscp"));
    free(err);
    ovs_assert(parse_cfg(&a, NULL, "26:3", &err));
    ovs_assert(strstr(err, "needs other_config:trust=dscp"));
    free(err);
    ovs_assert(parse_cfg(&a, "dscp", "26:9", &err));
    ovs_assert(strstr(err, "other_config:dscp-map=\"26:9\" is invalid"));
    free(err);

    /* The egress keys. */
    struct smap d = SMAP_INITIALIZER(&d);

    smap_add(&d, "rewrite-pcp", "true");
    smap_add(&d, "rewrite-dscp", "3:26");
    ovs_assert(!pfc_config_parse(&d, &a, &err));
    ovs_assert(a.rewrite.pcp && a.rewrite.dscp_prios == 0x08);
    smap_replace(&d, "rewrite-pcp", "yes");
    ovs_assert(pfc_config_parse(&d, &a, &err) == EINVAL);
    ovs_assert(strstr(err, "other_config:rewrite-pcp=\"yes\" is invalid"));
    free(err);
    smap_replace(&d, "rewrite-pcp", "false");
    smap_replace(&d, "rewrite-dscp", "9:1");
    ovs_assert(pfc_config_parse(&d, &a, &err) == EINVAL);
    ovs_assert(strstr(err, "other_config:rewrite-dscp=\"9:1\" is invalid"));
    free(err);
    smap_destroy(&d);
}

/* "bench" (for make bench, not a unit test): what pfc_classify() costs per
 * packet, in ns, for trust=pcp on tagged frames of the eight priorities and
 * for trust=dscp on untagged IPv4 of twelve DSCPs, the frames in cache. */
static void
cmd_bench(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    enum { N = 50000000, F = 64 };
    static const int dscps[] = { 0, 26, 8, 46, 16, 34, 24, 10, 32, 56, 40,
                                 48 };
    uint8_t (*frames)[64] = xmalloc(2 * F * sizeof *frames);
    struct pfc_classifier pcp, dscp;
    unsigned int sum = 0;

    pfc_classifier_init(&pcp, PFC_TRUST_PCP, 0, NULL);
    pfc_classifier_init(&dscp, PFC_TRUST_DSCP, 0, NULL);
    for (int i = 0; i < F; i++) {
        make_frame(frames[i], 64, 1, i % 8, PFC_CLS_ETH_IPV4, 0);
        make_frame(frames[F + i], 64, 0, 0, PFC_CLS_ETH_IPV4,
                   dscps[i % ARRAY_SIZE(dscps)]);
    }
    for (int mode = 0; mode < 2; mode++) {
        const struct pfc_classifier *c = mode ? &dscp : &pcp;
        long long int t0 = time_usec();

        for (uint32_t i = 0; i < N; i++) {
            sum += pfc_classify(c, frames[mode * F + (i % F)], 60);
        }
        printf("classify trust=%s: %.2f ns per packet (%d packets)\n",
               mode ? "dscp" : "pcp",
               (time_usec() - t0) * 1000.0 / N, N);
    }
    printf("(checksum %u)\n", sum);
    free(frames);
}

static void
run(void (*f)(void), const char *name)
{
    f();
    printf("%s: ok\n", name);
}

#define TEST(NAME, FUNC)                                    \
    static void                                             \
    cmd_##FUNC(struct ovs_cmdl_context *ctx OVS_UNUSED)     \
    {                                                       \
        run(FUNC, NAME);                                    \
    }
TEST("pcp", test_pcp)
TEST("dscp-default", test_dscp_default)
TEST("dscp-fallback", test_dscp_fallback)
TEST("dscp-map", test_dscp_map)
TEST("none", test_none)
TEST("clear-pcp", test_clear_pcp)
TEST("map-parse", test_map_parse)
TEST("keys", test_keys)
TEST("rewrite", test_rewrite)

static const struct ovs_cmdl_command commands[] = {
    { "pcp", NULL, 0, 0, cmd_test_pcp, OVS_RO },
    { "dscp-default", NULL, 0, 0, cmd_test_dscp_default, OVS_RO },
    { "dscp-fallback", NULL, 0, 0, cmd_test_dscp_fallback, OVS_RO },
    { "dscp-map", NULL, 0, 0, cmd_test_dscp_map, OVS_RO },
    { "none", NULL, 0, 0, cmd_test_none, OVS_RO },
    { "clear-pcp", NULL, 0, 0, cmd_test_clear_pcp, OVS_RO },
    { "map-parse", NULL, 0, 0, cmd_test_map_parse, OVS_RO },
    { "keys", NULL, 0, 0, cmd_test_keys, OVS_RO },
    { "rewrite", NULL, 0, 0, cmd_test_rewrite, OVS_RO },
    { "bench", NULL, 0, 0, cmd_bench, OVS_RO },
    { NULL, NULL, 0, 0, NULL, OVS_RO },
};

/* "ovstest test-pfc-classify NAME" runs the group NAME. */
static void
test_pfc_classify_main(int argc, char *argv[])
{
    struct ovs_cmdl_context ctx = {
        .argc = argc - 1,
        .argv = argv + 1,
    };

    ovs_cmdl_run_command(&ctx, commands);
}

OVSTEST_REGISTER("test-pfc-classify", test_pfc_classify_main);
