# System tests of OpenFlow set_queue on a port with QoS pfc (lib/pfc-send.h,
# pfc_send_class()), sourced by tests/system/run.sh after classify.sh, whose
# incast scenario they run: PFC-honouring senders A and C send priority-3
# and priority-0 streams to dpdk-b, whose partner B pauses.  set_queue
# chooses the traffic class of dpdk-b's Queue row, as in Open vSwitch's
# other QoS types; the packet keeps its priority, and with it its ingress
# priority group and the pauses that it honours.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# set_queue_setup QUEUE EG_KV: classify_setup with the egress dpdk-b's QoS
# pfc EG_KV and a Queue row QUEUE (priorities=QUEUE) on it, and, at a
# priority above the flows of classify_setup (32768), flows that send the senders' priority-3 frames
# with set_queue:QUEUE.  Waits until dpdk-b lists the Queue row.
set_queue_setup() {
    local queue=$1 q x
    classify_setup "" "pfc-enable=3,4 link-speed=1G" "$2" || return 1
    q=$(pfc_vsctl get Port dpdk-b qos) || return 1
    pfc_vsctl -- --id=@q create Queue "other_config:priorities=$queue" \
        -- set QoS "$q" "queues:$queue=@q" >/dev/null || return 1
    for x in dpdk-a dpdk-c; do
        pfc_ofctl add-flow br0 "priority=40000,in_port=$x,dl_vlan_pcp=3,\
actions=set_queue:$queue,output:dpdk-b" || return 1
    done
    pfc_log "flows: $(pfc_ofctl dump-flows br0 --no-stats | tr '\n' ' ')"
    for _ in $(seq 50); do
        set_queue_listed "$queue" && break
        sleep 0.1
    done
    run_or_fail "dpdk-b lists Queue $queue" set_queue_listed "$queue"
}

# set_queue_listed QUEUE: true if qos/show lists dpdk-b's Queue QUEUE.
set_queue_listed() {
    pfc_appctl qos/show dpdk-b | grep -q "^Queue $1:"
}

# set_queue_counter NAME: the coverage counter NAME, after its totals
# were updated (about once a second).
set_queue_counter() {
    sleep 1.2
    pfc_appctl coverage/read-counter "$1"
}

# set_queue:4 moves the senders' priority-3 frames into class 4 of dpdk-b,
# lossless (priority 4 is in pfc-enable).  B pauses priority 4 alone: the
# moved frames wait with class 4, so none reaches B inside those pauses
# (without the move they would flow), and they are charged to priority
# group 3 of their ingress ports, which send XOFF for priority 3.  Then B
# pauses priority 3 alone: the moved frames also wait for their own
# priority, although class 4 may send.
test_set_queue_moved() {
    local before after
    set_queue_setup 4 "pfc-enable=3,4 link-speed=1G queue-size=200" \
        || return 1
    before=$(pfc_appctl coverage/read-counter pfc_set_queue_moved)
    CLASSIFY_PAUSE=4 classify_incast tagged
    pfc_log "datapath flows: $(pfc_appctl dpctl/dump-flows | tr '\n' ' ')"
    after=$(set_queue_counter pfc_set_queue_moved)
    check "p3 frames that set_queue moved and dpdk-b held" \
        "$((after - before))" -gt 0
    CLASSIFY_PAUSE=3 classify_incast tagged
    [ "$FAILS" -eq 0 ]
}

# A lossless priority is not moved into a class that no lossless priority
# maps to: only a lossless class queue has a slot for every packet that the
# buffer admits.  set_queue:5 (Queue row 5, lossy) leaves the priority-3
# frames in class 3, counted as kept, and B's pauses of priority 3 hold
# them there, lossless as without set_queue.
test_set_queue_lossless_kept() {
    local before after
    set_queue_setup 5 "pfc-enable=3,4 link-speed=1G queue-size=200" \
        || return 1
    before=$(pfc_appctl coverage/read-counter pfc_set_queue_kept)
    CLASSIFY_PAUSE=3 classify_incast tagged 4
    after=$(set_queue_counter pfc_set_queue_kept)
    check "p3 frames that set_queue would have moved into lossy class 5" \
        "$((after - before))" -gt 0
    check "p3 frames that set_queue moved" \
        "$(pfc_appctl coverage/read-counter pfc_set_queue_moved)" -eq 0
    [ "$FAILS" -eq 0 ]
}


# A storm of priority 4 while class 4 holds only priority-3 frames that
# set_queue moved there: class 4 waits, so the watchdog (detection 100 ms,
# action drop) declares priority 4 stormed, ignores its pauses, and the
# moved frames leave; none is lost, and priority 3 is not stormed.  B's
# XOFF for priority 4 are refreshed for 500 ms, twice.  queue-size=100: the
# two senders' 2000 frames/s reach class 4's bound in 50 ms, so that each
# is sent XOFF before the storm is detected (with 200, the bound and the
# detection came at the same 100 ms, and a sender could miss its XOFF).
test_set_queue_watchdog() {
    local facts=$PFC_TMP/incast.json
    set_queue_setup 4 "pfc-enable=3,4 link-speed=1G queue-size=100 \
watchdog-detection-time=100" || return 1
    pfc_bg "$PFC_PY" "$PFC_PEER" scenario incast \
        --a "$(pfc_host_port A)" --b "$(pfc_host_port B)" \
        --sender "C=$(pfc_host_port C)@$(pfc_host_var C MAC)" \
        --frames tagged --speed-a 1G --speed-b 1G --rate 1000 \
        --cycles 2 --pause-ms 500 --resume-ms 300 --pause-prios 4 \
        --facts "$facts"
    wait "$PFC_LAST_PID"
    check "incast scenario: every p3 frame of A and C at B, in order" \
        "$?" -eq 0
    pfc_show
    pfc_stats_refresh
    check "dpdk-b storms detected on p4" "$(set_queue_storms 4)" -ge 1
    check "dpdk-b storms detected on p3" "$(set_queue_storms 3)" -eq 0
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    [ "$FAILS" -eq 0 ]
}

# set_queue_storms PRIO: storms detected on PRIO at dpdk-b (pfc/show).
set_queue_storms() {
    pfc_appctl pfc/show dpdk-b \
        | sed -n "s/^ *watchdog p$1: [a-z]*, storms detected \([0-9]*\),.*/\1/p"
}

