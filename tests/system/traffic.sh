# Helpers of the system tests that hold, pause and count: free mbufs,
# held packets, PFC frames sent by a peer, receivers, waits for a state
# or a log line, and statistic deltas, sourced by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# Free mbufs of the mempools of dpdk-a and dpdk-b, which are distinct:
# the common pool plus the per-lcore caches (netdev-dpdk/get-mempool-info
# prints rte_mempool_dump()).  A packet held anywhere takes an mbuf of the
# mempool of the port it arrived on.
mempool_free() {
    local p
    for p in dpdk-a dpdk-b; do
        pfc_appctl netdev-dpdk/get-mempool-info "$p" 2>/dev/null
    done | awk -F= '/common_pool_count=/ { n += $2 }
                    /total_cache_count=/ { n += $2 }
                    END { print n + 0 }'
}

# trafgen_p3_conf FILE: writes to FILE the trafgen (netsniff-ng)
# configuration of a tagged priority-3 UDP frame from A to B, 64 octets.
trafgen_p3_conf() {
    cat >"$1" <<EOF2
{
  eth(da=$PFC_MAC_B, sa=$PFC_MAC_A),
  vlan(id=0, pcp=3),
  ipv4(saddr=10.0.0.1, daddr=10.0.0.2, ttl=64),
  udp(sp=1000, dp=2000),
  fill(0x00, 18)
}
EOF2
}

# held_p3: packets of priority 3 that dpdk-b holds, from pfc/show.
held_p3() {
    pfc_show dpdk-b | awk '$1 == "p3" { print $5 }'
}

# pause_p3 [SEND-PFC-OPTION...]: B keeps priority 3 of dpdk-b paused
# (65535 quanta, 3.4 s at 10M, refreshed every 0.5 s, for at most 60 s)
# until pfc_stop_pid "$PAUSE_PID".
pause_p3() {
    pfc_bg "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_B:$PFC_IF_B1" \
        --side B --prio 3 --time 65535 --interval 0.5 --duration 60 "$@"
    PAUSE_PID=$PFC_LAST_PID
    sleep 0.5
}

# send_p3 COUNT [FIRST-SEQ]: A sends COUNT frames of priority 3, stream 1,
# at 1000 a second, numbered from FIRST-SEQ (default 0).
send_p3() {
    "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_A:$PFC_IF_A1" --side A \
        --streams 1:3 --count "$1" --rate 1000 --start-seq "${2:-0}"
}

# start_recv FILE [C]: B (or C) records what it receives into FILE
# (pfc_peer.py recv) until xon_and_drain; returns once it listens.
start_recv() {
    local i host=${2:-B} port
    port="$PFC_NS_B:$PFC_IF_B1"
    [ "$host" = C ] && port="$PFC_NS_C:$PFC_IF_C1"
    rm -f "$PFC_TMP/recv.ready"
    pfc_bg "$PFC_PY" "$PFC_PEER" recv --port "$port" \
        --out "$1" --ready "$PFC_TMP/recv.ready" --duration 60
    RECV_PID=$PFC_LAST_PID
    for i in $(seq 50); do
        [ -e "$PFC_TMP/recv.ready" ] && return 0
        sleep 0.1
    done
    pfc_log "FAIL: the receiver in $host did not start"
    FAILS=$((FAILS + 1))
}

# xon_and_drain: ends pause_p3 (with --xon-on-exit, B sends XON), waits
# until dpdk-b holds nothing, then stops start_recv's receiver.
xon_and_drain() {
    pfc_stop_pid "$PAUSE_PID"
    wait_held 0 || FAILS=$((FAILS + 1))
    sleep 0.5
    pfc_stop_pid "$RECV_PID"
}

# xon_drain_check REC N: xon_and_drain, then start_recv's record REC must
# hold the N p3 frames of stream 1 in order, and dpdk-b must have dropped no
# held p3 packet.
xon_drain_check() {
    xon_and_drain
    run_or_fail "B got the $2 p3 frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$1" --stream 1 --expect "$2"
    pfc_stats_refresh
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
}

# wait_held N: waits up to 10 s until dpdk-b holds N packets of priority 3.
wait_held() {
    wait_output "$1" "p3 packets held at dpdk-b" held_p3
}

# flush_reasons: how many reasons for deferred work the switch counts now
# (pfc/buffer --json): while it is 0, PMD threads ask no port for any.
flush_reasons() {
    pfc_appctl pfc/buffer --json | python3 -c \
        'import json, sys; print(json.load(sys.stdin)["flush_reasons"])'
}

# wait_flush_reasons N: waits up to 10 s for flush_reasons to be N; returns
# 1, with a line in the log, if it never is.
wait_flush_reasons() {
    wait_output "$1" "reasons for deferred work" flush_reasons
}

# wait_output EXPECTED WHAT CMD...: waits up to 10 s for the output of CMD to
# be EXPECTED; returns 1, with a line in the log naming WHAT, if it never
# is.
wait_output() {
    local expected=$1 what=$2 i
    shift 2
    for i in $(seq 100); do
        [ "$("$@")" = "$expected" ] && return 0
        sleep 0.1
    done
    pfc_log "FAIL: $what: $("$@"), expected $expected"
    return 1
}

# wait_pid PID SECONDS: waits up to SECONDS for background process PID to
# end by itself, then stops it.
wait_pid() {
    local i
    for i in $(seq $(($2 * 10))); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    pfc_stop_pid "$1"
}

# wait_log PATTERN WHAT: waits up to 10 s for PATTERN in ovs-vswitchd.log.
wait_log() {
    local i
    for i in $(seq 100); do
        grep -q "$1" "$PFC_TMP/ovs-vswitchd.log" && {
            pfc_log "ok: $2"; return 0; }
        sleep 0.1
    done
    pfc_log "FAIL: $2 (no \"$1\" in ovs-vswitchd.log)"
    FAILS=$((FAILS + 1))
    return 1
}

# delta BEFORE AFTER: AFTER - BEFORE, or "absent" if either is not a number
# (a statistic this build does not report).
delta() {
    if [[ "$1" =~ ^[0-9]+$ ]] && [[ "$2" =~ ^[0-9]+$ ]]; then
        echo $(($2 - $1))
    else
        echo absent
    fi
}

# check_stat_delta NAME BEFORE AFTER OP EXPECTED: check of AFTER - BEFORE,
# saying so plainly if the statistic is absent.
check_stat_delta() {
    if [ "$(delta "$2" "$3")" = absent ]; then
        pfc_log "FAIL: $1: statistic absent (before: $2, after: $3): this" \
                "build does not report it"
        FAILS=$((FAILS + 1))
        return 1
    fi
    check "$1 (from $2 to $3)" "$(delta "$2" "$3")" "$4" "$5"
}
