#!/bin/sh
# Prints the version of the Open vSwitch source SOURCE (a tarball or an
# unpacked tree), read from its configure.ac, e.g. "3.1.0".  Fails, with a
# message, if SOURCE is neither or names no version.  Used by configure.
#
# Usage: ovs-version.sh SOURCE
if [ -f "$1" ]; then
    ac=$(tar -xzOf "$1" --wildcards '*/configure.ac' 2>/dev/null)
elif [ -f "$1/configure.ac" ]; then
    ac=$(cat "$1/configure.ac")
else
    echo "$0: '$1' is neither an Open vSwitch tarball nor a source tree" >&2
    exit 1
fi
v=$(printf '%s\n' "$ac" \
        | sed -n 's/^AC_INIT(openvswitch, *\([0-9][0-9.]*\),.*/\1/p')
if [ -z "$v" ]; then
    echo "$0: no Open vSwitch version in the configure.ac of '$1'" >&2
    exit 1
fi
echo "$v"
