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
#include "pfc-headroom.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "pfc.h"
#include "unixctl.h"
#include "util.h"

/* The speed range is that of the "pfc" QoS type's link-speed key. */
BUILD_ASSERT_DECL(PFC_HEADROOM_SPEED_MIN == PFC_LINK_SPEED_MIN);
BUILD_ASSERT_DECL(PFC_HEADROOM_SPEED_MAX == PFC_LINK_SPEED_MAX);

/* Cable lengths times speeds stay below 2^64 (cable_one_way()), and so does
 * a remainder below 10^12 times 8 * cable_rule (cable_by_rule()). */
BUILD_ASSERT_DECL(PFC_HEADROOM_CABLE_MAX * PFC_HEADROOM_SPEED_MAX
                  <= UINT64_MAX / 8);
BUILD_ASSERT_DECL(8ULL * PFC_HEADROOM_CABLE_RULE_MAX
                  <= UINT64_MAX / 1000000000000ULL);

/* Interface delays of IEEE 802.3 sublayers, seed 001 table 1 ("Existing
 * 802.3 Interface Delay Constraints", maximum round trip, bit times).  All
 * are 10 Gb/s sublayers: at other speeds give interface-delay instead. */
static const struct {
    const char *name;
    uint32_t bits;
} phys[] = {
    { "mac", 8192 },            /* 10G MAC Control, MAC and RS. */
    { "xaui", 2048 },           /* XGXS and XAUI. */
    { "10gbase-x-pcs", 2048 },  /* 10GBASE-X PCS. */
    { "10gbase-r-pcs", 3584 },  /* 10GBASE-R PCS. */
    { "lx4-pmd", 512 },         /* LX4 PMD. */
    { "cx4-pmd", 512 },         /* CX4 PMD. */
    { "serial-pma-pmd", 512 },  /* Serial PMA and PMD. */
    { "10gbase-t", 25600 },     /* 10GBASE-T PHY (802.3an 55.11). */
};

/* Named media for the velocity key, in 1/10000 of c. */
static const struct {
    const char *name;
    uint32_t velocity;
} media[] = {
    { "copper", 6600 },         /* Twisted pair, seed 000 Annex A. */
    { "twisted-pair", 6600 },   /* Same. */
    { "cat6", 6000 },           /* Worst-case Cat 6 (EIA-568-B: 555 ns per
                                 * 100 m), seed 001 7. */
    { "twinax", 7000 },         /* Twin-ax copper, seed 003. */
    { "fibre", 6500 },          /* Single-mode fibre, seed 003. */
    { "fiber", 6500 },          /* Same. */
};

static const char *const model_names[] = {
    [PFC_HEADROOM_ANNEX_A] = "annex-a",
    [PFC_HEADROOM_DELAY_VALUE] = "delay-value",
    [PFC_HEADROOM_CISCO] = "cisco",
};

static const char *const model_sources[] = {
    [PFC_HEADROOM_ANNEX_A] = "seed 000, 802.1Qbb proposal, Annex A",
    [PFC_HEADROOM_DELAY_VALUE] = "seed 001, HP PFC Delay Value model",
    [PFC_HEADROOM_CISCO] = "seed 003, Cisco PFC white paper",
};

static const char *const granularity_names[] = {
    [PFC_HEADROOM_BYTE] = "byte",
    [PFC_HEADROOM_CELL] = "cell",
    [PFC_HEADROOM_MBUF] = "mbuf",
};

/* Fills '*in' with the defaults of 'model', with which
 * pfc_headroom_compute() reproduces the model's worked example:
 *
 *   annex-a      10 Gb/s, 100 m at 0.66 c, 2000-byte frames, 64-byte PFC
 *                frame, no frame overhead, 1 x 25,600 (10GBASE-T), no HD,
 *                response 14,336, byte granularity: 82,550 bit times.
 *
 *   delay-value  10 Gb/s, 100 m at 0.60 c, 2000-byte frames, 64-byte PFC
 *                frame, 20 bytes of overhead per frame, 2 x 37,888
 *                (mac+xaui+xaui+10gbase-t), HD 33,184, no separate response,
 *                byte granularity: 153,064 bit times.
 *
 *   cisco        10 Gb/s, 300 m at 1300 bytes per 100 m, MTU[S] 2240,
 *                MTU[R] 9216, no PFC frame, no overhead, no interface
 *                delay, response 60 quanta, 160-byte cells with 64-byte
 *                frames: 19,196 bytes, 300 cells, 48,000 bytes.
 *
 * Callers then set what they know (speed, cable length, MTUs, the receiver's
 * buffers). */
void
pfc_headroom_input_init(struct pfc_headroom_input *in,
                        enum pfc_headroom_model model)
{
    memset(in, 0, sizeof *in);
    in->model = model;
    in->speed = 10000000000ULL;
    in->min_frame = 64;
    in->cell_size = 1;
    in->granularity = PFC_HEADROOM_BYTE;

    switch (model) {
    case PFC_HEADROOM_ANNEX_A:
        /* "Assuming a maximum length frame of 2000 octets, and a PFC PAUSE
         * frame of 64 octets ... 16 512 bit times"; "twisted pair is
         * approximately 0.66 x C ... 100m, 5051 bit times"; "14 336 bit
         * times plus the PHY delay of 25 600 bit times". */
        in->cable_length = 100;
        in->velocity = 6600;
        in->class_mtu = 2000;
        in->port_mtu = 2000;
        in->pfc_frame = 64;
        in->interface_delay = 25600;
        ovs_strlcpy(in->phy, "10gbase-t", sizeof in->phy);
        in->id_count = 1;
        in->response = 14336;
        break;

    case PFC_HEADROOM_DELAY_VALUE:
        /* Seed 001 7: "Maximum frame 2000 Octets 16,160 bit times", "PFC
         * Frame size 64 Octets or 672 bit times" (both with 8 bytes of
         * preamble and SFD and 12 of IPG), "100 meters, category 6 cable
         * 5556 bit-times" (0.60 c), ID 8192 + 2 x 2048 + 25,600 = 37,888,
         * HD 33,184 = MACsec SecY transmit 17,024 (table 2) + one frame of
         * memory pipelining 16,160. */
        in->cable_length = 100;
        in->velocity = 6000;
        in->class_mtu = 2000;
        in->port_mtu = 2000;
        in->frame_overhead = 20;
        in->pfc_frame = 64;
        in->interface_delay = 37888;
        ovs_strlcpy(in->phy, "mac+xaui+xaui+10gbase-t", sizeof in->phy);
        in->id_count = 2;
        in->higher_layer_delay = 17024 + 16160;
        break;

    case PFC_HEADROOM_CISCO:
        /* Seed 003: "MTU[R] + MTU[S] + 3,840 bytes" (60 quanta) and
         * "approximately 1300 bytes for every 100 meters"; transceiver
         * latency "can be ignored"; 160-byte cells, worst case 64-byte
         * packets; FCoE MTU[S] 2240, MTU[R] 9216, 300 m. */
        in->cable_length = 300;
        in->velocity = 6500;
        in->cable_rule = 1300;
        in->class_mtu = 2240;
        in->port_mtu = 9216;
        in->id_count = 2;
        ovs_strlcpy(in->phy, "none", sizeof in->phy);
        in->response = 60 * PFC_QUANTUM_BITS;
        in->granularity = PFC_HEADROOM_CELL;
        in->cell_size = 160;
        break;

    default:
        OVS_NOT_REACHED();
    }
}

/* Returns the name of 'model': "annex-a", "delay-value" or "cisco". */
const char *
pfc_headroom_model_name(enum pfc_headroom_model model)
{
    return model < ARRAY_SIZE(model_names) ? model_names[model] : "unknown";
}

/* Stores in '*model' the model named 's' and returns true, or returns false
 * if there is none. */
bool
pfc_headroom_model_from_string(const char *s, enum pfc_headroom_model *model)
{
    for (size_t i = 0; i < ARRAY_SIZE(model_names); i++) {
        if (!strcmp(s, model_names[i])) {
            *model = i;
            return true;
        }
    }
    return false;
}

/* Parses 's', a non-negative decimal number with at most 'scale' digits
 * after an optional decimal point, into '*value' = the number times
 * 10^scale.  Returns false for junk, too many decimals or overflow. */
static bool
parse_fixed(const char *s, size_t len, int scale, uint64_t *value)
{
    bool digits = false;
    int frac = -1;              /* Digits seen after the point, or -1. */
    uint64_t x = 0;

    for (size_t i = 0; i < len; i++) {
        unsigned int d = s[i] - '0';

        if (s[i] == '.' && frac < 0) {
            frac = 0;
            continue;
        } else if (d > 9 || (frac >= 0 && ++frac > scale)
                   || x > (UINT64_MAX - d) / 10) {
            return false;
        }
        x = x * 10 + d;
        digits = true;
    }
    for (int i = MAX(frac, 0); i < scale; i++) {
        if (x > UINT64_MAX / 10) {
            return false;
        }
        x *= 10;
    }
    *value = x;
    return digits;
}

/* Parses a link speed in bit/s with an optional decimal multiplier suffix (k,
 * M, G or T, any case), such as "10G", "2.5G" or "100000000". */
static bool
parse_speed(const char *s, uint64_t *speed)
{
    size_t len = strlen(s);
    int scale = 0;

    if (len) {
        switch (s[len - 1]) {
        case 'k': case 'K': scale = 3; break;
        case 'm': case 'M': scale = 6; break;
        case 'g': case 'G': scale = 9; break;
        case 't': case 'T': scale = 12; break;
        }
    }
    return parse_fixed(s, len - (scale != 0), scale, speed);
}

/* Parses 's', a medium name (copper, twisted-pair, cat6, twinax, fibre,
 * fiber) or a fraction of c such as "0.66" with at most four decimals, into
 * '*velocity' in 1/10000 of c.  Returns 0, or EINVAL if 's' is neither or is
 * out of PFC_HEADROOM_VELOCITY_MIN to PFC_HEADROOM_VELOCITY_MAX. */
int
pfc_headroom_velocity_from_string(const char *s, uint32_t *velocity)
{
    uint64_t v;

    for (size_t i = 0; i < ARRAY_SIZE(media); i++) {
        if (!strcasecmp(s, media[i].name)) {
            *velocity = media[i].velocity;
            return 0;
        }
    }
    if (!parse_fixed(s, strlen(s), 4, &v)
        || v < PFC_HEADROOM_VELOCITY_MIN || v > PFC_HEADROOM_VELOCITY_MAX) {
        return EINVAL;
    }
    *velocity = v;
    return 0;
}

/* Stores in '*bits' the interface delay, in bit times, of one station made of
 * the sublayers in 'phy': "none", or names from seed 001 table 1 joined by
 * "+", a name repeated as often as the sublayer is crossed:
 *
 *     mac 8192, xaui 2048, 10gbase-x-pcs 2048, 10gbase-r-pcs 3584,
 *     lx4-pmd 512, cx4-pmd 512, serial-pma-pmd 512, 10gbase-t 25600
 *
 * Names are case-insensitive.  "mac+xaui+xaui+10gbase-t" (10G MAC, 2 x XAUI,
 * 10GBASE-T) is seed 001's worst case, 37,888 bit times.  Returns 0, or
 * EINVAL if 'phy' is not of this form. */
int
pfc_headroom_phy_delay(const char *phy, uint32_t *bits)
{
    const char *p = phy;
    uint64_t sum = 0;

    if (!strcasecmp(phy, "none")) {
        *bits = 0;
        return 0;
    }
    for (;;) {
        size_t len = strcspn(p, "+");
        bool found = false;

        for (size_t i = 0; i < ARRAY_SIZE(phys); i++) {
            if (strlen(phys[i].name) == len
                && !strncasecmp(p, phys[i].name, len)) {
                sum += phys[i].bits;
                found = true;
                break;
            }
        }
        if (!found || sum > PFC_HEADROOM_DELAY_MAX) {
            return EINVAL;
        }
        p += len;
        if (!*p) {
            break;
        }
        p++;
    }
    *bits = sum;
    return 0;
}

/* Returns how many buffer units the receiver needs to store 'bytes' of
 * back-to-back frames in the worst case, and stores in '*worst_frame' the
 * frame size, in bytes, of that worst case (seed 003, "Buffers and
 * Packets"):
 *
 *   - PFC_HEADROOM_BYTE: 'bytes' units of one byte; '*worst_frame' is 0.
 *
 *   - PFC_HEADROOM_MBUF: every frame takes one unit whatever its size, so
 *     the worst case is frames of 'min_frame' bytes:
 *     ceil(bytes / min_frame).
 *
 *   - PFC_HEADROOM_CELL: a frame of L bytes takes ceil(L / cell_size)
 *     cells, so 'bytes' in frames of L bytes take
 *     ceil(bytes / L) * ceil(L / cell_size) cells, every frame counted
 *     whole as seed 003 does (19,196 bytes are 300 frames of 64 bytes, since
 *     the last one, partly in the headroom, is stored whole).  This is the
 *     maximum over every L from 'min_frame' to max('min_frame',
 *     'max_frame').  Within a run of sizes that take the same number of
 *     cells the smallest size is the worst, so only 'min_frame' and sizes
 *     one byte over a multiple of 'cell_size' are tried.  160-byte cells
 *     and 64-byte frames: 19,196 bytes take 300 cells (seed 003).  80-byte
 *     cells: the worst case is 81-byte frames, two cells each (seed 003,
 *     Nexus 2000).
 *
 * 'cell_size' and 'min_frame' must be at least 1. */
uint64_t
pfc_headroom_cells(uint64_t bytes, enum pfc_headroom_granularity granularity,
                   uint32_t cell_size, uint32_t min_frame, uint32_t max_frame,
                   uint32_t *worst_frame)
{
    uint64_t best;

    switch (granularity) {
    case PFC_HEADROOM_BYTE:
        *worst_frame = 0;
        return bytes;

    case PFC_HEADROOM_MBUF:
        *worst_frame = min_frame;
        return DIV_ROUND_UP(bytes, min_frame);

    case PFC_HEADROOM_CELL:
        *worst_frame = min_frame;
        best = (DIV_ROUND_UP(bytes, min_frame)
                * DIV_ROUND_UP(min_frame, cell_size));
        for (uint64_t k = DIV_ROUND_UP(min_frame, cell_size);
             k * cell_size + 1 <= max_frame; k++) {
            uint64_t frame = k * cell_size + 1;
            uint64_t n = DIV_ROUND_UP(bytes, frame) * (k + 1);

            if (n > best) {
                best = n;
                *worst_frame = frame;
            }
        }
        return best;

    default:
        OVS_NOT_REACHED();
    }
}

/* Appends 'velocity' (in 1/10000 of c) to 'ds' as a decimal fraction with no
 * trailing zeros: 6600 is "0.66". */
static void
format_velocity(struct ds *ds, uint32_t velocity)
{
    ds_put_format(ds, "%"PRIu32, velocity / 10000);
    if (velocity % 10000) {
        char frac[8];
        size_t len;

        snprintf(frac, sizeof frac, "%04"PRIu32, velocity % 10000);
        for (len = strlen(frac); frac[len - 1] == '0'; len--) {
            continue;
        }
        ds_put_format(ds, ".%.*s", (int) len, frac);
    }
}

static struct pfc_headroom_term *
add_term(struct pfc_headroom_result *r, const char *name, uint64_t bits)
{
    struct pfc_headroom_term *t = &r->terms[r->n_terms++];

    ovs_assert(r->n_terms <= PFC_HEADROOM_MAX_TERMS);
    t->name = name;
    t->bits = bits;
    t->detail[0] = '\0';
    r->bits += bits;
    return t;
}

/* A frame of 'size' bytes, plus 'overhead' if it exists at all. */
static void
add_frame(struct pfc_headroom_result *r, const char *name, uint32_t size,
          uint32_t overhead)
{
    struct pfc_headroom_term *t;

    if (!size) {
        overhead = 0;
    }
    t = add_term(r, name, 8 * ((uint64_t) size + overhead));
    if (overhead) {
        snprintf(t->detail, sizeof t->detail, "%"PRIu32"+%"PRIu32" bytes",
                 size, overhead);
    } else {
        snprintf(t->detail, sizeof t->detail, "%"PRIu32" bytes", size);
    }
}

/* Propagation delay of one direction of the cable, bit times, rounded up:
 * length / (velocity * c) * speed.  Seed 000 Annex A: 100 m at 0.66 c and
 * 10 Gb/s is 5050.5, so 5051; seed 001: 100 m at 0.60 c is 5555.6, so
 * 5556.  With c = 3 x 10^8 m/s and velocity in 1/10000 of c, the divisor is
 * velocity * 30000. */
static uint64_t
cable_one_way(const struct pfc_headroom_input *in)
{
    uint64_t num = (uint64_t) in->cable_length * in->speed;
    uint64_t den = (uint64_t) in->velocity * (PFC_HEADROOM_C / 10000);

    return DIV_ROUND_UP(num, den);
}

/* Both directions of the cable by seed 003's rule of thumb: cable_rule bytes
 * per 100 m at 10 Gb/s, that is cable_rule * 8 * length * speed / 10^12 bit
 * times, rounded up.  Split at 10^12 to stay within 64 bits. */
static uint64_t
cable_by_rule(const struct pfc_headroom_input *in)
{
    const uint64_t unit = 1000000000000ULL;   /* 100 m x 10 Gb/s. */
    uint64_t x = (uint64_t) in->cable_length * in->speed;
    uint64_t m = 8 * (uint64_t) in->cable_rule;

    return x / unit * m + DIV_ROUND_UP(x % unit * m, unit);
}

static bool
input_is_valid(const struct pfc_headroom_input *in)
{
    return (in->model < ARRAY_SIZE(model_names)
            && in->speed >= PFC_HEADROOM_SPEED_MIN
            && in->speed <= PFC_HEADROOM_SPEED_MAX
            && in->cable_length <= PFC_HEADROOM_CABLE_MAX
            && (in->cable_rule
                || (in->velocity >= PFC_HEADROOM_VELOCITY_MIN
                    && in->velocity <= PFC_HEADROOM_VELOCITY_MAX))
            && in->cable_rule <= PFC_HEADROOM_CABLE_RULE_MAX
            && in->class_mtu >= PFC_HEADROOM_MTU_MIN
            && in->class_mtu <= PFC_HEADROOM_MTU_MAX
            && in->port_mtu >= PFC_HEADROOM_MTU_MIN
            && in->port_mtu <= PFC_HEADROOM_MTU_MAX
            && in->frame_overhead <= PFC_HEADROOM_OVERHEAD_MAX
            && in->pfc_frame <= PFC_HEADROOM_PFC_FRAME_MAX
            && in->id_count <= PFC_HEADROOM_ID_COUNT_MAX
            && in->granularity < ARRAY_SIZE(granularity_names)
            && in->cell_size >= 1 && in->cell_size <= PFC_HEADROOM_CELL_MAX
            && in->min_frame >= 1
            && in->min_frame <= PFC_HEADROOM_MIN_FRAME_MAX);
}

/* Computes the headroom for 'in' into '*r': every term of the formula at the
 * top of pfc-headroom.h in bit times, in that order (zero terms included, so
 * that the output always shows what was left out), then the total in bit
 * times, bytes, pause quanta and buffer units.
 *
 * With the cable rule (in->cable_rule != 0) both cable terms are one term,
 * so there are 7 terms, otherwise 8.
 *
 * Returns 0, or EINVAL, leaving '*r' unspecified, if a member of 'in' is out
 * of the range documented in 'struct pfc_headroom_input'. */
int
pfc_headroom_compute(const struct pfc_headroom_input *in,
                     struct pfc_headroom_result *r)
{
    struct pfc_headroom_term *t;
    struct ds cable = DS_EMPTY_INITIALIZER;
    uint64_t one_way = 0;

    if (!input_is_valid(in)) {
        return EINVAL;
    }
    memset(r, 0, sizeof *r);

    add_frame(r, "MTU[R] frame before PFC", in->port_mtu,
              in->frame_overhead);
    add_frame(r, "PFC frame", in->pfc_frame, in->frame_overhead);

    if (in->cable_rule) {
        t = add_term(r, "cable, both directions", cable_by_rule(in));
        snprintf(t->detail, sizeof t->detail,
                 "%"PRIu32" m, %"PRIu32" bytes/100 m at 10G",
                 in->cable_length, in->cable_rule);
    } else {
        one_way = cable_one_way(in);
        ds_put_format(&cable, "%"PRIu32" m at ", in->cable_length);
        format_velocity(&cable, in->velocity);
        ds_put_cstr(&cable, " c");
        t = add_term(r, "cable, PFC frame to sender", one_way);
        ovs_strlcpy(t->detail, ds_cstr(&cable), sizeof t->detail);
    }

    t = add_term(r, "interface delay",
                 (uint64_t) in->id_count * in->interface_delay);
    snprintf(t->detail, sizeof t->detail, "%"PRIu32" x %"PRIu32"%s%s%s",
             in->id_count, in->interface_delay, in->phy[0] ? " (" : "",
             in->phy, in->phy[0] ? ")" : "");

    add_term(r, "higher-layer delay", in->higher_layer_delay);

    t = add_term(r, "sender response time", in->response);
    if (in->response && !(in->response % PFC_QUANTUM_BITS)) {
        snprintf(t->detail, sizeof t->detail, "%"PRIu32" quanta",
                 in->response / PFC_QUANTUM_BITS);
    }

    add_frame(r, "MTU[S] frame at sender", in->class_mtu,
              in->frame_overhead);

    if (!in->cable_rule) {
        t = add_term(r, "cable, data in flight", one_way);
        ovs_strlcpy(t->detail, ds_cstr(&cable), sizeof t->detail);
    }
    ds_destroy(&cable);

    r->bytes = DIV_ROUND_UP(r->bits, 8);
    r->quanta = DIV_ROUND_UP(r->bits, PFC_QUANTUM_BITS);
    r->cell_size = in->granularity == PFC_HEADROOM_BYTE ? 1 : in->cell_size;
    r->cells = pfc_headroom_cells(r->bytes, in->granularity, r->cell_size,
                                  in->min_frame, in->class_mtu,
                                  &r->worst_frame);
    r->cell_bytes = r->cells * r->cell_size;
    return 0;
}

/* Keys of pfc_headroom_parse(), in the order they are applied. */
enum headroom_key {
    K_MODEL, K_SPEED, K_CABLE_LENGTH, K_VELOCITY, K_CABLE_RULE,
    K_CLASS_MTU, K_PORT_MTU, K_FRAME_OVERHEAD, K_PFC_FRAME, K_PHY,
    K_INTERFACE_DELAY, K_ID_COUNT, K_HIGHER_LAYER_DELAY, K_RESPONSE,
    K_RESPONSE_QUANTA, K_GRANULARITY, K_CELL_SIZE, K_MIN_FRAME,
    N_KEYS
};

static const char *const key_names[N_KEYS] = {
    [K_MODEL] = "model",
    [K_SPEED] = "speed",
    [K_CABLE_LENGTH] = "cable-length",
    [K_VELOCITY] = "velocity",
    [K_CABLE_RULE] = "cable-bytes-per-100m",
    [K_CLASS_MTU] = "class-mtu",
    [K_PORT_MTU] = "port-mtu",
    [K_FRAME_OVERHEAD] = "frame-overhead",
    [K_PFC_FRAME] = "pfc-frame",
    [K_PHY] = "phy",
    [K_INTERFACE_DELAY] = "interface-delay",
    [K_ID_COUNT] = "id-count",
    [K_HIGHER_LAYER_DELAY] = "higher-layer-delay",
    [K_RESPONSE] = "response",
    [K_RESPONSE_QUANTA] = "response-quanta",
    [K_GRANULARITY] = "granularity",
    [K_CELL_SIZE] = "cell-size",
    [K_MIN_FRAME] = "min-frame",
};

/* Integer keys: range and unit for the error message. */
static const struct {
    uint64_t min, max;
    const char *unit;
} ranges[N_KEYS] = {
    [K_CABLE_LENGTH] = { 0, PFC_HEADROOM_CABLE_MAX, "metres" },
    [K_CABLE_RULE] = { 0, PFC_HEADROOM_CABLE_RULE_MAX,
                       "bytes per 100 m at 10 Gb/s" },
    [K_CLASS_MTU] = { PFC_HEADROOM_MTU_MIN, PFC_HEADROOM_MTU_MAX, "bytes" },
    [K_PORT_MTU] = { PFC_HEADROOM_MTU_MIN, PFC_HEADROOM_MTU_MAX, "bytes" },
    [K_FRAME_OVERHEAD] = { 0, PFC_HEADROOM_OVERHEAD_MAX, "bytes" },
    [K_PFC_FRAME] = { 0, PFC_HEADROOM_PFC_FRAME_MAX, "bytes" },
    [K_INTERFACE_DELAY] = { 0, PFC_HEADROOM_DELAY_MAX, "bit times" },
    [K_ID_COUNT] = { 0, PFC_HEADROOM_ID_COUNT_MAX, "stations" },
    [K_HIGHER_LAYER_DELAY] = { 0, PFC_HEADROOM_DELAY_MAX, "bit times" },
    [K_RESPONSE] = { 0, PFC_HEADROOM_DELAY_MAX, "bit times" },
    [K_RESPONSE_QUANTA] = { 0, PFC_HEADROOM_QUANTA_MAX, "pause quanta" },
    [K_CELL_SIZE] = { 1, PFC_HEADROOM_CELL_MAX, "bytes" },
    [K_MIN_FRAME] = { 1, PFC_HEADROOM_MIN_FRAME_MAX, "bytes" },
};

static int
parse_error(char **errp, const char *format, ...)
    OVS_PRINTF_FORMAT(2, 3);

static int
parse_error(char **errp, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    *errp = xvasprintf(format, args);
    va_end(args);
    return EINVAL;
}

static int
parse_int_key(enum headroom_key k, const char *s, uint32_t *value,
              char **errp)
{
    uint64_t x;

    if (!parse_fixed(s, strlen(s), 0, &x)
        || x < ranges[k].min || x > ranges[k].max) {
        return parse_error(errp, "%s=\"%s\" is invalid: must be an integer "
                           "from %"PRIu64" to %"PRIu64" %s", key_names[k], s,
                           ranges[k].min, ranges[k].max, ranges[k].unit);
    }
    *value = x;
    return 0;
}

static void
put_choices(struct ds *ds, const char *const names[], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ds_put_format(ds, "%s%s", i ? (i + 1 < n ? ", " : " or ") : "",
                      names[i]);
    }
}

/* Stores in v[k] the value of each "key=value" argument among the 'argc'
 * in 'argv' whose key is key_names[k].  Returns 0, or EINVAL with an error
 * message in '*errp' for an argument that is not key=value, an unknown key
 * or a key given twice. */
static int
headroom_split_args(int argc, const char *const argv[],
                    const char *v[N_KEYS], char **errp)
{
    for (int i = 0; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        size_t len = eq ? eq - argv[i] : 0;
        int k;

        if (!len) {
            return parse_error(errp, "\"%s\" is not a key=value argument",
                               argv[i]);
        }
        for (k = 0; k < N_KEYS; k++) {
            if (strlen(key_names[k]) == len
                && !strncmp(argv[i], key_names[k], len)) {
                break;
            }
        }
        if (k == N_KEYS) {
            struct ds ds = DS_EMPTY_INITIALIZER;

            ds_put_format(&ds, "%.*s is not a key of pfc/headroom: the keys "
                          "are ", (int) len, argv[i]);
            put_choices(&ds, key_names, N_KEYS);
            *errp = ds_steal_cstr(&ds);
            return EINVAL;
        }
        if (v[k]) {
            return parse_error(errp, "%s is given twice", key_names[k]);
        }
        v[k] = eq + 1;
    }
    return 0;
}

/* Sets the interface delay of 'in' from the key phy, v[K_PHY] (sublayers
 * joined by +), or notes that interface-delay, given instead, names no
 * PHY.  Returns 0, or EINVAL with an error message in '*errp' if both keys
 * are given or phy names an unknown sublayer. */
static int
headroom_parse_phy(const char *v[N_KEYS], struct pfc_headroom_input *in,
                   char **errp)
{
    if (v[K_PHY]) {
        if (v[K_INTERFACE_DELAY]) {
            return parse_error(errp, "phy and interface-delay are both "
                               "given: give one of them");
        }
        if (strlen(v[K_PHY]) >= sizeof in->phy
            || pfc_headroom_phy_delay(v[K_PHY], &in->interface_delay)) {
            struct ds ds = DS_EMPTY_INITIALIZER;

            ds_put_format(&ds, "phy=\"%s\" is invalid: must be none or "
                          "sublayers joined by +, from ", v[K_PHY]);
            for (size_t i = 0; i < ARRAY_SIZE(phys); i++) {
                ds_put_format(&ds, "%s%s (%"PRIu32")",
                              i ? (i + 1 < ARRAY_SIZE(phys) ? ", " : " and ")
                              : "", phys[i].name, phys[i].bits);
            }
            ds_put_cstr(&ds, " bit times");
            *errp = ds_steal_cstr(&ds);
            return EINVAL;
        }
        ovs_strlcpy(in->phy, v[K_PHY], sizeof in->phy);
    } else if (v[K_INTERFACE_DELAY]) {
        in->phy[0] = '\0';
    }
    return 0;
}

/* Sets the buffer granularity and the cell size of 'in' from the keys
 * granularity and cell-size in v[].  Returns 0, or EINVAL with an error
 * message in '*errp' for an unknown granularity or a cell-size that does
 * not go with it. */
static int
headroom_parse_granularity(const char *v[N_KEYS],
                           struct pfc_headroom_input *in, char **errp)
{
    if (v[K_GRANULARITY]) {
        size_t i;

        for (i = 0; i < ARRAY_SIZE(granularity_names); i++) {
            if (!strcmp(v[K_GRANULARITY], granularity_names[i])) {
                break;
            }
        }
        if (i == ARRAY_SIZE(granularity_names)) {
            return parse_error(errp, "granularity=\"%s\" is invalid: must be "
                               "byte, cell or mbuf", v[K_GRANULARITY]);
        }
        in->granularity = i;
        if (in->granularity == PFC_HEADROOM_BYTE && v[K_CELL_SIZE]) {
            return parse_error(errp, "cell-size is not used with "
                               "granularity=byte");
        }
        if (in->granularity == PFC_HEADROOM_MBUF && !v[K_CELL_SIZE]) {
            return parse_error(errp, "granularity=mbuf needs cell-size, the "
                               "size of one mbuf in bytes");
        }
    } else if (v[K_CELL_SIZE] && in->granularity == PFC_HEADROOM_BYTE) {
        in->granularity = PFC_HEADROOM_CELL;
    }
    if (in->granularity == PFC_HEADROOM_BYTE) {
        in->cell_size = 1;
    }
    return 0;
}

/* Parses 'argc' arguments "key=value" in 'argv' (the arguments of
 * "ovs-appctl pfc/headroom" and of ovs-pfc-headroom) into '*in'.
 *
 * "model" (annex-a, delay-value or cisco; default annex-a) selects the
 * defaults (pfc_headroom_input_init()) wherever it appears; every other key
 * overrides one input:
 *
 *   speed                 bit/s, with an optional k, M, G or T suffix and
 *                         decimals ("2.5G"), 1M to 1T.
 *   cable-length          metres, 0 to 100000.
 *   velocity              copper, twisted-pair (0.66), cat6 (0.6), twinax
 *                         (0.7), fibre, fiber (0.65) or a fraction of c from
 *                         0.1 to 1.  It also turns off the cisco model's
 *                         rule of thumb unless cable-bytes-per-100m is
 *                         given too.
 *   cable-bytes-per-100m  cable_rule, 0 to 100000 (0: use velocity).
 *   class-mtu, port-mtu   MTU[S] and MTU[R], bytes, 64 to 65535.
 *   frame-overhead        bytes per frame, 0 to 255.
 *   pfc-frame             bytes, 0 to 65535.
 *   phy                   see pfc_headroom_phy_delay().
 *   interface-delay       bit times per station, instead of phy.
 *   id-count              0 to 2.
 *   higher-layer-delay    bit times.
 *   response              bit times.
 *   response-quanta       0 to 65535 pause quanta, instead of response.
 *   granularity           byte, cell or mbuf.
 *   cell-size             bytes, 1 to 65535: the cell or the mbuf size.
 *                         Given alone with a model whose granularity is
 *                         byte, it selects cell.  Required with
 *                         granularity=mbuf.
 *   min-frame             bytes, 1 to 65535.
 *
 * Returns 0, or EINVAL with an error message naming the key, and its range
 * or choices, in '*errp', which the caller must free.  Unknown keys, keys
 * given twice, and conflicting keys are errors.  On error '*in' is
 * unspecified. */
int
pfc_headroom_parse(int argc, const char *const argv[],
                   struct pfc_headroom_input *in, char **errp)
{
    const char *v[N_KEYS] = { NULL };
    enum pfc_headroom_model model = PFC_HEADROOM_ANNEX_A;
    uint32_t x;
    int error;

    error = headroom_split_args(argc, argv, v, errp);
    if (error) {
        return error;
    }

    if (v[K_MODEL] && !pfc_headroom_model_from_string(v[K_MODEL], &model)) {
        struct ds ds = DS_EMPTY_INITIALIZER;

        ds_put_format(&ds, "model=\"%s\" is invalid: must be ", v[K_MODEL]);
        put_choices(&ds, model_names, ARRAY_SIZE(model_names));
        *errp = ds_steal_cstr(&ds);
        return EINVAL;
    }
    pfc_headroom_input_init(in, model);

    if (v[K_SPEED]
        && (!parse_speed(v[K_SPEED], &in->speed)
            || in->speed < PFC_HEADROOM_SPEED_MIN
            || in->speed > PFC_HEADROOM_SPEED_MAX)) {
        return parse_error(errp, "speed=\"%s\" is invalid: must be an integer "
                           "from %"PRIu64" to %"PRIu64" bit/s, with an "
                           "optional k, M, G or T suffix", v[K_SPEED],
                           (uint64_t) PFC_HEADROOM_SPEED_MIN,
                           (uint64_t) PFC_HEADROOM_SPEED_MAX);
    }
    if (v[K_VELOCITY]) {
        if (pfc_headroom_velocity_from_string(v[K_VELOCITY],
                                              &in->velocity)) {
            return parse_error(errp, "velocity=\"%s\" is invalid: must be "
                               "copper or twisted-pair (0.66), cat6 (0.6), "
                               "twinax (0.7), fibre or fiber (0.65), or a "
                               "fraction of c from 0.1 to 1",
                               v[K_VELOCITY]);
        }
        in->cable_rule = 0;
    }

    /* Integer keys. */
    const struct {
        enum headroom_key k;
        uint32_t *p;
    } ints[] = {
        { K_CABLE_LENGTH, &in->cable_length },
        { K_CABLE_RULE, &in->cable_rule },
        { K_CLASS_MTU, &in->class_mtu },
        { K_PORT_MTU, &in->port_mtu },
        { K_FRAME_OVERHEAD, &in->frame_overhead },
        { K_PFC_FRAME, &in->pfc_frame },
        { K_INTERFACE_DELAY, &in->interface_delay },
        { K_ID_COUNT, &in->id_count },
        { K_HIGHER_LAYER_DELAY, &in->higher_layer_delay },
        { K_RESPONSE, &in->response },
        { K_CELL_SIZE, &in->cell_size },
        { K_MIN_FRAME, &in->min_frame },
    };
    for (size_t i = 0; i < ARRAY_SIZE(ints); i++) {
        enum headroom_key k = ints[i].k;

        if (v[k]) {
            error = parse_int_key(k, v[k], ints[i].p, errp);
            if (error) {
                return error;
            }
        }
    }
    error = headroom_parse_phy(v, in, errp);
    if (error) {
        return error;
    }

    if (v[K_RESPONSE_QUANTA]) {
        if (v[K_RESPONSE]) {
            return parse_error(errp, "response and response-quanta are both "
                               "given: give one of them");
        }
        error = parse_int_key(K_RESPONSE_QUANTA, v[K_RESPONSE_QUANTA], &x,
                              errp);
        if (error) {
            return error;
        }
        in->response = x * PFC_QUANTUM_BITS;
    }

    return headroom_parse_granularity(v, in, errp);
}

/* Appends to 'ds' the headroom 'r' computed from 'in': the inputs, one line
 * per term as in the seeds' tables, the buffer granularity, and last:
 *
 *   total: <bit times> bit times, <bytes> bytes, <quanta> quanta, <n> cells
 *   of <cell-size> bytes = <bytes> bytes
 *
 * on one line, where the cells are the buffer units whatever the
 * granularity (1-byte "cells" for byte, mbufs for mbuf). */
void
pfc_headroom_format(struct ds *ds, const struct pfc_headroom_input *in,
                    const struct pfc_headroom_result *r)
{
    uint32_t n;

    ds_put_format(ds, "model: %s (%s)\n", pfc_headroom_model_name(in->model),
                  model_sources[in->model]);
    ds_put_format(ds, "speed: %"PRIu64" bit/s, cable-length: %"PRIu32" m\n"
                  "MTU[S]: %"PRIu32" bytes, MTU[R]: %"PRIu32" bytes\n",
                  in->speed, in->cable_length, in->class_mtu, in->port_mtu);
    ds_put_format(ds, "  %-26s %-35s %9s\n", "term", "detail", "bit times");
    for (size_t i = 0; i < r->n_terms; i++) {
        const struct pfc_headroom_term *t = &r->terms[i];

        ds_put_format(ds, "  %-26s %-35s %9"PRIu64"\n",
                      t->name, t->detail, t->bits);
    }
    switch (in->granularity) {
    case PFC_HEADROOM_BYTE:
        ds_put_cstr(ds, "buffer: contiguous bytes\n");
        break;
    case PFC_HEADROOM_CELL:
        n = DIV_ROUND_UP(r->worst_frame, r->cell_size);
        ds_put_format(ds, "buffer: %"PRIu32"-byte cells, worst case "
                      "%"PRIu32"-byte frames of %"PRIu32" cell%s\n",
                      r->cell_size, r->worst_frame, n, n == 1 ? "" : "s");
        break;
    case PFC_HEADROOM_MBUF:
        ds_put_format(ds, "buffer: one %"PRIu32"-byte mbuf per frame, worst "
                      "case %"PRIu32"-byte frames\n",
                      r->cell_size, r->worst_frame);
        break;
    default:
        OVS_NOT_REACHED();
    }
    ds_put_format(ds, "total: %"PRIu64" bit times, %"PRIu64" bytes, "
                  "%"PRIu64" quanta, %"PRIu64" cells of %"PRIu32" bytes = "
                  "%"PRIu64" bytes\n",
                  r->bits, r->bytes, r->quanta, r->cells, r->cell_size,
                  r->cell_bytes);
}

/* Runs the headroom calculator with the 'argc' key=value arguments in 'argv'
 * (pfc_headroom_parse()): on success appends the output of
 * pfc_headroom_format() to 'out' and returns NULL, otherwise returns an error
 * message, one line without a trailing new-line, that the caller must free.
 *
 * This is all of "ovs-appctl pfc/headroom" and of the ovs-pfc-headroom
 * program, which therefore print the same bytes.  It needs no DPDK and no
 * daemon. */
char *
pfc_headroom_run(int argc, const char *const argv[], struct ds *out)
{
    struct pfc_headroom_input in;
    struct pfc_headroom_result r;
    char *error = NULL;

    if (pfc_headroom_parse(argc, argv, &in, &error)) {
        return error;
    }
    if (pfc_headroom_compute(&in, &r)) {
        /* pfc_headroom_parse() checks every range, so this is a bug. */
        return xstrdup("pfc/headroom: inputs out of range");
    }
    pfc_headroom_format(out, &in, &r);
    return NULL;
}

static void
pfc_headroom_unixctl(struct unixctl_conn *conn, int argc, const char *argv[],
                     void *aux OVS_UNUSED)
{
    struct ds ds = DS_EMPTY_INITIALIZER;
    char *error = pfc_headroom_run(argc - 1, argv + 1, &ds);

    if (error) {
        unixctl_command_reply_error(conn, error);
        free(error);
    } else {
        unixctl_command_reply(conn, ds_cstr(&ds));
    }
    ds_destroy(&ds);
}

/* Registers "pfc/headroom [key=value]..." (lib/pfc-unixctl.man).  Calling it
 * again is harmless. */
void
pfc_headroom_register_commands(void)
{
    unixctl_command_register("pfc/headroom", "[key=value]...", 0, INT_MAX,
                             pfc_headroom_unixctl, NULL);
}
