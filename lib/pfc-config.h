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

#ifndef PFC_CONFIG_H
#define PFC_CONFIG_H 1

/* The configuration of a port with QoS type "pfc": its keys, their ranges
 * and defaults (vswitchd/vswitch.xml), parsed from and written back to an
 * smap by lib/pfc-config.c.  Pure: no DPDK. */

#include <stdbool.h>
#include <stdint.h>

#include "pfc.h"
#include "pfc-classify.h"
#include "pfc-ecn.h"
#include "pfc-wd.h"

struct ds;
struct smap;

/* Configuration of a port with QoS type "pfc" (vswitchd/vswitch.xml). */
struct pfc_config {
    uint8_t enabled;            /* The operational vector: bit n set for
                                 * each lossless priority n.  'admin',
                                 * unless DCBX adopted the link partner's
                                 * (lib/pfc-dcbx.h). */
    uint8_t admin;              /* pfc-enable, as configured.  Default:
                                 * none. */
    bool dcbx;                  /* dcbx=ieee (default "off"): IEEE 802.1Qaz
                                 * DCBX over LLDP (lib/pfc-dcbx.h). */
    bool dcbx_willing;          /* dcbx-willing (default true). */
    uint32_t lldp_tx_interval;  /* lldp-tx-interval, seconds,
                                 * PFC_LLDP_TX_INTERVAL_MIN..MAX (default
                                 * 30). */
    uint64_t xoff_threshold;    /* xoff-threshold, bytes per priority group
                                 * (ingress port, priority), 64..2^32-1, or
                                 * 0 if not set: then the threshold is
                                 * dynamic (dyn_th, lib/pfc-buffer.h). */
    uint64_t xon_threshold;     /* xon-threshold, bytes, 0..xoff_threshold-1.
                                 * Default: xoff_threshold / 2.  Only with
                                 * xoff-threshold. */
    bool xon_default;           /* True if xon_threshold was derived. */
    uint32_t cable_length;      /* cable-length, metres, 0..100000 (default
                                 * 100): input of the headroom model. */
    int headroom_model;         /* headroom-model, an enum
                                 * pfc_headroom_model (default annex-a). */
    uint32_t xon_hysteresis;    /* xon-hysteresis, cells, 1..65536, or 0
                                 * for half the dynamic threshold: XON =
                                 * threshold - hysteresis.  Only without
                                 * xoff-threshold. */
    uint16_t pause_quanta;      /* pause-quanta, 1..65535 (default 65535). */
    bool mac_control_trust;     /* mac-control=trust: MAC Control frames
                                 * are taken to reach this switch without
                                 * asking the NIC (default "auto": see
                                 * pfc_mac_control_decide()). */
    bool mac_control_queue;     /* mac-control-queue=true: MAC Control
                                 * frames get an rx queue of their own where
                                 * the NIC allows it (pfc_mcq_decide()).
                                 * Default false. */
    uint32_t queue_size;        /* queue-size: static bound on the cells
                                 * one traffic class queue holds,
                                 * 1..65536, or 0 (default) for the
                                 * dynamic share (lib/pfc-buffer.h). */
    int8_t dyn_th;              /* dynamic-th: alpha of this port's
                                 * lossless priority groups,
                                 * PFC_DYN_TH_MIN..MAX (default 0). */
    int8_t egress_dyn_th;       /* egress-dynamic-th: alpha of the share
                                 * of one of its traffic class queues
                                 * (default 1). */
    int8_t lossy_dyn_th;        /* lossy-dynamic-th: alpha of the lossy
                                 * cells one of its traffic class queues
                                 * holds (default -1). */
    uint8_t default_priority;   /* default-priority: the priority of the
                                 * untagged frames that the port receives
                                 * (and, under trust=dscp, of those that are
                                 * neither tagged nor IP), 0..7 (default
                                 * 0). */
    uint8_t trust;              /* trust: an enum pfc_trust, pcp (default)
                                 * or dscp: how the port classifies what it
                                 * receives (lib/pfc-classify.h). */
    uint8_t dscp_to_prio[64];   /* dscp-map over the default DSCP / 8,
                                 * each 0..7; only under trust=dscp. */
    struct pfc_rewrite rewrite; /* rewrite-pcp and rewrite-dscp: the
                                 * markings the port writes, from each
                                 * packet's priority, on what it sends. */
    uint64_t link_speed;        /* link-speed override in bit/s, 0 for the
                                 * link's own speed. */
    uint32_t tx_ring_size;      /* tx-ring-size: descriptors per tx queue,
                                 * 1..4096, or PFC_TX_RING_AUTO (the
                                 * smallest ring within the 802.1Qbb
                                 * response bound, seed 000 4.6; applying
                                 * it restarts the port) or
                                 * PFC_TX_RING_INTERFACE (default: the
                                 * Interface's options:n_txq_desc, so that
                                 * PFC never restarts the port).  See
                                 * pfc_tx_ring_size(). */
    uint8_t tc_prios[PFC_N_PRIOS];  /* Bit n of tc_prios[tc]: priority n was
                                     * mapped to class tc by queue tc's
                                     * other_config:priorities. */
    uint8_t queues;             /* Bit tc, 1..7: a Queue row configures
                                 * queue tc (traffic class tc), even with
                                 * no key: OpenFlow set_queue may choose it
                                 * (pfc_send_class()).  Never bit 0. */
    uint8_t prio_to_tc[PFC_N_PRIOS]; /* Traffic class of each priority,
                                      * derived from tc_prios; identity for
                                      * priorities no queue names. */
    uint32_t wd_detect_ms;      /* watchdog-detection-time, ms: 0 (watchdog
                                 * off) or PFC_WD_DETECT_MIN..
                                 * PFC_WD_DETECT_MAX (default 200). */
    uint32_t wd_restore_ms;     /* watchdog-restoration-time, ms,
                                 * PFC_WD_RESTORE_MIN..PFC_WD_RESTORE_MAX.
                                 * Default: twice wd_detect_ms, or twice
                                 * the default detection time when the
                                 * watchdog is off (then unused). */
    bool wd_restore_default;    /* True if wd_restore_ms was derived. */
    enum pfc_wd_action wd_action; /* watchdog-action (default drop). */
    uint64_t max_rate;          /* max-rate: port shaper, bit/s,
                                 * PFC_MAX_RATE_MIN..PFC_MAX_RATE_MAX, or 0
                                 * (default) for none (lib/pfc-ets.h). */
    uint8_t tsa_ets;            /* Bit tc: Queue tc has other_config:tsa=ets
                                 * (or tc-bw); the other classes are strict
                                 * priority, 802.1Q's default. */
    uint8_t tc_bw[PFC_N_PRIOS]; /* tc-bw of each ets class, percent,
                                 * 1..100; 0 for a strict class.  The sum
                                 * over the ets classes is checked once
                                 * every Queue is set
                                 * (pfc_ets_validate()). */
    struct pfc_ecn_params ecn;  /* The QoS row's ECN keys: the default of
                                 * every traffic class (lib/pfc-ecn.h). */
    struct pfc_ecn_params ecn_tc[PFC_N_PRIOS];  /* A Queue row's ECN keys,
                                                 * for its class, if on. */
};

/* The ECN marking of traffic class 'tc' under 'cfg': its Queue row's keys,
 * or else the QoS row's. */
static inline const struct pfc_ecn_params *
pfc_config_ecn(const struct pfc_config *cfg, int tc)
{
    return cfg->ecn_tc[tc].on ? &cfg->ecn_tc[tc] : &cfg->ecn;
}

/* Slots of the traffic class queue of a class that no enabled priority
 * maps to, without queue-size: lossy classes hold only what a full tx ring
 * refuses. */
#define PFC_LOSSY_QUEUE_SLOTS 1024
#define PFC_QUEUE_SIZE_MAX 65536
#define PFC_XOFF_MIN 64
#define PFC_XOFF_MAX UINT32_MAX
#define PFC_LINK_SPEED_MIN 1000000ULL           /* 1 Mb/s. */
#define PFC_LINK_SPEED_MAX 1000000000000ULL     /* 1 Tb/s. */
#define PFC_TX_RING_AUTO 0                      /* tx-ring-size=auto. */
#define PFC_TX_RING_INTERFACE UINT32_MAX        /* tx-ring-size=interface. */
#define PFC_TX_RING_MAX 4096    /* Descriptors: OVS's n_txq_desc limit. */

/* PFC watchdog times, ms.  The watchdog is on by default on every PFC port,
 * as SONiC's pfcwd start_default turns it on, with detection 200 ms and
 * action drop as there; restoration defaults to twice the detection time,
 * the default of SONiC's "pfcwd start" without -r (start_default itself
 * uses 200 ms).
 *
 * Detection: 0 (off) or 10..5000 ms.  SONiC's floor of 100 ms comes from
 * polling counters every 100 to 1000 ms; a PMD thread checks at every
 * iteration, so a lower floor works.  But detection must outlast the longest
 * legitimate pause, one frame of 65535 quanta without refresh: 3.4 ms at
 * 10 Gb/s, 33.6 ms at 1 Gb/s, 336 ms at 100 Mb/s.  10 ms covers 10 Gb/s and
 * faster with a margin of three; on slower links keep the default (200 ms
 * outlasts one maximal pause down to 168 Mb/s), and raise it below that.
 * The ceiling of 5000 ms is SONiC's: a longer storm has long since stalled
 * the ports that feed this one.
 *
 * Restoration: 10..60000 ms, SONiC's ceiling, with the same floor as
 * detection. */
#define PFC_WD_DETECT_DEFAULT 200
#define PFC_WD_DETECT_MIN 10
#define PFC_WD_DETECT_MAX 5000
#define PFC_WD_RESTORE_MIN 10
#define PFC_WD_RESTORE_MAX 60000

int pfc_config_parse(const struct smap *details, struct pfc_config *,
                     char **errp);
int pfc_config_set_queue(struct pfc_config *, uint32_t queue_id,
                         const struct smap *details, char **errp);
void pfc_config_clear_queue(struct pfc_config *, uint32_t queue_id);
void pfc_config_to_smap(const struct pfc_config *, struct smap *);
bool pfc_config_equal(const struct pfc_config *, const struct pfc_config *);
void pfc_format_prios(struct ds *, uint8_t prios);
const char *pfc_tx_ring_size_name(uint32_t size, struct ds *);

#endif /* pfc-config.h */
