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

#ifndef NETDEV_FLUSH_H
#define NETDEV_FLUSH_H 1

/* Whether any netdev may have deferred transmissions pending (netdev class
 * member 'tx_flush'), so that PMD threads skip their per-port flush pass
 * while none has: without it, every PMD thread asks every port it may send
 * to, every iteration, whether it has work (netdev_tx_flush_pending()).
 *
 * A netdev that defers counts each reason it has for tx_flush_pending() to
 * return true, once when the reason starts (netdev_tx_flush_want(true)) and
 * once when it ends (netdev_tx_flush_want(false)): for PFC, a tx queue that
 * holds packets, and a port that has an XOFF in force, a storm, or an
 * LLDPDU to send.  Any other work that tx_flush() may do must follow from
 * one of those (PFC: an XOFF becomes due only while packets are held).
 * The count is read without ordering, as tx_flush_pending() reads the
 * netdev's state: a PMD thread that misses a reason that has just started
 * finds it at a later iteration. */

#include <stdbool.h>

void netdev_tx_flush_want(bool want);
bool netdev_tx_flush_wanted(void);
unsigned int netdev_tx_flush_reasons(void);

#endif /* netdev-flush.h */
