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

/* The count of reasons for deferred transmissions (lib/netdev-flush.h). */

#include <config.h>
#include "netdev-flush.h"
#include "ovs-atomic.h"

static atomic_count tx_flush_wanted = ATOMIC_COUNT_INIT(0);

/* Counts a reason for a netdev's tx_flush_pending() to return true, if
 * 'want', or the end of one, if not. */
void
netdev_tx_flush_want(bool want)
{
    if (want) {
        atomic_count_inc(&tx_flush_wanted);
    } else {
        atomic_count_dec(&tx_flush_wanted);
    }
}

/* Returns true if some netdev may have deferred transmissions pending: a
 * reason counted by netdev_tx_flush_want() holds. */
bool
netdev_tx_flush_wanted(void)
{
    return atomic_count_get(&tx_flush_wanted) != 0;
}

/* Returns how many reasons netdev_tx_flush_want() counts now, for tests and
 * diagnostics. */
unsigned int
netdev_tx_flush_reasons(void)
{
    return atomic_count_get(&tx_flush_wanted);
}
