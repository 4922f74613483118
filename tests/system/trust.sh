# System tests of the trust boundary, sourced by tests/system/run.sh after
# guest.sh and classify.sh: a vhost-user port without QoS pfc trusts none of
# its guest's markings.  Every packet the guest sends is priority 0 in the
# switch, and leaves with 802.1p priority 0 wherever the switch writes a
# tag; a port with QoS pfc trusts its guest as its trust key says.
#
# The guest is guest.sh's guest 0 (dpdk-testpmd on vhost0), bridged to host
# C, from which pfc_peer.py sends what the guest sends.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# trust_guest_setup: vhost_setup (run.sh: pfc_setup, namespace C and guest 0
# on vhost0, of type dpdkvhostuser, no QoS), without its flows.
trust_guest_setup() {
    vhost_setup || return 1
    pfc_ofctl del-flows br0
}

# trust_guest_send ARGS...: the guest sends what C hands it: pfc_peer.py
# stream from C with ARGS (to B's MAC).
trust_guest_send() {
    "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_C:$PFC_IF_C1" --side A \
        --src "$PFC_MAC_C" "$@"
}

# trust_record_check REC STREAM EXPR WHAT: B's record REC (pfc_peer.py recv)
# holds frames of STREAM, and each of its rows x (t, stream, prio, pcp,
# seq, run, outer_dscp, vid, dscp) makes the Python expression EXPR true.
trust_record_check() {
    run_or_fail "$4" "$PFC_PY" -c '
import json, sys
rows = [x for x in json.load(open(sys.argv[1]))["data"]
        if x[1] == int(sys.argv[2])]
bad = [x for x in rows if not eval(sys.argv[3])]
print("frames of stream %s at B: %d, not as expected: %d%s"
      % (sys.argv[2], len(rows), len(bad),
         " (first %s)" % (bad[0],) if bad else ""))
assert rows and not bad
' "$1" "$2" "$3"
}

# trust_access_send REC STREAM: B records into REC while the guest sends 50
# priority-tagged frames (VID 0, PCP 3) of stream STREAM.
trust_access_send() {
    start_recv "$1"
    trust_guest_send --streams "$2:3" --vlan 0 --count 50 --rate 500 \
        || FAILS=$((FAILS + 1))
    sleep 0.5
    pfc_stop_pid "$RECV_PID"
}

# A guest on an access port (tag=100) sends priority-tagged frames (VID 0,
# PCP 3), switched by NORMAL to dpdk-b, a trunk.  Untrusted, they leave
# dpdk-b as VID 100 with PCP 0; once vhost0 has QoS pfc with trust=pcp (and
# no lossless priority), as VID 100 with PCP 3, as before.
test_trust_guest_access() {
    local rec rec2
    trust_guest_setup || return 1
    rec=$PFC_TMP/access.json
    rec2=$PFC_TMP/access2.json
    pfc_vsctl set Port vhost0 tag=100 || return 1
    pfc_ofctl add-flow br0 actions=NORMAL || return 1
    run_or_fail "pfc/show vhost0: untrusted" \
        grep -q "ingress: untrusted" <<<"$(pfc_show vhost0)"
    trust_access_send "$rec" 7
    trust_record_check "$rec" 7 "x[7] == 100 and x[3] == 0" \
        "untrusted guest: its PCP 3 frames left the trunk as VID 100, PCP 0"

    pfc_qos vhost0 trust=pcp || return 1
    run_or_fail "pfc/show vhost0: trust pcp" \
        grep -q "ingress: trust pcp" <<<"$(pfc_show vhost0)"
    trust_access_send "$rec2" 8
    trust_record_check "$rec2" 8 "x[7] == 100 and x[3] == 3" \
        "trusted guest: its PCP 3 frames left the trunk as VID 100, PCP 3"
    [ "$FAILS" -eq 0 ]
}

# The same untrusted guest sends IPv4 of DSCP 46 (EF) into a VXLAN tunnel
# (tos=inherit, which would copy 46 into the outer header): dpdk-b's
# rewrite-dscp=0:0 gives the outer header the DSCP of the packets' priority,
# 0, as the docs tell an operator to do; the inner DSCP stays the guest's.
test_trust_guest_tunnel() {
    local rec
    trust_guest_setup || return 1
    rec=$PFC_TMP/tunnel.json
    classify_vxlan_endpoint || return 1
    pfc_ofctl add-flow br0 in_port=vhost0,actions=output:vxlan0 \
        && pfc_ofctl add-flow br0 in_port=LOCAL,actions=output:dpdk-b \
        || return 1
    pfc_qos dpdk-b rewrite-dscp=0:0 || return 1
    start_recv "$rec"
    trust_guest_send --streams 9:0u --ip 4 --dscp 46 --count 50 --rate 500 \
        || FAILS=$((FAILS + 1))
    sleep 0.5
    pfc_stop_pid "$RECV_PID"
    trust_record_check "$rec" 9 "x[6] == 0 and x[8] == 46" \
        "untrusted guest: outer DSCP 0 (priority 0), inner DSCP 46 kept"
    [ "$FAILS" -eq 0 ]
}

# trust_flood_incast PCP: the incast of classify.sh from PFC-honouring
# senders A and D into dpdk-b, whose partner B pauses priority 3, while the
# untrusted guest floods B with frames of PCP PCP (stream 90) at 2,000 a
# second.  Adds the seconds for which the switch paused A and D, in all, to
# $PFC_TMP/paused.PCP.
trust_flood_incast() {
    local flood f=$PFC_TMP/paused.$1
    pfc_bg "$PFC_PY" "$PFC_PEER" stream --port "$PFC_NS_C:$PFC_IF_C1" \
        --side A --src "$PFC_MAC_C" --streams "90:$1" --count 16000 \
        --rate 2000
    flood=$PFC_LAST_PID
    sleep 0.5
    CLASSIFY_SENDER=D classify_incast tagged 8
    pfc_stop_pid "$flood"
    "$PFC_PY" -c 'import json, os, sys
f = json.load(open(sys.argv[1]))
t = f["paused_s_at_A"] + f["paused_s_at_D"]
if os.path.exists(sys.argv[2]):
    t += float(open(sys.argv[2]).read())
open(sys.argv[2], "w").write("%.3f" % t)' "$PFC_TMP/incast.json" "$f" \
        || { pfc_log "FAIL: no paused time from the incast"; \
             FAILS=$((FAILS + 1)); }
}

# An untrusted guest that floods PCP 3 beside legitimate lossless senders
# buys nothing: A and D are paused no more than 10% longer than when the
# same flood is PCP 0, and lose nothing (a trusted guest's flood doubles
# their paused time).  Each load runs twice, alternately, so that one cycle
# in which the CPU-starved senders missed an XOFF moves the sums by 6%, not
# 12%.  Less paused time is no gain for the guest, so only more counts.
test_trust_guest_flood() {
    local p0 p3 x
    trust_guest_setup || return 1
    pfc_net_add_host D \
        || { pfc_err "cannot create namespace D and its veth"; return 1; }
    pfc_port_host D || return 1
    for x in dpdk-a dpdk-d; do
        pfc_ofctl add-flow br0 "in_port=$x,actions=output:dpdk-b" \
            || return 1
        pfc_qos "$x" pfc-enable=3 link-speed=1G || return 1
    done
    pfc_ofctl add-flow br0 in_port=vhost0,actions=output:dpdk-b || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=1G queue-size=200 || return 1
    for x in 0 3 0 3; do
        trust_flood_incast "$x"
    done
    p0=$(cat "$PFC_TMP/paused.0" 2>/dev/null || echo 0)
    p3=$(cat "$PFC_TMP/paused.3" 2>/dev/null || echo 0)
    pfc_log "A and D paused in all, over two runs each: $p0 s with the" \
        "guest's flood at PCP 0, $p3 s at PCP 3"
    run_or_fail "paused time with the flood at PCP 3 at most 10% above PCP 0" \
        "$PFC_PY" -c 'import sys
p0, p3 = float(sys.argv[1]), float(sys.argv[2])
sys.exit(not (p0 > 0 and p3 <= 1.1 * p0))' "$p0" "$p3"
    [ "$FAILS" -eq 0 ]
}
