# System tests of DCBX (IEEE 802.1Qaz PFC TLV over LLDP): the willing
# rules with scapy and lldpd partners; the partner is one LLDP agent, known
# by its Chassis ID and Port ID; and a DCBX port's wire carries only its own
# LLDPDUs.  Also the DCBX helpers (send_lldp, wait_oper, dcbx_line) that
# classify.sh and ets.sh use.  Sourced by tests/system/run.sh.
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

# DCBX (IEEE 802.1Qaz PFC TLV over LLDP) on dpdk-b.

# held_prio PORT PRIO: packets of priority PRIO that PORT holds.
held_prio() {
    pfc_show "$1" | awk -v p="p$2" '$1 == p { print $5 }'
}

# tc_of PRIO: the traffic class of priority PRIO on dpdk-b, from pfc/show.
tc_of() {
    pfc_show dpdk-b | awk -v p="p$1" '$1 == p { print $2 }'
}

# dcbx_line: the "dcbx pfc-enable" line of dpdk-b in pfc/show.
dcbx_line() {
    pfc_show dpdk-b | grep "dcbx pfc-enable:"
}

# wait_oper PRIOS SOURCE [SECONDS]: waits up to SECONDS (default 5) for
# dpdk-b's operational vector to be PRIOS, from SOURCE ("partner's" or
# "pfc-enable"), and in force (the "pfc-enable:" line of pfc/show: the main
# thread applies a new vector within 100 ms).
wait_oper() {
    local i out
    for i in $(seq $((${3:-5} * 10))); do
        out=$(pfc_show dpdk-b)
        grep -q "dcbx pfc-enable:.*operational $1 ($2)" <<<"$out" \
            && grep -q "^  pfc-enable: $1\$" <<<"$out" && {
            pfc_log "ok: operational vector $1 ($2), in force"; return 0; }
        sleep 0.1
    done
    pfc_log "FAIL: operational vector $1 ($2): $(dcbx_line)"
    FAILS=$((FAILS + 1))
    return 1
}

# send_lldp ARGS...: B sends LLDPDUs (pfc_peer.py lldp) from MAC_B.
send_lldp() {
    "$PFC_PY" "$PFC_PEER" lldp --port "$PFC_NS_B:$PFC_IF_B1" "$@" \
        || FAILS=$((FAILS + 1))
}

# pause_held PRIO: B pauses PRIO for 3.4 s at 10M; A sends 20 frames of it;
# prints how many dpdk-b holds 0.3 s later.  B then sends XON.
pause_held() {
    local n
    "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" --side B \
        --prio "$1" --time 65535 || FAILS=$((FAILS + 1))
    "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" --side A \
        --streams "9:$1" --count 20 --rate 1000 || FAILS=$((FAILS + 1))
    sleep 0.3
    n=$(held_prio dpdk-b "$1")
    "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" --side B \
        --prio "$1" --time 0 || FAILS=$((FAILS + 1))
    echo "$n"
}

# A willing port adopts the vector of a partner that is not willing (scapy
# LLDPDUs, TTL 6 s): real PFC frames then pause priority 4, the adopted
# one, and no longer priority 3.  What the port sends is checked with
# tshark: its PFC TLV advertises willing and its pfc-enable.  When the
# partner goes quiet and its TTL runs out, the port falls back to its
# pfc-enable.
test_dcbx_willing() {
    local pcap held fields
    pfc_setup "$OVS" || return 1
    pcap=$PFC_TMP/lldp.pcap
    pfc_tshark_start "$PFC_NS_B" "$PFC_IF_B1" "$pcap" "ether proto 0x88cc" \
        || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M dcbx=ieee \
        dcbx-willing=true lldp-tx-interval=1 || return 1
    wait_oper 3 pfc-enable
    check "p3 held while B pauses it (pfc-enable=3)" "$(pause_held 3)" -eq 20
    # A Queue row puts priority 4 in traffic class 1: the map must survive
    # the QoS object that DCBX puts in place.
    pfc_vsctl -- --id=@q1 create Queue other_config:priorities=4 \
        -- set QoS "$(pfc_vsctl get Port dpdk-b qos)" queues:1=@q1 \
        >/dev/null || FAILS=$((FAILS + 1))
    sleep 0.5
    check "p4 in class 1 (Queue row)" "$(tc_of 4)" -eq 1
    send_lldp --src "$PFC_MAC_B" --enable 4 --ttl 6
    wait_oper 4 "partner's"
    check "p4 still in class 1 after the adoption" "$(tc_of 4)" -eq 1
    wait_log "dpdk-b: DCBX: operational PFC enable vector 0x08 -> 0x10" \
        "adoption logged"
    held=$(pause_held 4)
    check "p4 held while B pauses it (adopted from the partner)" \
        "$held" -eq 20
    check "p3 held while B pauses it (no longer lossless)" \
        "$(pause_held 3)" -eq 0
    pfc_stats_refresh
    check "dpdk-b pfc_rx_ignored_p3" "$(pfc_stat dpdk-b pfc_rx_ignored_p3)" \
        -ge 1
    check "dpdk-b dcbx_pfc_enable_oper" \
        "$(pfc_stat dpdk-b dcbx_pfc_enable_oper)" -eq 16
    check "dpdk-b dcbx_rx_lldpdus" "$(pfc_stat dpdk-b dcbx_rx_lldpdus)" -eq 1
    # The partner's TTL (6 s) runs out: back to pfc-enable.
    wait_oper 3 pfc-enable 10
    wait_log "dpdk-b: DCBX: the partner's Time To Live ran out" \
        "fallback logged"
    check "p3 held while B pauses it (pfc-enable again)" \
        "$(pause_held 3)" -eq 20
    pfc_stats_refresh
    check "dpdk-b dcbx_ageouts" "$(pfc_stat dpdk-b dcbx_ageouts)" -eq 1
    check "dpdk-b lldp_tx_frames" "$(pfc_stat dpdk-b lldp_tx_frames)" -ge 3
    # DCBX off: a shutdown LLDPDU (TTL 0), then none.
    pfc_vsctl set QoS "$(pfc_vsctl get Port dpdk-b qos)" \
        other_config:dcbx=off || FAILS=$((FAILS + 1))
    sleep 2.5
    pfc_tshark_stop
    # tshark decodes what the port sent: IEEE PFC Configuration TLVs,
    # willing, with its administrative priority 3, also while it used the
    # partner's 4.
    # The willing bit of the PFC TLV is the last one: the ETS Configuration
    # TLV, before it, has one too.
    fields=$(tshark -r "$pcap" -Y "lldp.dcbx.ieee.willing" -T fields \
                 -E separator=' ' -E occurrence=l -e lldp.dcbx.ieee.willing \
                 -e lldp.dcbx.feature.pfc.prio3 \
                 -e lldp.dcbx.feature.pfc.prio4 -e lldp.time_to_live \
                 2>/dev/null | pfc_tshark_bools | sort | uniq -c)
    pfc_log "LLDPDUs that B captured (count willing prio3 prio4 ttl):"
    pfc_log "$fields"
    run_or_fail "tshark: willing PFC TLVs with priority 3, TTL 5 s" \
        grep -Eq '^ *([4-9]|[1-9][0-9]+) 1 1 0 5$' <<<"$fields"
    run_or_fail "tshark: one shutdown LLDPDU (TTL 0) when DCBX went off" \
        grep -Eq '^ *1 1 1 0 0$' <<<"$fields"
    run_or_fail "tshark: no other PFC TLV from the port" \
        bash -c "! grep -Ev ' 1 1 0 [05]$| 0 0 1 6$' <<<'$fields' | grep -q ."
    [ "$FAILS" -eq 0 ]
}

# Neither willing and the vectors differ: a mismatch, logged, counted and
# shown, and the port keeps its own vector.  Both willing: the lower MAC
# address adopts.  The partner's PFC cap.  Malformed LLDPDUs are counted
# and change nothing; a CEE DCBX TLV is counted as unsupported.  Removing
# the QoS stops DCBX.
test_dcbx_negotiation() {
    local lo=00:00:00:00:00:01 hi=fe:ff:ff:ff:ff:ff v
    pfc_setup "$OVS" || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M dcbx=ieee \
        dcbx-willing=false || return 1
    send_lldp --src "$PFC_MAC_B" --enable 4
    wait_log "dpdk-b: DCBX: PFC configuration mismatch" "mismatch logged"
    wait_oper 3 pfc-enable
    run_or_fail "pfc/show: MISMATCH" grep -q "MISMATCH" <<<"$(dcbx_line)"
    pfc_stats_refresh
    check "dpdk-b dcbx_mismatches" "$(pfc_stat dpdk-b dcbx_mismatches)" -eq 1
    # The partner agrees: the mismatch ends.
    send_lldp --src "$PFC_MAC_B" --enable 3
    sleep 0.3
    run_or_fail "pfc/show: no mismatch once the partner agrees" \
        bash -c "! grep -q MISMATCH <<<\"$(dcbx_line)\""
    # The partner's PFC cap: 1 class, while 2 priorities are in force.
    pfc_vsctl set QoS "$(pfc_vsctl get Port dpdk-b qos)" \
        other_config:pfc-enable=3,4 || FAILS=$((FAILS + 1))
    send_lldp --src "$PFC_MAC_B" --enable 3,4 --cap 1
    sleep 0.3
    run_or_fail "pfc/show: MISMATCH when the partner's cap is 1" \
        grep -q "MISMATCH" <<<"$(dcbx_line)"
    # Malformed LLDPDUs: counted, nothing changes.
    for v in no-ttl dup-pfc bad-pfc-len past-end no-end; do
        send_lldp --src "$PFC_MAC_B" --enable 5 --variant "$v"
    done
    sleep 0.3
    pfc_stats_refresh
    check "dpdk-b dcbx_rx_errors (5 malformed LLDPDUs)" \
        "$(pfc_stat dpdk-b dcbx_rx_errors)" -eq 5
    wait_oper 3,4 pfc-enable
    run_or_fail "pfc/show: the partner's vector is still 3,4" \
        grep -q "partner 3,4" <<<"$(dcbx_line)"
    send_lldp --src "$PFC_MAC_B" --enable 3,4 --variant cee
    sleep 0.3
    pfc_stats_refresh
    check "dpdk-b dcbx_rx_unsupported_tlvs (CEE)" \
        "$(pfc_stat dpdk-b dcbx_rx_unsupported_tlvs)" -eq 1
    # Both willing: a partner with a lower MAC keeps its own vector, so
    # this port keeps its own too; one with a higher MAC is adopted.  B's
    # agent leaves first (a shutdown LLDPDU): the port hears one partner at
    # a time.
    send_lldp --src "$PFC_MAC_B" --enable 3,4 --ttl 0
    pfc_vsctl set QoS "$(pfc_vsctl get Port dpdk-b qos)" \
        other_config:dcbx-willing=true || FAILS=$((FAILS + 1))
    send_lldp --src "$lo" --willing --enable 6
    sleep 0.3
    wait_oper 3,4 pfc-enable
    # That partner leaves (a shutdown LLDPDU), and another comes: with two
    # agents heard at once, the port would run its own vector.
    send_lldp --src "$lo" --willing --enable 6 --ttl 0
    send_lldp --src "$hi" --willing --enable 6
    wait_oper 6 "partner's"
    # PFC removed: DCBX stops with it, and a partner's LLDPDU that comes
    # next brings nothing back.
    pfc_vsctl clear Port dpdk-b qos || FAILS=$((FAILS + 1))
    sleep 0.3
    send_lldp --src "$hi" --willing --enable 5
    sleep 0.5
    run_or_fail "no PFC on dpdk-b once its QoS is removed" \
        grep -q "dpdk-b: no QoS pfc" <<<"$(pfc_show dpdk-b)"
    [ "$FAILS" -eq 0 ]
}

# lldpd_start SOCK [COMMAND...]: lldpd on B's veth, controlled through SOCK,
# sending every second with a TTL of 3 s, and each lldpcli COMMAND (such as
# "configure lldp custom-tlv ...") from its first LLDPDU; sets LLDPD_PID.
# lldpd starts paused, and the lldpcli it spawns applies its configuration
# file before it resumes it: a "configure lldp" sent from outside meanwhile
# would carry the paused state back (lldpcli sends the whole configuration)
# and leave lldpd neither sending nor receiving.  So every setting is in
# that file, and lldpd is ready once it lists dpdk-b as its neighbor (DCBX
# is on there).  Fails if lldpd is not installed or does not get ready.
lldpd_start() {
    local sock=$1 conf=$PFC_TMP/lldpd.conf i
    shift
    command -v lldpd >/dev/null 2>&1 || {
        pfc_err "lldpd not found: install the Debian package lldpd"
        return 1
    }
    printf '%s\n' "configure lldp tx-interval 1" "configure lldp tx-hold 3" \
        "$@" >"$conf"
    # That lldpcli runs as lldpd's unprivileged user: it must reach SOCK
    # and read the file (with the directory at 711 it cannot connect).
    chmod 755 "$PFC_TMP"
    chmod o+r "$conf"
    mkdir -p /run/lldpd
    pfc_bg ip netns exec "$PFC_NS_B" lldpd -d -u "$sock" -O "$conf" \
        -I "$PFC_IF_B1"
    LLDPD_PID=$PFC_LAST_PID
    for i in $(seq 100); do
        ip netns exec "$PFC_NS_B" lldpcli -u "$sock" show neighbors \
            2>/dev/null | grep -q "dpdk-b" && break
        sleep 0.1
    done
    if ! ip netns exec "$PFC_NS_B" lldpcli -u "$sock" show neighbors \
            2>/dev/null | grep -q "dpdk-b"; then
        pfc_err "lldpd lists no neighbor dpdk-b after 10 s"
        return 1
    fi
    pfc_log "ok: lldpd runs and sees dpdk-b"
    run_or_fail "lldpd sends every second, TTL 3 s" bash -c \
        "ip netns exec '$PFC_NS_B' lldpcli -u '$sock' show configuration \
         | grep -q 'Transmit delay: 1$'"
}

# lldpd_kill: stops both lldpd processes (monitor and agent) in B, frozen
# first: on a gentler stop the agent would send a shutdown LLDPDU (TTL 0).
lldpd_kill() {
    local sig i
    for sig in STOP KILL; do
        for i in $(ip netns pids "$PFC_NS_B"); do
            [ "$(cat "/proc/$i/comm" 2>/dev/null)" = lldpd ] \
                && kill -"$sig" "$i"
        done
    done
    wait "$LLDPD_PID" 2>/dev/null
}

# lldpd, in namespace B, is a real LLDP partner: it sends a PFC
# Configuration TLV (not willing, priority 4) as a custom TLV.  The willing
# port adopts priority 4, and lldpd shows this switch's LLDPDU with its PFC
# TLV.  lldpd is then killed without a shutdown LLDPDU: when its TTL (3 s)
# runs out, the port falls back to its pfc-enable.
test_dcbx_lldpd() {
    local sock out
    command -v lldpd >/dev/null 2>&1 || {
        pfc_err "lldpd not found: install the Debian package lldpd"
        return 1
    }
    pfc_setup "$OVS" || return 1
    sock=$PFC_TMP/lldpd.sock
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M dcbx=ieee \
        lldp-tx-interval=1 || return 1
    lldpd_start "$sock" \
        "configure lldp custom-tlv oui 00,80,c2 subtype 11 oui-info 08,10" \
        || return 1
    wait_oper 4 "partner's"
    run_or_fail "pfc/show: the partner's chassis is lldpd's" \
        grep -q "dcbx partner: chassis" <<<"$(pfc_show dpdk-b)"
    check "p4 held while B pauses it (adopted from lldpd)" \
        "$(pause_held 4)" -eq 20
    sleep 1
    out=$(ip netns exec "$PFC_NS_B" lldpcli -u "$sock" show neighbors \
              details 2>&1)
    pfc_log "$out"
    run_or_fail "lldpd sees this switch's port dpdk-b" \
        grep -q "dpdk-b" <<<"$out"
    run_or_fail "lldpd sees its PFC TLV (OUI 00,80,C2 subtype 11)" \
        grep -Eiq "OUI: *00,80,C2, *SubType: *11" <<<"$out"
    lldpd_kill
    wait_log "dpdk-b: DCBX: the partner's Time To Live ran out" \
        "fallback after lldpd's TTL logged"
    wait_oper 3 pfc-enable 10
    [ "$FAILS" -eq 0 ]
}
