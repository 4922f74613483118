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

/* The PFC watchdog (lib/pfc-wd.h). */

#include <config.h>
#include "pfc-wd.h"

#include <string.h>

#include "openvswitch/util.h"
#include "pfc-config.h"
#include "util.h"

/* Returns 'ms' milliseconds in ticks of a clock of 'hz' ticks per second
 * (> 0), rounded up so that no watchdog time is ever cut short, saturating
 * at UINT64_MAX. */
uint64_t
pfc_ms_to_ticks(uint64_t hz, uint32_t ms)
{
    unsigned __int128 t = ((unsigned __int128) hz * ms + 999) / 1000;

    return t > UINT64_MAX ? UINT64_MAX : (uint64_t) t;
}

/* Sets '*params' from the watchdog keys of 'cfg' (milliseconds) for a clock
 * of 'hz' ticks per second, the TSC frequency in the DPDK datapath.  The
 * priorities watched are those of pfc-enable. */
void
pfc_wd_params_init(struct pfc_wd_params *params, const struct pfc_config *cfg,
                   uint64_t hz)
{
    params->enabled = cfg->enabled;
    params->detect_ticks = pfc_ms_to_ticks(hz, cfg->wd_detect_ms);
    params->restore_ticks = pfc_ms_to_ticks(hz, cfg->wd_restore_ms);
    params->action = cfg->wd_action;
    params->guest = false;
}

/* For the watchdog of a port without a MAC: returns true if one receive
 * queue of its guest was stalled over the check interval that ends now: it
 * refused packets ('refused', the count of transmit attempts it refused in
 * part or whole, grew since the last check), and either took none ('taken',
 * the count of packets it took, did not grow) or has not yet taken, since
 * the check that began the current drain window, as many packets as were
 * waiting for it then.  'waiting' is the packets waiting for it now.
 *
 * The drain window is what "packets waiting, nothing sent" means for a
 * guest that reads a trickle: it takes some at times, never what waits.  A
 * guest that keeps up, however slowly, takes the backlog of each window
 * within a few checks; the check at which it did is not stalled, which ends
 * any detection interval, and begins the next window.  A queue that was not
 * offered anything is not stalled.  Updates '*seen'. */
bool
pfc_wd_vq_stalled(struct pfc_wd_vq *seen, uint64_t refused, uint64_t taken,
                  uint64_t waiting)
{
    bool refusing = refused != seen->refused;
    bool drained = taken - seen->base >= seen->backlog;
    bool stalled = refusing && (taken == seen->taken || !drained);

    if (drained) {
        seen->backlog = waiting;
        seen->base = taken;
    }
    seen->refused = refused;
    seen->taken = taken;
    return stalled;
}

/* For the watchdog of a port with a MAC: returns the traffic classes of one
 * of its tx queues that stalled over the check interval that ends now
 * ("packets waiting, nothing sent", as SONiC's pfcwd judges a queue): each
 * held packets at the last check and holds some now ('waiting', one bit per
 * class), sent none of them in between ('left[tc]', the count of held
 * packets of class tc that left for the tx ring, did not grow), and either
 * may not send now ('blocked', as the transmit path decides it, pauses
 * extended by the pause-end rule included) or the tx queue sent no held
 * packet of any class in between (the egress does not drain) and the port
 * shaper did not hold it back ('shaped' false).  A class that only waits
 * behind other classes of an egress that drains is not stalled: that is
 * congestion; nor is one that waits for the port shaper (max-rate), which
 * a large frame, such as a userspace TSO frame of up to 64 kB, leaves in
 * debt for as long as the rate takes to send it (262 ms at 2 Mb/s): that
 * is the switch's own doing, not the link partner's.  The caller passes the
 * priorities of the stalled classes to pfc_wd_run() with those its pause
 * timers pause.  Updates '*seen'. */
uint8_t
pfc_wd_txq_stalled(struct pfc_wd_txq *seen, const uint64_t left[PFC_N_PRIOS],
                   uint8_t waiting, uint8_t blocked, bool shaped)
{
    uint8_t idle = 0, stalled;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        idle |= (left[tc] == seen->left[tc]) << tc;
        seen->left[tc] = left[tc];
    }
    stalled = waiting & seen->waiting & idle;
    if (idle != 0xff || shaped) {
        /* Held packets left: the egress drains; or the shaper held it. */
        stalled &= blocked;
    }
    seen->waiting = waiting;
    return stalled;
}

/* Tells the watchdog 'wd' of a port without a MAC, whose pfc-enable is
 * 'enabled', that its guest stalled the priorities 'prios' over the check
 * interval that ends at tick 'now' (pfc_wd_vq_stalled()): for each of them
 * in 'enabled', as a PFC frame with time[n] > 0 would (pfc_wd_frame()), the
 * stall holds restoration back for watchdog-restoration-time.  Pass the
 * same 'prios' as 'paused' to pfc_wd_run() for the same check. */
void
pfc_wd_stall(struct pfc_wd *wd, uint8_t prios, uint8_t enabled, uint64_t now)
{
    for (uint8_t p = prios & enabled; p; p &= p - 1) {
        wd->last_xoff[raw_ctz(p)] = now;
    }
}

/* Initializes 'wd': every priority operational, no counts. */
void
pfc_wd_init(struct pfc_wd *wd)
{
    memset(wd, 0, sizeof *wd);
}

/* Returns the ticks from 'then' to 'now', or 0 if 'now' is not later: a
 * stamp taken a little after 'now' never makes an interval look long. */
static uint64_t
pfc_ticks_since(uint64_t now, uint64_t then)
{
    return now > then ? now - then : 0;
}

/* Tells the watchdog 'wd' about the valid PFC frame 'frame' received at tick
 * 'now' on a port whose pfc-enable is 'enabled'.  Call it for every such
 * frame, also for priorities whose pauses pfc_wd_ignored() ignores: their
 * XOFF frames hold restoration back.  'began' is what pfc_receive() returned
 * for the frame, the priorities whose pause began with it because the
 * previous one had ended, by XON or by expiry (0 if unknown).
 *
 * For each priority n in 'enabled' with e[n] = 1:
 *   - time[n] > 0 (XOFF, or its refresh): last_xoff[n] = now, which holds
 *     restoration back for watchdog-restoration-time;
 *   - time[n] = 0 (XON): the pause ended, so the current detection interval
 *     ends; restoration is not held back.
 * A pause in 'began' also ends the current detection interval: the previous
 * pause ended, even if both checks around the frame saw the priority
 * paused.  Priorities not in 'enabled' are ignored. */
void
pfc_wd_frame(struct pfc_wd *wd, const struct pfc_frame *frame,
             uint8_t enabled, uint8_t began, uint64_t now)
{
    uint8_t named = frame->enable & enabled;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint8_t bit = 1u << n;

        if (!(named & bit)) {
            continue;
        }
        if (frame->time[n]) {
            wd->last_xoff[n] = now;
        } else {
            wd->detecting &= ~bit;
        }
    }
    wd->detecting &= ~(began & enabled);
}

/* Runs one check of the watchdog 'wd' configured by 'params' at tick 'now'.
 * 'paused' has bit n if priority n is paused now by its pause timer (XOFF
 * not ended by XON nor expired, as pfc_paused_prios() says), whether or not
 * pfc_wd_ignored() ignores it.  'waiting' has bit n if the traffic class of
 * priority n holds packets that could not leave.
 *
 * For each priority n in params->enabled, with the watchdog on
 * (params->detect_ticks > 0):
 *
 *   - Operational: a check that sees n in both 'paused' and 'waiting' starts
 *     a detection interval at 'now' if none runs; a check that does not
 *     (expiry, XON or an empty queue), like an XON or a new pause seen by
 *     pfc_wd_frame(), ends it.  At the first check where now - since[n] >=
 *     params->detect_ticks, n becomes stormed: detected, counted in
 *     storms_detected[n], stormed_at[n] = now.
 *
 *   - Stormed: at the first check where both now - stormed_at[n] and now -
 *     last_xoff[n] are at least params->restore_ticks, n becomes operational
 *     again: restored, counted in storms_restored[n].  Detection starts from
 *     scratch at the next check.
 *
 * With the watchdog off (detect_ticks 0) nothing is watched, and every
 * stormed priority is restored at once, at this check.  So is a stormed
 * priority that left pfc-enable; and the detection interval of a priority
 * not watched ends.
 *
 * Stores in '*detected' and '*restored' the priorities that became stormed
 * and operational at this check, for the caller to log and act on, and
 * returns the stormed priorities after it. */
uint8_t
pfc_wd_run(struct pfc_wd *wd, const struct pfc_wd_params *params,
           uint8_t paused, uint8_t waiting, uint64_t now,
           uint8_t *detectedp, uint8_t *restoredp)
{
    uint8_t watched = params->detect_ticks ? params->enabled : 0;
    uint8_t detected = 0, restored = 0;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint8_t bit = 1u << n;

        if (!(watched & bit)) {
            restored |= wd->stormed & bit;
            wd->detecting &= ~bit;
            if (!(params->enabled & bit)) {
                wd->last_xoff[n] = 0;
            }
        } else if (wd->stormed & bit) {
            /* Not while the last XOFF's timer still runs: honouring that
             * pause again would only start the next storm. */
            if (pfc_ticks_since(now, wd->stormed_at[n])
                >= params->restore_ticks
                && pfc_ticks_since(now, wd->last_xoff[n])
                   >= params->restore_ticks
                && !(paused & bit)) {
                restored |= bit;
            }
        } else if (!(paused & waiting & bit)) {
            wd->detecting &= ~bit;
        } else if (!(wd->detecting & bit)) {
            wd->detecting |= bit;
            wd->since[n] = now;
        } else if (pfc_ticks_since(now, wd->since[n])
                   >= params->detect_ticks) {
            detected |= bit;
        }
    }

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        uint8_t bit = 1u << n;

        if (restored & bit) {
            wd->storms_restored[n]++;
        } else if (detected & bit) {
            wd->stormed_at[n] = now;
            wd->storms_detected[n]++;
        }
    }
    wd->stormed = (wd->stormed & ~restored) | detected;
    wd->detecting &= ~(restored | detected);

    *detectedp = detected;
    *restoredp = restored;
    return wd->stormed;
}
