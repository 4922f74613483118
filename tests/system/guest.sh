# A virtual machine's network stack without a virtual machine, for the
# vhost-user system tests: dpdk-testpmd (Debian package dpdk-dev) with a
# virtio-user port is a real virtio-net driver on the vhost-user socket of an
# ovs-vswitchd port.  It forwards, in io mode, between that port and a
# net_af_packet port on the veth $PFC_IF_C0, whose other end is in namespace
# C (pfc_net_add_c), where the scapy peer sends and records.  Its
# interactive "stop" and "start" make a guest that stops and resumes reading
# its virtqueues.
#
# Sourced by run.sh after lib.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# pfc_guest_start SOCKET [client]: starts the guest on vhost-user SOCKET,
# forwarding.  With "client", the guest is the vhost-user server
# (server=1), for an OVS port of type dpdkvhostuserclient, and OVS connects
# to it.  The guest runs in namespace S (its net_af_packet port is
# $PFC_IF_C0 there), on the CPUs that are not PMD cores (pfc_pin), with 256
# hugepage MB of its own (--in-memory).  pfc_guest_wait waits for it.
pfc_guest_start() {
    local sock=$1 mode=$2 server="" lcores
    command -v dpdk-testpmd >/dev/null 2>&1 || {
        pfc_err "dpdk-testpmd not found: install the Debian package dpdk-dev"
        return 1
    }
    [ "$mode" = client ] && server=",server=1"
    PFC_GUEST_LOG=$PFC_TMP/guest.log
    PFC_GUEST_FIFO=$PFC_TMP/guest.fifo
    rm -f "$PFC_GUEST_FIFO"
    mkfifo "$PFC_GUEST_FIFO" || return 1
    # Both lcores on the first non-PMD CPU: the main one only reads
    # commands.
    lcores="0@${PFC_CPUS%%,*},1@${PFC_CPUS%%,*}"
    ip netns exec "$PFC_NS_S" stdbuf -oL dpdk-testpmd --lcores "$lcores" --no-pci \
        --in-memory --single-file-segments -m 256 --file-prefix "guest$$" \
        --vdev "net_virtio_user0,path=$sock,queues=1,queue_size=256$server" \
        --vdev "net_af_packet1,iface=$PFC_IF_C0" -- \
        -i --forward-mode=io --nb-cores=1 --txq=1 --rxq=1 \
        --no-lsc-interrupt --no-flush-rx <"$PFC_GUEST_FIFO" >"$PFC_GUEST_LOG" 2>&1 &
    PFC_GUEST_PID=$!
    PFC_BG_PIDS+=("$PFC_GUEST_PID")
    # Keep the FIFO open for writing, or testpmd reads end of file.
    exec {PFC_GUEST_FD}>"$PFC_GUEST_FIFO"
    return 0
}

# pfc_guest_wait: waits until the guest started by pfc_guest_start has
# attached its virtio port (in client mode, once ovs-vswitchd connected to
# it) and shows its prompt, then starts forwarding.
pfc_guest_wait() {
    local i
    for i in $(seq 300); do
        grep -q "^testpmd> " "$PFC_GUEST_LOG" 2>/dev/null && break
        kill -0 "$PFC_GUEST_PID" 2>/dev/null || break
        sleep 0.1
    done
    if ! grep -q "^testpmd> " "$PFC_GUEST_LOG" 2>/dev/null; then
        pfc_err "dpdk-testpmd (the guest) did not start; its log:"
        tail -20 "$PFC_GUEST_LOG" >&2
        return 1
    fi
    # A guest's network stack queues what its virtqueue refuses: testpmd's
    # io forwarding retries for up to 2 s instead of dropping at once.
    pfc_guest_cmd "set fwd io retry"
    pfc_guest_cmd "set burst tx delay 1000 retry 2000"
    pfc_guest_cmd "start"
    return 0
}

# pfc_guest_cmd COMMAND: sends COMMAND to the guest's testpmd prompt.
pfc_guest_cmd() {
    printf '%s\n' "$1" >&"$PFC_GUEST_FD"
}

# pfc_guest_stat PORT FIELD: the guest's counter FIELD (RX-packets,
# RX-missed, TX-packets, ...) of its port PORT (0 is virtio, 1 is the veth),
# read with "show port stats".  testpmd does not echo commands, so this
# waits for the block's last line ("Tx-pps") after the log's old end.
pfc_guest_stat() {
    local skip n
    skip=$(wc -l <"$PFC_GUEST_LOG")
    pfc_guest_cmd "show port stats $1"
    for n in $(seq 50); do
        tail -n +"$((skip + 1))" "$PFC_GUEST_LOG" | grep -q "Tx-pps" && break
        sleep 0.1
    done
    tail -n +"$((skip + 1))" "$PFC_GUEST_LOG" | awk -v f="$2:" '
        { for (i = 1; i < NF; i++) if ($i == f) { print $(i + 1); exit } }'
}

# pfc_guest_stop: quits the guest (pfc_cleanup also stops it).
pfc_guest_stop() {
    [ -n "$PFC_GUEST_PID" ] || return 0
    pfc_guest_cmd "quit" 2>/dev/null
    exec {PFC_GUEST_FD}>&- 2>/dev/null
    wait_pid "$PFC_GUEST_PID" 10
    PFC_GUEST_PID=
}
