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

#ifndef PFC_WD_H
#define PFC_WD_H 1

/* The PFC watchdog of a port: storm detection and restoration, in ticks of
 * a clock that the caller passes in (the TSC in the DPDK datapath).  Pure:
 * no clock, no locks, no DPDK; the opening comment of the watchdog below
 * gives the rules and their sources. */

#include <stdbool.h>
#include <stdint.h>

#include "pfc.h"

struct pfc_config;

/* PFC watchdog: storm detection and restoration.
 *
 * A link partner that keeps pausing a priority and never lets it go (a "PFC
 * storm": a stuck NIC, a host that stopped reading its rings, a pause
 * deadlock) holds that priority's traffic at this port's egress for ever.
 * Since held packets count against the XOFF threshold of the ports they
 * arrived on, the pause then spreads to every port that feeds it.  The
 * watchdog declares such a (port, priority) "stormed" and, depending on
 * watchdog-action, stops honouring its pauses until the partner has been
 * quiet for a while, as SONiC's pfcwd does.
 *
 * Each priority in pfc-enable is in one of two states:
 *
 *   operational --(detection)--> stormed --(restoration)--> operational
 *
 *   - Detection: for the whole of watchdog-detection-time the priority
 *     stayed paused, by XOFF refreshed before it ran out, never ended by an
 *     XON (time 0) or by expiry, and its traffic class had packets waiting
 *     that could not leave.
 *   - Restoration: watchdog-restoration-time passed, counted from the
 *     detection, with no PFC frame that pauses the priority (time[n] > 0),
 *     and the pause of the last one ran out (or an XON ended it): honouring
 *     a pause still in force would only start the next storm.  XON frames
 *     do not hold restoration back, so an XOFF storm that turns into an XON
 *     storm is restored too.  After restoration the priority honours pauses
 *     again and detection starts from scratch.
 *
 * The same rule restores a priority whatever the action, also "alert".
 *
 * A port without a MAC, such as a vhost-user port, receives no PFC frames:
 * its partner is a guest, which stops this switch's transmit by not
 * reading its receive queue (virtqueue).  For such a port a check interval
 * in which a receive queue refused packets and took none
 * (pfc_wd_vq_stalled()) stands in for a refreshed XOFF of every priority in
 * pfc-enable (pfc_wd_stall()): the guest stormed when it read nothing for
 * watchdog-detection-time while packets waited, and is restored once it
 * was not seen stalled for watchdog-restoration-time.  A guest that reads
 * slowly but reads is never stormed: that is backpressure working.  As
 * "forward" cannot send to a guest that does not read, both "drop" and
 * "forward" drop there: what the guest's queue refuses of a stormed
 * priority is dropped instead of held (pfc_wd_dropped()).
 *
 * A port with a MAC judges as SONiC's pfcwd does, from what blocks
 * transmission: "packets waiting, nothing sent".  Besides the pause timers,
 * a traffic class of a tx queue that held packets at two checks in a row
 * and sent none of them in between (pfc_wd_txq_stalled()) stands in for a
 * pause of its enabled priorities, if in that interval it could not send
 * (a pause as the transmit path sees it, which the pause-end rule of struct
 * pfc_rxq_drain may extend past its timer) or the tx queue sent no held
 * packet of any class (an egress that does not drain: a stuck NIC, a full
 * tx ring that never empties).  A class that waits behind other classes of
 * an egress that drains is congested, not stormed.
 *
 * This is the state machine only, pure like the pause timers: the caller
 * passes the clock in (ticks, the TSC in the DPDK datapath), tells
 * pfc_wd_frame() about every valid PFC frame the port receives and calls
 * pfc_wd_run() at every check (every PMD iteration), and applies the action
 * itself (pfc_wd_ignored(), pfc_wd_dropped()).  Detection is exact given the
 * checks: a storm is declared at the first check at least
 * watchdog-detection-time after the first check that saw the condition, so
 * within watchdog-detection-time plus one check interval of it. */

/* What a stormed priority does (other_config:watchdog-action).  The core only
 * reports it; the caller acts. */
enum pfc_wd_action {
    PFC_WD_DROP,        /* "drop" (default): pauses of the priority are
                         * ignored; its packets held and newly sent at this
                         * egress are dropped and counted, and so are its
                         * packets arriving on this port; held packets no
                         * longer count against ingress XOFF. */
    PFC_WD_FORWARD,     /* "forward": pauses of the priority are ignored; its
                         * held and new packets are sent. */
    PFC_WD_ALERT,       /* "alert": logged and counted only; pauses are
                         * still honoured. */
};

/* Watchdog configuration of a port, in ticks (pfc_wd_params_init()). */
struct pfc_wd_params {
    uint8_t enabled;            /* Bit n: priority n is in pfc-enable and so
                                 * watched.  Other priorities are never
                                 * stormed. */
    uint64_t detect_ticks;      /* watchdog-detection-time in ticks, or 0
                                 * for the watchdog off. */
    uint64_t restore_ticks;     /* watchdog-restoration-time in ticks.  0
                                 * restores at the first check after the
                                 * detection. */
    enum pfc_wd_action action;  /* watchdog-action. */
    bool guest;                 /* The port has no MAC (a vhost-user port):
                                 * pfc_wd_stall() stands in for PFC frames,
                                 * and "forward" drops as "drop" does. */
};

/* Watchdog state of a port: per priority, operational or stormed. */
struct pfc_wd {
    uint8_t stormed;                /* Bit n: priority n is stormed; clear:
                                     * operational. */
    uint8_t detecting;              /* Bit n: since[n] holds the start of a
                                     * detection interval still running. */
    uint64_t since[PFC_N_PRIOS];    /* Tick of the first check of the
                                     * current detection interval of priority
                                     * n: the priority has been paused by
                                     * XOFF, with packets waiting, at every
                                     * check since.  Meaningful only where
                                     * 'detecting' has bit n. */
    uint64_t last_xoff[PFC_N_PRIOS]; /* Tick of the last received PFC frame
                                      * that paused priority n (time[n] > 0)
                                      * while it was enabled, 0 if none.  0
                                      * needs no flag: restoration also
                                      * waits from stormed_at[n], which is
                                      * never earlier. */
    uint64_t stormed_at[PFC_N_PRIOS]; /* Tick at which the current, or the
                                       * last, storm of priority n was
                                       * detected; meaningful once
                                       * storms_detected[n] > 0. */
    uint64_t storms_detected[PFC_N_PRIOS]; /* operational -> stormed. */
    uint64_t storms_restored[PFC_N_PRIOS]; /* stormed -> operational, also
                                            * when the watchdog was turned
                                            * off or the priority left
                                            * pfc-enable. */
};

/* Returns the priorities whose pauses must be ignored: stormed with an action
 * other than "alert".  The caller leaves them out of the paused status vector
 * before it blocks traffic classes (pfc_tcs_blocked()); they honour pauses
 * again once restored.  With the watchdog off it returns 0 at once, even
 * before the next pfc_wd_run() restores them.  Inline: transmit paths ask. */
static inline uint8_t
pfc_wd_ignored(const struct pfc_wd *wd, const struct pfc_wd_params *params)
{
    return (params->detect_ticks && params->action != PFC_WD_ALERT
            ? wd->stormed & params->enabled : 0);
}

/* Returns the stormed priorities whose packets must be dropped (action
 * "drop"): those held and newly sent at this egress, and those arriving on
 * this port.  A subset of pfc_wd_ignored(). */
static inline uint8_t
pfc_wd_dropped(const struct pfc_wd *wd, const struct pfc_wd_params *params)
{
    return (params->action == PFC_WD_DROP || params->guest
            ? pfc_wd_ignored(wd, params) : 0);
}

/* What the watchdog of a port with a MAC saw of the traffic class queues of
 * one of its tx queues at the last check (pfc_wd_txq_stalled()). */
struct pfc_wd_txq {
    uint64_t left[PFC_N_PRIOS]; /* Per traffic class, held packets that left
                                 * for the tx ring, since the port was
                                 * bound. */
    uint8_t waiting;            /* Traffic classes that held packets. */
};

/* What the watchdog of a port without a MAC saw of one receive queue of its
 * guest at the last check (pfc_wd_vq_stalled()). */
struct pfc_wd_vq {
    uint64_t refused;   /* Transmit attempts that the queue refused, in
                         * part or whole, since the port was bound. */
    uint64_t taken;     /* Packets the queue took, since the same time. */
    uint64_t backlog;   /* Packets that waited for the queue at the check
                         * that began the current drain window... */
    uint64_t base;      /* ...and 'taken' then. */
};

struct pfc_config;
uint64_t pfc_ms_to_ticks(uint64_t hz, uint32_t ms);
void pfc_wd_params_init(struct pfc_wd_params *, const struct pfc_config *,
                        uint64_t hz);
void pfc_wd_init(struct pfc_wd *);
void pfc_wd_frame(struct pfc_wd *, const struct pfc_frame *, uint8_t enabled,
                  uint8_t began, uint64_t now);
uint8_t pfc_wd_run(struct pfc_wd *, const struct pfc_wd_params *,
                   uint8_t paused, uint8_t waiting, uint64_t now,
                   uint8_t *detected, uint8_t *restored);
bool pfc_wd_vq_stalled(struct pfc_wd_vq *, uint64_t refused, uint64_t taken,
                       uint64_t waiting);
uint8_t pfc_wd_txq_stalled(struct pfc_wd_txq *,
                           const uint64_t left[PFC_N_PRIOS], uint8_t waiting,
                           uint8_t blocked, bool shaped);
void pfc_wd_stall(struct pfc_wd *, uint8_t prios, uint8_t enabled,
                  uint64_t now);
const char *pfc_wd_action_name(enum pfc_wd_action);
bool pfc_wd_action_from_string(const char *, enum pfc_wd_action *);

#endif /* pfc-wd.h */
