#! /bin/sh
# Generates ./configure for this project (not for the Open vSwitch tree, whose
# own boot.sh runs during 'make').
set -e
autoreconf --install --force
