# System tests of requeueing (lib/netdev-dpdk-pfc-requeue.c): what happens
# to a large number of held packets when the priority map of a port, or its
# QoS object, changes.  Sourced by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# requeue_log N PHRASE: waits up to 10 s for the requeue log line of dpdk-b
# that says N packets were requeued, and prints its two figures: the queue
# entries copied under a tx queue lock and the longest time, in us, that a
# tx queue lock was held.  PHRASE names the change, for the message.
requeue_log() {
    local i line
    for i in $(seq 100); do
        line=$(grep "dpdk-b: PFC: $1 held packets requeued" \
                    "$PFC_TMP/ovs-vswitchd.log" | sed -n "${REQUEUE_NTH}p")
        [ -n "$line" ] && break
        sleep 0.1
    done
    if [ -z "$line" ]; then
        pfc_log "FAIL: no log of $1 held packets requeued ($2)" >&2
        echo "x x"
        return 1
    fi
    pfc_log "$2: ${line#*|netdev_dpdk_pfc_requeue|INFO|}" >&2
    sed -n 's/.*; \([0-9]*\) queue entries copied .* at most \([0-9.]*\) us.*/\1 \2/p' \
        <<<"$line"
}

# Tens of thousands of held packets are requeued twice, by a change of the
# priority map and by a new QoS object, with no work under a tx queue lock
# that grows with them.  B keeps priority 3 of dpdk-b paused (the watchdog
# off, on purpose: the pause lasts several seconds); trafgen (package
# netsniff-ng) in A sends 60,000 tagged priority-3 frames, which dpdk-b
# holds (dpdk-a has no QoS: they are lossy at its ingress, and dpdk-b's
# lossy-dynamic-th and egress-dynamic-th let them take the pool).  Then:
#   - a Queue row maps priority 3 to class 1: the log says every held
#     packet was requeued, 0 queue entries were copied under a tx queue
#     lock (nothing was held meanwhile), and how long a lock was held;
#   - a new pause-quanta makes a new QoS object, which takes the packets
#     over the same way;
#   - after XON, every held packet leaves dpdk-b, and none was dropped;
#   - 60,000 more are held, and the QoS is removed while B still pauses
#     priority 3: 1 s later the retirement frees them all, with no tx queue
#     lock held.
# The times that a lock was held are printed, and only bounded loosely
# (10 ms): on a shared virtual machine a lock holder can be descheduled.
# Before requeueing, a change moved every held packet under the locks of
# every tx queue.
test_requeue_60k() {
    local conf held tx0 tx1 out copied us i
    command -v trafgen >/dev/null 2>&1 || {
        pfc_err "trafgen not found: install the Debian package netsniff-ng"
        return 1
    }
    # One mempool for all ports, large enough for 60,000 held packets.
    PFC_OTHER_CONFIG="other_config:per-port-memory=false"
    pfc_setup "$OVS" || return 1
    conf=$PFC_TMP/requeue.cfg
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M watchdog-detection-time=0 \
        lossy-dynamic-th=7 egress-dynamic-th=7 || return 1
    trafgen_p3_conf "$conf" || return 1
    pause_p3 --xon-on-exit
    pfc_stats_refresh
    tx0=$(pfc_stat dpdk-b tx_packets)
    requeue_send "$conf"
    held=$(held_p3)
    check "p3 packets held at dpdk-b" "${held:-0}" -ge 50000
    # Held behind a pause that nothing can end before its timer (no XOFF
    # owed, the watchdog off): the flush pass asks no port meanwhile (the
    # quiet of dpdk-b), as if nothing were held.
    wait_flush_reasons 0 || FAILS=$((FAILS + 1))

    pfc_vsctl -- --id=@q1 create Queue other_config:priorities=1,3 \
        -- set QoS "$(pfc_vsctl get Port dpdk-b qos)" queues:1=@q1 \
        >/dev/null || FAILS=$((FAILS + 1))
    REQUEUE_NTH=1
    out=$(requeue_log "$held" "priority 3 to class 1") \
        || FAILS=$((FAILS + 1))
    read -r copied us <<<"$out"
    check "entries copied under a lock, map change" "$copied" -eq 0
    check "us a lock was held, map change (at most 10 ms)" \
        "${us%.*}" -lt 10000

    pfc_vsctl set QoS "$(pfc_vsctl get Port dpdk-b qos)" \
        other_config:pause-quanta=60000 || FAILS=$((FAILS + 1))
    REQUEUE_NTH=2
    out=$(requeue_log "$held" "a new QoS object") || FAILS=$((FAILS + 1))
    read -r copied us <<<"$out"
    check "entries copied under a lock, new QoS object" "$copied" -eq 0
    check "us a lock was held, new QoS object (at most 10 ms)" \
        "${us%.*}" -lt 10000
    check "still held after both changes" "$(held_p3)" -eq "$held"

    pfc_stop_pid "$PAUSE_PID"
    wait_held 0 || FAILS=$((FAILS + 1))
    pfc_stats_refresh
    tx1=$(pfc_stat dpdk-b tx_packets)
    check "packets dpdk-b sent after XON" "$((tx1 - tx0))" -ge "$held"
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0

    # The retirement of 60,000 held packets.
    pause_p3
    requeue_send "$conf"
    held=$(held_p3)
    check "p3 packets held at dpdk-b, again" "${held:-0}" -ge 50000
    pfc_vsctl clear Port dpdk-b qos || FAILS=$((FAILS + 1))
    out=""
    for i in $(seq 50); do
        out=$(sed -n "s/.*dpdk-b: PFC removed: \($held\) packets still held after 1000 ms freed .* at most \([0-9.]*\) us).*/\1 \2/p" \
                  "$PFC_TMP/ovs-vswitchd.log")
        [ -n "$out" ] && break
        sleep 0.1
    done
    pfc_log "retirement: ${out:-no log}"
    read -r copied us <<<"${out:-x x}"
    check "held packets freed by the retirement" "$copied" -eq "$held"
    check "us a lock was held, retirement (at most 10 ms)" "${us%.*}" \
        -lt 10000
    # Nothing stays counted once PFC is gone: not the tx queue that held,
    # not the requeues, not the XOFF that dpdk-a may still have owed.
    wait_flush_reasons 0 || FAILS=$((FAILS + 1))
    pfc_stop_pid "$PAUSE_PID"
    [ "$FAILS" -eq 0 ]
}

# requeue_send CONF: trafgen in A sends the 60,000 frames of CONF, 40 us
# apart, then waits 1 s for dpdk-b to hold them.
requeue_send() {
    ip netns exec "$PFC_NS_A" trafgen --dev "$PFC_IF_A1" --conf "$1" \
        --num 60000 --gap 40us --cpus 1 --no-cpu-stats >/dev/null 2>&1 \
        || { pfc_log "FAIL: trafgen"; FAILS=$((FAILS + 1)); }
    sleep 1
}
