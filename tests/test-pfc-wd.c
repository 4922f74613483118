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

/* Unit tests of lib/pfc-wd.c, the PFC watchdog: detection, restoration and
 * what each action ignores and drops, on a port with a MAC and on a guest,
 * with a fake clock; and its keys. */

#include <config.h>
#undef NDEBUG
#include "pfc-wd.h"

#include <errno.h>
#include <string.h>

#include "command-line.h"
#include "openvswitch/util.h"
#include "ovstest.h"
#include "pfc.h"
#include "pfc-config.h"
#include "smap.h"
#include "test-pfc-parse.h"
#include "util.h"

static const struct pfc_timebase tb10g = { 1000000000, 10000000000ULL };

/* A PFC frame that names only priority 'prio', with pause time 'time'. */
static struct pfc_frame
frame1(int prio, uint16_t time)
{
    struct pfc_frame f;

    memset(&f, 0, sizeof f);
    f.enable = 1u << prio;
    f.time[prio] = time;
    return f;
}

/* PFC watchdog.  With hz = 1e9 one tick is one nanosecond. */
#define WD_HZ 1000000000ULL
#define MS 1000000ULL
#define US 1000ULL

static struct pfc_wd_params
wd_params(uint8_t enabled, uint32_t detect_ms, uint32_t restore_ms,
          enum pfc_wd_action action)
{
    struct pfc_wd_params p = {
        .enabled = enabled,
        .detect_ticks = pfc_ms_to_ticks(WD_HZ, detect_ms),
        .restore_ticks = pfc_ms_to_ticks(WD_HZ, restore_ms),
        .action = action,
    };

    return p;
}

/* Runs one watchdog check at 'now' and asserts the priorities it detects
 * and restores; returns the stormed vector. */
static uint8_t
wd_check(struct pfc_wd *wd, const struct pfc_wd_params *p, uint8_t paused,
         uint8_t waiting, uint64_t now, uint8_t want_detected,
         uint8_t want_restored)
{
    uint8_t detected = 0xee, restored = 0xee;
    uint8_t stormed = pfc_wd_run(wd, p, paused, waiting, now, &detected,
                                 &restored);

    if (detected != want_detected || restored != want_restored) {
        ovs_fatal(0, "watchdog check at %"PRIu64": detected 0x%02x, "
                  "restored 0x%02x; want 0x%02x, 0x%02x", now, detected,
                  restored, want_detected, want_restored);
    }
    ovs_assert(stormed == wd->stormed);
    return stormed;
}

/* Checks every 'step' ticks from 'from' (included) to 'to' (excluded), with
 * 'paused' and 'waiting', asserting that nothing is detected or restored. */
static void
wd_quiet(struct pfc_wd *wd, const struct pfc_wd_params *p, uint8_t paused,
         uint8_t waiting, uint64_t from, uint64_t to, uint64_t step)
{
    for (uint64_t t = from; t < to; t += step) {
        wd_check(wd, p, paused, waiting, t, 0, 0);
    }
}

/* Tells the watchdog about a PFC frame naming only priority 'prio'. */
static void
wd_frame1(struct pfc_wd *wd, uint8_t enabled, int prio, uint16_t time,
          uint8_t began, uint64_t now)
{
    struct pfc_frame f = frame1(prio, time);

    pfc_wd_frame(wd, &f, enabled, began, now);
}

/* Detection: exactly at watchdog-detection-time of continuous pause with
 * packets waiting, counted from the first check that saw it, not one tick
 * earlier; only for enabled priorities; each priority on its own; and what
 * each action ignores and drops. */
static void
test_wd_detect(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_wd_params p = wd_params(0x08, 200, 400, PFC_WD_DROP);
    struct pfc_config cfg;
    struct pfc_wd wd;

    /* Milliseconds to ticks, rounded up. */
    ovs_assert(pfc_ms_to_ticks(2500000000ULL, 200) == 500000000);
    ovs_assert(pfc_ms_to_ticks(WD_HZ, 0) == 0);
    ovs_assert(pfc_ms_to_ticks(3, 1) == 1);
    ovs_assert(pfc_ms_to_ticks(UINT64_MAX, 60000) == UINT64_MAX);
    ovs_assert(p.detect_ticks == 200 * MS && p.restore_ticks == 400 * MS);

    /* Parameters from the default configuration at a 2.5 GHz TSC. */
    PARSE(&cfg, 0, NULL, "pfc-enable", "3");
    pfc_wd_params_init(&p, &cfg, 2500000000ULL);
    ovs_assert(p.enabled == 0x08 && p.action == PFC_WD_DROP);
    ovs_assert(p.detect_ticks == 500000000ULL);
    ovs_assert(p.restore_ticks == 1000000000ULL);
    p = wd_params(0x08, 200, 400, PFC_WD_DROP);

    /* Paused with packets waiting from tick 0 (a valid TSC value, not a
     * sentinel), checked every millisecond: stormed at exactly 200 ms. */
    pfc_wd_init(&wd);
    wd_quiet(&wd, &p, 0x08, 0x08, 0, 200 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, 200 * MS - 1, 0, 0);
    ovs_assert(!pfc_wd_ignored(&wd, &p) && !pfc_wd_dropped(&wd, &p));
    ovs_assert(wd_check(&wd, &p, 0x08, 0x08, 200 * MS, 0x08, 0) == 0x08);
    ovs_assert(wd.storms_detected[3] == 1 && wd.storms_restored[3] == 0);
    ovs_assert(wd.stormed_at[3] == 200 * MS);
    /* Detected once: later checks change nothing. */
    wd_quiet(&wd, &p, 0x08, 0x08, 201 * MS, 300 * MS, MS);
    ovs_assert(wd.stormed == 0x08 && wd.storms_detected[3] == 1);

    /* The actions. */
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0x08);
    ovs_assert(pfc_wd_dropped(&wd, &p) == 0x08);
    p.action = PFC_WD_FORWARD;
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0x08);
    ovs_assert(pfc_wd_dropped(&wd, &p) == 0);
    p.action = PFC_WD_ALERT;
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0);
    ovs_assert(pfc_wd_dropped(&wd, &p) == 0);

    /* Sparse checks: stormed at the first check at least 200 ms after the
     * first that saw the condition. */
    p = wd_params(0x08, 200, 400, PFC_WD_DROP);
    pfc_wd_init(&wd);
    wd_check(&wd, &p, 0x08, 0x08, 5 * MS, 0, 0);
    wd_check(&wd, &p, 0x08, 0x08, 155 * MS, 0, 0);
    wd_check(&wd, &p, 0x08, 0x08, 205 * MS - 1, 0, 0);
    wd_check(&wd, &p, 0x08, 0x08, 255 * MS, 0x08, 0);

    /* A priority not in pfc-enable is never stormed; two enabled priorities
     * are stormed each on its own clock. */
    p = wd_params(0x28, 200, 60000, PFC_WD_DROP);
    pfc_wd_init(&wd);
    wd_quiet(&wd, &p, 0x18, 0x18, 0, 50 * MS, MS);
    wd_quiet(&wd, &p, 0x38, 0x38, 50 * MS, 200 * MS, MS);
    wd_check(&wd, &p, 0x38, 0x38, 200 * MS, 0x08, 0);
    wd_quiet(&wd, &p, 0x38, 0x38, 201 * MS, 250 * MS, MS);
    wd_check(&wd, &p, 0x38, 0x38, 250 * MS, 0x20, 0);
    wd_quiet(&wd, &p, 0x38, 0x38, 251 * MS, 5000 * MS, MS);
    ovs_assert(wd.stormed == 0x28 && wd.storms_detected[3] == 1
               && wd.storms_detected[5] == 1 && !wd.storms_detected[4]);

    /* Random check intervals, 1 tick to 1 ms: stormed at the first check
     * with now - first >= 200 ms, never before, so within detection time
     * plus one check interval. */
    random_set_seed(0x3d0);
    for (int round = 0; round < 20; round++) {
        uint64_t first = (uint64_t) random_range(1000000) * 1000;
        uint64_t t = first;

        p = wd_params(0x80, 200, 400, PFC_WD_FORWARD);
        pfc_wd_init(&wd);
        for (;;) {
            bool due = t - first >= 200 * MS;

            wd_check(&wd, &p, 0x80, 0x80, t, due ? 0x80 : 0, 0);
            if (due) {
                break;
            }
            t += 1 + random_range(MS);
        }
        ovs_assert(t - first < 201 * MS);
    }
    printf("wd-detect: ok\n");
}

/* Detection needs the condition at every check and no frame that ends the
 * pause in between: an XON, an expiry, a new pause or an empty queue starts
 * it again.  A partner that pauses and releases 100 times a second, with
 * XON or by expiry, is never stormed. */
static void
test_wd_no_false_alarm(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_wd_params p = wd_params(0x08, 200, 400, PFC_WD_DROP);
    struct pfc_wd wd;

    /* An XON, then a new XOFF, between two checks that both see the priority
     * paused: the interval starts again at the next check. */
    pfc_wd_init(&wd);
    wd_quiet(&wd, &p, 0x08, 0x08, 0, 100 * MS + 1, MS);
    wd_frame1(&wd, 0x08, 3, 0, 0, 100 * MS + 500 * US);
    wd_frame1(&wd, 0x08, 3, 65535, 0, 100 * MS + 600 * US);
    wd_quiet(&wd, &p, 0x08, 0x08, 101 * MS, 301 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, 301 * MS, 0x08, 0);

    /* A pause that expired and a new one that began between two checks
     * ('began', from pfc_receive()): the same. */
    pfc_wd_init(&wd);
    wd_quiet(&wd, &p, 0x08, 0x08, 0, 100 * MS + 1, MS);
    wd_frame1(&wd, 0x08, 3, 65535, 0x08, 100 * MS + 500 * US);
    wd_quiet(&wd, &p, 0x08, 0x08, 101 * MS, 301 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, 301 * MS, 0x08, 0);

    /* A refresh (no new pause) or a frame for other priorities does not. */
    pfc_wd_init(&wd);
    wd_quiet(&wd, &p, 0x08, 0x08, 0, 100 * MS + 1, MS);
    wd_frame1(&wd, 0x08, 3, 65535, 0, 100 * MS + 500 * US);
    wd_frame1(&wd, 0x08, 4, 0, 0x10, 100 * MS + 600 * US);
    wd_frame1(&wd, 0x18, 4, 0, 0x10, 100 * MS + 700 * US);
    wd_quiet(&wd, &p, 0x08, 0x08, 101 * MS, 200 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, 200 * MS, 0x08, 0);

    /* One check that sees the pause expired, or the queue empty. */
    for (int i = 0; i < 2; i++) {
        pfc_wd_init(&wd);
        wd_quiet(&wd, &p, 0x08, 0x08, 0, 100 * MS, MS);
        wd_check(&wd, &p, i ? 0x08 : 0, i ? 0 : 0x08, 100 * MS, 0, 0);
        wd_quiet(&wd, &p, 0x08, 0x08, 101 * MS, 301 * MS, MS);
        wd_check(&wd, &p, 0x08, 0x08, 301 * MS, 0x08, 0);
    }

    /* Packets waiting without a pause (a full tx ring), or a pause with
     * nothing waiting: never. */
    pfc_wd_init(&wd);
    wd_quiet(&wd, &p, 0, 0x08, 0, 1000 * MS, MS);
    wd_quiet(&wd, &p, 0x08, 0, 1000 * MS, 2000 * MS, MS);

    /* A partner that pauses priority 3 a hundred times a second for 10 s,
     * through the real pause timers: XOFF of 65535 quanta (3.36 ms at
     * 10 Gb/s) refreshed every millisecond for 5 ms, then XON; packets
     * always waiting; a check every 50 us.  Then the same partner without
     * XON: each pause of one frame ends by expiry. */
    for (int xon = 1; xon >= 0; xon--) {
        struct pfc_counters c;
        struct pfc_pause pause;
        uint64_t t;

        memset(&c, 0, sizeof c);
        pfc_pause_init(&pause);
        pfc_wd_init(&wd);
        for (t = 0; t < 10000 * MS; t += 50 * US) {
            uint64_t phase = t % (10 * MS);

            if ((xon && phase < 6 * MS && phase % MS == 0) || !phase) {
                struct pfc_frame f = frame1(3, xon && phase == 5 * MS
                                               ? 0 : 65535);
                uint8_t began = pfc_receive(&pause, &c, &f, p.enabled,
                                            &tb10g, t, t);

                pfc_wd_frame(&wd, &f, p.enabled, began, t);
            }
            wd_check(&wd, &p, pfc_pause_status(&pause, t), 0x08, t, 0, 0);
        }
        ovs_assert(c.transitions[3] == 1000);
        ovs_assert(!wd.stormed && !wd.storms_detected[3]);
    }

    /* Pauses of 5120 ns, a new one every 6000 ns, so that every pause ends
     * by expiry, and checks every 12,000 ns, each just after a frame: every
     * check sees the priority paused, but the pause never lasted. */
    {
        struct pfc_frame f = frame1(3, 100);
        struct pfc_counters c;
        struct pfc_pause pause;

        memset(&c, 0, sizeof c);
        pfc_pause_init(&pause);
        pfc_wd_init(&wd);
        for (uint64_t t = 0; t < 1000 * MS; t += 6000) {
            uint8_t began = pfc_receive(&pause, &c, &f, p.enabled, &tb10g, t,
                                        t);

            ovs_assert(began == 0x08);
            pfc_wd_frame(&wd, &f, p.enabled, began, t);
            if (t % 12000 == 0) {
                ovs_assert(pfc_pause_status(&pause, t) == 0x08);
                wd_check(&wd, &p, 0x08, 0x08, t, 0, 0);
            }
        }
        ovs_assert(!wd.storms_detected[3]);
    }
    printf("wd-no-false-alarm: ok\n");
}

/* Storms priority 3 of 'wd' under 'p' (detection 200 ms) with XOFF
 * refreshed every millisecond from 'start', and returns the tick of the
 * detection. */
static uint64_t
wd_storm(struct pfc_wd *wd, const struct pfc_wd_params *p, uint64_t start)
{
    uint64_t t;

    for (t = start; t < start + 200 * MS; t += MS) {
        wd_frame1(wd, p->enabled, 3, 65535, 0, t);
        wd_check(wd, p, 0x08, 0x08, t, 0, 0);
    }
    wd_frame1(wd, p->enabled, 3, 65535, 0, t);
    wd_check(wd, p, 0x08, 0x08, t, 0x08, 0);
    return t;
}

/* Restoration: after watchdog-restoration-time with no XOFF, counted from
 * the detection or from the last XOFF, whichever is later; a refreshed XOFF
 * holds it back.  Afterwards pauses are honoured again and detection starts
 * from scratch. */
static void
test_wd_restore(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_wd_params p = wd_params(0x08, 200, 400, PFC_WD_DROP);
    struct pfc_wd wd;
    uint64_t t0 = 1000 * MS;
    uint64_t s, last, r;

    /* The partner keeps refreshing for 50 ms after the detection, while the
     * stormed priority drains (nothing waits), then goes silent. */
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, t0);
    ovs_assert(s == t0 + 200 * MS);
    for (last = s + MS; last <= s + 50 * MS; last += MS) {
        wd_frame1(&wd, 0x08, 3, 65535, 0, last);
        wd_check(&wd, &p, 0x08, 0, last, 0, 0);
    }
    last -= MS;
    /* 400 ms after the detection (s + 400 ms, among these checks) is not
     * enough: an XOFF came since.  400 ms after that XOFF is. */
    ovs_assert(s + 400 * MS > last + MS && s + 400 * MS < last + 400 * MS);
    wd_quiet(&wd, &p, 0, 0, last + MS, last + 400 * MS, MS);
    wd_check(&wd, &p, 0, 0, last + 400 * MS - 1, 0, 0);
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0x08);
    ovs_assert(!wd_check(&wd, &p, 0, 0, last + 400 * MS, 0, 0x08));
    ovs_assert(wd.storms_detected[3] == 1 && wd.storms_restored[3] == 1);
    ovs_assert(!pfc_wd_ignored(&wd, &p) && !pfc_wd_dropped(&wd, &p));
    r = last + 400 * MS;

    /* Honoured again: a normal pause of 5 ms is just a pause. */
    wd_quiet(&wd, &p, 0x08, 0x08, r + MS, r + 6 * MS, MS);
    wd_quiet(&wd, &p, 0, 0, r + 6 * MS, r + 10 * MS, MS);

    /* Detection from scratch: 200 ms more of storm. */
    ovs_assert(wd_storm(&wd, &p, r + 10 * MS) == r + 210 * MS);
    ovs_assert(wd.storms_detected[3] == 2 && wd.storms_restored[3] == 1);

    /* A partner silent from the detection on: restored at exactly
     * restoration time after it. */
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    wd_quiet(&wd, &p, 0, 0, s + MS, s + 400 * MS, MS);
    wd_check(&wd, &p, 0, 0, s + 400 * MS - 1, 0, 0);
    wd_check(&wd, &p, 0, 0, s + 400 * MS, 0, 0x08);

    /* One long pause, never refreshed (one XOFF of 65535 quanta lasts
     * 33.6 s at 1 Mb/s): not restored while its timer runs, even past
     * restoration time (honouring it again would only start the next
     * storm); restored at the first check after it ran out. */
    pfc_wd_init(&wd);
    wd_frame1(&wd, 0x08, 3, 65535, 0x08, 0);
    wd_quiet(&wd, &p, 0x08, 0x08, 0, 200 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, 200 * MS, 0x08, 0);
    wd_quiet(&wd, &p, 0x08, 0, 201 * MS, 2000 * MS, MS);
    wd_check(&wd, &p, 0, 0, 2000 * MS, 0, 0x08);

    /* While the partner goes on refreshing, every XOFF holds restoration
     * back: stormed for ever. */
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    for (uint64_t t = s + MS; t < s + 5000 * MS; t += MS) {
        wd_frame1(&wd, 0x08, 3, 65535, 0, t);
        wd_check(&wd, &p, 0x08, 0, t, 0, 0);
    }
    ovs_assert(wd.stormed == 0x08 && wd.storms_restored[3] == 0);

    /* Right after restoration, the check that restores does not start a
     * detection interval: the next one does. */
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    wd_check(&wd, &p, 0, 0x08, s + 400 * MS, 0, 0x08);
    wd_check(&wd, &p, 0x08, 0x08, s + 401 * MS, 0, 0);
    wd_check(&wd, &p, 0x08, 0x08, s + 601 * MS - 1, 0, 0);
    wd_check(&wd, &p, 0x08, 0x08, s + 601 * MS, 0x08, 0);
    printf("wd-restore: ok\n");
}

/* One check of the watchdog of a port without a MAC whose guest has one
 * receive queue 'vq': its counts are now 'refused' and 'taken'. */
static uint8_t
wd_guest_check(struct pfc_wd *wd, const struct pfc_wd_params *p,
               struct pfc_wd_vq *vq, uint64_t refused, uint64_t taken,
               uint8_t waiting, uint64_t now, uint8_t want_detected,
               uint8_t want_restored)
{
    /* 'waiting' priorities have 10 packets waiting each. */
    uint8_t stalled = (pfc_wd_vq_stalled(vq, refused, taken,
                                         10 * count_1bits(waiting))
                       ? 0xff : 0);

    pfc_wd_stall(wd, stalled, p->enabled, now);
    return wd_check(wd, p, stalled & p->enabled, waiting, now, want_detected,
                    want_restored);
}

/* A port without a MAC (a vhost-user port): a guest that reads nothing
 * while its queue refuses packets is stormed after detection time; one
 * that reads slowly, or has nothing offered, never is; the stormed guest is
 * restored once it was not seen stalled for restoration time; there both
 * drop and forward drop. */
static void
test_wd_guest(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_wd_params p = wd_params(0x08, 200, 400, PFC_WD_FORWARD);
    struct pfc_wd_vq vq = { 0, 0, 0, 0 };
    uint64_t refused = 0, taken = 0, t;
    struct pfc_wd wd;

    p.guest = true;

    /* The stall rule, with nothing waiting: refused and took none. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 0, 0, 0));   /* Nothing offered. */
    ovs_assert(pfc_wd_vq_stalled(&vq, 1, 0, 0));    /* Refused, took none. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 5, 1, 0));   /* Took one. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 5, 1, 0));   /* Idle. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 5, 9, 0));   /* Took, none refused. */
    ovs_assert(pfc_wd_vq_stalled(&vq, 6, 9, 0));
    ovs_assert(vq.refused == 6 && vq.taken == 9);

    /* The drain window: 5 packets wait; taking 1 while refusing is stalled
     * until the 5 were taken; the check at which they were is not, and
     * begins a window of what waits then. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 6, 9, 5));   /* Window of 5. */
    ovs_assert(pfc_wd_vq_stalled(&vq, 7, 10, 5));   /* 1 of 5. */
    ovs_assert(pfc_wd_vq_stalled(&vq, 8, 12, 5));   /* 3 of 5. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 9, 14, 7));  /* 5 of 5: next, 7. */
    ovs_assert(vq.backlog == 7 && vq.base == 14);
    ovs_assert(pfc_wd_vq_stalled(&vq, 10, 20, 7));  /* 6 of 7. */
    ovs_assert(!pfc_wd_vq_stalled(&vq, 10, 20, 7)); /* Not refusing. */

    /* A guest that reads slowly: every check, its queue refuses some and
     * takes 3, and 10 wait: it drains each window within 4 checks.  For
     * 5 s: never stormed. */
    pfc_wd_init(&wd);
    vq = (struct pfc_wd_vq) { 0, 0, 0, 0 };
    for (t = 0; t < 4999 * MS; t += MS) {
        wd_guest_check(&wd, &p, &vq, ++refused, taken += 3, 0x08, t, 0, 0);
    }
    /* The last check before it stops drains its window. */
    wd_guest_check(&wd, &p, &vq, ++refused, taken += 10, 0x08, t, 0, 0);

    /* The guest stops reading: stalled at every check, with packets
     * waiting.  Stormed exactly 200 ms after the first stalled check. */
    for (t = 5000 * MS; t < 5200 * MS; t += MS) {
        wd_guest_check(&wd, &p, &vq, ++refused, taken, 0x08, t, 0, 0);
    }
    wd_guest_check(&wd, &p, &vq, ++refused, taken, 0x08, t, 0x08, 0);
    ovs_assert(wd.storms_detected[3] == 1);

    /* Forward cannot send to a guest that does not read: it drops. */
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0x08);
    ovs_assert(pfc_wd_dropped(&wd, &p) == 0x08);
    p.action = PFC_WD_ALERT;
    ovs_assert(!pfc_wd_ignored(&wd, &p) && !pfc_wd_dropped(&wd, &p));
    p.action = PFC_WD_DROP;
    ovs_assert(pfc_wd_dropped(&wd, &p) == 0x08);

    /* Still stuck for 1 s: what is offered (nothing is held any more: the
     * packets are dropped) is refused, which holds restoration back. */
    for (t += MS; t < 6200 * MS; t += MS) {
        wd_guest_check(&wd, &p, &vq, ++refused, taken, 0, t, 0, 0);
    }
    ovs_assert(wd.stormed == 0x08);

    /* It reads again at 6200 ms: restored 400 ms after the last stalled
     * check, not one tick earlier. */
    for (; t < 5199 * MS + 1400 * MS; t += MS) {
        wd_guest_check(&wd, &p, &vq, refused, taken += 2, 0, t, 0, 0);
    }
    wd_guest_check(&wd, &p, &vq, refused, taken, 0, 6599 * MS - 1, 0, 0);
    wd_guest_check(&wd, &p, &vq, refused, taken, 0, 6599 * MS, 0, 0x08);
    ovs_assert(wd.storms_restored[3] == 1 && !pfc_wd_dropped(&wd, &p));

    /* A stuck guest with nothing offered: not stalled, so nothing is
     * detected; the next packets wait, and the storm comes 200 ms after
     * they are first refused. */
    for (t = 7000 * MS; t < 8000 * MS; t += MS) {
        wd_guest_check(&wd, &p, &vq, refused, taken, 0, t, 0, 0);
    }
    for (; t < 8200 * MS; t += MS) {
        wd_guest_check(&wd, &p, &vq, ++refused, taken, 0x08, t, 0, 0);
    }
    wd_guest_check(&wd, &p, &vq, ++refused, taken, 0x08, t, 0x08, 0);

    /* A guest that reads a trickle, one packet every 100 ms, of the 10 that
     * wait and are refused: stormed 200 ms after it began, though it takes
     * some. */
    pfc_wd_init(&wd);
    vq = (struct pfc_wd_vq) { refused, taken, 0, taken };
    for (t = 9000 * MS; t < 9200 * MS; t += MS) {
        taken += (t / MS) % 100 == 50;
        wd_guest_check(&wd, &p, &vq, ++refused, taken, 0x08, t, 0, 0);
    }
    wd_guest_check(&wd, &p, &vq, ++refused, taken, 0x08, t, 0x08, 0);

    /* A port with a MAC is not a guest: forward forwards. */
    p = wd_params(0x08, 200, 400, PFC_WD_FORWARD);
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0x08 && !pfc_wd_dropped(&wd, &p));
    printf("wd-guest: ok\n");
}

/* One check of the watchdog of a port with a MAC, identity priority map, one
 * tx queue 'seen': its classes 'waiting' hold packets, 'left' of them left,
 * 'blocked' may not send, and the pause timers pause 'timer'. */
static uint8_t
wd_txq_check(struct pfc_wd *wd, const struct pfc_wd_params *p,
             struct pfc_wd_txq *seen, const uint64_t left[PFC_N_PRIOS],
             uint8_t waiting, uint8_t blocked, uint8_t timer, uint64_t now,
             uint8_t want_detected, uint8_t want_restored)
{
    uint8_t stalled = pfc_wd_txq_stalled(seen, left, waiting, blocked,
                                         false);

    return wd_check(wd, p, (timer | stalled) & p->enabled, waiting, now,
                    want_detected, want_restored);
}

/* A port with a MAC: "packets waiting, nothing sent".  A class that waits
 * and sends nothing while blocked past its pause timer (the pause-end rule),
 * or on an egress that sends nothing at all, is stormed after detection
 * time; a class that waits behind other classes of an egress that drains,
 * or that sends a little at times, never is. */
static void
test_wd_txq(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_wd_params p = wd_params(0x08, 200, 400, PFC_WD_DROP);
    uint64_t left[PFC_N_PRIOS] = { 0 };
    struct pfc_wd_txq seen;
    struct pfc_wd wd;
    uint64_t t;

    /* The rule. */
    memset(&seen, 0, sizeof seen);
    /* First wait. */
    ovs_assert(!pfc_wd_txq_stalled(&seen, left, 0x08, 0, false));
    ovs_assert(pfc_wd_txq_stalled(&seen, left, 0x09, 0, false) == 0x08);
    left[0] = 5;                /* Class 0 left: the egress drains. */
    ovs_assert(!pfc_wd_txq_stalled(&seen, left, 0x09, 0, false));
    ovs_assert(pfc_wd_txq_stalled(&seen, left, 0x09, 0x08, false) == 0x09);
    left[0] = 6;
    ovs_assert(pfc_wd_txq_stalled(&seen, left, 0x09, 0x08, false) == 0x08);
    left[3] = 1;                /* Class 3 sent one. */
    ovs_assert(!pfc_wd_txq_stalled(&seen, left, 0x09, 0x08, false));
    ovs_assert(pfc_wd_txq_stalled(&seen, left, 0x08, 0x08, false) == 0x08);
    /* Empty. */
    ovs_assert(!pfc_wd_txq_stalled(&seen, left, 0, 0x08, false));
    ovs_assert(seen.left[3] == 1 && !seen.waiting);

    /* An egress that sends nothing because the port shaper is in debt (a
     * TSO frame at a few Mb/s) is not stalled, unless the class is
     * blocked. */
    memset(&seen, 0, sizeof seen);
    memset(left, 0, sizeof left);
    ovs_assert(!pfc_wd_txq_stalled(&seen, left, 0x08, 0, true));
    ovs_assert(!pfc_wd_txq_stalled(&seen, left, 0x08, 0, true));
    ovs_assert(pfc_wd_txq_stalled(&seen, left, 0x08, 0x08, true) == 0x08);
    ovs_assert(pfc_wd_txq_stalled(&seen, left, 0x08, 0, false) == 0x08);

    /* A pause that the pause-end rule keeps in force after its timer ran
     * out (an rx ring that a flood never lets empty): stormed 200 ms after
     * the first check that saw it, though the timer paused only the first
     * 10 ms. */
    pfc_wd_init(&wd);
    memset(&seen, 0, sizeof seen);
    memset(left, 0, sizeof left);
    for (t = 0; t <= 200 * MS; t += MS) {
        left[0] += 32;          /* Lossy class 0 drains all the while. */
        wd_txq_check(&wd, &p, &seen, left, 0x09, 0x08, t < 10 * MS ? 0x08 : 0,
                     t, t == 200 * MS ? 0x08 : 0, 0);
    }
    ovs_assert(pfc_wd_dropped(&wd, &p) == 0x08);

    /* An egress that sends nothing at all, no pause: stormed too. */
    pfc_wd_init(&wd);
    memset(&seen, 0, sizeof seen);
    wd_txq_check(&wd, &p, &seen, left, 0x09, 0, 0, 0, 0, 0);
    for (t = MS; t <= 201 * MS; t += MS) {
        wd_txq_check(&wd, &p, &seen, left, 0x09, 0, 0, t,
                     t == 201 * MS ? 0x08 : 0, 0);
    }
    /* Its held packets dropped, nothing waits: restored 400 ms after the
     * detection. */
    for (t += MS; t < 601 * MS; t += MS) {
        wd_txq_check(&wd, &p, &seen, left, 0, 0, 0, t, 0, 0);
    }
    wd_txq_check(&wd, &p, &seen, left, 0, 0, 0, t, 0, 0x08);

    /* Congestion: class 3 waits behind class 0, which drains, for 5 s:
     * never stormed.  Nor is a class that sends one packet every 100 ms
     * while blocked at other times. */
    pfc_wd_init(&wd);
    memset(&seen, 0, sizeof seen);
    for (t = 0; t < 5000 * MS; t += MS) {
        left[0] += 4;
        wd_txq_check(&wd, &p, &seen, left, 0x09, 0, 0, t, 0, 0);
    }
    for (; t < 10000 * MS; t += MS) {
        left[3] += (t / MS) % 100 == 0;
        wd_txq_check(&wd, &p, &seen, left, 0x08, 0x08, 0, t, 0, 0);
    }
    ovs_assert(!wd.storms_detected[3]);
    printf("wd-txq: ok\n");
}

/* An XOFF storm that turns into an XON storm is restored: XON frames do not
 * hold restoration back, and neither do frames for other priorities. */
static void
test_wd_xon_storm(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_wd_params p = wd_params(0x18, 200, 400, PFC_WD_FORWARD);
    struct pfc_counters c;
    struct pfc_pause pause;
    struct pfc_wd wd;
    uint64_t s, last;

    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    ovs_assert(pfc_wd_ignored(&wd, &p) == 0x08);
    /* XONs for 3 every 100 us, and XOFF for 4 (not stormed), for 10 s. */
    for (uint64_t t = s + 100 * US; t < s + 10000 * MS; t += 100 * US) {
        bool restore = t == s + 400 * MS;

        wd_frame1(&wd, p.enabled, 3, 0, 0, t);
        wd_frame1(&wd, p.enabled, 4, 65535, 0, t);
        wd_check(&wd, &p, 0x10, 0, t, 0, restore ? 0x08 : 0);
    }
    ovs_assert(!wd.stormed && wd.storms_restored[3] == 1);

    /* XOFF every 100 ms among XONs every millisecond: an XOFF within each
     * restoration time holds it back; once they stop, restored 400 ms after
     * the last one.  Frames go through pfc_receive() as in the datapath. */
    memset(&c, 0, sizeof c);
    pfc_pause_init(&pause);
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    last = s;
    for (uint64_t t = s + MS; t < s + 3000 * MS; t += MS) {
        bool xoff = t < s + 1000 * MS && t % (100 * MS) == 0;
        struct pfc_frame f = frame1(3, xoff ? 65535 : 0);
        uint8_t began = pfc_receive(&pause, &c, &f, p.enabled, &tb10g, t, t);

        pfc_wd_frame(&wd, &f, p.enabled, began, t);
        if (xoff) {
            last = t;
        }
        wd_check(&wd, &p, pfc_pause_status(&pause, t), 0, t, 0,
                 t == last + 400 * MS ? 0x08 : 0);
    }
    ovs_assert(last == s + 900 * MS);
    ovs_assert(!wd.stormed && wd.storms_restored[3] == 1);
    printf("wd-xon-storm: ok\n");
}

/* The watchdog turned off, and priorities leaving pfc-enable: nothing is
 * stormed, and what was stormed is restored at the next check and counted.
 * "alert" only reports. */
static void
test_wd_off(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_wd_params p = wd_params(0x08, 0, 400, PFC_WD_DROP);
    struct pfc_wd wd;
    uint64_t s;

    /* Off: never stormed. */
    pfc_wd_init(&wd);
    for (uint64_t t = 0; t < 10000 * MS; t += MS) {
        wd_frame1(&wd, 0x08, 3, 65535, 0, t);
        wd_check(&wd, &p, 0x08, 0x08, t, 0, 0);
    }
    ovs_assert(!wd.storms_detected[3]);

    /* Turned off while stormed: ignored no more at once, restored at the
     * next check; turned on again, detection starts from scratch. */
    p = wd_params(0x08, 200, 400, PFC_WD_DROP);
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    p.detect_ticks = 0;
    ovs_assert(!pfc_wd_ignored(&wd, &p) && !pfc_wd_dropped(&wd, &p));
    ovs_assert(!wd_check(&wd, &p, 0x08, 0x08, s + MS, 0, 0x08));
    ovs_assert(wd.storms_restored[3] == 1);
    wd_check(&wd, &p, 0x08, 0x08, s + 2 * MS, 0, 0);
    p.detect_ticks = 200 * MS;
    wd_quiet(&wd, &p, 0x08, 0x08, s + 3 * MS, s + 203 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, s + 203 * MS, 0x08, 0);

    /* Priority 3 leaves pfc-enable while stormed: restored and reset; its
     * frames are ignored; back in pfc-enable, it starts from scratch. */
    p = wd_params(0x28, 200, 400, PFC_WD_DROP);
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    p.enabled = 0x20;
    ovs_assert(!pfc_wd_ignored(&wd, &p));
    wd_check(&wd, &p, 0x08, 0x08, s + MS, 0, 0x08);
    wd_frame1(&wd, p.enabled, 3, 65535, 0, s + 2 * MS);
    ovs_assert(wd.last_xoff[3] == 0);
    wd_quiet(&wd, &p, 0x08, 0x08, s + 2 * MS, s + 1000 * MS, MS);
    p.enabled = 0x28;
    wd_quiet(&wd, &p, 0x08, 0x08, s + 1000 * MS, s + 1200 * MS, MS);
    wd_check(&wd, &p, 0x08, 0x08, s + 1200 * MS, 0x08, 0);
    ovs_assert(wd.storms_detected[3] == 2 && wd.storms_restored[3] == 1);

    /* "alert": stormed and counted, pauses still honoured, restored by the
     * same rule. */
    p = wd_params(0x08, 200, 400, PFC_WD_ALERT);
    pfc_wd_init(&wd);
    s = wd_storm(&wd, &p, 0);
    ovs_assert(wd.stormed == 0x08 && wd.storms_detected[3] == 1);
    ovs_assert(!pfc_wd_ignored(&wd, &p) && !pfc_wd_dropped(&wd, &p));
    wd_quiet(&wd, &p, 0x08, 0x08, s + MS, s + 400 * MS, MS);
    /* Still paused (the last XOFF's timer runs): not yet. */
    wd_check(&wd, &p, 0x08, 0x08, s + 400 * MS, 0, 0);
    wd_check(&wd, &p, 0, 0x08, s + 401 * MS, 0, 0x08);
    printf("wd-off: ok\n");
}

/* watchdog-* keys: errors that name the key and the range. */
static void
test_wd_config_errors(void)
{
    struct pfc_config cfg;

    static const char *const bad_detect[] = {
        "1", "9", "5001", "1000000", "abc", "-1", "", "200ms", "1k",
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad_detect); i++) {
        char *needle = xasprintf("other_config:watchdog-detection-time="
                                 "\"%s\" is invalid: must be 0 (watchdog "
                                 "off) or an integer from 10 to 5000 ms",
                                 bad_detect[i]);

        PARSE(&cfg, EINVAL, needle, "watchdog-detection-time",
              bad_detect[i]);
        free(needle);
    }
    static const char *const bad_restore[] = {
        "0", "9", "60001", "x", "-5", "",
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad_restore); i++) {
        char *needle = xasprintf("other_config:watchdog-restoration-time="
                                 "\"%s\" is invalid: must be an integer "
                                 "from 10 to 60000 ms", bad_restore[i]);

        PARSE(&cfg, EINVAL, needle, "watchdog-restoration-time",
              bad_restore[i]);
        PARSE(&cfg, EINVAL, needle, "watchdog-detection-time", "0",
              "watchdog-restoration-time", bad_restore[i]);
        free(needle);
    }
    PARSE(&cfg, EINVAL, "other_config:watchdog-action=\"shutdown\" is "
          "invalid: must be drop, forward or alert",
          "watchdog-action", "shutdown");
    PARSE(&cfg, EINVAL, "watchdog-action=\"Drop\"", "watchdog-action",
          "Drop");
    PARSE(&cfg, EINVAL, "watchdog-action=\"\"", "watchdog-action", "");
    PARSE(&cfg, EINVAL, "watchdog_action is not a key", "watchdog_action",
          "drop");
}

/* watchdog-* keys through pfc_config_to_smap() and pfc_config_equal(). */
static void
test_wd_config_smap(void)
{
    struct pfc_config cfg, cfg2;
    struct smap s;
    char *err;

    /* pfc_config_to_smap(): detection and action always, restoration only
     * when set; each round trips and counts in pfc_config_equal(). */
    PARSE(&cfg, 0, NULL, "pfc-enable", "3");
    smap_init(&s);
    pfc_config_to_smap(&cfg, &s);
    ovs_assert(!strcmp(smap_get(&s, "watchdog-detection-time"), "200"));
    ovs_assert(!smap_get(&s, "watchdog-restoration-time"));
    ovs_assert(!strcmp(smap_get(&s, "watchdog-action"), "drop"));
    ovs_assert(!pfc_config_parse(&s, &cfg2, &err));
    ovs_assert(pfc_config_equal(&cfg, &cfg2));
    smap_destroy(&s);

    PARSE(&cfg, 0, NULL, "pfc-enable", "3", "watchdog-detection-time", "0",
          "watchdog-restoration-time", "1500", "watchdog-action", "alert");
    smap_init(&s);
    pfc_config_to_smap(&cfg, &s);
    ovs_assert(!strcmp(smap_get(&s, "watchdog-detection-time"), "0"));
    ovs_assert(!strcmp(smap_get(&s, "watchdog-restoration-time"), "1500"));
    ovs_assert(!strcmp(smap_get(&s, "watchdog-action"), "alert"));
    ovs_assert(!pfc_config_parse(&s, &cfg2, &err));
    ovs_assert(pfc_config_equal(&cfg, &cfg2));
    smap_destroy(&s);

    PARSE(&cfg, 0, NULL, "pfc-enable", "3");
    PARSE(&cfg2, 0, NULL, "pfc-enable", "3", "watchdog-detection-time",
          "300");
    ovs_assert(!pfc_config_equal(&cfg, &cfg2));
    PARSE(&cfg2, 0, NULL, "pfc-enable", "3", "watchdog-restoration-time",
          "500");
    ovs_assert(!pfc_config_equal(&cfg, &cfg2));
    PARSE(&cfg2, 0, NULL, "pfc-enable", "3", "watchdog-action", "forward");
    ovs_assert(!pfc_config_equal(&cfg, &cfg2));
    PARSE(&cfg2, 0, NULL, "pfc-enable", "3", "watchdog-detection-time",
          "200", "watchdog-action", "drop");
    ovs_assert(pfc_config_equal(&cfg, &cfg2));
}

/* The watchdog keys: defaults, ranges, errors that name the key and the
 * range, action names, pfc_config_to_smap() and pfc_config_equal(). */
static void
test_wd_config(struct ovs_cmdl_context *ctx OVS_UNUSED)
{
    struct pfc_config cfg;

    /* Defaults: on, 200 ms, restoration twice that, drop. */
    PARSE(&cfg, 0, NULL, NULL);
    ovs_assert(cfg.wd_detect_ms == 200 && cfg.wd_restore_ms == 400);
    ovs_assert(cfg.wd_restore_default && cfg.wd_action == PFC_WD_DROP);

    /* Restoration defaults to twice the detection time. */
    PARSE(&cfg, 0, NULL, "watchdog-detection-time", "10");
    ovs_assert(cfg.wd_detect_ms == 10 && cfg.wd_restore_ms == 20);
    PARSE(&cfg, 0, NULL, "watchdog-detection-time", "5000");
    ovs_assert(cfg.wd_detect_ms == 5000 && cfg.wd_restore_ms == 10000);
    PARSE(&cfg, 0, NULL, "watchdog-detection-time", "1234");
    ovs_assert(cfg.wd_restore_ms == 2468 && cfg.wd_restore_default);

    /* Off; a restoration time is then accepted and unused. */
    PARSE(&cfg, 0, NULL, "watchdog-detection-time", "0");
    ovs_assert(cfg.wd_detect_ms == 0 && cfg.wd_restore_ms == 400);
    PARSE(&cfg, 0, NULL, "watchdog-detection-time", "0",
          "watchdog-restoration-time", "60000");
    ovs_assert(cfg.wd_detect_ms == 0 && cfg.wd_restore_ms == 60000);

    /* Explicit restoration times, shorter than detection too. */
    PARSE(&cfg, 0, NULL, "watchdog-restoration-time", "10");
    ovs_assert(cfg.wd_restore_ms == 10 && !cfg.wd_restore_default);
    PARSE(&cfg, 0, NULL, "watchdog-detection-time", "300",
          "watchdog-restoration-time", "60000");
    ovs_assert(cfg.wd_detect_ms == 300 && cfg.wd_restore_ms == 60000);

    /* Actions. */
    PARSE(&cfg, 0, NULL, "watchdog-action", "drop");
    ovs_assert(cfg.wd_action == PFC_WD_DROP);
    PARSE(&cfg, 0, NULL, "watchdog-action", "forward");
    ovs_assert(cfg.wd_action == PFC_WD_FORWARD);
    PARSE(&cfg, 0, NULL, "watchdog-action", "alert");
    ovs_assert(cfg.wd_action == PFC_WD_ALERT);
    ovs_assert(!strcmp(pfc_wd_action_name(PFC_WD_DROP), "drop"));
    ovs_assert(!strcmp(pfc_wd_action_name(PFC_WD_FORWARD), "forward"));
    ovs_assert(!strcmp(pfc_wd_action_name(PFC_WD_ALERT), "alert"));

    test_wd_config_errors();
    test_wd_config_smap();
    printf("wd-config: ok\n");
}

static const struct ovs_cmdl_command commands[] = {
    { "wd-detect", NULL, 0, 0, test_wd_detect, OVS_RO },
    { "wd-no-false-alarm", NULL, 0, 0, test_wd_no_false_alarm, OVS_RO },
    { "wd-restore", NULL, 0, 0, test_wd_restore, OVS_RO },
    { "wd-xon-storm", NULL, 0, 0, test_wd_xon_storm, OVS_RO },
    { "wd-off", NULL, 0, 0, test_wd_off, OVS_RO },
    { "wd-config", NULL, 0, 0, test_wd_config, OVS_RO },
    { "wd-guest", NULL, 0, 0, test_wd_guest, OVS_RO },
    { "wd-txq", NULL, 0, 0, test_wd_txq, OVS_RO },
    { NULL, NULL, 0, 0, NULL, OVS_RO },
};

/* "ovstest test-pfc-wd NAME" runs the test NAME. */
static void
test_pfc_wd_main(int argc, char *argv[])
{
    struct ovs_cmdl_context ctx = {
        .argc = argc - 1,
        .argv = argv + 1,
    };

    set_program_name(argv[0]);
    ovs_cmdl_run_command(&ctx, commands);
}

OVSTEST_REGISTER("test-pfc-wd", test_pfc_wd_main);
