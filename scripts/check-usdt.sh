#!/bin/bash
# Compiles the DPDK glue of PFC (lib/netdev-dpdk-pfc*.c, and lib/netdev-dpdk.c
# with its hooks) as a build configured with --enable-usdt-probes would, so
# that the code of the USDT probes, which the default build leaves out, keeps
# compiling.  Syntax and types only: nothing is linked or run.
#
# Usage: scripts/check-usdt.sh OVS_TREE
#   OVS_TREE: the assembled and configured Open vSwitch tree (config.h).
# Needs <sys/sdt.h> (Debian package systemtap-sdt-dev) and libdpdk-dev.
# Exits nonzero, naming the file, if one fails to compile.
#
# Copyright (c) 2026 The OVS PFC authors.
# Licensed under the Apache License, Version 2.0.

set -u
tree=${1:?usage: $0 OVS_TREE}
[ -f "$tree/config.h" ] || { echo "$0: $tree/config.h: not configured" >&2;
                             exit 2; }
printf '#include <sys/sdt.h>\n' | gcc -fsyntax-only -x c - 2>/dev/null || {
    echo "$0: <sys/sdt.h> not found: install the Debian package" \
         "systemtap-sdt-dev" >&2
    exit 1
}
dpdk=$(pkg-config --cflags libdpdk) || {
    echo "$0: pkg-config finds no libdpdk: install libdpdk-dev" >&2
    exit 1
}
rc=0
n=0
for f in "$tree"/lib/netdev-dpdk-pfc*.c "$tree"/lib/netdev-dpdk.c; do
    # shellcheck disable=SC2086
    if ! gcc -fsyntax-only -DHAVE_CONFIG_H -DHAVE_USDT_PROBES \
            -I"$tree" -I"$tree/include" -I"$tree/lib" $dpdk -mssse3 \
            -include rte_config.h "$f"; then
        echo "$0: $f does not compile with HAVE_USDT_PROBES" >&2
        rc=1
    fi
    n=$((n + 1))
done
[ $rc -eq 0 ] && echo "check-usdt: $n files compile with HAVE_USDT_PROBES"
exit $rc
