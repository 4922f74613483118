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

/* DCBX (IEEE 802.1Qaz over LLDP) glue of PFC on DPDK ethernet ports
 * (lib/pfc-dcbx.h; the opening comment of lib/netdev-dpdk-pfc.c describes
 * the threads and locks): DCBX started, reconfigured and stopped as a QoS
 * object is bound or removed; and the main thread's part of 'run', which
 * ages the partner, prepares the LLDPDUs and applies a new operational
 * vector.  A PMD thread that flushes the port sends the LLDPDUs
 * (lib/netdev-dpdk-pfc-ctrl.c); received LLDPDUs are parsed in
 * lib/netdev-dpdk-pfc-rx.c; the ETS TLVs are lib/netdev-dpdk-pfc-ets.c's. */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "netdev.h"
#include "netdev-provider.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "pfc.h"
#include "pfc-dcbx.h"
#include "smap.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc_dcbx);

/* How often the main thread looks at the DCBX state of the ports, ms: the
 * delay before a partner's new vector is applied, and the precision of the
 * LLDPDU transmit timer and of the partner's Time To Live. */
#define PFC_DCBX_RUN_MS 100

/* True while pfc_dcbx_apply() sets a QoS again.  Main thread only. */
bool pfc_dcbx_applying;

/* Prepares in 'port' the LLDPDU that the next PMD thread to flush the port
 * sends (pfc_tx_lldp()), with a Time To Live of 'ttl' seconds (0: a
 * shutdown LLDPDU).  It advertises the administrative vector and the
 * willing bit, as IEEE 802.1Q-2018 clause 38 (symmetric attribute passing)
 * and lldpad do, and a PFC cap of 8; the operational ETS configuration
 * (ETS Configuration TLV) and the Queue rows' ETS as a recommendation (ETS
 * Recommendation TLV); with trust=dscp, the DSCP map (Application Priority
 * TLV).  The caller holds port->lock. */
static void
pfc_lldp_prepare(struct pfc_port *port, uint16_t ttl)
{
    struct pfc_dcbx_tlv tlv = {
        .willing = port->dcbx.params.willing,
        .cap = PFC_N_PRIOS,
        .enable = port->dcbx.params.admin,
    };

    struct pfc_app_tlv app;

    if (port->dcbx.params.app_dscp) {
        pfc_app_tlv_from_map(&app, port->dcbx.params.dscp_admin);
    }
    port->dcbx.lldp_len = pfc_lldpdu_build(port->dcbx.lldp_frame,
                                           sizeof port->dcbx.lldp_frame,
                                           port->mac, port->name, ttl, &tlv,
                                           &port->dcbx.state.ets_oper,
                                           &port->dcbx.params.ets_admin,
                                           port->dcbx.params.app_dscp
                                           ? &app : NULL);
    atomic_store_relaxed(&port->dcbx.lldp_due, port->dcbx.lldp_len != 0);
    pfc_port_note_flush(port);
}

/* Stops DCBX on 'port': no LLDPDU is consumed, sent or applied any more.
 * The partner ages out our information.  The caller holds port->lock. */
void
pfc_dcbx_stop__(struct pfc_port *port)
{
    atomic_store_relaxed(&port->dcbx.on, false);
    port->dcbx.changed = false;
    port->dcbx.state.ets_adopted = false;     /* The Queue rows' ETS again. */
    atomic_store_relaxed(&port->dcbx.lldp_due, false);
    pfc_port_note_flush(port);
}

/* pfc_dcbx_stop__() for a port whose PFC is being removed.  Takes
 * port->lock. */
void
pfc_dcbx_stop(struct pfc_port *port)
{
    rte_spinlock_lock(&port->lock);
    pfc_dcbx_stop__(port);
    rte_spinlock_unlock(&port->lock);
}

/* DCBX part of binding 'pfc' to 'port' (pfc_bind__()), under port->lock:
 * starts, reconfigures or stops DCBX on the port, whose buffer has room for
 * the headroom of at most 'max_lossless' lossless priorities (a partner's
 * vector of more is refused, pfc_dcbx_decide()), and, if 'pfc' is bound
 * for the first time (no PMD thread uses it yet), makes the operational
 * vector that DCBX decided its pfc->cfg.enabled. */
void
pfc_dcbx_bind(struct netdev_dpdk_pfc *pfc, struct pfc_port *port, bool first,
              uint8_t max_lossless)
{
    uint64_t now = rte_get_tsc_cycles();
    bool was_on;

    atomic_read_relaxed(&port->dcbx.on, &was_on);
    if (!pfc->cfg.dcbx) {
        pfc_dcbx_stop__(port);
        if (was_on) {
            /* A shutdown LLDPDU (Time To Live 0, IEEE 802.1AB-2016
             * 9.2.7.7.1), so that the partner forgets us at once. */
            pfc_lldp_prepare(port, 0);
        }
        if (first) {
            pfc->cfg.enabled = pfc->cfg.admin;
        }
        return;
    }

    struct pfc_dcbx_params dp = {
        .enabled = true,
        .willing = pfc->cfg.dcbx_willing,
        .admin = pfc->cfg.admin,
        .tx_interval = pfc->cfg.lldp_tx_interval,
        .app_dscp = pfc->cfg.trust == PFC_TRUST_DSCP,
        .limit_known = true,
        .max_lossless = max_lossless,
    };

    memcpy(dp.dscp_admin, pfc->cfg.dscp_to_prio, sizeof dp.dscp_admin);
    pfc_ets_admin_tlv(pfc, &dp.ets_admin);
    if (!was_on) {
        pfc_dcbx_init(&port->dcbx.state, &dp, now);
        port->dcbx.error = NULL;
    } else if (dp.willing != port->dcbx.params.willing
               || dp.admin != port->dcbx.params.admin
               || dp.tx_interval != port->dcbx.params.tx_interval
               || dp.max_lossless != port->dcbx.params.max_lossless
               || dp.app_dscp != port->dcbx.params.app_dscp
               || memcmp(dp.dscp_admin, port->dcbx.params.dscp_admin,
                         sizeof dp.dscp_admin)
               || memcmp(&dp.ets_admin, &port->dcbx.params.ets_admin,
                         sizeof dp.ets_admin)) {
        pfc_dcbx_reconfigure(&port->dcbx.state, &dp, port->mac, now);
    } else if (!first) {
        /* The port was reconfigured or its link came up: fast start
         * (IEEE 802.1AB-2016 9.2.7.7.2). */
        pfc_dcbx_fast_start(&port->dcbx.state, now);
    }
    port->dcbx.params = dp;
    if (first) {
        pfc->cfg.enabled = port->dcbx.state.oper;
        port->dcbx.changed = false;
        if (port->dcbx.state.ets_adopted) {
            /* No thread uses 'pfc' yet: no tx queue lock needed. */
            pfc_ets_params_from_tlv(&pfc->ets, &port->dcbx.state.ets_oper,
                                    port->hw.max_frame);
        }
    }
    atomic_store_relaxed(&port->dcbx.on, true);
}

/* Applies the operational vector that DCBX decided on the port named
 * 'name': sets its QoS again with the same configuration, which
 * netdev_dpdk_pfc_qos_is_equal() no longer finds equal, so that a new QoS
 * object with the vector in force replaces the old one, keeping its held
 * packets (netdev_dpdk_pfc_succeed()).  Main thread, no lock held. */
static void
pfc_dcbx_apply(const char *name)
{
    struct netdev *netdev = netdev_from_name(name);
    struct smap details = SMAP_INITIALIZER(&details);
    const char *type;

    if (!netdev) {
        return;
    }
    if (!netdev_get_qos(netdev, &type, &details) && !strcmp(type, "pfc")) {
        /* The new object keeps the Queue rows' priority map, which
         * 'details' do not carry (netdev_dpdk_pfc_succeed()). */
        pfc_dcbx_applying = true;
        netdev_set_qos(netdev, type, &details);
        pfc_dcbx_applying = false;
    }
    smap_destroy(&details);
    netdev_close(netdev);
}

/* From netdev 'run' of the DPDK ethernet class (netdev_dpdk_pfc_run()),
 * main thread: for every port with DCBX on, ages the partner, prepares the
 * LLDPDU when it is due (a PMD thread that flushes the port sends it,
 * pfc_tx_lldp()), and applies a new operational vector, ETS and DSCP
 * map. */
void
pfc_dcbx_ports_run(void)
{
    static long long int next_run;
    long long int now_ms = time_msec();
    uint64_t now;

    if (now_ms < next_run) {
        return;
    }
    next_run = now_ms + PFC_DCBX_RUN_MS;
    now = rte_get_tsc_cycles();
    for (int id = 0; id < RTE_MAX_ETHPORTS; id++) {
        struct pfc_port *port = &pfc_ports[id];
        char name[sizeof port->name];
        bool active, on, apply;
        uint8_t old, oper;

        atomic_read_relaxed(&port->active, &active);
        atomic_read_relaxed(&port->dcbx.on, &on);
        if (!active || !on) {
            continue;
        }
        rte_spinlock_lock(&port->lock);
        old = port->dcbx.state.oper;
        port->dcbx.changed |= pfc_dcbx_run(&port->dcbx.state,
                                           &port->dcbx.params, port->mac,
                                           now);
        oper = port->dcbx.state.oper;
        if (pfc_dcbx_tx_due(&port->dcbx.state, now)) {
            pfc_lldp_prepare(port, pfc_dcbx_ttl(&port->dcbx.params));
            pfc_dcbx_tx_done(&port->dcbx.state, &port->dcbx.params, now,
                             port->rx.tb.hz);
        }
        apply = port->dcbx.changed;
        port->dcbx.changed = false;
        bool ets_changed = port->dcbx.state.ets_changed;
        bool ets_adopted = port->dcbx.state.ets_adopted;
        bool app_changed = port->dcbx.state.app_changed;
        bool app_adopted = port->dcbx.state.app_adopted;

        port->dcbx.state.app_changed = false;
        ovs_strlcpy(name, port->name, sizeof name);
        rte_spinlock_unlock(&port->lock);

        if (ets_changed && port->conf) {
            VLOG_INFO("%s: DCBX: operational ETS: %s", name,
                      ets_adopted ? "the partner's recommendation"
                      : "the Queue rows' (other_config:tsa, tc-bw)");
            pfc_ets_update(port->conf);
        }

        if (app_changed) {
            VLOG_INFO("%s: DCBX: operational DSCP map: %s", name,
                      app_adopted ? "the partner's Application Priority "
                      "entries over dscp-map" : "dscp-map");
            pfc_cls_publish(port);
        }
        if (old != oper) {
            VLOG_INFO("%s: DCBX: the partner's Time To Live ran out: "
                      "operational PFC enable vector 0x%02"PRIx8" -> 0x%02"
                      PRIx8" (pfc-enable)", name, old, oper);
        }
        if (apply) {
            pfc_dcbx_apply(name);
        }
    }
}

/* From netdev 'wait' of the DPDK ethernet class (netdev_dpdk_pfc_wait()):
 * wakes the main thread for pfc_dcbx_ports_run() while a port has DCBX on. */
void
pfc_dcbx_ports_wait(void)
{
    for (int id = 0; id < RTE_MAX_ETHPORTS; id++) {
        bool active, on;

        atomic_read_relaxed(&pfc_ports[id].active, &active);
        atomic_read_relaxed(&pfc_ports[id].dcbx.on, &on);
        if (active && on) {
            poll_timer_wait(PFC_DCBX_RUN_MS);
            return;
        }
    }
}
