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

/* The per-port state of the DPDK glue of PFC, for the life of the process
 * (struct pfc_port, lib/netdev-dpdk-pfc-private.h): one slot per DPDK port
 * id, then PFC_MAX_VHOST slots for vhost-user ports.  Every other glue file
 * reads it; this file defines it and nothing else, so that none of them
 * has to reach up into the file that binds QoS objects to ports. */

#include <config.h>
#include "netdev-dpdk-pfc-private.h"

#include <rte_spinlock.h>

#include "ovs-atomic.h"
#include "ovs-thread.h"

struct pfc_port pfc_ports[PFC_N_PORTS];

/* Initializes pfc_ports[] once: their locks, no mac-control-queue and no
 * tx queue for PFC frames. */
void
netdev_dpdk_pfc_ports_init(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        for (int i = 0; i < PFC_N_PORTS; i++) {
            rte_spinlock_init(&pfc_ports[i].lock);
            atomic_init(&pfc_ports[i].hw.mcq_queue, -1);
            atomic_init(&pfc_ports[i].hw.ctrl_txq, -1);
            rte_spinlock_init(&pfc_ports[i].hw.ctrl_lock);
        }
        ovsthread_once_done(&once);
    }
}
