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
#include "pfc-ecn.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "smap.h"
#include "util.h"

/* Parses one threshold key of 'details', in bytes, 0 to
 * PFC_ECN_THRESHOLD_MAX.  Returns 0 with '*value' set (or untouched if the
 * key is absent), or EINVAL with a message that names the key, prefixed by
 * 'where'. */
static int
parse_threshold(const struct smap *details, const char *where,
                const char *key, uint64_t *value, char **errp)
{
    const char *s = smap_get(details, key);
    unsigned long long int v;

    if (!s) {
        return 0;
    }
    if (!str_to_ullong(s, 10, &v) || v > PFC_ECN_THRESHOLD_MAX) {
        *errp = xasprintf("%sother_config:%s=\"%s\" is out of range: must "
                          "be 0 to %"PRIu64" (bytes queued in the traffic "
                          "class, up to the buffer's 65536 cells of 9216 "
                          "bytes)", where, key, s, PFC_ECN_THRESHOLD_MAX);
        return EINVAL;
    }
    *value = v;
    return 0;
}

/* Parses the ECN keys of 'details', the other_config of a QoS row (the
 * default of every traffic class) or of a Queue row (its class), into
 * '*p': "ecn-min-threshold" and "ecn-max-threshold", bytes queued in the
 * class at the port, both or neither, min <= max; "ecn-max-probability",
 * percent, 1 to 100 (default 100), only with the thresholds.  Neither
 * threshold: p->on is false.  Returns 0, or EINVAL with a message in
 * '*errp' that names the key and its range, prefixed by 'where' (such as
 * "queue 1: "); '*p' is then unspecified. */
int
pfc_ecn_parse(const struct smap *details, const char *where,
              struct pfc_ecn_params *p, char **errp)
{
    const char *min_s = smap_get(details, "ecn-min-threshold");
    const char *max_s = smap_get(details, "ecn-max-threshold");
    const char *prob_s = smap_get(details, "ecn-max-probability");
    unsigned int prob = 100;

    memset(p, 0, sizeof *p);
    p->max_prob = 100;
    if (!min_s && !max_s) {
        if (prob_s) {
            *errp = xasprintf("%sother_config:ecn-max-probability needs "
                              "other_config:ecn-min-threshold and "
                              "ecn-max-threshold", where);
            return EINVAL;
        }
        return 0;
    }
    if (!min_s || !max_s) {
        *errp = xasprintf("%sother_config:%s needs other_config:%s too "
                          "(bytes; equal for step marking at K)", where,
                          min_s ? "ecn-min-threshold" : "ecn-max-threshold",
                          min_s ? "ecn-max-threshold" : "ecn-min-threshold");
        return EINVAL;
    }
    if (parse_threshold(details, where, "ecn-min-threshold", &p->min_bytes,
                        errp)
        || parse_threshold(details, where, "ecn-max-threshold",
                           &p->max_bytes, errp)) {
        return EINVAL;
    }
    if (p->min_bytes > p->max_bytes) {
        *errp = xasprintf("%sother_config:ecn-min-threshold=%"PRIu64" is "
                          "above ecn-max-threshold=%"PRIu64": the minimum "
                          "must be at most the maximum", where, p->min_bytes,
                          p->max_bytes);
        return EINVAL;
    }
    if (prob_s && (!str_to_uint(prob_s, 10, &prob) || prob < 1
                   || prob > 100)) {
        *errp = xasprintf("%sother_config:ecn-max-probability=\"%s\" is out "
                          "of range: must be 1 to 100 (percent)", where,
                          prob_s);
        return EINVAL;
    }
    p->max_prob = prob;
    p->on = true;
    return 0;
}

/* Adds the keys of 'p', if on, to 'details', as pfc_ecn_parse() reads
 * them. */
void
pfc_ecn_to_smap(const struct pfc_ecn_params *p, struct smap *details)
{
    if (p->on) {
        smap_add_format(details, "ecn-min-threshold", "%"PRIu64,
                        p->min_bytes);
        smap_add_format(details, "ecn-max-threshold", "%"PRIu64,
                        p->max_bytes);
        smap_add_format(details, "ecn-max-probability", "%"PRIu32,
                        p->max_prob);
    }
}

/* Returns true if 'a' and 'b' mark alike: both off, or both on with the same
 * thresholds and probability. */
bool
pfc_ecn_equal(const struct pfc_ecn_params *a, const struct pfc_ecn_params *b)
{
    return (a->on == b->on
            && (!a->on || (a->min_bytes == b->min_bytes
                           && a->max_bytes == b->max_bytes
                           && a->max_prob == b->max_prob)));
}

/* Returns the probability, in parts per million, that an ECN-capable packet
 * joining a traffic class that queues 'queued' bytes is marked under 'p':
 * 0 below the minimum (or with 'p' off), max_prob at and beyond the
 * maximum, linear in between. */
uint32_t
pfc_ecn_ppm(const struct pfc_ecn_params *p, uint64_t queued)
{
    uint64_t top = (uint64_t) p->max_prob * 10000;

    if (!p->on || queued < p->min_bytes) {
        return 0;
    }
    if (queued >= p->max_bytes) {
        return top;
    }
    /* min < queued < max, so max > min; the product stays below 2^60. */
    return top * (queued - p->min_bytes) / (p->max_bytes - p->min_bytes);
}

/* Returns true if an ECN-capable packet that joins a traffic class queuing
 * 'queued' bytes is to be marked CE under 'p', with 'rnd' a uniformly
 * random 32-bit number. */
bool
pfc_ecn_decide(const struct pfc_ecn_params *p, uint64_t queued, uint32_t rnd)
{
    uint32_t ppm = pfc_ecn_ppm(p, queued);

    return ppm && ((uint64_t) rnd * 1000000 >> 32) < ppm;
}

/* RFC 1624 incremental update of a ones' complement checksum 'csum' for a
 * 16-bit word that changes from 'old' to 'new'. */
static uint16_t
ecn_csum_update16(uint16_t csum, uint16_t old, uint16_t new)
{
    uint32_t sum = (uint16_t) ~csum + (uint16_t) ~old + new;

    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return ~sum;
}

/* Reads the ECN field of the outermost IPv4 or IPv6 header of Ethernet
 * frame 'frame' of 'len' bytes, behind up to two VLAN tags (0x8100,
 * 0x88a8), and returns it, or PFC_ECN_NOT_IP.  If 'mark' and the field is
 * ECT(0) or ECT(1), sets it to CE, updating the IPv4 header checksum
 * incrementally (RFC 1624); the return value is still the field as it
 * was.  Never changes a Not-ECT or CE packet. */
enum pfc_ecn_field
pfc_ecn_mark(void *frame, size_t len, bool mark)
{
    uint8_t *d = frame;
    size_t off = 12;

    for (int tags = 0; ; tags++) {
        uint16_t type;

        if (len < off + 2) {
            return PFC_ECN_NOT_IP;
        }
        type = (d[off] << 8) | d[off + 1];
        if (type == 0x8100 || type == 0x88a8) {
            if (tags == 2) {
                return PFC_ECN_NOT_IP;
            }
            off += 4;
            continue;
        }
        off += 2;
        if (type == 0x0800 && len >= off + 20 && (d[off] >> 4) == 4) {
            enum pfc_ecn_field f = d[off + 1] & 3;

            if (mark && (f == PFC_ECN_ECT0 || f == PFC_ECN_ECT1)) {
                uint16_t old = (d[off] << 8) | d[off + 1];
                uint16_t csum = (d[off + 10] << 8) | d[off + 11];

                d[off + 1] |= PFC_ECN_CE;
                csum = ecn_csum_update16(csum, old, (d[off] << 8)
                                                    | d[off + 1]);
                d[off + 10] = csum >> 8;
                d[off + 11] = csum & 0xff;
            }
            return f;
        }
        if (type == 0x86dd && len >= off + 40 && (d[off] >> 4) == 6) {
            /* Traffic Class: the low 4 bits of byte 0 and the high 4 of
             * byte 1; ECN is its low 2 bits, bits 4-5 of byte 1. */
            enum pfc_ecn_field f = (d[off + 1] >> 4) & 3;

            if (mark && (f == PFC_ECN_ECT0 || f == PFC_ECN_ECT1)) {
                d[off + 1] |= PFC_ECN_CE << 4;
            }
            return f;
        }
        return PFC_ECN_NOT_IP;
    }
}
