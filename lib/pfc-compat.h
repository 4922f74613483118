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

#ifndef PFC_COMPAT_H
#define PFC_COMPAT_H 1

/* What differs between the Open vSwitch versions that this project builds
 * against, in one place: 3.1 (Debian 12, with DPDK 22.11) and 3.5 (Debian
 * 13, with DPDK 24.11).  Every other file of the project is the same for
 * both.  The DPDK APIs that PFC uses (rte_eth_fc_conf, rte_eth_pfc_conf,
 * rte_flow, rte_vhost) did not change between 22.11 and 24.11.
 *
 * PFC_OVS_VERSION_NUM is the version of the Open vSwitch tree being built,
 * MAJOR * 10000 + MINOR * 100 + PATCH (30100, 30500): the build writes it
 * into pfc-ovs-version.h when it assembles the tree. */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "daemon.h"
#include "openvswitch/json.h"
#include "pfc-ovs-version.h"
#include "smap.h"               /* userspace-tso.h needs it. */
#include "unixctl.h"
#include "userspace-tso.h"

#ifndef PFC_OVS_VERSION_NUM
#error "pfc-ovs-version.h does not define PFC_OVS_VERSION_NUM"
#endif

/* Returns true if a batch must go through rte_eth_tx_prepare() before
 * rte_eth_tx_burst(), as netdev-dpdk sends: always from Open vSwitch 3.5 on
 * (checksum offloads), only with userspace TSO before.  Held packets are
 * sent as netdev-dpdk would have sent them. */
static inline bool
pfc_tx_prepare_needed(void)
{
#if PFC_OVS_VERSION_NUM >= 30500
    return true;
#else
    return userspace_tso_enabled();
#endif
}

/* daemonize_start() for a program that neither opens datapaths nor
 * hardware ports (Open vSwitch 3.5 added the second argument). */
static inline void
pfc_daemonize_start(void)
{
#if PFC_OVS_VERSION_NUM >= 30500
    daemonize_start(false, false);
#else
    daemonize_start(false);
#endif
}

/* True if Open vSwitch's rx-steering (options:rx-steering, 3.5 on) is
 * requested on the netdev-dpdk device 'DEV', which mac-control-queue must
 * not override; always false on 3.1, which has no rx-steering. */
#if PFC_OVS_VERSION_NUM >= 30500
#define PFC_RX_STEERING(DEV) ((DEV)->requested_rx_steer_flags != 0)
#else
#define PFC_RX_STEERING(DEV) false
#endif

/* Returns true if the caller of a unixctl command asked for JSON: by a first
 * argument "--json", which this takes off '*argc' and '*argv' by moving
 * them on by one (so that (*argv)[1] is the argument after it, and
 * (*argv)[0] is no longer the command's name; the array itself, which
 * unixctl frees, is not written), or, from Open vSwitch 3.5 on, by
 * "ovs-appctl -f json".  Open vSwitch 3.1 has no "-f": there the argument
 * is the only way. */
static inline bool
pfc_unixctl_wants_json(struct unixctl_conn *conn, int *argc,
                       const char ***argv)
{
    bool json = false;

    if (*argc > 1 && !strcmp((*argv)[1], "--json")) {
        (*argc)--;
        (*argv)++;
        json = true;
    }
#if PFC_OVS_VERSION_NUM >= 30500
    json = json || (unixctl_command_get_output_format(conn)
                    == UNIXCTL_OUTPUT_FMT_JSON);
#else
    (void) conn;
#endif
    return json;
}

/* Replies 'json', which this takes: as a JSON document to "ovs-appctl -f
 * json" (Open vSwitch 3.5 on), otherwise as its text, indented, members
 * sorted. */
static inline void
pfc_unixctl_reply_json(struct unixctl_conn *conn, struct json *json)
{
    char *s;

#if PFC_OVS_VERSION_NUM >= 30500
    if (unixctl_command_get_output_format(conn) == UNIXCTL_OUTPUT_FMT_JSON) {
        unixctl_command_reply_json(conn, json);
        return;
    }
#endif
    s = json_to_string(json, JSSF_PRETTY | JSSF_SORT);
    unixctl_command_reply(conn, s);
    free(s);
    json_destroy(json);
}

#endif /* pfc-compat.h */
