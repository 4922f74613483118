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

/* ETS glue of PFC on DPDK ports (lib/pfc-ets.h decides; the opening
 * comment of lib/netdev-dpdk-pfc.c describes the threads and locks): which
 * transmission selection a QoS object runs (the Queue rows' TSA and TC
 * bandwidth, or the partner's recommendation that DCBX adopted), the ETS
 * TLV that DCBX advertises from it, and the log of keys that are not in
 * force.  Main thread.  The scheduler itself runs in the transmit path
 * (lib/netdev-dpdk-pfc-drain.c). */

#include <config.h>
#include "netdev-dpdk-pfc.h"
#include "netdev-dpdk-pfc-private.h"

#include <string.h>

#include <rte_cycles.h>
#include <rte_spinlock.h>

#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "packets.h"
#include "pfc-dcbx.h"
#include "pfc-ets.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_dpdk_pfc_ets);

/* True if pfc_ets_log_errors() has an ETS error to log. */
static bool pfc_ets_check_due;

/* Puts in force the ETS that 'pfc' should run: the partner's
 * recommendation if DCBX adopted it (lib/pfc-dcbx.h), else the ETS keys of
 * the Queue rows (pfc->cfg.tsa_ets and tc_bw) if they are valid
 * (pfc_ets_validate()).  Invalid keys leave the last valid ones in place
 * and are noted, for netdev_dpdk_pfc_run() to log once the bridge has set
 * every Queue: the bridge sets them one at a time, so that the sum of the
 * bandwidths is checked only at the end.  With DCBX on, what the port
 * recommends to its partner follows the Queue rows.  Main thread. */
void
pfc_ets_update(struct netdev_dpdk_pfc *pfc)
{
    uint32_t max_frame = (pfc->port && pfc->port->hw.max_frame
                          ? pfc->port->hw.max_frame
                          : ETH_PAYLOAD_MAX + ETH_HEADER_LEN
                            + VLAN_HEADER_LEN);
    struct pfc_ets_params p;
    char *err = NULL;

    if (pfc_ets_validate(pfc->cfg.tsa_ets, pfc->cfg.tc_bw, &err)) {
        if (!pfc->ets_error || strcmp(err, pfc->ets_error)) {
            free(pfc->ets_error);
            pfc->ets_error = err;
            pfc->ets_logged = false;
            pfc_ets_check_due = true;
        } else {
            free(err);
        }
    } else {
        free(pfc->ets_error);
        pfc->ets_error = NULL;
        pfc_ets_params_init(&pfc->ets_admin, pfc->cfg.tsa_ets,
                            pfc->cfg.tc_bw, max_frame);
    }
    p = pfc->ets_admin;

    struct pfc_port *port = pfc->port;
    bool dcbx_on = false;

    if (port) {
        atomic_read_relaxed(&port->dcbx.on, &dcbx_on);
    }
    if (dcbx_on) {
        struct pfc_ets_tlv admin;

        pfc_ets_admin_tlv(pfc, &admin);
        rte_spinlock_lock(&port->lock);
        if (port->conf == pfc) {
            if (memcmp(&admin, &port->dcbx.params.ets_admin, sizeof admin)) {
                port->dcbx.params.ets_admin = admin;
                port->dcbx.changed |= pfc_dcbx_reconfigure(
                    &port->dcbx.state, &port->dcbx.params, port->mac,
                    rte_get_tsc_cycles());
            }
            port->dcbx.state.ets_changed = false;
            if (port->dcbx.state.ets_adopted) {
                pfc_ets_params_from_tlv(&p, &port->dcbx.state.ets_oper,
                                        max_frame);
            }
        }
        rte_spinlock_unlock(&port->lock);
    }
    if (pfc_ets_params_equal(&p, &pfc->ets)) {
        return;
    }
    pfc_txqs_lock(pfc);
    pfc->ets = p;
    for (int i = 0; i < pfc->n_txq; i++) {
        pfc_ets_init(&pfc->txq[i].ets);
    }
    pfc_txqs_unlock(pfc);
}

/* Logs, once each, why the ETS keys of the Queue rows of a port are not in
 * force.  Main thread, from netdev_dpdk_pfc_run(). */
void
pfc_ets_log_errors(void)
{
    if (!pfc_ets_check_due) {
        return;
    }
    pfc_ets_check_due = false;
    for (int id = 0; id < PFC_N_PORTS; id++) {
        struct pfc_port *port = &pfc_ports[id];
        char name[sizeof port->name];
        char err[512];
        bool due = false;

        /* port->conf may be destroyed meanwhile by the RCU thread, which
         * clears it under port->lock first: read it, and copy what is
         * logged, under that lock, and log after it. */
        rte_spinlock_lock(&port->lock);
        struct netdev_dpdk_pfc *pfc = port->conf;

        if (pfc && pfc->ets_error && !pfc->ets_logged) {
            ovs_strlcpy(err, pfc->ets_error, sizeof err);
            ovs_strlcpy(name, port->name, sizeof name);
            pfc->ets_logged = true;
            due = true;
        }
        rte_spinlock_unlock(&port->lock);
        if (due) {
            VLOG_ERR("%s: QoS type pfc: %s; keeping the traffic classes' "
                     "previous transmission selection", name, err);
        }
    }
}

/* Wakes the main thread at once if pfc_ets_log_errors() has work. */
void
pfc_ets_wait(void)
{
    if (pfc_ets_check_due) {
        poll_immediate_wake();
    }
}

/* The ETS that 'pfc' recommends to its partner and runs unless it adopts
 * the partner's: its Queue rows' (pfc->ets_admin), with their priority to
 * traffic class map, into '*t'. */
void
pfc_ets_admin_tlv(const struct netdev_dpdk_pfc *pfc, struct pfc_ets_tlv *t)
{
    memset(t, 0, sizeof *t);
    t->willing = pfc->cfg.dcbx_willing;
    t->max_tcs = 8;
    for (int n = 0; n < PFC_N_PRIOS; n++) {
        t->prio_tc[n] = pfc->cfg.prio_to_tc[n];
    }
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        bool ets = (pfc->ets_admin.ets >> tc) & 1;

        t->tsa[tc] = ets ? PFC_TSA_ETS : PFC_TSA_STRICT;
        t->bw[tc] = ets ? pfc->ets_admin.bw[tc] : 0;
    }
}

/* Scheduling parameters for the ETS configuration '*t' (its TSA and TC
 * bandwidth; pfc_dcbx_ets_decide() checked them). */
void
pfc_ets_params_from_tlv(struct pfc_ets_params *p, const struct pfc_ets_tlv *t,
                        uint32_t max_frame)
{
    uint8_t ets = 0;

    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        ets |= (t->tsa[tc] == PFC_TSA_ETS) << tc;
    }
    pfc_ets_params_init(p, ets, t->bw, max_frame);
}
