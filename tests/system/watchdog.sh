# System tests of the PFC watchdog: storms, drop and forward, false alarms,
# the detection time, sourced by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# wd_line PRIO: the watchdog line of priority PRIO of dpdk-b in pfc/show.
wd_line() {
    pfc_show dpdk-b | grep "watchdog p$1:"
}

# storm_p3 SECONDS: B refreshes an XOFF for priority 3 of dpdk-b every 1 ms
# for SECONDS, then stops without XON (a stuck partner).
storm_p3() {
    pfc_bg "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" \
        --side B --prio 3 --time 65535 --interval 0.001 --duration "$1"
    STORM_PID=$PFC_LAST_PID
}

# wd_storm_setup ACTION SECONDS COUNT: a switch whose dpdk-b has the
# watchdog on (200 ms) with watchdog-action ACTION; B records into
# $PFC_TMP/rx.json (start_recv), storms p3 for SECONDS (storm_p3), and A sends
# COUNT p3 frames into the storm (send_p3).
wd_storm_setup() {
    pfc_setup "$OVS" || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M watchdog-action="$1" \
        watchdog-detection-time=200 || return 1
    start_recv "$PFC_TMP/rx.json"
    storm_p3 "$2"
    sleep 0.3
    send_p3 "$3" || FAILS=$((FAILS + 1))
}

# PFC watchdog, action drop (the default).  B storms priority 3 of dpdk-b
# while A sends a p3 stream (held at dpdk-b, so dpdk-a sends A an XOFF: the
# pause spreads) and a lossy p0 stream.  The watchdog must declare the storm,
# drop the held and new p3 packets, release the ingress buffer occupancy of
# dpdk-a so that A gets an XON while the storm goes on, drop the p3 frames
# that B sends during the storm, and leave p0 untouched.  After the storm
# stops, p3 is restored after the restoration time, and a normal pause is
# honoured again: held, then delivered in order at XON.
test_watchdog_drop() {
    local rec rec2 free0
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/rx.json
    rec2=$PFC_TMP/rx2.json
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G xoff-threshold=8000 \
        xon-threshold=4000 || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M watchdog-action=drop \
        watchdog-detection-time=200 || return 1
    run_or_fail "pfc/show: watchdog on, action drop" \
        grep -q "detection-time 200 ms, restoration-time 400 ms, action drop" \
        <<<"$(pfc_show dpdk-b)"
    free0=$(mempool_free)
    start_recv "$rec"
    storm_p3 4
    sleep 0.3
    "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" --side A \
        --streams 1:3,2:0 --count 400 --rate 1000 || FAILS=$((FAILS + 1))
    wait_log "PFC storm on priority 3: paused by the link partner" \
        "storm on p3 of dpdk-b logged (WARN)"
    run_or_fail "pfc/show: p3 stormed" grep -q "p3: stormed" \
        <<<"$(wd_line 3)"
    pfc_stats_refresh
    check "dpdk-b pfc_wd_storms_detected_p3" \
        "$(pfc_stat dpdk-b pfc_wd_storms_detected_p3)" -eq 1
    check "dpdk-b pfc_wd_tx_dropped_p3" \
        "$(pfc_stat dpdk-b pfc_wd_tx_dropped_p3)" -gt 0
    check "p3 packets held at dpdk-b during the storm" "$(held_p3)" -eq 0
    # The pause did not stay spread: dpdk-a's occupancy for p3 was released
    # and it sent A an XON, while B still storms.
    run_or_fail "dpdk-a has no XOFF in force for p3 during the storm" \
        test "$(pfc_show dpdk-a | awk '$1 == "p3" { print $9 }')" = no
    check "dpdk-a sent XOFF for p3 (the pause spread before detection)" \
        "$(pfc_stat dpdk-a pfc_tx_frames_p3)" -ge 2
    # p3 frames from the stormed port are dropped on receipt.
    "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_B:$PFC_IF_B1" --side B \
        --streams 5:3 --count 50 --rate 1000 || FAILS=$((FAILS + 1))
    pfc_stats_refresh
    check "dpdk-b pfc_wd_rx_dropped_p3" \
        "$(pfc_stat dpdk-b pfc_wd_rx_dropped_p3)" -ge 50
    pfc_stop_pid "$RECV_PID"
    run_or_fail "B got the 400 lossy p0 frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 2 --expect 400
    # Restoration: the storm stops (no XON); 400 ms later p3 honours
    # pauses again.
    wait_pid "$STORM_PID" 10
    wait_log "PFC storm on priority 3 over after" \
        "restoration of p3 logged (INFO)"
    run_or_fail "pfc/show: p3 operational" grep -q "p3: operational" \
        <<<"$(wd_line 3)"
    pfc_stats_refresh
    check "dpdk-b pfc_wd_storms_restored_p3" \
        "$(pfc_stat dpdk-b pfc_wd_storms_restored_p3)" -eq 1
    # A normal pause is honoured again.  It lasts longer than 200 ms, so
    # the detection time goes up first (the storm counts stay).
    pfc_vsctl set QoS "$(pfc_vsctl get Port dpdk-b qos)" \
        other_config:watchdog-detection-time=5000 || FAILS=$((FAILS + 1))
    sleep 0.5
    start_recv "$rec2"
    pause_p3 --xon-on-exit
    send_p3 30 1000 || FAILS=$((FAILS + 1))
    wait_held 30 || FAILS=$((FAILS + 1))
    pfc_stop_pid "$PAUSE_PID"
    wait_held 0 || FAILS=$((FAILS + 1))
    sleep 0.5
    pfc_stop_pid "$RECV_PID"
    run_or_fail "after restoration, a pause holds p3 and XON delivers it" \
        "$PFC_PY" "$PFC_PEER" check "$rec2" --stream 1 --expect 30 \
        --first 1000
    sleep 0.5
    check "free mbufs after the storm (before: $free0)" \
        "$(mempool_free)" -eq "$free0"
    [ "$FAILS" -eq 0 ]
}

# PFC watchdog, action forward: during a storm the held p3 packets and new
# ones keep flowing to B, in order; nothing is dropped.
test_watchdog_forward() {
    local rec
    wd_storm_setup forward 3 600 || return 1
    rec=$PFC_TMP/rx.json
    wait_log "PFC storm on priority 3: paused by the link partner" \
        "storm on p3 of dpdk-b logged (WARN)"
    wait_held 0 || FAILS=$((FAILS + 1))
    sleep 0.5
    pfc_stop_pid "$RECV_PID"
    run_or_fail "B got the 600 p3 frames in order during the storm" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 1 --expect 600
    pfc_stats_refresh
    check "dpdk-b pfc_wd_tx_forwarded_p3" \
        "$(pfc_stat dpdk-b pfc_wd_tx_forwarded_p3)" -gt 0
    check "dpdk-b pfc_wd_tx_dropped_p3" \
        "$(pfc_stat dpdk-b pfc_wd_tx_dropped_p3)" -eq 0
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    pfc_stop_pid "$STORM_PID"
    wait_log "PFC storm on priority 3 over after" \
        "restoration of p3 logged (INFO)"
    [ "$FAILS" -eq 0 ]
}

# PFC removed from a port during a storm: the storm ends with it, logged and
# counted as restored.  No reason for deferred work stays counted for the
# PMD threads' flush pass (flush_reasons 0 once dpdk-b has no QoS), and PFC
# applied again, once the partner stopped, starts with every priority
# operational.
test_watchdog_removed() {
    wd_storm_setup drop 4 50 || return 1
    wait_log "PFC storm on priority 3: paused by the link partner" \
        "storm on p3 of dpdk-b logged (WARN)"
    check "reasons for deferred work during the storm (flush_reasons)" \
        "$(flush_reasons)" -ge 1
    pfc_vsctl clear Port dpdk-b qos || FAILS=$((FAILS + 1))
    wait_flush_reasons 0 || FAILS=$((FAILS + 1))
    wait_log "dpdk-b: PFC removed: storm on priorities 0x08 over" \
        "the storm ended with PFC (INFO)"
    wait_pid "$STORM_PID" 10
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M \
        watchdog-detection-time=200 || FAILS=$((FAILS + 1))
    sleep 0.5
    run_or_fail "pfc/show: p3 operational with PFC applied again" \
        grep -q "p3: operational" <<<"$(wd_line 3)"
    pfc_stats_refresh
    check "dpdk-b pfc_wd_storms_restored_p3 (as detected)" \
        "$(pfc_stat dpdk-b pfc_wd_storms_restored_p3)" -eq \
        "$(pfc_stat dpdk-b pfc_wd_storms_detected_p3)"
    check "reasons for deferred work with PFC applied again, idle" \
        "$(flush_reasons)" -eq 0
    pfc_stop_pid "$RECV_PID"
    [ "$FAILS" -eq 0 ]
}

# No false alarm: pauses shorter than the detection time, ended by XON, with
# p3 packets held each time, never make a storm, and neither does a partner
# that pauses and releases 100 times a second; everything held is delivered
# in order.
test_watchdog_no_false_alarm() {
    local rec i stream_pid
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/rx.json
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M \
        watchdog-detection-time=200 || return 1
    start_recv "$rec"
    # A's p3 stream runs for 8 s; B pauses p3 five times meanwhile, each
    # time for 150 ms (XOFF of 65535 quanta, refreshed, then XON).
    pfc_bg "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" \
        --side A --streams 1:3 --count 8000 --rate 1000
    stream_pid=$PFC_LAST_PID
    sleep 1.5
    for i in 0 1 2 3 4; do
        "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" \
            --side B --prio 3 --time 65535 --interval 0.05 --duration 0.15 \
            --xon-on-exit || FAILS=$((FAILS + 1))
    done
    wait_pid "$stream_pid" 20
    wait_held 0 || FAILS=$((FAILS + 1))
    sleep 0.5
    pfc_stop_pid "$RECV_PID"
    run_or_fail "B got the 8000 p3 frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 1 --expect 8000
    # A partner that pauses and releases 100 times a second for 3 s: XOFF
    # and XON in turn every 5 ms, while A's frames arrive.
    start_recv "$PFC_TMP/rx2.json"
    pfc_bg "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" \
        --side A --streams 1:3 --count 5000 --rate 1000 --start-seq 8000
    stream_pid=$PFC_LAST_PID
    sleep 1
    "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" --side B \
        --prio 3 --time 65535 --interval 0.005 --duration 3 --alternate \
        --xon-on-exit || FAILS=$((FAILS + 1))
    wait_pid "$stream_pid" 20
    wait_held 0 || FAILS=$((FAILS + 1))
    sleep 0.5
    pfc_stop_pid "$RECV_PID"
    run_or_fail "B got the 5000 p3 frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$PFC_TMP/rx2.json" --stream 1 \
        --expect 5000 --first 8000
    pfc_stats_refresh
    check "dpdk-b pfc_pause_transitions_p3" \
        "$(pfc_stat dpdk-b pfc_pause_transitions_p3)" -ge 200
    check "dpdk-b pfc_wd_storms_detected_p3" \
        "$(pfc_stat dpdk-b pfc_wd_storms_detected_p3)" -eq 0
    run_or_fail "no storm logged" \
        bash -c "! grep -q 'PFC storm' '$PFC_TMP/ovs-vswitchd.log'"
    [ "$FAILS" -eq 0 ]
}

# PFC watchdog, action alert, and a storm of XOFF that turns into a storm
# of XON.  The storm is detected, logged and counted, but pauses are still
# honoured: A's p3 frames stay held.  B then sends XON every ms: the held
# frames reach B in order, and the priority is restored 400 ms after the
# last XOFF even though the XON frames keep coming.
test_watchdog_alert_xon_storm() {
    local rec xon_pid
    wd_storm_setup alert 2 300 || return 1
    rec=$PFC_TMP/rx.json
    wait_log "PFC storm on priority 3: paused by the link partner.*alert" \
        "storm on p3 of dpdk-b logged (WARN, action alert)"
    wait_held 300 || FAILS=$((FAILS + 1))
    pfc_stats_refresh
    check "dpdk-b pfc_wd_storms_detected_p3" \
        "$(pfc_stat dpdk-b pfc_wd_storms_detected_p3)" -eq 1
    check "dpdk-b pfc_wd_tx_dropped_p3" \
        "$(pfc_stat dpdk-b pfc_wd_tx_dropped_p3)" -eq 0
    wait_pid "$STORM_PID" 10
    pfc_bg "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" \
        --side B --prio 3 --time 0 --interval 0.001 --duration 3
    xon_pid=$PFC_LAST_PID
    wait_log "PFC storm on priority 3 over after" \
        "p3 restored (INFO) while the XON storm goes on"
    run_or_fail "the XON storm was still running at restoration" \
        kill -0 "$xon_pid"
    wait_held 0 || FAILS=$((FAILS + 1))
    wait_pid "$xon_pid" 10
    sleep 0.5
    pfc_stop_pid "$RECV_PID"
    run_or_fail "B got the 300 p3 frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 1 --expect 300
    pfc_stats_refresh
    check "dpdk-b pfc_wd_storms_restored_p3" \
        "$(pfc_stat dpdk-b pfc_wd_storms_restored_p3)" -eq 1
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    [ "$FAILS" -eq 0 ]
}

# Detection time: 10 storms of XOFF refreshed every ms, 500 ms each, 700 ms
# apart, while A sends p3 frames, 4000 a second.  Each detection (the WARN
# line of ovs-vswitchd.log, ms resolution) must fall at least 200 ms after
# the storm's first XOFF in B's capture, and at most 205 ms after the storm
# surely began: that XOFF, or, if later, the first p3 frame of A after it in
# A's capture (a storm needs packets waiting).
test_watchdog_detection_time() {
    local pcap pcap_a tshark_b stream_pid i
    pfc_setup "$OVS" || return 1
    pcap=$PFC_TMP/b.pcap
    pcap_a=$PFC_TMP/a.pcap
    # At 1 Gb/s an XOFF of 65535 quanta lasts 33.6 ms: B's refreshes keep
    # p3 paused, and the last one runs out soon after each storm.
    pfc_qos dpdk-b pfc-enable=3 link-speed=1G \
        watchdog-detection-time=200 || return 1
    pfc_tshark_start "$PFC_NS_B" "$PFC_IF_B1" "$pcap" || return 1
    tshark_b=$PFC_TSHARK_PID
    pfc_tshark_start "$PFC_NS_A" "$PFC_IF_A1" "$pcap_a" "vlan" || return 1
    pfc_bg "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" \
        --side A --streams 1:3 --count 120000 --rate 4000
    stream_pid=$PFC_LAST_PID
    sleep 1.5
    for i in $(seq 10); do
        "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" \
            --side B --prio 3 --time 65535 --interval 0.001 --duration 0.5 \
            || FAILS=$((FAILS + 1))
        sleep 0.7
    done
    pfc_stop_pid "$stream_pid"
    pfc_tshark_stop
    pfc_stop_pid "$tshark_b" INT
    pfc_stats_refresh
    check "dpdk-b pfc_wd_storms_detected_p3" \
        "$(pfc_stat dpdk-b pfc_wd_storms_detected_p3)" -eq 10
    run_or_fail "each of 10 detections 200-205 ms after its storm began" \
        "$PFC_PY" - "$pcap" "$pcap_a" "$PFC_TMP/ovs-vswitchd.log" <<'PY'
import bisect, calendar, subprocess, sys, time
pcap, pcap_a, log = sys.argv[1:4]


def times(path, filt, field):
    out = subprocess.run(["tshark", "-r", path, "-Y", filt, "-T", "fields",
                          "-e", "frame.time_epoch", "-e", field],
                         capture_output=True, text=True, check=True).stdout
    return [(float(l.split()[0]), l.split()[1]) for l in out.splitlines()
            if len(l.split()) == 2]


xoff = sorted(t for t, v in times(pcap, "macc.cbfc.pause_time.c3",
                                  "macc.cbfc.pause_time.c3") if int(v) > 0)
starts = [t for i, t in enumerate(xoff) if i == 0 or t - xoff[i - 1] > 0.3]
a3 = sorted(t for t, v in times(pcap_a, "vlan.priority == 3",
                                "vlan.priority"))
det = []
for line in open(log):
    if "PFC storm on priority 3: paused" in line:
        ts = line.split("|")[0]
        sec = calendar.timegm(time.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S"))
        det.append(sec + float("0" + ts[19:23]))
print("storms (first XOFF in B's capture): %d, detections logged: %d, "
      "A's p3 frames captured: %d" % (len(starts), len(det), len(a3)))
ok = len(starts) == 10 and len(det) == 10
for s_, d in zip(starts, det):
    i = bisect.bisect_left(a3, s_)
    began = max(s_, a3[i]) if i < len(a3) else s_
    ms = (d - began) * 1000
    # Not before 200 ms after the first XOFF (the log has ms resolution,
    # and the watchdog counts TSC cycles at the frequency DPDK reports,
    # which may differ a little from the wall clock's: 0.5 ms of slack,
    # 0.25%), nor after 205 ms from A's first p3
    # frame after it.  The storm may begin before that frame: a p3 frame
    # that A sent just before the XOFF can still be on its way, and then
    # waits as soon as the pause begins.
    good = 200 - 1.5 <= (d - s_) * 1000 and ms <= 205
    ok = ok and good
    print("  detection %.1f ms after the storm began (%.1f ms after its "
          "first XOFF)%s" % (ms, (d - s_) * 1000,
                             "" if good else "  <-- outside 200..205 ms"))
sys.exit(0 if ok else 1)
PY
    [ "$FAILS" -eq 0 ]
}
