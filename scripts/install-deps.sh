#!/bin/sh
# Installs, with apt, every Debian package (Debian 12 or 13) needed to build
# Open vSwitch with PFC, run its tests (python3-pytest and python3-netaddr:
# upstream's Python unit tests in "make check-upstream") and run the demo.
# Needs root.
set -e
if [ "$(id -u)" != 0 ]; then
    echo "$0: must run as root (apt-get install)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
    build-essential autoconf automake libtool pkg-config patch \
    openvswitch-source libdpdk-dev dpdk dpdk-dev \
    libssl-dev libcap-ng-dev libnuma-dev libpcap-dev \
    python3 python3-scapy tshark tcpdump netsniff-ng iproute2 procps kmod \
    debhelper dpkg-dev lintian libunbound-dev util-linux python3-matplotlib \
    python3-pytest python3-netaddr systemtap-sdt-dev iperf3 iputils-ping ethtool

# lldpd is the DCBX link partner of the system tests, run by them in their
# own network namespaces.  The package would start the daemon on the host's
# interfaces: keep it from starting (policy-rc.d, 101: not allowed) and from
# starting at boot.
policy=/usr/sbin/policy-rc.d
own_policy=
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy"
    chmod 755 "$policy"
    own_policy=1
fi
apt-get install -y -q --no-install-recommends lldpd || {
    [ -n "$own_policy" ] && rm -f "$policy"
    exit 1
}
[ -n "$own_policy" ] && rm -f "$policy"
if command -v systemctl >/dev/null 2>&1; then
    systemctl disable --now lldpd.service >/dev/null 2>&1 || true
fi
