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
#include "pfc-ets.h"

#include <errno.h>
#include <string.h>

#include "util.h"

/* Checks the TC bandwidths 'bw' of the ETS classes 'ets' (one bit per
 * class): each 1..100 percent, summing to 100 (802.1Q 37.3: the ETS classes
 * share 100% of what strict classes leave).  Returns 0, or EINVAL with a
 * message in '*errp' (the caller frees it). */
int
pfc_ets_validate(uint8_t ets, const uint8_t bw[PFC_ETS_N_TCS], char **errp)
{
    unsigned int sum = 0;

    for (int tc = 0; tc < PFC_ETS_N_TCS; tc++) {
        if (!((ets >> tc) & 1)) {
            continue;
        }
        if (bw[tc] < 1 || bw[tc] > 100) {
            *errp = xasprintf("queue %d: other_config:tc-bw=%u is out of "
                              "range: an ets traffic class takes 1 to 100 "
                              "(percent)", tc, bw[tc]);
            return EINVAL;
        }
        sum += bw[tc];
    }
    if (ets && sum != 100) {
        *errp = xasprintf("other_config:tc-bw of the ets queues sums to %u: "
                          "it must sum to 100 (percent)", sum);
        return EINVAL;
    }
    return 0;
}

/* Initializes 'p' for the ETS classes 'ets' with bandwidths 'bw' (valid
 * for pfc_ets_validate()) on a port whose largest frame is 'max_frame'
 * bytes. */
void
pfc_ets_params_init(struct pfc_ets_params *p, uint8_t ets,
                    const uint8_t bw[PFC_ETS_N_TCS], uint32_t max_frame)
{
    unsigned int min_bw = 100;
    uint32_t unit;

    memset(p, 0, sizeof *p);
    p->ets = ets;
    for (int tc = 0; tc < PFC_ETS_N_TCS; tc++) {
        if ((ets >> tc) & 1) {
            p->bw[tc] = bw[tc];
            min_bw = MIN(min_bw, MAX(bw[tc], 1));
        }
    }
    /* The smallest quantum holds the largest frame: a class then sends at
     * least one frame in each of its turns. */
    unit = DIV_ROUND_UP(MAX(max_frame, 64), min_bw);
    for (int tc = 0; tc < PFC_ETS_N_TCS; tc++) {
        p->quantum[tc] = p->bw[tc] * unit;
    }
}

/* Returns true if 'a' and 'b' schedule alike (a comparison of members, not
 * of padding). */
bool
pfc_ets_params_equal(const struct pfc_ets_params *a,
                     const struct pfc_ets_params *b)
{
    return (a->ets == b->ets
            && !memcmp(a->bw, b->bw, sizeof a->bw)
            && !memcmp(a->quantum, b->quantum, sizeof a->quantum));
}

void
pfc_ets_init(struct pfc_ets *s)
{
    memset(s, 0, sizeof *s);
}

/* Returns the next ETS class after 'tc' in 'set' (nonzero), cyclically. */
static int
next_in(uint8_t set, int tc)
{
    uint32_t after = set & ~((2u << tc) - 1);

    return raw_ctz(after ? after : set);
}

/* Returns the traffic class that sends next among 'ready' (one bit per
 * class with a backlog that no pause blocks), or -1 if 'ready' is 0.
 * head_len[tc] is the length, in bytes, of the packet at the head of each
 * ready class.  Sets '*budget' to the bytes the class may send in a row:
 * UINT64_MAX for a strict class; for an ETS class its deficit, at least
 * its head packet.  Report what it sent with pfc_ets_sent() before the
 * next call. */
int
pfc_ets_next(struct pfc_ets *s, const struct pfc_ets_params *p,
             uint8_t ready, const uint32_t head_len[PFC_ETS_N_TCS],
             uint64_t *budget)
{
    uint8_t strict = ready & ~p->ets;
    uint8_t ets = ready & p->ets;

    if (strict) {
        *budget = UINT64_MAX;
        return 63 - raw_clz64(strict);
    }
    if (!ets) {
        return -1;
    }
    /* A class that left the backlog, or that a pause blocks, loses the
     * credit of its turn (DRR). */
    for (uint32_t idle = p->ets & ~ready; idle; idle &= idle - 1) {
        s->deficit[raw_ctz(idle)] = 0;
    }
    for (;;) {
        int tc = s->cur;

        if ((ets >> tc) & 1 && s->deficit[tc] >= head_len[tc]) {
            *budget = s->deficit[tc];
            return tc;
        }
        /* Its turn ends: the next ready class starts its own. */
        tc = next_in(ets, tc);
        s->cur = tc;
        s->deficit[tc] += p->quantum[tc] ? p->quantum[tc] : head_len[tc];
    }
}

/* Of the 'n' packets at the head of the class queue that pfc_ets_next()
 * chose, whose lengths are lens[] (bytes), returns how many leave in one
 * burst: those that fit in its 'budget' (bytes) while fewer than 'tokens'
 * bytes (the shaper's, INT64_MAX without one, at least 1) were taken, and
 * always the first, so that a class whose turn it is always sends.  A frame
 * may thus take the shaper below zero by less than its own length. */
int
pfc_ets_burst(const uint32_t lens[], int n, uint64_t budget, int64_t tokens)
{
    uint64_t sum = 0;
    int k;

    for (k = 0; k < n; k++) {
        if (k && (sum + lens[k] > budget || sum >= (uint64_t) tokens)) {
            break;
        }
        sum += lens[k];
    }
    return k;
}

/* Reports that class 'tc', which pfc_ets_next() returned, sent 'bytes'. */
void
pfc_ets_sent(struct pfc_ets *s, const struct pfc_ets_params *p, int tc,
             uint64_t bytes)
{
    if (tc >= 0 && tc < PFC_ETS_N_TCS && (p->ets >> tc) & 1) {
        s->deficit[tc] -= bytes;
    }
}

/* Initializes 'p' for a shaper of 'rate' bit/s (0 for none) on a clock of
 * 'hz' cycles per second, for frames of up to 'max_frame' bytes.  The
 * period is at least 1000 cycles, so that rounding it to whole cycles
 * costs the rate at most 0.1%. */
void
pfc_shaper_params_init(struct pfc_shaper_params *p, uint64_t rate,
                       uint64_t hz, uint32_t max_frame)
{
    memset(p, 0, sizeof *p);
    if (!rate || !hz) {
        return;
    }
    p->rate = rate;
    /* bytes / period = rate / (8 x hz); rate x 1000 < 2^64 for rate up to
     * PFC_MAX_RATE_MAX. */
    p->bytes_per_period = MAX(1, DIV_ROUND_UP(rate * 1000, 8 * hz));
    p->period = MAX(1, p->bytes_per_period * 8 * hz / rate);
    p->depth = MAX(rate / 8 / 1000, 2 * (uint64_t) MAX(max_frame, 64));
}

/* Starts 's' full at TSC 'now'. */
void
pfc_shaper_init(struct pfc_shaper *s, const struct pfc_shaper_params *p,
                uint64_t now)
{
    s->tokens = p->depth;
    s->time = now;
}

/* Adds the tokens of the whole periods up to TSC 'now' to 's', up to the
 * bucket size, and returns the tokens, bytes: the frames at the head of a
 * queue may leave while this is positive (the last one may take it below
 * zero).  Always positive for a port without a shaper. */
int64_t
pfc_shaper_budget(struct pfc_shaper *s, const struct pfc_shaper_params *p,
                  uint64_t now)
{
    uint64_t n;

    if (!p->rate) {
        return INT64_MAX;
    }
    if (now <= s->time) {
        return s->tokens;
    }
    n = (now - s->time) / p->period;
    if (n) {
        /* Periods past a full bucket only move the time on. */
        uint64_t cap = (p->depth - MIN(s->tokens, p->depth))
                       / p->bytes_per_period + 1;

        s->tokens = MIN(p->depth,
                        s->tokens + (int64_t) (MIN(n, cap)
                                               * p->bytes_per_period));
        s->time += n * p->period;
    }
    return s->tokens;
}

/* Takes 'bytes' that left from 's'. */
void
pfc_shaper_take(struct pfc_shaper *s, uint64_t bytes)
{
    s->tokens -= bytes;
}
