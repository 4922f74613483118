/*
 * Copyright (c) 2026 The OVS PFC authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

/* Receive side of the DPDK glue of PFC (the opening comment of
 * lib/netdev-dpdk-pfc.c describes the threads and locks).  On the PMD thread
 * that polls an rx queue of any DPDK port: classifies each packet once, by
 * the port's trust mode, and marks it with its priority (lib/pfc-classify.h,
 * pfc_mbuf_priority()).  On a port with QoS type pfc, also: consumes the MAC
 * Control frames, whose PFC frames set the port's pause timers, and the
 * LLDPDUs of DCBX; drops what the watchdog drops; and stamps the polls that
 * the end of a pause waits for. */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <string.h>

#include <rte_atomic.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "netdev.h"
#include "openvswitch/usdt-probes.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "pfc.h"
#include "pfc-dcbx.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc_rx);
static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

int pfc_mark_offset = -1;

/* The ingress rule of a DPDK ethernet port without QoS pfc: trust=pcp,
 * untagged frames priority 0. */
static const struct pfc_classifier pfc_cls_pcp = {
    .trust = PFC_TRUST_PCP,
    .dscp_default = true,
};

/* Registers the mbuf dynamic field of the ingress priority.  Called once,
 * after the EAL is initialized and before any port receives.  On failure
 * (the process is out of dynamic field space), logs an error: packets are
 * then classified at each egress by the tag they leave with. */
void
pfc_mark_register(void)
{
    static const struct rte_mbuf_dynfield desc = {
        .name = "ovs_pfc_dynfield_priority",
        .size = sizeof(uint8_t),
        .align = __alignof__(uint8_t),
    };
    int off = rte_mbuf_dynfield_register(&desc);

    if (off >= 0
        && (off < offsetof(struct rte_mbuf, dynfield1)
            || off >= offsetof(struct rte_mbuf, dynfield1)
                      + MEMBER_SIZEOF(struct rte_mbuf, dynfield1))) {
        /* Copies of a packet keep dynfield1 only. */
        VLOG_ERR("PFC: the mbuf field of the ingress priority is at offset "
                 "%d, outside the dynamic fields that copies keep: every "
                 "egress classifies packets by the tag they leave with",
                 off);
        pfc_mark_offset = -1;
        return;
    }
    if (off < 0) {
        VLOG_ERR("PFC: cannot register the mbuf field of the ingress "
                 "priority (%s): every egress classifies packets by the "
                 "tag they leave with, and trust=dscp has no effect",
                 rte_strerror(rte_errno));
    }
    pfc_mark_offset = off;
}

/* Marks 'm', which dp_packet_clone() just copied from a packet that is
 * output elsewhere too (a flood, a mirror: every output but the last takes
 * a copy), as a copy, if it carries a priority: the buffer gives the
 * headroom to the last output only (pfc_buf_admit()). */
void
netdev_dpdk_pfc_mark_copy(struct rte_mbuf *m)
{
    if (pfc_mark_offset >= 0) {
        uint8_t *mark = RTE_MBUF_DYNFIELD(m, pfc_mark_offset, uint8_t *);

        if (*mark & PFC_MARK_VALID) {
            *mark |= PFC_MARK_COPY;
        }
    }
}

/* Marks each of the 'cnt' packets in 'pkts' with the priority that 'c'
 * gives it, and the flags 'flags' (PFC_MARK_VALID, with PFC_MARK_PFC_PORT
 * on a port with QoS pfc). */
static inline void
pfc_rx_classify(const struct pfc_classifier *c, struct rte_mbuf **pkts,
                int cnt, uint8_t flags)
{
    /* In locals: the marks are octets, which may alias anything. */
    const int off = pfc_mark_offset;
    const int trust = c->trust, def = c->default_prio;
    const uint8_t *map = c->dscp_default ? NULL : c->dscp_to_prio;

    if (OVS_UNLIKELY(off < 0)) {
        return;
    }
    for (int i = 0; i < cnt; i++) {
        struct rte_mbuf *m = pkts[i];
        int prio = pfc_classify__(trust, def, map,
                                  rte_pktmbuf_mtod(m, const uint8_t *),
                                  rte_pktmbuf_data_len(m));

        *RTE_MBUF_DYNFIELD(m, off, uint8_t *) = flags | prio;
    }
}

/* Classifies the 'cnt' packets in 'pkts', just dequeued from a vhost-user
 * port's guest, by 'c'.  If 'c' is NULL (a guest port without QoS pfc), the
 * port trusts no marking: every packet is priority 0, and the 802.1p
 * priority of its first two tags is cleared (pfc_clear_pcp()), so that the
 * guest's PCP buys it no class in the switch nor in the fabric, whatever tag
 * it leaves with.  The DSCP of its IP packets stays the guest's. */
void
pfc_rx_classify_guest(const struct pfc_classifier *c, struct rte_mbuf **pkts,
                      int cnt)
{
    const int off = pfc_mark_offset;

    if (c) {
        pfc_rx_classify(c, pkts, cnt, PFC_MARK_VALID | PFC_MARK_PFC_PORT);
        return;
    }
    /* One pass: the PCP cleared, priority 0 marked. */
    for (int i = 0; i < cnt; i++) {
        struct rte_mbuf *m = pkts[i];

        pfc_clear_pcp(rte_pktmbuf_mtod(m, uint8_t *),
                      rte_pktmbuf_data_len(m));
        if (OVS_LIKELY(off >= 0)) {
            *RTE_MBUF_DYNFIELD(m, off, uint8_t *) = PFC_MARK_VALID;
        }
    }
}

/* Packets that one rx poll reads at most (NETDEV_MAX_BURST).  A poll that
 * reads fewer emptied its rx ring. */
#define PFC_RX_BURST 32

/* Returns true if the frame of 'len' octets at 'data' is an LLDPDU to the
 * nearest bridge address 01-80-C2-00-00-0E, untagged (IEEE 802.1AB-2016
 * 7.1), which DCBX consumes. */
static inline bool
pfc_is_lldp(const uint8_t *data, size_t len)
{
    static const uint8_t dst[ETH_ADDR_LEN] = {
        0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e
    };

    return (len >= ETH_HEADER_LEN
            && data[12] == (PFC_LLDP_ETH_TYPE >> 8)
            && data[13] == (PFC_LLDP_ETH_TYPE & 0xff)
            && !memcmp(data, dst, ETH_ADDR_LEN));
}

/* Receives the LLDPDU in 'm' on 'port' (DCBX on): updates the port's DCBX
 * state under port->lock, and logs what changed once it is released.  The
 * caller frees 'm'. */
static void
pfc_rx_lldp(struct pfc_port *port, const struct rte_mbuf *m)
{
    const uint8_t *data = rte_pktmbuf_mtod(m, const uint8_t *);
    size_t len = rte_pktmbuf_data_len(m);
    char name[sizeof port->name];
    uint8_t old_oper, oper;
    bool old_mm, mm, changed, old_second, second;
    struct eth_addr src;
    const char *why;

    memcpy(src.ea, data + ETH_ADDR_LEN, ETH_ADDR_LEN);
    rte_spinlock_lock(&port->lock);
    old_oper = port->dcbx.state.oper;
    old_mm = port->dcbx.state.mismatch;
    old_second = port->dcbx.state.second;
    changed = pfc_dcbx_rx(&port->dcbx.state, &port->dcbx.params, port->mac,
                          src,
                          data + ETH_HEADER_LEN, len - ETH_HEADER_LEN,
                          rte_get_tsc_cycles(), port->rx.tb.hz, &why);
    if (why) {
        port->dcbx.error = why;
    }
    port->dcbx.changed |= changed;
    oper = port->dcbx.state.oper;
    mm = port->dcbx.state.mismatch;
    second = port->dcbx.state.second;
    ovs_strlcpy(name, port->name, sizeof name);
    rte_spinlock_unlock(&port->lock);

    if (second && !old_second) {
        VLOG_WARN_RL(&rl, "%s: DCBX: a second LLDP agent ("ETH_ADDR_FMT") "
                     "is heard: the administrative configuration is in "
                     "force until one of them leaves (see pfc/show)", name,
                     ETH_ADDR_ARGS(src));
    }
    if (why) {
        VLOG_WARN_RL(&rl, "%s: DCBX: malformed LLDPDU ignored: %s", name,
                     why);
    }
    if (changed) {
        VLOG_INFO_RL(&rl, "%s: DCBX: operational PFC enable vector 0x%02"
                     PRIx8" -> 0x%02"PRIx8, name, old_oper, oper);
    }
    if (mm && !old_mm) {
        VLOG_WARN_RL(&rl, "%s: DCBX: PFC configuration mismatch with the "
                     "link partner (see pfc/show)", name);
    }
}

/* Copies the pause timers of 'port', changed by a PFC frame read at TSC
 * 'now', to the atomics that transmit threads read.  The caller holds
 * port->lock. */
static void
pfc_port_publish(struct pfc_port *port, uint64_t now)
{
    uint64_t max = 0;

#ifdef HAVE_USDT_PROBES
    atomic_store_relaxed(&port->rx.pause_read, now);   /* Probe "paused". */
#else
    (void) now;
#endif
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        atomic_store_relaxed(&port->rx.until[n], port->rx.pause.until[n]);
        max = MAX(max, port->rx.pause.until[n]);
    }
    atomic_store_relaxed(&port->rx.max_until, max);
    atomic_store_relaxed(&port->rx.xon, port->rx.pause.xon);
    pfc_port_bump_gen(port);
}

/* Acts on a MAC Control frame of kind 'kind' (decoded into 'frame') read on
 * 'port' at TSC 'now', which arrived after TSC 'earliest' (the start of the
 * previous poll of its rx queue that emptied the ring). */
static void
pfc_rx_frame(struct pfc_port *port, enum pfc_rx_kind kind,
             const struct pfc_frame *frame, uint64_t now, uint64_t earliest)
{
    uint8_t enabled, started = 0, xon = 0;

    rte_spinlock_lock(&port->lock);
    switch (kind) {
    case PFC_RX_PFC:
        /* Only priorities in pfc-enable honour the frame. */
        enabled = port->conf ? port->conf->cfg.enabled : 0;
        started = pfc_receive(&port->rx.pause, &port->counters, frame, enabled,
                              &port->rx.tb, now, earliest);
        pfc_wd_frame(&port->wd.state, frame, enabled, started, now);
        pfc_port_publish(port, now);
        break;
    case PFC_RX_PAUSE:
        port->counters.rx_pause_ignored++;
        break;
    case PFC_RX_UNSUPPORTED:
        port->counters.rx_unsupported++;
        break;
    case PFC_RX_INVALID:
        port->counters.rx_invalid++;
        break;
    case PFC_RX_NOT_MAC_CONTROL:
    default:
        OVS_NOT_REACHED();
    }
    rte_spinlock_unlock(&port->lock);
    for (int n = 0; kind == PFC_RX_PFC && n < PFC_N_PRIOS; n++) {
        xon |= (frame->enable & (1u << n) && !frame->time[n]) << n;
    }
    /* Vectors: the frame's priority_enable_vector, the priorities it
     * resumes (time 0: XON) << 8, those it paused that were not paused
     * << 16.  The last argument is when the pause timers it set were in
     * force for every transmit decision.  (At most 6 arguments: bpftrace
     * reads no more on x86_64.) */
    OVS_USDT_PROBE(netdev_dpdk_pfc, rx_frame, (int) (port - pfc_ports),
                   (int) kind,
                   (uint32_t) frame->enable | xon << 8 | started << 16, now,
                   rte_get_tsc_cycles());
    (void) started;
    (void) xon;
}

/* Returns the TSC to pass to netdev_dpdk_pfc_rx() for the poll of rx queue
 * 'qid' of DPDK port 'port_id' that is about to begin, or 0 if the port has
 * no PFC or if its poll stamp needs no update (no pause can wait for it).
 * Costs two loads on a PFC port with no pause in force.  A PMD thread that
 * polls a PFC port does not sleep (pmd-maxsleep, netdev_pmd_stay_awake()):
 * a PFC frame may arrive at any time and must be read within the 802.1Qbb
 * response bound, and an XOFF in force refreshed before it runs out. */
uint64_t
netdev_dpdk_pfc_rx_begin(uint16_t port_id, int qid)
{
    struct pfc_port *port;
    uint64_t max, polled;
    bool active;

    if (port_id >= RTE_MAX_ETHPORTS || qid >= RTE_MAX_QUEUES_PER_PORT) {
        return 0;
    }
    port = &pfc_ports[port_id];
    atomic_read_relaxed(&port->active, &active);
    if (!active) {
        return 0;
    }
    netdev_pmd_stay_awake();
    atomic_read_relaxed(&port->rx.max_until, &max);
    atomic_read_relaxed(&port->rx.rxq_polled[qid], &polled);
    if (polled < max) {
        uint64_t start = rte_get_tsc_cycles();

        /* RDTSC is not ordered with the loads that follow it: without a
         * fence, the driver could read the rx ring's descriptors before the
         * TSC, and the stamp would cover a frame that arrived in between
         * unread.  A load fence (LFENCE on x86) keeps them after it. */
        rte_rmb();
        return start;
    }
    return 0;
}

/* During a storm of PFC frames received on 'port' whose watchdog action is
 * "drop": frees 'm', received on 'port' with priority 'prio', and returns
 * true if 'prio' is in 'dropped' (the stormed priorities); counts it in
 * wd_rx_dropped. */
static bool
pfc_wd_rx_drop(struct pfc_port *port, struct rte_mbuf *m, int prio,
               uint8_t dropped)
{
    uint64_t orig;

    if (!((dropped >> prio) & 1)) {
        return false;
    }
    atomic_add_relaxed(&port->wd.rx_dropped[prio], 1, &orig);
    rte_pktmbuf_free(m);
    return true;
}

/* The common case of netdev_dpdk_pfc_rx(): marks each of the 'cnt' packets
 * in 'pkts' at mark offset 'off' (at least 0) with the priority that the
 * rule 'trust', 'def', 'map' gives it (pfc_rx_decide()), and returns true if
 * any of them may be a MAC Control frame, or an LLDPDU while 'lldp' (DCBX
 * runs on the port): then the batch takes pfc_rx_consume().  Called with a
 * constant 'trust', so that the compiler can give each trust mode a loop of
 * its own. */
static inline bool ALWAYS_INLINE
pfc_rx_mark(int trust, int def, const uint8_t *map, int off, bool lldp,
            struct rte_mbuf **pkts, int cnt)
{
    bool special = false;

    for (int i = 0; i < cnt; i++) {
        struct rte_mbuf *m = pkts[i];
        const uint8_t *data = rte_pktmbuf_mtod(m, const uint8_t *);
        uint16_t len = rte_pktmbuf_data_len(m);

        *RTE_MBUF_DYNFIELD(m, off, uint8_t *)
            = (PFC_MARK_VALID | PFC_MARK_PFC_PORT
               | pfc_rx_decide(trust, def, map, data, len, lldp, &special));
    }
    return special;
}

/* The rest of netdev_dpdk_pfc_rx(), for a batch that holds a MAC Control
 * frame or an LLDPDU, or while the watchdog drops on receive: marks the
 * packets of 'pkts' by 'c', consumes the MAC Control frames (valid PFC
 * frames set the pause timers of 'port', read from rx queue 'qid'), hands
 * the LLDPDUs to DCBX if 'dcbx_on', drops what the watchdog drops
 * ('wd_dropped'), compacts 'pkts' and returns how many remain. */
static int
pfc_rx_consume(struct pfc_port *port, int qid, const struct pfc_classifier *c,
               struct rte_mbuf **pkts, int cnt, uint8_t wd_dropped,
               bool dcbx_on)
{
    /* In locals: the marks are octets, which may alias anything. */
    const int off = pfc_mark_offset;
    const int trust = c->trust, def = c->default_prio;
    const uint8_t *map = c->dscp_default ? NULL : c->dscp_to_prio;
    const uint8_t flags = PFC_MARK_VALID | PFC_MARK_PFC_PORT;
    uint64_t earliest = 0;
    int kept = 0;

    for (int i = 0; i < cnt; i++) {
        struct rte_mbuf *m = pkts[i];
        const uint8_t *data = rte_pktmbuf_mtod(m, const uint8_t *);
        uint16_t len = rte_pktmbuf_data_len(m);
        struct pfc_frame frame;
        enum pfc_rx_kind kind;
        int prio;

        uint16_t type = len >= ETH_HEADER_LEN ? (data[12] << 8) | data[13]
                                              : 0;

        if (OVS_LIKELY(type == ETH_TYPE_IP || type == ETH_TYPE_IPV6)
            || !pfc_maybe_mac_control(data, len)) {
            if (OVS_UNLIKELY(dcbx_on) && type != ETH_TYPE_IP
                && type != ETH_TYPE_IPV6 && pfc_is_lldp(data, len)) {
                pfc_rx_lldp(port, m);
                rte_pktmbuf_free(m);
                continue;
            }
            prio = pfc_classify__(trust, def, map, data, len);
            if (OVS_UNLIKELY(wd_dropped)
                && pfc_wd_rx_drop(port, m, prio, wd_dropped)) {
                continue;
            }
            if (OVS_LIKELY(off >= 0)) {
                *RTE_MBUF_DYNFIELD(m, off, uint8_t *) = flags | prio;
            }
            pkts[kept++] = m;
            continue;
        }
        kind = pfc_frame_decode(data, len, &frame);
        if (kind == PFC_RX_NOT_MAC_CONTROL) {
            if (OVS_LIKELY(off >= 0)) {
                prio = pfc_classify__(trust, def, map, data, len);
                *RTE_MBUF_DYNFIELD(m, off, uint8_t *) = flags | prio;
            }
            pkts[kept++] = m;
        } else {
            if (!earliest) {
                atomic_read_relaxed(&port->rx.rxq_polled[qid], &earliest);
                earliest = earliest ? earliest : 1;
            }
            pfc_rx_frame(port, kind, &frame, rte_get_tsc_cycles(),
                         earliest);
            rte_pktmbuf_free(m);
        }
    }
    return kept;
}

/* Marks each of the 'cnt' packets (possibly 0) just read in 'pkts' from rx
 * queue 'qid' of DPDK port 'port_id' with its ingress priority: by the
 * port's trust mode if it has QoS type pfc, else by its outer PCP
 * (pfc_rx_classify()).  If the port has QoS type pfc, also consumes the MAC
 * Control frames among them: valid PFC frames set the pause timers, every
 * MAC Control frame is counted and freed, none reaches the datapath.
 * 'start' is what netdev_dpdk_pfc_rx_begin() returned before the poll: if
 * nonzero and the poll emptied the ring (read fewer than PFC_RX_BURST
 * packets), it becomes the queue's poll stamp (pfc_pause_holds()).
 * Compacts 'pkts' and returns how many remain.  A port without QoS pfc, or
 * out of range, has its packets marked only. */
int
netdev_dpdk_pfc_rx(uint16_t port_id, int qid, struct rte_mbuf **pkts,
                   int cnt, uint64_t start)
{
    struct pfc_port *port;
    uint8_t wd_dropped;
    bool active, dcbx_on, special = true;
    int kept = cnt;

    if (port_id >= RTE_MAX_ETHPORTS || qid >= RTE_MAX_QUEUES_PER_PORT) {
        pfc_rx_classify(&pfc_cls_pcp, pkts, cnt, PFC_MARK_VALID);
        return cnt;
    }
    port = &pfc_ports[port_id];
    atomic_read_relaxed(&port->active, &active);
    if (!active) {
        pfc_rx_classify(&pfc_cls_pcp, pkts, cnt, PFC_MARK_VALID);
        return cnt;
    }

    const struct pfc_classifier *c = ovsrcu_get(const struct pfc_classifier *,
                                                &port->cls);

    c = c ? c : &pfc_cls_pcp;
    atomic_read_relaxed(&port->wd.dropped, &wd_dropped);
    atomic_read_relaxed(&port->dcbx.on, &dcbx_on);
    if (OVS_LIKELY(!wd_dropped && pfc_mark_offset >= 0)) {
        const int off = pfc_mark_offset, def = c->default_prio;
        const uint8_t *map = c->dscp_default ? NULL : c->dscp_to_prio;

        special = (c->trust == PFC_TRUST_DSCP
                   ? pfc_rx_mark(PFC_TRUST_DSCP, def, map, off, dcbx_on,
                                 pkts, cnt)
                   : c->trust == PFC_TRUST_PCP
                   ? pfc_rx_mark(PFC_TRUST_PCP, def, map, off, dcbx_on,
                                 pkts, cnt)
                   : pfc_rx_mark(c->trust, def, map, off, dcbx_on,
                                 pkts, cnt));
    }
    if (OVS_UNLIKELY(special)) {
        kept = pfc_rx_consume(port, qid, c, pkts, cnt, wd_dropped, dcbx_on);
    }
    if (start) {
        uint32_t ring;
        uint64_t stamp;

        pfc_quiet_expire(port, start);

        atomic_read_relaxed(&port->rx.rxq_desc, &ring);
        stamp = pfc_rxq_drain_poll(&port->rx.rxq_drain[qid], start, cnt,
                                   cnt < PFC_RX_BURST, ring);
        if (stamp) {
            /* After the frames of this poll took effect. */
            atomic_store_explicit(&port->rx.rxq_polled[qid], stamp,
                                  memory_order_release);
        }
    }
    return kept;
}

/* Stores in '*c' the ingress rule in force on a port whose QoS object's rule
 * is 'base' (pfc->cls), with DCBX on if 'dcbx': 'base', with DCBX's
 * operational DSCP map 'dscp_oper' when the port adopted its partner's
 * Application Priority entries ('adopted'; trust=dscp, dcbx-willing). */
static void
pfc_cls_in_force(const struct pfc_classifier *base, bool dcbx, bool adopted,
                 const uint8_t dscp_oper[PFC_N_DSCP],
                 struct pfc_classifier *c)
{
    *c = *base;
    if (dcbx && adopted && c->trust == PFC_TRUST_DSCP) {
        pfc_classifier_init(c, c->trust, c->default_prio, dscp_oper);
    }
}

/* Makes 'new', allocated by the caller, the ingress rule of 'port' that PMD
 * threads read (RCU), unless the one in force is equal: then frees 'new'.
 * The old rule is freed after a grace period.  Takes port->lock, so that
 * the main thread and the thread that rebinds a port whose link came up
 * never both replace, and free, the same rule. */
static void
pfc_cls_swap(struct pfc_port *port, struct pfc_classifier *new)
{
    const struct pfc_classifier *old;
    bool same;

    rte_spinlock_lock(&port->lock);
    old = ovsrcu_get_protected(const struct pfc_classifier *, &port->cls);
    same = old && !memcmp(old, new, sizeof *new);
    if (!same) {
        ovsrcu_set(&port->cls, new);
    }
    rte_spinlock_unlock(&port->lock);
    if (same) {
        free(new);
    } else if (old) {
        ovsrcu_postpone(free, CONST_CAST(struct pfc_classifier *, old));
    }
}

/* Publishes to PMD threads the ingress rule in force on 'port'
 * (pfc_cls_in_force()), from its QoS object and DCBX state read under
 * port->lock, if it changed.  Does nothing if the port has no QoS object.
 * Main thread, port->lock not held. */
void
pfc_cls_publish(struct pfc_port *port)
{
    uint8_t map[PFC_N_DSCP];
    struct pfc_classifier base, c;
    bool dcbx, adopted;

    rte_spinlock_lock(&port->lock);
    if (!port->conf) {
        rte_spinlock_unlock(&port->lock);
        return;
    }
    base = port->conf->cls;
    dcbx = port->conf->cfg.dcbx;
    adopted = port->dcbx.state.app_adopted;
    memcpy(map, port->dcbx.state.dscp_oper, sizeof map);
    rte_spinlock_unlock(&port->lock);

    pfc_cls_in_force(&base, dcbx, adopted, map, &c);
    pfc_cls_swap(port, xmemdup(&c, sizeof c));
}
