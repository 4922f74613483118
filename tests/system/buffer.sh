# System tests of the shared buffer: congestion, incast, and a flood at
# the end of a pause, sourced by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# Egress congestion.  net_ring uses ring i as both its rx queue i and its tx
# queue i, and the PMD thread sends on tx queue 1 (0 is the main thread's).
# With one rx queue, nothing drains ring 1: two net_pcap sources send it
# priority 3 until it is full.  Upstream OVS would drop what the full ring
# refuses; the PFC port holds it, in order, charged to the sources' priority
# groups in the shared buffer, and the sources send XOFF.  net_pcap sources
# do not honour PFC: what they send past XOFF and their headroom is dropped,
# and counted both as headroom drops of the sources and as hold drops of
# ring0, never anywhere else.  Then a second rx queue drains the ring: the
# held packets follow, the sources send XON, and none of them is lost.
test_congestion() {
    local n=10000 srcs="0 1" src rx full held took i
    pfc_setup "$OVS" || return 1
    "$PFC_PY" - "$PFC_TMP" "$n" <<'PYEOF' || return 1
import sys
from scapy.all import Ether, Dot1Q, IP, UDP, Raw, wrpcap
d, n = sys.argv[1], int(sys.argv[2])
for s in range(2):
    wrpcap("%s/src%d.pcap" % (d, s),
           [Ether(src="02:00:00:00:0a:%02x" % s, dst="02:00:00:00:0b:01")
            / Dot1Q(vlan=0, prio=3) / IP(src="10.0.0.%d" % (s + 1),
                                         dst="10.0.0.9")
            / UDP(sport=1000 + s, dport=i % 65536) / Raw(b"x" * 18)
            for i in range(n)])
PYEOF
    # No forwarding but the flows below: sources to ring0, ring0 to drop.
    pfc_ofctl del-flows br0 || return 1
    pfc_ofctl add-flow br0 in_port=10,actions=output:20 || return 1
    pfc_ofctl add-flow br0 in_port=11,actions=output:20 || return 1
    pfc_ofctl add-flow br0 in_port=20,actions=drop || return 1
    pfc_vsctl add-port br0 ring0 -- set Interface ring0 type=dpdk \
        options:dpdk-devargs=net_ring0 ofport_request=20 || return 1
    pfc_qos ring0 pfc-enable=3 link-speed=10G queue-size=65536 || return 1
    # tx-ring-size=interface: no restart, which would reopen the pcap files.
    for src in $srcs; do
        pfc_vsctl add-port br0 src$src -- set Interface src$src type=dpdk \
            "options:dpdk-devargs=net_pcap$src,rx_pcap=$PFC_TMP/src$src.pcap,tx_pcap=$PFC_TMP/src$src-out.pcap" \
            ofport_request=$((10 + src)) \
            -- set Port src$src qos=@q -- --id=@q create QoS type=pfc \
            other_config:pfc-enable=3 other_config:link-speed=10G \
            other_config:tx-ring-size=interface >/dev/null || return 1
    done

    # The ring fills; the rest is held, none dropped.
    held_ring0() { pfc_show ring0 | awk '$1 == "p3" { print $5 }'; }
    for i in $(seq 100); do
        held=$(held_ring0)
        sleep 0.2
        [ -n "$held" ] && [ "$held" -gt 0 ] && [ "$held" = "$(held_ring0)" ] \
            && break
    done
    pfc_show ring0
    full=$(pfc_show ring0 | sed -n 's/.*tx-full held: \([0-9]*\).*/\1/p')
    check "ring0 tx-full held" "$full" -gt 0
    check "ring0 packets held while the ring is full" "$held" -gt 0
    pfc_appctl pfc/buffer
    pfc_stats_refresh
    # Every drop is a source's headroom drop: a sender that ignores XOFF.
    local hdrm=$(( $(pfc_stat src0 pfc_headroom_drops_p3)
                   + $(pfc_stat src1 pfc_headroom_drops_p3) ))
    local drops
    drops=$(pfc_stat ring0 pfc_hold_drops_p3)
    check "ring0 pfc_hold_drops_p3 (= the sources' headroom drops)" \
        "$drops" -eq "$hdrm"
    check "ring0 ovs_tx_failure_drops" \
        "$(pfc_stat ring0 ovs_tx_failure_drops)" -eq 0

    # What ring0's egress took: the ring's contents plus what it holds.  (A
    # source starts reading its file as soon as it is added, before ofproto
    # knows the port, so its first packets may miss the flow table: the
    # count is taken at ring0, not at the sources.  How many miss depends
    # on how fast the machine adds the ports: 4,083 of 20,000 once.)
    took=$(( $(pfc_stat ring0 tx_packets) + held ))
    check "ring0 egress took most of the $((2 * n)) packets" "$took" -gt \
        $((2 * n / 2))
    # Drain ring 1: everything arrives back on ring0's rx.
    pfc_vsctl set Interface ring0 options:n_rxq=2 || return 1
    for i in $(seq 100); do
        pfc_stats_refresh
        rx=$(pfc_stat ring0 rx_packets)
        [ "$rx" = "$took" ] && break
        sleep 0.2
    done
    check "ring0 rx_packets (all $took it took, none lost)" "$rx" -eq "$took"
    check "ring0 pfc_hold_drops_p3 (none since)" \
        "$(pfc_stat ring0 pfc_hold_drops_p3)" -eq "$drops"
    check "ring0 ovs_tx_failure_drops" \
        "$(pfc_stat ring0 ovs_tx_failure_drops)" -eq 0
    check "ring0 held p3 at the end" "$(held_ring0)" -eq 0

    # The sources sent XOFF for priority 3 when their priority group crossed
    # its dynamic threshold, then XON (time 0) as the ring drained.
    for src in $srcs; do
        check "src$src pfc_tx_frames_p3" \
            "$(pfc_stat src$src pfc_tx_frames_p3)" -ge 2
    done
    # net_pcap writes its tx file as it goes; stop the daemons to flush it.
    pfc_ovs_stop
    for src in $srcs; do
        pfc_tshark_pfc "$PFC_TMP/src$src-out.pcap" \
            > "$PFC_TMP/src$src-pfc.txt"
        head -3 "$PFC_TMP/src$src-pfc.txt"; tail -2 "$PFC_TMP/src$src-pfc.txt"
        check "src$src: PFC frames on the wire" \
            "$(grep -c . "$PFC_TMP/src$src-pfc.txt")" -ge 2
        # Fields: time src dst opcode enbv c0..c7 time0..time7.
        check "src$src: first is XOFF of p3 (time[3])" \
            "$(awk 'NR == 1 { print $17 }' "$PFC_TMP/src$src-pfc.txt")" \
            -eq 65535
        check "src$src: last is XON of p3 (time[3])" \
            "$(awk 'END { print $17 }' "$PFC_TMP/src$src-pfc.txt")" -eq 0
        check "src$src: only p3 enabled in every frame" \
            "$(awk '$5 != "0x0008"' "$PFC_TMP/src$src-pfc.txt" | grep -c .)" \
            -eq 0
    done
    [ "$FAILS" -eq 0 ]
}

# Incast: four senders into one paused egress.  Hosts A, C, D and E, on
# ports dpdk-a, dpdk-c, dpdk-d and dpdk-e (pfc-enable 3, link-speed 1G),
# each send B a numbered lossless p3 stream and a lossy p0 stream, and
# honour their port's PFC frames as a NIC would (pfc_peer.py's incast
# scenario, a process per sender).  B pauses p3 at dpdk-b for 150 ms every
# 350 ms, 16 times (5.6 s): XOFF of 65535 quanta, which at 1G last 33.6 ms,
# so B refreshes it every 11 ms, and XON at the end of each pause.
# dpdk-b's queue-size=200 is the static bound on its p3 queue; beyond it a
# lossless packet is charged to its ingress priority group's headroom and
# that ingress sends XOFF.
#
# Rate: 500 frames/s per stream, 4,000 a second in all.  A pause then
# brings 4 x 500/s x 150 ms = 300 p3 frames, half as many again as the
# bound, so packets from every sender overflow into headroom in every pause
# (333/s per stream would just reach it).  All the scapy processes share the
# one core off the PMD (pfc_pin): 8 sending threads in 4 processes and B's
# receiver, a few tens of microseconds of Python per frame, took about 15%
# of it in a trial on a Linux bridge, and B's socket buffer (32 MB) absorbs
# the burst of each XON.
#
# The scenario checks, per sender at B: p3 none lost, none reordered, none
# twice; p0 none lost; and at each sender: at least one XOFF for p3 from
# its port, none of B's PFC frames.  Here the counters: dpdk-b dropped no
# held p3 packet, and each sender's port sent PFC frames for p3.
test_incast() {
    local x port facts rc
    local hosts=(C D E) ports=(dpdk-a dpdk-c dpdk-d dpdk-e) args=()
    pfc_setup "$OVS" || return 1
    facts=$PFC_TMP/incast.json
    for x in "${hosts[@]}"; do
        pfc_net_add_host "$x" \
            || { pfc_err "cannot create namespace $x and its veth"
                 return 1; }
        pfc_port_host "$x" || return 1
        args+=(--sender "$x=$(pfc_host_port "$x")@$(pfc_host_var "$x" MAC)")
    done
    pfc_ofctl del-flows br0 || return 1
    for x in "${ports[@]}"; do
        pfc_ofctl add-flow br0 "in_port=$x,actions=output:dpdk-b" \
            || return 1
    done
    pfc_qos dpdk-b pfc-enable=3 link-speed=1G queue-size=200 \
        watchdog-detection-time=0 || return 1
    for x in "${ports[@]}"; do
        pfc_qos "$x" pfc-enable=3 link-speed=1G || return 1
    done

    # In the background and waited for, so that a timeout's TERM reaches
    # pfc_cleanup at once, which stops the scenario (its senders die with
    # it).
    pfc_bg "$PFC_PY" "$PFC_PEER" scenario incast \
        --a "$(pfc_host_port A)" --b "$(pfc_host_port B)" "${args[@]}" \
        --speed-a 1G --speed-b 1G --rate 500 --cycles 16 --pause-ms 150 \
        --resume-ms 200 --facts "$facts"
    wait "$PFC_LAST_PID"
    rc=$?
    if [ $rc -eq 0 ]; then
        pfc_log "ok: incast scenario"
    else
        pfc_log "FAIL: incast scenario (status $rc)"
        FAILS=$((FAILS + 1))
    fi
    incast_fact() {
        "$PFC_PY" -c 'import json, sys
print(json.load(open(sys.argv[1])).get(sys.argv[2], "absent"))' \
            "$facts" "$1" 2>/dev/null || echo absent
    }

    pfc_show
    pfc_stats_refresh
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    pfc_log "dpdk-b: $(pfc_stat dpdk-b pfc_rx_frames_p3) PFC frames for p3" \
        "received (B sent $(incast_fact b_pfc)), pause transitions" \
        "$(pfc_stat dpdk-b pfc_pause_transitions_p3), tx_packets" \
        "$(pfc_stat dpdk-b tx_packets), tx_dropped" \
        "$(pfc_stat dpdk-b tx_dropped), pfc_hold_drops_p0" \
        "$(pfc_stat dpdk-b pfc_hold_drops_p0)"
    for x in A "${hosts[@]}"; do
        port=dpdk-${x,,}
        check "$port pfc_tx_frames_p3 (sender $x paused)" \
            "$(pfc_stat "$port" pfc_tx_frames_p3)" -ge 1
        pfc_log "sender $x: $port sent $(pfc_stat "$port" pfc_tx_frames_p3)" \
            "PFC frames for p3, rx_packets $(pfc_stat "$port" rx_packets)," \
            "rx_dropped $(pfc_stat "$port" rx_dropped); host $x received" \
            "$(incast_fact "xoff_rx_at_$x") XOFF and" \
            "$(incast_fact "xon_rx_at_$x") XON for p3, sent" \
            "$(incast_fact "p3_sent_$x") p3 and $(incast_fact "p0_sent_$x")" \
            "p0 frames"
    done
    [ "$FAILS" -eq 0 ]
}

# The pause-end rule under a flood: trafgen (package netsniff-ng), in B's
# namespace, floods dpdk-b's rx ring with UDP frames of random addresses and
# ports, megaflows off, so that every one is an upcall.  Meanwhile A sends
# p3 and p0 through dpdk-b, and B pauses p3 8 times for 150 ms, each pause
# ended by XON (the incast scenario with A alone; dpdk-b pauses A in turn).
# Every pause ends within the bound after its XON as dpdk-b read it (no late
# pause end), p3 loses nothing, and B sees the held p3 frames within 100 ms
# of its XON, except after an XON that the flood made dpdk-b lose: a PFC
# frame shares the rx ring with the flood, and such a pause ends at its
# expiry instead, late, which is safe.  trafgen runs on one CPU at the
# lowest priority, so that B's pauser and receiver keep their timing; the
# PMD thread then reads the flood (about 450,000 frames/s on a 2-vCPU VM)
# and its ring empties at times.  A ring that never empties is the unit
# test rxq-drain's.
test_flood_pause_end() {
    local facts conf rc ring bound rel late flood0 flood1 pfc0 pfc1 sent
    local lost slow
    command -v trafgen >/dev/null 2>&1 || {
        pfc_err "trafgen not found: install the Debian package netsniff-ng"
        return 1
    }
    pfc_setup "$OVS" || return 1
    facts=$PFC_TMP/flood.json
    conf=$PFC_TMP/flood.cfg
    pfc_ofctl del-flows br0 || return 1
    pfc_ofctl add-flow br0 "in_port=dpdk-a,actions=output:dpdk-b" || return 1
    pfc_ofctl add-flow br0 "priority=10,in_port=dpdk-b,udp,actions=drop" \
        || return 1
    pfc_appctl upcall/disable-megaflows || return 1
    # B's pauses last 150 ms: the watchdog is off on purpose.
    pfc_qos dpdk-b pfc-enable=3 link-speed=100M queue-size=50 \
        watchdog-detection-time=0 \
        || return 1
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G || return 1
    cat >"$conf" <<EOF2 || return 1
{
  eth(da=02:00:00:00:00:99, sa=$PFC_MAC_B),
  ipv4(saddr=drnd(), daddr=10.0.0.9, ttl=64),
  udp(sp=drnd(), dp=drnd()),
  fill(0x00, 18)
}
EOF2
    pfc_stats_refresh
    flood0=$(pfc_stat dpdk-b rx_packets)
    pfc0=$(pfc_stat dpdk-b pfc_rx_frames_p3)
    pfc_bg ip netns exec "$PFC_NS_B" nice -n 19 trafgen --dev "$PFC_IF_B1" \
        --conf "$conf" --cpus 1 --no-cpu-stats
    sleep 1
    pfc_bg "$PFC_PY" "$PFC_PEER" scenario incast \
        --a "$(pfc_host_port A)" --b "$(pfc_host_port B)" \
        --speed-a 1G --speed-b 100M --rate 500 --cycles 8 --pause-ms 150 \
        --resume-ms 200 --facts "$facts"
    wait "$PFC_LAST_PID"
    rc=$?
    pfc_stats_refresh
    flood1=$(pfc_stat dpdk-b rx_packets)
    pfc1=$(pfc_stat dpdk-b pfc_rx_frames_p3)
    sent=$("$PFC_PY" -c 'import json, sys
print(json.load(open(sys.argv[1])).get("b_pfc", 0))' "$facts" 2>/dev/null)
    check "incast scenario with A alone, under the flood (status)" "$rc" \
        -eq 0
    rel=$("$PFC_PY" -c 'import json, sys
r = json.load(open(sys.argv[1])).get("release_ms", [])
print(" ".join("%s" % x for x in r))' "$facts" 2>/dev/null)
    worst=$(tr ' ' '\n' <<<"$rel" | grep -v None | sort -n | tail -1)
    late=$(pfc_show dpdk-b | sed -n 's/^ *late pause ends: \([0-9]*\) .*/\1/p')
    bound=$(pfc_show dpdk-b \
            | sed -n 's/^ *late pause ends: .*(more than \([0-9]*\) us.*/\1/p')
    ring=$(pfc_show dpdk-b | grep -m1 -i "rx ring\|ring of" || true)
    # A PFC frame that meets a full rx ring is lost with the flood (the
    # ring is shared: pfc/show says so); a pause whose XON was lost ends at
    # its expiry, 336 ms after its XOFF at 100 Mb/s: late, which is safe.
    lost=$((sent - (pfc1 - pfc0)))
    slow=$(tr ' ' '\n' <<<"$rel" | awk '$1 != "None" && $1 >= 100' | wc -l)
    pfc_log "flood: dpdk-b read $((flood1 - flood0)) frames; B sent" \
        "$sent PFC frames for p3, dpdk-b read $((pfc1 - pfc0));" \
        "XON to first p3 frame at B, per pause, ms: $rel;" \
        "late pause ends $late (bound $bound us); $ring"
    check "dpdk-b rx frames during the flood (the ring was flooded)" \
        "$((flood1 - flood0))" -gt 10000
    check "pauses that B ended and measured" "$(wc -w <<<"$rel")" -eq 8
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    check "pauses released 100 ms or more after B's XON (at most the PFC \
frames lost in the flood)" "$slow" -le "$lost"
    check "dpdk-b pfc_pause_late_ends_p3" \
        "$(pfc_stat dpdk-b pfc_pause_late_ends_p3)" -eq 0
    [ "$FAILS" -eq 0 ]
}

# The lossy limit of an egress class, for packets that a port without QoS
# pfc received: such a packet is lossy at every egress, whatever the
# egress's pfc-enable says.  dpdk-a has no QoS; B keeps priority 3 of dpdk-b
# paused (the watchdog off, on purpose: the pause lasts seconds); trafgen
# (package netsniff-ng) in A sends 20,000 priority-3 frames.  dpdk-b holds
# them until its class 3 holds alpha_lossy x free lossy cells
# (lossy-dynamic-th -1: half the free cells, so a third of the shared pool
# when nothing else holds), and drops the rest as hold drops.  Expected:
# every held packet is lossy, no more are held than pfc/buffer's lossy
# limit plus one batch (the pool's free cells are read once per batch), the
# held and the dropped add up to what dpdk-a received, and after XON every
# held packet leaves.  20,000 frames pass the limit while the shared pool
# has fewer than about 55,000 cells, as with the per-port mempools that
# the tests keep (18,305 shared cells).
test_lossy_limit() {
    local conf rx0 rx1 held lossy limit shared drops i
    command -v trafgen >/dev/null 2>&1 || {
        pfc_err "trafgen not found: install the Debian package netsniff-ng"
        return 1
    }
    pfc_setup "$OVS" || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M watchdog-detection-time=0 \
        || return 1
    conf=$PFC_TMP/lossy.cfg
    trafgen_p3_conf "$conf" || return 1
    pause_p3 --xon-on-exit
    # Priority 3 paused before the first frame: none leaves.
    pfc_stat_until dpdk-b pfc_rx_frames_p3 0 1 >/dev/null
    rx0=$(pfc_stat dpdk-a rx_packets)
    ip netns exec "$PFC_NS_A" trafgen --dev "$PFC_IF_A1" --conf "$conf" \
        --num 20000 --gap 40us --cpus 1 --no-cpu-stats >/dev/null 2>&1 \
        || { pfc_err "trafgen failed"; return 1; }
    sleep 1
    read -r held lossy limit shared <<<"$(pfc_appctl pfc/buffer --json \
        | "$PFC_PY" -c '
import json, sys
b = json.load(sys.stdin)
tc = [t for t in b["ports"]["dpdk-b"]["traffic_classes"] if t["tc"] == 3]
print(tc[0]["held"], tc[0]["lossy"], tc[0]["lossy_limit"], b["shared"])')"
    # The statistics reach the database some time after a refresh.
    for i in $(seq 10); do
        pfc_stats_refresh
        rx1=$(pfc_stat dpdk-a rx_packets)
        drops=$(pfc_stat dpdk-b pfc_hold_drops_p3)
        [ "$((${held:-0} + drops))" -eq "$((rx1 - rx0))" ] && break
    done
    pfc_log "dpdk-b class 3: $held held ($lossy lossy), lossy limit $limit" \
        "of $shared shared cells; $drops hold drops of $((rx1 - rx0))" \
        "received"
    check "p3 packets held at dpdk-b (a sixth of the pool at least)" \
        "${held:-0}" -ge "$((${shared:-0} / 6))"
    check "of them lossy" "${lossy:-x}" -eq "${held:-0}"
    check "held within the lossy limit plus one batch" "${held:-0}" \
        -le "$((${limit:-0} + 32))"
    check "dpdk-b pfc_hold_drops_p3" "$drops" -ge 1
    check "held and dropped, against received by dpdk-a" \
        "$((${held:-0} + drops))" -eq "$((rx1 - rx0))"
    pfc_stop_pid "$PAUSE_PID"
    wait_held 0 || FAILS=$((FAILS + 1))
    [ "$FAILS" -eq 0 ]
}
