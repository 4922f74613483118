# System tests with two guests on vhost-user ports bridged to an uplink, sourced by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# Two guests at once (guest.sh): guest 0 bridged to host C, guest 1 to host
# D.

# vhost2_setup: pfc_setup, hosts C and D, and guests 0 and 1 on ports vhost0
# and vhost1 (dpdkvhostuser), forwarding to C and D; no flows.  The
# hugepages that pfc_setup makes sure are free cover ovs-vswitchd's ports
# (about 130 pages) and both guests' PFC_GUEST_MEM.
vhost2_setup() {
    local g need=$((192 + PFC_GUEST_MEM))
    [ "$PFC_HUGEPAGES_FREE" -ge "$need" ] || PFC_HUGEPAGES_FREE=$need
    pfc_setup "$OVS" || return 1
    pfc_net_add_host C || return 1
    pfc_net_add_host D || return 1
    for g in 0 1; do
        pfc_vsctl add-port br0 "vhost$g" -- set Interface "vhost$g" \
            type=dpdkvhostuser || return 1
        pfc_iface_ok "vhost$g" || return 1
        pfc_guest_start -g "$g" "$PFC_TMP/vhost$g" || return 1
    done
    for g in 0 1; do
        pfc_guest_wait -g "$g" || return 1
    done
    for g in 0 1; do
        wait_log "vHost Device '.*/vhost$g' has been added" \
            "guest $g attached to vhost$g" || return 1
    done
    pfc_ofctl del-flows br0 || return 1
}

# batch_sender PORT SRC DST STREAMS COUNT RATE: a pfc_peer.py stream on PORT
# (NETNS:IFACE), from MAC SRC to MAC DST, that sends COUNT frames of each of
# STREAMS, RATE frames/s in all (0: flat out), when it gets SIGUSR1.  Returns
# once it is ready (scapy loaded: that takes seconds on a loaded machine),
# with its PID in SENDER_PID, so that senders can be started together.
SENDERS=0
batch_sender() {
    local ready i
    SENDERS=$((SENDERS + 1))
    ready=$PFC_TMP/sender$SENDERS.ready
    pfc_bg "$PFC_PY" "$PFC_PEER" stream --port "$1" --side A --src "$2" \
        --dst "$3" --batch "$4@$5@$6" --ready "$ready"
    SENDER_PID=$PFC_LAST_PID
    for i in $(seq 300); do
        [ -e "$ready" ] && return 0
        kill -0 "$SENDER_PID" 2>/dev/null || break
        sleep 0.1
    done
    pfc_log "FAIL: the sender of streams $4 on $1 did not get ready"
    FAILS=$((FAILS + 1))
    return 1
}

# guest_sender G STREAMS COUNT RATE [DST]: batch_sender on the host behind
# guest G (C for guest 0, D for guest 1), from its MAC to B's, or to DST:
# the frames go through the guest into its vhost-user port.
guest_sender() {
    local x=${PFC_GUEST_HOSTS[$1]}
    batch_sender "$(pfc_host_port "$x")" "$(pfc_host_var "$x" MAC)" \
        "${5:-$PFC_MAC_B}" "$2" "$3" "$4"
}

# guest_tx PORT: "stopped" or "running", the guest's transmit on vhost-user
# PORT (pfc/show).
guest_tx() {
    pfc_show "$1" | sed -n 's/^ *guest tx: \([a-z]*\).*/\1/p'
}

# wait_guest_tx PORT STATE SECONDS: waits until guest_tx PORT is STATE.
wait_guest_tx() {
    local i
    for i in $(seq $(($3 * 10))); do
        [ "$(guest_tx "$1")" = "$2" ] && { pfc_log "ok: $1: guest tx $2"
                                          return 0; }
        sleep 0.1
    done
    pfc_log "FAIL: $1: guest tx $(guest_tx "$1"), expected $2"
    FAILS=$((FAILS + 1))
    return 1
}

# wd_p3 PORT: "STATE DETECTED RESTORED" of the watchdog of priority 3 of
# PORT, from pfc/show; STATE is operational or stormed.
wd_p3() {
    pfc_show "$1" | awk '$1 == "watchdog" && $2 == "p3:" {
        gsub(",", ""); print $3, $6, $8 }'
}

# wait_wd_p3 PORT STATE MIN SECONDS: waits until the watchdog of p3 of PORT
# detected at least MIN storms and is in STATE (operational, stormed, or
# any).
wait_wd_p3() {
    local i st det res
    for i in $(seq $(($4 * 10))); do
        read -r st det res <<<"$(wd_p3 "$1")"
        if [ "${det:-0}" -ge "$3" ] && { [ "$2" = any ] \
                                         || [ "$st" = "$2" ]; }; then
            pfc_log "ok: watchdog p3 of $1: $st, $det storms detected," \
                    "$res restored"
            return 0
        fi
        sleep 0.1
    done
    pfc_log "FAIL: watchdog p3 of $1: $st, ${det:-?} storms detected," \
            "${res:-?} restored; expected $2 after at least $3"
    FAILS=$((FAILS + 1))
    return 1
}

# Two guests each send a lossless p3 stream, which hosts C and D hand them,
# towards dpdk-b while B pauses p3 there.  dpdk-b holds both streams; the
# packets of each guest count against its own priority group (vhost0 p3,
# vhost1 p3), and once one holds 3000 bytes the switch stops dequeuing that
# guest, whatever the other does.  After B's XON both guests are read again
# and both streams reach B complete, in order.  The guests' thresholds are
# static (xoff-threshold) so that both stops are certain: the dynamic
# default is a share of a shared pool of tens of thousands of cells, which
# 200 frames do not reach.  200 frames, less the 24 or more the switch took
# before it stopped the guest, fit in the guest's transmit virtqueue (256),
# so no guest waits in testpmd's 2 s retry, however long the pause lasts.
# dpdk-b's watchdog is off: the pause is intended.
test_vhost_two_guests_uplink() {
    local n=200 rec g i pid pause_pid senders=() tx0=() tx1=() held
    vhost2_setup || return 1
    rec=$PFC_TMP/rx.json
    for g in 0 1; do
        pfc_ofctl add-flow br0 "in_port=vhost$g,actions=output:dpdk-b" \
            || return 1
        pfc_qos "vhost$g" pfc-enable=3 xoff-threshold=3000 \
            xon-threshold=1000 || return 1
    done
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M watchdog-detection-time=0 \
        || return 1
    start_recv "$rec"
    # Guest g's host sends stream g + 1.
    for g in 0 1; do
        guest_sender "$g" "$((g + 1)):3" "$n" 1000 || return 1
        senders+=("$SENDER_PID")
        tx0[g]=$(pfc_guest_stat -g "$g" 0 TX-packets)
    done
    # B pauses p3 of dpdk-b: 65535 quanta (3.4 s at 10M), refreshed every
    # 0.1 s, until it is stopped; then it sends XON.
    pfc_bg "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" \
        --side B --prio 3 --time 65535 --interval 0.1 --duration 120 \
        --xon-on-exit
    pause_pid=$PFC_LAST_PID
    for i in $(seq 100); do
        [ "$(pfc_show dpdk-b | awk '$1 == "p3" { print $3 }')" = paused ] \
            && break
        sleep 0.1
    done
    run_or_fail "B's pause of p3 in force at dpdk-b" \
        test "$(pfc_show dpdk-b | awk '$1 == "p3" { print $3 }')" = paused
    kill -USR1 "${senders[@]}"
    for pid in "${senders[@]}"; do
        wait_pid "$pid" 30
    done
    for g in 0 1; do
        wait_guest_tx "vhost$g" stopped 10
        check "bytes of guest $g that the switch holds (its p3 group)" \
            "$(pfc_show "vhost$g" | awk '$1 == "p3" { print $5 }')" -ge 3000
    done
    held=$(held_p3)
    pfc_appctl pfc/buffer
    check "p3 packets dpdk-b holds for the two guests" "$held" -gt 0
    pfc_stop_pid "$pause_pid"
    wait_held 0 || FAILS=$((FAILS + 1))
    for g in 0 1; do
        wait_guest_tx "vhost$g" running 10
    done
    sleep 1
    pfc_stop_pid "$RECV_PID"
    pfc_show vhost0
    pfc_show vhost1
    for g in 0 1; do
        run_or_fail "B got guest $g's $n p3 frames, once each and in order" \
            "$PFC_PY" "$PFC_PEER" check "$rec" --stream "$((g + 1))" \
            --expect "$n"
        tx1[g]=$(pfc_guest_stat -g "$g" 0 TX-packets)
        check "frames guest $g sent to vhost$g" \
            "$(delta "${tx0[g]}" "${tx1[g]}")" -eq "$n"
    done
    pfc_stats_refresh
    for g in 0 1; do
        check "vhost$g pfc_vhost_stops_p3 (guest $g was stopped)" \
            "$(pfc_stat "vhost$g" pfc_vhost_stops_p3)" -ge 1
        check "vhost$g pfc_vhost_stopped (running again)" \
            "$(pfc_stat "vhost$g" pfc_vhost_stopped)" -eq 0
        check "vhost$g pfc_headroom_drops_p3" \
            "$(pfc_stat "vhost$g" pfc_headroom_drops_p3)" -eq 0
    done
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    [ "$FAILS" -eq 0 ]
}

# Guest 1 stops reading (testpmd "stop") while A sends it lossless p3
# frames through dpdk-a (PFC, XOFF at 8000 bytes): once its receive
# virtqueue is full, vhost1 holds them, and vhost1's watchdog (200 ms,
# action drop) declares the storm and drops them.  Meanwhile guest 0 sends a
# p3 stream, which host C hands it, to dpdk-b, which B does not pause: B
# gets all of it, in order, and guest 0 is never stopped.
#
# Then guest 0 also sends to the stalled guest 1: a burst of 100 p3 frames to
# D's MAC, which a flow sends to vhost1, in the middle of a second stream to
# B.  Once vhost1's first storm is over (restored after 400 ms without a
# refused packet), vhost1 holds the burst again, now counted against
# guest 0's priority group (xoff-threshold 3000 bytes, about 24 frames, which
# the burst exceeds at once): the switch stops dequeuing guest 0, and its
# stream to B waits too.  The watchdog detects the second storm 200 ms
# later and drops what vhost1 holds and the rest of the burst; guest 0 runs
# again, and B still gets its whole second stream, in order.  The burst is
# sent flat out, so that guest 0 is stopped long before the watchdog's
# 200 ms run out, and the stop (about 200 ms) is well within what guest 0's
# virtqueue, its net_af_packet ring and testpmd's 2 s retry absorb.
test_vhost_stalled_guest_other_traffic() {
    local n=1000 burst=100 rec pa pc pd tx0 tx1 tx2 stops1 wd1 st det res
    vhost2_setup || return 1
    rec=$PFC_TMP/rx.json
    pfc_ofctl add-flow br0 "priority=10,in_port=dpdk-a,actions=output:vhost1" \
        || return 1
    pfc_ofctl add-flow br0 "priority=10,in_port=vhost0,actions=output:dpdk-b" \
        || return 1
    pfc_ofctl add-flow br0 \
        "priority=20,in_port=vhost0,dl_dst=$PFC_MAC_D,actions=output:vhost1" \
        || return 1
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G xoff-threshold=8000 \
        xon-threshold=4000 || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    pfc_qos vhost0 pfc-enable=3 xoff-threshold=3000 xon-threshold=1000 \
        || return 1
    pfc_qos vhost1 pfc-enable=3 watchdog-detection-time=200 \
        watchdog-restoration-time=400 watchdog-action=drop || return 1
    run_or_fail "pfc/show: vhost1's watchdog on (200 ms, action drop)" \
        grep -q "detection-time 200 ms, restoration-time 400 ms, action drop" \
        <<<"$(pfc_show vhost1)"
    pfc_guest_cmd_wait -g 1 "stop" "Done\." || return 1
    start_recv "$rec"

    # A floods the stalled guest 1 (stream 5) while guest 0 sends stream 1
    # to B.
    batch_sender "$PFC_NS_A:$PFC_IF_A1" "$PFC_MAC_A" "$PFC_MAC_B" 5:3 1500 \
        1000 || return 1
    pa=$SENDER_PID
    guest_sender 0 1:3 "$n" 1000 || return 1
    pc=$SENDER_PID
    tx0=$(pfc_guest_stat -g 0 0 TX-packets)
    kill -USR1 "$pa" "$pc"
    wait_wd_p3 vhost1 any 1 20
    wait_pid "$pa" 30
    wait_pid "$pc" 30
    tx1=$(pfc_guest_stat -g 0 0 TX-packets)
    check "frames guest 0 sent to vhost0 while guest 1 stalled" \
        "$(delta "$tx0" "$tx1")" -eq "$n"
    pfc_stats_refresh
    check "vhost1 pfc_wd_storms_detected_p3 (guest 1's storm)" \
        "$(pfc_stat vhost1 pfc_wd_storms_detected_p3)" -ge 1
    check "vhost1 pfc_wd_tx_dropped_p3" \
        "$(pfc_stat vhost1 pfc_wd_tx_dropped_p3)" -ge 1
    check "vhost0 pfc_vhost_stops (guest 0 never stopped)" \
        "$(pfc_stat vhost0 pfc_vhost_stops)" -eq 0

    # Guest 0 sends to the stalled guest 1 too, once the storm is over.
    wait_wd_p3 vhost1 operational 1 20 || return 1
    read -r st det res <<<"$(wd_p3 vhost1)"
    run_or_fail "vhost1's storms all restored ($det detected, $res restored)" \
        test "$det" = "$res"
    pfc_stats_refresh
    stops1=$(pfc_stat vhost0 pfc_vhost_stops_p3)
    wd1=$(pfc_stat vhost1 pfc_wd_tx_dropped_p3)
    guest_sender 0 3:3 "$n" 1000 || return 1
    pc=$SENDER_PID
    guest_sender 0 2:3 "$burst" 0 "$PFC_MAC_D" || return 1
    pd=$SENDER_PID
    tx1=$(pfc_guest_stat -g 0 0 TX-packets)
    kill -USR1 "$pc"
    sleep 0.3
    kill -USR1 "$pd"
    wait_wd_p3 vhost1 any "$((det + 1))" 20
    wait_pid "$pd" 30
    wait_pid "$pc" 30
    wait_guest_tx vhost0 running 10
    sleep 1
    pfc_stop_pid "$RECV_PID"
    pfc_show vhost0
    pfc_show vhost1
    tx2=$(pfc_guest_stat -g 0 0 TX-packets)
    run_or_fail "B got guest 0's first $n p3 frames, once each and in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 1 --expect "$n"
    run_or_fail "B got guest 0's second $n p3 frames, once each, in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 3 --expect "$n"
    run_or_fail "B got none of the frames guest 0 sent to guest 1" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 2 --none
    check "frames guest 0 sent to vhost0 (second stream and burst)" \
        "$(delta "$tx1" "$tx2")" -eq "$((n + burst))"
    pfc_stats_refresh
    check_stat_delta "vhost0 pfc_vhost_stops_p3 (guest 1 held guest 0 back)" \
        "$stops1" "$(pfc_stat vhost0 pfc_vhost_stops_p3)" -ge 1
    check "vhost0 pfc_vhost_stopped (running again)" \
        "$(pfc_stat vhost0 pfc_vhost_stopped)" -eq 0
    check "vhost0 pfc_headroom_drops_p3" \
        "$(pfc_stat vhost0 pfc_headroom_drops_p3)" -eq 0
    check_stat_delta "vhost1 pfc_wd_tx_dropped_p3: the burst" \
        "$wd1" "$(pfc_stat vhost1 pfc_wd_tx_dropped_p3)" -eq "$burst"
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    [ "$FAILS" -eq 0 ]
}
