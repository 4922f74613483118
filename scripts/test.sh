#!/bin/sh
# Installs dependencies, builds, and runs every test: "make check" (unit
# tests, autotests and DPDK system tests), "make check-upstream-ci" (upstream
# Open vSwitch's tests of what patches/ touches) and "make check-deb" (builds
# the .deb, installs it over Debian's Open vSwitch, checks it, purges it).
# Needs root.
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
scripts/setup-hugepages.sh
make check
make check-upstream-ci
make check-deb
