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

#ifndef PFC_HOLDQ_H
#define PFC_HOLDQ_H 1

/* The traffic class queues of PFC: one bounded FIFO of held packets per
 * traffic class of each tx queue of a port.  A packet is "held" while it
 * waits to be handed to the NIC, because its class is paused, has older
 * packets waiting, or the tx ring was full (lib/pfc-send.h decides which).
 * Which packets a queue admits is the shared buffer's decision
 * (lib/pfc-buffer.h); this file only keeps them, in order.  Pure: no
 * clock, no locks (the caller serializes each queue), no DPDK. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pfc.h"

/* A packet held in a traffic class queue: it waits to be handed to the NIC
 * because its class is paused, has older packets waiting, or the tx ring
 * was full. */
struct pfc_held {
    void *pkt;                  /* The packet, opaque here. */
    uint32_t len;               /* Bytes it adds to the ingress buffer
                                 * occupancy of (in_port, prio). */
    uint16_t in_port;           /* Ingress port whose occupancy it adds
                                 * to, or UINT16_MAX for none. */
    uint8_t prio;               /* 802.1p priority, 0..7. */
    bool lossy;                 /* Admitted as lossy (lib/pfc-buffer.h):
                                 * charged to the shared pool and to no
                                 * priority group. */
};

/* A traffic class queue: a bounded FIFO of held packets, one per traffic
 * class of each tx queue of a port. */
struct pfc_holdq {
    struct pfc_held *ring;      /* 'cap' slots. */
    uint32_t cap;               /* Slots in 'ring', >= 'limit'. */
    uint32_t limit;             /* Packets pfc_holdq_push() accepts
                                 * (queue-size).  A reconfiguration can
                                 * leave more than this held
                                 * (pfc_holdq_append()). */
    uint32_t head;              /* Index of the oldest packet. */
    uint32_t n;                 /* Packets held, 0..cap. */
    uint32_t n_lossy;           /* Of which admitted as lossy. */
};

void pfc_holdq_init(struct pfc_holdq *, uint32_t cap);
void pfc_holdq_destroy(struct pfc_holdq *);
bool pfc_holdq_push(struct pfc_holdq *, const struct pfc_held *);
void pfc_holdq_reserve(struct pfc_holdq *, uint32_t n);
bool pfc_holdq_append(struct pfc_holdq *, const struct pfc_held *);
const struct pfc_held *pfc_holdq_peek(const struct pfc_holdq *, uint32_t i);
void pfc_holdq_pop(struct pfc_holdq *, uint32_t n);

/* Packets moved by pfc_holdq_regroup(), per priority. */
struct pfc_holdq_tally {
    uint64_t pkts[PFC_N_PRIOS];
    uint64_t bytes[PFC_N_PRIOS];
    uint32_t lossy[PFC_N_PRIOS];
};

void pfc_holdq_count_by_class(const struct pfc_holdq q[PFC_N_PRIOS],
                              const uint8_t prio_to_tc[PFC_N_PRIOS],
                              uint32_t need[PFC_N_PRIOS]);
void pfc_holdq_regroup(struct pfc_holdq from[PFC_N_PRIOS],
                       const uint8_t prio_to_tc[PFC_N_PRIOS],
                       struct pfc_holdq to[PFC_N_PRIOS],
                       struct pfc_holdq_tally *);
bool pfc_holdq_join(struct pfc_holdq *q, struct pfc_holdq *older,
                    uint64_t *copied);

#endif /* pfc-holdq.h */
