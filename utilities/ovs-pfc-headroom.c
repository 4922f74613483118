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

/* ovs-pfc-headroom: the PFC headroom calculator of "ovs-appctl pfc/headroom"
 * as a program of its own, for planning a link before any switch runs.
 *
 * It takes the same key=value arguments and prints the same output, byte for
 * byte, as the unixctl command: both call pfc_headroom_run().  It needs no
 * ovs-vswitchd, no database, no DPDK and no hugepages, and it changes
 * nothing.  An invalid argument prints the command's error message, alone on
 * a line, to stderr and exits with status 1.  See ovs-pfc-headroom(8). */

#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "command-line.h"
#include "openvswitch/dynamic-string.h"
#include "pfc-headroom.h"
#include "util.h"

OVS_NO_RETURN static void usage(void);
static void parse_options(int argc, char *argv[]);

int
main(int argc, char *argv[])
{
    struct ds out = DS_EMPTY_INITIALIZER;
    char *error;

    set_program_name(argv[0]);
    parse_options(argc, argv);

    error = pfc_headroom_run(argc - optind,
                             (const char *const *) argv + optind, &out);
    if (error) {
        fprintf(stderr, "%s\n", error);
        free(error);
        ds_destroy(&out);
        return EXIT_FAILURE;
    }
    fputs(ds_cstr(&out), stdout);
    ds_destroy(&out);
    if (fflush(stdout) || ferror(stdout)) {
        ovs_fatal(0, "error writing to standard output");
    }
    return EXIT_SUCCESS;
}

static void
parse_options(int argc, char *argv[])
{
    static const struct option long_options[] = {
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    char *short_options = ovs_cmdl_long_options_to_short_options(long_options);

    for (;;) {
        int c = getopt_long(argc, argv, short_options, long_options, NULL);

        if (c == -1) {
            break;
        }

        switch (c) {
        case 'h':
            usage();

        case 'V':
            ovs_print_version(0, 0);
            exit(EXIT_SUCCESS);

        case '?':
            exit(EXIT_FAILURE);

        default:
            OVS_NOT_REACHED();
        }
    }
    free(short_options);
}

/* The keys, their units and ranges are those of pfc_headroom_parse(). */
static void
usage(void)
{
    printf("%s: PFC (IEEE 802.1Qbb) headroom calculator\n"
           "usage: %s [OPTIONS] [KEY=VALUE]...\n"
           "\nPrints the headroom that a port needs to stay lossless, term by "
           "term in bit\ntimes, then in bytes, pause quanta and buffer units, "
           "as \"ovs-appctl\npfc/headroom\" does.  It needs no running "
           "daemon.\n"
           "\nKeys (a key left out keeps the model's default):\n"
           "  model=annex-a|delay-value|cisco    defaults to start from "
           "(annex-a)\n"
           "  speed=BITS                 link speed, bit/s, 1M to 1T, "
           "suffix k, M, G or T\n"
           "  cable-length=METRES        0 to 100000\n"
           "  velocity=FRACTION|MEDIUM   0.1 to 1 c, or copper, "
           "twisted-pair, cat6,\n"
           "                             twinax, fibre, fiber\n"
           "  cable-bytes-per-100m=N     bytes per 100 m at 10 Gb/s, "
           "0 to 100000\n"
           "  class-mtu=BYTES            MTU[S], 64 to 65535\n"
           "  port-mtu=BYTES             MTU[R], 64 to 65535\n"
           "  frame-overhead=BYTES       per frame, 0 to 255\n"
           "  pfc-frame=BYTES            0 to 65535\n"
           "  phy=SUBLAYER[+SUBLAYER]... interface delay by sublayer, "
           "or none\n"
           "  interface-delay=BITS       bit times per station, "
           "0 to 4294967295\n"
           "  id-count=N                 stations counted, 0 to 2\n"
           "  higher-layer-delay=BITS    bit times, 0 to 4294967295\n"
           "  response=BITS              bit times, 0 to 4294967295\n"
           "  response-quanta=N          pause quanta, 0 to 65535\n"
           "  granularity=byte|cell|mbuf receiver's buffer units\n"
           "  cell-size=BYTES            cell or mbuf size, 1 to 65535\n"
           "  min-frame=BYTES            smallest frame, 1 to 65535\n"
           "\nOther options:\n"
           "  -h, --help                 display this help message\n"
           "  -V, --version              display version information\n",
           program_name, program_name);
    exit(EXIT_SUCCESS);
}
