#!/bin/bash
# check-deb.sh [openvswitch-switch-dpdk-pfc_*.deb]
#
# Tests the Debian package for real, on this machine (needs root):
#
#   1. builds it with dpkg-buildpackage in a copy of this source tree, unless
#      a .deb is given, and checks that lintian reports no errors;
#   2. installs Debian's openvswitch-switch and openvswitch-common (the exact
#      version the package depends on) if they are not installed, then
#      "apt-get install ./openvswitch-switch-dpdk-pfc_*.deb";
#   3. checks the ovs-vswitchd alternative points at the PFC daemon and that
#      "ovs-vswitchd --version" identifies the PFC build;
#   3b. checks that /usr/bin/ovs-pfc-headroom, the headroom calculator, runs
#      with no daemon and no DPDK set up and prints the Cisco model's worked
#      example exactly, and that its manual is installed;
#   4. starts Open vSwitch the Debian way (ovs-ctl, system database,
#      /var/run/openvswitch) with dpdk-init=true, creates a netdev bridge and a
#      DPDK port (net_null vdev) with QoS type pfc, checks "ovs-appctl
#      pfc/show" answers for it, and stops Open vSwitch;
#   5. purges the package and checks the alternative, and ovs-vswitchd,
#      revert to what they were, and that ovs-pfc-headroom is gone.
#
# It leaves the machine as it found it: on success and on failure it stops
# the daemons it started, purges the packages it installed (including
# openvswitch-switch and its dependencies if they were not installed before)
# and the files they leave, restores the Open vSwitch database if there was
# one, and removes its policy-rc.d.  Only the hugepages reservation
# (scripts/setup-hugepages.sh) is kept, as the project's other tests do.
#
# It refuses to run (FAIL) if Open vSwitch from the system installation is
# already running, since it would have to stop it.  The part that runs
# Open vSwitch holds /tmp/pfc-ovs.lock, as the project's other tests do: the
# userspace datapath's "ovs-netdev" device is global to the machine.
#
# Prints PASS or FAIL; exits non-zero on failure.  A missing prerequisite is
# a failure, never a skip.  The log is kept on failure, or always if
# CHECK_DEB_KEEP is set.

set -u
export LC_ALL=C DEBIAN_FRONTEND=noninteractive

PKG=openvswitch-switch-dpdk-pfc
PFC_DAEMON=/usr/lib/$PKG/ovs-vswitchd-dpdk-pfc
HEADROOM=/usr/bin/ovs-pfc-headroom
PFC_VERSION_RE='^Priority-based Flow Control \(IEEE 802\.1Qbb\) '
OVS_CTL=/usr/share/openvswitch/scripts/ovs-ctl
RUNDIR=/var/run/openvswitch
BUILD_LOCK=/tmp/pfc-build.lock
OVS_LOCK=/tmp/pfc-ovs.lock
BRIDGE=br-pfc-deb
PORT=dpdk-pfc-deb
DPDK_PREFIX=ovs-check-deb
POLICY_RC=/usr/sbin/policy-rc.d
APT_OPTS=(-y -q -o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confdef
          -o Dpkg::Options::=--force-confold)

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/check-deb.XXXXXX)
log=$work/log
status=1
step=setup

# State to restore.
installed_pfc=no          # we installed the PFC package
new_pkgs=()               # packages that the openvswitch-switch install added
policy_rc_backup=         # an existing policy-rc.d, moved aside
ovs_started=no            # we ran ovs-ctl start
db_backup=no              # an existing database, moved aside
created_paths=()          # directories and files to remove if we created them

say() { echo "check-deb: $*"; }
fail() {
    echo "check-deb: FAIL ($step): $*" >&2
    exit 1
}
# run CMD...: runs CMD with its output in the log; on failure shows the end
# of the log.
run() {
    echo "+ $*" >>"$log"
    if ! "$@" >>"$log" 2>&1; then
        echo "check-deb: command failed: $*" >&2
        tail -n 40 "$log" | sed 's/^/  | /' >&2
        return 1
    fi
}
pkg_installed() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}
alt_value() {
    update-alternatives --query ovs-vswitchd 2>/dev/null |
        sed -n 's/^Value: //p'
}
alt_status() {
    update-alternatives --query ovs-vswitchd 2>/dev/null |
        sed -n 's/^Status: //p'
}
pid_alive() {
    local f=$RUNDIR/$1.pid pid
    [ -f "$f" ] && pid=$(cat "$f" 2>/dev/null) && [ -n "$pid" ] &&
        kill -0 "$pid" 2>/dev/null
}
vsctl() { ovs-vsctl --timeout=60 "$@"; }

# Remembers PATH for removal at cleanup if it does not exist now.
note_absent() {
    [ -e "$1" ] || [ -L "$1" ] || created_paths+=("$1")
}

stop_ovs() {
    [ "$ovs_started" = yes ] || return 0
    local d pid
    if [ -x "$OVS_CTL" ]; then
        timeout 120 "$OVS_CTL" stop >>"$log" 2>&1
    fi
    # Whatever ovs-ctl left behind: only the daemons of the system run
    # directory, which we started (none ran when we began).
    for d in ovs-vswitchd ovsdb-server; do
        if pid_alive $d; then
            pid=$(cat $RUNDIR/$d.pid)
            echo "check-deb: killing $d ($pid) left by ovs-ctl stop" >&2
            kill "$pid" 2>/dev/null
            sleep 2
            kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
        fi
    done
    rm -rf "/var/run/dpdk/$DPDK_PREFIX" /dev/hugepages/"$DPDK_PREFIX"map_* \
        2>/dev/null
    ovs_started=no
}

restore_db() {
    [ "$db_backup" = yes ] || return 0
    rm -f /var/lib/openvswitch/conf.db /var/lib/openvswitch/.conf.db.~lock~
    cp -a "$work/db/." /var/lib/openvswitch/
    db_backup=no
}

cleanup() {
    local rc=$status p
    trap - EXIT INT TERM HUP
    set +e
    stop_ovs
    restore_db
    exec 9>&-
    if [ "$installed_pfc" = yes ] && pkg_installed $PKG; then
        apt-get purge "${APT_OPTS[@]}" $PKG >>"$log" 2>&1 ||
            { echo "check-deb: could not purge $PKG" >&2; rc=1; }
    fi
    if [ ${#new_pkgs[@]} -gt 0 ]; then
        apt-get purge "${APT_OPTS[@]}" "${new_pkgs[@]}" >>"$log" 2>&1 ||
            { echo "check-deb: could not purge ${new_pkgs[*]}" >&2; rc=1; }
    fi
    # Files that openvswitch-switch's purge leaves (the database in
    # /var/lib/openvswitch, logs, run directory), and the system ID.
    for p in "${created_paths[@]}"; do
        rm -rf "$p"
    done
    if [ -n "$policy_rc_backup" ]; then
        mv -f "$policy_rc_backup" $POLICY_RC
    else
        rm -f $POLICY_RC
    fi
    if [ "$rc" = 0 ] && [ -z "${CHECK_DEB_KEEP:-}" ]; then
        rm -rf "$work"
        echo "PASS: check-deb"
    elif [ "$rc" = 0 ]; then
        echo "check-deb: log kept in $log"
        echo "PASS: check-deb"
    else
        echo "check-deb: log kept in $log" >&2
        echo "FAIL: check-deb"
        rc=1
    fi
    exit $rc
}
trap cleanup EXIT
trap 'status=1; exit 1' INT TERM HUP

: >"$log"

## ------------- ##
## Prerequisites ##
## ------------- ##

[ "$(id -u)" = 0 ] || fail "must run as root (it installs packages)"
for t in apt-get dpkg dpkg-deb dpkg-query update-alternatives flock timeout; do
    command -v $t >/dev/null || fail "$t not found"
done
[ -x "$srcdir/scripts/setup-hugepages.sh" ] ||
    fail "$srcdir/scripts/setup-hugepages.sh not found"
if pkg_installed $PKG; then
    fail "$PKG is already installed; purge it first (apt-get purge $PKG)"
fi
for d in ovs-vswitchd ovsdb-server; do
    if pid_alive $d; then
        fail "$d of the system installation is running" \
             "(pid $(cat $RUNDIR/$d.pid)); stop it first"
    fi
done

## ----- ##
## Build ##
## ----- ##

step=build
if [ $# -gt 1 ]; then
    fail "more than one package given: $*"
elif [ $# = 1 ]; then
    deb=$1
    [ -f "$deb" ] || fail "$deb: no such file"
else
    for t in dpkg-buildpackage dpkg-checkbuilddeps; do
        command -v $t >/dev/null || fail "$t not found (package dpkg-dev)"
    done
    say "building the package in $work/build"
    mkdir -p "$work/build/src"
    # A copy of the sources: what git tracks or would track (so not ovs/,
    # configure, Makefile...), as they are in the work tree.
    if git -C "$srcdir" rev-parse --git-dir >/dev/null 2>&1; then
        (cd "$srcdir" &&
         git ls-files -z --cached --others --exclude-standard |
             while IFS= read -r -d '' f; do
                 [ -e "$f" ] && printf '%s\0' "$f"
             done | tar --null -T - -cf -) | tar -xf - -C "$work/build/src" ||
            fail "could not copy the sources"
    else
        (cd "$srcdir" && tar --exclude=./ovs --exclude=./ovs.tmp \
            --exclude=./deb-build --exclude=./autom4te.cache \
            --exclude=./Makefile --exclude=./config.status \
            --exclude=./config.log -cf - .) | tar -xf - -C "$work/build/src" ||
            fail "could not copy the sources"
    fi
    (cd "$work/build/src" && dpkg-checkbuilddeps) >>"$log" 2>&1 ||
        fail "build dependencies missing: $(tail -n 1 "$log")"
    start=$(date +%s)
    (cd "$work/build/src" &&
     flock $BUILD_LOCK dpkg-buildpackage -b -us -uc) >>"$log" 2>&1 ||
        { tail -n 40 "$log" >&2; fail "dpkg-buildpackage failed"; }
    say "built in $(( $(date +%s) - start )) s"
    deb=$(ls "$work"/build/${PKG}_*.deb 2>/dev/null)
    if [ -z "$deb" ] || [ "$(echo "$deb" | wc -l)" != 1 ]; then
        fail "expected one ${PKG}_*.deb, found: ${deb:-none}"
    fi
fi
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
[ "$(dpkg-deb -f "$deb" Package)" = $PKG ] || fail "$deb is not $PKG"
deb_version=$(dpkg-deb -f "$deb" Version)
say "package $PKG $deb_version"

# The exact openvswitch-switch version it goes with.
ovs_version=$(dpkg-deb -f "$deb" Depends |
    sed -n 's/.*openvswitch-switch (= \([^)]*\)).*/\1/p')
[ -n "$ovs_version" ] ||
    fail "Depends has no 'openvswitch-switch (= VERSION)': $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -f "$deb" Depends | grep -q "openvswitch-common (= $ovs_version)" ||
    fail "Depends has no 'openvswitch-common (= $ovs_version)'"
# An openvswitch-switch-dpdk beside it must be that version too.
breaks=$(dpkg-deb -f "$deb" Breaks)
echo "$breaks" | grep -qF "openvswitch-switch-dpdk (<< $ovs_version)" &&
    echo "$breaks" | grep -qF "openvswitch-switch-dpdk (>> $ovs_version)" ||
    fail "Breaks does not hold openvswitch-switch-dpdk to $ovs_version: $breaks"
dpkg --compare-versions "$deb_version" gt "$ovs_version" ||
    fail "version $deb_version does not sort above Debian's $ovs_version"
# The upstream version of that Open vSwitch (3.1.0 on Debian 12, 3.5.0 on
# Debian 13): the package's version starts with it.
ovs_upstream=${ovs_version%%-*}
ovs_upstream_re=$(echo "$ovs_upstream" | sed 's/\./\\./g')
case $deb_version in
    "$ovs_upstream"-*+pfc*) ;;
    *) fail "version $deb_version does not say $ovs_upstream + PFC" ;;
esac

## ------- ##
## lintian ##
## ------- ##

step=lintian
command -v lintian >/dev/null || fail "lintian not found (package lintian)"
lintian_out=$(lintian -I --fail-on error "$deb" 2>&1)
lintian_rc=$?
echo "$lintian_out" | grep -v '^running with root privileges' |
    sed 's/^/check-deb: lintian: /'
[ $lintian_rc = 0 ] || fail "lintian reports errors"

## ------- ##
## Install ##
## ------- ##

step=install
# Keep package scripts from starting services: this test starts and stops
# Open vSwitch itself.  (invoke-rc.d reads policy-rc.d; 101 = not allowed.)
if [ -e $POLICY_RC ]; then
    policy_rc_backup=$work/policy-rc.d.orig
    mv $POLICY_RC "$policy_rc_backup" || fail "cannot move $POLICY_RC aside"
fi
{ printf '#!/bin/sh\nexit 101\n' >$POLICY_RC && chmod 755 $POLICY_RC; } ||
    fail "cannot write $POLICY_RC"

# What openvswitch-switch leaves behind after a purge, if we install it.
for p in /var/lib/openvswitch /var/log/openvswitch $RUNDIR /etc/openvswitch; do
    note_absent "$p"
done
# ovs-ctl --system-id=random writes this on first start.
note_absent /etc/openvswitch/system-id.conf

if ! pkg_installed openvswitch-switch || ! pkg_installed openvswitch-common
then
    want=(openvswitch-switch="$ovs_version" openvswitch-common="$ovs_version")
    if ! sim=$(apt-get install -s --no-install-recommends "${want[@]}" 2>&1)
    then
        run apt-get update -q || fail "apt-get update failed"
        sim=$(apt-get install -s --no-install-recommends "${want[@]}" 2>&1) ||
            fail "cannot install ${want[*]}: $(echo "$sim" | tail -n 3)"
    fi
    # Exactly the packages this install adds, to purge them at the end.
    mapfile -t new_pkgs < <(echo "$sim" | awk '$1 == "Inst" && $3 !~ /^\[/ { print $2 }')
    say "installing ${want[*]} (and ${#new_pkgs[@]} packages in all)"
    run apt-get install "${APT_OPTS[@]}" --no-install-recommends "${want[@]}" ||
        fail "could not install openvswitch-switch $ovs_version"
fi
[ "$(dpkg-query -W -f='${Version}' openvswitch-switch)" = "$ovs_version" ] ||
    fail "openvswitch-switch $(dpkg-query -W -f='${Version}' openvswitch-switch) is installed, the package needs $ovs_version"
[ -x "$OVS_CTL" ] || fail "$OVS_CTL not found"

before_alt=$(alt_value)
[ -n "$before_alt" ] || fail "no ovs-vswitchd alternative after installing openvswitch-switch"
[ "$(alt_status)" = auto ] ||
    fail "the ovs-vswitchd alternative is in manual mode ($before_alt);" \
         "installing $PKG would not select its daemon"
/usr/sbin/ovs-vswitchd --version 2>&1 | grep -Eq "$PFC_VERSION_RE" &&
    fail "/usr/sbin/ovs-vswitchd is already a PFC build ($before_alt)"
say "ovs-vswitchd before: $before_alt"

say "apt-get install $deb"
installed_pfc=yes
run apt-get install "${APT_OPTS[@]}" --no-install-recommends "$deb" ||
    fail "apt-get install $deb failed"
pkg_installed $PKG || fail "$PKG is not installed after apt-get install"

## ------------------------ ##
## The alternative, version ##
## ------------------------ ##

step=alternative
[ -x $PFC_DAEMON ] || fail "$PFC_DAEMON missing"
[ "$(alt_value)" = $PFC_DAEMON ] ||
    fail "ovs-vswitchd alternative is $(alt_value), not $PFC_DAEMON"
[ "$(readlink -f /usr/sbin/ovs-vswitchd)" = $PFC_DAEMON ] ||
    fail "/usr/sbin/ovs-vswitchd resolves to $(readlink -f /usr/sbin/ovs-vswitchd)"
update-alternatives --query ovs-vswitchd >>"$log"
if ldd $PFC_DAEMON | grep -q 'not found'; then
    fail "missing libraries: $(ldd $PFC_DAEMON | grep 'not found' | tr '\n' ' ')"
fi
version_out=$(ovs-vswitchd --version 2>&1) ||
    fail "ovs-vswitchd --version failed: $version_out"
echo "$version_out" | sed 's/^/check-deb:   /'
echo "$version_out" | grep -Eq "$PFC_VERSION_RE" ||
    fail "ovs-vswitchd --version does not identify the PFC build"
echo "$version_out" | grep -q "(Open vSwitch) $ovs_upstream_re\$" ||
    fail "ovs-vswitchd --version does not say Open vSwitch $ovs_upstream"
echo "$version_out" | grep -q '^DPDK ' ||
    fail "ovs-vswitchd --version does not show DPDK"
[ -f /usr/share/doc/$PKG/README.Debian.gz ] ||
    [ -f /usr/share/doc/$PKG/README.Debian ] || fail "README.Debian missing"
[ -f /usr/share/doc/$PKG/pfc.rst.gz ] || [ -f /usr/share/doc/$PKG/pfc.rst ] ||
    fail "pfc.rst missing"
[ -f /usr/share/man/man8/ovs-vswitchd-dpdk-pfc.8.gz ] ||
    fail "ovs-vswitchd-dpdk-pfc(8) missing"

## ---------------------------------- ##
## The headroom calculator, no daemon ##
## ---------------------------------- ##

step=headroom
# No Open vSwitch runs yet (checked above) and DPDK is not set up: the
# calculator needs neither.
[ -x $HEADROOM ] || fail "$HEADROOM missing"
[ "$(dpkg-query -S $HEADROOM 2>/dev/null | cut -d: -f1)" = $PKG ] ||
    fail "$HEADROOM does not belong to $PKG"
[ "$(command -v ovs-pfc-headroom)" = $HEADROOM ] ||
    fail "ovs-pfc-headroom in PATH is $(command -v ovs-pfc-headroom)"
if ldd $HEADROOM | grep -q 'not found'; then
    fail "missing libraries: $(ldd $HEADROOM | grep 'not found' | tr '\n' ' ')"
fi
[ -f /usr/share/man/man8/ovs-pfc-headroom.8.gz ] ||
    fail "ovs-pfc-headroom(8) missing"
# The Cisco model alone: the white paper's 19,196 bytes, 300 cells of 160
# bytes (the same text as "ovs-appctl pfc/headroom model=cisco").
cat >"$work/headroom.expected" <<'EOF_HEADROOM'
model: cisco (seed 003, Cisco PFC white paper)
speed: 10000000000 bit/s, cable-length: 300 m
MTU[S]: 2240 bytes, MTU[R]: 9216 bytes
  term                       detail                              bit times
  MTU[R] frame before PFC    9216 bytes                              73728
  PFC frame                  0 bytes                                     0
  cable, both directions     300 m, 1300 bytes/100 m at 10G          31200
  interface delay            2 x 0 (none)                                0
  higher-layer delay                                                     0
  sender response time       60 quanta                               30720
  MTU[S] frame at sender     2240 bytes                              17920
buffer: 160-byte cells, worst case 64-byte frames of 1 cell
total: 153568 bit times, 19196 bytes, 300 quanta, 300 cells of 160 bytes = 48000 bytes
EOF_HEADROOM
ovs-pfc-headroom model=cisco >"$work/headroom.out" 2>"$work/headroom.err" ||
    fail "ovs-pfc-headroom model=cisco failed: $(cat "$work/headroom.err")"
[ ! -s "$work/headroom.err" ] ||
    fail "ovs-pfc-headroom model=cisco wrote to stderr: $(cat "$work/headroom.err")"
cmp -s "$work/headroom.expected" "$work/headroom.out" ||
    fail "ovs-pfc-headroom model=cisco printed something else:" \
         "$(diff -u "$work/headroom.expected" "$work/headroom.out")"
# A value out of range: the error on stderr, exit status 1.
err=$(ovs-pfc-headroom cable-length=1km 2>&1 >/dev/null)
rc=$?
[ $rc = 1 ] || fail "ovs-pfc-headroom cable-length=1km exited with $rc, not 1"
[ "$err" = 'cable-length="1km" is invalid: must be an integer from 0 to 100000 metres' ] ||
    fail "ovs-pfc-headroom cable-length=1km: unexpected error: $err"
ovs-pfc-headroom --version |
    grep -q "^ovs-pfc-headroom (Open vSwitch) $ovs_upstream_re\$" ||
    fail "ovs-pfc-headroom --version does not say Open vSwitch $ovs_upstream"
say "ovs-pfc-headroom: $(tail -n 1 "$work/headroom.out")"

## --------------------------- ##
## Open vSwitch, DPDK, QoS pfc ##
## --------------------------- ##

step=run
exec 9>$OVS_LOCK
say "waiting for $OVS_LOCK"
flock -w 1800 9 || fail "could not take $OVS_LOCK in 30 minutes"
run "$srcdir/scripts/setup-hugepages.sh" || fail "hugepages unavailable"

# A fresh system database for the test; an existing one is put back after.
if [ -e /var/lib/openvswitch/conf.db ]; then
    mkdir -p "$work/db"
    cp -a /var/lib/openvswitch/conf.db "$work/db/" || fail "cannot back up the database"
    [ ! -e /var/lib/openvswitch/.conf.db.~lock~ ] ||
        cp -a /var/lib/openvswitch/.conf.db.~lock~ "$work/db/"
    db_backup=yes
    rm -f /var/lib/openvswitch/conf.db
fi

# This run's part of ovs-vswitchd's log.
VSWITCHD_LOG=/var/log/openvswitch/ovs-vswitchd.log
vswitchd_log_start=$(cat $VSWITCHD_LOG 2>/dev/null | wc -l)
vswitchd_log() { tail -n +$((vswitchd_log_start + 1)) $VSWITCHD_LOG 2>/dev/null; }

ovs_started=yes
run "$OVS_CTL" --no-ovs-vswitchd --system-id=random --no-record-hostname \
    start || fail "ovs-ctl could not start ovsdb-server"
run vsctl --no-wait set Open_vSwitch . other_config:dpdk-init=true \
    other_config:dpdk-extra="--no-pci --file-prefix=$DPDK_PREFIX" \
    other_config:per-port-memory=true ||
    fail "could not configure DPDK"
run "$OVS_CTL" --no-ovsdb-server --system-id=random --no-record-hostname \
    start || fail "ovs-ctl could not start ovs-vswitchd"
pid_alive ovs-vswitchd || fail "ovs-vswitchd is not running"
exe=$(readlink /proc/"$(cat $RUNDIR/ovs-vswitchd.pid)"/exe)
[ "$exe" = $PFC_DAEMON ] || fail "the running ovs-vswitchd is $exe"

for _ in $(seq 150); do
    [ "$(vsctl get Open_vSwitch . dpdk_initialized 2>/dev/null)" = true ] &&
        break
    sleep 0.2
done
[ "$(vsctl get Open_vSwitch . dpdk_initialized 2>/dev/null)" = true ] ||
    { vswitchd_log | tail -n 20 >&2; fail "DPDK did not initialise"; }

# wait_ofport IFACE: waits until IFACE has an OpenFlow port number, i.e.
# ovs-vswitchd really created it (ovs-vsctl exits 0 even when it did not).
wait_ofport() {
    local ofport
    for _ in $(seq 50); do
        ofport=$(vsctl get Interface "$1" ofport 2>/dev/null)
        case $ofport in
            ''|'[]'|-1) sleep 0.2 ;;
            *) return 0 ;;
        esac
    done
    echo "check-deb: interface $1: ofport '$ofport', error" \
         "$(vsctl get Interface "$1" error 2>&1)" >&2
    vswitchd_log | grep -E '\|(WARN|ERR|EMER)\|' | tail -n 10 >&2
    if vswitchd_log |
            grep -q 'ovs-netdev: creating tap device failed: Device or resource busy'
    then
        echo "check-deb: another ovs-vswitchd with a netdev bridge is running" \
             "(the ovs-netdev device is taken), without holding $OVS_LOCK" >&2
    fi
    return 1
}
run vsctl add-br $BRIDGE -- set Bridge $BRIDGE datapath_type=netdev ||
    fail "could not create netdev bridge $BRIDGE"
wait_ofport $BRIDGE || fail "ovs-vswitchd did not create bridge $BRIDGE"
run vsctl add-port $BRIDGE $PORT -- set Interface $PORT type=dpdk \
    options:dpdk-devargs=net_null0,no-rx=1 ||
    fail "could not add DPDK port $PORT"
wait_ofport $PORT || fail "ovs-vswitchd did not create DPDK port $PORT"
err=$(vsctl get Interface $PORT error 2>&1)
[ "$err" = '[]' ] || [ -z "$err" ] || fail "DPDK port $PORT: $err"
run ovs-appctl --timeout=30 dpif/show || fail "ovs-appctl dpif/show failed"
run vsctl set Port $PORT qos=@q -- --id=@q create QoS type=pfc \
    other_config:pfc-enable=3,4 other_config:link-speed=10G ||
    fail "could not set QoS type pfc on $PORT"

show=
for _ in $(seq 50); do
    show=$(ovs-appctl --timeout=30 pfc/show $PORT 2>&1) \
        && echo "$show" | grep -q 'pfc-enable:' && break
    sleep 0.2
done
echo "$show" >>"$log"
echo "$show" | grep -q "^$PORT:" ||
    fail "ovs-appctl pfc/show $PORT did not answer with the port: $show"
echo "$show" | grep -q 'pfc-enable: 3,4' ||
    fail "pfc/show does not show pfc-enable 3,4: $show"
echo "$show" | sed -n '1,3s/^/check-deb:   /p'

run vsctl del-br $BRIDGE || fail "could not delete $BRIDGE"
stop_ovs
for d in ovs-vswitchd ovsdb-server; do
    pid_alive $d && fail "$d still running after ovs-ctl stop"
done
restore_db
exec 9>&-

## ----- ##
## Purge ##
## ----- ##

step=purge
run apt-get purge "${APT_OPTS[@]}" $PKG || fail "apt-get purge $PKG failed"
installed_pfc=no
pkg_installed $PKG && fail "$PKG still installed"
[ ! -e $PFC_DAEMON ] || fail "$PFC_DAEMON still there"
[ ! -e $HEADROOM ] || fail "$HEADROOM still there"
update-alternatives --query ovs-vswitchd 2>/dev/null | grep -q "$PFC_DAEMON" &&
    fail "the PFC daemon is still registered as an ovs-vswitchd alternative"
[ "$(alt_value)" = "$before_alt" ] ||
    fail "ovs-vswitchd alternative is $(alt_value), not $before_alt as before"
[ "$(readlink -f /usr/sbin/ovs-vswitchd)" = "$(readlink -f "$before_alt")" ] ||
    fail "/usr/sbin/ovs-vswitchd resolves to $(readlink -f /usr/sbin/ovs-vswitchd)"
version_out=$(ovs-vswitchd --version 2>&1) ||
    fail "ovs-vswitchd --version failed after the purge: $version_out"
echo "$version_out" | grep -Eq "$PFC_VERSION_RE" &&
    fail "ovs-vswitchd is still the PFC build after the purge"
say "ovs-vswitchd after purge: $(alt_value) ($(echo "$version_out" | head -n 1))"

step=cleanup
status=0
