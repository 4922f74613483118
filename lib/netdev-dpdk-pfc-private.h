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

#ifndef NETDEV_DPDK_PFC_PRIVATE_H
#define NETDEV_DPDK_PFC_PRIVATE_H 1

/* State and helpers shared by the files of the DPDK glue of PFC:
 * lib/netdev-dpdk-pfc.c (QoS objects), lib/netdev-dpdk-pfc-retire.c (their
 * succession and removal), lib/netdev-dpdk-pfc-rx.c (receive),
 * lib/netdev-dpdk-pfc-tx.c (transmit), lib/netdev-dpdk-pfc-drain.c (held
 * packets leave), lib/netdev-dpdk-pfc-ctrl.c (PFC frames, LLDPDUs and the
 * tx filter), lib/netdev-dpdk-pfc-wd.c (watchdog),
 * lib/netdev-dpdk-pfc-vhost.c (vhost-user ports), lib/netdev-dpdk-pfc-dcbx.c
 * (DCBX), lib/netdev-dpdk-pfc-ets.c (ETS), lib/netdev-dpdk-pfc-nic.c (the
 * NIC), lib/netdev-dpdk-pfc-buffer.c
 * (the shared buffer), lib/netdev-dpdk-pfc-ports.c (pfc_ports[]) and
 * lib/netdev-dpdk-pfc-show.c (statistics and unixctl commands).  The
 * threads and locks are described at the top of lib/netdev-dpdk-pfc.c. */

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_spinlock.h>

#include <rte_mbuf_dyn.h>
#include <rte_vhost.h>

#include "netdev-flush.h"
#include "ovs-atomic.h"
#include "ovs-rcu.h"
#include "packets.h"
#include "pfc.h"
#include "pfc-buffer.h"
#include "pfc-classify.h"
#include "pfc-config.h"
#include "pfc-dcbx.h"
#include "pfc-ets.h"
#include "pfc-holdq.h"
#include "pfc-nic.h"
#include "pfc-wd.h"
#include "util.h"

/* Per port state, for the life of the process (see the header): one per DPDK
 * port id, then PFC_MAX_VHOST for vhost-user ports, which have no DPDK port
 * id (pfc_port_is_vhost()). */
#define PFC_MAX_VHOST 64
#define PFC_N_PORTS (RTE_MAX_ETHPORTS + PFC_MAX_VHOST)

/* The ingress priority that a packet carries from the port it arrived on to
 * every egress (lib/pfc-classify.h): one octet in a registered mbuf dynamic
 * field, PFC_MARK_VALID | priority (bits 0 to 2), with the flags below.
 * The receive path of every DPDK port writes it (netdev_dpdk_pfc_rx(),
 * netdev_dpdk_pfc_vhost_rx()); copies of the packet keep it; a packet that
 * no DPDK port received (an internal or tap port, or one that OVS itself
 * made) has none, and is classified at the egress by the PCP of its outer
 * tag, or as priority 0 untagged.  'pfc_mark_offset' is the field's offset
 * in struct rte_mbuf, or -1 if its registration failed (then every packet
 * is classified at the egress). */
#define PFC_MARK_VALID 0x80
#define PFC_MARK_COPY 0x40      /* A copy made before the packet's last
                                 * output (dp_packet_clone()): see
                                 * pfc_buf_admit(). */
#define PFC_MARK_PFC_PORT 0x20  /* Received on a port that had QoS pfc
                                 * then: its ingress priority group may be
                                 * lossless.  Without it, the packet is
                                 * lossy at every egress, as a switch
                                 * assigns the priority group at ingress,
                                 * even if its port gains PFC while the
                                 * packet is on its way. */
extern int pfc_mark_offset;

/* Returns true if 'm' is a copy of a packet that is also output elsewhere
 * (netdev_dpdk_pfc_mark_copy()). */
static inline bool
pfc_mbuf_is_copy(const struct rte_mbuf *m)
{
    return (pfc_mark_offset >= 0
            && (*RTE_MBUF_DYNFIELD(m, pfc_mark_offset, const uint8_t *)
                & PFC_MARK_COPY));
}

/* Returns false if 'm' is lossy whatever port it was received on: it
 * carries a priority, marked by a port without QoS pfc (PFC_MARK_PFC_PORT
 * clear).  True if its ingress port's priority group decides
 * (pfc_port_pg_params()): it was received on a port with QoS pfc, or it
 * carries no priority. */
static inline bool
pfc_mbuf_maybe_lossless(const struct rte_mbuf *m)
{
    if (OVS_LIKELY(pfc_mark_offset >= 0)) {
        uint8_t mark = *RTE_MBUF_DYNFIELD(m, pfc_mark_offset,
                                          const uint8_t *);

        return (mark & (PFC_MARK_VALID | PFC_MARK_PFC_PORT))
               != PFC_MARK_VALID;
    }
    return true;
}

/* Returns the priority, 0..7, of 'm' for an egress: the one it carries, or,
 * if it carries none, the PCP of its outer tag (0 if untagged). */
static inline int
pfc_mbuf_priority(const struct rte_mbuf *m)
{
    if (OVS_LIKELY(pfc_mark_offset >= 0)) {
        uint8_t mark = *RTE_MBUF_DYNFIELD(m, pfc_mark_offset,
                                          const uint8_t *);

        if (OVS_LIKELY(mark & PFC_MARK_VALID)) {
            return mark & 7;
        }
    }
    return pfc_packet_priority(rte_pktmbuf_mtod(m, const void *),
                               rte_pktmbuf_data_len(m), 0);
}

void pfc_mark_register(void);
void pfc_rx_classify_guest(const struct pfc_classifier *,
                           struct rte_mbuf **pkts, int cnt);

/* Seconds between netdev-dpdk's polls of the link state of a port without
 * a link state interrupt (its DPDK_PORT_WATCHDOG_INTERVAL). */
#define PFC_LINK_POLL_S 5

/* Most held packets handed to the NIC in one rte_eth_tx_burst() call. */
#define PFC_TX_BURST 32

/* The NIC (lib/pfc-nic.h): its tx rings, how MAC Control frames reach
 * this switch (mac-control-queue) and the state PFC restores when it
 * leaves.  Main thread, under 'lock' where marked [L]; PMD threads read
 * only the atomics. */
struct pfc_port_hw {
    uint32_t txq_size;                  /* [L] Tx descriptors per queue: the
                                         * ring in use once the port is
                                         * reconfigured
                                         * (netdev_dpdk_pfc_txq_size()). */
    struct pfc_ring_limits ring_lim;    /* [L] The driver's tx ring limits,
                                         * descriptors. */
    bool ring_lim_known;                /* [L] ring_lim was read from the
                                         * driver. */
    uint32_t max_frame;                 /* [L] Largest frame, bytes. */
    enum pfc_mcq mcq;                   /* [L] Whether MAC Control frames have
                                         * an rx queue of their own
                                         * (mac-control-queue); written by the
                                         * main thread only. */
    atomic_int mcq_queue;               /* That rx queue, or -1: then a pause
                                         * ends only once every rx queue was
                                         * polled after it. */
    atomic_uint64_t mcq_since;          /* TSC at which the rte_flow rule took
                                         * effect: a data rx queue not polled
                                         * since may still hold MAC Control
                                         * frames. */
    struct rte_flow *mcq_flow;          /* That rule, or NULL: the only
                                         * rte_flow rule PFC creates on the
                                         * port, and the only one it destroys.
                                         * Main thread only. */
    /* A tx queue of their own for the PFC frames this switch sends
     * (pfc_ctrl_txq_want()), beyond those of the datapath, so that an XOFF
     * never waits behind a data tx ring.  Written by the main thread while
     * netdev-dpdk configures the port, when no transmit thread uses it
     * (netdev_dpdk_pfc_ctrl_txq_ask(), _claim()). */
    atomic_int ctrl_txq;                /* That tx queue, or -1: PFC frames
                                         * join the sender's data tx
                                         * queue. */
    bool ctrl_asked;                    /* One more tx queue was asked. */
    bool ctrl_warned;                   /* The port was warned that it has
                                         * none, since netdev-dpdk last
                                         * configured it. */
    atomic_uint64_t ctrl_sent;          /* PFC frames sent on ctrl_txq. */
    uint16_t max_txq;                   /* The driver's tx queues, most. */
    rte_spinlock_t ctrl_lock;           /* Serializes sends on ctrl_txq:
                                         * taken only by trylock, a thread
                                         * that finds it taken sends its
                                         * PFC frame on its next call. */
    struct pfc_mac_control_answers nic; /* [L] What the NIC was asked at the
                                         * last bind, and answered. */
    /* The NIC's state before PFC first asked it anything, restored when PFC
     * leaves the port or its first bind is refused (pfc_nic_restore()).
     * Main thread only. */
    bool nic_saved;                     /* fc_saved is valid. */
    struct rte_eth_fc_conf fc_saved;    /* rte_eth_dev_flow_ctrl_get(). */
    bool allmulti_by_pfc;               /* PFC turned all-multicast on. */
    enum pfc_mac_control mac_control;   /* [L] How MAC Control frames reach
                                         * this switch. */
    char driver[32];                    /* [L] DPDK driver name. */
    bool lsc_interrupt;                 /* [L] The link state is read on
                                         * the NIC's interrupt, not polled
                                         * (netdev-dpdk polls it every
                                         * 5 s). */
    bool lsc_capable;                   /* [L] The driver has a link state
                                         * interrupt. */
};

/* Receive side: the pause timers (seed 000 4.4), and the rx queue polls
 * that the end of a pause waits for (pfc_pause_holds()).  The PMD thread
 * that reads a PFC frame sets the timers under 'lock' [L] and publishes
 * them in the atomics, which transmit threads read without a lock. */
struct pfc_port_rx {
    struct pfc_pause pause;             /* [L] */
    struct pfc_timebase tb;             /* [L] TSC hz and link speed. */
    bool speed_from_link;               /* [L] tb.link_speed is the link's; if
                                         * neither this nor the QoS key
                                         * link-speed gave it, it is
                                         * PFC_FALLBACK_LINK_SPEED, until the
                                         * link comes up
                                         * (netdev_dpdk_pfc_bind()). */
    uint64_t poll_cap;                  /* [L] PFC_POLL_CAP_MS, TSC cycles. */
    uint64_t adopt;                     /* [L] PFC_ADOPT_MS, TSC cycles. */
    atomic_uint64_t until[PFC_N_PRIOS]; /* Copy of pause.until[], TSC cycles,
                                         * for lock-free reads. */
    atomic_uint64_t max_until;          /* Largest of until[], TSC cycles. */
    atomic_uint8_t xon;                 /* Copy of pause.xon: the priorities
                                         * whose pause an XON ended. */
    atomic_uint64_t pause_gen;          /* Incremented, with release order,
                                         * after until[] and max_until change
                                         * (pfc_port_publish()), so that
                                         * transmit threads can cache what they
                                         * derive from them. */
    atomic_uint64_t pause_read;         /* TSC at which the PFC frame that last
                                         * changed until[] was read: for the
                                         * USDT probe "paused". */
    atomic_uint32_t n_rxq;              /* Rx queues of the port. */
    atomic_uint64_t rxq_polled[RTE_MAX_QUEUES_PER_PORT];
                                        /* Per rx queue: TSC at the start of
                                         * its last poll that emptied the
                                         * rx ring, stored with release
                                         * order after the frames of that
                                         * poll took effect.  Kept up to
                                         * date only while it is before
                                         * max_until. */
    struct pfc_rxq_drain rxq_drain[RTE_MAX_QUEUES_PER_PORT];
                                        /* Per rx queue, its polls that did
                                         * not empty the ring, for a stamp
                                         * all the same (pfc_rxq_drain_poll();
                                         * only the thread that polls the
                                         * queue uses it). */
    atomic_uint32_t rxq_desc;           /* Descriptors per rx queue. */
    atomic_uint64_t late_bound;         /* A pause that ends later than this
                                         * after its expiry, TSC cycles, is
                                         * late: twice the time the link fills
                                         * an rx ring, plus PFC_LATE_SLACK_US.
                                         * */
    atomic_uint64_t late_ends[PFC_N_PRIOS]; /* Late pause ends. */
    atomic_uint64_t late_counted[PFC_N_PRIOS]; /* until[] of the last one
                                                * counted. */
};

/* The priority groups of the port as an ingress (lib/pfc-buffer.h): what
 * its packets occupy wherever they are held, their thresholds, and the
 * XOFF state towards the link partner.  The occupancy is atomics, charged
 * and released by whichever transmit thread holds each packet; the XOFF
 * state is under 'lock' [L], run by the thread that flushes the port. */
struct pfc_port_buf {
    atomic_uint64_t occ_bytes[PFC_N_PRIOS]; /* Bytes held. */
    atomic_uint64_t pg_cells[PFC_N_PRIOS]; /* Cells held: shared in bits 0..31,
                                            * headroom in bits 32..63. */
    atomic_uint64_t hdrm_drops[PFC_N_PRIOS]; /* Lossless packets dropped
                                              * because the group's headroom
                                              * was full. */
    atomic_uint64_t pub;                /* Thresholds of the groups
                                         * (pfc_buf_pub_pack()), 0 while the
                                         * port has no PFC. */
    atomic_uint64_t xoff_bytes_pub;     /* Static XOFF, bytes, or UINT64_MAX.
                                         * */
    atomic_uint64_t mbufs;              /* What the port may hold of its
                                         * mempool, cells. */
    atomic_uint64_t reserved;           /* Headroom it reserves, cells: per
                                         * lossless group, times the lossless
                                         * priorities. */
    atomic_uint64_t xoff_crossed[PFC_N_PRIOS]; /* TSC at which a group last
                                                * went over, for the USDT probe
                                                * "tx_frame" (only with
                                                * HAVE_USDT_PROBES). */
    struct pfc_xoff xoff;               /* [L] */
    /* Watermarks (pfc/watermark), raised at admission: of each priority
     * group of this port as ingress, its shared cells, headroom cells and
     * bytes; of each traffic class of this port as egress, the packets it
     * holds on all its tx queues, and of them the lossy ones.  Reset when
     * the port is removed (pfc_port_wm_reset()). */
    struct pfc_wm wm_shared[PFC_N_PRIOS];
    struct pfc_wm wm_headroom[PFC_N_PRIOS];
    struct pfc_wm wm_bytes[PFC_N_PRIOS];
    struct pfc_wm wm_held[PFC_N_PRIOS];
    struct pfc_wm wm_lossy[PFC_N_PRIOS];
};

/* PFC watchdog (lib/pfc-wd.h): storms of PFC frames received on this
 * port.  Checked under 'lock' [L] at most every PFC_WD_CHECK_MS by a
 * thread that flushes the port (pfc_wd_check()); the verdicts are
 * published in atomics for the receive and transmit paths. */
struct pfc_port_wd {
    struct pfc_wd state;                /* [L] */
    struct pfc_wd_params params;        /* [L] From the QoS in force. */
    atomic_uint64_t next_check;         /* TSC of the next check. */
    atomic_bool watching;               /* params.detect_ticks is not 0: a
                                         * quiet ends at the next check. */
    atomic_uint8_t ignored;             /* pfc_wd_ignored() and */
    atomic_uint8_t dropped;             /* pfc_wd_dropped(), published for
                                         * lock-free reads; a change bumps
                                         * pause_gen. */
    atomic_uint8_t stormed;             /* wd.stormed, published: while nonzero
                                         * the port is flushed, and so checked,
                                         * every iteration. */
    atomic_uint64_t tx_dropped[PFC_N_PRIOS]; /* Packets of a stormed priority
                                              * dropped at this egress (drop).
                                              * */
    atomic_uint64_t tx_forwarded[PFC_N_PRIOS]; /* Sent during a storm
                                                * (forward). */
    atomic_uint64_t rx_dropped[PFC_N_PRIOS]; /* Received on this port during
                                              * its storm and dropped (drop).
                                              * */
};

/* DCBX (lib/pfc-dcbx.h), on ethernet ports with dcbx=ieee.  A PMD thread
 * parses received LLDPDUs under 'lock' [L]; the main thread ages the
 * partner, builds the LLDPDUs to send, and applies a new operational
 * vector (netdev_dpdk_pfc_run()); a PMD thread that flushes the port
 * sends them (pfc_tx_lldp()). */
struct pfc_port_dcbx {
    atomic_bool on;                     /* LLDPDUs to 01-80-C2-00-00-0E are
                                         * consumed at rx. */
    struct pfc_dcbx state;              /* [L] */
    struct pfc_dcbx_params params;      /* [L] */
    bool changed;                       /* [L] dcbx.oper changed since the QoS
                                         * object in force took it. */
    const char *error;                  /* [L] Why the last malformed LLDPDU
                                         * was ignored, or NULL. */
    uint8_t lldp_frame[PFC_LLDP_FRAME_MAX]; /* [L] The next LLDPDU, */
    uint16_t lldp_len;                  /* [L] octets. */
    atomic_bool lldp_due;               /* Send lldp_frame at the next flush.
                                         * */
};

/* vhost-user ports only: backpressure instead of PFC frames
 * (lib/pfc-buffer.h, pfc_backpressure_next()).  Set by transmit threads
 * under 'lock' [L], published in atomics for the receive path. */
struct pfc_port_vhost {
    atomic_bool guest;                  /* The last transmit call named a guest
                                         * (for pfc/show only: each call passes
                                         * its own device id). */
    atomic_uint8_t bp_stopped;          /* Priorities that stop the guest's
                                         * transmit (this switch does not
                                         * dequeue its virtqueues). */
    uint64_t bp_since;                  /* [L] TSC of the last stop. */
    uint64_t bp_stops;                  /* [L] Running -> stopped. */
    uint64_t bp_cycles;                 /* [L] TSC cycles stopped, up to the
                                         * last resume. */
    uint64_t bp_stops_prio[PFC_N_PRIOS]; /* [L] Stops that priority n started
                                          * or joined. */
};

/* ETS (lib/pfc-ets.h): what the scheduler sent from a backlog, per
 * traffic class, over the life of the process.  Added to once per burst by
 * the transmit thread that sent it; pfc/show's marks are the main
 * thread's. */
struct pfc_port_ets {
    atomic_uint64_t pkts[PFC_N_PRIOS];
    atomic_uint64_t bytes[PFC_N_PRIOS];
    uint64_t shown[PFC_N_PRIOS];        /* 'bytes' at the last pfc/show, main
                                         * thread. */
    long long int shown_ms;             /* time_msec() of it. */
};

/* ECN marking at this port as egress (lib/pfc-ecn.h), per traffic class:
 * what transmit threads saw of the packets that joined a class queue whose
 * class has ECN keys. */
struct pfc_port_ecn {
    atomic_uint64_t ect[PFC_N_PRIOS];       /* ECN-capable (ECT(0), ECT(1)
                                             * or CE) packets judged. */
    atomic_uint64_t marked[PFC_N_PRIOS];    /* Of them, marked CE here. */
    atomic_uint64_t not_ect[PFC_N_PRIOS];   /* Not-ECT packets that joined
                                             * the class above its
                                             * ecn-min-threshold: left
                                             * unmarked. */
};

/* The quiet of the flush pass (struct pfc_quiet, lib/pfc-send.h) of the QoS
 * object in force on a port: noted under the lock of the one tx queue that
 * holds (pfc_quiet_note()), read and ended lock-free (pfc_quiet_end()).
 * While 'off', the reason for deferred work that the tx queue counts
 * (pfc_txq_note_flush()) is taken off netdev_tx_flush_want()'s count, so
 * that the PMD threads' flush pass, which runs while the count is not 0,
 * asks no port for its sake.  The end of the quiet puts it back: a change
 * of pause_gen (pfc_port_bump_gen()), a poll of the port's rx queues at or
 * after 'until' (pfc_quiet_expire()), the tx queue that stops holding, any
 * packet held, a reconfiguration; and, should the port's rx queues stop
 * being polled, the main thread (netdev_dpdk_pfc_run()).  A port none of
 * whose rx queues was polled lately gets no quiet (pfc_quiet_may_note()). */
struct pfc_port_quiet {
    atomic_uint64_t until;              /* TSC; 0: no quiet. */
    atomic_uint64_t gen;                /* rx.pause_gen noted. */
    atomic_uint64_t holding;            /* conf->holding noted. */
    atomic_bool off;                    /* The tx queue's reason is off
                                         * the count. */
};

/* The state of PFC on one DPDK port (pfc_ports[], by port id), kept across
 * its QoS objects.  Its members are grouped by concern, each group with its
 * threads: the NIC ('hw'), the receive side and its pause timers ('rx'),
 * the port's priority groups and XOFF state ('buf'), the watchdog ('wd'),
 * DCBX ('dcbx'), vhost-user backpressure ('vhost'), the flush pass's quiet
 * ('quiet') and the ETS figures ('ets').  One spinlock, 'lock', protects
 * every member marked [L], in whichever group: the PFC frame that a PMD
 * thread reads, the XOFF it sends, the watchdog's verdict and DCBX's
 * negotiation change together (a pause ends an XOFF refresh, a storm
 * ignores a pause, an adopted vector changes both), and no thread takes it
 * for more than a bounded update: never across a driver call, an
 * allocation or a log.  Members not marked [L] are atomics, read without a
 * lock, or written by one thread only, as noted. */
struct pfc_port {
    rte_spinlock_t lock;                /* Protects the members marked [L]. */

    /* Written by the main thread under 'lock', read by PMD threads. */
    atomic_bool active;                 /* The port has QoS type pfc: its MAC
                                         * Control frames are consumed at rx.
                                         * */
    struct netdev_dpdk_pfc *conf;       /* [L] Current QoS object, or NULL. */
    char name[64];                      /* [L] Netdev name, for pfc/show. */
    struct eth_addr mac;                /* [L] Source address of sent PFC
                                         * frames. */
    bool dead;                          /* [L] The netdev was destroyed. */
    char *last_error;                   /* [L] Why the last configuration was
                                         * refused, or NULL. */
    uint64_t tx_full_held;              /* [L] Packets that the tx ring refused
                                         * and that were held instead of
                                         * dropped, by QoS objects destroyed
                                         * since. */
    atomic_uint64_t tx_lldp_filtered;   /* LLDPDUs of other ports that
                                         * netdev_dpdk_pfc_filter_tx() kept off
                                         * a DCBX port. */
    atomic_uint64_t tx_mac_control_filtered; /* Frames that the datapath sent
                                              * to the port and that
                                              * netdev_dpdk_pfc_filter_tx()
                                              * dropped. */
    atomic_uint64_t held_dropped;       /* Held packets freed outside the
                                         * transmit call that took them
                                         * (reconfiguration, tx preparation
                                         * failure, port deletion), for
                                         * tx_dropped. */
    bool flush_wanted;                  /* [L] Counted in
                                         * netdev_tx_flush_want()
                                         * (pfc_port_note_flush()). */
    atomic_uint8_t down;                /* NETDEV_PFC_DOWN_* bits: the port is
                                         * down, administratively or its link,
                                         * and PFC holds nothing for it
                                         * (netdev_dpdk_pfc_port_down()). Kept
                                         * across QoS objects. */

    struct pfc_counters counters;       /* [L] */
    OVSRCU_TYPE(const struct pfc_classifier *) cls; /* The ingress rule in
                                                     * force (trust,
                                                     * default-priority,
                                                     * dscp-map): a copy of
                                                     * conf->cls, with DCBX's
                                                     * operational DSCP map if
                                                     * it adopted the
                                                     * partner's; replaced
                                                     * under 'lock' and freed
                                                     * by RCU
                                                     * (pfc_cls_publish()). */

    struct pfc_port_hw hw;
    struct pfc_port_rx rx;
    struct pfc_port_buf buf;
    struct pfc_port_wd wd;
    struct pfc_port_dcbx dcbx;
    struct pfc_port_vhost vhost;
    struct pfc_port_quiet quiet;
    struct pfc_port_ets ets;
    struct pfc_port_ecn ecn;
};

/* lib/netdev-dpdk-pfc-rx.c. */
void pfc_cls_publish(struct pfc_port *);

/* lib/netdev-dpdk-pfc-ports.c. */
extern struct pfc_port pfc_ports[PFC_N_PORTS];

/* True if 'port' is the state of a vhost-user port. */
static inline bool
pfc_port_is_vhost(const struct pfc_port *port)
{
    return port - pfc_ports >= RTE_MAX_ETHPORTS;
}

/* The traffic class queues of one tx queue of a port (see the opening
 * comment).  Members other than 'lock' and the atomics are used under
 * 'lock'. */
struct pfc_txq {
    rte_spinlock_t lock;
    struct netdev_dpdk_pfc *owner;  /* The QoS object of this tx queue. */
    struct pfc_holdq q[PFC_N_PRIOS];    /* Traffic class queues. */
    uint32_t n_held;                /* Packets in all of q[]. */
    bool high_noted;                /* Tx queue 63 or up, counted in its
                                     * object's n_high_holding. */
    bool flush_wanted;              /* Holds packets: counted in
                                     * netdev_tx_flush_want(). */
    uint8_t nonempty;               /* Traffic classes with packets in q[],
                                     * one bit per class. */
    bool requeue;                   /* The main thread is moving what q[]
                                     * held (pfc_requeue()): send nothing
                                     * from q[], hold every packet. */
    atomic_uint8_t moved_tcs;       /* Traffic classes that held a packet
                                     * that set_queue moved there since
                                     * they were last empty (written under
                                     * 'lock', read by the watchdog), */
    uint8_t moved[PFC_N_PRIOS];     /* and per such class, the priorities
                                     * of those packets
                                     * (pfc_send_blocked_moved()). */

    /* pfc_blocked() caches its answer: 'blocked' holds while
     * port->rx.pause_gen equals 'blocked_gen' and the TSC is below
     * 'blocked_until' (0 forces a new evaluation). */
    uint8_t blocked;                /* Traffic classes, one bit each. */
    uint64_t blocked_gen;           /* port->rx.pause_gen. */
    uint64_t blocked_until;         /* TSC cycles. */
    uint8_t wd_ignored;             /* port->wd.ignored and .dropped, */
    uint8_t wd_dropped;             /* cached with 'blocked'. */

    atomic_uint64_t serviced;       /* TSC of the last time a thread serviced
                                     * this queue, for PFC_ADOPT_MS. */
    atomic_uint64_t held_pkts[PFC_N_PRIOS];     /* Per priority, packets. */
    atomic_uint64_t held_bytes[PFC_N_PRIOS];    /* Per priority, bytes. */
    atomic_uint64_t hold_drops[PFC_N_PRIOS];    /* Per priority, packets
                                                 * dropped on a full class
                                                 * queue since bind.  Folded
                                                 * into the port's counters
                                                 * on destroy. */
    atomic_uint64_t tx_full_held;   /* Packets held because the tx ring was
                                     * full, since bind (idem). */
    struct pfc_buf_cache cache;     /* Shared cells taken from pfc_pool. */
    struct pfc_ets ets;             /* Deficit round robin of its ETS
                                     * classes. */

    /* vhost-user ports only, for the watchdog (pfc_wd_vq_stalled()): the
     * guest's receive queue of this queue pair. */
    atomic_uint64_t vq_refused;     /* Transmit attempts it refused in part
                                     * or whole. */
    bool vq_disabled;               /* The guest disabled it: what is held
                                     * here moved to the queue pair that
                                     * serves it now, and what comes late
                                     * is freed (pfc_service()). */
    atomic_uint64_t vq_taken;       /* Packets it took. */
    struct pfc_wd_vq wd_vq;         /* The two, at the last watchdog check,
                                     * under port->lock. */

    /* Ports with a MAC only, for the watchdog (pfc_wd_txq_stalled()). */
    atomic_uint64_t left[PFC_N_PRIOS];  /* Per traffic class, held packets
                                         * that left for the tx ring. */
    struct pfc_wd_txq wd_txq;       /* What the last watchdog check saw,
                                     * under port->lock. */
} __attribute__((aligned(CACHE_LINE_SIZE)));

/* Notes that traffic class 'tc' of tx queue 't' is empty: it no longer
 * holds a packet that set_queue moved there.  The caller holds t->lock, or
 * no transmit thread uses 't'. */
static inline void
pfc_txq_class_empty(struct pfc_txq *t, int tc)
{
    uint8_t moved;

    t->nonempty &= ~(1u << tc);
    atomic_read_relaxed(&t->moved_tcs, &moved);
    if (OVS_UNLIKELY(moved)) {
        atomic_store_relaxed(&t->moved_tcs, moved & ~(1u << tc));
        t->moved[tc] = 0;
    }
}

/* Notes that every traffic class of tx queue 't' is empty (idem). */
static inline void
pfc_txq_all_empty(struct pfc_txq *t)
{
    t->nonempty = 0;
    atomic_store_relaxed(&t->moved_tcs, 0);
    memset(t->moved, 0, sizeof t->moved);
}

/* What transmit threads read of a QoS object without its port's lock, as
 * its last bind (or retirement) made it.  A block is never changed once
 * published: a rebind (link up, MTU) publishes a new one (pfc_bound_set())
 * and the old one is freed after an RCU grace period, so that a reader
 * sees one bind's parameters whole, never half of each. */
struct pfc_bound {
    struct pfc_xoff_params xparams; /* pfc-enable, thresholds, pause-quanta
                                     * and the port's timebase, for
                                     * pfc_xoff_run(), pfc_control_pending()
                                     * and guest backpressure. */
    struct pfc_buf_egress_params eparams;   /* Bound of its traffic class
                                             * queues. */
};

/* A QoS object of type "pfc". */
struct netdev_dpdk_pfc {
    bool retired;                   /* Replaced: its held packets moved to
                                     * 'next', or, if 'next' is NULL, it no
                                     * longer applies (packets go out as on
                                     * a port without QoS).  Written with
                                     * every txq[].lock held, so that it
                                     * can be read under any one. */
    struct netdev_dpdk_pfc *next;   /* The object that replaced it. */
    bool retiring;                  /* PFC is being removed from the port
                                     * (netdev_dpdk_pfc_retire()). */
    bool retire_counted;            /* Counted in pfc_n_retiring. */
    long long int retire_deadline;  /* Retiring: time_msec() after which
                                     * what it holds is freed. */
    bool keep_map;                  /* Made by DCBX setting the QoS again:
                                     * takes the priority map of the object
                                     * it replaces. */
    struct pfc_classifier cls;      /* Ingress rule from 'cfg', set at
                                     * create, immutable. */
    atomic_uint32_t held_prio[PFC_N_PRIOS];     /* Packets held, per
                                                 * priority, on all its tx
                                                 * queues: the occupancy
                                                 * that the egress bound
                                                 * judges, per port and
                                                 * class. */
    atomic_uint32_t lossy_prio[PFC_N_PRIOS];    /* Of which lossy. */
    struct pfc_config cfg;          /* Written with every txq[].lock held
                                     * (set_queue()), read by PMDs under
                                     * one. */
    struct pfc_thresholds thr;      /* XOFF/XON in force, set at bind. */
    OVSRCU_TYPE(struct pfc_bound *) bound;  /* pfc_bound(): never NULL. */
    struct pfc_port *port;          /* Bound port, NULL before bind. */
    struct pfc_txq *txq;            /* One per tx queue of the port. */
    int n_txq;                      /* Elements in 'txq' (0 before bind). */
    atomic_uint64_t holding;        /* Bit qid set while tx queue qid may
                                     * hold packets; bit 63 while any of
                                     * tx queues 63 and up does. */
    atomic_uint32_t n_high_holding; /* Tx queues 63 and up that hold. */

    /* ETS (lib/pfc-ets.h). */
    struct pfc_ets_params ets;      /* In force: written with every
                                     * txq[].lock held, read under one. */
    struct pfc_ets_params ets_admin;    /* The Queue rows' ETS, last valid:
                                         * in force unless DCBX adopted the
                                         * partner's recommendation.  Main
                                         * thread. */
    char *ets_error;                /* Why the Queue rows' ETS keys (cfg)
                                     * are not in force, or NULL.  Main
                                     * thread. */
    bool ets_logged;                /* ets_error was logged. */
    struct pfc_shaper_params sparams;   /* max-rate, set at bind. */
    rte_spinlock_t shaper_lock;     /* Protects 'shaper': taken briefly,
                                     * never across a driver call. */
    struct pfc_shaper shaper;       /* The port shaper, shared by its tx
                                     * queues. */
    atomic_uint64_t shaper_waited;  /* TSC at which a tx queue last found
                                     * the shaper without tokens: the
                                     * watchdog does not take the wait it
                                     * causes for a stall. */
};

/* Returns the parameters of the last bind of 'pfc' (struct pfc_bound).  A
 * caller that is not the main thread may use them until it quiesces. */
static inline const struct pfc_bound *
pfc_bound(const struct netdev_dpdk_pfc *pfc)
{
    return ovsrcu_get(struct pfc_bound *, &pfc->bound);
}

struct pfc_bound *pfc_bound_swap(struct netdev_dpdk_pfc *,
                                 struct pfc_bound *);
void pfc_bound_set(struct netdev_dpdk_pfc *, const struct pfc_bound *);

/* lib/netdev-dpdk-pfc-ports.c. */
void netdev_dpdk_pfc_ports_init(void);
void pfc_port_wm_clear(struct pfc_port *);
void pfc_hold_ecn(struct netdev_dpdk_pfc *, int tc, struct rte_mbuf *,
                  const struct pfc_ecn_params *);
void pfc_watermark_register_commands(void);
void pfc_port_wm_reset(struct pfc_port *);

/* lib/netdev-dpdk-pfc-requeue.c: class queues that change. */
uint32_t pfc_class_slots(const struct pfc_config *, int tc);
void pfc_requeue(struct netdev_dpdk_pfc *, const struct pfc_config *);
void pfc_requeue_into(struct netdev_dpdk_pfc *old,
                      struct netdev_dpdk_pfc *new);
size_t pfc_requeue_vq(struct netdev_dpdk_pfc *, struct pfc_txq *from,
                      struct pfc_txq *dst, bool disabled, size_t *freed);
void pfc_class_queues_fit(struct netdev_dpdk_pfc *);

/* lib/netdev-dpdk-pfc.c: the tx queues of a QoS object. */
void pfc_txq_need(const struct pfc_txq *from, const uint8_t prio_to_tc[],
                  uint32_t need[PFC_N_PRIOS]);
void pfc_txq_move(struct pfc_txq *from, struct pfc_txq *to,
                  const uint8_t prio_to_tc[]);
void pfc_txqs_resize(struct netdev_dpdk_pfc *, int n);

/* lib/netdev-dpdk-pfc-nic.c. */
/* Link speed assumed when neither the link nor other_config:link-speed gives
 * one, in bit/s. */
#define PFC_FALLBACK_LINK_SPEED 10000000000ULL
uint64_t pfc_link_speed(uint16_t port_id, bool *from_link);
bool pfc_ring_limits_get(uint16_t port_id, struct pfc_ring_limits *);
enum pfc_mac_control pfc_mac_control_setup(
    struct pfc_port *, uint16_t port_id, const char *driver, bool trust,
    struct pfc_mac_control_answers *, char **reason);
void pfc_nic_restore(struct pfc_port *);
struct netdev_dpdk_pfc_port_info;
void pfc_nic_log_xoff_delay(const struct netdev_dpdk_pfc *,
                            const struct netdev_dpdk_pfc_port_info *);

/* lib/netdev-dpdk-pfc-retire.c. */
extern atomic_uint pfc_n_retiring;

/* The shared pool of the buffer (lib/netdev-dpdk-pfc-buffer.c). */
struct pfc_pool {
    atomic_uint64_t used;       /* Shared cells taken by tx queue caches. */
    atomic_uint64_t shared;     /* Shared cells in all. */
    atomic_uint64_t total;      /* Cells in all (pfc_buf_size()). */
    atomic_uint64_t reserved;   /* Headroom cells reserved. */
    struct pfc_wm wm;           /* Watermark of 'used'. */
};

extern struct pfc_pool pfc_pool;

/* Returns the free cells of the shared pool.  Racy by design: one read per
 * batch. */
static inline uint64_t
pfc_pool_free(void)
{
    uint64_t shared, used;

    atomic_read_relaxed(&pfc_pool.shared, &shared);
    atomic_read_relaxed(&pfc_pool.used, &used);
    return shared > used ? shared - used : 0;
}

/* Returns the earliest poll stamp over the rx queues of 'port' that MAC
 * Control frames may reach (all of them, or the one of their own), with
 * acquire order: the pause timers read after it include every PFC frame
 * that those polls read. */
static inline uint64_t
pfc_rx_polled(struct pfc_port *port)
{
    uint64_t polled = UINT64_MAX;
    uint32_t n_rxq;

    uint64_t since = UINT64_MAX;
    int mcq_queue;

    atomic_read_explicit(&port->hw.mcq_queue, &mcq_queue,
                         memory_order_acquire);
    if (mcq_queue >= 0) {
        /* MAC Control frames reach that rx queue alone, and the others only
         * until their first poll after the rule took effect. */
        atomic_read_relaxed(&port->hw.mcq_since, &since);
    }
    atomic_read_relaxed(&port->rx.n_rxq, &n_rxq);
    for (uint32_t i = 0; i < n_rxq; i++) {
        uint64_t p;

        atomic_read_explicit(&port->rx.rxq_polled[i], &p,
                             memory_order_acquire);
        if (i == mcq_queue || p < since) {
            polled = MIN(polled, p);
        }
    }
    return polled;
}

/* Sets '*g' to the occupancy of priority group 'prio' of 'port'.  Inline:
 * transmit paths read the groups of their port every batch. */
static inline void
pfc_port_pg(struct pfc_port *port, int prio, struct pfc_buf_pg *g)
{
    uint64_t cells;

    atomic_read_relaxed(&port->buf.pg_cells[prio], &cells);
    atomic_read_relaxed(&port->buf.occ_bytes[prio], &g->bytes);
    g->shared = cells;
    g->headroom = cells >> 32;
}

/* The occupancy of every priority group of 'port', into pg[]. */
static inline void
pfc_port_pgs(struct pfc_port *port, struct pfc_buf_pg pg[PFC_N_PRIOS])
{
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        pfc_port_pg(port, n, &pg[n]);
    }
}

void pfc_pool_resize(void);
bool pfc_pool_fits(const struct pfc_port *self, uint64_t mbufs,
                   uint64_t reserve, uint64_t *total, uint64_t *others);
uint64_t pfc_buf_pub_pack(uint8_t lossless, const struct pfc_buf_pg_params *);
bool pfc_port_pg_params(struct pfc_port *, int prio,
                        struct pfc_buf_pg_params *);

/* What admission (pfc_buf_txq_admit()) reads once per batch of one
 * pfc_send__() call, and what it learned from the batch so far. */
struct pfc_buf_batch {
    uint64_t free;              /* The shared pool's free cells (UINT64_MAX:
                                 * not read yet). */
    uint8_t lossy_full;         /* Traffic classes that refused a lossy
                                 * packet of this batch.  A lossy verdict of
                                 * pfc_buf_admit() depends on neither the
                                 * packet's length nor its group, and never
                                 * turns to "admit" as the class holds
                                 * more: with the pool's free cells read
                                 * once, the class's other lossy packets of
                                 * the batch are refused without reading
                                 * its occupancy again. */
};

enum pfc_buf_verdict pfc_buf_txq_admit(const struct netdev_dpdk_pfc *,
                                       struct pfc_txq *,
                                       const struct pfc_holdq *,
                                       struct pfc_held *,
                                       struct pfc_buf_batch *, bool copy);
void pfc_buf_txq_release(struct pfc_txq *, const struct pfc_held *);
void pfc_release(struct pfc_txq *, const struct pfc_held *);
void pfc_buf_txq_give_cache(struct pfc_txq *);


/* lib/netdev-dpdk-pfc-drain.c. */
void pfc_drain(struct netdev_dpdk_pfc *, struct pfc_txq *, int qid, int vid,
               uint8_t blocked, uint64_t now);
void pfc_txq_free_held(struct netdev_dpdk_pfc *, struct pfc_txq *);

/* lib/netdev-dpdk-pfc-ctrl.c. */
void pfc_tx_control(struct netdev_dpdk_pfc *, int qid, struct rte_mempool *,
                    uint64_t now);
void pfc_tx_lldp(struct netdev_dpdk_pfc *, int qid, struct rte_mempool *);

/* lib/netdev-dpdk-pfc-tx.c. */
int pfc_send_locked(struct netdev_dpdk_pfc *, int qid, struct rte_mempool *,
                    int vid, struct rte_mbuf **pkts, int cnt, int *n_taken,
                    int *n_dropped, int *n_refused);
void pfc_tx_flush(struct netdev_dpdk_pfc *, int qid, struct rte_mempool *,
                  int vid);
int pfc_tx_burst_blocking(struct pfc_port *, int qid, int vid,
                          struct rte_mbuf **pkts, int cnt);

/* lib/netdev-dpdk-pfc-wd.c. */
/* What one watchdog check found, for pfc_wd_log() to report once no lock
 * is held. */
struct pfc_wd_events {
    uint8_t detected;                   /* Priorities that became stormed. */
    uint8_t restored;                   /* And operational again. */
    uint64_t since[PFC_N_PRIOS];        /* TSC: start of the detection. */
    uint64_t stormed_at[PFC_N_PRIOS];   /* TSC: detection of the storm. */
    uint64_t now, hz;                   /* TSC of the check, TSC cycles/s. */
    enum pfc_wd_action action;
    uint32_t restore_ms;
    bool guest;                         /* A vhost-user port. */
    uint8_t timer;                      /* Priorities that the pause timers
                                         * paused at the check; the others
                                         * stalled without (a port with a
                                         * MAC). */
    char name[MEMBER_SIZEOF(struct pfc_port, name)];
};

void pfc_wd_publish(struct pfc_port *);
void pfc_wd_check(struct netdev_dpdk_pfc *, uint64_t now,
                  struct pfc_wd_events *);
void pfc_wd_log(const struct pfc_wd_events *);

/* lib/netdev-dpdk-pfc-steer.c. */
int pfc_mcq_apply(const char *name, uint16_t port_id, bool want,
                  bool rx_steering, bool redo, enum pfc_mcq *,
                  uint64_t *since);
void pfc_mcq_remove(struct pfc_port *);

/* lib/netdev-dpdk-pfc-vhost.c. */
struct pfc_port *pfc_vhost_port(const char *name);

/* lib/netdev-dpdk-pfc-dcbx.c. */
extern bool pfc_dcbx_applying;
void pfc_dcbx_ports_run(void);
void pfc_dcbx_ports_wait(void);
void pfc_dcbx_stop__(struct pfc_port *);
void pfc_dcbx_stop(struct pfc_port *);
void pfc_dcbx_bind(struct netdev_dpdk_pfc *, struct pfc_port *, bool first,
                   uint8_t max_lossless);

/* lib/netdev-dpdk-pfc-ets.c. */
void pfc_ets_log_errors(void);
void pfc_ets_wait(void);
void pfc_ets_update(struct netdev_dpdk_pfc *);
void pfc_ets_admin_tlv(const struct netdev_dpdk_pfc *, struct pfc_ets_tlv *);
void pfc_ets_params_from_tlv(struct pfc_ets_params *,
                             const struct pfc_ets_tlv *, uint32_t max_frame);

/* lib/netdev-dpdk-pfc-tx.c, besides the sending of packets. */
void pfc_txqs_lock(struct netdev_dpdk_pfc *);
void pfc_txqs_unlock(struct netdev_dpdk_pfc *);

/* Small helpers of the transmit path that several files use. */

/* Adds 'n' to 'counter', which only the holder of the lock of its tx queue
 * writes: a plain load and store, no locked instruction, for the transmit
 * path. */
static inline void
pfc_count(atomic_uint64_t *counter, uint64_t n)
{
    uint64_t v;

    atomic_read_relaxed(counter, &v);
    atomic_store_relaxed(counter, v + n);
}

/* Ends the quiet of 'port' (struct pfc_port_quiet), if any: a flush may
 * have work on what its tx queues hold.  Any thread.  Costs two loads if
 * there is no quiet. */
static inline void
pfc_quiet_end(struct pfc_port *port)
{
    uint64_t until;
    bool off;

    /* Sequentially consistent, as the store of pause_gen that may precede
     * (pfc_port_bump_gen()): see pfc_quiet_note().  Plain loads on x86. */
    atomic_read(&port->quiet.until, &until);
    atomic_read(&port->quiet.off, &off);
    if (until || off) {
        /* 'until' first: a quiet noted meanwhile either sees it or is
         * ended here (pfc_quiet_note()). */
        atomic_store(&port->quiet.until, 0);
        off = atomic_exchange(&port->quiet.off, false);
        if (off) {
            netdev_tx_flush_want(true);
        }
    }
}

/* How late, in ms, the main thread ends a quiet that no poll of its port's
 * rx queues ended (pfc_quiets_run()); also how lately one of those queues
 * must have been polled for a quiet to be noted (pfc_quiet_may_note()). */
#define PFC_QUIET_LATE_MS 10

/* Returns the latest poll stamp (TSC) of the rx queues of 'port', 0 if none
 * has one.  The stamps are kept while a pause is in force. */
static inline uint64_t
pfc_rx_polled_latest(struct pfc_port *port)
{
    uint64_t latest = 0;
    uint32_t n;

    atomic_read_relaxed(&port->rx.n_rxq, &n);
    for (uint32_t q = 0; q < MIN(n, RTE_MAX_QUEUES_PER_PORT); q++) {
        uint64_t polled;

        atomic_read_relaxed(&port->rx.rxq_polled[q], &polled);
        latest = MAX(latest, polled);
    }
    return latest;
}

/* Ends the quiet of 'port' if it ended by TSC 'now': for a poll of one of
 * the port's rx queues that began at 'now'. */
static inline void
pfc_quiet_expire(struct pfc_port *port, uint64_t now)
{
    uint64_t until;

    atomic_read_relaxed(&port->quiet.until, &until);
    if (OVS_UNLIKELY(until && now >= until)) {
        pfc_quiet_end(port);
    }
}

/* Tells transmit threads that port->rx.until[] changed (pause_gen), and
 * ends the port's quiet.  The caller holds port->lock. */
static inline void
pfc_port_bump_gen(struct pfc_port *port)
{
    uint64_t gen;

    atomic_read_relaxed(&port->rx.pause_gen, &gen);
    atomic_store_explicit(&port->rx.pause_gen, gen + 1, memory_order_seq_cst);
    pfc_quiet_end(port);
}

/* Adds 'h' to (sign > 0) or takes it off (sign < 0) the held counts of 't'.
 * Only the holder of t->lock writes them (pfc_count()). */
static inline void
pfc_txq_count_held(struct pfc_txq *t, const struct pfc_held *h, int sign)
{
    uint64_t len = h->len;
    uint32_t orig;

    pfc_count(&t->held_pkts[h->prio], sign > 0 ? 1 : UINT64_MAX);
    pfc_count(&t->held_bytes[h->prio], sign > 0 ? len : -len);
    if (sign > 0) {
        atomic_add_relaxed(&t->owner->held_prio[h->prio], 1, &orig);
        if (h->lossy) {
            atomic_add_relaxed(&t->owner->lossy_prio[h->prio], 1, &orig);
        }
    } else {
        atomic_sub_relaxed(&t->owner->held_prio[h->prio], 1, &orig);
        if (h->lossy) {
            atomic_sub_relaxed(&t->owner->lossy_prio[h->prio], 1, &orig);
        }
    }
}

/* Counts 'port' in netdev_tx_flush_want() while a flush has work on it
 * other than held packets: an XOFF in force (its refresh, or the XON that
 * ends it), a storm (the watchdog checks every iteration), or an LLDPDU to
 * send.  An XOFF becomes due only while packets are held, which their tx
 * queues count (pfc_txq_note_flush()).  A port that is down has no such
 * work (netdev_dpdk_pfc_tx_flush_pending()): it sends nothing.  Called
 * after each change of buf.xoff.asserted, wd.stormed, dcbx.lldp_due and
 * 'down', all made under port->lock.  The caller holds port->lock. */
static inline void
pfc_port_note_flush(struct pfc_port *port)
{
    uint8_t stormed, down;
    bool due, want;

    atomic_read_relaxed(&port->wd.stormed, &stormed);
    atomic_read_relaxed(&port->dcbx.lldp_due, &due);
    atomic_read_relaxed(&port->down, &down);
    want = !down && (port->buf.xoff.asserted || stormed || due);
    if (want != port->flush_wanted) {
        port->flush_wanted = want;
        netdev_tx_flush_want(want);
    }
}

/* Counts tx queue 't' in netdev_tx_flush_want() while it holds packets, so
 * that PMD threads look for PFC work (netdev_dpdk_pfc_tx_flush_pending())
 * while it does.  With 'gone', 't' is being destroyed: the count ends.
 * The caller holds t->lock, or owns 't'. */
static inline void
pfc_txq_note_flush__(struct pfc_txq *t, bool gone)
{
    bool want = t->n_held && !gone;

    if (!want && t->flush_wanted && t->owner->port) {
        /* A quiet took this reason off the count: it ends first. */
        pfc_quiet_end(t->owner->port);
    }
    if (want != t->flush_wanted) {
        t->flush_wanted = want;
        netdev_tx_flush_want(want);
    }
}

static inline void
pfc_txq_note_flush(struct pfc_txq *t)
{
    pfc_txq_note_flush__(t, false);
}

/* Notes in pfc->holding whether tx queue 't' of 'pfc' holds packets.  Bit
 * 63 stands for tx queues 63 and up: it is set while any of them holds
 * (pfc->n_high_holding), and cleared once none does.  The caller holds
 * t->lock. */
static inline void
pfc_note_holding(struct netdev_dpdk_pfc *pfc, struct pfc_txq *t)
{
    int qid = t - pfc->txq;
    uint64_t bit = UINT64_C(1) << MIN(qid, 63);
    uint64_t orig;
    uint32_t n;

    pfc_txq_note_flush(t);
    if (qid < 63) {
        if (t->n_held) {
            atomic_read_relaxed(&pfc->holding, &orig);
            if (!(orig & bit)) {
                atomic_or_relaxed(&pfc->holding, bit, &orig);
            }
        } else {
            atomic_and_relaxed(&pfc->holding, ~bit, &orig);
        }
    } else if (t->n_held && !t->high_noted) {
        t->high_noted = true;
        atomic_add(&pfc->n_high_holding, 1, &n);
        atomic_or(&pfc->holding, bit, &orig);
    } else if (!t->n_held && t->high_noted) {
        t->high_noted = false;
        atomic_sub(&pfc->n_high_holding, 1, &n);
        if (n == 1) {
            atomic_and(&pfc->holding, ~bit, &orig);
            /* Another of them may have started holding meanwhile. */
            atomic_read(&pfc->n_high_holding, &n);
            if (n) {
                atomic_or(&pfc->holding, bit, &orig);
            }
        }
    }
}

/* For the watchdog of a vhost-user port: counts that the guest's receive
 * queue of 't' took 'taken' of the 'offered' packets of one transmit
 * attempt (pfc_wd_vq_stalled()).  The caller holds t->lock. */
static inline void
pfc_vq_note(struct pfc_txq *t, uint16_t taken, uint16_t offered)
{
    if (taken) {
        pfc_count(&t->vq_taken, taken);
    }
    if (taken < offered) {
        pfc_count(&t->vq_refused, 1);
    }
}

/* The transmit path's helpers that lib/netdev-dpdk-pfc-tx.c, -drain.c and
 * -ctrl.c share, inline: they run per batch. */

/* The virtqueue in which a guest receives on its queue pair 'qp': the
 * receiveq of a virtio-net device is virtqueue 2 x qp, its transmitq the
 * next one (virtio 1.1, 5.1.2). */
#define PFC_VIRTQ_RX(qp) ((qp) * 2)

/* Hands up to 'n' packets, in order from pkts[0], to tx queue 'qid' of
 * 'port': the NIC's tx ring (rte_eth_tx_burst(), which takes the mbufs), or
 * for a vhost-user port the receive virtqueue of queue pair 'qid' of the
 * guest whose vhost device id is 'vid' (rte_vhost_enqueue_burst() copies
 * them: those it took are freed here).  'vid' is the one that the caller
 * read from the netdev for this call, never one kept from an earlier call:
 * a device id is reused by the next guest that connects.  Returns how many
 * were taken; the others stay with the caller.  A vhost port whose guest is
 * not there ('vid' < 0) takes nothing. */
static inline uint16_t
pfc_xmit(struct pfc_port *port, int qid, int vid, struct rte_mbuf **pkts,
         uint16_t n)
{
    uint16_t k;

    if (OVS_LIKELY(!pfc_port_is_vhost(port))) {
        return n ? rte_eth_tx_burst(port - pfc_ports, qid, pkts, n) : 0;
    }
    if (vid < 0 || !n) {
        return 0;
    }
    k = rte_vhost_enqueue_burst(vid, PFC_VIRTQ_RX(qid), pkts, n);
    if (k) {
        rte_pktmbuf_free_bulk(pkts, k);
    }
    return k;
}

/* Adds 'n', if nonzero, to a watchdog counter of a port, which any transmit
 * thread may write, only during a storm, once per batch. */
static inline void
pfc_count_storm(atomic_uint64_t *counter, uint64_t n)
{
    uint64_t orig;

    if (n) {
        atomic_add_relaxed(counter, n, &orig);
    }
}

/* Returns the bytes that the port shaper of 'pfc' (max-rate) lets leave at
 * TSC 'now': frames may leave while this is positive.  INT64_MAX without a
 * shaper. */
static inline int64_t
pfc_shaper_grant(struct netdev_dpdk_pfc *pfc, uint64_t now)
{
    int64_t tokens;

    if (OVS_LIKELY(!pfc->sparams.rate)) {
        return INT64_MAX;
    }
    rte_spinlock_lock(&pfc->shaper_lock);
    tokens = pfc_shaper_budget(&pfc->shaper, &pfc->sparams, now);
    rte_spinlock_unlock(&pfc->shaper_lock);
    if (tokens <= 0) {
        atomic_store_relaxed(&pfc->shaper_waited, now);
    }
    return tokens;
}

/* Takes 'bytes' that left the port from its shaper, if it has one. */
static inline void
pfc_shaper_spend(struct netdev_dpdk_pfc *pfc, uint64_t bytes)
{
    if (OVS_UNLIKELY(pfc->sparams.rate) && bytes) {
        rte_spinlock_lock(&pfc->shaper_lock);
        pfc_shaper_take(&pfc->shaper, bytes);
        rte_spinlock_unlock(&pfc->shaper_lock);
    }
}

/* Returns true if pfc_tx_control() may have a PFC frame to send for 'pfc':
 * pfc_xoff_action() is not PFC_XOFF_NONE for an enabled priority, or an XON
 * is owed for one no longer enabled; or if an LLDPDU is due
 * (pfc_tx_lldp()).  Lock-free: the reads of the occupancy
 * and of the XOFF state are racy, which is fine: the XOFF state changes only
 * under port->lock, and a stale value only costs taking it, or a frame one
 * call later.  Reads the TSC into '*now', if it is 0, only while an XOFF is
 * in force (its refresh time). */
static inline bool ALWAYS_INLINE
pfc_control_pending(const struct netdev_dpdk_pfc *pfc, uint64_t *now)
{
    const struct pfc_xoff_params *xp = &pfc_bound(pfc)->xparams;
    struct pfc_port *port = pfc->port;
    uint8_t asserted = port->buf.xoff.asserted;

    if (pfc_port_is_vhost(port)) {
        return false;           /* No PFC frames: backpressure instead. */
    }
    if (OVS_UNLIKELY(asserted & ~xp->enabled)) {
        return true;
    }

    bool lldp_due;

    atomic_read_relaxed(&port->dcbx.lldp_due, &lldp_due);
    if (OVS_UNLIKELY(lldp_due)) {
        return true;
    }

    uint64_t free = UINT64_MAX;

    for (uint32_t en = xp->enabled; en; en &= en - 1) {
        int n = raw_ctz(en);
        bool in_force = asserted & (1u << n);
        struct pfc_buf_pg g;
        uint64_t cells;

        /* A group's cell is charged before its bytes and released after
         * them (pfc_buf_txq_admit(), pfc_buf_txq_release()): without a
         * cell, nothing is held, and nothing is due.  One load per group
         * in the common case. */
        atomic_read_relaxed(&port->buf.pg_cells[n], &cells);
        if (!in_force && !cells) {
            continue;
        }
        pfc_port_pg(port, n, &g);
        if (in_force && !*now) {
            *now = rte_get_tsc_cycles();
        }
        if (free == UINT64_MAX) {
            free = pfc_pool_free();
        }
        if (pfc_buf_xoff_action(&xp->pg, &g, free, in_force,
                                port->buf.xoff.refresh_at[n], *now)
            != PFC_XOFF_NONE) {
            return true;
        }
    }
    return false;
}

#endif /* netdev-dpdk-pfc-private.h */
