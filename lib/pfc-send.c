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
