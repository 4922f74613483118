# Shell library shared by utilities/ovs-pfc-demo and tests/system/run.sh:
# prerequisites, hugepages, hosts in network namespaces on veth pairs (A
# and B, and on demand C, D and E), an ovs-vswitchd with DPDK run from a
# build tree in a private directory, PFC QoS, statistics and tshark
# captures.  Source it; it defines functions only (plus a few variables)
# and changes nothing until called.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.
#
# Topology made by pfc_setup, three network namespaces:
#
#   netns A: $PFC_IF_A1 (MAC 02:00:00:00:0a:01)
#       <-veth-> $PFC_IF_A0 = dpdk-a (net_af_packet0)   [netns S, br0]
#   netns B: $PFC_IF_B1 (MAC 02:00:00:00:0b:01)
#       <-veth-> $PFC_IF_B0 = dpdk-b (net_af_packet1)   [netns S, br0]
#
# ovsdb-server and ovs-vswitchd run in netns S: the userspace datapath
# makes tap devices named "ovs-netdev" and "br0", which would clash with
# any other userspace-datapath OVS in the same namespace (another test run,
# "make check").
#
# Flows: in_port=dpdk-a -> dpdk-b and in_port=dpdk-b -> dpdk-a.
#
# A test may add more hosts, each with pfc_net_add_host X and, for a port
# on br0, pfc_port_host X (pfc_net_add_c and pfc_port_c are host C's):
#
#   netns C: $PFC_IF_C1 (MAC 02:00:00:00:0c:01)
#       <-veth-> $PFC_IF_C0 = dpdk-c (net_af_packet2)   [netns S, br0]
#   netns D: $PFC_IF_D1 (MAC 02:00:00:00:0d:01)
#       <-veth-> $PFC_IF_D0 = dpdk-d (net_af_packet3)   [netns S, br0]
#   netns E: $PFC_IF_E1 (MAC 02:00:00:00:0e:01)
#       <-veth-> $PFC_IF_E0 = dpdk-e (net_af_packet4)   [netns S, br0]
#
# with no flows of their own.
#
# Every object made here is undone by pfc_cleanup, which pfc_setup installs
# as the EXIT trap of the calling (sub)shell.  Background processes started
# through pfc_bg are stopped by PID.

PFC_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PFC_REPO=$(cd "$PFC_LIB_DIR/../.." && pwd)
PFC_PY=/usr/bin/python3
PFC_PEER="$PFC_REPO/utilities/pfc_peer.py"
PFC_MAC_A=02:00:00:00:0a:01
PFC_MAC_B=02:00:00:00:0b:01
PFC_MAC_C=02:00:00:00:0c:01
PFC_MAC_D=02:00:00:00:0d:01
PFC_MAC_E=02:00:00:00:0e:01
# The hosts that pfc_net_add_host may add, besides A and B.
PFC_EXTRA_HOSTS="C D E"
PFC_HUGEPAGES=${PFC_HUGEPAGES:-512}        # 2 MB pages wanted in total
PFC_HUGEPAGES_FREE=${PFC_HUGEPAGES_FREE:-128}  # of which free for us
PFC_PMD_MASK=${PFC_PMD_MASK:-0x2}
# Appended to the devargs of dpdk-a and dpdk-b (pfc_bridge_setup), e.g.
# ",qpairs=3" for three rx/tx queue pairs.
PFC_DEVARGS=${PFC_DEVARGS:-}
PFC_BG_PIDS=()
PFC_TMP=
PFC_OVS=

# pfc_lock_held_by_ancestor LOCK: true if an ancestor of this shell is
# "flock LOCK CMD" ("flock /tmp/pfc-ovs.lock make bench"), which holds LOCK
# for as long as this shell runs: a second flock of it would wait for ever.
pfc_lock_held_by_ancestor() {
    local pid=$PPID cmd
    while [ -n "$pid" ] && [ "$pid" -gt 1 ]; do
        cmd=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)
        case $cmd in
            flock*"$1"*) return 0 ;;
        esac
        pid=$(awk '/^PPid:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
    done
    return 1
}

pfc_log() { printf '%s\n' "$*"; }
pfc_err() { printf 'ERROR: %s\n' "$*" >&2; }

# pfc_ids [ID]: names of namespaces and veths for this run.  IDs keep
# concurrent runs (demo, tests, another developer) apart; names stay within
# the 15-character interface name limit.
pfc_ids() {
    PFC_ID=${1:-${PFC_ID:-$(( $$ % 100000 ))}}
    PFC_NS_A=pfcA$PFC_ID
    PFC_NS_B=pfcB$PFC_ID
    PFC_NS_S=pfcS$PFC_ID
    PFC_IF_A0=pfa${PFC_ID}r
    PFC_IF_A1=pfa${PFC_ID}h
    PFC_IF_B0=pfb${PFC_ID}r
    PFC_IF_B1=pfb${PFC_ID}h
    PFC_NS_C=pfcC$PFC_ID
    PFC_IF_C0=pfc${PFC_ID}r
    PFC_IF_C1=pfc${PFC_ID}h
    PFC_NS_D=pfcD$PFC_ID
    PFC_IF_D0=pfd${PFC_ID}r
    PFC_IF_D1=pfd${PFC_ID}h
    PFC_NS_E=pfcE$PFC_ID
    PFC_IF_E0=pfe${PFC_ID}r
    PFC_IF_E1=pfe${PFC_ID}h
}

# pfc_prereqs [OVS_TREE]: checks that everything needed is present; names
# the Debian package of each missing piece.  Returns 1 if anything is
# missing.
pfc_prereqs() {
    local ovs=$1 bad=0 bin
    if [ "$(id -u)" != 0 ]; then
        pfc_err "must run as root (namespaces, veths, hugepages, DPDK)"
        bad=1
    fi
    _pfc_need() {       # command package
        if ! command -v "$1" >/dev/null 2>&1; then
            pfc_err "'$1' not found: install the Debian package $2"
            bad=1
        fi
    }
    _pfc_need ip iproute2
    _pfc_need sysctl procps
    _pfc_need timeout coreutils
    _pfc_need taskset util-linux
    _pfc_need tshark tshark
    _pfc_need dumpcap wireshark-common
    if [ ! -x "$PFC_PY" ]; then
        pfc_err "$PFC_PY not found: install the Debian package python3"
        bad=1
    elif ! "$PFC_PY" -c 'import scapy.all, scapy.contrib.mac_control' \
            >/dev/null 2>&1; then
        pfc_err "scapy not importable by $PFC_PY: install the Debian" \
                "package python3-scapy"
        bad=1
    fi
    if [ -n "$ovs" ]; then
        for bin in ovsdb/ovsdb-tool ovsdb/ovsdb-server vswitchd/ovs-vswitchd \
                   utilities/ovs-vsctl utilities/ovs-appctl \
                   utilities/ovs-ofctl; do
            if [ ! -x "$ovs/$bin" ]; then
                pfc_err "$ovs/$bin missing: build Open vSwitch with DPDK" \
                        "in $ovs first"
                bad=1
            fi
        done
        if [ ! -f "$ovs/vswitchd/vswitch.ovsschema" ]; then
            pfc_err "$ovs/vswitchd/vswitch.ovsschema missing"
            bad=1
        fi
    fi
    return $bad
}

# pfc_hugepages: makes sure 2 MB hugepages are reserved and hugetlbfs is
# mounted at /dev/hugepages.  Fails with a message if that is impossible.
pfc_hugepages() {
    local f=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
    local total free want
    if [ ! -e "$f" ]; then
        pfc_err "this kernel has no 2 MB hugepages ($f missing)"
        return 1
    fi
    total=$(cat "$f")
    free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages)
    want=$total
    [ "$want" -lt "$PFC_HUGEPAGES" ] && want=$PFC_HUGEPAGES
    [ $((want - total + free)) -lt "$PFC_HUGEPAGES_FREE" ] && \
        want=$((total - free + PFC_HUGEPAGES_FREE))
    if [ "$want" -ne "$total" ]; then
        echo "$want" > "$f" 2>/dev/null
        total=$(cat "$f")
        free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages)
    fi
    if [ "$free" -lt "$PFC_HUGEPAGES_FREE" ]; then
        pfc_err "only $free free 2 MB hugepages (of $total); need" \
                "$PFC_HUGEPAGES_FREE: free memory or raise $f"
        return 1
    fi
    if ! grep -q '^[^ ]* /dev/hugepages hugetlbfs' /proc/mounts; then
        mkdir -p /dev/hugepages
        if ! mount -t hugetlbfs none /dev/hugepages; then
            pfc_err "cannot mount hugetlbfs on /dev/hugepages"
            return 1
        fi
    fi
    return 0
}

# pfc_bg CMD...: runs CMD in the background and remembers its PID, so that
# pfc_cleanup stops it.  Sets PFC_LAST_PID.  CMD must be a program, not a
# shell function, so that the PID is the program's own and signals reach it.
pfc_bg() {
    "$@" &
    PFC_LAST_PID=$!
    PFC_BG_PIDS+=("$PFC_LAST_PID")
}

# pfc_stop_pid PID [SIGNAL]: stops one process we started, politely first.
pfc_stop_pid() {
    local pid=$1 sig=${2:-TERM} i
    [ -n "$pid" ] || return 0
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
    kill -"$sig" "$pid" 2>/dev/null
    for i in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}

# pfc_tmp: private directory for the OVS database, sockets, logs, captures.
pfc_tmp() {
    PFC_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ovs-pfc.XXXXXX") || return 1
    export OVS_RUNDIR=$PFC_TMP OVS_LOGDIR=$PFC_TMP OVS_DBDIR=$PFC_TMP
    export OVS_SYSCONFDIR=$PFC_TMP OVS_PKGDATADIR=$PFC_TMP
}

# pfc_net_setup [loop]: namespaces S (the switch), A and B and their veths.
# With "loop", A and B are the two ends of one veth pair (no switch), for
# checking the tools themselves.
pfc_net_setup() {
    local mode=$1 ns ifc
    pfc_net_teardown
    ip netns add "$PFC_NS_A" || return 1
    ip netns add "$PFC_NS_B" || return 1
    if [ "$mode" = loop ]; then
        ip link add "$PFC_IF_A1" netns "$PFC_NS_A" type veth \
            peer name "$PFC_IF_B1" netns "$PFC_NS_B" || return 1
    else
        ip netns add "$PFC_NS_S" || return 1
        ip netns exec "$PFC_NS_S" sysctl -qw \
            net.ipv6.conf.default.disable_ipv6=1
        ip link add "$PFC_IF_A0" netns "$PFC_NS_S" type veth \
            peer name "$PFC_IF_A1" netns "$PFC_NS_A" || return 1
        ip link add "$PFC_IF_B0" netns "$PFC_NS_S" type veth \
            peer name "$PFC_IF_B1" netns "$PFC_NS_B" || return 1
        for ifc in "$PFC_IF_A0" "$PFC_IF_B0"; do
            ip netns exec "$PFC_NS_S" sysctl -qw \
                "net.ipv6.conf.$ifc.disable_ipv6=1"
            ip -n "$PFC_NS_S" link set "$ifc" up || return 1
        done
        ip -n "$PFC_NS_S" link set lo up
    fi
    for ns in "$PFC_NS_A" "$PFC_NS_B"; do
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
        ip -n "$ns" link set lo up
    done
    ip netns exec "$PFC_NS_A" sysctl -qw \
        "net.ipv6.conf.$PFC_IF_A1.disable_ipv6=1"
    ip netns exec "$PFC_NS_B" sysctl -qw \
        "net.ipv6.conf.$PFC_IF_B1.disable_ipv6=1"
    ip -n "$PFC_NS_A" link set "$PFC_IF_A1" address "$PFC_MAC_A" up \
        || return 1
    ip -n "$PFC_NS_B" link set "$PFC_IF_B1" address "$PFC_MAC_B" up \
        || return 1
    return 0
}

# pfc_host_var X FIELD: the value of PFC_<FIELD> of host X, e.g.
# "pfc_host_var D NS" is $PFC_NS_D, "pfc_host_var D IF1" is $PFC_IF_D1 (IF0
# is the switch's end of its veth, in namespace S), "pfc_host_var D MAC" is
# $PFC_MAC_D.
pfc_host_var() {
    local v
    case $2 in
    NS|MAC) v=PFC_${2}_${1} ;;
    IF0|IF1) v=PFC_IF_${1}${2#IF} ;;
    *) pfc_err "pfc_host_var: no field $2"; return 1 ;;
    esac
    printf '%s\n' "${!v}"
}

# pfc_host_port X: host X's end of its veth as pfc_peer.py takes a port,
# NETNS:IFACE.
pfc_host_port() {
    printf '%s:%s\n' "$(pfc_host_var "$1" NS)" "$(pfc_host_var "$1" IF1)"
}

# pfc_net_add_host X: one more host, namespace X (one of PFC_EXTRA_HOSTS),
# MAC $PFC_MAC_X, on a veth to namespace S (made by pfc_net_setup first).
# pfc_net_teardown removes it.
pfc_net_add_host() {
    local x=$1 ns if0 if1 mac
    case " $PFC_EXTRA_HOSTS " in
    *" $x "*) ;;
    *) pfc_err "pfc_net_add_host: no host $x (one of $PFC_EXTRA_HOSTS)"
       return 1 ;;
    esac
    ns=$(pfc_host_var "$x" NS)
    if0=$(pfc_host_var "$x" IF0)
    if1=$(pfc_host_var "$x" IF1)
    mac=$(pfc_host_var "$x" MAC)
    ip netns add "$ns" || return 1
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
    ip -n "$ns" link set lo up
    ip link add "$if0" netns "$PFC_NS_S" type veth \
        peer name "$if1" netns "$ns" || return 1
    ip netns exec "$PFC_NS_S" sysctl -qw "net.ipv6.conf.$if0.disable_ipv6=1"
    ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$if1.disable_ipv6=1"
    ip -n "$PFC_NS_S" link set "$if0" up || return 1
    ip -n "$ns" link set "$if1" address "$mac" up || return 1
    return 0
}

# pfc_net_add_c: a third host, namespace C (pfc_net_add_host C).
pfc_net_add_c() {
    pfc_net_add_host C
}

# pfc_net_teardown: removes the namespaces of S, A, B and of every host
# pfc_net_add_host may have added, and their veths.  Each host's veth is
# deleted first, explicitly: deleting a namespace frees its veths only
# once nothing else holds it, and a socket does (a peer process that
# outlived its test).
pfc_net_teardown() {
    [ -n "$PFC_ID" ] || return 0
    local x
    for x in A B $PFC_EXTRA_HOSTS; do
        ip -n "$(pfc_host_var "$x" NS)" link del "$(pfc_host_var "$x" IF1)" \
            >/dev/null 2>&1
    done
    ip netns del "$PFC_NS_S" 2>/dev/null
    for x in A B $PFC_EXTRA_HOSTS; do
        ip netns del "$(pfc_host_var "$x" NS)" 2>/dev/null
    done
    return 0
}

# pfc_mac NS IFACE: the MAC address of IFACE in namespace NS.
pfc_mac() {
    ip netns exec "$1" cat "/sys/class/net/$2/address"
}

# OVS command wrappers: always the build tree's binaries, always with a
# timeout, always against our private directory.
pfc_vsctl() { "$PFC_OVS/utilities/ovs-vsctl" --timeout=30 "$@"; }
pfc_ofctl() { "$PFC_OVS/utilities/ovs-ofctl" "$@"; }
pfc_appctl() { "$PFC_OVS/utilities/ovs-appctl" --timeout=30 "$@"; }

# pfc_ovs_start OVS_TREE: database, ovsdb-server, DPDK config, ovs-vswitchd.
pfc_ovs_start() {
    PFC_OVS=$1
    local i
    "$PFC_OVS/ovsdb/ovsdb-tool" create "$PFC_TMP/conf.db" \
        "$PFC_OVS/vswitchd/vswitch.ovsschema" || return 1
    ip netns exec "$PFC_NS_S" \
    "$PFC_OVS/ovsdb/ovsdb-server" --remote="punix:$PFC_TMP/db.sock" \
        -vconsole:off --detach --pidfile --log-file --no-chdir \
        "$PFC_TMP/conf.db" \
        || { pfc_err "ovsdb-server did not start"; return 1; }
    pfc_vsctl --no-wait init || return 1
    pfc_vsctl --no-wait set Open_vSwitch . \
        other_config:dpdk-init=true \
        other_config:dpdk-extra="--no-pci" \
        other_config:per-port-memory=true \
        other_config:pmd-cpu-mask="$PFC_PMD_MASK" || return 1
    if [ -n "$PFC_OTHER_CONFIG" ]; then
        # shellcheck disable=SC2086
        pfc_vsctl --no-wait set Open_vSwitch . $PFC_OTHER_CONFIG || return 1
    fi
    if [ -n "$PFC_SOCKET_MEM" ]; then
        pfc_vsctl --no-wait set Open_vSwitch . \
            other_config:dpdk-socket-mem="$PFC_SOCKET_MEM" || return 1
    fi
    ip netns exec "$PFC_NS_S" \
    "$PFC_OVS/vswitchd/ovs-vswitchd" -vconsole:off --detach --pidfile \
        --log-file --no-chdir --disable-system \
        || { pfc_err "ovs-vswitchd did not start; log:"
             tail -20 "$PFC_TMP/ovs-vswitchd.log" >&2; return 1; }
    for i in $(seq 100); do
        [ "$(pfc_vsctl get Open_vSwitch . dpdk_initialized 2>/dev/null)" \
              = true ] && return 0
        sleep 0.2
    done
    pfc_err "DPDK did not initialise in ovs-vswitchd; log:"
    tail -20 "$PFC_TMP/ovs-vswitchd.log" >&2
    return 1
}

pfc_ovs_stop() {
    local d pid
    [ -n "$PFC_TMP" ] || return 0
    for d in ovs-vswitchd ovsdb-server; do
        [ -f "$PFC_TMP/$d.pid" ] || continue
        pid=$(cat "$PFC_TMP/$d.pid" 2>/dev/null)
        [ -n "$pid" ] || continue
        if kill -0 "$pid" 2>/dev/null; then
            timeout 10 "$PFC_OVS/utilities/ovs-appctl" --timeout=10 \
                -t "$PFC_TMP/$d.$pid.ctl" exit >/dev/null 2>&1
        fi
        pfc_stop_pid "$pid"
    done
    return 0
}

# pfc_bridge_setup: br0 with dpdk-a on $PFC_IF_A0 and dpdk-b on $PFC_IF_B0,
# and flows forwarding everything between them.
pfc_bridge_setup() {
    pfc_vsctl add-br br0 -- set bridge br0 datapath_type=netdev \
        || return 1
    pfc_vsctl add-port br0 dpdk-a -- set Interface dpdk-a type=dpdk \
        "options:dpdk-devargs=net_af_packet0,iface=$PFC_IF_A0$PFC_DEVARGS" \
        -- add-port br0 dpdk-b -- set Interface dpdk-b type=dpdk \
        "options:dpdk-devargs=net_af_packet1,iface=$PFC_IF_B0$PFC_DEVARGS" \
        || return 1
    local p err
    for p in dpdk-a dpdk-b; do
        err=$(pfc_vsctl get Interface "$p" error 2>/dev/null)
        if [ -n "$err" ] && [ "$err" != "[]" ]; then
            pfc_err "interface $p: $err"
            return 1
        fi
    done
    pfc_ofctl del-flows br0 || return 1
    pfc_ofctl add-flow br0 in_port=dpdk-a,actions=output:dpdk-b || return 1
    pfc_ofctl add-flow br0 in_port=dpdk-b,actions=output:dpdk-a || return 1
    return 0
}

# pfc_iface_ok IFACE: fails, with the Interface's error, if ovs-vswitchd
# could not open IFACE.
pfc_iface_ok() {
    local err
    err=$(pfc_vsctl get Interface "$1" error 2>/dev/null)
    if [ -n "$err" ] && [ "$err" != "[]" ]; then
        pfc_err "interface $1: $err"
        return 1
    fi
    return 0
}

# pfc_port_host X: port dpdk-x (x the lowercase X) on br0, on the switch's
# end of host X's veth (pfc_net_add_host X), no QoS, no flows.  Its DPDK
# device is net_af_packetN, N the host's place in A B C D E from 0 (A and
# B are net_af_packet0 and 1, pfc_bridge_setup), so that no two collide.
pfc_port_host() {
    local x=$1 l n
    l=$(tr '[:upper:]' '[:lower:]' <<<"$x")
    case $x in
    C) n=2 ;;
    D) n=3 ;;
    E) n=4 ;;
    *) pfc_err "pfc_port_host: no host $x (one of $PFC_EXTRA_HOSTS)"
       return 1 ;;
    esac
    pfc_vsctl add-port br0 "dpdk-$l" -- set Interface "dpdk-$l" type=dpdk \
        "options:dpdk-devargs=net_af_packet$n,iface=$(pfc_host_var "$x" IF0)" \
        || return 1
    pfc_iface_ok "dpdk-$l"
}

# pfc_port_c: dpdk-c on $PFC_IF_C0 (pfc_net_add_c), no QoS, no flows.
pfc_port_c() {
    pfc_port_host C
}

# pfc_qos PORT KEY=VALUE...: gives PORT a QoS of type pfc with the given
# other_config, and checks with pfc/show that ovs-vswitchd took it.  Unless
# a watchdog-* key is given, the PFC watchdog is off
# (watchdog-detection-time=0): most tests hold pauses for seconds on
# purpose, which the watchdog would take for a storm.
pfc_qos() {
    local port=$1 kv args=() out n0 n1 log=$PFC_TMP/ovs-vswitchd.log wd=0
    shift
    for kv in "$@"; do
        args+=("other_config:${kv%%=*}=\"${kv#*=}\"")
        case $kv in watchdog-*) wd=1 ;; esac
    done
    [ $wd -eq 1 ] || args+=("other_config:watchdog-detection-time=0")
    n0=$(grep -c 'QoS type pfc' "$log")
    pfc_vsctl -- set Port "$port" qos=@q -- --id=@q create QoS type=pfc \
        "${args[@]}" >/dev/null || return 1
    n1=$(grep -c 'QoS type pfc' "$log")
    if [ "$n1" -gt "$n0" ]; then
        pfc_err "QoS pfc on $port ($*) refused:"
        grep 'QoS type pfc' "$log" | tail -n $((n1 - n0)) >&2
        return 1
    fi
    if ! out=$(pfc_appctl pfc/show "$port" 2>&1) \
       || grep -q "refused\|no QoS pfc" <<<"$out"; then
        pfc_err "QoS pfc on $port ($*) not in effect:"
        printf '%s\n' "$out" >&2
        return 1
    fi
}

# pfc_pin: keeps this shell and everything it starts from now on (daemons,
# scapy peers, tshark) off the PMD cores of PFC_PMD_MASK.  On a small machine
# a PMD that shares its core gets preempted for milliseconds, and so does
# the kernel's delivery of frames on a busy core: at 10 Gb/s, where 65535
# quanta last 3.4 ms, that is enough for a partner's pause to lapse between
# two refreshes.  Real deployments isolate PMD cores for the same reason.
pfc_pin() {
    local cpus="" c n
    n=$(nproc --all 2>/dev/null || echo 1)
    for ((c = 0; c < n; c++)); do
        (( (PFC_PMD_MASK >> c) & 1 )) && continue
        cpus+=${cpus:+,}$c
    done
    PFC_CPUS=$cpus
    if [ -n "$cpus" ] && command -v taskset >/dev/null 2>&1; then
        taskset -p -c "$cpus" "$BASHPID" >/dev/null 2>&1 || true
    fi
    return 0
}

# pfc_setup OVS_TREE: everything, with cleanup on exit of the calling shell.
pfc_setup() {
    local ovs=$1
    trap pfc_cleanup EXIT
    trap 'exit 130' INT TERM
    pfc_prereqs "$ovs" || return 1
    pfc_pin
    pfc_hugepages || return 1
    pfc_ids
    pfc_tmp || return 1
    pfc_net_setup || { pfc_err "cannot create namespaces/veths"; return 1; }
    pfc_ovs_start "$ovs" || return 1
    pfc_bridge_setup || return 1
}

# pfc_cleanup: undoes pfc_setup, and stops everything pfc_bg started.  On
# a failure exit, shows the warnings and errors ovs-vswitchd logged.
pfc_cleanup() {
    local rc=$? pid
    if [ $rc -ne 0 ] && [ -n "$PFC_TMP" ] \
       && [ -f "$PFC_TMP/ovs-vswitchd.log" ]; then
        pfc_log "--- ovs-vswitchd warnings and errors (exit status $rc):"
        grep -E '\|(WARN|ERR|EMER)\|' "$PFC_TMP/ovs-vswitchd.log" \
            | grep -v -e 'No free 1048576 kB hugepages' \
                      -e 'No legacy callbacks' \
                      -e 'Rx checksum offload is not supported' | tail -20
    fi
    for pid in "${PFC_BG_PIDS[@]}"; do
        pfc_stop_pid "$pid"
    done
    PFC_BG_PIDS=()
    pfc_ovs_stop
    pfc_net_teardown
    if [ -n "$PFC_TMP" ] && [ -d "$PFC_TMP" ]; then
        if [ -n "$PFC_KEEP" ]; then
            pfc_log "kept $PFC_TMP"
        else
            rm -rf "$PFC_TMP"
        fi
    fi
    PFC_TMP=
}

# Statistics.  Interface statistics reach the database every
# stats-update-interval (at least 5000 ms); changing the interval makes
# ovs-vswitchd refresh them at once, so pfc_stats_refresh flips it between
# 5000 and 5001.
pfc_stats_refresh() {
    local cur next=5001
    cur=$(pfc_vsctl --if-exists get Open_vSwitch . \
              other_config:stats-update-interval 2>/dev/null | tr -d '"')
    [ "$cur" = 5001 ] && next=5000
    pfc_vsctl set Open_vSwitch . \
        other_config:stats-update-interval=$next >/dev/null
    sleep 0.3
}

# pfc_stat IFACE KEY: the value of statistics:KEY of IFACE as of the last
# refresh, or "absent".
pfc_stat() {
    local v
    v=$(pfc_vsctl --if-exists get Interface "$1" "statistics:$2" \
            2>/dev/null)
    echo "${v:-absent}"
}

# pfc_stat_until IFACE KEY BASE MIN: refreshes the statistics until KEY of
# IFACE is at least BASE + MIN, for up to 3 s (the bridge writes them to the
# database some time after a refresh, later on a loaded machine); prints
# the last value read, or "absent".
pfc_stat_until() {
    local v i
    for i in $(seq 10); do
        pfc_stats_refresh
        v=$(pfc_stat "$1" "$2")
        [ "$v" != absent ] && [ "$v" -ge $(($3 + $4)) ] && break
    done
    echo "$v"
}

# pfc_stats IFACE: all statistics of IFACE, KEY=VALUE one a line, refreshed.
pfc_stats() {
    pfc_stats_refresh
    pfc_vsctl get Interface "$1" statistics | tr -d '{} ' | tr ',' '\n'
}

# pfc_expect CHECK_NAME ACTUAL OP EXPECTED: prints ok/FAIL, returns status.
# OP is one of -eq -ne -ge -gt -le -lt.
pfc_expect() {
    local name=$1 actual=$2 op=$3 want=$4
    if [[ "$actual" =~ ^[0-9]+$ ]] && [ "$actual" "$op" "$want" ]; then
        pfc_log "ok: $name = $actual ($op $want)"
        return 0
    fi
    pfc_log "FAIL: $name = $actual, expected $op $want"
    return 1
}

# pfc_show [PORT]: ovs-appctl pfc/show, never failing the caller.
pfc_show() {
    pfc_appctl pfc/show "$@" 2>&1 || true
}

# pfc_scenario NAME ARGS...: runs a pfc_peer.py scenario across A and B.
pfc_scenario() {
    local name=$1
    shift
    "$PFC_PY" "$PFC_PEER" scenario "$name" \
        --a "$PFC_NS_A:$PFC_IF_A1" --b "$PFC_NS_B:$PFC_IF_B1" "$@"
}

# pfc_peer NS ARGS...: runs pfc_peer.py inside namespace NS.
pfc_peer() {
    local ns=$1
    shift
    ip netns exec "$ns" "$PFC_PY" "$PFC_PEER" "$@"
}

# pfc_bg_peer NS ARGS...: pfc_peer in the background (see pfc_bg).
pfc_bg_peer() {
    local ns=$1
    shift
    pfc_bg ip netns exec "$ns" "$PFC_PY" "$PFC_PEER" "$@"
}

# tshark captures of MAC Control frames (EtherType 0x8808, also behind a
# VLAN tag).  pfc_tshark_start NS IFACE FILE [FILTER]; FILTER replaces that
# capture filter, and an empty FILTER captures every frame.  Sets
# PFC_TSHARK_PID.
pfc_tshark_start() {
    local ns=$1 ifc=$2 out=$3 i
    local filter=${4-"ether proto 0x8808 or (vlan and ether proto 0x8808)"}
    local fargs=()
    [ -n "$filter" ] && fargs=(-f "$filter")
    if [ -z "$PFC_TMP" ] || [[ $out != "$PFC_TMP"/?* ]]; then
        pfc_err "capture file '$out' is not in the test's directory" \
            "'$PFC_TMP'"
        return 1
    fi
    pfc_bg ip netns exec "$ns" tshark -q -i "$ifc" "${fargs[@]}" \
        -w "$out" 2>"$out.log"
    PFC_TSHARK_PID=$PFC_LAST_PID
    for i in $(seq 100); do
        grep -q "Capturing on" "$out.log" 2>/dev/null && { sleep 0.3;
                                                           return 0; }
        kill -0 "$PFC_TSHARK_PID" 2>/dev/null || break
        sleep 0.1
    done
    pfc_err "tshark did not start capturing on $ns:$ifc:"
    cat "$out.log" >&2
    return 1
}

pfc_tshark_stop() {
    sleep 0.3
    pfc_stop_pid "$PFC_TSHARK_PID" INT
}

# The tshark fields of a PFC frame, as printed by pfc_tshark_pfc.
pfc_tshark_fields() {
    local n
    PFC_TSHARK_FIELDS=(-e frame.time_relative -e eth.src -e eth.dst
                       -e macc.opcode -e macc.cbfc.enbv)
    for n in 0 1 2 3 4 5 6 7; do
        PFC_TSHARK_FIELDS+=(-e "macc.cbfc.enbv.c$n")
    done
    for n in 0 1 2 3 4 5 6 7; do
        PFC_TSHARK_FIELDS+=(-e "macc.cbfc.pause_time.c$n")
    done
}

# pfc_tshark_live NS IFACE OUT [TSHARK_ARGS...]: tshark decoding MAC
# Control frames as they arrive, into OUT, in the background; waits until
# it captures.  Sets PFC_TSHARK_PID.
pfc_tshark_live() {
    local ns=$1 ifc=$2 out=$3 i
    shift 3
    pfc_bg ip netns exec "$ns" tshark -l -i "$ifc" \
        -f "ether proto 0x8808 or (vlan and ether proto 0x8808)" "$@" \
        >"$out" 2>"$out.log"
    PFC_TSHARK_PID=$PFC_LAST_PID
    for i in $(seq 100); do
        grep -q "Capturing on" "$out.log" 2>/dev/null && { sleep 0.3;
                                                           return 0; }
        kill -0 "$PFC_TSHARK_PID" 2>/dev/null || break
        sleep 0.1
    done
    pfc_err "tshark did not start capturing on $ns:$ifc:"
    cat "$out.log" >&2
    return 1
}

# pfc_tshark_bools: copies its input, with the booleans of "tshark -T
# fields" as 1 or 0, whatever the tshark: tshark 4 (Debian 13) prints them
# as True or False, tshark 3 (Debian 12) as 1 or 0.
pfc_tshark_bools() {
    sed -e 's/\bTrue\b/1/g' -e 's/\bFalse\b/0/g'
}

# pfc_tshark_pfc FILE: one line per PFC frame, as decoded by tshark's MAC
# Control dissector: time src dst opcode enable-vector c0..c7-enabled (1 or
# 0) time[0]..time[7].
pfc_tshark_pfc() {
    pfc_tshark_fields
    tshark -r "$1" -Y "macc.opcode == 0x0101" -T fields -E separator=' ' \
        "${PFC_TSHARK_FIELDS[@]}" 2>/dev/null | pfc_tshark_bools
}
