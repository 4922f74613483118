# System tests of mac-control-queue beside Open vSwitch's own rx steering,
# sourced by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# steer_ovs_minor: prints the Open vSwitch version of the tree under test as
# MAJOR*100+MINOR (301 for 3.1), or fails.
steer_ovs_minor() {
    local v
    v=$("$PFC_OVS/vswitchd/ovs-vswitchd" --version 2>/dev/null \
            | sed -n 's/.*Open vSwitch) \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
    [ -n "$v" ] || { pfc_err "cannot read ovs-vswitchd --version"; return 1; }
    set -- $v
    echo $(($1 * 100 + $2))
}

# mac-control-queue and options:rx-steering (Open vSwitch 3.3 and later)
# both want the last rx queue and rte_flow rules: PFC refuses
# mac-control-queue while rx-steering is set, says why in pfc/show, and
# never touches a rule it did not create.  Open vSwitch 3.1 has no
# rx-steering: there the option is not known, and mac-control-queue meets
# only the driver's limits (net_af_packet has no redirection table).
test_mac_control_queue_rx_steering() {
    local v line
    PFC_DEVARGS=",qpairs=2"
    pfc_setup "$OVS" || return 1
    v=$(steer_ovs_minor) || return 1
    pfc_vsctl set Interface dpdk-b options:n_rxq=2 \
        options:rx-steering=rss+lacp || return 1
    pfc_iface_ok dpdk-b || return 1
    pfc_qos dpdk-b pfc-enable=3 mac-control-queue=true || return 1
    line=$(pfc_show dpdk-b | grep "mac-control:")
    pfc_log "Open vSwitch $((v / 100)).$((v % 100)): $line"
    if [ "$v" -ge 303 ]; then
        run_or_fail "pfc/show: mac-control-queue refused beside rx-steering" \
            grep -q "mac-control-queue does not apply while options:rx-steering is set" \
            <<<"$line"
        wait_log "dpdk-b: PFC: mac-control-queue=true, but MAC Control frames are read from the data rx queues (mac-control-queue does not apply while" \
            "WARN for rx-steering"
        # Without rx-steering, the driver's own limit again.
        pfc_vsctl remove Interface dpdk-b options rx-steering || return 1
        pfc_iface_ok dpdk-b || return 1
        sleep 1
        line=$(pfc_show dpdk-b | grep "mac-control:")
        pfc_log "without rx-steering: $line"
        run_or_fail "pfc/show: not refused without rx-steering" \
            bash -c "! grep -q 'rx-steering' <<<'$line'"
    else
        run_or_fail "pfc/show: Open vSwitch $((v / 100)).$((v % 100)) has no \
rx-steering to refuse for" bash -c "! grep -q 'rx-steering' <<<'$line'"
        run_or_fail "pfc/show: the driver's limit (no redirection table)" \
            grep -q "no RSS redirection table" <<<"$line"
    fi
    [ "$FAILS" -eq 0 ]
}

# mac-control-queue=true where the NIC cannot give MAC Control frames an rx
# queue of their own: one rx queue (af_packet), then two rx queues on a
# driver without an RSS redirection table (net_pcap).  PFC applies all the
# same, with a WARN that says why, and pfc/show says where the frames are
# read; pauses are still honoured.
test_mac_control_queue() {
    local line
    pfc_setup "$OVS" || return 1
    pfc_net_add_c || return 1
    pfc_qos dpdk-b pfc-enable=3 mac-control-queue=true || return 1
    line=$(pfc_show dpdk-b | grep "mac-control:")
    pfc_log "one rx queue: $line"
    run_or_fail "pfc/show: one rx queue, none to spare" \
        grep -q "read from the data rx queues (mac-control-queue needs options:n_rxq of 2 or more)" <<<"$line"
    wait_log "dpdk-b: PFC: mac-control-queue=true, but MAC Control frames are read from the data rx queues (mac-control-queue needs" \
        "WARN for one rx queue"
    pfc_vsctl del-port br0 dpdk-b -- add-port br0 dpdk-b \
        -- set Interface dpdk-b type=dpdk \
        "options:dpdk-devargs=net_pcap_b,rx_iface_in=$PFC_IF_B0,rx_iface=$PFC_IF_C0,tx_iface=$PFC_IF_B0" \
        options:n_rxq=2 || return 1
    pfc_iface_ok dpdk-b || return 1
    pfc_qos dpdk-b pfc-enable=3 mac-control-queue=true || return 1
    line=$(pfc_show dpdk-b | grep "mac-control:")
    pfc_log "two rx queues, net_pcap: $line"
    run_or_fail "pfc/show: no RSS redirection table on net_pcap" \
        grep -q "read from the data rx queues (the driver has no RSS redirection table to update)" <<<"$line"
    wait_log "dpdk-b: PFC: mac-control-queue=true, but MAC Control frames are read from the data rx queues (the driver has no RSS" \
        "WARN for net_pcap"
    check "QoS other_config:mac-control-queue as read back (qos/show)" \
        "$(pfc_appctl qos/show dpdk-b | grep -c 'mac-control-queue: true')" \
        -eq 1
    # Pauses are honoured: an XOFF for p3 read on rx queue 1 (C's veth).
    pfc_stats_refresh
    local t0
    t0=$(pfc_stat dpdk-b pfc_pause_transitions_p3)
    "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_C:$PFC_IF_C1" --side B \
        --prio 3 --time 65535 --count 1 || return 1
    sleep 0.5
    pfc_stats_refresh
    check "dpdk-b pfc_pause_transitions_p3 after B's XOFF" \
        "$(pfc_stat dpdk-b pfc_pause_transitions_p3)" -gt "$t0"
    [ "$FAILS" -eq 0 ]
}
