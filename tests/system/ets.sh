# System tests of ETS: shares, lossless classes, and lldpd as a DCBX ETS
# partner, sourced by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# ETS over DCBX against lldpd: dpdk-b (dcbx=ieee, willing) runs its Queue
# rows' ETS, 25/75, and sends it in an ETS Configuration TLV and as an ETS
# Recommendation TLV; lldpd on B recommends 60/40 (a custom TLV, OUI
# 00-80-C2 subtype 10).  dpdk-b adopts it, lldpd and tshark decode both of
# dpdk-b's ETS TLVs.  With DCBX off the Queue rows' ETS is back at once;
# with DCBX on again lldpd's, and when lldpd's TTL runs out the Queue rows'
# again.
test_ets_dcbx_lldpd() {
    local sock pcap out i
    command -v lldpd >/dev/null 2>&1 || {
        pfc_err "lldpd not found: install the Debian package lldpd"
        return 1
    }
    pfc_setup "$OVS" || return 1
    sock=$PFC_TMP/lldpd.sock
    pcap=$PFC_TMP/lldp.pcap
    pfc_tshark_start "$PFC_NS_B" "$PFC_IF_B1" "$pcap" "ether proto 0x88cc" \
        || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M dcbx=ieee \
        lldp-tx-interval=1 || return 1
    pfc_vsctl -- --id=@q0 create Queue other_config:priorities=0 \
        other_config:tc-bw=25 \
        -- --id=@q1 create Queue other_config:priorities=1 \
        other_config:tc-bw=75 \
        -- set QoS "$(pfc_vsctl get Port dpdk-b qos)" queues:0=@q0 \
        queues:1=@q1 >/dev/null || return 1
    for i in $(seq 50); do
        pfc_show dpdk-b | grep -q '^  1  ets      75%' && break
        sleep 0.1
    done
    run_or_fail "the Queue rows' ETS in force (75%)" \
        grep -q '^  1  ets      75%' <<<"$(pfc_show dpdk-b)"
    # ETS Recommendation: reserved octet, priority i in class i, 60% and 40%
    # for classes 0 and 1 (ETS), the others strict.
    lldpd_start "$sock" "configure lldp custom-tlv oui 00,80,c2 subtype 10 \
oui-info 00,01,23,45,67,3c,28,00,00,00,00,00,00,02,02,00,00,00,00,00,00" \
        || return 1
    for i in $(seq 100); do
        out=$(pfc_show dpdk-b)
        grep -q "dcbx ets operational: the partner's recommendation" \
            <<<"$out" && grep -q '^  0  ets      60%' <<<"$out" && break
        sleep 0.1
    done
    pfc_log "$(grep -E '^  (dcbx|[01]  ets)' <<<"$out")"
    run_or_fail "dpdk-b adopted lldpd's recommendation" \
        grep -q "dcbx ets operational: the partner's recommendation" \
        <<<"$out"
    run_or_fail "class 0 at 60%, class 1 at 40% in force" \
        grep -Eq '^  1  ets      40%' <<<"$out"
    run_or_fail "it still recommends its Queue rows' 25/75" \
        grep -q "dcbx ets recommended: priority->tc 0,1,2,3,4,5,6,7, tc-bw % 25,75," \
        <<<"$out"
    wait_log "dpdk-b: DCBX: operational ETS: the partner's recommendation" \
        "adoption logged"
    sleep 1.5
    out=$(ip netns exec "$PFC_NS_B" lldpcli -u "$sock" show neighbors \
              details 2>&1)
    pfc_log "$out"
    run_or_fail "lldpd sees dpdk-b's ETS Configuration TLV (subtype 9)" \
        grep -Eiq "OUI: *00,80,C2, *SubType: *9," <<<"$out"
    run_or_fail "lldpd sees dpdk-b's ETS Recommendation TLV (subtype 10)" \
        grep -Eiq "OUI: *00,80,C2, *SubType: *10," <<<"$out"
    pfc_tshark_stop
    tshark -r "$pcap" -V -Y "eth.src == $(pfc_vsctl get Interface dpdk-b mac_in_use | tr -d '"')" \
        2>/dev/null >"$pcap.txt"
    grep -E -m 12 "ETS|TSA for Traffic Class [01]|Willing|Bandwidth" \
        "$pcap.txt"
    run_or_fail "tshark decodes an ETS Configuration TLV from dpdk-b" \
        grep -q "ETS Configuration" "$pcap.txt"
    run_or_fail "tshark decodes an ETS Recommendation TLV from dpdk-b" \
        grep -q "ETS Recommendation" "$pcap.txt"
    run_or_fail "tshark: class 0's TSA is ETS" \
        grep -q "TSA for Traffic Class 0: Enhanced Transmission Selection" \
        "$pcap.txt"
    # DCBX off: the Queue rows' ETS at once; on again: lldpd's once more.
    local qos
    qos=$(pfc_vsctl get Port dpdk-b qos)
    pfc_vsctl set QoS "$qos" other_config:dcbx=off || FAILS=$((FAILS + 1))
    for i in $(seq 50); do
        pfc_show dpdk-b | grep -q '^  1  ets      75%' && break
        sleep 0.1
    done
    run_or_fail "DCBX off: class 1 at 75% (the Queue rows') at once" \
        grep -q '^  1  ets      75%' <<<"$(pfc_show dpdk-b)"
    pfc_vsctl set QoS "$qos" other_config:dcbx=ieee || FAILS=$((FAILS + 1))
    for i in $(seq 100); do
        pfc_show dpdk-b | grep -q '^  1  ets      40%' && break
        sleep 0.1
    done
    run_or_fail "DCBX on again: lldpd's 40% adopted again" \
        grep -q '^  1  ets      40%' <<<"$(pfc_show dpdk-b)"
    lldpd_kill
    local back="dpdk-b: DCBX: operational ETS: the Queue rows'" n0
    n0=$(grep -c "$back" "$PFC_TMP/ovs-vswitchd.log")
    for i in $(seq 100); do
        [ "$(grep -c "$back" "$PFC_TMP/ovs-vswitchd.log")" -gt "$n0" ] \
            && break
        sleep 0.1
    done
    check "back to the Queue rows' ETS after lldpd's TTL (log lines)" \
        "$(grep -c "$back" "$PFC_TMP/ovs-vswitchd.log")" -gt "$n0"
    for i in $(seq 50); do
        pfc_show dpdk-b | grep -q '^  1  ets      75%' && break
        sleep 0.1
    done
    run_or_fail "class 1 at 75% again" \
        grep -q '^  1  ets      75%' <<<"$(pfc_show dpdk-b)"
    [ "$FAILS" -eq 0 ]
}

# ETS (lib/pfc-ets.h) on real frames, with the switch as the bottleneck:
# dpdk-b's QoS has max-rate, its port shaper, as in the sch_ets selftests of
# Linux a shaper sits in front of the scheduler.  Sources are net_pcap
# ports that replay a file of 1000-byte frames of one priority for ever
# (infinite_rx), faster than the shaper lets through: each class they feed
# has a backlog.  B measures what arrives with tshark, per VLAN priority.

# ets_pcap PRIO: $PFC_TMP/pPRIO.pcap, 64 frames of 1000 bytes to B, of
# priority PRIO.
ets_pcap() {
    "$PFC_PY" - "$PFC_TMP/p$1.pcap" "$1" "$PFC_MAC_B" <<'PYEOF'
import sys
from scapy.all import Ether, Dot1Q, IP, UDP, Raw, wrpcap
path, prio, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
f = (Ether(src="02:00:00:00:0e:%02x" % prio, dst=dst)
     / Dot1Q(vlan=0, prio=prio) / IP(src="10.0.1.%d" % (prio + 1),
                                     dst="10.0.1.99")
     / UDP(sport=2000 + prio, dport=9))
f = f / Raw(b"e" * (1000 - len(f)))
wrpcap(path, [f] * 64)
PYEOF
}

# ets_source N PRIO: port srcN on net_pcapN replaying pPRIO.pcap for ever,
# forwarded to dpdk-b.
ets_source() {
    local n=$1 prio=$2
    [ -f "$PFC_TMP/p$prio.pcap" ] || ets_pcap "$prio" || return 1
    pfc_vsctl add-port br0 "src$n" -- set Interface "src$n" type=dpdk \
        "options:dpdk-devargs=net_pcap$n,rx_pcap=$PFC_TMP/p$prio.pcap,infinite_rx=1,tx_pcap=$PFC_TMP/src$n-out.pcap" \
        ofport_request=$((10 + n)) || return 1
    pfc_iface_ok "src$n" || return 1
    pfc_ofctl add-flow br0 "in_port=$((10 + n)),actions=output:dpdk-b"
}

# ets_measure NAME SECONDS: captures at B for SECONDS into NAME.pcap and
# prints one line per VLAN priority seen, "PRIO BYTES", then "total BYTES
# BITS_PER_SECOND" (frame bytes, as the shaper counts them).
ets_measure() {
    local pcap=$PFC_TMP/$1.pcap
    ip netns exec "$PFC_NS_B" tshark -q -i "$PFC_IF_B1" -f vlan \
        -a "duration:$2" -w "$pcap" 2>"$pcap.log" || return 1
    tshark -r "$pcap" -T fields -e vlan.priority -e frame.len \
        -e frame.time_relative 2>/dev/null | awk -v d="$2" '
        { b[$1] += $2; t += $2; if ($3 > last) last = $3 }
        END { for (p in b) print p, b[p];
              printf "total %d %.0f\n", t, (last > 0 ? t * 8 / last : 0) }' \
        | sort
}

# ets_share FILE PRIO: the share of PRIO in the bytes of an ets_measure
# output, 0..1.
ets_share() {
    awk -v p="$2" '$1 == "total" { t = $2 } $1 == p { b = $2 }
                   END { printf "%.4f\n", t ? b / t : 0 }' "$1"
}

# ets_within VALUE WANT TOL: true if VALUE is within TOL (relative) of WANT.
ets_within() {
    awk -v v="$1" -v w="$2" -v t="$3" \
        'BEGIN { d = v / w - 1; exit !(d <= t && d >= -t) }'
}

# ETS shares at a 20 Mb/s bottleneck: class 0 (p0) ets 25%, class 1 (p1)
# ets 75%, class 5 (p5) strict.  p0 and p1 share in proportion to tc-bw,
# within 15% as the sch_ets selftests allow; a pause of p1 gives its share to
# p0 (work-conserving); p5, strict, takes more than 95% and leaves the ETS
# classes less than 5%.
test_ets_shares() {
    local m s0 s1 s5 rate
    pfc_setup "$OVS" || return 1
    pfc_qos dpdk-b pfc-enable=1 link-speed=1G max-rate=20M || return 1
    pfc_vsctl -- --id=@q0 create Queue other_config:priorities=0 \
        other_config:tsa=ets other_config:tc-bw=25 \
        -- --id=@q1 create Queue other_config:priorities=1 \
        other_config:tsa=ets other_config:tc-bw=75 \
        -- --id=@q5 create Queue other_config:priorities=5 \
        other_config:tsa=strict \
        -- set QoS "$(pfc_vsctl get Port dpdk-b qos)" queues:0=@q0 \
        queues:1=@q1 queues:5=@q5 >/dev/null || return 1
    sleep 0.5
    pfc_show dpdk-b | grep -A9 '^  ets:'
    ets_source 0 0 || return 1
    ets_source 1 1 || return 1
    sleep 1

    m=$PFC_TMP/ets1.txt
    ets_measure ets1 3 >"$m" || return 1
    pfc_log "p0 and p1 backlogged:"; cat "$m"
    s0=$(ets_share "$m" 0); s1=$(ets_share "$m" 1)
    rate=$(awk '$1 == "total" { print $3 }' "$m")
    run_or_fail "p0's share $s0 within 15% of 0.25" ets_within "$s0" 0.25 0.15
    run_or_fail "p1's share $s1 within 15% of 0.75" ets_within "$s1" 0.75 0.15
    run_or_fail "rate $rate bit/s within 10% of max-rate 20M" \
        ets_within "$rate" 20000000 0.10

    # B pauses p1 (lossless at dpdk-b) for 5 s, refreshed every 10 ms: its
    # share goes to p0, and the link stays busy.
    pfc_bg "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" \
        --side B --prio 1 --time 65535 --interval 0.01 --duration 5 \
        --xon-on-exit
    local pause_pid=$PFC_LAST_PID
    sleep 1
    m=$PFC_TMP/ets2.txt
    ets_measure ets2 3 >"$m" || return 1
    pfc_log "p1 paused:"; cat "$m"
    s0=$(ets_share "$m" 0); s1=$(ets_share "$m" 1)
    rate=$(awk '$1 == "total" { print $3 }' "$m")
    check "p0's share while p1 is paused (x1000)" \
        "$(awk -v s="$s0" 'BEGIN { printf "%d", s * 1000 }')" -gt 950
    run_or_fail "rate $rate bit/s while p1 is paused, within 10% of 20M" \
        ets_within "$rate" 20000000 0.10
    wait "$pause_pid" 2>/dev/null
    sleep 1

    # A strict class with a backlog: p5 takes the link.
    ets_source 2 5 || return 1
    sleep 1
    m=$PFC_TMP/ets3.txt
    ets_measure ets3 3 >"$m" || return 1
    pfc_log "p5 (strict) backlogged too:"; cat "$m"
    s5=$(ets_share "$m" 5)
    s0=$(ets_share "$m" 0); s1=$(ets_share "$m" 1)
    check "p5's share, strict (x1000)" \
        "$(awk -v s="$s5" 'BEGIN { printf "%d", s * 1000 }')" -gt 950
    check "p0 and p1's share under strict p5 (x1000)" \
        "$(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%d", (a + b) * 1000 }')" \
        -lt 50
    pfc_show dpdk-b | grep -A11 '^  ets:'
    pfc_stats_refresh
    check "dpdk-b pfc_ets_tx_packets_tc5" \
        "$(pfc_stat dpdk-b pfc_ets_tx_packets_tc5)" -gt 0
    check "dpdk-b pfc_ets_tx_packets_tc0" \
        "$(pfc_stat dpdk-b pfc_ets_tx_packets_tc0)" -gt 0
    [ "$FAILS" -eq 0 ]
}

# A lossless class under ETS at a bottleneck: p3 (lossless, ets 50%) from A,
# which honours the switch's PFC frames, shares a 10 Mb/s max-rate with a
# lossy p0 source (ets 50%) that never lets up, while B pauses p3 four
# times.  Every p3 frame arrives once and in order (the lossless scenario),
# no p3 packet is dropped at dpdk-b, and the lossy class loses what the
# shaper cannot carry.
test_ets_lossless() {
    pfc_setup "$OVS" || return 1
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G xoff-threshold=16000 \
        xon-threshold=8000 || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=1G max-rate=10M || return 1
    pfc_vsctl -- --id=@q0 create Queue other_config:priorities=0 \
        other_config:tc-bw=50 \
        -- --id=@q3 create Queue other_config:priorities=3 \
        other_config:tc-bw=50 \
        -- set QoS "$(pfc_vsctl get Port dpdk-b qos)" queues:0=@q0 \
        queues:3=@q3 >/dev/null || return 1
    ets_source 0 0 || return 1
    sleep 1
    run_or_fail "scenario (p3 lossless under ETS at 10 Mb/s)" \
        pfc_scenario lossless --speed-a 1G --speed-b 1G --rate 2000 \
        --cycles 4 --pause-ms 300 --resume-ms 300
    pfc_show dpdk-b | grep -A11 '^  ets:'
    pfc_stats_refresh
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    check "dpdk-b pfc_hold_drops_p0 (lossy, beyond the shaper)" \
        "$(pfc_stat dpdk-b pfc_hold_drops_p0)" -gt 0
    check "dpdk-b pfc_ets_tx_packets_tc3" \
        "$(pfc_stat dpdk-b pfc_ets_tx_packets_tc3)" -gt 0
    [ "$FAILS" -eq 0 ]
}
