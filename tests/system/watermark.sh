# System tests of the shared buffer's watermarks (pfc/watermark,
# pfc/watermark-clear), sourced by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# wm_field PORT WHAT FIELD: from pfc/watermark PORT, the number after FIELD
# ("peak" or "persistent") in the first watermark of line WHAT ("tc3:",
# "pg p3:"), or nothing.
wm_field() {
    pfc_appctl pfc/watermark "$1" \
        | awk -v what="$2" -v field="$3" '
            $2 " " $3 == what || $2 == what {
                for (i = 1; i < NF; i++) {
                    if ($i == field || $i == "(" field) {
                        v = $(i + 1); gsub(/[^0-9]/, "", v); print v; exit
                    }
                }
            }'
}

# A burst of held packets sets the watermarks, which outlast the burst:
# B pauses priority 3 at dpdk-b and A sends 300 p3 frames, which dpdk-b
# holds and dpdk-a's priority group p3 pays for (dpdk-a has QoS pfc with a
# static XOFF threshold above the burst, so that it sends no XOFF).  Then:
#   - dpdk-b's class 3 peaks at 300 held packets, within one batch of 32,
#     and dpdk-a's group p3 at as many shared cells and their bytes;
#   - once XON sent them all on, nothing is held, and the peaks stay;
#   - pfc/watermark-clear dpdk-b clears dpdk-b's clearable view only; its
#     persistent view, and dpdk-a's watermarks, keep the peak;
#   - pfc/watermark-clear (every port) clears dpdk-a's too, and the shared
#     pool's;
#   - an unknown port is an error.
test_watermark() {
    local rec out v
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/watermark.json
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    pfc_qos dpdk-a pfc-enable=3 link-speed=10G xoff-threshold=10000000 \
        || return 1
    check "dpdk-b tc3 peak before any packet" \
        "$(wm_field dpdk-b tc3: peak)" -eq 0
    start_recv "$rec"
    pause_p3 --xon-on-exit
    send_p3 300 || FAILS=$((FAILS + 1))
    wait_held 300 || FAILS=$((FAILS + 1))
    out=$(pfc_appctl pfc/watermark)
    pfc_log "$out"
    v=$(wm_field dpdk-b tc3: peak)
    check "dpdk-b tc3 held peak (300 held) at least" "${v:-0}" -ge 269
    check "dpdk-b tc3 held peak (300 held) at most" "${v:-0}" -le 300
    v=$(wm_field dpdk-a "pg p3:" peak)
    check "dpdk-a pg p3 shared cells peak at least" "${v:-0}" -ge 269
    check "dpdk-a pg p3 shared cells peak at most" "${v:-0}" -le 300
    run_or_fail "pfc/watermark: shared pool line" \
        grep -q "^shared pool: cells taken by tx queues peak [1-9]" <<<"$out"
    xon_drain_check "$rec" 300
    check "dpdk-b statistics pfc_watermark_held_tc3 (persistent)" \
        "$(pfc_stat dpdk-b pfc_watermark_held_tc3)" -ge 269
    check "dpdk-a statistics pfc_watermark_shared_p3 (persistent)" \
        "$(pfc_stat dpdk-a pfc_watermark_shared_p3)" -ge 269
    check "dpdk-b holds nothing after XON" "$(held_p3)" -eq 0
    v=$(wm_field dpdk-b tc3: peak)
    check "dpdk-b tc3 peak kept after the drain" "${v:-0}" -ge 269

    pfc_appctl pfc/watermark-clear dpdk-b >/dev/null \
        || FAILS=$((FAILS + 1))
    pfc_log "$(pfc_appctl pfc/watermark)"
    check "dpdk-b tc3 peak after clear" "$(wm_field dpdk-b tc3: peak)" -eq 0
    v=$(wm_field dpdk-b tc3: persistent)
    check "dpdk-b tc3 persistent after clear" "${v:-0}" -ge 269
    v=$(wm_field dpdk-a "pg p3:" peak)
    check "dpdk-a pg p3 peak after clearing dpdk-b only" "${v:-0}" -ge 269
    pfc_appctl pfc/watermark-clear >/dev/null || FAILS=$((FAILS + 1))
    check "dpdk-a pg p3 peak after clearing all" \
        "$(wm_field dpdk-a "pg p3:" peak)" -eq 0
    v=$(wm_field dpdk-a "pg p3:" persistent)
    check "dpdk-a pg p3 persistent after clearing all" "${v:-0}" -ge 269
    out=$(pfc_appctl pfc/watermark)
    run_or_fail "shared pool peak cleared" \
        grep -q "^shared pool: cells taken by tx queues peak 0 " <<<"$out"
    if pfc_appctl pfc/watermark nosuch >/dev/null 2>&1; then
        pfc_log "FAIL: pfc/watermark of an unknown port succeeded"
        FAILS=$((FAILS + 1))
    else
        pfc_log "ok: pfc/watermark of an unknown port fails"
    fi
    [ "$FAILS" -eq 0 ]
}
