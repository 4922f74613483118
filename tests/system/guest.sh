# Virtual machines' network stacks without virtual machines, for the
# vhost-user system tests: dpdk-testpmd (Debian package dpdk-dev) with a
# virtio-user port is a real virtio-net driver on the vhost-user socket of an
# ovs-vswitchd port.  It forwards, in io mode, between that port and a
# net_af_packet port on the switch's end of the veth of a host (lib.sh,
# pfc_net_add_host), where the scapy peer sends and records.  Its
# interactive "stop" and "start" make a guest that stops and resumes reading
# its virtqueues.
#
# Several guests may run at once.  Guest N (0, 1, 2) is bridged to host
# ${PFC_GUEST_HOSTS[N]}: guest 0 to C (veth $PFC_IF_C0), guest 1 to D
# ($PFC_IF_D0), guest 2 to E; the test adds that host first.  Every function
# takes the guest as an optional first argument "-g N" and defaults to guest
# 0, so that a test with one guest reads as before; guest 0's state is also
# in the variables PFC_GUEST_PID, PFC_GUEST_FD, PFC_GUEST_LOG and
# PFC_GUEST_FIFO.  Each guest has its own DPDK file prefix; reserves its own
# PFC_GUEST_MEM MB of hugepages at start (--in-memory: no file outlives
# it), in which its pool of PFC_GUEST_MBUFS mbufs fits, so that it does not
# grow past them; has its own log ($PFC_TMP/guest.log for guest 0,
# guestN.log for guest N) and command FIFO; and runs on a CPU that is not a
# PMD core (pfc_pin).  pfc_cleanup stops every guest (they are in
# PFC_BG_PIDS), also when a test fails.
#
# Sourced by run.sh after lib.sh, and by utilities/ovs-pfc-bench-vhost.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# The host that guest N forwards to.
PFC_GUEST_HOSTS=(C D E)
# Hugepage memory of each guest, MB (testpmd -m: reserved at start).
PFC_GUEST_MEM=${PFC_GUEST_MEM:-128}
# mbufs in each guest's pool (testpmd --total-num-mbufs), about 2.3 KB each.
# testpmd's default, sized for 32 ports, is 163456 mbufs (about 380 MB),
# which would grow past PFC_GUEST_MEM; what a guest here holds at most is its
# two virtqueues (256 each), a burst and the mempool caches.
PFC_GUEST_MBUFS=${PFC_GUEST_MBUFS:-16384}
# Queue pairs of a guest started from now on (virtio-user queues=, with a
# control virtqueue when more than 1, so that the guest tells the switch
# which pairs it uses, as a Linux guest's "ethtool -L" does).
PFC_GUEST_QUEUES=${PFC_GUEST_QUEUES:-1}
# Per guest, indexed by N.
PFC_GUEST_PIDS=()
PFC_GUEST_FDS=()
PFC_GUEST_LOGS=()
PFC_GUEST_FIFOS=()

# _pfc_guest_ok N: fails, with a message, unless N names a guest.
_pfc_guest_ok() {
    if [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -lt "${#PFC_GUEST_HOSTS[@]}" ]; then
        return 0
    fi
    pfc_err "no guest '$1' (guests are 0 to $((${#PFC_GUEST_HOSTS[@]} - 1)))"
    return 1
}

# _pfc_guest_running N: fails, with a message, unless guest N was started.
_pfc_guest_running() {
    _pfc_guest_ok "$1" || return 1
    if [ -z "${PFC_GUEST_PIDS[$1]}" ] || [ -z "${PFC_GUEST_FDS[$1]}" ]; then
        pfc_err "guest $1 is not running (pfc_guest_start -g $1 first)"
        return 1
    fi
    return 0
}

# pfc_guest_start [-g N] SOCKET [client]: starts guest N (default 0) on
# vhost-user SOCKET, forwarding.  With "client", the guest is the vhost-user
# server (server=1), for an OVS port of type dpdkvhostuserclient, and OVS
# connects to it.  The guest runs in namespace S; its net_af_packet port is
# the switch's end of the veth of host ${PFC_GUEST_HOSTS[N]}, which
# pfc_net_add_host must have made.  Both its lcores run on the Nth CPU (modulo
# their number) of those that are not PMD cores (PFC_CPUS, pfc_pin): the
# main lcore only reads commands.  PFC_GUEST_ARGS, if set, adds testpmd
# application arguments (split at blanks).  pfc_guest_wait waits for it.
pfc_guest_start() {
    local g=0 sock mode server="" host if0 cpus cpu lcores free log fifo fd
    local pid extra q=$PFC_GUEST_QUEUES cq=""
    if [ "$1" = -g ]; then
        g=$2
        shift 2
    fi
    sock=$1
    mode=$2
    _pfc_guest_ok "$g" || return 1
    command -v dpdk-testpmd >/dev/null 2>&1 || {
        pfc_err "dpdk-testpmd not found: install the Debian package dpdk-dev"
        return 1
    }
    if [ -z "$sock" ]; then
        pfc_err "pfc_guest_start: no vhost-user socket given for guest $g"
        return 1
    fi
    if [ -n "${PFC_GUEST_PIDS[$g]}" ]; then
        pfc_err "guest $g is already running (PID ${PFC_GUEST_PIDS[$g]})"
        return 1
    fi
    host=${PFC_GUEST_HOSTS[$g]}
    if0=$(pfc_host_var "$host" IF0) || return 1
    if ! ip -n "$PFC_NS_S" link show "$if0" >/dev/null 2>&1; then
        pfc_err "guest $g: no veth $if0 in namespace $PFC_NS_S: add host" \
                "$host first (pfc_net_add_host $host)"
        return 1
    fi
    read -ra cpus <<<"${PFC_CPUS//,/ }"
    if [ ${#cpus[@]} -eq 0 ]; then
        pfc_err "guest $g: no CPU outside the PMD cores (PFC_CPUS is empty;" \
                "pfc_pin sets it)"
        return 1
    fi
    cpu=${cpus[$((g % ${#cpus[@]}))]}
    lcores="0@$cpu,1@$cpu"
    free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages \
               2>/dev/null || echo 0)
    if [ $((free * 2)) -lt "$PFC_GUEST_MEM" ]; then
        pfc_err "guest $g needs $PFC_GUEST_MEM MB of 2 MB hugepages; only" \
                "$free pages are free"
        return 1
    fi
    [ "$mode" = client ] && server=",server=1"
    [ "$q" -gt 1 ] && cq=",cq=1"
    read -ra extra <<<"${PFC_GUEST_ARGS:-}"
    if [ "$g" -eq 0 ]; then
        log=$PFC_TMP/guest.log
        fifo=$PFC_TMP/guest.fifo
    else
        log=$PFC_TMP/guest$g.log
        fifo=$PFC_TMP/guest$g.fifo
    fi
    rm -f "$fifo"
    mkfifo "$fifo" || return 1
    (
        # Not the other guests' command FIFOs: a guest's must be closed
        # by this shell alone (pfc_guest_stop).
        for fd in "${PFC_GUEST_FDS[@]}"; do
            [ -n "$fd" ] && exec {fd}>&-
        done
        exec ip netns exec "$PFC_NS_S" stdbuf -oL dpdk-testpmd \
            --lcores "$lcores" --no-pci --in-memory --single-file-segments \
            -m "$PFC_GUEST_MEM" --file-prefix "pfc-guest$g-$$" \
            --vdev "net_virtio_user0,path=$sock,queues=$q,queue_size=256$cq$server" \
            --vdev "net_af_packet1,iface=$if0,qpairs=$q" -- \
            -i --forward-mode=io --nb-cores=1 --txq="$q" --rxq="$q" \
            --total-num-mbufs="$PFC_GUEST_MBUFS" \
            --no-lsc-interrupt --no-flush-rx "${extra[@]}"
    ) <"$fifo" >"$log" 2>&1 &
    pid=$!
    PFC_BG_PIDS+=("$pid")
    # Keep the FIFO open for writing, or testpmd reads end of file.
    exec {fd}>"$fifo"
    PFC_GUEST_PIDS[g]=$pid
    PFC_GUEST_FDS[g]=$fd
    PFC_GUEST_LOGS[g]=$log
    PFC_GUEST_FIFOS[g]=$fifo
    # shellcheck disable=SC2034  # guest 0's state, for the tests' use
    if [ "$g" -eq 0 ]; then
        PFC_GUEST_PID=$pid
        PFC_GUEST_FD=$fd
        PFC_GUEST_LOG=$log
        PFC_GUEST_FIFO=$fifo
    fi
    return 0
}

# pfc_guest_wait [-g N]: waits until guest N, started by pfc_guest_start, has
# attached its virtio port (in client mode, once ovs-vswitchd connected to
# it) and shows its prompt, then starts forwarding.
pfc_guest_wait() {
    local g=0 log pid
    if [ "$1" = -g ]; then
        g=$2
        shift 2
    fi
    _pfc_guest_running "$g" || return 1
    log=${PFC_GUEST_LOGS[$g]}
    pid=${PFC_GUEST_PIDS[$g]}
    for _ in $(seq 300); do
        grep -q "^testpmd> " "$log" 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if ! grep -q "^testpmd> " "$log" 2>/dev/null; then
        pfc_err "dpdk-testpmd (guest $g) did not start; its log:"
        tail -20 "$log" >&2
        return 1
    fi
    # A guest's network stack queues what its virtqueue refuses: testpmd's
    # io forwarding retries for up to 2 s instead of dropping at once.
    pfc_guest_cmd -g "$g" "set fwd io retry"
    pfc_guest_cmd -g "$g" "set burst tx delay 1000 retry 2000"
    pfc_guest_cmd -g "$g" "start"
    return 0
}

# pfc_guest_cmd [-g N] COMMAND: sends COMMAND to guest N's testpmd prompt.
pfc_guest_cmd() {
    local g=0
    if [ "$1" = -g ]; then
        g=$2
        shift 2
    fi
    _pfc_guest_running "$g" || return 1
    if ! kill -0 "${PFC_GUEST_PIDS[$g]}" 2>/dev/null; then
        pfc_err "guest $g (PID ${PFC_GUEST_PIDS[$g]}) has exited; its log:"
        tail -20 "${PFC_GUEST_LOGS[$g]}" >&2
        return 1
    fi
    # In a subshell: if the guest is gone, SIGPIPE ends that, not the test.
    ( printf '%s\n' "$1" >&"${PFC_GUEST_FDS[$g]}" ) 2>/dev/null
}

# pfc_guest_cmd_wait [-g N] COMMAND PATTERN [SECONDS]: sends COMMAND to guest
# N and waits up to SECONDS (default 10) for PATTERN (grep) in what it
# prints after it, e.g. "Done\." after "stop" (testpmd prints it once its
# forwarding lcore stopped).  Fails, with the end of its log, if none came.
pfc_guest_cmd_wait() {
    local g=0 log skip
    if [ "$1" = -g ]; then
        g=$2
        shift 2
    fi
    _pfc_guest_running "$g" || return 1
    log=${PFC_GUEST_LOGS[$g]}
    skip=$(wc -l <"$log")
    pfc_guest_cmd -g "$g" "$1" || return 1
    for _ in $(seq $((${3:-10} * 10))); do
        tail -n +"$((skip + 1))" "$log" | grep -q -- "$2" && return 0
        kill -0 "${PFC_GUEST_PIDS[$g]}" 2>/dev/null || break
        sleep 0.1
    done
    pfc_err "guest $g printed no \"$2\" after \"$1\"; its log:"
    tail -20 "$log" >&2
    return 1
}

# pfc_guest_stat [-g N] PORT FIELD: guest N's counter FIELD (RX-packets,
# RX-missed, TX-packets, ...) of its port PORT (0 is virtio, 1 is the veth),
# read with "show port stats".  testpmd does not echo commands, so this
# waits for the block's last line ("Tx-pps") after the log's old end.
pfc_guest_stat() {
    local g=0 log skip
    if [ "$1" = -g ]; then
        g=$2
        shift 2
    fi
    _pfc_guest_running "$g" || return 1
    log=${PFC_GUEST_LOGS[$g]}
    skip=$(wc -l <"$log")
    pfc_guest_cmd -g "$g" "show port stats $1"
    for _ in $(seq 50); do
        tail -n +"$((skip + 1))" "$log" | grep -q "Tx-pps" && break
        sleep 0.1
    done
    tail -n +"$((skip + 1))" "$log" | awk -v f="$2:" '
        { for (i = 1; i < NF; i++) if ($i == f) { print $(i + 1); exit } }'
}

# pfc_guest_stop [-g N]: quits guest N (pfc_cleanup also stops it).
pfc_guest_stop() {
    local g=0 pid fd
    if [ "$1" = -g ]; then
        g=$2
        shift 2
    fi
    _pfc_guest_ok "$g" || return 1
    pid=${PFC_GUEST_PIDS[$g]}
    [ -n "$pid" ] || return 0
    fd=${PFC_GUEST_FDS[$g]}
    if [ -n "$fd" ]; then
        ( printf 'quit\n' >&"$fd" ) 2>/dev/null
        exec {fd}>&-
    fi
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    pfc_stop_pid "$pid"
    rm -f "${PFC_GUEST_FIFOS[$g]}"
    PFC_GUEST_PIDS[g]=
    PFC_GUEST_FDS[g]=
    # shellcheck disable=SC2034
    if [ "$g" -eq 0 ]; then
        PFC_GUEST_PID=
        PFC_GUEST_FD=
    fi
    return 0
}

# pfc_guest_stop_all: quits every guest that runs.
pfc_guest_stop_all() {
    local g
    for g in "${!PFC_GUEST_PIDS[@]}"; do
        pfc_guest_stop -g "$g"
    done
    return 0
}
