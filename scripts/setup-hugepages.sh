#!/bin/sh
# Reserves 2 MiB hugepages for DPDK (default 1 GiB worth) and makes sure
# hugetlbfs is mounted.  Needs root.  Fails, saying why, if it cannot.
set -e
want=${PFC_HUGEPAGES:-512}
nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
if [ ! -w "$nr" ]; then
    echo "$0: $nr is not writable: 2 MiB hugepages unavailable (need root)" >&2
    exit 1
fi
if [ "$(cat $nr)" -lt "$want" ]; then
    echo "$want" > "$nr"
fi
if [ "$(cat $nr)" -lt "$want" ]; then
    echo "$0: only $(cat $nr) of $want hugepages could be reserved" >&2
    exit 1
fi
if ! grep -q hugetlbfs /proc/mounts; then
    mkdir -p /dev/hugepages
    mount -t hugetlbfs none /dev/hugepages
fi
