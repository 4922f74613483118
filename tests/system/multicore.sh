# System tests with two PMD threads and two rx queues, and a second rx
# queue that reads PFC frames, sourced by tests/system/run.sh.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

# Several PMD threads and rx queues.  multicore MODE: two PMD threads
# (pmd-cpu-mask 0x3), dpdk-a and dpdk-b net_af_packet ports with Q queue
# pairs, all Q rx queues polled (options:n_rxq=Q: net_af_packet puts every
# queue's socket in one PACKET_FANOUT_HASH group whatever the number of rx
# queues configured, so an unpolled queue would swallow the flows hashed to
# it, PFC frames included).  MODE is
#   static: Q=3, 3 tx queues >= 2 PMD threads + 1: a tx queue per thread;
#   xps:    Q=2, 2 tx queues < 3: dynamic (XPS) tx queues;
#   hash:   Q=2 and other_config:tx-steering=hash on dpdk-b;
#   ctrl:   Q=4: the datapath's 3 tx queues, and a fourth that PFC frames
#           leave from (pfc/show's "the PFC frames' own"), which must send
#           every PFC frame of dpdk-a.  In the other modes there is none to
#           spare, and PFC frames leave from the data tx queues.
# A sends 12 lossless p3 flows and a lossy p0 flow, IPv4/UDP from distinct
# source ports, so that the kernel's flow hash spreads them over dpdk-a's rx
# queues and so over both PMD threads; A honours dpdk-a's PFC frames.  B
# pauses p3 at dpdk-b 24 times (every third pause ends by expiry, the others
# by XON; every eighth lasts 700 ms), so packets are held and released by
# both threads many times.  pfc_peer.py's multiflow scenario checks at B
# that no flow is reordered and no p3 frame lost; here the counters: no hold
# drop, dpdk-b counted each PFC frame B sent (whichever rx queue read it),
# A got each PFC frame dpdk-a sent, and nothing is left held or charged.
# Only order, loss and counters are asserted, never timing.
# dpif/show: "dpdk-b 2/2: (dpdk: configured_rx_queues=2, ...)" in Open
# vSwitch 3.1; 3.5 has the queues in force in the Interface's status
# (n_rxq, n_txq) and does not report the tx queues requested.
multicore_cfg_of() {        # multicore_cfg_of PORT KEY
    local v
    v=$(pfc_appctl dpif/show | sed -n \
        "s/^[[:space:]]*$1 [0-9]*\/[0-9]*: .*[(, ]$2=\([0-9]*\)[,)].*/\1/p")
    if [ -z "$v" ]; then
        case $2 in
        configured_rx_queues) v=$(pfc_vsctl get Interface "$1" \
                                      status:n_rxq 2>/dev/null) ;;
        configured_tx_queues) v=$(pfc_vsctl get Interface "$1" \
                                      status:n_txq 2>/dev/null) ;;
        esac
    fi
    echo "${v//\"/}"
}

# The fact KEY of the multiflow scenario's facts file FACTS, or "absent".
multicore_fact() {          # multicore_fact FACTS KEY
    "$PFC_PY" -c 'import json, sys
print(json.load(open(sys.argv[1])).get(sys.argv[2], "absent"))' \
        "$1" "$2" 2>/dev/null || echo absent
}

# Checks that dpdk-a and dpdk-b run Q rx queues and TQ tx queues in tx
# queue mode MODE, and that both PMD threads poll rx queues of each.
multicore_queues() {        # multicore_queues MODE Q TQ
    local mode=$1 q=$2 tq=$3 f p out pmds
    for f in $(seq 50); do
        [ "$(multicore_cfg_of dpdk-a configured_rx_queues)" = "$q" ] \
            && [ "$(multicore_cfg_of dpdk-b configured_rx_queues)" = "$q" ] \
            && [ "$(pfc_appctl dpif-netdev/pmd-rxq-show | grep -c 'port: dpdk-')" = $((2 * q)) ] \
            && break
        sleep 0.2
    done
    pfc_log "dpif/show:"
    pfc_appctl dpif/show | grep -E 'dpdk-[ab]'
    for p in dpdk-a dpdk-b; do
        check "$p configured_rx_queues" \
            "$(multicore_cfg_of $p configured_rx_queues)" -eq "$q"
        check "$p configured_tx_queues" \
            "$(multicore_cfg_of $p configured_tx_queues)" -eq "$tq"
    done
    # dpif-netdev wants a tx queue per PMD thread plus one (the main
    # thread's): requested_tx_queues 3.  Fewer configured: XPS (or hash).
    if pfc_appctl dpif/show | grep -q requested_tx_queues; then
        check "dpdk-b requested_tx_queues (2 PMD threads + 1)" \
            "$(multicore_cfg_of dpdk-b requested_tx_queues)" -eq 3
    else
        pfc_log "dpdk-b requested_tx_queues: not reported by this Open" \
                "vSwitch (3.5); the tx queue mode below is checked instead"
    fi
    f=$(multicore_cfg_of dpdk-b configured_tx_queues)
    case $mode in
    static|ctrl) pfc_log "tx queue mode of dpdk-b: static (configured" \
                "$f >= requested 3)" ;;
    xps)    pfc_log "tx queue mode of dpdk-b: XPS (configured $f <" \
                "requested 3, no tx-steering=hash)"
            run_or_fail "log: no tx steering 'hash' set" bash -c \
                "! grep -q \"dpdk-b: Tx packet steering mode has been set to 'hash'\" '$PFC_TMP/ovs-vswitchd.log'" ;;
    hash)   run_or_fail "log: dpdk-b tx steering mode 'hash'" grep -q \
                "dpdk-b: Tx packet steering mode has been set to 'hash'" \
                "$PFC_TMP/ovs-vswitchd.log"
            grep "Tx packet steering mode" "$PFC_TMP/ovs-vswitchd.log" ;;
    esac

    # The rx queues, spread over the two PMD threads (cores 0 and 1).
    out=$(pfc_appctl dpif-netdev/pmd-rxq-show)
    pfc_log "pmd-rxq-show:"
    pfc_log "$out"
    pmds=$(awk '/^pmd thread/ { print }' <<<"$out" | grep -c .)
    check "PMD threads" "$pmds" -eq 2
    check "rx queues of dpdk-a and dpdk-b polled" \
        "$(grep -c 'port: dpdk-[ab] .*queue-id: .*(enabled)' <<<"$out")" \
        -eq $((2 * q))
    check "PMD threads polling rx queues of dpdk-a" \
        "$(awk '/^pmd thread/ { core = $NF } /port: dpdk-a / { c[core] = 1 }
                END { print length(c) }' <<<"$out")" -eq 2
    check "PMD threads polling rx queues of dpdk-b" \
        "$(awk '/^pmd thread/ { core = $NF } /port: dpdk-b / { c[core] = 1 }
                END { print length(c) }' <<<"$out")" -eq 2
}

# The counters after the multiflow scenario of mode MODE, against its facts
# in FACTS: no hold drop, every PFC frame counted on both sides, nothing
# left held or charged.
multicore_counters() {      # multicore_counters MODE FACTS
    local mode=$1 facts=$2 out rx_a n p

    fact() { multicore_fact "$facts" "$1"; }

    # Both PMD threads forwarded A's frames.
    out=$(pfc_appctl dpif-netdev/pmd-stats-show)
    pfc_log "pmd-stats-show (packets received, per thread):"
    awk '/thread/ { t = $0 } /packets received:/ { print t, $0 }' \
        <<<"$out"
    rx_a=$(awk '/thread/ { pmd = /^pmd thread/ }
                pmd && /packets received:/ && $3 > 0 { n++ }
                END { print n + 0 }' <<<"$out")
    check "PMD threads that received packets" "$rx_a" -eq 2

    pfc_show
    pfc_stats_refresh
    out=$(pfc_show)
    check "pfc/show priority rows (2 ports x 8)" \
        "$(grep -cE '^  p[0-7] ' <<<"$out")" -eq 16
    check "dpdk-b held p3 packets at the end" "$(held_p3)" -eq 0
    check "dpdk-a ingress charge of p3 at the end (packets)" \
        "$(pfc_show dpdk-a | awk '$1 == "p3" { print $8 }')" -eq 0
    run_or_fail "dpdk-a asserts no XOFF at the end" test \
        "$(pfc_show dpdk-a | awk '$1 == "p3" { print $9 }')" = no
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    check "dpdk-b pfc_rx_frames_p3 = PFC frames B sent ($(fact b_pfc))" \
        "$(pfc_stat dpdk-b pfc_rx_frames_p3)" -eq "$(fact b_pfc)"
    n=$(fact cycles)
    check "dpdk-b pfc_pause_transitions_p3 (of $n pauses) at least" \
        "$(pfc_stat dpdk-b pfc_pause_transitions_p3)" -ge $((n / 2))
    check "dpdk-b pfc_pause_transitions_p3 (of $n pauses) at most" \
        "$(pfc_stat dpdk-b pfc_pause_transitions_p3)" -le "$n"
    check "dpdk-a pfc_tx_frames_p3 (XOFF triggered)" \
        "$(pfc_stat dpdk-a pfc_tx_frames_p3)" -ge 2
    check "dpdk-a pfc_tx_frames_p3 = PFC frames A received ($(fact \
xoff_rx_at_a) XOFF + $(fact xon_rx_at_a) XON)" \
        "$(pfc_stat dpdk-a pfc_tx_frames_p3)" -eq "$(fact pfc_rx_at_a)"
    check "XON frames A received" "$(fact xon_rx_at_a)" -ge 1
    if [ "$mode" = ctrl ]; then
        # Every PFC frame that dpdk-a sent left from its fourth tx queue.
        out=$(pfc_show dpdk-a | sed -n "s/.*the PFC frames' own, \([0-9]*\) sent there.*/\1/p")
        check "dpdk-a PFC frames sent on tx queue 3 = pfc_tx_frames_p3" \
            "${out:-0}" -eq "$(pfc_stat dpdk-a pfc_tx_frames_p3)"
    fi
    for p in 0 1 2 4 5 6 7; do
        check "dpdk-a pfc_tx_frames_p$p" \
            "$(pfc_stat dpdk-a pfc_tx_frames_p$p)" -eq 0
    done
    check "dpdk-b pfc_hold_drops_p0" "$(pfc_stat dpdk-b pfc_hold_drops_p0)" \
        -eq 0
    pfc_log "lossy p0: B got $(fact lossy_got) of $(fact lossy_sent);" \
        "dpdk-b tx_dropped $(pfc_stat dpdk-b tx_dropped)," \
        "dpdk-a rx_dropped $(pfc_stat dpdk-a rx_dropped)"
    pfc_log "summary: $(fact flows) p3 flows + 1 p0 flow, $(fact \
per_flow_sent) frames per flow, $(fact cycles) pauses ($(fact cycles_xon)\
 XON, $(fact cycles_expiry) expiry), reorders $(fact reorders), p3 losses\
 $(fact missing_p3)"
}

multicore() {
    local mode=$1 q=2 tq facts out n
    [ "$mode" = static ] && q=3
    [ "$mode" = ctrl ] && q=4
    tq=$((q > 3 ? 3 : q))       # The datapath's tx queues.
    PFC_PMD_MASK=0x3
    PFC_DEVARGS=",qpairs=$q"
    n=$(nproc --all 2>/dev/null || echo 1)
    if [ "$n" -lt 2 ]; then
        pfc_log "FAIL: this test needs 2 CPUs for 2 PMD threads (has $n)"
        return 1
    fi
    pfc_setup "$OVS" || return 1
    facts=$PFC_TMP/multiflow.json
    pfc_vsctl set Interface dpdk-a "options:n_rxq=$q" \
        -- set Interface dpdk-b "options:n_rxq=$q" || return 1
    if [ "$mode" = hash ]; then
        pfc_vsctl set Interface dpdk-b other_config:tx-steering=hash \
            || return 1
    fi
    pfc_iface_ok dpdk-a || return 1
    pfc_iface_ok dpdk-b || return 1
    multicore_queues "$mode" "$q" "$tq"

    pfc_qos dpdk-a pfc-enable=3 link-speed=1G xoff-threshold=8000 \
        xon-threshold=4000 || return 1
    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    out=$(pfc_show dpdk-b)
    pfc_log "$(grep 'queues:' <<<"$out")"
    run_or_fail "pfc/show dpdk-b: $q rx, $tq tx queues" \
        grep -q "queues: $q rx, $tq tx " <<<"$out"
    pfc_log "$(grep 'xoff send delay:' <<<"$out")"
    if [ "$mode" = ctrl ]; then
        run_or_fail "pfc/show dpdk-b: PFC frames leave from tx queue 3" \
            grep -q "on tx queue 3, the PFC frames' own" <<<"$out"
    else
        run_or_fail "pfc/show dpdk-b: no tx queue to spare for PFC frames" \
            grep -q "behind [0-9]* tx descriptors on each of $tq tx queues; the driver has no tx queue to spare" <<<"$out"
    fi
    pfc_appctl dpif-netdev/pmd-stats-clear >/dev/null

    run_or_fail "multiflow scenario" pfc_scenario multiflow --speed-a 1G \
        --speed-b 10M --rate 1300 --flows 12 --cycles 24 --pause-ms 150 \
        --resume-ms 100 --expire-every 3 --long-every 8 \
        --long-pause-ms 700 --facts "$facts"
    multicore_counters "$mode" "$facts"
    [ "$FAILS" -eq 0 ]
}

test_multicore_static() { multicore static; }

test_multicore_xps() { multicore xps; }

test_multicore_hash() { multicore hash; }

test_multicore_ctrl() { multicore ctrl; }

# A PFC frame read on the second rx queue of a port, by another PMD thread
# than the one that sends to the port, acts on the whole port.  dpdk-b is a
# net_pcap port with two rx queues: queue 0 reads what arrives on B's veth,
# queue 1 what arrives on a veth from host C; it sends on B's veth.  Two PMD
# threads: dpdk-a's rx queue and dpdk-b's queue 0 are pinned to core 0, so
# the thread there forwards A's frames to dpdk-b; dpdk-b's queue 1 is pinned
# to core 1, whose thread reads C's PFC frames.  1. C pauses p3 (XOFF
# refreshed every 0.5 s): the 100 p3 frames A sends are held; C's XON, read
# on queue 1, releases them.  2. One PFC frame from C, 65535 quanta (3.4 s
# at link-speed 10M), no XON: 50 more frames are held, then leave when the
# pause expires.  B gets all 150, in order.
test_rxq_second() {
    local rec out n i q1
    PFC_PMD_MASK=0x3
    n=$(nproc --all 2>/dev/null || echo 1)
    if [ "$n" -lt 2 ]; then
        pfc_log "FAIL: this test needs 2 CPUs for 2 PMD threads (has $n)"
        return 1
    fi
    pfc_setup "$OVS" || return 1
    pfc_net_add_c || return 1
    rec=$PFC_TMP/rx.json
    # Queue 0: rx_iface_in, so that it does not read back what dpdk-b
    # sends on B's veth.  Queue 1: rx_iface (libpcap's inbound-only filter
    # misses the frames C sends on this veth).
    pfc_vsctl del-port br0 dpdk-b -- add-port br0 dpdk-b \
        -- set Interface dpdk-b type=dpdk \
        "options:dpdk-devargs=net_pcap_b,rx_iface_in=$PFC_IF_B0,rx_iface=$PFC_IF_C0,tx_iface=$PFC_IF_B0" \
        options:n_rxq=2 other_config:pmd-rxq-affinity="0:0,1:1" \
        -- set Interface dpdk-a other_config:pmd-rxq-affinity="0:0" \
        || return 1
    pfc_iface_ok dpdk-b || return 1
    pfc_ofctl del-flows br0 || return 1
    pfc_ofctl add-flow br0 in_port=dpdk-a,actions=output:dpdk-b || return 1
    pfc_ofctl add-flow br0 in_port=dpdk-b,actions=output:dpdk-a || return 1
    # pmd-rxq-show: "pmd thread numa_id 0 core_id 1:" then
    # "  port: dpdk-b  queue-id:  1 (enabled)  pmd usage: ...".
    q1=
    for i in $(seq 50); do
        out=$(pfc_appctl dpif-netdev/pmd-rxq-show)
        q1=$(awk '/^pmd thread/ { core = $NF }
                  /port: dpdk-b .*queue-id: +1 / { print core }' <<<"$out")
        [ "$q1" = "1:" ] && break
        sleep 0.2
    done
    pfc_log "pmd-rxq-show:"
    pfc_log "$out"
    run_or_fail "dpdk-b rx queue 1 polled by the PMD thread on core 1" \
        test "$q1" = "1:"
    check "PMD threads polling rx queues of dpdk-b" \
        "$(awk '/^pmd thread/ { core = $NF } /port: dpdk-b / { c[core] = 1 }
                END { print length(c) }' <<<"$out")" -eq 2
    run_or_fail "dpdk-a rx queue polled by the PMD thread on core 0" \
        test "$(awk '/^pmd thread/ { core = $NF }
                     /port: dpdk-a / { print core }' <<<"$out")" = "0:"

    pfc_qos dpdk-b pfc-enable=3 link-speed=10M || return 1
    run_or_fail "pfc/show dpdk-b: 2 rx queues" \
        grep -q "queues: 2 rx, " <<<"$(pfc_show dpdk-b)"
    start_recv "$rec"

    # 1. Paused from rx queue 1 until its XON (the last --port wins).
    pause_p3 --port "$PFC_NS_C:$PFC_IF_C1" --xon-on-exit
    send_p3 100 || FAILS=$((FAILS + 1))
    wait_held 100 || FAILS=$((FAILS + 1))
    run_or_fail "p3 of dpdk-b is paused in pfc/show" \
        test "$(pfc_show dpdk-b | awk '$1 == "p3" { print $3 }')" = paused
    pfc_stop_pid "$PAUSE_PID"
    wait_held 0 || FAILS=$((FAILS + 1))

    # 2. One pause from rx queue 1, ended by its expiry.
    "$PFC_PY" "$PFC_PEER" send-pfc --port "$PFC_NS_C:$PFC_IF_C1" --side B \
        --prio 3 --time 65535 --count 1 || FAILS=$((FAILS + 1))
    sleep 0.2
    send_p3 50 100 || FAILS=$((FAILS + 1))
    wait_held 50 || FAILS=$((FAILS + 1))
    wait_held 0 || FAILS=$((FAILS + 1))
    sleep 0.5
    pfc_stop_pid "$RECV_PID"
    run_or_fail "B got the 150 p3 frames in order" \
        "$PFC_PY" "$PFC_PEER" check "$rec" --stream 1 --expect 150

    pfc_stats_refresh
    check "dpdk-b pfc_hold_drops_p3" "$(pfc_stat dpdk-b pfc_hold_drops_p3)" \
        -eq 0
    check "dpdk-b pfc_pause_transitions_p3" \
        "$(pfc_stat dpdk-b pfc_pause_transitions_p3)" -eq 2
    # C sent 1 XOFF a 0.5 s while 100 frames were held, 1 XON, 1 XOFF.
    check "dpdk-b pfc_rx_frames_p3 at least" \
        "$(pfc_stat dpdk-b pfc_rx_frames_p3)" -ge 3
    pfc_log "dpdk-b: $(pfc_stat dpdk-b pfc_rx_frames_p3) PFC frames read" \
        "on rx queue 1"
    [ "$FAILS" -eq 0 ]
}
