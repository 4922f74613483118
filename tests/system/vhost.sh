# System tests of lossless vhost-user ports with one guest: a stalled,
# stuck or slow guest, a paused uplink, a disabled queue pair, sourced by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# vhost_setup [client]: pfc_setup, namespace C, and a guest (guest.sh)
# bridged to C on port vhost0, of type dpdkvhostuser, or with "client"
# dpdkvhostuserclient; flows dpdk-a -> vhost0 -> dpdk-b.
vhost_setup() {
    local sock
    pfc_setup "$OVS" || return 1
    pfc_net_add_c || return 1
    sock=$PFC_TMP/vhost0
    if [ "$1" = client ]; then
        pfc_guest_start "$PFC_TMP/guest.sock" client || return 1
        sleep 1
        pfc_vsctl add-port br0 vhost0 -- set Interface vhost0 \
            type=dpdkvhostuserclient \
            "options:vhost-server-path=$PFC_TMP/guest.sock" || return 1
    else
        pfc_vsctl add-port br0 vhost0 -- set Interface vhost0 \
            type=dpdkvhostuser || return 1
        pfc_guest_start "$sock" || return 1
    fi
    pfc_iface_ok vhost0 || return 1
    pfc_guest_wait || return 1
    wait_log "vHost Device .* has been added" "the guest attached to vhost0" \
        || return 1
    pfc_ofctl del-flows br0 || return 1
    pfc_ofctl add-flow br0 in_port=dpdk-a,actions=output:vhost0 || return 1
    pfc_ofctl add-flow br0 in_port=vhost0,actions=output:dpdk-b || return 1
}

# start_recv_c FILE: C, behind the guest, records what it receives.
start_recv_c() {
    start_recv "$1" C
}

# vhost_held PRIO: packets of priority PRIO that vhost0 holds for the guest.
vhost_held() {
    pfc_show vhost0 | awk -v p="p$1" '$1 == p { print $3 }'
}

# vhost_resume STREAM_PID: the guest reads again; waits for A's stream
# STREAM_PID to end and for vhost0 to hold no p3 frame, and checks that.
vhost_resume() {
    local i
    pfc_guest_cmd "start"
    wait_pid "$1" 30
    for i in $(seq 100); do
        [ "$(vhost_held 3)" = 0 ] && break
        sleep 0.1
    done
    check "p3 frames held at vhost0 after the guest resumed" \
        "$(vhost_held 3)" -eq 0
}

# A guest that stops reading while A sends it a lossless p3 stream and a
# lossy p0 stream of 128-byte frames, through dpdk-a (PFC, XOFF at 8000
# bytes).  vhost0 holds the p3 frames that the guest's full virtqueue
# refuses; they count against dpdk-a, which sends A an XOFF, then an XON
# once the guest reads again and they drain.  The guest stays stopped until
# dpdk-a has sent its first PFC frame for p3, the XOFF, however many frames
# the guest's virtqueue took first (at most about 3 s), and 200 ms more;
# vhost0's watchdog is off, since the stall is intended.  Every p3 frame
# reaches C, behind the guest, once and in order; p0 frames are dropped, as
# without PFC.
vhost_stalled_guest() {
    local rec pcap xoff xon p0
    vhost_setup "$1" || return 1
    rec=$PFC_TMP/rx.json
    pcap=$PFC_TMP/a.pcap
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G xoff-threshold=8000 \
        xon-threshold=4000 || return 1
    pfc_qos vhost0 pfc-enable=3 queue-size=4000 watchdog-detection-time=0 \
        || return 1
    pfc_tshark_start "$PFC_NS_A" "$PFC_IF_A1" "$pcap" || return 1
    start_recv_c "$rec"
    pfc_bg "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" \
        --side A --streams 1:3,2:0 --count 1500 --rate 1000
    local stream_pid=$PFC_LAST_PID
    sleep 0.5
    pfc_guest_cmd "stop"
    check "dpdk-a pfc_tx_frames_p3 while the guest does not read (XOFF)" \
        "$(pfc_stat_until dpdk-a pfc_tx_frames_p3 0 1)" -ge 1
    sleep 0.2
    run_or_fail "vhost0 holds p3 frames while the guest does not read" \
        test "$(vhost_held 3)" -gt 0
    check "vhost0 holds no p0 frame (lossy)" "$(vhost_held 0)" -eq 0
    vhost_resume "$stream_pid"
    sleep 1
    pfc_stop_pid "$RECV_PID"
    pfc_tshark_stop
    run_or_fail "C got the 1500 p3 frames, once each and in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 1 --expect 1500
    pfc_stats_refresh
    check "vhost0 pfc_hold_drops_p3" \
        "$(pfc_stat vhost0 pfc_hold_drops_p3)" -eq 0
    p0=$("$PFC_PY" "$PFC_PEER" check "$rec" --stream 2 --expect 1500 \
             | awk '{ print $4 }')
    check "p0 frames that C got (lossy: some dropped)" "$p0" -lt 1500
    check "vhost0 ovs_tx_failure_drops (p0, as without PFC)" \
        "$(pfc_stat vhost0 ovs_tx_failure_drops)" -eq "$((1500 - p0))"
    check "vhost0 ovs_tx_qos_drops" "$(pfc_stat vhost0 ovs_tx_qos_drops)" -eq 0
    xoff=$(pfc_tshark_pfc "$pcap" | awk '$9 == 1 && $17 > 0' | wc -l)
    xon=$(pfc_tshark_pfc "$pcap" | awk '$9 == 1 && $17 == 0' | wc -l)
    check "XOFF frames for p3 that A captured" "$xoff" -ge 1
    check "XON frames for p3 that A captured" "$xon" -ge 1
    run_or_fail "the last PFC frame A captured is an XON for p3" \
        test "$(pfc_tshark_pfc "$pcap" | tail -1 | awk '{ print $9 $17 }')" = 10
    pfc_log "guest stall: A captured $xoff XOFF and $xon XON for p3"
    [ "$FAILS" -eq 0 ]
}

test_vhost_stalled_guest() { vhost_stalled_guest; }

test_vhost_stalled_guest_client() { vhost_stalled_guest client; }

# A guest sends lossless p3 frames, which C hands it, towards dpdk-b while
# B pauses p3 for 500 ms.  dpdk-b holds them, counted against vhost0; at
# XOFF (3000 bytes) the switch stops reading the guest, whose virtqueue
# fills, and reads it again after B's XON.  Every frame that the guest got
# into its virtqueue reaches B, once and in order.
vhost_paused_uplink() {
    local rec stopped_ms tx0 tx1
    vhost_setup "$1" || return 1
    rec=$PFC_TMP/rx.json
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    pfc_qos vhost0 pfc-enable=3 xoff-threshold=3000 xon-threshold=1000 \
        || return 1
    start_recv "$rec"
    tx0=$(pfc_guest_stat 0 TX-packets)
    pfc_bg "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" \
        --side B --prio 3 --time 65535 --interval 0.1 --duration 0.5 \
        --xon-on-exit
    local pause_pid=$PFC_LAST_PID
    sleep 0.05
    "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_C:$PFC_IF_C1" --side A \
        --streams 1:3 --count 300 --rate 1000 || FAILS=$((FAILS + 1))
    wait_pid "$pause_pid" 10
    sleep 1
    wait_held 0 || FAILS=$((FAILS + 1))
    sleep 0.5
    pfc_stop_pid "$RECV_PID"
    tx1=$(pfc_guest_stat 0 TX-packets)
    pfc_show vhost0
    run_or_fail "B got the 300 p3 frames, once each and in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 1 --expect 300
    check "frames the guest sent to vhost0" "$((tx1 - tx0))" -eq 300
    pfc_stats_refresh
    check "vhost0 pfc_vhost_stops (the guest was stopped)" \
        "$(pfc_stat vhost0 pfc_vhost_stops)" -ge 1
    check "vhost0 pfc_vhost_stops_p3" \
        "$(pfc_stat vhost0 pfc_vhost_stops_p3)" -ge 1
    stopped_ms=$(pfc_stat vhost0 pfc_vhost_stopped_ms)
    check "vhost0 pfc_vhost_stopped_ms" "$stopped_ms" -ge 100
    check "vhost0 pfc_vhost_stopped (running again)" \
        "$(pfc_stat vhost0 pfc_vhost_stopped)" -eq 0
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    [ "$FAILS" -eq 0 ]
}

test_vhost_paused_uplink() { vhost_paused_uplink; }

test_vhost_paused_uplink_client() { vhost_paused_uplink client; }

# A guest that stops reading and does not come back.  First with the
# watchdog off: vhost0 holds its bound, queue-size (200), of A's p3 frames
# in the shared pool and at most dpdk-a's headroom more, so the guest costs
# the host a bounded number of mbufs, and dpdk-a keeps A paused.  Then with the watchdog on (200 ms, action drop):
# the stuck guest is a storm; the held frames and those that follow are
# dropped and counted, dpdk-a's occupancy is released and A gets an XON
# while the guest is still stuck.  Once the guest reads again, p3 is
# restored, lossless again, and every mbuf is back in the mempool.
test_vhost_stuck_guest() {
    local rec pcap free0 free1 held xoff_state hdrm
    vhost_setup || return 1
    rec=$PFC_TMP/rx.json
    pcap=$PFC_TMP/a.pcap
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G xoff-threshold=8000 \
        xon-threshold=4000 || return 1
    pfc_qos vhost0 pfc-enable=3 queue-size=200 watchdog-detection-time=0 \
        || return 1
    sleep 0.5
    free0=$(mempool_free)
    pfc_guest_cmd "stop"
    sleep 0.5
    pfc_tshark_start "$PFC_NS_A" "$PFC_IF_A1" "$pcap" || return 1
    send_p3 1000 || FAILS=$((FAILS + 1))
    sleep 0.5
    held=$(vhost_held 3)
    free1=$(mempool_free)
    # vhost0's traffic class queue takes up to its bound, queue-size 200,
    # in the shared pool; what comes after dpdk-a's XOFF (xoff-threshold) or
    # vhost0's bound goes into dpdk-a's headroom for p3; A's frames past that
    # headroom would be dropped.
    hdrm=$(pfc_show dpdk-a | sed -n 's/^ *headroom: \([0-9]*\) cells.*/\1/p')
    pfc_show dpdk-a | grep -E '^  (headroom|p3 )'
    check "p3 frames held at vhost0 (queue-size 200, then dpdk-a's headroom)" \
        "$held" -ge 200
    check "p3 frames held at vhost0 (at most 200 + dpdk-a's headroom)" \
        "$held" -le $((200 + hdrm))
    check "dpdk-a's p3 headroom in use (cells)" \
        "$(pfc_show dpdk-a | awk '$1 == "p3" { print $16 }')" -gt 0
    pfc_stats_refresh
    check "vhost0 pfc_hold_drops_p3 (all dpdk-a's headroom drops)" \
        "$(pfc_stat vhost0 pfc_hold_drops_p3)" -eq \
        "$(pfc_stat dpdk-a pfc_headroom_drops_p3)"
    check "mbufs the stuck guest costs the host (free: $free0 -> $free1)" \
        "$((free0 - free1))" -le $((held + 100))
    check "mbufs held for the stuck guest are out of the mempool" \
        "$((free0 - free1))" -ge 200
    run_or_fail "dpdk-a keeps A paused (XOFF in force for p3)" \
        test "$(pfc_show dpdk-a | awk '$1 == "p3" { print $9 }')" = yes
    # The watchdog turns the stuck guest into counted drops.  A stormed
    # priority is restored once the guest was not seen stuck (no packet
    # refused) for the restoration time, also while nothing is sent to it:
    # 2 s covers the pause between two senders here, so the storm stays one.
    pfc_vsctl set QoS "$(pfc_vsctl get Port vhost0 qos)" \
        other_config:watchdog-detection-time=200 \
        other_config:watchdog-restoration-time=2000 || FAILS=$((FAILS + 1))
    send_p3 300 1000 || FAILS=$((FAILS + 1))
    wait_log "vhost0: PFC storm on priority 3: the guest did not drain" \
        "storm on p3 of vhost0 logged (WARN)"
    send_p3 100 1300 || FAILS=$((FAILS + 1))
    sleep 0.3
    check "p3 frames held at vhost0 during the storm" "$(vhost_held 3)" -eq 0
    xoff_state=$(pfc_show dpdk-a | awk '$1 == "p3" { print $9 }')
    run_or_fail "dpdk-a's XOFF for p3 ended while the guest is stuck" \
        test "$xoff_state" = no
    pfc_stats_refresh
    check "vhost0 pfc_wd_storms_detected_p3" \
        "$(pfc_stat vhost0 pfc_wd_storms_detected_p3)" -eq 1
    check "vhost0 pfc_wd_tx_dropped_p3" \
        "$(pfc_stat vhost0 pfc_wd_tx_dropped_p3)" -ge 100
    pfc_tshark_stop
    run_or_fail "the last PFC frame A captured is an XON for p3" \
        test "$(pfc_tshark_pfc "$pcap" | tail -1 | awk '{ print $9 $17 }')" \
        = 10
    # The guest reads again: restored 2 s after it was last seen stuck,
    # then p3 is lossless again.
    pfc_guest_cmd "start"
    wait_log "vhost0: PFC storm on priority 3 over after" \
        "restoration of p3 on vhost0 logged (INFO)"
    run_or_fail "pfc/show: p3 of vhost0 operational" \
        grep -q "watchdog p3: operational" <<<"$(pfc_show vhost0)"
    start_recv_c "$rec"
    send_p3 300 2000 || FAILS=$((FAILS + 1))
    sleep 1
    pfc_stop_pid "$RECV_PID"
    run_or_fail "after restoration, C got 300 p3 frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 1 --expect 300 \
        --first 2000
    sleep 0.5
    check "free mbufs after the guest's storm (before: $free0)" \
        "$(mempool_free)" -eq "$free0"
    [ "$FAILS" -eq 0 ]
}

# A guest with two queue pairs stops reading while A sends it 1000 lossless
# p3 frames through dpdk-a (which pauses A meanwhile); the one PMD thread
# sends on vhost0's tx queue 1, so vhost0 holds them for queue pair 1.  The guest then restarts its port
# with one queue pair, which disables pair 1 (the virtio control queue's
# VQ_PAIRS_SET, as "ethtool -L" in a Linux guest): the held frames move,
# ahead of anything newer, to queue pair 0, which now serves tx queue 1.
# Once the guest reads again, C gets every frame once and in order, and
# nothing was dropped.  Without the move, the frames stay on a queue pair
# that nobody reads.
test_vhost_queue_disabled() {
    local rec held moved
    PFC_GUEST_QUEUES=2 vhost_setup || return 1
    rec=$PFC_TMP/rx.json
    wait_log "State of queue 2 .* changed to 'enabled'" \
        "the guest enabled queue pair 1" || return 1
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G xoff-threshold=8000 \
        xon-threshold=4000 || return 1
    pfc_qos vhost0 pfc-enable=3 queue-size=4000 watchdog-detection-time=0 \
        || return 1
    start_recv_c "$rec"
    pfc_guest_cmd_wait "stop" "Done\." || return 1
    pfc_bg "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" \
        --side A --streams 1:3 --count 1000 --rate 1000
    local stream_pid=$PFC_LAST_PID
    sleep 1
    held=$(vhost_held 3)
    run_or_fail "vhost0 holds p3 frames while the guest does not read" \
        test "${held:-0}" -gt 0
    pfc_guest_cmd "port stop all"
    pfc_guest_cmd "port config all rxq 1"
    pfc_guest_cmd "port config all txq 1"
    pfc_guest_cmd_wait "port start all" "Done\|Port 0: " 20 || return 1
    wait_log "State of queue 2 .* changed to 'disabled'" \
        "the guest disabled queue pair 1" || return 1
    wait_log "the guest disabled queue pair 1: [0-9]* held packets moved" \
        "vhost0 moved what it held for queue pair 1"
    moved=$(grep -o "queue pair 1: [0-9]* held packets moved to queue pair 0" \
                "$PFC_TMP/ovs-vswitchd.log" | tail -1 | awk '{ print $4 }')
    check "held p3 frames moved to queue pair 0" "${moved:-0}" -ge "$held"
    vhost_resume "$stream_pid"
    sleep 1
    pfc_stop_pid "$RECV_PID"
    run_or_fail "C got p3 frames 256 to 999, once each and in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 1 --first 256 \
        --expect 744
    pfc_stats_refresh
    check "vhost0 pfc_hold_drops_p3" \
        "$(pfc_stat vhost0 pfc_hold_drops_p3)" -eq 0
    # The tx queue that the move emptied, and the one that then sent it
    # all, gave their cached cells of the shared pool back.
    check "shared cells taken by tx queues once nothing is held" \
        "$(pfc_appctl pfc/buffer \
           | sed -n 's/.* (\([0-9]*\) taken by tx queues.*/\1/p')" -eq 0
    pfc_log "queue pair 1 disabled: $moved held frames moved to pair 0"
    [ "$FAILS" -eq 0 ]
}

# xoff_episodes PCAP PAUSE_MS: the XOFF episodes for p3 in PCAP, one line
# each, in ms: from an XOFF that no pause in force preceded to the XON that
# ended it, or to the end of the pause of the last XOFF (PAUSE_MS) if no XON
# came.
xoff_episodes() {
    pfc_tshark_pfc "$1" | awk -v pause="$2" '
        $9 != 1 { next }
        $17 > 0 && !on { on = 1; start = $1 }
        $17 > 0 { last = $1; next }
        on { printf "%d\n", ($1 - start) * 1000; on = 0 }
        END { if (on) printf "%d\n", (last - start) * 1000 + pause }'
}

# A guest that reads a trickle: testpmd's "noisy" forwarding mode spends
# millions of random memory reads on each packet, a few a second.  A, which
# honours PFC as a NIC does, sends it a lossless p3 stream through dpdk-a
# (XOFF at 8000 bytes).  The guest takes some packets at times, never what
# waits: vhost0's watchdog storms it 200 ms after its drain window began
# (pfc_wd_vq_stalled()), drops what it held, and dpdk-a ends its XOFF.  So
# A is never held in XOFF longer than the detection time plus the
# restoration time, however long the guest trickles.
test_vhost_trickle_guest() {
    local pcap out taken episodes longest storms n stream_pid
    # At most 65535 lookups of each kind per packet (testpmd's limit), in
    # 64 MB: a few tens of packets a second.
    PFC_GUEST_MEM=192
    PFC_GUEST_ARGS="--noisy-lkup-memory=64 --noisy-lkup-num-reads=65535"
    PFC_GUEST_ARGS+=" --noisy-lkup-num-writes=65535"
    PFC_GUEST_ARGS+=" --noisy-lkup-num-reads-writes=65535"
    [ "$PFC_HUGEPAGES_FREE" -ge $((128 + PFC_GUEST_MEM / 2)) ] \
        || PFC_HUGEPAGES_FREE=$((128 + PFC_GUEST_MEM / 2))
    vhost_setup || return 1
    pcap=$PFC_TMP/a.pcap
    out=$PFC_TMP/stream.out
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G xoff-threshold=8000 \
        xon-threshold=4000 || return 1
    pfc_qos vhost0 pfc-enable=3 watchdog-detection-time=200 \
        watchdog-restoration-time=400 || return 1
    pfc_guest_cmd_wait "stop" "Done\." || return 1
    pfc_guest_cmd "set burst 1"
    pfc_guest_cmd "set fwd noisy"
    pfc_tshark_start "$PFC_NS_A" "$PFC_IF_A1" "$pcap" || return 1
    pfc_bg "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" \
        --side A --streams 1:3 --count 6000 --rate 2000 --honour 1G -v \
        >"$out" 2>&1
    stream_pid=$PFC_LAST_PID
    # The guest reads, slowly, for 10 ms of every 100 ms: a few packets
    # each time, so it is never idle for the detection time.
    for _ in $(seq 600); do
        kill -0 "$stream_pid" 2>/dev/null || break
        pfc_guest_cmd "start"
        sleep 0.01
        pfc_guest_cmd "stop"
        sleep 0.09
    done
    wait_pid "$stream_pid" 10
    cat "$out"
    run_or_fail "A sent its 6000 p3 frames" grep -q "sent {1: 6000}" "$out"
    sleep 0.5
    pfc_tshark_stop
    taken=$(pfc_guest_stat 0 RX-packets)
    pfc_stats_refresh
    storms=$(pfc_stat vhost0 pfc_wd_storms_detected_p3)
    episodes=$(xoff_episodes "$pcap" 33)
    n=$(grep -c . <<<"$episodes")
    longest=$(sort -n <<<"$episodes" | tail -1)
    pfc_log "trickle guest: took $taken of 6000 p3 frames; $storms storms;" \
        "$n XOFF episodes at A, the longest ${longest:-0} ms"
    check "p3 frames the guest took (it reads)" "${taken:-0}" -gt 0
    check "p3 frames the guest took (a trickle)" "${taken:-0}" -lt 3000
    check "vhost0 pfc_wd_storms_detected_p3" "$storms" -ge 1
    wait_log "vhost0: PFC storm on priority 3: the guest did not drain" \
        "storm on p3 of vhost0 logged (WARN)"
    check "XOFF episodes for p3 that A captured" "$n" -ge 1
    check "longest XOFF of A for p3, ms (detection 200 + restoration 400)" \
        "${longest:-0}" -le 600
    check "vhost0 pfc_wd_tx_dropped_p3" \
        "$(pfc_stat vhost0 pfc_wd_tx_dropped_p3)" -gt 0
    [ "$FAILS" -eq 0 ]
}
