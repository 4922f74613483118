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
#include "pfc-send.h"

/* Returns the traffic classes of 'f' whose packets are held rather than
 * sent (rules 2 and 3 of lib/pfc-send.h), for a batch of 'bytes' bytes
 * (read only with a shaper). */
static uint8_t
pfc_send_hold_tcs(const struct pfc_send_facts *f, uint64_t bytes)
{
    if (!f->vhost && f->nonempty & ~f->blocked) {
        return 0xff;
    }
    if (f->tokens != INT64_MAX && f->tokens < (int64_t) bytes) {
        return 0xff;
    }
    return f->blocked | f->nonempty;
}

/* Decides, by the rules of lib/pfc-send.h, what becomes of the packets of a
 * batch on the tx queue whose facts are 'f'.  Every rule depends on a
 * packet's priority and on facts of the whole batch only, so the batch is
 * decided once, per priority: verdicts[p] receives the enum
 * pfc_send_verdict of every packet of priority p (0..7).  'bytes' is the
 * length of the whole batch in bytes, the frames as the NIC sends them
 * (read only when 'f' has a shaper, so 0 will do without one).  Returns the
 * priorities whose verdict is PFC_SEND_TX (bit p for priority p). */
uint8_t
pfc_send_decide(const struct pfc_send_facts *f, uint64_t bytes,
                uint8_t verdicts[PFC_N_PRIOS])
{
    /* Rule 1: on a vhost-user port a stormed priority is offered to the
     * guest; elsewhere it is dropped with action "drop", and otherwise
     * ignores pauses (pfc_blocked() no longer counts them) but keeps its
     * order behind what it holds. */
    uint8_t offered = f->vhost ? f->wd_ignored : 0;
    uint8_t dropped = f->vhost ? 0 : f->wd_ignored & f->wd_dropped;
    uint8_t hold = (pfc_tcs_prios(f->prio_to_tc, pfc_send_hold_tcs(f, bytes))
                    & ~offered & ~dropped);

    for (int p = 0; p < PFC_N_PRIOS; p++) {
        verdicts[p] = ((hold >> p) & 1 ? PFC_SEND_HOLD
                       : (dropped >> p) & 1 ? PFC_SEND_DROP_STORM
                       : PFC_SEND_TX);
    }
    return ~(hold | dropped);
}

/* Decides what becomes of the packets that pfc_send_decide() sent on the tx
 * queue whose facts are 'f' and that its tx ring refused, per priority:
 * verdicts[p] receives the enum pfc_send_verdict of every such packet of
 * priority p (0..7).  On a vhost-user port, dropped by the watchdog if
 * stormed; dropped while the link is down; dropped on a vhost-user port if
 * lossy; held otherwise. */
void
pfc_send_refused(const struct pfc_send_facts *f,
                 uint8_t verdicts[PFC_N_PRIOS])
{
    for (int p = 0; p < PFC_N_PRIOS; p++) {
        uint8_t bit = 1u << p;

        if (f->vhost && f->wd_ignored & bit) {
            verdicts[p] = PFC_SEND_DROP_STORM;
        } else if (f->down) {
            verdicts[p] = PFC_SEND_DROP_DOWN;
        } else if (f->vhost && !(f->lossless & bit)) {
            verdicts[p] = PFC_SEND_DROP_REFUSED;
        } else {
            verdicts[p] = PFC_SEND_HOLD;
        }
    }
}
