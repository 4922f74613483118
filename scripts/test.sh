#!/bin/sh
# Installs dependencies, builds, and runs every test ("make check": unit
# tests, autotests and DPDK system tests).  Needs root.
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
scripts/setup-hugepages.sh
make check
