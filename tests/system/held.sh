# System tests of packets held by a pause: enabled priorities only, XON
# on a change, held packets across reconfiguration, removal, a link that
# goes down, pmd-maxsleep, a remap, TSO, copies, a full class queue, sourced by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# Received pauses act only on priorities in pfc-enable.  B pauses p3 and p4
# of dpdk-b, whose pfc-enable is 3; A sends a p3 stream and a p4 stream.
# The p3 frames are held until B's XON; the p4 frames pass at once, and the
# time asked for p4 is counted as ignored.
test_rx_enabled_only() {
    local rec
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/rx.json
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    start_recv "$rec"
    pause_p3 --prio 3,4 --xon-on-exit
    "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" --side A \
        --streams 1:3,2:4 --count 50 --rate 1000 || FAILS=$((FAILS + 1))
    wait_held 50 || FAILS=$((FAILS + 1))
    check "held p4 packets" \
        "$(pfc_show dpdk-b | awk '$1 == "p4" { print $5 }')" -eq 0
    run_or_fail "p4 is not_paused in pfc/show" \
        test "$(pfc_show dpdk-b | awk '$1 == "p4" { print $3 }')" = not_paused
    xon_drain_check "$rec" 50
    run_or_fail "B got the 50 p4 frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 2 --expect 50
    check "dpdk-b pfc_rx_ignored_p4" \
        "$(pfc_stat dpdk-b pfc_rx_ignored_p4)" -ge 1
    check "dpdk-b pfc_rx_ignored_p4 = pfc_rx_frames_p4" \
        "$(pfc_stat dpdk-b pfc_rx_ignored_p4)" -eq \
        "$(pfc_stat dpdk-b pfc_rx_frames_p4)"
    check "dpdk-b pfc_rx_ignored_p3" \
        "$(pfc_stat dpdk-b pfc_rx_ignored_p3)" -eq 0
    check "dpdk-b pfc_pause_transitions_p4" \
        "$(pfc_stat dpdk-b pfc_pause_transitions_p4)" -eq 0
    [ "$FAILS" -eq 0 ]
}

# held_behind_xoff XOFF-BYTES NAME: dpdk-a with PFC on p3 (1G, XOFF at
# XOFF-BYTES, XON at 2000) and dpdk-b with PFC on p3 (10M); a capture of
# the PFC frames A receives into $PFC_TMP/NAME; B pauses p3 of dpdk-b
# (pause_p3) and A sends 100 p3 frames, held at dpdk-b, which push dpdk-a
# past its XOFF.
held_behind_xoff() {
    pfc_setup "$OVS" || return 1
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G xoff-threshold="$1" \
        xon-threshold=2000 || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    pfc_tshark_start "$PFC_NS_A" "$PFC_IF_A1" "$PFC_TMP/$2" || return 1
    pause_p3
    send_p3 100 || FAILS=$((FAILS + 1))
    wait_held 100 || FAILS=$((FAILS + 1))
}

# XON before PFC goes: dpdk-a asserts XOFF for p3 (B pauses dpdk-b, which
# holds A's p3 frames past dpdk-a's xoff-threshold).  Then, in turn, a QoS
# change that drops p3 from dpdk-a's pfc-enable, removing dpdk-a's QoS, and
# deleting dpdk-a must each send A an XON for p3 at once, rather than leave A
# paused until its 65535-quanta timer runs out.  tshark in A is the oracle.
test_xon_on_change() {
    local pcap lines q
    held_behind_xoff 8000 a.pcap || return 1
    pcap=$PFC_TMP/a.pcap
    # xoff_p3: whether dpdk-a asserts XOFF for p3 now (pfc/show "xoff").
    xoff_p3() { pfc_show dpdk-a | awk '$1 == "p3" { print $9 }'; }
    wait_xoff() {       # wait_xoff yes|no WHAT
        local i
        for i in $(seq 50); do
            [ "$(xoff_p3)" = "$1" ] && { pfc_log "ok: $2"; return 0; }
            sleep 0.1
        done
        pfc_log "FAIL: $2 (xoff of p3 on dpdk-a: $(xoff_p3))"
        FAILS=$((FAILS + 1))
    }
    wait_xoff yes "dpdk-a asserts XOFF for p3"
    q=$(pfc_vsctl get Port dpdk-a qos)

    # 1. p3 leaves pfc-enable.
    pfc_vsctl set QoS "$q" other_config:pfc-enable=4 || FAILS=$((FAILS + 1))
    wait_xoff no "XOFF withdrawn when p3 leaves pfc-enable"
    sleep 0.3
    # 2. p3 back (the charge is still high: XOFF again), then the QoS goes.
    pfc_vsctl set QoS "$q" other_config:pfc-enable=3 || FAILS=$((FAILS + 1))
    wait_xoff yes "XOFF again when p3 is back in pfc-enable"
    sleep 0.3
    pfc_vsctl clear Port dpdk-a qos || FAILS=$((FAILS + 1))
    sleep 1
    # 3. A QoS again (XOFF again), then the port goes.
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G xoff-threshold=8000 \
        xon-threshold=2000 || FAILS=$((FAILS + 1))
    wait_xoff yes "XOFF again with a new QoS"
    sleep 0.3
    pfc_vsctl del-port br0 dpdk-a || FAILS=$((FAILS + 1))
    sleep 1
    pfc_tshark_stop
    pfc_stop_pid "$PAUSE_PID"
    # Fields: 1 time, 2 src, 3 dst, 4 opcode, 5 vector, 6..13 e[0..7],
    # 14..21 time[0..7].  The p3 times in order, runs collapsed: XOFF
    # (65535) then XON (0), three times.
    lines=$(pfc_tshark_pfc "$pcap")
    local seq
    seq=$(awk '$9 == 1 { print ($17 ? "XOFF" : "XON") }' <<<"$lines" \
          | uniq | tr '\n' ' ')
    pfc_log "p3 in dpdk-a's PFC frames, runs collapsed: $seq"
    check "XOFF/XON cycles for p3 (change, removal, deletion)" \
        "$(grep -o 'XOFF XON' <<<"$seq" | wc -l)" -eq 3
    check "the last frame for p3 is an XON" \
        "$(awk '$9 == 1 { t = $17 } END { print t }' <<<"$lines")" -eq 0
    check "no frame names p4 (enabled only while p3 was not)" \
        "$(awk '$10 == 1 && $18 != 0' <<<"$lines" | wc -l)" -eq 0
    [ "$FAILS" -eq 0 ]
}

# Reconfiguration and port deletion while packets are held: a change of a
# pfc key keeps the held packets (none freed, none dropped); deleting the
# port frees them (no leak: the mempool gets them back), counts them, and
# logs it; ovs-vswitchd keeps running.
test_reconfig_held() {
    local log i
    pfc_setup "$OVS" || return 1
    log=$PFC_TMP/ovs-vswitchd.log
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1

    # B keeps priority 3 of dpdk-b paused (65535 quanta at 10M = 3.4 s,
    # refreshed every 0.5 s); A sends 100 p3 frames, all held.
    pause_p3
    send_p3 100 || FAILS=$((FAILS + 1))
    wait_held 100 || FAILS=$((FAILS + 1))

    # Changing the QoS keeps the 100 held packets, and a smaller queue-size
    # than they fill still keeps them (with explicit thresholds: the derived
    # headroom at 10M needs 127 packets).
    local size
    for size in 2048 50; do
        pfc_vsctl set QoS "$(pfc_vsctl get Port dpdk-b qos)" \
            other_config:queue-size=$size other_config:xoff-threshold=4000 \
            || FAILS=$((FAILS + 1))
        for i in $(seq 30); do
            pfc_show dpdk-b | grep -q "queue-size: $size packets" && break
            sleep 0.1
        done
        run_or_fail "queue-size $size in force" \
            bash -c "'$PFC_OVS/utilities/ovs-appctl' pfc/show dpdk-b \
                     | grep -q 'queue-size: $size packets'"
        check "held p3 packets after queue-size=$size" "$(held_p3)" -eq 100
    done
    run_or_fail "log: no held packet freed by the changes" \
        bash -c "! grep 'held packets' '$log' | grep -qv 'requeued'"
    pfc_stats_refresh
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0

    # Deleting the port frees and counts them.
    pfc_vsctl del-port br0 dpdk-b || FAILS=$((FAILS + 1))
    for i in $(seq 50); do
        grep -q 'dpdk-b: PFC no longer applies: 0 held packets sent, 100 freed' \
            "$log" && break
        sleep 0.1
    done
    run_or_fail "log: 100 held packets freed on port deletion" \
        grep -q 'dpdk-b: PFC no longer applies: 0 held packets sent, 100 freed' \
        "$log"
    run_or_fail "ovs-vswitchd still answers" pfc_appctl version
    run_or_fail "pfc/show: no port dpdk-b any more" \
        grep -q "no such port" <<<"$(pfc_show dpdk-b)"
    pfc_stop_pid "$PAUSE_PID"
    [ "$FAILS" -eq 0 ]
}

# Removing PFC from a port that holds packets restarts nothing and loses
# nothing it can send: the PMD threads hand the held packets to the NIC as
# the pause allows, with the XON the port owes, and only then does the port
# lose its QoS.  What a pause keeps held for 1 s after the removal is freed
# and counted.  B pauses priority 3 of dpdk-b; A sends 100 p3 frames, held;
# the QoS is removed; B's XON 0.5 s later lets all 100 leave, in order.
# Then again, but B keeps pausing: the 100 are freed after 1 s, counted in
# tx_dropped.  No line of a port restart in the log throughout.
test_remove_held() {
    local log rec port_id restart_re r0 r1 drop0 drop1 i
    local sent_re="dpdk-b: PFC removed: XON and held packets sent"
    local freed_re="dpdk-b: PFC removed: 100 packets still held after 1000 ms freed"
    pfc_setup "$OVS" || return 1
    log=$PFC_TMP/ovs-vswitchd.log
    rec=$PFC_TMP/remove.json
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    port_id=$(pfc_show dpdk-b | sed -n 's/^ *dpdk port \([0-9]*\),.*/\1/p')
    restart_re="dpdk-b: PFC: tx ring of|assigned port 'dpdk-b'"
    restart_re+="|netdev_dpdk\|INFO\|Port ${port_id:-unknown}: "
    r0=$(grep -cE "$restart_re" "$log")

    start_recv "$rec"
    pause_p3 --xon-on-exit
    send_p3 100 || FAILS=$((FAILS + 1))
    wait_held 100 || FAILS=$((FAILS + 1))
    pfc_vsctl clear Port dpdk-b qos || FAILS=$((FAILS + 1))
    sleep 0.5
    check "held p3 packets 0.5 s after the removal, B still pausing" \
        "$(held_p3)" -eq 100
    pfc_stop_pid "$PAUSE_PID"
    for i in $(seq 50); do
        grep -q "$sent_re" "$log" && break
        sleep 0.1
    done
    run_or_fail "log: \"$sent_re\"" grep -q "$sent_re" "$log"
    run_or_fail "pfc/show: dpdk-b has no QoS pfc any more" \
        grep -q "dpdk-b: no QoS pfc" <<<"$(pfc_show dpdk-b)"
    sleep 0.5
    pfc_stop_pid "$RECV_PID"
    run_or_fail "B got the 100 p3 frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 1 --expect 100

    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    pfc_stats_refresh
    drop0=$(pfc_stat dpdk-b tx_dropped)
    pause_p3
    send_p3 100 100 || FAILS=$((FAILS + 1))
    wait_held 100 || FAILS=$((FAILS + 1))
    pfc_vsctl clear Port dpdk-b qos || FAILS=$((FAILS + 1))
    for i in $(seq 30); do
        grep -q "$freed_re" "$log" && break
        sleep 0.1
    done
    run_or_fail "log: \"$freed_re\"" grep -q "$freed_re" "$log"
    pfc_stop_pid "$PAUSE_PID"
    pfc_stats_refresh
    drop1=$(pfc_stat dpdk-b tx_dropped)
    check_stat_delta "dpdk-b tx_dropped: the 100 freed" "$drop0" "$drop1" \
        -eq 100

    r1=$(grep -cE "$restart_re" "$log")
    check "log: lines of a restart of dpdk-b" "$(delta "$r0" "$r1")" -eq 0
    [ "$r1" -gt "$r0" ] && grep -E "$restart_re" "$log" | tail -n +$((r0 + 1))
    [ "$FAILS" -eq 0 ]
}

# check_xoff_then_xon PCAP: 0.5 s on, stops the capture of A (PCAP) and
# checks that dpdk-a sent A an XOFF for p3 and that its last PFC frame is
# an XON for p3.
check_xoff_then_xon() {
    local lines
    sleep 0.5
    pfc_tshark_stop
    lines=$(pfc_tshark_pfc "$1")
    pfc_log "tshark: PFC frames captured in A:"
    pfc_log "$lines"
    # Fields: 1 time, 2 src, 3 dst, 4 opcode, 5 vector, 6..13 e[0..7],
    # 14..21 time[0..7].
    check "tshark: XOFF frames for p3 from dpdk-a" \
        "$(awk '$9 == 1 && $17 > 0' <<<"$lines" | wc -l)" -ge 1
    check "tshark: the last PFC frame is an XON for p3 (time[3] of last)" \
        "$(tail -1 <<<"$lines" | awk '{print $17}')" -eq 0
}

# A port that goes down releases what it holds.  B pauses priority 3 of
# dpdk-b and A sends 100 p3 frames, held there; they fill dpdk-a's priority
# group past its XOFF, so dpdk-a sends A an XOFF.  dpdk-b is then taken
# down (ovs-ofctl mod-port down): within 1 s it holds nothing, the 100 are
# counted as hold drops and in tx_dropped, and dpdk-a sends A an XON.
# While down it holds nothing; up again, it holds as before.
test_down_releases() {
    local pcap drop0 drop1 hd0 hd1 i
    held_behind_xoff 4000 a.pcap || return 1
    pcap=$PFC_TMP/a.pcap
    pfc_stats_refresh
    drop0=$(pfc_stat dpdk-b tx_dropped)
    hd0=$(pfc_stat dpdk-b pfc_hold_drops_p3)

    pfc_ofctl mod-port br0 dpdk-b down || FAILS=$((FAILS + 1))
    for i in $(seq 10); do
        [ "$(held_p3)" = 0 ] && break
        sleep 0.1
    done
    check "dpdk-b held p3 packets 1 s after it went down" "$(held_p3)" -eq 0
    check_xoff_then_xon "$pcap"
    hd1=$(pfc_stat_until dpdk-b pfc_hold_drops_p3 "$hd0" 100)
    drop1=$(pfc_stat_until dpdk-b tx_dropped "$drop0" 100)
    check_stat_delta "dpdk-b tx_dropped" "$drop0" "$drop1" -ge 100
    check_stat_delta "dpdk-b pfc_hold_drops_p3" "$hd0" "$hd1" -eq 100
    run_or_fail "log: dpdk-b went down for PFC" \
        grep -q "dpdk-b: PFC: port down (admin)" "$PFC_TMP/ovs-vswitchd.log"

    send_p3 20 100 || FAILS=$((FAILS + 1))
    sleep 0.3
    check "dpdk-b held p3 packets while down" "$(held_p3)" -eq 0

    pfc_ofctl mod-port br0 dpdk-b up || FAILS=$((FAILS + 1))
    sleep 1
    send_p3 20 120 || FAILS=$((FAILS + 1))
    wait_held 20 || FAILS=$((FAILS + 1))
    pfc_stop_pid "$PAUSE_PID"
    [ "$FAILS" -eq 0 ]
}

# An XOFF in force when its port goes down.  dpdk-a asserts XOFF for p3
# (held_behind_xoff) and is taken down; then B's pause of dpdk-b runs out
# and the 100 held there leave, so dpdk-a's group falls below its XON
# threshold.  A port that is down sends nothing, so it owes that XON with
# no reason for deferred work counted meanwhile (flush_reasons 0).  Up
# again, it sends A the XON.
test_down_xoff() {
    local pcap
    held_behind_xoff 4000 a.pcap || return 1
    pcap=$PFC_TMP/a.pcap
    xoff_p3() { pfc_show dpdk-a | awk '$1 == "p3" { print $9 }'; }
    run_or_fail "dpdk-a asserts XOFF for p3" test "$(xoff_p3)" = yes
    pfc_ofctl mod-port br0 dpdk-a down || FAILS=$((FAILS + 1))
    pfc_stop_pid "$PAUSE_PID"
    wait_held 0 || FAILS=$((FAILS + 1))
    wait_flush_reasons 0 || FAILS=$((FAILS + 1))
    run_or_fail "dpdk-a, down, still owes the XON for p3" test "$(xoff_p3)" = yes

    pfc_ofctl mod-port br0 dpdk-a up || FAILS=$((FAILS + 1))
    wait_flush_reasons 0 || FAILS=$((FAILS + 1))
    run_or_fail "dpdk-a, up again, sent the XON for p3" test "$(xoff_p3)" = no
    check_xoff_then_xon "$pcap"
    [ "$FAILS" -eq 0 ]
}

# pmd-maxsleep does not delay PFC.  With pmd-maxsleep=10000 (10 ms), dpdk-a
# at link-speed=10G keeps A in XOFF while B pauses dpdk-b and 100 p3 frames
# from A are held there: each XOFF lasts 65535 quanta, 3.36 ms at 10 Gb/s,
# and the refreshes that A captures over 2 s must come on time (99th
# percentile of the gaps under 2000 us, against 3321 us with sleeping PMD
# threads), although the traffic is light enough for an idle PMD to sleep.
test_maxsleep_refresh() {
    local pcap lines gaps max n p99
    pfc_setup "$OVS" || return 1
    pcap=$PFC_TMP/a.pcap
    pfc_vsctl set Open_vSwitch . other_config:pmd-maxsleep=10000 || return 1
    pfc_qos dpdk-a pfc-enable=3 link-speed=10G xoff-threshold=4000 \
        xon-threshold=2000 || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    pause_p3
    send_p3 100 || FAILS=$((FAILS + 1))
    wait_held 100 || FAILS=$((FAILS + 1))
    pfc_tshark_start "$PFC_NS_A" "$PFC_IF_A1" "$pcap" || return 1
    sleep 2
    pfc_tshark_stop
    pfc_stop_pid "$PAUSE_PID"
    lines=$(pfc_tshark_pfc "$pcap")
    # Fields: 1 time, ..., 9 e[3], ..., 17 time[3].
    n=$(awk '$9 == 1 && $17 == 65535' <<<"$lines" | wc -l)
    check "tshark: XOFF frames for p3 from dpdk-a in 2 s" "$n" -ge 100
    gaps=$(awk '$9 == 1 && $17 == 65535 {
                    if (prev != "") printf "%d\n", ($1 - prev) * 1000000
                    prev = $1 }' <<<"$lines" | sort -n)
    max=$(tail -1 <<<"$gaps")
    pfc_log "gaps between XOFF refreshes (us): median" \
        "$(awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}' <<<"$gaps")," \
        "p99 $(awk '{a[NR]=$1} END {print a[int(NR*0.99)]}' <<<"$gaps")," \
        "max $max"
    # The refresh period is half the pause (1678 us).  A descheduled PMD
    # thread (this runs on shared virtual machines) can make one gap long;
    # sleeping makes many: the 99th percentile stays within 2000 us.
    p99=$(awk '{a[NR]=$1} END {print a[int(NR*0.99)]}' <<<"$gaps")
    check "99th percentile of the gaps between XOFF refreshes, us" \
        "${p99:-999999}" -lt 2000
    [ "$FAILS" -eq 0 ]
}

# A change of the priority to traffic class map while packets are held keeps
# each priority in order.  B pauses priority 3 of dpdk-b; 100 p3 frames are
# held in class 3; priority 3 is mapped to class 1; 100 more are held, now in
# class 1; then XON.  Class 1 is drained before class 3, so without moving
# the first 100 to class 1 the second 100 would overtake them.  B must get
# all 200 in order.
test_remap_held() {
    local rec i
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/remap.json
    tc3() { pfc_show dpdk-b | awk '$1 == "p3" { print $2 }'; }
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    start_recv "$rec"
    pause_p3 --xon-on-exit
    send_p3 100 || FAILS=$((FAILS + 1))
    wait_held 100 || FAILS=$((FAILS + 1))
    check "held in class 3" "$(tc3)" -eq 3

    pfc_vsctl -- --id=@q1 create Queue other_config:priorities=1,3 \
        -- set QoS "$(pfc_vsctl get Port dpdk-b qos)" queues:1=@q1 \
        >/dev/null || FAILS=$((FAILS + 1))
    for i in $(seq 50); do
        [ "$(tc3)" = 1 ] && break
        sleep 0.1
    done
    check "priority 3 now in class 1" "$(tc3)" -eq 1
    check "still held after the change" "$(held_p3)" -eq 100
    # Requeued with no copy under a tx queue lock: nothing was held meanwhile.
    run_or_fail "log: 100 requeued, 0 entries copied under a lock" \
        grep -q 'dpdk-b: PFC: 100 held packets requeued for the new traffic classes; 0 queue entries copied under a tx queue lock' \
        "$PFC_TMP/ovs-vswitchd.log"
    send_p3 100 100 || FAILS=$((FAILS + 1))
    wait_held 200 || FAILS=$((FAILS + 1))

    xon_drain_check "$rec" 200
    [ "$FAILS" -eq 0 ]
}

# A change of the map that takes a priority out of a paused class releases
# what that class held of it, without waiting for the pause to end.  Class 1
# holds priorities 3 and 4 (a Queue row); B pauses priority 3 once, for
# 65535 quanta at 1 Mb/s (33.5 s, not refreshed: no PFC frame arrives
# meanwhile); 50 p4 frames are held in class 1 and the PMD threads' flush
# pass goes quiet (no reason for deferred work counted).  Priority 4 then
# gets a class of its own: the 50 frames must reach B, in order, long before
# the pause ends.
test_remap_releases() {
    local rec q1
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/remap-releases.json
    held_p4() { pfc_show dpdk-b | awk '$1 == "p4" { print $5 }'; }
    pfc_qos dpdk-b pfc-enable=3 link-speed=1M || return 1
    q1=$(pfc_vsctl -- --id=@q1 create Queue other_config:priorities=3,4 \
        -- set QoS "$(pfc_vsctl get Port dpdk-b qos)" queues:1=@q1) \
        || FAILS=$((FAILS + 1))
    start_recv "$rec"
    "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" --side B \
        --prio 3 --time 65535 || FAILS=$((FAILS + 1))
    sleep 0.2
    "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" --side A \
        --streams 2:4 --count 50 --rate 1000 || FAILS=$((FAILS + 1))
    wait_output 50 "p4 packets held at dpdk-b" held_p4 || FAILS=$((FAILS + 1))
    wait_flush_reasons 0 || FAILS=$((FAILS + 1))

    pfc_vsctl set Queue "$q1" other_config:priorities=3 \
        || FAILS=$((FAILS + 1))
    wait_output 0 "p4 packets held at dpdk-b after the change" held_p4 \
        || FAILS=$((FAILS + 1))
    "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" --side B \
        --prio 3 --time 0 || FAILS=$((FAILS + 1))
    sleep 0.5
    pfc_stop_pid "$RECV_PID"
    run_or_fail "B got the 50 p4 frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 2 --expect 50
    [ "$FAILS" -eq 0 ]
}

# With userspace TSO, held packets are prepared for the NIC when they are
# released (rte_eth_tx_prepare(), as netdev-dpdk does for what it sends):
# 100 p3 frames held behind a pause all reach B, in order, after XON.
test_tso_held() {
    local rec
    PFC_OTHER_CONFIG="other_config:userspace-tso-enable=true"
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/tso.json
    run_or_fail "log: userspace TSO enabled" \
        grep -qi 'userspace TCP Segmentation Offloading support enabled' \
        "$PFC_TMP/ovs-vswitchd.log"
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    start_recv "$rec"
    pause_p3 --xon-on-exit
    send_p3 100 || FAILS=$((FAILS + 1))
    wait_held 100 || FAILS=$((FAILS + 1))
    xon_drain_check "$rec" 100
    [ "$FAILS" -eq 0 ]
}

# Copies made by the datapath are charged to the ingress port too.  A flow
# outputs every frame from A to dpdk-b twice: the first output is a copy
# (the datapath clones the packet, netdev-dpdk copies it into a new mbuf),
# the second the frame itself.  While B pauses priority 3, 50 p3 frames are
# held twice over, and dpdk-a's ingress charge must count all 100 packets;
# after XON, all 100 reach B and the charge is back to 0.
test_copies_charged() {
    local rec
    ingress_p3() { pfc_show dpdk-a | awk '$1 == "p3" { print $8 }'; }
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/copies.json
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    pfc_qos dpdk-a pfc-enable=3 link-speed=10G xoff-threshold=1000000 \
        || return 1
    pfc_ofctl del-flows br0 in_port=dpdk-a || return 1
    pfc_ofctl add-flow br0 \
        in_port=dpdk-a,actions=output:dpdk-b,output:dpdk-b || return 1
    start_recv "$rec"
    pause_p3 --xon-on-exit
    send_p3 50 || FAILS=$((FAILS + 1))
    wait_held 100 || FAILS=$((FAILS + 1))
    check "dpdk-a ingress charge of p3, packets" "$(ingress_p3)" -eq 100
    xon_and_drain
    check "dpdk-a ingress charge of p3 after XON" "$(ingress_p3)" -eq 0
    run_or_fail "B got each of the 50 p3 frames twice" "$PFC_PY" -c '
import collections, json, sys
seqs = [x[4] for x in json.load(open(sys.argv[1]))["data"] if x[1] == 1]
count = collections.Counter(seqs)
print("frames:", len(seqs), "distinct:", len(count))
assert sorted(count) == list(range(50)) and set(count.values()) == {2}
' "$rec"
    [ "$FAILS" -eq 0 ]
}

# A paused class whose hold queue is full drops, and counts, what does not
# fit: queue-size 40, 100 frames of priority 3 while B pauses it.
test_hold_full() {
    pfc_setup "$OVS" || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M queue-size=40 \
        xoff-threshold=100000 || return 1
    pause_p3
    send_p3 100 || FAILS=$((FAILS + 1))
    wait_held 40 || FAILS=$((FAILS + 1))
    pfc_stats_refresh
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 60
    check "pfc/show hold-drops of p3" \
        "$(pfc_show dpdk-b | awk '$1 == "p3" { print $14 }')" -eq 60
    pfc_stop_pid "$PAUSE_PID"
    [ "$FAILS" -eq 0 ]
}
