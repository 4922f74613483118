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
 * sent (rules 2 and 3 of lib/pfc-send.h), for the 'n' packets of lengths
 * 'lens' (bytes; read only with a shaper). */
static uint8_t
pfc_send_hold_tcs(const struct pfc_send_facts *f, const uint32_t lens[],
                  int n)
{
    if (!f->vhost && f->nonempty & ~f->blocked) {
        return 0xff;
    }
    if (f->tokens != INT64_MAX) {
        uint64_t bytes = 0;

        for (int i = 0; i < n; i++) {
            bytes += lens[i];
        }
        if (f->tokens < (int64_t) bytes) {
            return 0xff;
        }
    }
    return f->blocked | f->nonempty;
}

/* Decides, by the rules of lib/pfc-send.h, what becomes of each of the 'n'
 * packets (n >= 0) of a batch on the tx queue whose facts are 'f': packet
 * i has priority prios[i] (0..7) and length lens[i] (bytes, the frame as
 * the NIC sends it; 'lens' may be NULL when 'f' has no shaper).  Stores an
 * enum pfc_send_verdict into verdicts[i]. */
void
pfc_send_decide(const struct pfc_send_facts *f, const uint8_t prios[],
                const uint32_t lens[], int n, uint8_t verdicts[])
{
    uint8_t hold = pfc_tcs_prios(f->prio_to_tc,
                                 pfc_send_hold_tcs(f, lens, n));

    for (int i = 0; i < n; i++) {
        uint8_t bit = 1u << (prios[i] & (PFC_N_PRIOS - 1));

        if (f->wd_ignored & bit) {
            if (f->vhost) {
                verdicts[i] = PFC_SEND_TX;
                continue;
            }
            if (f->wd_dropped & bit) {
                verdicts[i] = PFC_SEND_DROP_STORM;
                continue;
            }
        }
        verdicts[i] = hold & bit ? PFC_SEND_HOLD : PFC_SEND_TX;
    }
}

/* Decides what becomes of the 'n' packets, of priorities prios[] (0..7),
 * that pfc_send_decide() sent on the tx queue whose facts are 'f' and that
 * its tx ring refused: on a vhost-user port, dropped by the watchdog if
 * stormed; dropped while the link is down; dropped on a vhost-user port if
 * lossy; held otherwise.  Stores an enum
 * pfc_send_verdict into verdicts[i]. */
void
pfc_send_refused(const struct pfc_send_facts *f, const uint8_t prios[],
                 int n, uint8_t verdicts[])
{
    for (int i = 0; i < n; i++) {
        uint8_t bit = 1u << (prios[i] & (PFC_N_PRIOS - 1));

        if (f->vhost && f->wd_ignored & bit) {
            verdicts[i] = PFC_SEND_DROP_STORM;
        } else if (f->down) {
            verdicts[i] = PFC_SEND_DROP_DOWN;
        } else if (f->vhost && !(f->lossless & bit)) {
            verdicts[i] = PFC_SEND_DROP_REFUSED;
        } else {
            verdicts[i] = PFC_SEND_HOLD;
        }
    }
}
