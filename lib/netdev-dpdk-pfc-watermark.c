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

/* "ovs-appctl pfc/watermark [--json] [PORT]" and "pfc/watermark-clear
 * [PORT]": the peak occupancy of the shared buffer (struct pfc_wm,
 * lib/pfc-buffer.h), which the admission of held packets raises
 * (lib/netdev-dpdk-pfc-buffer.c): of the shared pool, of each priority
 * group of a port as ingress, and of each traffic class of a port as
 * egress.  Main thread only. */

#include <config.h>
#include "netdev-dpdk-pfc-private.h"

#include <string.h>

#include <rte_spinlock.h>

#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "ovs-atomic.h"
#include "pfc-buffer.h"
#include "pfc-compat.h"
#include "unixctl.h"
#include "util.h"

/* Appends "peak P (persistent Q)" for 'wm' to 'ds'. */
static void
pfc_wm_put(struct ds *ds, const struct pfc_wm *wm)
{
    ds_put_format(ds, "peak %"PRIu64" (persistent %"PRIu64")",
                  pfc_wm_peak(wm), pfc_wm_persistent(wm));
}

/* The lines of "pfc/watermark" for 'port', whose QoS object is 'pfc': its
 * lossless priority groups, and those that held anything since the port
 * was added; then its traffic classes that carry a lossless priority or
 * held anything. */
static void
pfc_watermark_port(struct ds *ds, const struct pfc_port *port,
                   const struct netdev_dpdk_pfc *pfc)
{
    const struct pfc_bound *bd = pfc_bound(pfc);
    const struct pfc_config *cfg = &pfc->cfg;
    const struct pfc_port_buf *b = &port->buf;

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        if (!((cfg->enabled >> n) & 1)
            && !pfc_wm_persistent(&b->wm_shared[n])
            && !pfc_wm_persistent(&b->wm_headroom[n])) {
            continue;
        }
        ds_put_format(ds, "  %-15s pg p%d: shared cells ", port->name, n);
        pfc_wm_put(ds, &b->wm_shared[n]);
        ds_put_cstr(ds, ", headroom cells ");
        pfc_wm_put(ds, &b->wm_headroom[n]);
        ds_put_format(ds, " of %"PRIu32", bytes ", bd->xparams.pg.headroom);
        pfc_wm_put(ds, &b->wm_bytes[n]);
        ds_put_char(ds, '\n');
    }
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        if (!(pfc_tcs_prios(cfg->prio_to_tc, 1u << tc) & cfg->enabled)
            && !pfc_wm_persistent(&b->wm_held[tc])) {
            continue;
        }
        ds_put_format(ds, "  %-15s tc%d: held packets ", port->name, tc);
        pfc_wm_put(ds, &b->wm_held[tc]);
        ds_put_cstr(ds, ", of them lossy ");
        pfc_wm_put(ds, &b->wm_lossy[tc]);
        ds_put_char(ds, '\n');
    }
}

/* Returns {"peak": P, "persistent": Q} for 'wm'. */
static struct json *
pfc_wm_json(const struct pfc_wm *wm)
{
    struct json *o = json_object_create();

    json_object_put(o, "peak",
                    json_integer_create(MIN(pfc_wm_peak(wm), INT64_MAX)));
    json_object_put(o, "persistent",
                    json_integer_create(MIN(pfc_wm_persistent(wm),
                                            INT64_MAX)));
    return o;
}

/* The JSON of "pfc/watermark" for 'port', whose QoS object is 'pfc': the
 * same priority groups and traffic classes as pfc_watermark_port(). */
static struct json *
pfc_watermark_port_json(const struct pfc_port *port,
                        const struct netdev_dpdk_pfc *pfc)
{
    const struct pfc_bound *bd = pfc_bound(pfc);
    const struct pfc_config *cfg = &pfc->cfg;
    const struct pfc_port_buf *b = &port->buf;
    struct json *pgs = json_array_create_empty();
    struct json *tcs = json_array_create_empty();
    struct json *o = json_object_create();

    for (int n = 0; n < PFC_N_PRIOS; n++) {
        struct json *g;

        if (!((cfg->enabled >> n) & 1)
            && !pfc_wm_persistent(&b->wm_shared[n])
            && !pfc_wm_persistent(&b->wm_headroom[n])) {
            continue;
        }
        g = json_object_create();
        json_object_put(g, "priority", json_integer_create(n));
        json_object_put(g, "shared_cells", pfc_wm_json(&b->wm_shared[n]));
        json_object_put(g, "headroom_cells",
                        pfc_wm_json(&b->wm_headroom[n]));
        json_object_put(g, "headroom_size",
                        json_integer_create(bd->xparams.pg.headroom));
        json_object_put(g, "bytes", pfc_wm_json(&b->wm_bytes[n]));
        json_array_add(pgs, g);
    }
    for (int tc = 0; tc < PFC_N_PRIOS; tc++) {
        struct json *t;

        if (!(pfc_tcs_prios(cfg->prio_to_tc, 1u << tc) & cfg->enabled)
            && !pfc_wm_persistent(&b->wm_held[tc])) {
            continue;
        }
        t = json_object_create();
        json_object_put(t, "tc", json_integer_create(tc));
        json_object_put(t, "held_pkts", pfc_wm_json(&b->wm_held[tc]));
        json_object_put(t, "lossy_pkts", pfc_wm_json(&b->wm_lossy[tc]));
        json_array_add(tcs, t);
    }
    json_object_put(o, "priority_groups", pgs);
    json_object_put(o, "traffic_classes", tcs);
    return o;
}

/* Returns the QoS object of type pfc of 'port', or NULL.  The main thread,
 * which runs the commands, is the one that destroys QoS objects: it stays
 * valid once the lock is released, and nothing is formatted with the lock
 * held. */
static const struct netdev_dpdk_pfc *
pfc_watermark_conf(struct pfc_port *port)
{
    const struct netdev_dpdk_pfc *pfc;

    rte_spinlock_lock(&port->lock);
    pfc = port->conf;
    rte_spinlock_unlock(&port->lock);
    return pfc;
}

/* "pfc/watermark [--json] [PORT]". */
static void
pfc_unixctl_watermark(struct unixctl_conn *conn, int argc,
                      const char *argv[], void *aux OVS_UNUSED)
{
    bool json = pfc_unixctl_wants_json(conn, &argc, &argv);
    struct json *ports = json ? json_object_create() : NULL;
    struct ds ds = DS_EMPTY_INITIALIZER;
    uint64_t shared;
    bool found = false;

    if (argc > 2) {
        json_destroy(ports);
        unixctl_command_reply_error(conn,
                                    "usage: pfc/watermark [--json] [port]");
        return;
    }
    netdev_dpdk_pfc_ports_init();
    atomic_read_relaxed(&pfc_pool.shared, &shared);
    ds_put_cstr(&ds, "shared pool: cells taken by tx queues ");
    pfc_wm_put(&ds, &pfc_pool.wm);
    ds_put_format(&ds, " of %"PRIu64"\n", shared);
    for (int i = 0; i < PFC_N_PORTS; i++) {
        struct pfc_port *port = &pfc_ports[i];
        const struct netdev_dpdk_pfc *pfc = pfc_watermark_conf(port);

        if (pfc && (argc < 2 || !strcmp(argv[1], port->name))) {
            if (json) {
                json_object_put(ports, port->name,
                                pfc_watermark_port_json(port, pfc));
            } else {
                pfc_watermark_port(&ds, port, pfc);
            }
            found = true;
        }
    }
    if (argc > 1 && !found) {
        json_destroy(ports);
        unixctl_command_reply_error(conn, "no such port with QoS type pfc");
    } else if (json) {
        struct json *o = json_object_create();
        struct json *pool = pfc_wm_json(&pfc_pool.wm);

        json_object_put(pool, "shared", json_integer_create(shared));
        json_object_put(o, "shared_pool", pool);
        json_object_put(o, "ports", ports);
        pfc_unixctl_reply_json(conn, o);
    } else {
        unixctl_command_reply(conn, ds_cstr(&ds));
    }
    ds_destroy(&ds);
}

/* "pfc/watermark-clear [PORT]": ends the clearable period of the
 * watermarks of PORT, or of every port and of the shared pool. */
static void
pfc_unixctl_watermark_clear(struct unixctl_conn *conn, int argc,
                            const char *argv[], void *aux OVS_UNUSED)
{
    bool found = false;

    netdev_dpdk_pfc_ports_init();
    if (argc < 2) {
        pfc_wm_clear(&pfc_pool.wm);
    }
    for (int i = 0; i < PFC_N_PORTS; i++) {
        struct pfc_port *port = &pfc_ports[i];

        if (pfc_watermark_conf(port)
            && (argc < 2 || !strcmp(argv[1], port->name))) {
            pfc_port_wm_clear(port);
            found = true;
        }
    }
    if (argc > 1 && !found) {
        unixctl_command_reply_error(conn, "no such port with QoS type pfc");
    } else {
        unixctl_command_reply(conn, NULL);
    }
}

/* Registers "pfc/watermark" and "pfc/watermark-clear"
 * (lib/pfc-unixctl.man). */
void
pfc_watermark_register_commands(void)
{
    unixctl_command_register("pfc/watermark", "[--json] [port]", 0, 2,
                             pfc_unixctl_watermark, NULL);
    unixctl_command_register("pfc/watermark-clear", "[port]", 0, 1,
                             pfc_unixctl_watermark_clear, NULL);
}
