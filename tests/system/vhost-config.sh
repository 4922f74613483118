# System tests of vhost-user ports and QoS changes: MAC Control frames
# from a guest, PFC on a vhost-user port without a reconfiguration, and
# lossless traffic across QoS changes, sourced by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# Checks what B received in test_guest_mac_control: in the tshark capture
# PCAP and in pfc_peer.py's record REC, no MAC Control frame, and the N
# frames of each of C's data streams.
guest_mc_capture() {        # guest_mc_capture PCAP REC N
    local pcap=$1 rec=$2 n=$3 lines i

    # What B's veth received, as tshark decodes it.
    lines=$(tshark -r "$pcap" -Y \
        'eth.type == 0x8808 || vlan.etype == 0x8808 || macc' 2>/dev/null)
    if [ -n "$lines" ]; then
        pfc_log "MAC Control frames captured in B:"
        pfc_log "$(head -20 <<<"$lines")"
    fi
    check "tshark in B: MAC Control frames" "$(grep -c . <<<"$lines")" -eq 0
    check "tshark in B: ordinary frames from C (the control)" \
        "$(tshark -r "$pcap" -T fields -e frame.number -Y \
           "eth.src == $PFC_MAC_C && (eth.type == 0x88b5 || vlan.etype == 0x88b5)" \
           2>/dev/null | grep -c .)" -eq $((4 * 2 * n))
    lines=$("$PFC_PY" "$PFC_PEER" decode "$rec")
    [ -n "$lines" ] && pfc_log "$(head -20 <<<"$lines")"
    check "pfc_peer.py recv in B: MAC Control frames" \
        "$(grep -c . <<<"$lines")" -eq 0
    for i in 10 11 20 21 30 31 40 41; do
        run_or_fail "B got the $n frames of stream $i" \
            "$PFC_PY" "$PFC_PEER" check "$rec" --stream "$i" --expect "$n"
    done
}

# MAC Control frames from a guest never reach the wire.  A third host, C, on
# dpdk-c (no PFC) sends MAC Control frames: PFC (opcode 0x0101) and 802.3x
# PAUSE (0x0001) to 01:80:c2:00:00:01, PFC behind an 802.1Q tag and behind
# an 802.1ad S-tag plus an 802.1Q C-tag, and the same four to B's unicast
# MAC; then ordinary frames (p0 untagged, p3 tagged) as a control.
# (net_af_packet re-inserts the outer tag, which the kernel strips, as
# 0x8100: inside OVS the 802.1ad frames carry two 802.1Q tags.)  Four flow
# setups, each with its own count of MAC Control frames directed at dpdk-b:
#   a   in_port=dpdk-c,actions=output:dpdk-b: all of them;
#   b1  NORMAL, B's MAC not learned: NORMAL itself drops the frames to the
#       reserved 01-80-C2-00-00-0x; those to B are flooded, dpdk-b included;
#   b2  NORMAL, B's MAC learned from a frame B sent: the same count (the
#       untagged frames to B go to dpdk-b alone, the tagged ones are still
#       flooded: B is known on VLAN 0 only);
#   c   NORMAL with forward-bpdu=true: all of them (the reserved ones are
#       flooded too).
# dpdk-b has QoS pfc; nothing is congested, so it sends no PFC frame of its
# own.  B's captures (tshark, and pfc_peer.py recv) must show no MAC Control
# frame at all and every ordinary frame; dpdk-b's ovs_tx_mac_control_drops
# must grow by exactly the frames directed at it, tx_dropped by at least as
# much, and pfc/show must report the same total.
test_guest_mac_control() {
    local k=3 n=20 pcap rec total=0 i ofport_b shown stat
    local mc_kinds uc_kinds n_mc n_uc
    pfc_setup "$OVS" || return 1
    pfc_net_add_c || { pfc_err "cannot create namespace C and its veth"
                       return 1; }
    pfc_port_c || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10G || return 1
    pcap=$PFC_TMP/b.pcap
    rec=$PFC_TMP/guest.json
    ofport_b=$(pfc_vsctl get Interface dpdk-b ofport)
    # pfc_peer.py send-macc kinds, OPCODE@DST@TAGS (DST "pfc" is
    # 01:80:c2:00:00:01).
    mc_kinds=(pfc@pfc@- pause@pfc@- pfc@pfc@8100:10
              pfc@pfc@88a8:100,8100:10)
    uc_kinds=("pfc@$PFC_MAC_B@-" "pause@$PFC_MAC_B@-"
              "pfc@$PFC_MAC_B@8100:10" "pfc@$PFC_MAC_B@88a8:100,8100:10")
    n_mc=$((${#mc_kinds[@]} * k))
    n_uc=$((${#uc_kinds[@]} * k))

    # Everything B's veth receives: no capture filter (one would miss
    # frames behind two tags).
    pfc_tshark_start "$PFC_NS_B" "$PFC_IF_B1" "$pcap" "" || return 1
    start_recv "$rec"

    # fdb_b: 1 if br0's MAC table has B's MAC on dpdk-b, else 0.
    fdb_b() {
        pfc_appctl fdb/show br0 | awk -v p="$ofport_b" -v m="$PFC_MAC_B" \
            '$1 == p && $3 == m { n++ } END { print n ? 1 : 0 }'
    }
    # guest_round NAME EXPECTED STREAM: C sends K frames of each kind, then
    # N frames each of data streams STREAM (untagged) and STREAM+1 (p3,
    # VLAN 10) to B.  dpdk-b must have filtered EXPECTED MAC Control frames.
    guest_round() {
        local name=$1 want=$2 s=$3 d0 d1 t0 t1 kind args=()
        # Datapath flows of the previous setup must not linger.
        pfc_appctl revalidator/purge >/dev/null
        pfc_stats_refresh
        d0=$(pfc_stat dpdk-b ovs_tx_mac_control_drops)
        t0=$(pfc_stat dpdk-b tx_dropped)
        for kind in "${mc_kinds[@]}" "${uc_kinds[@]}"; do
            args+=(--kind "$kind")
        done
        run_or_fail "$name: C sends $((n_mc + n_uc)) MAC Control frames" \
            "$PFC_PY" "$PFC_PEER" send-macc --port "$PFC_NS_C:$PFC_IF_C1" \
            --src "$PFC_MAC_C" --count "$k" "${args[@]}"
        run_or_fail "$name: C sends $n frames each of streams $s, $((s + 1))" \
            "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_C:$PFC_IF_C1" \
            --src "$PFC_MAC_C" --dst "$PFC_MAC_B" \
            --streams "$s:0u,$((s + 1)):3" --count "$n" --rate 2000
        sleep 0.5
        pfc_stats_refresh
        d1=$(pfc_stat dpdk-b ovs_tx_mac_control_drops)
        t1=$(pfc_stat dpdk-b tx_dropped)
        check_stat_delta "$name: dpdk-b ovs_tx_mac_control_drops grew by" \
            "$d0" "$d1" -eq "$want"
        check_stat_delta "$name: dpdk-b tx_dropped grew by" \
            "$t0" "$t1" -ge "$want"
        total=$((total + want))
    }

    pfc_ofctl del-flows br0 || return 1
    pfc_ofctl add-flow br0 in_port=dpdk-c,actions=output:dpdk-b || return 1
    guest_round "a (output:dpdk-b)" $((n_mc + n_uc)) 10

    pfc_ofctl del-flows br0 || return 1
    pfc_ofctl add-flow br0 actions=NORMAL || return 1
    check "b1: B's MAC learned on dpdk-b" "$(fdb_b)" -eq 0
    guest_round "b1 (NORMAL, B unknown)" "$n_uc" 20

    run_or_fail "B sends a frame (NORMAL learns its MAC)" \
        "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_B:$PFC_IF_B1" \
        --side B --streams 99:0u --count 1
    for i in $(seq 20); do
        [ "$(fdb_b)" = 1 ] && break
        sleep 0.1
    done
    check "b2: B's MAC learned on dpdk-b" "$(fdb_b)" -eq 1
    guest_round "b2 (NORMAL, B learned)" "$n_uc" 30

    pfc_vsctl set bridge br0 other_config:forward-bpdu=true || return 1
    guest_round "c (NORMAL, forward-bpdu=true)" $((n_mc + n_uc)) 40

    pfc_tshark_stop
    pfc_stop_pid "$RECV_PID"

    guest_mc_capture "$pcap" "$rec" "$n"

    pfc_show dpdk-b
    pfc_stats_refresh
    stat=$(pfc_stat dpdk-b ovs_tx_mac_control_drops)
    shown=$(pfc_show dpdk-b | sed -n \
            's/.*tx MAC Control frames filtered: \([0-9][0-9]*\).*/\1/p')
    check "dpdk-b ovs_tx_mac_control_drops, all rounds" "$stat" -eq "$total"
    check "pfc/show dpdk-b: tx MAC Control frames filtered" \
        "${shown:-absent}" -eq "$total"
    [ "$FAILS" -eq 0 ]
}

# No cost where PFC is not configured.  vhost0, a vhost-user port in server
# mode with no guest, shares br0 and the PMD thread with dpdk-a and with
# dpdk-b, which has QoS pfc; A's frames go to both.  OVSDB writes that
# concern no port must neither reconfigure vhost0 nor reload the PMD thread,
# as in upstream Open vSwitch.  At debug level, each reconfiguration of a
# vhost port logs "TX queue mapping for port 'NAME'" (netdev_dpdk) and each
# PMD reload "Core N processing port 'NAME' with queue-id Q" (dpif_netdev).
# A reconfiguration of vhost0 also zeroes its statistics, but OVS 3.1
# reports none for a vhost port without a guest (get_stats fails with
# EPROTO), so tx_dropped is compared only if vhost0 has it.
test_vhost_no_reconfig() {
    local n=200 i log drop0 drop1 rx0 rx1 rl0 rl1 ra0 ra1 rc0 rc1
    pfc_setup "$OVS" || return 1
    log=$PFC_TMP/ovs-vswitchd.log
    pfc_qos dpdk-b pfc-enable=3 link-speed=10G || return 1
    pfc_appctl vlog/set dpif_netdev:file:dbg >/dev/null || return 1
    pfc_appctl vlog/set netdev_dpdk:file:dbg >/dev/null || return 1
    pfc_vsctl add-port br0 vhost0 -- set Interface vhost0 \
        type=dpdkvhostuser || return 1
    pfc_iface_ok vhost0 || return 1
    run_or_fail "vhost-user server socket $PFC_TMP/vhost0" \
        test -S "$PFC_TMP/vhost0"
    pfc_ofctl del-flows br0 in_port=dpdk-a || return 1
    pfc_ofctl add-flow br0 \
        in_port=dpdk-a,actions=output:vhost0,output:dpdk-b || return 1
    reloads() { grep -c "processing port '$1'" "$log"; }
    reconfigs() { grep -c "TX queue mapping for port '$1'" "$log"; }
    check "PMD reloads logged with vhost0 (the debug log works)" \
        "$(reloads vhost0)" -ge 1
    check "reconfigurations of vhost0 logged (the debug log works)" \
        "$(reconfigs vhost0)" -ge 1

    run_or_fail "A sends $n frames" "$PFC_PY" "$PFC_PEER" stream \
        --port "$PFC_NS_A:$PFC_IF_A1" --side A --streams 1:0 --count "$n" \
        --rate 2000
    sleep 0.5
    pfc_stats_refresh
    sleep 1     # Whatever that write set off is over.
    drop0=$(pfc_stat vhost0 tx_dropped)
    rx0=$(pfc_stat dpdk-a rx_packets)
    rl0=$(reloads vhost0)
    ra0=$(reloads dpdk-a)
    rc0=$(reconfigs vhost0)
    check "dpdk-a rx_packets" "$rx0" -ge "$n"
    check "dpdk-b tx_packets" "$(pfc_stat dpdk-b tx_packets)" -ge "$n"

    for i in $(seq 20); do
        if [ $((i % 2)) = 1 ]; then
            pfc_vsctl set Bridge br0 "other_config:foo=$i"
        else
            pfc_vsctl set Open_vSwitch . "external_ids:foo=$i"
        fi || { pfc_log "FAIL: OVSDB write $i"; FAILS=$((FAILS + 1)); }
        sleep 0.2
    done
    sleep 1
    pfc_stats_refresh
    drop1=$(pfc_stat vhost0 tx_dropped)
    rx1=$(pfc_stat dpdk-a rx_packets)
    rl1=$(reloads vhost0)
    ra1=$(reloads dpdk-a)
    rc1=$(reconfigs vhost0)
    check "reconfigurations of vhost0 during the 20 writes (log lines\
 $rc0 -> $rc1)" "$(delta "$rc0" "$rc1")" -eq 0
    check "PMD reloads with vhost0 during the writes (log lines\
 $rl0 -> $rl1)" "$(delta "$rl0" "$rl1")" -eq 0
    if [ "$drop0" = absent ] && [ "$drop1" = absent ]; then
        pfc_log "note: vhost0 reports no statistics without a guest;" \
                "its reconfigurations are counted from the log above"
    else
        check "vhost0 tx_dropped after the writes (was $drop0; a\
 reconfiguration of vhost0 zeroes it)" "$drop1" -ge "$drop0"
    fi
    check "dpdk-a rx_packets after the writes (was $rx0)" "$rx1" -ge "$rx0"
    check "PMD reloads with dpdk-a during the writes (log lines\
 $ra0 -> $ra1)" "$(delta "$ra0" "$ra1")" -eq 0

    # Control: a write that does concern vhost0 (its MTU) reconfigures it
    # and reloads the PMD thread, and the log shows both.
    pfc_vsctl set Interface vhost0 mtu_request=2000 || return 1
    sleep 1
    check "control: reconfigurations of vhost0 after its mtu_request" \
        "$(delta "$rc1" "$(reconfigs vhost0)")" -ge 1
    check "control: PMD reloads with vhost0 after its mtu_request" \
        "$(delta "$rl1" "$(reloads vhost0)")" -ge 1
    [ "$FAILS" -eq 0 ]
}

# Checks that pfc/show of dpdk-b shows pfc-enable ENABLE, pause-quanta
# QUANTA and xoff-threshold XOFF, the last values test_qos_changes_lossless
# set.
qos_last_in_force() {       # qos_last_in_force ENABLE QUANTA XOFF
    local last_enable=$1 last_quanta=$2 last_xoff=$3

    check "pfc/show: pause-quanta is the last set" \
        "$(pfc_show dpdk-b | sed -n 's/^ *pause-quanta: \([0-9]*\)$/\1/p')" \
        -eq "$last_quanta"
    check "pfc/show: xoff-threshold is the last set" \
        "$(pfc_show dpdk-b | sed -n 's/^ *xoff-threshold: \([0-9]*\) bytes.*/\1/p')" \
        -eq "$last_xoff"
    run_or_fail "pfc/show: pfc-enable is the last set ($last_enable)" \
        grep -qE "^ *pfc-enable: ${last_enable}\$" \
        <(pfc_show dpdk-b)
}

# Repeated QoS changes under traffic lose nothing silently.  dpdk-b has QoS
# pfc (pfc-enable 3, link-speed 10M); B pauses its priority 3 for 1000
# quanta (51.2 ms) every 100 ms, so that p3 packets are held about half the
# time, and records what arrives.  A sends a p3 stream and a p0 stream for
# 8 s; meanwhile 30 QoS changes cycle through pfc-enable (3,4 or 3),
# pause-quanta and xoff-threshold, keys that do not change the tx ring.
# After an XON, every p3 frame must have arrived once and in order, with no
# held packet dropped; every p0 frame must have arrived or been counted in
# dpdk-b's tx_dropped; and the log must show no restart of dpdk-b and no
# held packets freed.
test_qos_changes_lossless() {
    local n=4000 rate=1000 rec log qos port_id i key val sender rc
    local drop0 drop1 got0 r0 r1 f0 f1 e0 e1 during=0 held=0 h
    local restart_re freed_re last_quanta last_xoff last_enable
    pfc_setup "$OVS" || return 1
    log=$PFC_TMP/ovs-vswitchd.log
    rec=$PFC_TMP/qos.json
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    qos=$(pfc_vsctl get Port dpdk-b qos) || return 1
    port_id=$(pfc_show dpdk-b | sed -n 's/^ *dpdk port \([0-9]*\),.*/\1/p')
    # What a restart of dpdk-b logs: its tx ring (netdev-dpdk-pfc, when the
    # size changes), "Port N: MAC" (dpdk_eth_dev_init()), and the
    # assignment of its rx queue to a PMD thread (dpif-netdev).
    restart_re="dpdk-b: PFC: tx ring of|assigned port 'dpdk-b'"
    restart_re+="|netdev_dpdk\|INFO\|Port ${port_id:-unknown}: "
    freed_re="dpdk-b: freed [0-9]+ held packets"
    pfc_stats_refresh
    drop0=$(pfc_stat dpdk-b tx_dropped)
    r0=$(grep -cE "$restart_re" "$log")
    f0=$(grep -cE "$freed_re" "$log")
    e0=$(grep -c 'QoS type pfc' "$log")

    start_recv "$rec"
    pfc_bg "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" \
        --side B --prio 3 --time 1000 --interval 0.1 --duration 40 \
        --xon-on-exit
    PAUSE_PID=$PFC_LAST_PID
    sleep 0.3
    pfc_bg "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" \
        --side A --streams 1:3,2:0 --count "$n" --rate "$rate"
    sender=$PFC_LAST_PID
    sleep 0.3
    for i in $(seq 0 29); do
        case $((i % 3)) in
        0) key=pfc-enable
           val=$([ $((i / 3 % 2)) = 0 ] && echo 3,4 || echo 3)
           last_enable=$val ;;
        1) key=pause-quanta
           val=$([ $((i / 3 % 2)) = 0 ] && echo 30000 || echo 65535)
           last_quanta=$val ;;
        2) key=xoff-threshold
           val=$([ $((i / 3 % 2)) = 0 ] && echo 200000 || echo 100000)
           last_xoff=$val ;;
        esac
        kill -0 "$sender" 2>/dev/null && during=$((during + 1))
        h=$(held_p3)
        [[ "$h" =~ ^[0-9]+$ ]] && [ "$h" -gt 0 ] && held=$((held + 1))
        pfc_vsctl set QoS "$qos" "other_config:$key=\"$val\"" || {
            pfc_log "FAIL: QoS change $((i + 1)): $key=$val"
            FAILS=$((FAILS + 1)); }
        sleep 0.05
    done
    check "QoS changes made while A was sending (of 30)" "$during" -ge 20
    check "QoS changes made just after pfc/show saw held p3 packets" \
        "$held" -ge 3
    wait "$sender"
    rc=$?
    check "A's sender exit status" "$rc" -eq 0
    xon_and_drain

    run_or_fail "B got the $n p3 frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 1 --expect "$n"
    "$PFC_PY" "$PFC_PEER" check "$rec" --stream 2 --expect "$n" \
        | sed 's/^/p0 (lossy): /'
    got0=$("$PFC_PY" -c '
import json, sys
n = int(sys.argv[2])
print(len({x[4] for x in json.load(open(sys.argv[1]))["data"]
           if x[1] == 2 and 0 <= x[4] < n}))' "$rec" "$n")
    pfc_show dpdk-b
    pfc_stats_refresh
    drop1=$(pfc_stat dpdk-b tx_dropped)
    check_stat_delta "dpdk-b tx_dropped during the changes" \
        "$drop0" "$drop1" -ge 0
    check "p0: received ($got0) + dpdk-b tx_dropped growth, of $n sent" \
        "$(( got0 + $(delta "$drop0" "$drop1" | sed 's/absent/0/') ))" \
        -ge "$n"
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    check "dpdk-b pfc_pause_transitions_p3 (B's pauses took effect)" \
        "$(pfc_stat dpdk-b pfc_pause_transitions_p3)" -ge 10

    # The changes took effect, and none was refused.
    e1=$(grep -c 'QoS type pfc' "$log")
    check "log: QoS type pfc errors during the changes" \
        "$(delta "$e0" "$e1")" -eq 0
    qos_last_in_force "$last_enable" "$last_quanta" "$last_xoff"

    # No restart of dpdk-b, no held packet freed.
    r1=$(grep -cE "$restart_re" "$log")
    f1=$(grep -cE "$freed_re" "$log")
    check "log: lines of a restart of dpdk-b during the changes" \
        "$(delta "$r0" "$r1")" -eq 0
    [ "$r1" -gt "$r0" ] && grep -E "$restart_re" "$log" | tail -n +$((r0 + 1)) \
        | head -10
    check "log: \"freed N held packets\" lines during the changes" \
        "$(delta "$f0" "$f1")" -eq 0
    [ "$f1" -gt "$f0" ] && grep -E "$freed_re" "$log" | tail -n +$((f0 + 1)) \
        | head -10
    [ "$FAILS" -eq 0 ]
}
