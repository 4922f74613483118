#!/bin/sh
# Configures (once) and builds this project in the repository, incrementally.
set -e
cd "$(dirname "$0")/.."
[ -x configure ] || ./boot.sh
[ -f Makefile ] || ./configure
make -j"$(nproc)"
