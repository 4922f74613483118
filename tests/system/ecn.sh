# System tests of ECN marking on traffic classes (lib/pfc-ecn.h), sourced
# by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# ecn_send STREAM COUNT ECN [START-SEQ]: A sends COUNT IPv4/UDP frames of
# stream STREAM, priority 3, tagged, with ECN field ECN (0 Not-ECT, 2
# ECT(0)), 3000 frames/s.
ecn_send() {
    "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" --side A \
        --streams "$1:3" --count "$2" --rate 3000 --ip 4 --ecn "$3" \
        --start-seq "${4:-0}"
}

# ecn_fact RECORD STREAM KEY: KEY of pfc_peer.py ecn's JSON.
ecn_fact() {
    "$PFC_PY" "$PFC_PEER" ecn "$1" --stream "$2" | "$PFC_PY" -c \
        'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$3"
}

# ecn_tc3 PORT COUNTER: pfc/show's ecn tc3 figure COUNTER: "ect",
# "marked", or "above" (Not-ECT above the minimum).
ecn_tc3() {
    local w=$2
    [ "$w" = above ] && w="above min"
    pfc_show "$1" | sed -n "s/^  ecn tc3: .* $w \([0-9]*\).*/\1/p"
}

# DCTCP's step marking at K, on a lossless class that holds: B pauses p3 at
# dpdk-b, whose QoS marks at ecn-min-threshold = ecn-max-threshold = K =
# 100 frames' bytes.  A sends 300 ECT(0) frames, then 100 Not-ECT frames,
# all held behind the pause: frame i joins a class that queues i frames, so
# frames 0-99 stay ECT(0) and 100-299 get CE, exactly; no Not-ECT frame is
# changed, and each counts as Not-ECT above K.  After XON, B gets all 400
# in order (lossless), with CE on exactly seqs 100-299, and the counters
# agree.
test_ecn_step() {
    local rec size k facts
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/ecn.json
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    start_recv "$rec"
    pause_p3 --xon-on-exit
    # The frame size as the switch counts it: one held frame's bytes.
    ecn_send 1 1 0 10000 || FAILS=$((FAILS + 1))
    wait_held 1 || FAILS=$((FAILS + 1))
    size=$(pfc_show dpdk-b | awk '$1 == "p3" { print $6 }')
    pfc_log "one frame: $size bytes held"
    xon_and_drain
    check "frame size known" "${size:-0}" -gt 0
    k=$((100 * size))
    pfc_vsctl set QoS "$(pfc_vsctl get Port dpdk-b qos)" \
        other_config:ecn-min-threshold=$k \
        other_config:ecn-max-threshold=$k || return 1
    for f in $(seq 50); do
        pfc_show dpdk-b | grep -q "^  ecn tc3: min $k max $k " && break
        sleep 0.1
    done
    pfc_log "$(pfc_show dpdk-b | grep '^  ecn tc3:')"

    start_recv "$rec"
    pause_p3 --xon-on-exit
    ecn_send 2 300 2 || FAILS=$((FAILS + 1))
    ecn_send 3 100 0 || FAILS=$((FAILS + 1))
    wait_held 400 || FAILS=$((FAILS + 1))
    pfc_log "$(pfc_show dpdk-b | grep '^  ecn tc3:')"
    check "ECT packets judged" "$(ecn_tc3 dpdk-b ect)" -eq 300
    check "ECT packets marked CE (K = 100 frames)" \
        "$(ecn_tc3 dpdk-b marked)" -eq 200
    check "Not-ECT packets above K" "$(ecn_tc3 dpdk-b above)" -eq 100
    xon_and_drain
    run_or_fail "B got the 300 ECT(0) frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 2 --expect 300
    run_or_fail "B got the 100 Not-ECT frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 3 --expect 100
    facts=$("$PFC_PY" "$PFC_PEER" ecn "$rec" --stream 2)
    pfc_log "stream 2 (ECT(0)) at B: $(cut -c1-120 <<<"$facts")"
    check "CE frames at B" "$(ecn_fact "$rec" 2 ce)" -eq 200
    check "ECT(0) frames at B" "$(ecn_fact "$rec" 2 ect0)" -eq 100
    run_or_fail "CE on exactly seqs 100-299" "$PFC_PY" -c '
import json, sys
seqs = json.loads(sys.argv[1])["ce_seqs"]
sys.exit(0 if seqs == list(range(100, 300)) else 1)' "$facts"
    check "Not-ECT frames at B unchanged" "$(ecn_fact "$rec" 3 not_ect)" \
        -eq 100
    pfc_stats_refresh
    check "dpdk-b pfc_ecn_marked_tc3" "$(pfc_stat dpdk-b pfc_ecn_marked_tc3)" \
        -eq 200
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    [ "$FAILS" -eq 0 ]
}

# The marking rate between the thresholds, in the manner of sonic-mgmt's
# ECN_test.md: a Queue row puts priority 3 in class 3 with
# ecn-min-threshold 100 frames' bytes, ecn-max-threshold 4,100 frames'
# bytes and ecn-max-probability 50.  B pauses p3; A sends 100 Not-ECT
# frames (below the minimum: not counted), then 4,000 ECT(0) frames, all
# held: ECT frame j joins a class that queues 100 + j frames, so it is
# marked with probability 50% x j / 4000, and the expected rate over the
# 4,000 is their mean, 25%.  The rate seen at B after XON must be within 2
# percentage points of it (the binomial's sigma is 0.7), and equal to the
# switch's count.
test_ecn_rate() {
    local rec size min max ce rate
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/ecn.json
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    start_recv "$rec"
    pause_p3 --xon-on-exit
    ecn_send 1 1 0 10000 || FAILS=$((FAILS + 1))
    wait_held 1 || FAILS=$((FAILS + 1))
    size=$(pfc_show dpdk-b | awk '$1 == "p3" { print $6 }')
    xon_and_drain
    check "frame size known" "${size:-0}" -gt 0
    min=$((100 * size))
    max=$((4100 * size))
    pfc_vsctl -- --id=@q3 create Queue other_config:priorities=3 \
        other_config:ecn-min-threshold=$min \
        other_config:ecn-max-threshold=$max \
        other_config:ecn-max-probability=50 \
        -- set QoS "$(pfc_vsctl get Port dpdk-b qos)" queues:3=@q3 \
        >/dev/null || return 1
    for f in $(seq 50); do
        pfc_show dpdk-b | grep -q "^  ecn tc3: min $min max $max " && break
        sleep 0.1
    done
    pfc_log "$(pfc_show dpdk-b | grep '^  ecn tc3:')"

    start_recv "$rec"
    pause_p3 --xon-on-exit
    ecn_send 2 100 0 || FAILS=$((FAILS + 1))
    ecn_send 3 4000 2 || FAILS=$((FAILS + 1))
    wait_held 4100 || FAILS=$((FAILS + 1))
    pfc_log "$(pfc_show dpdk-b | grep '^  ecn tc3:')"
    check "Not-ECT below the minimum: not counted" \
        "$(ecn_tc3 dpdk-b above)" -eq 0
    check "ECT packets judged" "$(ecn_tc3 dpdk-b ect)" -eq 4000
    xon_and_drain
    run_or_fail "B got the 4000 ECT(0) frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 3 --expect 4000
    ce=$(ecn_fact "$rec" 3 ce)
    rate=$(awk -v c="$ce" 'BEGIN { printf "%.2f", 100 * c / 4000 }')
    pfc_log "marked: $ce of 4000 ECT(0) frames, $rate% (expected 25.00%," \
            "the mean of 50% x j / 4000)"
    check "CE frames at B = the switch's marks" "$ce" -eq \
        "$(ecn_tc3 dpdk-b marked)"
    run_or_fail "marking rate within 2 points of 25%" \
        awk -v r="$rate" 'BEGIN { exit !(r >= 23 && r <= 27) }'
    check "Not-ECT frames unchanged at B" "$(ecn_fact "$rec" 2 not_ect)" \
        -eq 100
    [ "$FAILS" -eq 0 ]
}
