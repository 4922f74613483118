#!/bin/sh
# Installs dependencies, builds, and runs every test: "make check" (unit
# tests, autotests and DPDK system tests), "make check-upstream-ci" (upstream
# Open vSwitch's tests of what the patches touch) and "make check-deb" (builds
# the .deb, installs it over Debian's Open vSwitch, checks it, purges it).
# On Debian 12, then does the same for the Debian 13 target in a Debian 13
# root (scripts/debian13.sh), unless PFC_DEBIAN13=no.  Needs root.
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
scripts/setup-hugepages.sh
make check
make check-upstream-ci
make check-deb
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
if [ "$codename" = bookworm ]; then
    if [ "${PFC_DEBIAN13:-yes}" = no ]; then
        echo "$0: PFC_DEBIAN13=no: the Debian 13 target was NOT tested"
    else
        scripts/debian13.sh
    fi
fi
