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

#ifndef TEST_PFC_PARSE_H
#define TEST_PFC_PARSE_H 1

/* A helper of the unit tests that parse the "pfc" QoS keys
 * (tests/test-pfc.c, tests/test-pfc-wd.c, tests/test-pfc-dcbx.c). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "openvswitch/util.h"
#include "pfc-config.h"
#include "smap.h"

/* Parses "key=value" pairs in 'argv' and checks the result: 'want_error' 0
 * for success, or EINVAL with an error message containing 'needle'. */
static inline void
check_parse(struct pfc_config *cfg, int want_error, const char *needle,
            const char *const *kv)
{
    struct smap details = SMAP_INITIALIZER(&details);
    char *err;
    int error;

    for (; *kv; kv += 2) {
        smap_add(&details, kv[0], kv[1]);
    }
    error = pfc_config_parse(&details, cfg, &err);
    if (error != want_error || (needle && (!err || !strstr(err, needle)))) {
        ovs_fatal(0, "parse: got error %d (%s), want %d with \"%s\"",
                  error, err ? err : "no message", want_error,
                  needle ? needle : "");
    }
    free(err);
    smap_destroy(&details);
}

#define PARSE(CFG, ERR, NEEDLE, ...) \
    check_parse(CFG, ERR, NEEDLE, (const char *const[]) { __VA_ARGS__, NULL })

#endif /* test-pfc-parse.h */
