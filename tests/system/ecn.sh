# System tests of ECN marking on traffic classes (lib/pfc-ecn.h), sourced
# by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# ecn_send STREAM COUNT ECN [START-SEQ]: A sends COUNT IPv4/UDP frames of
# stream STREAM, priority 3, tagged, with ECN field ECN (0 Not-ECT, 2
# ECT(0)), 3000 frames/s.
ecn_send() {
    "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" --side A \
        --streams "$1:3" --count "$2" --rate 3000 --ip 4 --ecn "$3" \
        --start-seq "${4:-0}"
}

# ecn_fact RECORD STREAM KEY: KEY of pfc_peer.py ecn's JSON.
ecn_fact() {
    "$PFC_PY" "$PFC_PEER" ecn "$1" --stream "$2" | "$PFC_PY" -c \
        'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$3"
}

# ecn_tc PORT TC COUNTER: pfc/show's figure COUNTER on the ecn line of
# traffic class TC: "ect", "marked", or "above" (Not-ECT above the
# minimum).
ecn_tc() {
    local w=$3
    [ "$w" = above ] && w="above min"
    pfc_show "$1" | sed -n "s/^  ecn tc$2: .* $w \([0-9]*\).*/\1/p"
}

# ecn_frame_size: sets ECN_SIZE to the bytes of one of ecn_send's frames as
# dpdk-b counts them, read from one frame held behind a pause; then nothing
# is held.  Returns nonzero if it could not.
ecn_frame_size() {
    start_recv "$PFC_TMP/ecn-size.json"
    pause_p3 --xon-on-exit
    ecn_send 1 1 0 10000 || FAILS=$((FAILS + 1))
    wait_held 1 || FAILS=$((FAILS + 1))
    ECN_SIZE=$(pfc_show dpdk-b | awk '$1 == "p3" { print $6 }')
    xon_and_drain
    check "frame size known" "${ECN_SIZE:-0}" -gt 0
    [ "${ECN_SIZE:-0}" -gt 0 ]
}

# ecn_wait_tc3 MIN MAX: waits up to 5 s for dpdk-b's class 3 to mark
# between MIN and MAX bytes, and logs its ecn line.
ecn_wait_tc3() {
    local f
    for f in $(seq 50); do
        pfc_show dpdk-b | grep -q "^  ecn tc3: min $1 max $2 " && break
        sleep 0.1
    done
    pfc_log "$(pfc_show dpdk-b | grep '^  ecn tc3:')"
}

# DCTCP's step marking at K, on a lossless class that holds: B pauses p3 at
# dpdk-b, whose QoS marks at ecn-min-threshold = ecn-max-threshold = K =
# 100 frames' bytes.  A sends 300 ECT(0) frames, then 100 Not-ECT frames,
# all held behind the pause: frame i joins a class that queues i frames, so
# frames 0-99 stay ECT(0) and 100-299 get CE, exactly; no Not-ECT frame is
# changed, and each counts as Not-ECT above K.  After XON, B gets all 400
# in order (lossless), with CE on exactly seqs 100-299, and the counters
# agree.
test_ecn_step() {
    local rec size k facts
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/ecn.json
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    ecn_frame_size || return 1
    size=$ECN_SIZE
    pfc_log "one frame: $size bytes held"
    k=$((100 * size))
    pfc_vsctl set QoS "$(pfc_vsctl get Port dpdk-b qos)" \
        other_config:ecn-min-threshold=$k \
        other_config:ecn-max-threshold=$k || return 1
    ecn_wait_tc3 $k $k

    start_recv "$rec"
    pause_p3 --xon-on-exit
    ecn_send 2 300 2 || FAILS=$((FAILS + 1))
    ecn_send 3 100 0 || FAILS=$((FAILS + 1))
    wait_held 400 || FAILS=$((FAILS + 1))
    pfc_log "$(pfc_show dpdk-b | grep '^  ecn tc3:')"
    check "ECT packets judged" "$(ecn_tc dpdk-b 3 ect)" -eq 300
    check "ECT packets marked CE (K = 100 frames)" \
        "$(ecn_tc dpdk-b 3 marked)" -eq 200
    check "Not-ECT packets above K" "$(ecn_tc dpdk-b 3 above)" -eq 100
    xon_and_drain
    run_or_fail "B got the 300 ECT(0) frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 2 --expect 300
    run_or_fail "B got the 100 Not-ECT frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 3 --expect 100
    facts=$("$PFC_PY" "$PFC_PEER" ecn "$rec" --stream 2)
    pfc_log "stream 2 (ECT(0)) at B: $(cut -c1-120 <<<"$facts")"
    check "CE frames at B" "$(ecn_fact "$rec" 2 ce)" -eq 200
    check "ECT(0) frames at B" "$(ecn_fact "$rec" 2 ect0)" -eq 100
    run_or_fail "CE on exactly seqs 100-299" "$PFC_PY" -c '
import json, sys
seqs = json.loads(sys.argv[1])["ce_seqs"]
sys.exit(0 if seqs == list(range(100, 300)) else 1)' "$facts"
    check "Not-ECT frames at B unchanged" "$(ecn_fact "$rec" 3 not_ect)" \
        -eq 100
    pfc_stats_refresh
    check "dpdk-b pfc_ecn_marked_tc3" "$(pfc_stat dpdk-b pfc_ecn_marked_tc3)" \
        -eq 200
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    [ "$FAILS" -eq 0 ]
}

# The marking rate between the thresholds, in the manner of sonic-mgmt's
# ECN_test.md: a Queue row puts priority 3 in class 3 with
# ecn-min-threshold 100 frames' bytes, ecn-max-threshold 4,100 frames'
# bytes and ecn-max-probability 50.  B pauses p3; A sends 100 Not-ECT
# frames (below the minimum: not counted), then 4,000 ECT(0) frames, all
# held: ECT frame j joins a class that queues 100 + j frames, so it is
# marked with probability 50% x j / 4000, and the expected rate over the
# 4,000 is their mean, 25%.  The rate seen at B after XON must be within 2
# percentage points of it (the binomial's sigma is 0.7), and equal to the
# switch's count.
test_ecn_rate() {
    local rec size min max ce rate
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/ecn.json
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    ecn_frame_size || return 1
    size=$ECN_SIZE
    min=$((100 * size))
    max=$((4100 * size))
    pfc_vsctl -- --id=@q3 create Queue other_config:priorities=3 \
        other_config:ecn-min-threshold=$min \
        other_config:ecn-max-threshold=$max \
        other_config:ecn-max-probability=50 \
        -- set QoS "$(pfc_vsctl get Port dpdk-b qos)" queues:3=@q3 \
        >/dev/null || return 1
    ecn_wait_tc3 $min $max

    start_recv "$rec"
    pause_p3 --xon-on-exit
    ecn_send 2 100 0 || FAILS=$((FAILS + 1))
    ecn_send 3 4000 2 || FAILS=$((FAILS + 1))
    wait_held 4100 || FAILS=$((FAILS + 1))
    pfc_log "$(pfc_show dpdk-b | grep '^  ecn tc3:')"
    check "Not-ECT below the minimum: not counted" \
        "$(ecn_tc dpdk-b 3 above)" -eq 0
    check "ECT packets judged" "$(ecn_tc dpdk-b 3 ect)" -eq 4000
    xon_and_drain
    run_or_fail "B got the 4000 ECT(0) frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 3 --expect 4000
    ce=$(ecn_fact "$rec" 3 ce)
    rate=$(awk -v c="$ce" 'BEGIN { printf "%.2f", 100 * c / 4000 }')
    pfc_log "marked: $ce of 4000 ECT(0) frames, $rate% (expected 25.00%," \
            "the mean of 50% x j / 4000)"
    check "CE frames at B = the switch's marks" "$ce" -eq \
        "$(ecn_tc dpdk-b 3 marked)"
    run_or_fail "marking rate within 2 points of 25%" \
        awk -v r="$rate" 'BEGIN { exit !(r >= 23 && r <= 27) }'
    check "Not-ECT frames unchanged at B" "$(ecn_fact "$rec" 2 not_ect)" \
        -eq 100
    [ "$FAILS" -eq 0 ]
}

# tcp_setup: A (10.77.0.1) and B (10.77.0.2) as TCP hosts through dpdk-a
# and dpdk-b: no offloads on either end of their veths (net_af_packet
# carries what the kernel hands it, as a NIC would not), static neighbours,
# and ECN negotiated (net.ipv4.tcp_ecn=1).  tcp_run's sender uses cubic,
# Linux's default congestion control, whatever the host's default.
tcp_setup() {
    local ns ifc
    for ifc in "$PFC_NS_A:$PFC_IF_A1" "$PFC_NS_B:$PFC_IF_B1" \
               "$PFC_NS_S:$PFC_IF_A0" "$PFC_NS_S:$PFC_IF_B0"; do
        ip netns exec "${ifc%%:*}" ethtool -K "${ifc#*:}" tx off tso off \
            gso off gro off >/dev/null 2>&1 || {
            pfc_err "ethtool -K ${ifc#*:} failed"; return 1; }
    done
    ip -n "$PFC_NS_A" addr add 10.77.0.1/24 dev "$PFC_IF_A1" || return 1
    ip -n "$PFC_NS_B" addr add 10.77.0.2/24 dev "$PFC_IF_B1" || return 1
    ip -n "$PFC_NS_A" neigh replace 10.77.0.2 lladdr "$PFC_MAC_B" \
        dev "$PFC_IF_A1" || return 1
    ip -n "$PFC_NS_B" neigh replace 10.77.0.1 lladdr "$PFC_MAC_A" \
        dev "$PFC_IF_B1" || return 1
    for ns in "$PFC_NS_A" "$PFC_NS_B"; do
        ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1 || return 1
    done
    pfc_log "tcp_ecn 1; congestion control: cubic (iperf3 -C)"
}

# tcp_run NAME SECONDS: an iperf3 TCP upload from A to B for SECONDS, with
# a ping from A to B every 10 ms from its second second on; writes
# $PFC_TMP/NAME.json with goodput (bit/s), retransmissions, and the ping's
# RTT percentiles (ms), and prints it.
tcp_run() {
    local out=$PFC_TMP/$1 secs=$2 srv png
    ip netns exec "$PFC_NS_B" iperf3 -s -1 -B 10.77.0.2 >/dev/null 2>&1 &
    srv=$!
    PFC_BG_PIDS+=("$srv")
    sleep 0.5
    (sleep 1; ip netns exec "$PFC_NS_A" ping -i 0.01 -w $((secs - 2)) \
        10.77.0.2 > "$out.ping" 2>&1) &
    png=$!
    PFC_BG_PIDS+=("$png")
    ip netns exec "$PFC_NS_A" iperf3 -c 10.77.0.2 -B 10.77.0.1 -t "$secs" \
        -C cubic -J > "$out.iperf" 2>&1 \
        || pfc_log "iperf3 failed: $(tail -3 "$out.iperf")"
    wait_pid "$png" 10
    wait_pid "$srv" 5
    "$PFC_PY" - "$out" <<'PY'
import json, re, sys
out = sys.argv[1]
try:
    r = json.load(open(out + ".iperf"))
    bps = r["end"]["sum_received"]["bits_per_second"]
    retr = r["end"]["sum_sent"].get("retransmits", -1)
except Exception as e:
    bps, retr = 0, -1
rtts = sorted(float(m) for m in
              re.findall(r"time=([0-9.]+) ms", open(out + ".ping").read()))
def pct(p):
    return rtts[min(len(rtts) - 1, int(p / 100 * len(rtts)))] if rtts else -1
res = {"goodput_bps": round(bps), "retransmits": retr, "pings": len(rtts),
       "rtt_p50_ms": pct(50), "rtt_p90_ms": pct(90), "rtt_p99_ms": pct(99)}
json.dump(res, open(out + ".json", "w"))
print(json.dumps(res))
PY
}

# tcp_fact NAME KEY: KEY of tcp_run NAME's figures.
tcp_fact() {
    "$PFC_PY" -c 'import json, sys
print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$PFC_TMP/$1.json" "$2"
}

# Linux TCP with ECN through a PFC port whose shaper is the bottleneck:
# dpdk-b shapes to max-rate 50 Mb/s, and an iperf3 upload (cubic,
# net.ipv4.tcp_ecn=1) from A to B shares class 0 with a ping every 10 ms.
#   - ECN with ecn-min-threshold = ecn-max-threshold = K = 30,000 bytes
#     (DCTCP's step; 4.8 ms at 50 Mb/s): goodput at least 90% of max-rate,
#     no retransmission, CE marks counted and captured at B (tcpdump), and
#     the ping's p99 within K's queueing delay plus 10 ms of the idle
#     path's.
#   - The same run without ECN keys: the queue that marking removes, as
#     the ping's median RTT, at least 4 times K's delay.
# Figures are printed for pfc.rst; the assertions are the bounds above.
test_ecn_tcp() {
    local base k=30000 limit cap wire
    command -v iperf3 >/dev/null || {
        pfc_log "FAIL: iperf3 is not installed (scripts/install-deps.sh)"
        return 1; }
    pfc_setup "$OVS" || return 1
    tcp_setup || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10G max-rate=50000000 \
        ecn-min-threshold=$k ecn-max-threshold=$k || return 1
    ip netns exec "$PFC_NS_A" ping -i 0.01 -c 200 10.77.0.2 \
        > "$PFC_TMP/idle.ping" 2>&1 || {
        pfc_log "FAIL: ping A -> B: $(tail -2 "$PFC_TMP/idle.ping")"
        return 1; }
    base=$("$PFC_PY" -c 'import re, sys
r = sorted(float(m) for m in re.findall(r"time=([0-9.]+) ms",
                                         open(sys.argv[1]).read()))
print("%.3f %.3f" % (r[len(r) // 2], r[min(len(r) - 1, int(0.99 * len(r)))]))' \
        "$PFC_TMP/idle.ping")
    pfc_log "idle path RTT: p50 ${base% *} ms, p99 ${base#* } ms"

    pfc_log "with ECN (K = $k bytes):"
    # What reaches B with CE, captured on B's end of its veth.
    pfc_bg ip netns exec "$PFC_NS_B" tcpdump -i "$PFC_IF_B1" -n -U \
        -w "$PFC_TMP/ce.pcap" 'ip[1] & 3 = 3'
    cap=$PFC_LAST_PID
    sleep 1
    tcp_run ecn 12
    pfc_stop_pid "$cap"
    wire=$(tcpdump -r "$PFC_TMP/ce.pcap" -n 2>/dev/null | grep -c .)
    pfc_log "$(pfc_show dpdk-b | grep '^  ecn tc0:')"
    pfc_log "CE packets captured at B: $wire"
    check "CE marks on the wire at B" "$wire" -gt 0
    check "CE marks at B, at most the switch's" "$wire" -le \
        "$(ecn_tc dpdk-b 0 marked)"
    check "goodput with ECN (bit/s), at least 90% of 50 Mb/s" \
        "$(tcp_fact ecn goodput_bps)" -ge 45000000
    check "retransmissions with ECN" "$(tcp_fact ecn retransmits)" -eq 0
    check "CE marks counted" "$(ecn_tc dpdk-b 0 marked)" -gt 0
    limit=$("$PFC_PY" -c "print(int(${base#* } + $k * 8 / 50e6 * 1e3 + 10))")
    check "ping p99 with ECN (ms, rounded down), at most p99 idle + 4.8 + 10" \
        "$(tcp_fact ecn rtt_p99_ms | cut -d. -f1)" -le "$limit"

    pfc_vsctl remove QoS "$(pfc_vsctl get Port dpdk-b qos)" other_config \
        ecn-min-threshold ecn-max-threshold || return 1
    for f in $(seq 50); do
        pfc_show dpdk-b | grep -q '^  ecn tc0:' || break
        sleep 0.1
    done
    pfc_log "without ECN:"
    tcp_run noecn 12
    check "ping p50 without ECN (ms), at least 4 x K's 4.8 ms" \
        "$(tcp_fact noecn rtt_p50_ms | cut -d. -f1)" -ge 19
    [ "$FAILS" -eq 0 ]
}


# ECN on a lossless class, with a PFC-honouring sender: K = 100 frames'
# bytes at dpdk-b, and dpdk-a sends XOFF once 300 frames' bytes of p3 are
# held.  B pauses p3; A (honouring dpdk-a's PFC frames as a NIC does) sends
# 1,000 ECT(0) frames: dpdk-b holds them and marks those that join above K,
# dpdk-a pauses A, and once B's XON lets dpdk-b drain, dpdk-a's XON lets A
# send the rest.  B gets all 1,000 in order (nothing lost), none of the
# first 100 with CE (they joined below K), the frames held at least up to
# the XOFF above K with CE, and dpdk-b's count of marks is what B saw.
test_ecn_lossless() {
    local rec size k pid f held facts
    pfc_setup "$OVS" || return 1
    rec=$PFC_TMP/ecn.json
    size=128
    k=$((100 * size))
    pfc_qos dpdk-a pfc-enable=3 link-speed=1G xoff-threshold=$((300 * size)) \
        xon-threshold=$((100 * size)) || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M ecn-min-threshold=$k \
        ecn-max-threshold=$k || return 1
    start_recv "$rec"
    pause_p3 --xon-on-exit
    "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" --side A \
        --streams 2:3 --count 1000 --rate 3000 --ip 4 --ecn 2 \
        --honour 1G > "$PFC_TMP/sender.log" 2>&1 &
    pid=$!
    PFC_BG_PIDS+=("$pid")
    for f in $(seq 100); do
        [ "$(pfc_show dpdk-a | awk '$1 == "p3" { print $9 }')" = yes ] \
            && break
        sleep 0.1
    done
    sleep 0.5
    held=$(held_p3)
    pfc_log "dpdk-a asserts XOFF; dpdk-b holds $held p3 frames"
    pfc_log "$(pfc_show dpdk-b | grep '^  ecn tc3:')"
    check "held when dpdk-a sent XOFF, at least" "${held:-0}" -ge 250
    check "held when dpdk-a sent XOFF, at most (A honours it)" \
        "${held:-0}" -lt 1000
    pfc_stop_pid "$PAUSE_PID"
    wait_pid "$pid" 30
    wait_held 0 || FAILS=$((FAILS + 1))
    sleep 0.5
    pfc_stop_pid "$RECV_PID"
    run_or_fail "B got the 1000 ECT(0) frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 2 --expect 1000
    facts=$("$PFC_PY" "$PFC_PEER" ecn "$rec" --stream 2)
    run_or_fail "no CE below K, CE on the frames held above K before XON" \
        "$PFC_PY" -c '
import json, sys
seqs = set(json.loads(sys.argv[1])["ce_seqs"])
held = int(sys.argv[2])
sys.exit(0 if not any(s < 100 for s in seqs)
         and all(s in seqs for s in range(100, held)) else 1)' \
        "$facts" "$held"
    check "CE frames at B = dpdk-b's marks" "$(ecn_fact "$rec" 2 ce)" -eq \
        "$(ecn_tc dpdk-b 3 marked)"
    pfc_stats_refresh
    check "dpdk-a pfc_tx_frames_p3 (XOFF and XON to A)" \
        "$(pfc_stat dpdk-a pfc_tx_frames_p3)" -ge 2
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    check "dpdk-a pfc_headroom_drops_p3" \
        "$(pfc_stat dpdk-a pfc_headroom_drops_p3)" -eq 0
    [ "$FAILS" -eq 0 ]
}
