# System tests of ingress classification (lib/pfc-classify.h), sourced by
# tests/system/run.sh: a packet's priority is decided once, by the port it
# arrives on (trust=pcp or trust=dscp), and every egress holds, pauses and
# charges it by that priority, whatever tag it leaves with.
#
# Each test runs the incast scenario of utilities/pfc_peer.py: PFC-honouring
# senders (A and C, each a process of its own that stops a paused priority
# as a NIC does) send priority-3 and priority-0 streams through their ports
# to dpdk-b, whose partner B pauses priority 3.  Every test expects, per
# sender, no priority-3 frame lost, reordered or duplicated, at least one
# XOFF for priority 3, and, at B, no priority-3 frame inside a pause; at
# dpdk-b no hold drop of priority 3.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# classify_setup ACTIONS ING_QOS EG_QOS: pfc_setup, host C on dpdk-c, flows
# "in_port=X,actions=ACTIONS,output:dpdk-b" for X dpdk-a and dpdk-c
# (ACTIONS may be empty), QoS pfc ING_QOS (space-separated KEY=VALUE) on
# dpdk-a and dpdk-c, and EG_QOS on dpdk-b.
classify_setup() {
    local -a eg_kv
    read -r -a eg_kv <<<"$3"
    pfc_setup "$OVS" || return 1
    classify_senders "$1" "$2" || return 1
    pfc_qos dpdk-b "${eg_kv[@]}" || return 1
}

# classify_senders ACTIONS INGRESS_KV: after pfc_setup, the second sender's
# host C on dpdk-c, and flows from dpdk-a and dpdk-c to dpdk-b with ACTIONS
# before the output, both ingress ports with QoS pfc INGRESS_KV.
classify_senders() {
    local actions=$1 x
    local -a ing_kv
    read -r -a ing_kv <<<"$2"
    pfc_net_add_host C \
        || { pfc_err "cannot create namespace C and its veth"; return 1; }
    pfc_port_host C || return 1
    pfc_ofctl del-flows br0 || return 1
    for x in dpdk-a dpdk-c; do
        pfc_ofctl add-flow br0 \
            "in_port=$x,actions=${actions:+$actions,}output:dpdk-b" \
            || return 1
        pfc_qos "$x" "${ing_kv[@]}" || return 1
    done
    pfc_log "flows: $(pfc_ofctl dump-flows br0 --no-stats | tr '\n' ' ')"
}

# classify_incast FRAMES [CYCLES PAUSE_MS RATE]: after classify_setup, sends
# from A and C (or the host $CLASSIFY_SENDER, on port dpdk-x) with
# pfc_peer.py's incast scenario (--frames FRAMES) and checks what the header
# says; B pauses the priorities $CLASSIFY_PAUSE (a list, default 3).  The
# facts of the scenario are in $PFC_TMP/incast.json.
classify_incast() {
    local frames=$1 cycles=${2:-6} pause_ms=${3:-150} rate=${4:-1000}
    local x rc facts=$PFC_TMP/incast.json h=${CLASSIFY_SENDER:-C}
    local pause=${CLASSIFY_PAUSE:-3}

    pfc_bg "$PFC_PY" "$PFC_PEER" scenario incast \
        --a "$(pfc_host_port A)" --b "$(pfc_host_port B)" \
        --sender "$h=$(pfc_host_port "$h")@$(pfc_host_var "$h" MAC)" \
        --frames "$frames" --speed-a 1G --speed-b 1G --rate "$rate" \
        --cycles "$cycles" --pause-ms "$pause_ms" --resume-ms 200 \
        --pause-prios "$pause" --facts "$facts"
    classify_watch_held &
    local watch=$!
    wait "$PFC_LAST_PID"
    rc=$?
    kill "$watch" 2>/dev/null
    wait "$watch" 2>/dev/null
    if [ $rc -eq 0 ]; then
        pfc_log "ok: incast scenario ($frames frames)"
    else
        pfc_log "FAIL: incast scenario ($frames frames, status $rc)"
        FAILS=$((FAILS + 1))
    fi
    pfc_show
    pfc_stats_refresh
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    check "p3 frames at B inside a pause" \
        "$(classify_fact p3_during_pauses)" -eq 0
    for x in ${pause//,/ }; do
        check "dpdk-b pfc_rx_frames_p$x (B paused p$x)" \
            "$(pfc_stat dpdk-b "pfc_rx_frames_p$x")" -ge "$cycles"
    done
    for x in a "${h,,}"; do
        check "dpdk-$x pfc_tx_frames_p3 (its sender paused)" \
            "$(pfc_stat "dpdk-$x" pfc_tx_frames_p3)" -ge 1
    done
    pfc_log "most p3 packets held at dpdk-b at once (sampled):" \
        "$(classify_max_held)"
}

# classify_fact KEY: KEY of the incast scenario's facts, or "absent".
classify_fact() {
    "$PFC_PY" -c 'import json, sys
print(json.load(open(sys.argv[1])).get(sys.argv[2], "absent"))' \
        "$PFC_TMP/incast.json" "$1" 2>/dev/null || echo absent
}

# classify_watch_held [PORT]: samples, every 20 ms until killed, the p3
# packets that PORT (dpdk-b) holds (pfc/show's held-pkts), the largest into
# $PFC_TMP/max_held.
classify_watch_held() {
    local max=0 n port=${1:-dpdk-b}
    echo 0 >"$PFC_TMP/max_held"
    while :; do
        n=$(pfc_appctl pfc/show "$port" 2>/dev/null \
                | awk '$1 == "p3" { print $5 }')
        if [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -gt "$max" ]; then
            max=$n
            echo "$max" >"$PFC_TMP/max_held"
        fi
        sleep 0.02
    done
}

classify_max_held() {
    cat "$PFC_TMP/max_held" 2>/dev/null || echo 0
}

# trust=dscp on the ingress ports, untagged IPv4: DSCP 26 (AF31) is
# priority 3 by the default map (DSCP / 8), DSCP 0 priority 0.
test_classify_dscp_ipv4() {
    classify_setup "" "pfc-enable=3 link-speed=1G trust=dscp" \
        "pfc-enable=3 link-speed=1G queue-size=200" || return 1
    classify_incast dscp4
    [ "$FAILS" -eq 0 ]
}

# The same with IPv6, and DSCP 26 mapped by dscp-map (the map is explicit,
# giving what the default would).
test_classify_dscp_ipv6() {
    classify_setup "" "pfc-enable=3 link-speed=1G trust=dscp dscp-map=26:3" \
        "pfc-enable=3 link-speed=1G queue-size=200" || return 1
    classify_incast dscp6
    [ "$FAILS" -eq 0 ]
}

# Tagged priority-3 frames whose tag the switch pops on the way (as an
# access port into a guest does): they leave dpdk-b untagged, and stay
# priority 3.
test_classify_tag_popped() {
    classify_setup "strip_vlan" "pfc-enable=3 link-speed=1G" \
        "pfc-enable=3 link-speed=1G queue-size=200" || return 1
    classify_incast tagged
    run_or_fail "B got p3 untagged" test "$(classify_fact pcp_p3)" = "[]"
    run_or_fail "B got p0 untagged" test "$(classify_fact pcp_p0)" = "[]"
    [ "$FAILS" -eq 0 ]
}

# Untagged IPv4 classified by DSCP at the ingress, to which the switch
# pushes a tag of PCP 0 on the way: they leave dpdk-b tagged PCP 0, and
# stay priority 3.
test_classify_tag_pushed() {
    classify_setup "mod_vlan_vid:100,mod_vlan_pcp:0" \
        "pfc-enable=3 link-speed=1G trust=dscp" \
        "pfc-enable=3 link-speed=1G queue-size=200" || return 1
    classify_incast dscp4
    run_or_fail "B got p3 tagged, PCP 0" test "$(classify_fact pcp_p3)" = "[0]"
    run_or_fail "B got p0 tagged, PCP 0" test "$(classify_fact pcp_p0)" = "[0]"
    [ "$FAILS" -eq 0 ]
}

# pfc-enable=3,4 with a Queue row that groups priorities 3 and 4 into
# traffic class 1, the usual way to give storage one class: class 1 was
# lossy when the QoS was created, and its class queue must still take
# every lossless packet that the buffer admits (more than 1,024 held: each
# sender's group sends XOFF past 80,000 bytes, 625 of its 128-byte frames).
test_classify_queue_row() {
    local out q
    classify_setup "" "pfc-enable=3,4 link-speed=1G xoff-threshold=80000" \
        "pfc-enable=3,4 link-speed=1G" || return 1
    q=$(pfc_vsctl get Port dpdk-b qos) || return 1
    pfc_vsctl -- --id=@q1 create Queue other_config:priorities=3,4 \
        -- set QoS "$q" queues:1=@q1 >/dev/null || return 1
    out=$(pfc_show dpdk-b)
    check "dpdk-b maps p3 to class 1" \
        "$(awk '$1 == "p3" { print $2 }' <<<"$out")" -eq 1
    check "dpdk-b maps p4 to class 1" \
        "$(awk '$1 == "p4" { print $2 }' <<<"$out")" -eq 1
    classify_incast tagged 4 500 1500
    check "most p3 packets held at dpdk-b at once" "$(classify_max_held)" \
        -gt 1024
    [ "$FAILS" -eq 0 ]
}

# classify_dcbx_adopt ENABLE: B, dpdk-b's DCBX partner (not willing, TTL
# 120 s), advertises the PFC enable vector ENABLE (a list of priorities).
classify_dcbx_adopt() {
    "$PFC_PY" "$PFC_PEER" lldp --port "$PFC_NS_B:$PFC_IF_B1" \
        --src "$PFC_MAC_B" --enable "$1" --ttl 120 || FAILS=$((FAILS + 1))
}

# A priority that DCBX makes lossless was lossy when the QoS was created:
# dpdk-b has pfc-enable=4, adopts its partner's 3, and class 3's queue must
# take every lossless packet that the buffer admits (more than 1,024).
test_classify_dcbx_adopted() {
    classify_setup "" "pfc-enable=3 link-speed=1G xoff-threshold=80000" \
        "pfc-enable=4 link-speed=1G dcbx=ieee dcbx-willing=true" \
        || return 1
    classify_dcbx_adopt 3
    wait_oper 3 "partner's" || return 1
    classify_incast tagged 4 500 1500
    check "most p3 packets held at dpdk-b at once" "$(classify_max_held)" \
        -gt 1024
    [ "$FAILS" -eq 0 ]
}

# classify_headroom: dpdk-b's headroom per lossless priority, cells.
classify_headroom() {
    pfc_show dpdk-b | sed -n 's/^  headroom: \([0-9]*\) cells per.*/\1/p'
}

# A partner's vector whose headroom does not fit in the buffer is refused
# with the reason, the port keeps its own, and the shared pool stays.  The
# cable is made long enough (from the buffer's size and the headroom at two
# lengths) that two lossless priorities fit at 10 Gb/s and eight do not.
# Then, with a vector that fits adopted, a short cable and the link at B's
# 1 Gb/s, priority 3 is lossless for two senders that honour PFC.
test_classify_dcbx_fit() {
    local out shared cells h1 h2 len q fit
    pfc_setup "$OVS" || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10G dcbx=ieee \
        dcbx-willing=true || return 1
    q=$(pfc_vsctl get Port dpdk-b qos) || return 1
    cells=$(pfc_appctl pfc/buffer | sed -n 's/^buffer: \([0-9]*\) cells.*/\1/p')
    h1=$(classify_headroom)
    pfc_vsctl set QoS "$q" other_config:cable-length=10100 || return 1
    sleep 0.5
    h2=$(classify_headroom)
    pfc_log "buffer $cells cells; headroom $h1 cells at 100 m, $h2 at 10100 m"
    if ! [[ "$cells$h1$h2" =~ ^[0-9]+$ ]] || [ "$h2" -le "$h1" ]; then
        pfc_log "FAIL: cannot read the buffer or the headroom"
        return 1
    fi
    # Headroom of (cells - 256) / 2.5 per priority: two fit, three do not.
    len=$(( 100 + ((cells - 256) * 2 / 5 - h1) * 10000 / (h2 - h1) ))
    pfc_vsctl set QoS "$q" "other_config:cable-length=$len" || return 1
    sleep 0.5
    fit=$(( (cells - 256) / $(classify_headroom) ))
    pfc_log "cable-length $len m: headroom $(classify_headroom) cells," \
        "$fit lossless priorities fit"
    check "lossless priorities that fit" "$fit" -eq 2
    wait_oper 3 pfc-enable || return 1
    classify_dcbx_adopt 0,1,2,3,4,5,6,7
    sleep 1
    out=$(pfc_show dpdk-b)
    pfc_log "$(grep 'dcbx pfc-enable:' <<<"$out")"
    run_or_fail "the partner's 0-7 refused: headroom does not fit" \
        grep -q "operational 3 (pfc-enable), MISMATCH: the partner's vector \
is not adopted: the headroom of its vector does not fit" <<<"$out"
    run_or_fail "pfc-enable 3 stays in force" \
        grep -q "^  pfc-enable: 3\$" <<<"$out"
    out=$(pfc_appctl pfc/buffer 2>&1)
    pfc_log "$(head -3 <<<"$out")"
    shared=$(sed -n 's/^buffer: .* \([0-9]*\) shared (.*/\1/p' <<<"$out")
    check "shared pool cells" "${shared:-absent}" -gt 0
    classify_dcbx_adopt 3,4
    wait_oper 3,4 "partner's"
    pfc_vsctl set QoS "$q" other_config:cable-length=100 \
        other_config:link-speed=1G other_config:queue-size=200 || return 1
    classify_senders "" "pfc-enable=3 link-speed=1G" || return 1
    wait_oper 3,4 "partner's"
    classify_incast tagged
    [ "$FAILS" -eq 0 ]
}

# A lossless flow into a VXLAN tunnel (OVS userspace tunnelling, as OVN
# uses it): A and C send untagged IPv4 of DSCP 26 (p3) and 0 (p0), which
# their ports classify by DSCP; br0 encapsulates it on vxlan0
# (options:tos=inherit), whose endpoint 172.31.0.1 is br0's own address and
# whose remote 172.31.0.2 is B, behind dpdk-b.  B pauses p3: the frames
# leave dpdk-b inside a VXLAN header, untagged, and stay priority 3; their
# outer DSCP is the inner one, so that B would classify them alike.
test_classify_vxlan_encap() {
    classify_setup "" "pfc-enable=3 link-speed=1G trust=dscp" \
        "pfc-enable=3 link-speed=1G queue-size=200" || return 1
    classify_vxlan_encap_flows || return 1
    pfc_log "tunnel: $(pfc_appctl ovs/route/show | grep 172.31) /" \
        "$(pfc_appctl tnl/arp/show | grep 172.31)"
    classify_incast dscp4
    run_or_fail "B got p3 in VXLAN with outer DSCP 26 (tos=inherit)" \
        test "$(classify_fact outer_dscp_p3)" = "[26]"
    run_or_fail "B got p0 in VXLAN with outer DSCP 0" \
        test "$(classify_fact outer_dscp_p0)" = "[0]"
    [ "$FAILS" -eq 0 ]
}

# classify_vxlan_endpoint: makes br0's own address, 172.31.0.1, the
# endpoint of vxlan0 (remote 172.31.0.2, B, behind dpdk-b; key 0,
# tos=inherit), and clears br0's flows.
classify_vxlan_endpoint() {
    ip netns exec "$PFC_NS_S" ip addr add 172.31.0.1/24 dev br0 \
        && ip netns exec "$PFC_NS_S" ip link set br0 up || return 1
    pfc_vsctl add-port br0 vxlan0 -- set Interface vxlan0 type=vxlan \
        options:remote_ip=172.31.0.2 options:local_ip=172.31.0.1 \
        options:key=0 options:tos=inherit || return 1
    pfc_appctl ovs/route/add 172.31.0.2/32 br0 >/dev/null || return 1
    pfc_appctl tnl/arp/set br0 172.31.0.2 "$PFC_MAC_B" >/dev/null \
        || return 1
    pfc_ofctl del-flows br0
}

# classify_vxlan_encap_flows: classify_vxlan_endpoint, and flows that send
# what A and C send into vxlan0, and its underlay packets (from br0's own
# port) to B.
classify_vxlan_encap_flows() {
    classify_vxlan_endpoint || return 1
    pfc_ofctl add-flow br0 in_port=dpdk-a,actions=output:vxlan0 \
        && pfc_ofctl add-flow br0 in_port=dpdk-c,actions=output:vxlan0 \
        && pfc_ofctl add-flow br0 in_port=LOCAL,actions=output:dpdk-b
}

# A lossless flow out of a VXLAN tunnel: B sends IPv4 of DSCP 0 inside
# VXLAN whose outer DSCP is 26 (p3) or 0 (p0), and honours the PFC frames
# of dpdk-b, which classifies by DSCP: by the outer header, as the packet
# arrives.  br0 decapsulates it and sends the inner frame, untagged and of
# DSCP 0, to dpdk-a, where A pauses p3: it stays priority 3.  (Here B is the
# sender and A the pauser.)
test_classify_vxlan_decap() {
    local facts rc mac
    pfc_setup "$OVS" || return 1
    facts=$PFC_TMP/incast.json
    classify_vxlan_endpoint || return 1
    pfc_ofctl add-flow br0 in_port=dpdk-b,actions=LOCAL \
        && pfc_ofctl add-flow br0 in_port=vxlan0,actions=output:dpdk-a \
        || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=1G trust=dscp || return 1
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G queue-size=100 || return 1
    mac=$(pfc_vsctl get Interface br0 mac_in_use | tr -d '"')
    pfc_log "br0 (tunnel endpoint 172.31.0.1) MAC $mac"
    pfc_bg "$PFC_PY" "$PFC_PEER" scenario incast \
        --a "$(pfc_host_port B)" --b "$(pfc_host_port A)" \
        --frames vxlan4 --outer-dst "$mac" --speed-a 1G --speed-b 1G \
        --rate 1000 --cycles 6 --pause-ms 150 --resume-ms 200 \
        --facts "$facts"
    classify_watch_held dpdk-a &
    local watch=$!
    wait "$PFC_LAST_PID"
    rc=$?
    kill "$watch" 2>/dev/null
    wait "$watch" 2>/dev/null
    run_or_fail "incast scenario, B into VXLAN (status $rc)" test "$rc" = 0
    pfc_show
    pfc_stats_refresh
    check "dpdk-a pfc_hold_drops_p3" "$(pfc_stat dpdk-a pfc_hold_drops_p3)" \
        -eq 0
    check "p3 frames at A inside a pause" \
        "$(classify_fact p3_during_pauses)" -eq 0
    check "dpdk-b pfc_tx_frames_p3 (B paused)" \
        "$(pfc_stat dpdk-b pfc_tx_frames_p3)" -ge 1
    pfc_log "most p3 packets held at dpdk-a at once (sampled):" \
        "$(classify_max_held)"
    [ "$FAILS" -eq 0 ]
}

# Egress remarking, rewrite-pcp: untagged IPv4 classified by DSCP at the
# ingress, to which the switch pushes a tag of PCP 0 on the way, leaves
# dpdk-b with the PCP of its priority, as a switch's TC_TO_DOT1P map
# writes it, so that B, trusting PCP, classifies it alike.
test_classify_rewrite_pcp() {
    classify_setup "mod_vlan_vid:100,mod_vlan_pcp:0" \
        "pfc-enable=3 link-speed=1G trust=dscp" \
        "pfc-enable=3 link-speed=1G queue-size=200 rewrite-pcp=true" \
        || return 1
    run_or_fail "pfc/show dpdk-b: egress rewrite" \
        grep -q "egress rewrite: pcp from the priority, dscp none" \
        <<<"$(pfc_show dpdk-b)"
    classify_incast dscp4
    run_or_fail "B got p3 with PCP 3" test "$(classify_fact pcp_p3)" = "[3]"
    run_or_fail "B got p0 with PCP 0" test "$(classify_fact pcp_p0)" = "[0]"
    [ "$FAILS" -eq 0 ]
}

# Egress remarking, rewrite-dscp, into a tunnel: tagged frames that are not
# IP, classified by PCP at the ingress, leave dpdk-b in VXLAN, where
# tos=inherit has nothing to inherit (outer DSCP 0): dpdk-b's rewrite-dscp
# 3:26 gives priority 3 the outer DSCP 26, as a switch's TC_TO_DSCP map
# does, so that the far end, trusting DSCP, classifies it alike; priority 0,
# not in the map, keeps 0.
test_classify_vxlan_rewrite() {
    classify_setup "" "pfc-enable=3 link-speed=1G" \
        "pfc-enable=3 link-speed=1G queue-size=200 rewrite-dscp=3:26" \
        || return 1
    classify_vxlan_encap_flows || return 1
    classify_incast tagged
    run_or_fail "B got p3 in VXLAN with outer DSCP 26 (rewrite-dscp)" \
        test "$(classify_fact outer_dscp_p3)" = "[26]"
    run_or_fail "B got p0 in VXLAN with outer DSCP 0" \
        test "$(classify_fact outer_dscp_p0)" = "[0]"
    [ "$FAILS" -eq 0 ]
}

# A Queue row that moves a lossless priority, with 1,500 of its packets
# held, into a class that was lossy (1,024 slots per tx queue): the class
# gets room for the whole buffer before the packets move, and none is lost.
# A's port lists priority 3 in pfc-enable, so that what it sends is
# lossless; B pauses priority 3 throughout, then sends XON.
test_classify_remap_lossless() {
    local rec i tc3
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/remap.json
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    start_recv "$rec"
    pause_p3 --xon-on-exit
    send_p3 1500 || FAILS=$((FAILS + 1))
    wait_held 1500 || FAILS=$((FAILS + 1))
    pfc_vsctl -- --id=@q1 create Queue other_config:priorities=1,3 \
        -- set QoS "$(pfc_vsctl get Port dpdk-b qos)" queues:1=@q1 \
        >/dev/null || FAILS=$((FAILS + 1))
    for i in $(seq 50); do
        tc3=$(pfc_show dpdk-b | awk '$1 == "p3" { print $2 }')
        [ "$tc3" = 1 ] && break
        sleep 0.1
    done
    check "priority 3 now in class 1" "$tc3" -eq 1
    check "all 1500 still held after the change" "$(held_p3)" -eq 1500
    xon_drain_check "$rec" 1500
    [ "$FAILS" -eq 0 ]
}

# classify_app_held: A pauses priority 3 at dpdk-a for 3.4 s (10M); B sends
# dpdk-b 20 untagged IPv4 frames of DSCP 10; prints how many of them dpdk-a
# holds as priority 3 0.3 s later.  A then sends XON.
classify_app_held() {
    local n
    "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_A:$PFC_IF_A1" --side A \
        --prio 3 --time 65535 || FAILS=$((FAILS + 1))
    "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_B:$PFC_IF_B1" --side B \
        --streams 9:0u --ip 4 --dscp 10 --count 20 --rate 1000 \
        || FAILS=$((FAILS + 1))
    sleep 0.3
    n=$(held_prio dpdk-a 3)
    "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_A:$PFC_IF_A1" --side A \
        --prio 3 --time 0 || FAILS=$((FAILS + 1))
    echo "$n"
}

# DCBX Application Priority, DSCP selector, against lldpd: dpdk-b, with
# trust=dscp and willing, advertises its DSCP map (64 entries; lldpd shows
# the TLV, OUI 00-80-C2 subtype 12) and adopts lldpd's entry DSCP 10 ->
# priority 3 (a custom TLV).  IPv4 of DSCP 10 that B sends into dpdk-b is
# then priority 3, and dpdk-a, whose partner A pauses priority 3, holds it.
# Once lldpd's TTL runs out, DSCP 10 is priority 1 again (DSCP / 8), which
# A does not pause.
test_classify_dcbx_app() {
    local sock out i sf
    pfc_setup "$OVS" || return 1
    sock=$PFC_TMP/lldpd.sock
    pfc_qos dpdk-a pfc-enable=3 link-speed=10M || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M dcbx=ieee dcbx-willing=true \
        trust=dscp lldp-tx-interval=1 || return 1
    check "DSCP 10 held as priority 3 before DCBX adopts it" \
        "$(classify_app_held)" -eq 0
    pfc_tshark_start "$PFC_NS_B" "$PFC_IF_B1" "$PFC_TMP/app.pcap" \
        "ether proto 0x88cc" || return 1
    lldpd_start "$sock" "configure lldp custom-tlv oui 00,80,c2 subtype 12 \
oui-info 00,65,00,0a" || return 1
    for i in $(seq 50); do
        out=$(pfc_show dpdk-b)
        grep -q "dcbx app: .*partner dscp 10:3 .*, adopted" <<<"$out" \
            && break
        sleep 0.1
    done
    pfc_log "$(grep -E "ingress:|dcbx app:" <<<"$out")"
    run_or_fail "pfc/show dpdk-b: lldpd's DSCP 10:3 adopted" \
        grep -q "dcbx app: .*partner dscp 10:3 .*, adopted" <<<"$out"
    run_or_fail "pfc/show dpdk-b: the map in force has 10:3" \
        grep -q "ingress: trust dscp, dscp-map .*10:3.* (with the DCBX" \
        <<<"$out"
    out=$(ip netns exec "$PFC_NS_B" lldpcli -u "$sock" show neighbors \
              details 2>&1)
    run_or_fail "lldpd sees dpdk-b's Application Priority TLV (subtype \
12: DSCP 0 priority 0 first, DSCP 26 priority 3)" grep -Eiq "OUI: *00,80,C2, *SubType: *12, *Len: *193 \
*00,05,00,00,05,00,01,05,00,02,.*,65,00,1A," <<<"$out"
    check "DSCP 10 held as priority 3 (adopted from lldpd)" \
        "$(classify_app_held)" -eq 20
    pfc_tshark_stop
    # tshark decodes the port's Application Priority TLV (IEEE 802.1Q-2018
    # D.2.12): 64 entries of the DSCP selector (5), DSCP 26 priority 3.
    # Wireshark spells the selector's field "iee"; a release that fixes
    # the spelling is used as it spells it.
    sf=lldp.dcbx.iee.app.sf
    tshark -G fields 2>/dev/null | grep -q $'\tlldp.dcbx.ieee.app.sf\t' \
        && sf=lldp.dcbx.ieee.app.sf
    out=$(tshark -r "$PFC_TMP/app.pcap" -Y "lldp and eth.src != $PFC_MAC_B" \
              -T fields -E occurrence=a -e lldp.dcbx.ieee.app.prio \
              -e "$sf" -e lldp.dcbx.feature.app.proto \
              2>/dev/null | "$PFC_PY" -c 'import sys
for line in sys.stdin:
    f = line.rstrip("\n").split("\t") + ["", "", ""]
    e = list(zip(*(x.split(",") for x in f[:3])))
    print(sum(s == "5" for _, s, _ in e),
          int(("3", "5", "0x001a") in e))')
    pfc_log "dpdk-b's LLDPDUs at B (DSCP entries, DSCP 26 priority 3):" \
        "$(sort <<<"$out" | uniq -c | tr '\n' ';')"
    run_or_fail "tshark: dpdk-b's LLDPDUs carry 64 DSCP entries, DSCP 26 \
priority 3" grep -q "^64 1$" <<<"$out"
    run_or_fail "tshark: no LLDPDU of dpdk-b without them" \
        bash -c "! grep -v '^64 1$' <<<'$out' | grep -q ."
    lldpd_kill
    wait_log "dpdk-b: DCBX: operational DSCP map: dscp-map" \
        "fallback to dscp-map after lldpd's TTL logged"
    sleep 0.2
    check "DSCP 10 held as priority 3 after lldpd left" \
        "$(classify_app_held)" -eq 0
    [ "$FAILS" -eq 0 ]
}

# classify_watch_bound: samples, every 20 ms until killed, dpdk-b's class 3
# in pfc/buffer: the most packets held beyond the port's egress bound at
# once, into $PFC_TMP/over_bound, the most held, into $PFC_TMP/max_held_tc3,
# and how many samples found the class at its bound or beyond, into
# $PFC_TMP/at_bound.
classify_watch_bound() {
    local over=0 max=0 at=0 line held bound
    echo 0 >"$PFC_TMP/over_bound"
    echo 0 >"$PFC_TMP/max_held_tc3"
    echo 0 >"$PFC_TMP/at_bound"
    while :; do
        line=$(pfc_appctl pfc/buffer 2>/dev/null \
                   | grep -E '^ +dpdk-b +tc3: held')
        held=$(sed -n 's/.*tc3: held \([0-9]*\) .*/\1/p' <<<"$line")
        bound=$(sed -n 's/.*bound \([0-9]*\) for the port.*/\1/p' \
                    <<<"$line")
        if [[ "$held" =~ ^[0-9]+$ ]] && [[ "$bound" =~ ^[0-9]+$ ]]; then
            if [ $((held - bound)) -gt "$over" ]; then
                over=$((held - bound))
                echo "$over" >"$PFC_TMP/over_bound"
            fi
            if [ "$held" -gt "$max" ]; then
                max=$held
                echo "$max" >"$PFC_TMP/max_held_tc3"
            fi
            if [ "$held" -ge "$bound" ] && [ "$bound" -gt 0 ]; then
                at=$((at + 1))
                echo "$at" >"$PFC_TMP/at_bound"
            fi
        fi
        sleep 0.02
    done
}

# Two PMD threads into one paused egress: A's port is polled by the PMD
# thread of core 0, C's by that of core 1, and both send priority 3 to
# dpdk-b, whose partner B pauses it, each through its own tx queue of
# dpdk-b; the dynamic egress bound (egress-dynamic-th -5, alpha 1/32, so
# that the paused class reaches it) holds for the port, across both tx
# queues (at most one burst of 32 per tx queue beyond it; a bound per tx
# queue would let the port take twice it), so the shared pool keeps room
# for the others.  Meanwhile D sends lossless priority 3
# through dpdk-d to E, which dpdk-e shapes to 2 Mb/s (so that D's group
# holds a few packets now and then): it sends elsewhere, and gets no XOFF.
# Both cores run PMD threads here, so the peers share them: the senders send
# 500 frames a second each, into pauses of 500 ms, so that the class still
# reaches its bound.
test_classify_two_pmds() {
    local n x d_sent
    n=$(nproc --all 2>/dev/null || echo 1)
    if [ "$n" -lt 2 ]; then
        pfc_log "FAIL: this test needs 2 CPUs for 2 PMD threads (has $n)"
        return 1
    fi
    PFC_PMD_MASK=0x3
    PFC_DEVARGS=",qpairs=2"
    pfc_setup "$OVS" || return 1
    for x in C D E; do
        pfc_net_add_host "$x" \
            || { pfc_err "cannot create namespace $x and its veth"; return 1; }
        pfc_port_host "$x" || return 1
    done
    # dpdk-a and dpdk-b have 2 queue pairs (net_af_packet's qpairs): B's
    # PFC frames may arrive on either rx queue, and A's frames on either
    # of dpdk-a's, as the kernel's flow hash (seeded at boot) picks, so
    # both of dpdk-a's are polled, by the PMD thread of core 0: a queue
    # that nobody polls would keep the frames hashed to it.
    # Pinned rx queues leave the PMD threads open to the others
    # (pmd-rxq-isolate=false, which needs pmd-rxq-assign=group).
    pfc_vsctl set Open_vSwitch . other_config:pmd-rxq-assign=group \
        other_config:pmd-rxq-isolate=false \
        -- set Interface dpdk-b options:n_rxq=2 \
        -- set Interface dpdk-a options:n_rxq=2 \
        other_config:pmd-rxq-affinity="0:0,1:0" \
        -- set Interface dpdk-c other_config:pmd-rxq-affinity="0:1" \
        -- set Interface dpdk-d other_config:pmd-rxq-affinity="0:1" \
        || return 1
    pfc_ofctl del-flows br0 || return 1
    for x in dpdk-a dpdk-c; do
        pfc_ofctl add-flow br0 "in_port=$x,actions=output:dpdk-b" \
            || return 1
    done
    pfc_ofctl add-flow br0 in_port=dpdk-d,actions=output:dpdk-e || return 1
    for x in dpdk-a dpdk-c dpdk-d; do
        pfc_qos "$x" pfc-enable=3 link-speed=1G || return 1
    done
    pfc_qos dpdk-b pfc-enable=3 link-speed=1G egress-dynamic-th=-5 || return 1
    pfc_qos dpdk-e pfc-enable=3 link-speed=1G max-rate=2000000 || return 1
    pfc_log "pmd-rxq-show: $(pfc_appctl dpif-netdev/pmd-rxq-show \
        | grep -E 'pmd thread|port: dpdk-[acd]' | tr -s ' ' | tr '\n' ';')"
    check "PMD threads polling dpdk-a and dpdk-c" "$(pfc_appctl \
        dpif-netdev/pmd-rxq-show | awk '/^pmd thread/ { core = $NF }
        /port: dpdk-[ac] / { c[core] = 1 } END { print length(c) }')" -eq 2

    pfc_bg "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_D:$PFC_IF_D1" \
        --side A --src "$PFC_MAC_D" --dst "$PFC_MAC_E" --streams 40:3 \
        --count 2500 --rate 500 --honour 1G
    local d_pid=$PFC_LAST_PID
    classify_watch_bound &
    local watch=$!
    classify_incast tagged 6 500 500
    kill "$watch" 2>/dev/null
    wait "$watch" 2>/dev/null
    wait_pid "$d_pid" 15
    pfc_log "dpdk-b class 3: at most $(cat "$PFC_TMP/max_held_tc3") held," \
        "at most $(cat "$PFC_TMP/over_bound") beyond the port's bound"
    check "samples of dpdk-b class 3 at the port's egress bound (else the \
bound is not tested)" "$(cat "$PFC_TMP/at_bound")" -ge 1
    check "dpdk-b class 3 held beyond the port's egress bound (2 tx \
queues, a burst of 32 each)" "$(cat "$PFC_TMP/over_bound")" -le 64
    pfc_stats_refresh
    check "dpdk-d pfc_tx_frames_p3 (D sends elsewhere: no XOFF)" \
        "$(pfc_stat dpdk-d pfc_tx_frames_p3)" -eq 0
    d_sent=$(pfc_stat dpdk-e tx_packets)
    check "dpdk-e sent D's frames to E" "${d_sent:-0}" -ge 2000
    [ "$FAILS" -eq 0 ]
}

# A flood of lossless frames: every priority-3 frame that A sends is output
# to both dpdk-b and dpdk-c, whose partners B and C pause priority 3 for
# 1 s.  The first output takes a copy, which never takes headroom; A's
# group is charged both, sends XOFF past 60,000 bytes (about 230 frames
# each output twice), and A, honouring it, stops.  Once B and
# C resume, each gets every frame, once and in order, and nothing was
# dropped: not a copy (pfc_hold_drops), not for headroom.
test_classify_flood_copies() {
    local rec_b rec_c pb pc x rc
    pfc_setup "$OVS" || return 1
    rec_b=$PFC_TMP/flood_b.json
    rec_c=$PFC_TMP/flood_c.json
    pfc_net_add_c || return 1
    pfc_port_c || return 1
    pfc_ofctl del-flows br0 || return 1
    pfc_ofctl add-flow br0 \
        in_port=dpdk-a,actions=output:dpdk-b,output:dpdk-c || return 1
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G xoff-threshold=60000 \
        xon-threshold=30000 || return 1
    for x in dpdk-b dpdk-c; do
        pfc_qos "$x" pfc-enable=3 link-speed=10M || return 1
    done
    start_recv "$rec_b"
    local recv_b=$RECV_PID
    start_recv "$rec_c" C
    local recv_c=$RECV_PID
    for x in B C; do
        pfc_bg "$PFC_PY" "$PFC_PEER" send-pfc \
            --port "$(pfc_host_port "$x")" --side B \
            --src "$(pfc_host_var "$x" MAC)" --prio 3 --time 65535 \
            --interval 0.5 --duration 1 --xon-on-exit
        [ "$x" = B ] && pb=$PFC_LAST_PID || pc=$PFC_LAST_PID
    done
    sleep 0.2
    "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" --side A \
        --streams 1:3 --count 1500 --rate 1000 --honour 1G
    rc=$?
    check "A's stream ended (status)" "$rc" -eq 0
    wait_pid "$pb" 10
    wait_pid "$pc" 10
    sleep 1
    pfc_stop_pid "$recv_b"
    pfc_stop_pid "$recv_c"
    run_or_fail "B got the 1500 p3 frames, once each and in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec_b" --stream 1 --expect 1500
    run_or_fail "C got the 1500 p3 frames, once each and in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec_c" --stream 1 --expect 1500
    pfc_stats_refresh
    check "dpdk-a pfc_tx_frames_p3 (A was paused)" \
        "$(pfc_stat dpdk-a pfc_tx_frames_p3)" -ge 1
    check "dpdk-a pfc_headroom_drops_p3" \
        "$(pfc_stat dpdk-a pfc_headroom_drops_p3)" -eq 0
    for x in dpdk-b dpdk-c; do
        check "$x pfc_hold_drops_p3" "$(pfc_stat "$x" pfc_hold_drops_p3)" \
            -eq 0
    done
    [ "$FAILS" -eq 0 ]
}
