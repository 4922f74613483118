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

#ifndef PFC_ECN_H
#define PFC_ECN_H 1

/* ECN marking on the traffic classes of a PFC port (RFC 3168), as DCTCP
 * and RoCE's DCQCN expect: once a class queues more than a threshold, the
 * packets that join it that are ECN-capable get Congestion Experienced
 * (CE), so that their senders slow down before a pause is needed.  As a
 * WRED profile with ECN on (SAI, SONiC's WRED_PROFILE), with green
 * thresholds only:
 *
 *   - below ecn-min-threshold bytes queued in the class, nothing is marked;
 *
 *   - between ecn-min-threshold and ecn-max-threshold, an ECN-capable
 *     packet is marked with a probability that rises linearly from 0 to
 *     ecn-max-probability percent, as RED's;
 *
 *   - from ecn-max-threshold on, every ECN-capable packet is marked.
 *
 * With min = max this is DCTCP's step marking at K.  The queue judged is
 * the one the packet joins, at the moment it joins it (the instantaneous
 * queue that DCTCP's K assumes).  Not-ECT packets are never marked, and
 * never dropped for ECN: a lossless class drops nothing, and a lossy one
 * keeps its own limit (lib/pfc-buffer.h).
 *
 * Pure: no DPDK, no clock; the caller passes a random number in. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct smap;

/* Largest threshold, bytes: the buffer's 65,536 cells of 9,216 bytes. */
#define PFC_ECN_THRESHOLD_MAX (UINT64_C(65536) * 9216)

/* The ECN keys of one traffic class (a Queue row), or of every class (the
 * QoS row's default). */
struct pfc_ecn_params {
    bool on;                    /* The thresholds are set. */
    uint64_t min_bytes;         /* ecn-min-threshold, bytes. */
    uint64_t max_bytes;         /* ecn-max-threshold, bytes, >= min. */
    uint32_t max_prob;          /* ecn-max-probability, percent, 1..100
                                 * (default 100). */
};

/* The ECN field of an IP header (RFC 3168 section 5). */
enum pfc_ecn_field {
    PFC_ECN_NOT_IP = -1,        /* No IPv4 or IPv6 header found. */
    PFC_ECN_NOT_ECT = 0,
    PFC_ECN_ECT1 = 1,
    PFC_ECN_ECT0 = 2,
    PFC_ECN_CE = 3,
};

int pfc_ecn_parse(const struct smap *details, const char *where,
                  struct pfc_ecn_params *, char **errp);
void pfc_ecn_to_smap(const struct pfc_ecn_params *, struct smap *details);
bool pfc_ecn_equal(const struct pfc_ecn_params *,
                   const struct pfc_ecn_params *);
bool pfc_ecn_decide(const struct pfc_ecn_params *, uint64_t queued,
                    uint32_t rnd);
uint32_t pfc_ecn_ppm(const struct pfc_ecn_params *, uint64_t queued);
enum pfc_ecn_field pfc_ecn_mark(void *frame, size_t len, bool mark);

#endif /* pfc-ecn.h */
