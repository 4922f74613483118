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

/* Moves the packets that 'q' holds, in order, into '*ring', a ring of 'cap'
 * slots that the caller allocated (cap >= q->n), which 'q' uses from now
 * on, and returns its old ring in '*ring' for the caller to free.  For a
 * caller that must not allocate: the copy is all it does.  Does not change
 * the limit of pfc_holdq_push(). */
void
pfc_holdq_swap_ring(struct pfc_holdq *q, struct pfc_held **ring, uint32_t cap)
{
    struct pfc_held *old = q->ring;

    ovs_assert(cap >= q->n);
    for (uint32_t i = 0; i < q->n; i++) {
        (*ring)[i] = *pfc_holdq_peek(q, i);
    }
    q->ring = *ring;
    q->cap = cap;
    q->head = 0;
    *ring = old;
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

/* After a change of the priority to traffic class map 'prio_to_tc', moves
 * the packets held in the class queues 'q' whose priority now maps to
 * another class to the tail of that class's queue.  A priority's packets so
 * stay in order (a bridge must not reorder the frames of one priority
 * between a source and a destination, IEEE 802.1Q): those held before the
 * change leave before those held after it, which the new queue gets.  All
 * held packets of a priority are in the queue of the class it mapped to
 * before (each change calls this), and they move together, in order.
 * Packets that stay keep their place.  A packet that does not fit in its new
 * queue is stored in 'dropped', for the caller to free and count.  'moved'
 * (scratch) and 'dropped' must each have room for every held packet
 * (pfc_holdq_room()), so that this allocates nothing: the caller may hold a
 * lock that transmit threads wait for.  Returns how many were dropped. */
size_t
pfc_holdq_remap(struct pfc_holdq q[PFC_N_PRIOS],
                const uint8_t prio_to_tc[PFC_N_PRIOS],
                struct pfc_held *moved, struct pfc_held *dropped)
{
    size_t n_moved = 0, n_dropped = 0;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        /* Rotate the queue once: packets that stay go back to its tail. */
        for (uint32_t i = 0, n = q[tc].n; i < n; i++) {
            struct pfc_held h = *pfc_holdq_peek(&q[tc], 0);

            pfc_holdq_pop(&q[tc], 1);
            if (prio_to_tc[h.prio] == tc) {
                pfc_holdq_append(&q[tc], &h);
            } else {
                moved[n_moved++] = h;
            }
        }
    }
    for (size_t i = 0; i < n_moved; i++) {
        if (!pfc_holdq_push(&q[prio_to_tc[moved[i].prio]], &moved[i])) {
            dropped[n_dropped++] = moved[i];
        }
    }
    return n_dropped;
}

/* Moves the packets that the class queues 'src' hold to the head of the
 * queue of the same class in 'dst', ahead of the packets there, keeping
 * their order: for a transmit path that moves from one queue to another
 * (a guest that disables a queue pair), the packets a flow left in 'src'
 * are older than those it has since queued in 'dst', and leave first.  A
 * packet moves if the ring of its new queue has a slot (past its limit if
 * need be, as pfc_holdq_append()); those that find none, the oldest of
 * their class, stay in 'src' for the caller to free and count.  Moves no
 * charge: the caller keeps the packets' buffer occupancy.  Allocates
 * nothing.  Returns how many packets moved. */
size_t
pfc_holdq_merge(struct pfc_holdq dst[PFC_N_PRIOS],
                struct pfc_holdq src[PFC_N_PRIOS])
{
    size_t n_moved = 0;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        struct pfc_holdq *d = &dst[tc], *s = &src[tc];
        uint32_t fit = MIN(d->cap - d->n, s->n);

        /* Newest first, each in front of the one placed before it. */
        for (uint32_t i = 0; i < fit; i++) {
            const struct pfc_held *h = pfc_holdq_peek(s, s->n - 1);

            d->head = d->head ? d->head - 1 : d->cap - 1;
            d->ring[d->head] = *h;
            d->n++;
            d->n_lossy += h->lossy;
            s->n_lossy -= h->lossy;
            s->n--;
        }
        n_moved += fit;
    }
    return n_moved;
}

/* Returns how many packets the class queues 'q' can hold at most (the sum
 * of their ring sizes): room enough for pfc_holdq_remap(). */
size_t
pfc_holdq_room(const struct pfc_holdq q[PFC_N_PRIOS])
{
    size_t room = 0;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        room += q[tc].cap;
    }
    return room;
}
