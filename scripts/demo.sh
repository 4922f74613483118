#!/bin/sh
# The main job: installs dependencies, builds, and runs the PFC demo on real
# frames through DPDK virtual ports (net_af_packet on veth pairs into network
# namespaces A and B).  Needs root.
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
scripts/setup-hugepages.sh
make demo
