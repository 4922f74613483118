#!/bin/bash
# Diagnostic, not a pass/fail test: can this machine hold a 10 Gb/s PFC
# pause from a software link partner?
#
# Usage: tests/system/pause-lapse-check.sh OVS_BUILD_TREE [SPEED] [SECONDS]
#
# Host B refreshes a pause of priority 3 (65535 quanta: 3.36 ms at 10G)
# every millisecond for SECONDS (default 5).  The script then compares
# what OVS counted -- pfc_pause_transitions_p3, 1 if the pause never lapsed
# -- with the gaps between B's frames on the veth that dpdk-b's af_packet
# PMD reads (kernel timestamps, captured by tshark in the switch's
# namespace).  Transitions well above 1 while no gap on the wire exceeds the
# pause mean that OVS processed refreshes late: its PMD was descheduled (it
# shares its core with other runnable threads) for longer than the pause
# had left.  Run it with and without load on the PMD's core to see the
# difference.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

[ $# -ge 1 ] || { echo "usage: $0 OVS_BUILD_TREE [SPEED] [SECONDS]" >&2;
                  exit 2; }
OVS=$(cd "$1" && pwd) || exit 2
SPEED=${2:-10G}
SECS=${3:-5}

pfc_setup "$OVS" || exit 1
pfc_qos dpdk-b pfc-enable=3 link-speed="$SPEED" || exit 1
pfc_bg ip netns exec "$PFC_NS_S" tshark -q -i "$PFC_IF_B0" \
    -f "ether proto 0x8808" -w "$PFC_TMP/wire.pcap" 2>"$PFC_TMP/wire.log"
cap=$PFC_LAST_PID
for _ in $(seq 100); do
    grep -q "Capturing on" "$PFC_TMP/wire.log" 2>/dev/null && break
    sleep 0.1
done
pfc_stats_refresh
t0=$(pfc_stat dpdk-b pfc_pause_transitions_p3)
pfc_peer "$PFC_NS_B" send-pfc --port "$PFC_IF_B1" --prio 3 --time 65535 \
    --interval 0.001 --duration "$SECS" --rt 10
pfc_stats_refresh
t1=$(pfc_stat dpdk-b pfc_pause_transitions_p3)
sleep 0.5
pfc_stop_pid "$cap" INT
echo "link-speed $SPEED: 65535 quanta last" \
    "$("$PFC_PY" -B -c "import sys; sys.path.insert(0, '$PFC_REPO/utilities')
import pfc_peer as p
print('%.3f ms' % (1e3 * p.quanta_to_s(65535, p.parse_speed('$SPEED'))))")"
echo "OVS: pfc_pause_transitions_p3 +$((t1 - t0)) over $SECS s of 1 ms" \
     "refreshes (1 means the pause never lapsed)"
tshark -r "$PFC_TMP/wire.pcap" -T fields -e frame.time_epoch 2>/dev/null \
    | "$PFC_PY" -c "
import sys
t = [float(x) for x in sys.stdin if x.strip()]
g = sorted(b - a for a, b in zip(t, t[1:]))
if g:
    print('wire: %d frames, median gap %.3f ms, max gap %.3f ms'
          % (len(t), g[len(g) // 2] * 1e3, g[-1] * 1e3))"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
