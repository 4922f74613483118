#!/bin/bash
# Runs a command on the Debian 13 (trixie) target: in a Debian 13 root made
# by debootstrap, with a copy of this repository in /root/pfc.  Needs root.
#
# Usage: scripts/debian13.sh [COMMAND...]
#   With no COMMAND, runs the Debian 13 part of the CI there: installs the
#   dependencies, builds Open vSwitch 3.5 with PFC against DPDK 24.11, and
#   runs "make check" (unit tests, autotests, DPDK system tests),
#   "make check-upstream-ci" and "make check-deb".
#
# The root is made from the Debian archive that this machine's apt sources
# already use (read from "apt-cache policy": no host name is written here),
# and kept in PFC_DEBIAN13_ROOT (default /var/cache/openvswitch-pfc/trixie)
# for the next run: a later run only refreshes its packages and the copy of
# the repository.  Delete that directory to start afresh.  The root sees
# this machine's /proc, /sys and /dev (hugepages, network namespaces); they
# are unmounted again on exit, also on failure.
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT=${PFC_DEBIAN13_ROOT:-/var/cache/openvswitch-pfc/trixie}
SUITE=trixie

die() { echo "$0: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot, mount)"

# archive_uri [SUFFIX]: the URI of the host's main archive (or of its
# "-security" one with SUFFIX=-security), from the package indexes apt uses.
archive_uri() {
    local codename
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    apt-cache policy 2>/dev/null | awk -v rel="$codename${1:-}/main" '
        $1 ~ /^[0-9]+$/ && $3 == rel && $2 ~ /^https?:/ { print $2; exit }'
}

MIRROR=$(archive_uri)
[ -n "$MIRROR" ] || die "no Debian archive in this machine's apt sources" \
                        "(apt-cache policy): run apt-get update first"
SECURITY=$(archive_uri -security)

mounted=()
cleanup() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount -l "${mounted[i]}" 2>/dev/null || true
    done
}
trap cleanup EXIT

# bind DIR: makes the host's DIR visible in the root (recursively).
bind() {
    mkdir -p "$ROOT$1"
    mount --rbind "$1" "$ROOT$1"
    mount --make-rslave "$ROOT$1"
    mounted+=("$ROOT$1")
}

make_root() {
    command -v debootstrap >/dev/null 2>&1 || {
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends debootstrap
    }
    echo "=== debootstrap $SUITE from $MIRROR into $ROOT"
    rm -rf "$ROOT"
    mkdir -p "$(dirname "$ROOT")"
    debootstrap --variant=minbase --include=ca-certificates "$SUITE" \
        "$ROOT.tmp" "$MIRROR"
    {
        printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\n' \
            "$MIRROR" "$SUITE" "$SUITE"
        printf 'Components: main\n'
        printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
        if [ -n "$SECURITY" ]; then
            printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\n' \
                "$SECURITY" "$SUITE"
            printf 'Components: main\n'
            printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
        fi
    } > "$ROOT.tmp/etc/apt/sources.list.d/debian.sources"
    rm -f "$ROOT.tmp/etc/apt/sources.list"
    # No service starts in the root (lldpd, openvswitch-switch): the tests
    # start what they need themselves.
    printf '#!/bin/sh\nexit 101\n' > "$ROOT.tmp/usr/sbin/policy-rc.d"
    chmod 755 "$ROOT.tmp/usr/sbin/policy-rc.d"
    touch "$ROOT.tmp/.pfc-root"
    mv -T "$ROOT.tmp" "$ROOT"
}

rm -rf "$ROOT.tmp"
[ -f "$ROOT/.pfc-root" ] || make_root
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true

# The root is a mount point of its own: "ip netns exec" remounts "/".
mount --bind "$ROOT" "$ROOT"
mounted+=("$ROOT")
bind /proc
bind /sys
bind /dev
mkdir -p "$ROOT/run/netns"

# A fresh copy of the repository's tracked files (what a clone has), or,
# outside a git checkout, of its files but the build products.
rm -rf "$ROOT/root/pfc"
mkdir -p "$ROOT/root/pfc"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$ROOT/root/pfc"
else
    tar --exclude=./ovs --exclude=./ovs.tmp --exclude=./deb-build -cf - . \
        | tar -xf - -C "$ROOT/root/pfc"
fi

run() {
    chroot "$ROOT" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 ${PFC_TEST_TIMEOUT:+PFC_TEST_TIMEOUT=$PFC_TEST_TIMEOUT} \
        /bin/bash -c "cd /root/pfc && $1"
}

if [ $# -gt 0 ]; then
    run "$*"
else
    run 'scripts/install-deps.sh && scripts/build.sh \
         && ovs/vswitchd/ovs-vswitchd --version && make check \
         && make check-upstream-ci && make check-deb'
fi
