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

#ifndef PFC_ETS_H
#define PFC_ETS_H 1

/* Enhanced Transmission Selection (IEEE 802.1Q-2018 8.6.8, 37; 802.1Qaz):
 * which traffic class of an egress sends next, and a port shaper.
 *
 * Each of the eight traffic classes of a port has a Transmission Selection
 * Algorithm (TSA):
 *
 *   - Strict priority (802.1Q 8.6.8.1): a strict class with a frame to send
 *     is served before any lower strict class and before every ETS class;
 *     among strict classes, the highest class number first.
 *
 *   - ETS (802.1Q 8.6.8.3, 37.3): the classes with this TSA share what the
 *     strict classes leave, in proportion to their TC bandwidth, a
 *     percentage (the ETS classes of a port sum to 100).  This scheduler is
 *     deficit round robin (Shreedhar and Varghese, 1995): in each round, an
 *     ETS class with a backlog gets a quantum of bytes in proportion to its
 *     bandwidth and sends while its head packet fits in its deficit.
 *
 * Only classes that are ready take part: classes with a backlog whose
 * transmission is not blocked (a PFC pause, lib/pfc.h).  A paused class is
 * skipped and loses the credit of its turn, so that its share goes to the
 * other classes for as long as it is paused (work-conserving), and it does
 * not burst when the pause ends.
 *
 * The default, when no Queue sets a TSA, is strict priority for every
 * class: the default of 802.1Q 8.6.8 (Table 8-6 "strict priority" for each
 * traffic class) and of the ETS Configuration TLV a DCBX port sends before it
 * is configured (802.1Q D.2.9.8).
 *
 * The scheduler decides; it does not drop.  Which packets a traffic class
 * queue admits is the shared buffer's decision (lib/pfc-buffer.h).
 *
 * The port shaper (QoS other_config:max-rate) is a token bucket in bytes,
 * in the manner of DPDK's rte_meter: tokens accrue by whole periods of TSC
 * cycles, so that the rate has no rounding drift.  It makes the switch the
 * bottleneck of a port, so that the scheduler has a backlog to share.
 *
 * Like DPDK's rte_meter, this is pure: the clock is passed in, in TSC
 * cycles, and the caller provides the locking.  The DPDK glue keeps one
 * struct pfc_ets per tx queue (under the tx queue's lock) and one shaper per
 * port. */

#include <stdbool.h>
#include <stdint.h>

#define PFC_ETS_N_TCS 8

/* Transmission Selection Algorithm identifiers (802.1Q Table 8-6, as the ETS
 * TLVs carry them, D.2.9.8). */
enum pfc_tsa {
    PFC_TSA_STRICT = 0,
    PFC_TSA_ETS = 2,
};

/* Scheduling parameters of one port. */
struct pfc_ets_params {
    uint8_t ets;                        /* Bit tc set: class tc uses ETS;
                                         * the others strict priority. */
    uint8_t bw[PFC_ETS_N_TCS];          /* TC bandwidth, percent: 1..100
                                         * for ETS classes, summing to 100;
                                         * 0 for strict classes. */
    uint32_t quantum[PFC_ETS_N_TCS];    /* Bytes an ETS class may send per
                                         * round: bw x an even share of the
                                         * largest frame, so that the
                                         * smallest quantum is at least one
                                         * frame. */
};

/* Deficit round robin state of one egress queue set (a tx queue). */
struct pfc_ets {
    int64_t deficit[PFC_ETS_N_TCS];     /* Bytes each ETS class may still
                                         * send in its turn. */
    uint8_t cur;                        /* The ETS class whose turn it
                                         * is. */
};

int pfc_ets_validate(uint8_t ets, const uint8_t bw[PFC_ETS_N_TCS],
                     char **errp);
void pfc_ets_params_init(struct pfc_ets_params *, uint8_t ets,
                         const uint8_t bw[PFC_ETS_N_TCS], uint32_t max_frame);
bool pfc_ets_params_equal(const struct pfc_ets_params *,
                          const struct pfc_ets_params *);
void pfc_ets_init(struct pfc_ets *);
int pfc_ets_next(struct pfc_ets *, const struct pfc_ets_params *,
                 uint8_t ready, const uint32_t head_len[PFC_ETS_N_TCS],
                 uint64_t *budget);
int pfc_ets_burst(const uint32_t lens[], int n, uint64_t budget,
                  int64_t tokens);
void pfc_ets_sent(struct pfc_ets *, const struct pfc_ets_params *, int tc,
                  uint64_t bytes);

/* Port shaper (QoS other_config:max-rate). */
#define PFC_MAX_RATE_MIN 1000000ULL           /* 1 Mb/s. */
#define PFC_MAX_RATE_MAX 1000000000000ULL     /* 1 Tb/s. */

struct pfc_shaper_params {
    uint64_t rate;              /* bit/s, 0 for no shaper. */
    uint64_t period;            /* TSC cycles per refill period. */
    uint64_t bytes_per_period;  /* Bytes that one period adds. */
    int64_t depth;              /* Bucket size, bytes: 1 ms at 'rate', at
                                 * least two of the largest frames. */
};

struct pfc_shaper {
    int64_t tokens;             /* Bytes.  A frame leaves while tokens > 0,
                                 * so a queue takes it at most one frame
                                 * below zero; tx queues that send at once
                                 * may each do so. */
    uint64_t time;              /* TSC cycles up to which periods were
                                 * added. */
};

void pfc_shaper_params_init(struct pfc_shaper_params *, uint64_t rate,
                            uint64_t hz, uint32_t max_frame);
void pfc_shaper_init(struct pfc_shaper *, const struct pfc_shaper_params *,
                     uint64_t now);
int64_t pfc_shaper_budget(struct pfc_shaper *,
                          const struct pfc_shaper_params *, uint64_t now);
void pfc_shaper_take(struct pfc_shaper *, uint64_t bytes);

#endif /* pfc-ets.h */
