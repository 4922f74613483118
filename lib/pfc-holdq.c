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

/* The traffic class queues of PFC (lib/pfc-holdq.h). */

#include <config.h>
#include "pfc-holdq.h"

#include <string.h>

#include "openvswitch/util.h"
#include "util.h"

/* Initializes 'q' as an empty queue that accepts 'limit' packets (>= 1). */
void
pfc_holdq_init(struct pfc_holdq *q, uint32_t limit)
{
    q->ring = xmalloc(limit * sizeof *q->ring);
    q->cap = q->limit = limit;
    q->head = 0;
    q->n = 0;
    q->n_lossy = 0;
}

/* Makes room in the ring of 'q' for at least 'n' packets, keeping those it
 * holds in order.  Allocates: the caller must not hold a lock that a PMD
 * thread may need.  Does not change the limit of pfc_holdq_push(). */
void
pfc_holdq_reserve(struct pfc_holdq *q, uint32_t n)
{
    struct pfc_held *ring;

    if (n <= q->cap) {
        return;
    }
    ring = xmalloc(n * sizeof *ring);
    for (uint32_t i = 0; i < q->n; i++) {
        ring[i] = *pfc_holdq_peek(q, i);
    }
    free(q->ring);
    q->ring = ring;
    q->cap = n;
    q->head = 0;
}

/* Appends 'h' at the tail of 'q', past its limit if need be, as long as its
 * ring has room (pfc_holdq_reserve()).  For packets that a reconfiguration
 * moves, which must not be lost.  Returns false if the ring is full. */
bool
pfc_holdq_append(struct pfc_holdq *q, const struct pfc_held *h)
{
    uint32_t tail;

    if (q->n >= q->cap) {
        return false;
    }
    tail = q->head + q->n;
    if (tail >= q->cap) {
        tail -= q->cap;
    }
    q->ring[tail] = *h;
    q->n++;
    q->n_lossy += h->lossy;
    return true;
}

/* Frees the queue's memory, not the packets it holds: the caller must have
 * popped them. */
void
pfc_holdq_destroy(struct pfc_holdq *q)
{
    free(q->ring);
    q->ring = NULL;
}

/* Appends 'h' at the tail of 'q'.  Returns false, holding nothing, if 'q' is
 * full. */
bool
pfc_holdq_push(struct pfc_holdq *q, const struct pfc_held *h)
{
    return q->n < q->limit && pfc_holdq_append(q, h);
}

/* Returns the 'i'th oldest packet in 'q', where i < q->n. */
const struct pfc_held *
pfc_holdq_peek(const struct pfc_holdq *q, uint32_t i)
{
    uint32_t idx = q->head + i;

    ovs_assert(i < q->n);
    return &q->ring[idx >= q->cap ? idx - q->cap : idx];
}

/* Removes the 'n' oldest packets (n <= q->n) from 'q'. */
void
pfc_holdq_pop(struct pfc_holdq *q, uint32_t n)
{
    ovs_assert(n <= q->n);
    if (q->n_lossy) {
        for (uint32_t i = 0; i < n; i++) {
            q->n_lossy -= pfc_holdq_peek(q, i)->lossy;
        }
    }
    q->head += n;
    if (q->head >= q->cap) {
        q->head -= q->cap;
    }
    q->n -= n;
}

/* Adds to need[] the packets that the class queues 'q' hold, per traffic
 * class that 'prio_to_tc' maps their priority to: the room that
 * pfc_holdq_regroup() needs in each class queue it appends to. */
void
pfc_holdq_count_by_class(const struct pfc_holdq q[PFC_N_PRIOS],
                         const uint8_t prio_to_tc[PFC_N_PRIOS],
                         uint32_t need[PFC_N_PRIOS])
{
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        for (uint32_t i = 0; i < q[tc].n; i++) {
            need[prio_to_tc[pfc_holdq_peek(&q[tc], i)->prio]]++;
        }
    }
}

/* Moves every packet that the class queues 'from' hold to the tail of the
 * queue in 'to' of the class that 'prio_to_tc' maps its priority to, past
 * that queue's limit if need be, and adds them, per priority, to 'tally'.
 * A priority's packets so stay in order (a bridge must not reorder the
 * frames of one priority between a source and a destination, IEEE 802.1Q
 * 8.6.6): all the held packets of a priority are in the queue of the one
 * class that it mapped to before, and they move together, oldest first.
 * Called once per source, oldest source first, it also keeps the order of
 * the sources.  The ring of each queue in 'to' must have room for what it
 * gets (pfc_holdq_count_by_class(), pfc_holdq_reserve()); a queue that gets
 * nothing may have no ring.  Leaves 'from' empty, with its rings. */
void
pfc_holdq_regroup(struct pfc_holdq from[PFC_N_PRIOS],
                  const uint8_t prio_to_tc[PFC_N_PRIOS],
                  struct pfc_holdq to[PFC_N_PRIOS],
                  struct pfc_holdq_tally *tally)
{
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        struct pfc_holdq *q = &from[tc];

        for (uint32_t i = 0; i < q->n; i++) {
            const struct pfc_held *h = pfc_holdq_peek(q, i);

            ovs_assert(pfc_holdq_append(&to[prio_to_tc[h->prio]], h));
            tally->pkts[h->prio]++;
            tally->bytes[h->prio] += h->len;
            tally->lossy[h->prio] += h->lossy;
        }
        q->head = q->n = q->n_lossy = 0;
    }
}

/* Puts the packets of 'older' ahead of those of 'q', in order: afterwards
 * 'q' holds both, with its own limit, and 'older' holds nothing but the
 * ring that 'q' did not keep, for the caller to free.  Copies the fewer of
 * the two queues' entries into the other's ring: 'older' to the head of
 * 'q', or 'q' to the tail of 'older', whose ring 'q' then takes.  Returns
 * false, changing nothing, if neither ring has room for both.  Allocates
 * nothing, for a caller that holds a lock which transmit threads wait for;
 * adds the entries it copied to '*copied'. */
bool
pfc_holdq_join(struct pfc_holdq *q, struct pfc_holdq *older,
               uint64_t *copied)
{
    bool head_room = q->cap - q->n >= older->n;
    bool tail_room = older->cap - older->n >= q->n;

    if (!older->n) {
        return true;
    }
    if (!head_room && !tail_room) {
        return false;
    }
    if (head_room && (older->n <= q->n || !tail_room)) {
        /* Newest of 'older' first, each in front of the one placed before
         * it. */
        for (uint32_t i = older->n; i > 0; i--) {
            q->head = q->head ? q->head - 1 : q->cap - 1;
            q->ring[q->head] = *pfc_holdq_peek(older, i - 1);
        }
        *copied += older->n;
        q->n += older->n;
        q->n_lossy += older->n_lossy;
        older->head = older->n = older->n_lossy = 0;
    } else {
        struct pfc_holdq tmp = *older;
        uint32_t limit = q->limit;

        for (uint32_t i = 0; i < q->n; i++) {
            ovs_assert(pfc_holdq_append(&tmp, pfc_holdq_peek(q, i)));
        }
        *copied += q->n;
        *older = *q;
        older->head = older->n = older->n_lossy = 0;
        *q = tmp;
        q->limit = limit;
    }
    return true;
}
