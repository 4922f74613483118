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

/* Parsing and formatting of the QoS other_config of type "pfc"
 * (vswitchd/vswitch.xml): struct pfc_config in lib/pfc-config.h.  Every bad
 * value is rejected with a message that names the key and its valid
 * range. */

#include <config.h>
#include "pfc-config.h"
#include "pfc.h"
#include "pfc-classify.h"
#include "pfc-dcbx.h"

#include <errno.h>
#include <string.h>

#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "pfc-buffer.h"
#include "pfc-ets.h"
#include "pfc-headroom.h"
#include "smap.h"
#include "util.h"

/* Parses 's' as a list of priorities 0..7 separated by commas or spaces
 * ("3,4"), or the empty list ("" or "none"), into a bitmap in '*prios'. */
static bool
parse_prios(const char *s, uint8_t *prios)
{
    char *copy, *save_ptr = NULL;
    bool ok = true;

    *prios = 0;
    if (!strcmp(s, "none")) {
        return true;
    }
    copy = xstrdup(s);
    for (char *tok = strtok_r(copy, ", ", &save_ptr); tok;
         tok = strtok_r(NULL, ", ", &save_ptr)) {
        if (tok[0] < '0' || tok[0] > '7' || tok[1]) {
            ok = false;
            break;
        }
        *prios |= 1u << (tok[0] - '0');
    }
    free(copy);
    return ok;
}

/* Parses a decimal integer with an optional decimal multiplier suffix (k, M,
 * G or T, any case) from 's' into '*value'.  Returns false on junk or
 * overflow. */
static bool
parse_u64_suffix(const char *s, bool allow_suffix, uint64_t *value)
{
    unsigned long long int x;
    uint64_t mult = 1;
    char *end;

    if (s[0] < '0' || s[0] > '9') {
        return false;
    }
    errno = 0;
    x = strtoull(s, &end, 10);
    if (errno) {
        return false;
    }
    if (*end && allow_suffix) {
        switch (*end++) {
        case 'k': case 'K': mult = 1000ULL; break;
        case 'm': case 'M': mult = 1000000ULL; break;
        case 'g': case 'G': mult = 1000000000ULL; break;
        case 't': case 'T': mult = 1000000000000ULL; break;
        default: return false;
        }
    }
    if (*end || (x && mult > UINT64_MAX / x)) {
        return false;
    }
    *value = x * mult;
    return true;
}

static int
parse_range(const struct smap *details, const char *key, uint64_t min,
            uint64_t max, const char *unit, bool allow_suffix,
            uint64_t *value, bool *found, char **errp)
{
    const char *s = smap_get(details, key);

    *found = s != NULL;
    if (!s) {
        return 0;
    }
    if (!parse_u64_suffix(s, allow_suffix, value)
        || *value < min || *value > max) {
        *errp = xasprintf("other_config:%s=\"%s\" is invalid: must be an "
                          "integer from %"PRIu64" to %"PRIu64" %s",
                          key, s, min, max, unit);
        return EINVAL;
    }
    return 0;
}

/* Parses the dynamic_th key 'key' (alpha = 2^value, lib/pfc-buffer.h) into
 '*value', or 'def' if it is not set. */
static int
parse_dyn_th(const struct smap *details, const char *key, int def,
             int8_t *value, char **errp)
{
    const char *s = smap_get(details, key);
    int v;

    if (!s) {
        *value = def;
        return 0;
    }
    if (!str_to_int(s, 10, &v) || v < PFC_DYN_TH_MIN || v > PFC_DYN_TH_MAX) {
        *errp = xasprintf("other_config:%s=\"%s\" is invalid: must be an "
                          "integer from %d to %d (alpha = 2^%s)", key, s,
                          PFC_DYN_TH_MIN, PFC_DYN_TH_MAX, key);
        return EINVAL;
    }
    *value = v;
    return 0;
}

static void
pfc_config_map(struct pfc_config *cfg)
{
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        cfg->prio_to_tc[n] = n;
        for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
            if (cfg->tc_prios[tc] & (1u << n)) {
                cfg->prio_to_tc[n] = tc;
            }
        }
    }
}

/* Returns the name of watchdog-action 'action': "drop", "forward" or
 * "alert". */
const char *
pfc_wd_action_name(enum pfc_wd_action action)
{
    switch (action) {
    case PFC_WD_FORWARD:
        return "forward";
    case PFC_WD_ALERT:
        return "alert";
    case PFC_WD_DROP:
    default:
        return "drop";
    }
}

/* Parses 's' as a watchdog-action name into '*action'.  Returns false if it
 * is none of "drop", "forward" and "alert". */
bool
pfc_wd_action_from_string(const char *s, enum pfc_wd_action *action)
{
    static const enum pfc_wd_action actions[] = {
        PFC_WD_DROP, PFC_WD_FORWARD, PFC_WD_ALERT,
    };

    for (size_t i = 0; i < ARRAY_SIZE(actions); i++) {
        if (!strcmp(s, pfc_wd_action_name(actions[i]))) {
            *action = actions[i];
            return true;
        }
    }
    return false;
}

/* Parses the watchdog keys of 'details' into 'cfg' (see PFC_WD_DETECT_MIN in
 * lib/pfc-config.h for the ranges):
 *
 *   - watchdog-detection-time: ms, 0 (off) or 10..5000, default 200;
 *   - watchdog-restoration-time: ms, 10..60000, default twice the detection
 *     time; accepted, and unused, with the watchdog off;
 *   - watchdog-action: drop (default), forward or alert.
 *
 * Returns 0, or EINVAL with a message in '*errp' that names the key and its
 * range. */
static int
pfc_config_parse_wd(const struct smap *details, struct pfc_config *cfg,
                    char **errp)
{
    const char *s = smap_get(details, "watchdog-detection-time");
    uint64_t value;
    bool found;
    int error;

    if (s) {
        if (!parse_u64_suffix(s, false, &value)
            || (value && (value < PFC_WD_DETECT_MIN
                          || value > PFC_WD_DETECT_MAX))) {
            *errp = xasprintf("other_config:watchdog-detection-time=\"%s\" "
                              "is invalid: must be 0 (watchdog off) or an "
                              "integer from %d to %d ms", s,
                              PFC_WD_DETECT_MIN, PFC_WD_DETECT_MAX);
            return EINVAL;
        }
        cfg->wd_detect_ms = value;
    } else {
        cfg->wd_detect_ms = PFC_WD_DETECT_DEFAULT;
    }

    error = parse_range(details, "watchdog-restoration-time",
                        PFC_WD_RESTORE_MIN, PFC_WD_RESTORE_MAX, "ms", false,
                        &value, &found, errp);
    if (error) {
        return error;
    }
    cfg->wd_restore_default = !found;
    cfg->wd_restore_ms = (found ? value
                          : 2 * (cfg->wd_detect_ms ? cfg->wd_detect_ms
                                 : PFC_WD_DETECT_DEFAULT));

    s = smap_get_def(details, "watchdog-action", "drop");
    if (!pfc_wd_action_from_string(s, &cfg->wd_action)) {
        *errp = xasprintf("other_config:watchdog-action=\"%s\" is invalid: "
                          "must be drop, forward or alert", s);
        return EINVAL;
    }
    return 0;
}

/* Returns 0 if every key in 'details' is a key of QoS type pfc, else EINVAL
 * with a message naming the key and the valid ones in '*errp'. */
static int
pfc_config_check_keys(const struct smap *details, char **errp)
{
    static const char *const keys[] = {
        "pfc-enable", "xoff-threshold", "xon-threshold", "pause-quanta",
        "queue-size", "default-priority", "link-speed", "cable-length",
        "headroom-model", "xon-hysteresis", "tx-ring-size", "mac-control",
        "mac-control-queue", "watchdog-detection-time",
        "watchdog-restoration-time",
        "watchdog-action", "dcbx", "dcbx-willing", "lldp-tx-interval",
        "dynamic-th", "egress-dynamic-th", "lossy-dynamic-th",
        "max-rate", "trust", "dscp-map", "rewrite-pcp", "rewrite-dscp",
        "ecn-min-threshold", "ecn-max-threshold", "ecn-max-probability",
    };
    struct smap_node *node;

    SMAP_FOR_EACH (node, details) {
        bool known = false;

        for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
            known = known || !strcmp(node->key, keys[i]);
        }
        if (!known) {
            *errp = xasprintf("other_config:%s is not a key of QoS type pfc "
                              "(valid keys: pfc-enable, xoff-threshold, "
                              "xon-threshold, pause-quanta, queue-size, "
                              "default-priority, link-speed, cable-length, "
                              "headroom-model, xon-hysteresis, "
                              "tx-ring-size, mac-control, "
                              "mac-control-queue, watchdog-detection-time, "
                              "watchdog-restoration-time, watchdog-action, "
                              "dcbx, dcbx-willing, lldp-tx-interval, "
                              "dynamic-th, egress-dynamic-th, "
                              "lossy-dynamic-th, max-rate, trust, "
                              "dscp-map, rewrite-pcp, rewrite-dscp, "
                              "ecn-min-threshold, ecn-max-threshold, "
                              "ecn-max-probability)",
                              node->key);
            return EINVAL;
        }
    }
    return 0;
}

/* Parses the DCBX keys: dcbx, dcbx-willing, lldp-tx-interval. */
static int
pfc_config_parse_dcbx(const struct smap *details, struct pfc_config *cfg,
                      char **errp)
{
    uint64_t value;
    bool found;
    int error;

    const char *dcbx = smap_get_def(details, "dcbx", "off");
    if (strcmp(dcbx, "off") && strcmp(dcbx, "ieee")) {
        *errp = xasprintf("other_config:dcbx=\"%s\" is invalid: must be "
                          "\"off\" or \"ieee\"", dcbx);
        return EINVAL;
    }
    cfg->dcbx = !strcmp(dcbx, "ieee");
    const char *willing = smap_get_def(details, "dcbx-willing", "true");
    if (strcmp(willing, "true") && strcmp(willing, "false")) {
        *errp = xasprintf("other_config:dcbx-willing=\"%s\" is invalid: "
                          "must be \"true\" or \"false\"", willing);
        return EINVAL;
    }
    cfg->dcbx_willing = !strcmp(willing, "true");
    error = parse_range(details, "lldp-tx-interval", PFC_LLDP_TX_INTERVAL_MIN,
                        PFC_LLDP_TX_INTERVAL_MAX, "seconds", false, &value,
                        &found, errp);
    if (error) {
        return error;
    }
    cfg->lldp_tx_interval = found ? value : PFC_LLDP_TX_INTERVAL_DEFAULT;
    return 0;
}

/* Parses the shared-buffer keys: queue-size and the dynamic_th keys
 * (lib/pfc-buffer.h). */
static int
pfc_config_parse_buffer(const struct smap *details, struct pfc_config *cfg,
                        char **errp)
{
    uint64_t value;
    bool found;
    int error;

    error = parse_range(details, "queue-size", 1, PFC_QUEUE_SIZE_MAX,
                        "packets", false, &value, &found, errp);
    if (error) {
        return error;
    }
    cfg->queue_size = found ? value : 0;

    error = parse_dyn_th(details, "dynamic-th", PFC_DYN_TH_DEFAULT,
                         &cfg->dyn_th, errp);
    error = error ? error : parse_dyn_th(details, "egress-dynamic-th",
                                         PFC_EGRESS_DYN_TH_DEFAULT,
                                         &cfg->egress_dyn_th, errp);
    error = error ? error : parse_dyn_th(details, "lossy-dynamic-th",
                                         PFC_LOSSY_DYN_TH_DEFAULT,
                                         &cfg->lossy_dyn_th, errp);
    if (error) {
        return error;
    }
    return 0;
}

/* Parses the classification keys (lib/pfc-classify.h): at ingress, trust,
 * "pcp" (default) or "dscp", and dscp-map, which only trust=dscp takes; at
 * egress, rewrite-pcp ("true" or "false", the default) and rewrite-dscp (a
 * PRIORITY:DSCP list, empty by default). */
static int
pfc_config_parse_trust(const struct smap *details, struct pfc_config *cfg,
                       char **errp)
{
    const char *trust = smap_get_def(details, "trust", "pcp");
    const char *map = smap_get(details, "dscp-map");
    enum pfc_trust t;

    if (!pfc_trust_from_string(trust, &t)) {
        *errp = xasprintf("other_config:trust=\"%s\" is invalid: must be "
                          "pcp or dscp", trust);
        return EINVAL;
    }
    cfg->trust = t;
    pfc_dscp_map_default(cfg->dscp_to_prio);
    if (map && t != PFC_TRUST_DSCP) {
        *errp = xasprintf("other_config:dscp-map=\"%s\" needs "
                          "other_config:trust=dscp", map);
        return EINVAL;
    }
    if (map && pfc_dscp_map_parse(map, cfg->dscp_to_prio, errp)) {
        return EINVAL;
    }

    const char *pcp = smap_get_def(details, "rewrite-pcp", "false");
    const char *dscp = smap_get_def(details, "rewrite-dscp", "");

    memset(&cfg->rewrite, 0, sizeof cfg->rewrite);
    if (strcmp(pcp, "true") && strcmp(pcp, "false")) {
        *errp = xasprintf("other_config:rewrite-pcp=\"%s\" is invalid: must "
                          "be true or false", pcp);
        return EINVAL;
    }
    cfg->rewrite.pcp = !strcmp(pcp, "true");
    return pfc_rewrite_dscp_parse(dscp, &cfg->rewrite, errp);
}

/* Parses the keys of the link and the port: pause-quanta,
 * default-priority, link-speed, max-rate, cable-length, headroom-model,
 * mac-control, tx-ring-size. */
static int
pfc_config_parse_port(const struct smap *details, struct pfc_config *cfg,
                      char **errp)
{
    uint64_t value;
    bool found;
    int error;

    error = parse_range(details, "pause-quanta", 1, PFC_MAX_QUANTA,
                        "pause quanta", false, &value, &found, errp);
    if (error) {
        return error;
    }
    cfg->pause_quanta = found ? value : PFC_MAX_QUANTA;

    error = parse_range(details, "default-priority", 0, PFC_N_PRIOS - 1,
                        "(a priority)", false, &value, &found, errp);
    if (error) {
        return error;
    }
    cfg->default_priority = found ? value : 0;

    error = pfc_config_parse_trust(details, cfg, errp);
    if (error) {
        return error;
    }

    error = parse_range(details, "link-speed", PFC_LINK_SPEED_MIN,
                        PFC_LINK_SPEED_MAX, "bit/s (suffixes k, M, G, T)",
                        true, &value, &found, errp);
    if (error) {
        return error;
    }
    cfg->link_speed = found ? value : 0;

    error = parse_range(details, "max-rate", PFC_MAX_RATE_MIN,
                        PFC_MAX_RATE_MAX, "bit/s (suffixes k, M, G, T)",
                        true, &value, &found, errp);
    if (error) {
        return error;
    }
    cfg->max_rate = found ? value : 0;

    error = parse_range(details, "cable-length", 0, PFC_HEADROOM_CABLE_MAX,
                        "metres", false, &value, &found, errp);
    if (error) {
        return error;
    }
    cfg->cable_length = found ? value : 100;

    const char *model = smap_get_def(details, "headroom-model", "annex-a");
    enum pfc_headroom_model m;
    if (!pfc_headroom_model_from_string(model, &m)) {
        *errp = xasprintf("other_config:headroom-model=\"%s\" is invalid: "
                          "must be annex-a, delay-value or cisco", model);
        return EINVAL;
    }
    cfg->headroom_model = m;

    const char *mac_control = smap_get_def(details, "mac-control", "auto");
    if (!strcmp(mac_control, "trust")) {
        cfg->mac_control_trust = true;
    } else if (strcmp(mac_control, "auto")) {
        *errp = xasprintf("other_config:mac-control=\"%s\" is invalid: must "
                          "be auto or trust", mac_control);
        return EINVAL;
    }

    const char *mcq = smap_get_def(details, "mac-control-queue", "false");
    if (!strcmp(mcq, "true")) {
        cfg->mac_control_queue = true;
    } else if (strcmp(mcq, "false")) {
        *errp = xasprintf("other_config:mac-control-queue=\"%s\" is invalid: "
                          "must be true or false", mcq);
        return EINVAL;
    }

    /* The default leaves the ring as the Interface sizes it: a new ring size
     * restarts the port, which flaps the link of most NICs.  "auto" opts in
     * to the 802.1Qbb response bound. */
    const char *ring = smap_get_def(details, "tx-ring-size", "interface");
    if (!strcmp(ring, "auto")) {
        cfg->tx_ring_size = PFC_TX_RING_AUTO;
    } else if (!strcmp(ring, "interface")) {
        cfg->tx_ring_size = PFC_TX_RING_INTERFACE;
    } else {
        error = parse_range(details, "tx-ring-size", 1, PFC_TX_RING_MAX,
                            "descriptors, or \"auto\" or \"interface\"",
                            false, &value, &found, errp);
        if (error) {
            return error;
        }
        cfg->tx_ring_size = value;
    }
    return 0;
}

/* Parses the thresholds: xoff-threshold and xon-threshold (static, in
 * bytes) or xon-hysteresis (dynamic threshold, cells). */
static int
pfc_config_parse_thresholds(const struct smap *details, struct pfc_config *cfg,
                            char **errp)
{
    uint64_t value;
    bool found;
    int error;

    error = parse_range(details, "xoff-threshold", PFC_XOFF_MIN, PFC_XOFF_MAX,
                        "bytes", false, &value, &found, errp);
    if (error) {
        return error;
    }
    cfg->xoff_threshold = found ? value : 0;

    if (!cfg->xoff_threshold) {
        if (smap_get(details, "xon-threshold")) {
            *errp = xstrdup("other_config:xon-threshold needs "
                            "other_config:xoff-threshold (without it, the "
                            "threshold is dynamic: see dynamic-th and "
                            "xon-hysteresis)");
            return EINVAL;
        }
        error = parse_range(details, "xon-hysteresis", 1, PFC_QUEUE_SIZE_MAX,
                            "cells (packets)", false, &value, &found, errp);
        if (error) {
            return error;
        }
        cfg->xon_hysteresis = found ? value : 0;
        cfg->xon_default = true;
    } else {
        if (smap_get(details, "xon-hysteresis")) {
            *errp = xstrdup("other_config:xon-hysteresis applies only to "
                            "the dynamic threshold: use xon-threshold with "
                            "xoff-threshold");
            return EINVAL;
        }
        error = parse_range(details, "xon-threshold", 0,
                            cfg->xoff_threshold - 1, "bytes (below "
                            "xoff-threshold)", false, &value, &found, errp);
        if (error) {
            return error;
        }
        cfg->xon_default = !found;
        cfg->xon_threshold = found ? value : cfg->xoff_threshold / 2;
    }
    return 0;
}

/* Parses the other_config of a QoS row of type "pfc" into '*cfg'.  Keys and
 * ranges are documented in vswitchd/vswitch.xml.  Unknown keys are errors, so
 * that a misspelt threshold cannot silently leave a priority lossy.
 *
 * Returns 0 on success.  On error returns EINVAL, stores in '*errp' a message
 * that names the key and its allowed range (the caller frees it), and leaves
 * '*cfg' unspecified. */
int
pfc_config_parse(const struct smap *details, struct pfc_config *cfg,
                 char **errp)
{
    int error;

    *errp = NULL;
    memset(cfg, 0, sizeof *cfg);

    error = pfc_config_check_keys(details, errp);
    if (error) {
        return error;
    }

    const char *enable = smap_get_def(details, "pfc-enable", "");
    if (!parse_prios(enable, &cfg->enabled)) {
        *errp = xasprintf("other_config:pfc-enable=\"%s\" is invalid: must "
                          "be a comma-separated list of priorities from 0 "
                          "to 7, or \"none\"", enable);
        return EINVAL;
    }
    cfg->admin = cfg->enabled;

    error = pfc_config_parse_dcbx(details, cfg, errp);
    error = error ? error : pfc_config_parse_buffer(details, cfg, errp);
    error = error ? error : pfc_config_parse_port(details, cfg, errp);
    error = error ? error : pfc_config_parse_wd(details, cfg, errp);
    error = error ? error : pfc_config_parse_thresholds(details, cfg, errp);
    error = error ? error : pfc_ecn_parse(details, "", &cfg->ecn, errp);
    if (error) {
        return error;
    }
    pfc_config_map(cfg);
    return 0;
}

/* Parses the ETS keys of Queue 'queue_id': "tsa" ("strict" or "ets") and
 * "tc-bw" (1..100 percent, for an ets class only; it implies tsa=ets).
 * Returns 0 with '*ets' and '*bw' set, or EINVAL with a message in
 * '*errp'. */
static int
pfc_config_parse_tsa(const struct smap *details, uint32_t queue_id,
                     bool *ets, uint8_t *bw, char **errp)
{
    const char *tsa = smap_get(details, "tsa");
    const char *s = smap_get(details, "tc-bw");
    unsigned int value;

    if (tsa && strcmp(tsa, "strict") && strcmp(tsa, "ets")) {
        *errp = xasprintf("queue %"PRIu32": other_config:tsa=\"%s\" is "
                          "invalid: must be \"strict\" or \"ets\"",
                          queue_id, tsa);
        return EINVAL;
    }
    *ets = tsa ? !strcmp(tsa, "ets") : s != NULL;
    *bw = 0;
    if (!s) {
        if (*ets) {
            *errp = xasprintf("queue %"PRIu32": other_config:tsa=ets needs "
                              "other_config:tc-bw, 1 to 100 (percent)",
                              queue_id);
            return EINVAL;
        }
        return 0;
    }
    if (!*ets) {
        *errp = xasprintf("queue %"PRIu32": other_config:tc-bw applies to "
                          "tsa=ets only: a strict class has no bandwidth "
                          "share", queue_id);
        return EINVAL;
    }
    if (!str_to_uint(s, 10, &value) || value < 1 || value > 100) {
        *errp = xasprintf("queue %"PRIu32": other_config:tc-bw=\"%s\" is "
                          "out of range: must be 1 to 100 (percent)",
                          queue_id, s);
        return EINVAL;
    }
    *bw = value;
    return 0;
}

/* Applies the other_config of Queue 'queue_id', which is traffic class
 * 'queue_id' (0..7), to 'cfg'.  Keys: "priorities", the list of priorities
 * that class carries (a priority named by no queue is in the class of its
 * own number), and the ETS keys "tsa" and "tc-bw"
 * (pfc_config_parse_tsa()).  Returns 0, or EINVAL with a message in
 * '*errp' for a class out of range, an unknown key, a bad list, a priority
 * that another queue already carries, or a bad ETS key; 'cfg' is then
 * unchanged.  Whether the tc-bw of the ets classes sum to 100 is the
 * caller's to check, once every Queue is set. */
int
pfc_config_set_queue(struct pfc_config *cfg, uint32_t queue_id,
                     const struct smap *details, char **errp)
{
    struct smap_node *node;
    const char *s;
    uint8_t prios, bw;
    bool ets;

    *errp = NULL;
    if (queue_id >= PFC_N_PRIOS) {
        *errp = xasprintf("queue %"PRIu32" is invalid: QoS type pfc has "
                          "traffic classes 0 to 7", queue_id);
        return EINVAL;
    }
    SMAP_FOR_EACH (node, details) {
        if (strcmp(node->key, "priorities") && strcmp(node->key, "tsa")
            && strcmp(node->key, "tc-bw")
            && strcmp(node->key, "ecn-min-threshold")
            && strcmp(node->key, "ecn-max-threshold")
            && strcmp(node->key, "ecn-max-probability")) {
            *errp = xasprintf("queue %"PRIu32": other_config:%s is not a "
                              "key of a pfc queue (valid keys: priorities, "
                              "tsa, tc-bw, ecn-min-threshold, "
                              "ecn-max-threshold, ecn-max-probability)",
                              queue_id, node->key);
            return EINVAL;
        }
    }
    if (pfc_config_parse_tsa(details, queue_id, &ets, &bw, errp)) {
        return EINVAL;
    }

    char *where = xasprintf("queue %"PRIu32": ", queue_id);
    struct pfc_ecn_params ecn;
    int error = pfc_ecn_parse(details, where, &ecn, errp);

    free(where);
    if (error) {
        return error;
    }
    s = smap_get_def(details, "priorities", "");
    if (!parse_prios(s, &prios)) {
        *errp = xasprintf("queue %"PRIu32": other_config:priorities=\"%s\" "
                          "is invalid: must be a comma-separated list of "
                          "priorities from 0 to 7", queue_id, s);
        return EINVAL;
    }
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        if (tc != queue_id && cfg->tc_prios[tc] & prios) {
            struct ds d = DS_EMPTY_INITIALIZER;

            pfc_format_prios(&d, cfg->tc_prios[tc] & prios);
            *errp = xasprintf("queue %"PRIu32": other_config:priorities: "
                              "priority %s already belongs to queue %d",
                              queue_id, ds_cstr(&d), tc);
            ds_destroy(&d);
            return EINVAL;
        }
    }
    cfg->tc_prios[queue_id] = prios;
    /* The bridge configures queue 0 even without a Queue row for it, and
     * set_queue:0 cannot be told from no set_queue: never chosen. */
    cfg->queues |= (queue_id != 0) << queue_id;
    cfg->tsa_ets = (cfg->tsa_ets & ~(1u << queue_id)) | (ets << queue_id);
    cfg->tc_bw[queue_id] = bw;
    cfg->ecn_tc[queue_id] = ecn;
    pfc_config_map(cfg);
    return 0;
}

/* Removes the priority mapping and the ETS keys of queue 'queue_id' from
 * 'cfg': its class is strict priority again, and set_queue no longer
 * chooses it. */
void
pfc_config_clear_queue(struct pfc_config *cfg, uint32_t queue_id)
{
    if (queue_id < PFC_N_PRIOS) {
        cfg->tc_prios[queue_id] = 0;
        cfg->queues &= ~(1u << queue_id);
        cfg->tsa_ets &= ~(1u << queue_id);
        cfg->tc_bw[queue_id] = 0;
        memset(&cfg->ecn_tc[queue_id], 0, sizeof cfg->ecn_tc[queue_id]);
        pfc_config_map(cfg);
    }
}

/* Appends the priorities in bitmap 'prios' to 'ds' as "3,4", or "none". */
void
pfc_format_prios(struct ds *ds, uint8_t prios)
{
    bool first = true;

    if (!prios) {
        ds_put_cstr(ds, "none");
        return;
    }
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if (prios & (1u << n)) {
            ds_put_format(ds, "%s%d", first ? "" : ",", n);
            first = false;
        }
    }
}

/* Returns tx-ring-size 'size' as configured: "auto", "interface" or the
 * number, formatted into 'ds' (which the caller destroys). */
const char *
pfc_tx_ring_size_name(uint32_t size, struct ds *ds)
{
    if (size == PFC_TX_RING_AUTO) {
        return "auto";
    } else if (size == PFC_TX_RING_INTERFACE) {
        return "interface";
    }
    ds_clear(ds);
    ds_put_format(ds, "%"PRIu32, size);
    return ds_cstr(ds);
}

/* Stores the explicitly configurable keys of 'cfg' into 'details'. */
void
pfc_config_to_smap(const struct pfc_config *cfg, struct smap *details)
{
    struct ds d = DS_EMPTY_INITIALIZER;

    pfc_format_prios(&d, cfg->admin);
    smap_add(details, "pfc-enable", ds_cstr(&d));
    ds_destroy(&d);
    if (cfg->queue_size) {
        smap_add_format(details, "queue-size", "%"PRIu32, cfg->queue_size);
    }
    smap_add_format(details, "dynamic-th", "%d", cfg->dyn_th);
    smap_add_format(details, "egress-dynamic-th", "%d", cfg->egress_dyn_th);
    smap_add_format(details, "lossy-dynamic-th", "%d", cfg->lossy_dyn_th);
    smap_add_format(details, "pause-quanta", "%"PRIu16, cfg->pause_quanta);
    smap_add_format(details, "default-priority", "%d",
                    cfg->default_priority);
    smap_add(details, "trust", pfc_trust_name(cfg->trust));
    if (!pfc_dscp_map_is_default(cfg->dscp_to_prio)) {
        ds_init(&d);
        pfc_dscp_map_format(&d, cfg->dscp_to_prio);
        smap_add(details, "dscp-map", ds_cstr(&d));
        ds_destroy(&d);
    }
    if (cfg->rewrite.pcp) {
        smap_add(details, "rewrite-pcp", "true");
    }
    if (cfg->rewrite.dscp_prios) {
        ds_init(&d);
        pfc_rewrite_dscp_format(&d, &cfg->rewrite);
        smap_add(details, "rewrite-dscp", ds_cstr(&d));
        ds_destroy(&d);
    }
    if (cfg->xoff_threshold) {
        smap_add_format(details, "xoff-threshold", "%"PRIu64,
                        cfg->xoff_threshold);
        if (!cfg->xon_default) {
            smap_add_format(details, "xon-threshold", "%"PRIu64,
                            cfg->xon_threshold);
        }
    } else if (cfg->xon_hysteresis) {
        smap_add_format(details, "xon-hysteresis", "%"PRIu32,
                        cfg->xon_hysteresis);
    }
    smap_add_format(details, "cable-length", "%"PRIu32, cfg->cable_length);
    smap_add(details, "headroom-model",
             pfc_headroom_model_name(cfg->headroom_model));
    if (cfg->link_speed) {
        smap_add_format(details, "link-speed", "%"PRIu64, cfg->link_speed);
    }
    ds_init(&d);
    smap_add(details, "tx-ring-size",
             pfc_tx_ring_size_name(cfg->tx_ring_size, &d));
    ds_destroy(&d);
    smap_add(details, "mac-control",
             cfg->mac_control_trust ? "trust" : "auto");
    smap_add(details, "mac-control-queue",
             cfg->mac_control_queue ? "true" : "false");
    smap_add_format(details, "watchdog-detection-time", "%"PRIu32,
                    cfg->wd_detect_ms);
    if (!cfg->wd_restore_default) {
        smap_add_format(details, "watchdog-restoration-time", "%"PRIu32,
                        cfg->wd_restore_ms);
    }
    smap_add(details, "watchdog-action", pfc_wd_action_name(cfg->wd_action));
    if (cfg->max_rate) {
        smap_add_format(details, "max-rate", "%"PRIu64, cfg->max_rate);
    }
    pfc_ecn_to_smap(&cfg->ecn, details);
    if (cfg->dcbx) {
        smap_add(details, "dcbx", "ieee");
        smap_add(details, "dcbx-willing",
                 cfg->dcbx_willing ? "true" : "false");
        smap_add_format(details, "lldp-tx-interval", "%"PRIu32,
                        cfg->lldp_tx_interval);
    }
}

/* Returns true if 'a' and 'b' configure a port identically, ignoring the
 * queue mapping, which Queue rows set separately, and the operational
 * vector, which DCBX may change (the caller compares it). */
bool
pfc_config_equal(const struct pfc_config *a, const struct pfc_config *b)
{
    return (a->admin == b->admin
            && a->dcbx == b->dcbx
            && a->dcbx_willing == b->dcbx_willing
            && a->lldp_tx_interval == b->lldp_tx_interval
            && a->xoff_threshold == b->xoff_threshold
            && a->xon_threshold == b->xon_threshold
            && a->cable_length == b->cable_length
            && a->headroom_model == b->headroom_model
            && a->xon_hysteresis == b->xon_hysteresis
            && a->xon_default == b->xon_default
            && a->pause_quanta == b->pause_quanta
            && a->queue_size == b->queue_size
            && a->dyn_th == b->dyn_th
            && a->egress_dyn_th == b->egress_dyn_th
            && a->lossy_dyn_th == b->lossy_dyn_th
            && a->default_priority == b->default_priority
            && a->trust == b->trust
            && !memcmp(a->dscp_to_prio, b->dscp_to_prio,
                       sizeof a->dscp_to_prio)
            && !memcmp(&a->rewrite, &b->rewrite, sizeof a->rewrite)
            && a->link_speed == b->link_speed
            && a->tx_ring_size == b->tx_ring_size
            && a->mac_control_trust == b->mac_control_trust
            && a->mac_control_queue == b->mac_control_queue
            && a->wd_detect_ms == b->wd_detect_ms
            && a->wd_restore_ms == b->wd_restore_ms
            && a->wd_restore_default == b->wd_restore_default
            && a->wd_action == b->wd_action
            && a->max_rate == b->max_rate
            && a->ecn.on == b->ecn.on
            && a->ecn.min_bytes == b->ecn.min_bytes
            && a->ecn.max_bytes == b->ecn.max_bytes
            && a->ecn.max_prob == b->ecn.max_prob);
}
