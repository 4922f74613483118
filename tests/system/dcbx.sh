# System tests of DCBX's neighbour: the partner is one LLDP agent, known by
# its Chassis ID and Port ID; and a DCBX port's wire carries only its own
# LLDPDUs.  Sourced by tests/system/run.sh, whose DCBX helpers (send_lldp,
# wait_oper, dcbx_line) they use.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# dcbx_stat KEY: dpdk-b's Interface statistic KEY, refreshed.
dcbx_stat() {
    pfc_stats_refresh
    pfc_stat dpdk-b "$1"
}

# Two LLDP agents on dpdk-b's link.  B's agent (Chassis ID its MAC, Port ID
# eth1) says priority 4, not willing, and the willing port adopts it.  A
# shutdown LLDPDU of another agent (another Port ID) changes nothing.  Once
# a second agent (another chassis) is heard, the port runs its pfc-enable,
# 3, and pfc/show says why; when the second leaves (its shutdown LLDPDU),
# B's vector is back; when B's agent leaves, the second is the partner.
test_dcbx_two_neighbours() {
    local out
    pfc_setup "$OVS" || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M dcbx=ieee \
        lldp-tx-interval=1 || return 1
    send_lldp --src "$PFC_MAC_B" --enable 4 --ttl 120
    wait_oper 4 "partner's"

    send_lldp --src "$PFC_MAC_B" --port-id eth9 --enable 5 --ttl 0
    sleep 0.5
    wait_oper 4 "partner's" 1
    check "dcbx_rx_shutdown_unknown (another agent's shutdown ignored)" \
        "$(dcbx_stat dcbx_rx_shutdown_unknown)" -eq 1

    send_lldp --src "$PFC_MAC_C" --enable 5 --ttl 120
    wait_oper 3 pfc-enable
    out=$(pfc_show dpdk-b)
    run_or_fail "pfc/show dpdk-b: several neighbours, and why" \
        grep -q "dcbx: SEVERAL NEIGHBOURS: another LLDP agent, chassis \
$PFC_MAC_C" <<<"$out"
    wait_log "dpdk-b: DCBX: a second LLDP agent ($PFC_MAC_C) is heard" \
        "the second agent logged"
    check "dcbx_rx_other_agent" "$(dcbx_stat dcbx_rx_other_agent)" -ge 1

    send_lldp --src "$PFC_MAC_C" --enable 5 --ttl 0
    wait_oper 4 "partner's"

    send_lldp --src "$PFC_MAC_C" --enable 5 --ttl 120
    wait_oper 3 pfc-enable
    send_lldp --src "$PFC_MAC_B" --enable 4 --ttl 0
    wait_oper 5 "partner's"
    run_or_fail "pfc/show dpdk-b: the second agent is the partner" \
        grep -q "dcbx partner: chassis $PFC_MAC_C" <<<"$(pfc_show dpdk-b)"
    [ "$FAILS" -eq 0 ]
}

# dcbx_leak_send: A sends, through dpdk-a (no QoS), an LLDPDU with a PFC
# Configuration TLV to each LLDP group address, untagged and in a VLAN 10
# tag: 6 frames, from 02:00:00:00:0c:99.
dcbx_leak_send() {
    local dst
    for dst in 01:80:c2:00:00:0e 01:80:c2:00:00:03 01:80:c2:00:00:00; do
        "$PFC_PY" "$PFC_PEER" lldp --port "$PFC_NS_A:$PFC_IF_A1" \
            --src 02:00:00:00:0c:99 --dst "$dst" --enable 3 \
            || FAILS=$((FAILS + 1))
        "$PFC_PY" "$PFC_PEER" lldp --port "$PFC_NS_A:$PFC_IF_A1" \
            --src 02:00:00:00:0c:99 --dst "$dst" --vlan 10 --enable 3 \
            || FAILS=$((FAILS + 1))
    done
}

# Another port's LLDPDUs never reach a DCBX port's wire: they would speak
# DCBX for the port to its partner (a tenant, to the top-of-rack switch).
# A sends 6 LLDPDUs (dcbx_leak_send) with an explicit output flow to
# dpdk-b, then 6 more with NORMAL and forward-bpdu=true; B captures: none
# of A's LLDPDUs, while dpdk-b's own keep coming, and dpdk-b counts the 12
# in lldp_tx_filtered.
test_dcbx_lldp_not_forwarded() {
    local pcap leaked own
    pfc_setup "$OVS" || return 1
    pcap=$PFC_TMP/lldp.pcap
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M dcbx=ieee \
        lldp-tx-interval=1 || return 1
    pfc_tshark_start "$PFC_NS_B" "$PFC_IF_B1" "$pcap" \
        "ether proto 0x88cc or (vlan and ether proto 0x88cc)" || return 1
    dcbx_leak_send
    pfc_ofctl del-flows br0 || return 1
    pfc_ofctl add-flow br0 actions=NORMAL || return 1
    pfc_vsctl set Bridge br0 other_config:forward-bpdu=true || return 1
    sleep 0.5
    dcbx_leak_send
    sleep 1.5
    pfc_tshark_stop
    leaked=$(tshark -r "$pcap" -Y "eth.src == 02:00:00:00:0c:99" 2>/dev/null \
                 | grep -c .)
    own=$(tshark -r "$pcap" -Y "lldp and eth.src != 02:00:00:00:0c:99" \
              2>/dev/null | grep -c .)
    check "A's LLDPDUs on dpdk-b's wire" "$leaked" -eq 0
    check "dpdk-b's own LLDPDUs on its wire" "$own" -ge 1
    check "dpdk-b lldp_tx_filtered" "$(dcbx_stat lldp_tx_filtered)" -eq 12
    run_or_fail "pfc/show dpdk-b: LLDPDUs of other ports filtered" \
        grep -q "tx LLDPDUs of other ports filtered: 12" \
        <<<"$(pfc_show dpdk-b)"
    [ "$FAILS" -eq 0 ]
}
