#!/usr/bin/python3
# Copyright (c) 2026 The OVS PFC authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""The measuring side of utilities/ovs-pfc-bench.

utilities/ovs-pfc-bench sets up namespaces, ovsdb-server and ovs-vswitchd
(through tests/system/lib.sh) and then runs "pfc_bench.py run", which drives
every phase of the benchmark, prints the table and writes the plot.  It talks
to ovs-vswitchd through its unixctl socket directly (JSON-RPC, as ovs-appctl
does), which keeps 100 ms sampling cheap, and to the OVS database through
ovs-vsctl and ovs-ofctl.

Latencies come from the USDT probes of lib/netdev-dpdk-pfc.c (provider
netdev_dpdk_pfc: rx_frame, paused, unpause, tx_frame), traced with
bpftrace.  They exist only in a build configured with --enable-usdt-probes
(config.h defines HAVE_USDT_PROBES); without such a build, or without
bpftrace, the latency rows say INCONCLUSIVE, "not measured", and the phases
that only feed them are skipped.

Subcommands:
  mkpcap     write the traffic source's pcap (scapy): 64-byte 802.1Q frames,
             priorities 0..7 in turn; with --dscp, untagged IPv4 frames of
             mixed DSCPs instead (the source of trust=dscp)
  refresher  keep a priority paused with PFC frames sent every INTERVAL while
             active; SIGUSR1 starts, SIGUSR2 stops and sends XON
  parse-show parse "ovs-appctl pfc/show" output (stdin) into JSON, for tests
  analyze-usdt
             compute the latency figures from a bpftrace trace (stdin, the
             lines that "run" records) and a JSON description of the frames
             sent (--sends FILE), for tests
  run        the benchmark itself

Run with the Debian interpreter, /usr/bin/python3 (python3-scapy,
python3-matplotlib).
"""

import argparse
import ctypes
import json
import math
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pfc_peer  # noqa: E402  (scapy itself is imported lazily)

MAC_SRC = "02:00:00:00:0a:01"
MAC_DST = "02:00:00:00:0b:01"
FRAME_LEN = 60                  # Octets in the pcap: 64 on the wire with FCS.
VLAN = 10
# The DSCPs of the trust=dscp source (mkpcap --dscp), in this mixed order:
# CS0..CS7 and AF11, AF31, AF41, EF.  Their default priorities (DSCP / 8)
# cover 0..7.
TRUST_DSCPS = (0, 26, 8, 46, 16, 34, 24, 10, 32, 56, 40, 48)

# Targets.  Ratios are throughput ratios: >= target passes.
TARGET_BA = 0.98
TARGET_PMD2 = 0.97
TARGET_CB = 0.95
TARGET_ETS_SHARE = 0.05       # Relative error of an ETS share.
TARGET_REACTION_NS = 2000
# A pause may end up to one PMD iteration late by design (every rx queue of
# the port must be polled after its expiry): the target of its late end is
# the measured PMD iteration plus this.
TARGET_LATE_EXTRA_NS = 2000
TARGET_XOFF_NS = 5000
# The cost with 10,000 packets held against none must not grow; this is the
# benchmark's tolerance.
TARGET_HELD = 1.02

# Why a latency row was not measured, when it was not.
NOT_MEASURED_USDT = ("not measured: needs a build with ./configure "
                     "--enable-usdt-probes and bpftrace")

# Enum pfc_rx_kind of lib/pfc.h: the 'kind' argument of probe rx_frame.
RX_KIND_PFC = 1


# ---------------------------------------------------------------------------
# Small helpers.

def log(msg):
    print("# " + msg, flush=True)


def median(v):
    return statistics.median(v) if v else float("nan")


def fmt_ratio(x):
    return "n/a" if x is None or math.isnan(x) else "%.3f" % x


# Coverage of median_ci(): at least this share of runs would bracket the
# true median of the windows' ratios.
CI_COVERAGE = 0.90


def median_ci(v):
    """A distribution-free confidence interval for the median of the values
    'v' (one ratio per window): (v(k), v(n+1-k)) of the sorted values, with
    the largest k whose coverage, 1 - 2 P(Binomial(n, 1/2) <= k - 1), is at
    least CI_COVERAGE.  Assumes only that the windows are independent.
    Returns (lo, hi), or (nan, nan) with fewer than 5 values (too few for
    90%)."""
    n = len(v)
    x = sorted(v)
    best = None
    tail = 0.0
    for k in range(1, n // 2 + 1):
        tail += math.comb(n, k - 1) / 2.0 ** n     # P(B <= k - 1)
        if 1 - 2 * tail >= CI_COVERAGE:
            best = k
        else:
            break
    if best is None:
        return float("nan"), float("nan")
    return x[best - 1], x[n - best]


def fmt_ci(ci):
    if not ci or any(math.isnan(c) for c in ci):
        return ""
    return " [%.3f, %.3f]" % ci


def set_pdeathsig():
    """Makes this process die with its parent (prctl PR_SET_PDEATHSIG)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)
    except Exception:
        pass


def data_frame(prio, sport=1000, vlan=VLAN, src=MAC_SRC, dst=MAC_DST):
    s = pfc_peer.scapy()
    from scapy.layers.inet import IP, UDP
    pkt = (s.Ether(src=src, dst=dst) / s.Dot1Q(vlan=vlan, prio=prio)
           / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=sport, dport=2000))
    return bytes(pkt).ljust(FRAME_LEN, b"\0")


def ip_frame(dscp, sport=1000, src=MAC_SRC, dst=MAC_DST):
    """An untagged IPv4/UDP frame of DSCP 'dscp' (ECN 0)."""
    s = pfc_peer.scapy()
    from scapy.layers.inet import IP, UDP
    pkt = (s.Ether(src=src, dst=dst)
           / IP(src="10.0.0.1", dst="10.0.0.2", tos=dscp << 2)
           / UDP(sport=sport, dport=2000))
    return bytes(pkt).ljust(FRAME_LEN, b"\0")


# ---------------------------------------------------------------------------
# mkpcap

def cmd_mkpcap(args):
    s = pfc_peer.scapy()
    from scapy.utils import wrpcap
    frames = []
    if args.dscp:
        # As many frames of each DSCP.
        count = args.count or 5 * len(TRUST_DSCPS)
        for i in range(count):
            dscp = TRUST_DSCPS[i % len(TRUST_DSCPS)]
            frames.append(s.Ether(ip_frame(dscp, sport=1000 + dscp)))
        wrpcap(args.file, frames)
        print("%s: %d frames of %d octets (+4 FCS), untagged IPv4, DSCPs %s "
              "in turn (priorities %s by DSCP / 8)"
              % (args.file, len(frames), FRAME_LEN,
                 ",".join("%d" % d for d in TRUST_DSCPS),
                 ",".join("%d" % (d >> 3) for d in TRUST_DSCPS)))
        return
    for i in range(args.count or 64):
        prio = i % 8
        frames.append(s.Ether(data_frame(prio, sport=1000 + prio)))
    wrpcap(args.file, frames)
    print("%s: %d frames of %d octets (+4 FCS), 802.1Q VLAN %d, priorities "
          "0..7 in turn" % (args.file, len(frames), FRAME_LEN, VLAN))


# ---------------------------------------------------------------------------
# refresher

def cmd_refresher(args):
    set_pdeathsig()
    mask = pfc_peer.parse_prios(args.prio)
    xoff = pfc_peer.pfc_frame(mask, args.time)
    xon = pfc_peer.pfc_frame(mask, 0)
    port = pfc_peer.Port(args.port)
    state = {"active": False, "xon": False, "quit": False, "sent": 0}

    def on(signum, frame):
        state["active"] = True

    def off(signum, frame):
        state["active"] = False
        state["xon"] = True

    def quit_(signum, frame):
        state["quit"] = True
        state["active"] = False
        state["xon"] = True

    signal.signal(signal.SIGUSR1, on)
    signal.signal(signal.SIGUSR2, off)
    signal.signal(signal.SIGTERM, quit_)
    signal.signal(signal.SIGINT, quit_)
    if args.rt:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(args.rt))
        except OSError:
            pass
    print("ready", flush=True)
    t_next = None
    while True:
        if state["active"]:
            now = time.monotonic()
            if t_next is None or now - t_next > args.interval:
                t_next = now
            port.send(xoff)
            state["sent"] += 1
            t_next += args.interval
            delay = t_next - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            continue
        t_next = None
        if state["xon"]:
            port.send(xon)
            state["xon"] = False
        if state["quit"]:
            break
        time.sleep(0.002)
    print("sent %d" % state["sent"], flush=True)


# ---------------------------------------------------------------------------
# Talking to ovs-vswitchd.

class Unixctl:
    """A JSON-RPC client of an OVS unixctl socket (what ovs-appctl does)."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(60)
        self.sock.connect(path)
        self.id = 0
        self.buf = ""
        self.dec = json.JSONDecoder()

    def call(self, method, *params):
        self.id += 1
        req = {"id": self.id, "method": method,
               "params": [str(p) for p in params]}
        self.sock.sendall(json.dumps(req).encode())
        while True:
            text = self.buf.lstrip()
            if text:
                try:
                    obj, end = self.dec.raw_decode(text)
                except ValueError:
                    obj = None
                if obj is not None:
                    self.buf = text[end:]
                    if obj.get("id") != self.id:
                        continue
                    if obj.get("error") is not None:
                        raise RuntimeError("%s: %s" % (method, obj["error"]))
                    return obj.get("result") or ""
            data = self.sock.recv(1 << 20)
            if not data:
                raise RuntimeError("ovs-vswitchd closed its control socket")
            self.buf += data.decode("utf-8", "replace")


def parse_pmd_stats(text):
    """The PMD threads' counters from dpif-netdev/pmd-stats-show, summed
    over every PMD thread, and per thread in "pmds"."""
    pmds = []
    block = None
    for line in text.splitlines():
        if line.startswith("pmd thread"):
            block = {}
            m = re.search(r"core_id (\d+)", line)
            block["core"] = int(m.group(1)) if m else None
            pmds.append(block)
            continue
        if line.startswith("main thread"):
            block = None
            continue
        if block is None:
            continue
        m = re.match(r"\s+packets received:\s+(\d+)", line)
        if m:
            block["packets"] = int(m.group(1))
        m = re.match(r"\s+idle cycles:\s+(\d+)", line)
        if m:
            block["idle"] = int(m.group(1))
        m = re.match(r"\s+processing cycles:\s+(\d+)", line)
        if m:
            block["proc"] = int(m.group(1))
    pk = sum(p.get("packets", 0) for p in pmds)
    proc = sum(p.get("proc", 0) for p in pmds)
    return {"packets": pk, "proc": proc,
            "idle": sum(p.get("idle", 0) for p in pmds),
            "cpp": proc / pk if pk else float("nan"),
            "pmds": [{"core": p.get("core"), "packets": p.get("packets", 0)}
                     for p in pmds]}


def parse_pmd_perf(text):
    """{core_id: microseconds per PMD iteration} from
    dpif-netdev/pmd-perf-show."""
    out = {}
    core = None
    for line in text.splitlines():
        m = re.match(r"pmd thread .*core_id (\d+)", line)
        if m:
            core = int(m.group(1))
            continue
        m = re.match(r"\s+Iterations:\s+(\d+)\s+\(([\d.]+) us/it\)", line)
        if m and core is not None:
            out[core] = float(m.group(2))
    return out


def parse_port_stats(text):
    """{port name: {"rx": n, "tx": n, "tx_dropped": n}} from dpctl/show -s."""
    ports = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"\s+port \d+: (\S+)", line)
        if m:
            cur = ports.setdefault(m.group(1), {})
            continue
        if cur is None:
            continue
        m = re.match(r"\s+RX packets:(\d+)", line)
        if m:
            cur["rx"] = int(m.group(1))
        m = re.match(r"\s+TX packets:(\d+)\s+errors:\S+\s+dropped:(\d+)", line)
        if m:
            cur["tx"] = int(m.group(1))
            cur["tx_dropped"] = int(m.group(2))
    return ports


def parse_pfc_show(text):
    """{port: {"dpdk_port": n, "link_speed": bit/s, "rxq": n, "txq": n,
    "prios": [{column: value}...]}} from pfc/show.  Lines that are absent
    are simply missing from the result."""
    ports = {}
    cur = None
    header = None
    for line in text.splitlines():
        m = re.match(r"^(\S+):$", line)
        if m:
            cur = ports.setdefault(m.group(1), {"prios": []})
            header = None
            continue
        if cur is None:
            continue
        m = re.match(r"\s+dpdk port (\d+), link speed (\d+) bit/s", line)
        if m:
            cur["dpdk_port"] = int(m.group(1))
            cur["link_speed"] = int(m.group(2))
            continue
        m = re.match(r"\s+queues: (\d+) rx, (\d+) tx", line)
        if m:
            cur["rxq"] = int(m.group(1))
            cur["txq"] = int(m.group(2))
            continue
        toks = line.split()
        if toks and toks[0] == "prio":
            header = toks
            continue
        if header and toks and re.match(r"p\d$", toks[0]) \
           and len(toks) == len(header):
            row = {}
            for k, v in zip(header, toks):
                row[k] = int(v) if re.match(r"-?\d+$", v) else v
            cur["prios"].append(row)
    return ports


def cmd_parse_show(args):
    print(json.dumps(parse_pfc_show(sys.stdin.read()), indent=1,
                     sort_keys=True))


# ---------------------------------------------------------------------------
# USDT probes (bpftrace)

def percentile(v, q):
    """The q-th percentile (0..100) of 'v', nearest rank."""
    if not v:
        return float("nan")
    s = sorted(v)
    return s[min(len(s) - 1, max(0, int(math.ceil(q / 100.0 * len(s))) - 1))]


def usdt_status(config_h, vswitchd):
    """(True, None) if the latency probes can be traced: the tree was
    configured with --enable-usdt-probes (HAVE_USDT_PROBES in its config.h),
    the binary has the provider netdev_dpdk_pfc, and bpftrace is installed.
    Otherwise (False, why)."""
    have = False
    try:
        with open(config_h) as f:
            have = any(re.match(r"#define HAVE_USDT_PROBES 1\b", ln)
                       for ln in f)
    except OSError:
        pass
    bpftrace = shutil.which("bpftrace")
    if not have or not bpftrace:
        missing = []
        if not have:
            missing.append("%s has no HAVE_USDT_PROBES" % config_h)
        if not bpftrace:
            missing.append("bpftrace not installed")
        return False, "%s (%s)" % (NOT_MEASURED_USDT, "; ".join(missing))
    try:
        with open(vswitchd, "rb") as f:
            if b"netdev_dpdk_pfc" not in f.read():
                return False, ("%s (%s has no netdev_dpdk_pfc probes)"
                               % (NOT_MEASURED_USDT, vswitchd))
    except OSError as e:
        return False, "%s (%s)" % (NOT_MEASURED_USDT, e)
    return True, None


# One line per probe hit: a letter, the probe's arguments, then the
# CLOCK_MONOTONIC time of the hit (bpftrace's nsecs, the clock of
# time.monotonic_ns()).
#
# Each latency is taken from the arguments of one probe hit, both TSCs read
# by the product before the hit traps into the kernel, so that no traced
# probe runs inside the interval it times:
#   unpause   'ended' (when the pause ended: expiry, or the earliest
#             arrival of the XON) -> 'tsc'; and 'read' (when the last PFC
#             frame that set the timers was read) -> 'tsc'
#   rx_frame  'tsc' (when the PFC frame was read) -> 'in_force' (its pause
#             timers in force for every transmit decision)
#   paused    'read' (when the PFC frame was read) -> 'tsc' (first transmit
#             decision on a tx queue after it, which honours it)
#   tx_frame  'crossed' (group went over XOFF) -> 'tsc' (XOFF sent)
# A phase traces only the probes it needs: a traced hit costs 5-8 us on a
# virtual machine, and delays whatever its thread does next.
BPF_PROBES = {
    "rx_frame": 'printf("R %d %d %d %d %d %lu %lu %lu\\n", arg0, arg1, '
                'arg2 & 0xff, (arg2 >> 8) & 0xff, (arg2 >> 16) & 0xff, '
                'arg3, arg4, nsecs);',
    "unpause": 'printf("U %d %d %d %lu %lu %lu %lu\\n", arg0, arg1, arg2, '
               'arg3, arg4, arg5, nsecs);',
    "paused": 'printf("P %d %d %d %lu %lu %lu\\n", arg0, arg1, arg2, '
              'arg3, arg4, nsecs);',
    "tx_frame": 'printf("T %d %d %d %d %lu %lu %lu\\n", arg0, arg1, arg2, '
                'arg3, arg4, arg5, nsecs);',
}
TRACE_FIELDS = {"R": ("port", "kind", "enable", "xon", "started", "tsc",
                      "in_force", "ns"),
                "U": ("port", "txq", "tcs", "ended", "tsc", "read", "ns"),
                "P": ("port", "txq", "tcs", "read", "tsc", "ns"),
                "T": ("port", "txq", "enable", "xoff", "crossed", "tsc",
                      "ns")}


def parse_trace(lines):
    """{letter: [event dict]} from the lines of a bpftrace trace, and the
    number of events bpftrace reported lost."""
    ev = {k: [] for k in TRACE_FIELDS}
    lost = 0
    for line in lines:
        w = line.split()
        if not w:
            continue
        m = re.search(r"Lost (\d+) events", line)
        if m:
            lost += int(m.group(1))
            continue
        f = TRACE_FIELDS.get(w[0])
        if f is None or len(w) != len(f) + 1:
            continue
        try:
            ev[w[0]].append(dict(zip(f, (int(x) for x in w[1:]))))
        except ValueError:
            continue
    return ev, lost


class Tracer:
    """bpftrace on the netdev_dpdk_pfc probes of one ovs-vswitchd."""

    def __init__(self, vswitchd, pid, path, probes):
        self.path = path
        self.error = None
        script = "\n".join("usdt:%s:netdev_dpdk_pfc:%s { %s }"
                           % (vswitchd, p, BPF_PROBES[p]) for p in probes)
        self.out = open(path, "w")
        self.err = open(path + ".err", "w")
        self.proc = subprocess.Popen(
            ["bpftrace", "-B", "line", "-p", str(pid), "-e", script],
            stdout=self.out, stderr=self.err, preexec_fn=set_pdeathsig)
        t_end = time.monotonic() + 60
        while time.monotonic() < t_end:
            if self.proc.poll() is not None:
                self.error = "bpftrace exited: %s" % self.err_text()
                return
            with open(path) as f:
                if "Attaching" in f.read(4096):
                    time.sleep(0.5)
                    return
            time.sleep(0.1)
        self.error = "bpftrace did not attach in 60 s: %s" % self.err_text()
        self.stop()

    def err_text(self):
        try:
            with open(self.path + ".err") as f:
                t = " ".join(f.read().split())
        except OSError:
            t = ""
        return t[-300:] or "no message"

    def stop(self):
        """Stops bpftrace and returns (events, lost) from its trace."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.close()
        self.err.close()
        with open(self.path) as f:
            return parse_trace(f)


def tsc_hz_from_log(path):
    """The TSC frequency that ovs-vswitchd uses (DPDK's rte_get_tsc_hz(),
    which the PFC timers use too), from its log, or None."""
    try:
        with open(path) as f:
            for line in f:
                m = re.search(r"(?:DPDK provided|Estimated) TSC frequency: "
                              r"(\d+) KHz", line)
                if m:
                    return int(m.group(1)) * 1000
    except OSError:
        pass
    return None


def tsc_hz_from_trace(ev):
    """The TSC frequency fitted to the trace's (nsecs, tsc) pairs, or
    None: the slope of a least-squares line."""
    pts = [(e["ns"], e["tsc"]) for k in ev for e in ev[k]]
    if len(pts) < 10:
        return None
    n = len(pts)
    mx = sum(p[0] for p in pts) / n
    my = sum(p[1] for p in pts) / n
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if sxx < 1e18:          # Less than about a second: too short.
        return None
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx * 1e9


def quanta_ticks(quanta, speed, hz):
    """pfc_quanta_to_ticks() of lib/pfc.c: 512 bit times per quantum,
    rounded up."""
    return -(-quanta * 512 * hz // speed)


def match_sends(ev, sends, max_delay_ns):
    """{(port, prio): [[tsc, send or None]]}, sorted by TSC, and the number
    of rx_frames matched ambiguously: each rx_frame of a PFC frame naming a
    priority that 'sends' paused is matched with the latest such send before
    it, no more than 'max_delay_ns' earlier; two rx_frames matched with one
    send leave the pause unknown (None).  An XON ends the pause where it is
    read."""
    from bisect import bisect_left
    sends = sorted(sends, key=lambda s: s["t"])
    by_key = {}
    for s in sends:
        by_key.setdefault((s["port"], s["prio"]), []).append(s)
    times = {k: [s["t"] for s in v] for k, v in by_key.items()}
    matched = {}
    sets = {}
    for r in ev.get("R", []):
        if r["kind"] != RX_KIND_PFC:
            continue
        for prio in range(8):
            if not r["enable"] & (1 << prio):
                continue
            lst = by_key.get((r["port"], prio))
            if lst is None:
                continue
            i = bisect_left(times[(r["port"], prio)], r["ns"] + 1) - 1
            s = None
            if i >= 0 and r["ns"] - lst[i]["t"] <= max_delay_ns:
                s = lst[i]
            if r.get("xon", 0) & (1 << prio):
                s = {"quanta": 0, "speed": 1, "block": "xon"}
            entry = [r["tsc"], s]
            if s is not None and s.get("t") is not None:
                matched.setdefault(id(s), []).append(entry)
            sets.setdefault((r["port"], prio), []).append(entry)
    ambiguous = 0
    for entries in matched.values():
        if len(entries) > 1:
            ambiguous += len(entries)
            for e in entries:
                if e[1]["quanta"]:
                    e[1] = None
    for v in sets.values():
        v.sort(key=lambda e: e[0])
    return sets, ambiguous


def analyze_trace(ev, sends, prio_tc, hz, max_delay_ns=2000000,
                  windows=None):
    """Latency figures from a trace 'ev' (parse_trace()), in ns.

    Late end of a pause: for each unpause, its 'tsc' minus 'ended', the end
    of the pause by the product's own pause timers (expiry, or the earliest
    arrival of an XON).  With 'windows' ({block: (t0, t1)} in
    time.monotonic_ns()),
    each is filed under the block whose window holds the hit; otherwise
    under "all".  An unpause more than 2 cycles before 'ended' is an early
    release.

    If rx_frame was traced too, every unpause is also checked against the
    PFC frames the benchmark sent ('sends', each {"t": time.monotonic_ns()
    just before sending, "port": DPDK port id, "prio", "quanta", "speed":
    bit/s, "block"}; match_sends()), independently of the product's
    timers: its pause ends at the rx_frame's TSC plus its quanta
    (pfc_quanta_to_ticks()), or at the TSC of an XON; an unpause more than 2
    cycles plus 2 ppm of the pause (the TSC frequency's precision) before
    that is an early release.  'prio_tc' maps {port: [traffic class of
    priority 0..7]}.

    Pause reaction: for each rx_frame that paused a priority that was not
    paused, 'in_force' - 'tsc': from the read of the frame to its pause
    timers in force for every transmit decision.  First decision: for each
    frame read ('read' of the paused probe), the first paused hit: 'tsc' -
    'read', which includes the rest of the PMD iteration.

    XOFF generation: for each crossing of XOFF ('crossed' of tx_frame), the
    first XOFF frame that carries it: 'tsc' - 'crossed'.

    Release after the read of the last PFC frame: for each unpause, 'tsc'
    minus 'read', the TSC at which the port read the last PFC frame that set
    its pause timers; where every pause ends by XON (phase latency), from
    the read of the XON to the release of the held packets."""
    from bisect import bisect_left
    to_ns = 1e9 / hz
    late = {}
    early = []
    checked = 0
    for u in ev.get("U", []):
        block = "all"
        for b, (t0, t1) in (windows or {}).items():
            if t0 <= u["ns"] <= t1:
                block = b
                break
        d = u["tsc"] - u["ended"]
        checked += 1
        if d < -2:
            early.append({"port": u["port"], "prio": -1, "txq": u["txq"],
                          "block": block, "early_ns": -d * to_ns})
        late.setdefault(block, []).append(d * to_ns)

    unknown = 0
    unmatched = ambiguous = 0
    if ev.get("R"):
        sets, ambiguous = match_sends(ev, sends, max_delay_ns)
        unmatched = sum(1 for v in sets.values() for e in v if e[1] is None)
        set_tscs = {k: [e[0] for e in v] for k, v in sets.items()}
        for u in ev.get("U", []):
            for (port, prio), v in sets.items():
                if port != u["port"]:
                    continue
                tc = prio_tc.get(port, list(range(8)))[prio]
                if not u["tcs"] & (1 << tc):
                    continue
                i = bisect_left(set_tscs[(port, prio)], u["tsc"]) - 1
                if i < 0:
                    continue
                tsc, s = v[i]
                if s is None:
                    unknown += 1
                    continue
                ticks = quanta_ticks(s["quanta"], s["speed"], hz) \
                    if s["quanta"] else 0
                d = u["tsc"] - (tsc + ticks)
                if d < -(2 + ticks * 2e-6):
                    early.append({"port": port, "prio": prio,
                                  "txq": u["txq"], "block": s["block"],
                                  "early_ns": -d * to_ns})

    reaction = [(r["in_force"] - r["tsc"]) * to_ns
                 for r in ev.get("R", [])
                 if r["kind"] == RX_KIND_PFC and r["started"]
                 and r["in_force"] >= r["tsc"]]
    first = {}
    for e in ev.get("P", []):
        key = (e["port"], e["read"])
        if e["read"] and e["tsc"] >= e["read"]:
            first[key] = min(first.get(key, e["tsc"]), e["tsc"])
    first = [(t - k[1]) * to_ns for k, t in first.items()]

    xoff = {}
    for e in ev.get("T", []):
        key = (e["port"], e["crossed"])
        if e["xoff"] and e["crossed"] and e["tsc"] >= e["crossed"]:
            xoff[key] = min(xoff.get(key, e["tsc"]), e["tsc"])
    xoff = [(t - k[1]) * to_ns for k, t in xoff.items()]

    xon_release = [(u["tsc"] - u["read"]) * to_ns for u in ev.get("U", [])
                   if u["read"] and u["tsc"] >= u["read"]]

    return {"late": late, "xon_release": xon_release, "early": early,
            "checked": checked,
            "unknown_pause": unknown, "unmatched_rx": unmatched,
            "ambiguous_rx": ambiguous, "reaction": reaction,
            "first_decision": first, "xoff": xoff,
            "hz": hz, "events": {k: len(v) for k, v in ev.items()}}


def lat_summary(v):
    return {"n": len(v), "p50": percentile(v, 50), "p99": percentile(v, 99),
            "max": max(v) if v else float("nan")}


def cmd_analyze_usdt(args):
    ev, lost = parse_trace(sys.stdin)
    with open(args.sends) as f:
        d = json.load(f)
    prio_tc = {int(k): v for k, v in d.get("prio_tc", {}).items()}
    hz = args.hz or tsc_hz_from_trace(ev)
    r = analyze_trace(ev, d["sends"], prio_tc, hz)
    r["late"] = {k: lat_summary(v) for k, v in r["late"].items()}
    r["reaction"] = lat_summary(r["reaction"])
    r["first_decision"] = lat_summary(r["first_decision"])
    r["xoff"] = lat_summary(r["xoff"])
    r["xon_release"] = lat_summary(r["xon_release"])
    r["lost"] = lost
    print(json.dumps(r, indent=1, sort_keys=True))


def ratio_verdict(value, ok, ctrl=None, ratio=None, target=None, ci=None):
    """PASS or FAIL by 'ok', unless the windows cannot tell which side of
    the target the ratio is on: the target lies within 'ci', the confidence
    interval of the median of the windows' ratios (median_ci()), or the A/A
    control says the noise is larger than the effect (|ctrl - 1| > |ratio -
    1|) or than the distance to the target (noise could flip the verdict).
    Then INCONCLUSIVE."""
    if value is None:
        return "INCONCLUSIVE"
    if ci is not None and target is not None \
       and not any(math.isnan(c) for c in ci) and ci[0] <= target <= ci[1]:
        return "INCONCLUSIVE"
    if ctrl is not None and ratio is not None:
        if math.isnan(ctrl) or math.isnan(ratio):
            return "INCONCLUSIVE"
        noise = abs(ctrl - 1)
        if noise > abs(ratio - 1) or \
           (target is not None and noise > abs(ratio - target)):
            return "INCONCLUSIVE"
    return "PASS" if ok else "FAIL"


def lat_verdict(p99, target, samples, preempt, over=None, floor=None):
    """p99 within target passes: preemption only adds latency.  Over it,
    the result is INCONCLUSIVE if the PMD thread lost its core at least
    once per 100 events (enough to make the 99th percentile).

    For the late end of a pause, 'over' is the share of samples over
    target (one PMD iteration + 2 us).  Its control, 'floor', is the share
    for an ideal timer on the PMD's CPU of deadlines missed by more than
    2 us: the share of time in which a deadline falls more than 2 us before
    the end of a stall of the CPU (pfc-freeze-probe's late_2us_share,
    measured before the run), or None.  If the samples
    miss the target no more often than an ideal timer would, the machine
    decides the p99 and it is INCONCLUSIVE.  Otherwise FAIL."""
    if p99 <= target:
        return "PASS"
    if samples and preempt * 100 >= samples:
        return "INCONCLUSIVE"
    if over is not None and floor is not None and over <= floor:
        return "INCONCLUSIVE"
    return "FAIL"


# The phases, in the order of a full run.  "sink" must come before the
# phases that use the pcap sink (cb, latency, pause-end, held, plot),
# "nulls" before ba, trust, ets, ecn and ports.  "pmd2" comes last: it deletes
# every port and gives ovs-vswitchd a second PMD thread.
PHASES = {"memory": "phase_memory", "nulls": "phase_setup_nulls",
          "ba": "phase_ba", "trust": "phase_trust", "ets": "phase_ets",
          "ecn": "phase_ecn",
          "ports": "phase_ports",
          "sink": "phase_add_sink",
          "cb": "phase_cb", "latency": "phase_latency",
          "pause-end": "phase_pause_end", "held": "phase_held",
          "plot": "phase_plot", "pmd2": "phase_pmd2"}


class Bench:
    def __init__(self, a):
        self.a = a
        self.ovs = a.ovs
        self.tmp = a.tmp
        try:
            with open(os.path.join(self.tmp, "stalls.json")) as f:
                self.stalls = json.load(f)
        except (OSError, ValueError):
            self.stalls = None
        pid = open(os.path.join(self.tmp, "ovs-vswitchd.pid")).read().strip()
        self.vswitchd_pid = int(pid)
        self.uc = Unixctl(os.path.join(self.tmp,
                                       "ovs-vswitchd.%s.ctl" % pid))
        self.window_s = a.window
        self.results = {}
        self.rows = []
        self.refresher = None
        self.peer = None
        self.speed = "10G"
        self.t_start = time.monotonic()
        self.perf_files = []
        # Latency figures from the USDT probes, by phase.
        self.usdt, self.usdt_reason = usdt_status(
            a.config_h, os.path.join(self.ovs, "vswitchd/ovs-vswitchd"))
        self.usdt_results = {}
        self.hz = None
        if a.perf:
            if not shutil.which("perf"):
                raise SystemExit("--perf: perf not found (Debian package "
                                 "linux-perf)")
            os.makedirs(a.perf, exist_ok=True)

    # -- plumbing ----------------------------------------------------------

    def vsctl(self, *args):
        cmd = [os.path.join(self.ovs, "utilities/ovs-vsctl"), "--timeout=60"]
        r = subprocess.run(cmd + list(args), capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("ovs-vsctl %s: %s" % (" ".join(args),
                                                     r.stderr.strip()))
        return r.stdout.strip()

    def ofctl(self, *args):
        cmd = [os.path.join(self.ovs, "utilities/ovs-ofctl")]
        r = subprocess.run(cmd + list(args), capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("ovs-ofctl %s: %s" % (" ".join(args),
                                                     r.stderr.strip()))
        return r.stdout

    def flows(self, *flows):
        self.ofctl("del-flows", "br0")
        if flows:
            path = os.path.join(self.tmp, "flows.txt")
            with open(path, "w") as f:
                f.write("\n".join(flows) + "\n")
            self.ofctl("add-flows", "br0", path)
        time.sleep(0.3)

    def add_dpdk_port(self, name, devargs):
        self.vsctl("add-port", "br0", name, "--", "set", "Interface", name,
                   "type=dpdk", "options:dpdk-devargs=%s" % devargs)
        err = self.vsctl("get", "Interface", name, "error")
        if err not in ("", "[]"):
            raise RuntimeError("interface %s: %s" % (name, err))

    def qos_set(self, ports, **kv):
        """Gives every port in 'ports' one QoS of type pfc with other_config
        'kv' (keys with '_' for '-').

        tx-ring-size is "interface", the default, set explicitly: with
        "auto" a port restarts whenever PFC is switched on or off (its tx
        ring changes), which would put restarts into the alternating a/b
        windows, and a net_pcap source with infinite_rx=1 cannot restart
        (its rx queue setup fails on the second start)."""
        kv.setdefault("tx_ring_size", "interface")
        # The phases that keep a priority paused for seconds on purpose
        # (c/b, held, plot) pass watchdog_detection_time=0: to the PFC
        # watchdog that is a storm.  The others keep its default, on.
        args = []
        for p in ports:
            args += ["--", "set", "Port", p, "qos=@q"]
        args += ["--", "--id=@q", "create", "QoS", "type=pfc"]
        for k, v in kv.items():
            args.append('other_config:%s="%s"' % (k.replace("_", "-"), v))
        self.vsctl(*args)
        time.sleep(0.1)

    def qos_set_ets(self, port, queues, **kv):
        """qos_set() for one port, with Queue rows: 'queues' maps a traffic
        class to its other_config (keys with '_' for '-')."""
        kv.setdefault("tx_ring_size", "interface")
        args = ["--", "set", "Port", port, "qos=@q", "--", "--id=@q",
                "create", "QoS", "type=pfc"]
        for k, v in kv.items():
            args.append('other_config:%s="%s"' % (k.replace("_", "-"), v))
        for tc in queues:
            args.append("queues:%d=@q%d" % (tc, tc))
        for tc, oc in queues.items():
            args += ["--", "--id=@q%d" % tc, "create", "Queue"]
            for k, v in oc.items():
                args.append('other_config:%s="%s"' % (k.replace("_", "-"),
                                                      v))
        self.vsctl(*args)
        time.sleep(0.1)

    def qos_set_trust(self, ingress, egress, trust, **kv):
        """qos_set() of ports 'ingress' and 'egress' in one transaction, each
        with a QoS of type pfc of its own, other_config 'kv' (keys with '_'
        for '-'), and for 'ingress' also trust 'trust'."""
        kv.setdefault("tx_ring_size", "interface")
        args = []
        for p, q in ((ingress, "@qi"), (egress, "@qe")):
            args += ["--", "set", "Port", p, "qos=%s" % q]
        for q, oc in (("@qi", dict(kv, trust=trust)), ("@qe", kv)):
            args += ["--", "--id=%s" % q, "create", "QoS", "type=pfc"]
            for k, v in oc.items():
                args.append('other_config:%s="%s"' % (k.replace("_", "-"),
                                                      v))
        self.vsctl(*args)
        time.sleep(0.1)

    def ets_sent(self, port):
        """The bytes the ETS scheduler of 'port' sent per traffic class,
        from pfc/show."""
        out = {}
        for line in self.uc.call("pfc/show", port).splitlines():
            m = re.match(r"^  ([0-7])  (strict|ets) .* (\d+) +(\d+) +\S+$",
                         line)
            if m:
                out[int(m.group(1))] = int(m.group(4))
        return out

    def qos_clear(self, ports):
        args = []
        for p in ports:
            args += ["--", "clear", "Port", p, "qos"]
        self.vsctl(*args)
        time.sleep(0.1)

    def pfc_show(self, port=None):
        try:
            text = self.uc.call("pfc/show", *([port] if port else []))
        except RuntimeError:
            return {}
        return parse_pfc_show(text)

    def prio_row(self, port, prio):
        st = self.pfc_show(port).get(port, {})
        for row in st.get("prios", []):
            if row.get("prio") == "p%d" % prio:
                return row
        return {}

    def wait_prio(self, port, prio, cond, timeout=2.0):
        t_end = time.monotonic() + timeout
        row = {}
        while time.monotonic() < t_end:
            row = self.prio_row(port, prio)
            if cond(row):
                return row
            time.sleep(0.01)
        return None

    def port_stats(self):
        return parse_port_stats(self.uc.call("dpctl/show", "-s"))

    def rss_kb(self):
        with open("/proc/%d/status" % self.vswitchd_pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    # -- peers in namespace B ----------------------------------------------

    def peer_port(self):
        if self.peer is None:
            self.peer = pfc_peer.Port(self.a.peer)
        return self.peer

    def send_pfc(self, prio, quanta):
        self.peer_port().send(pfc_peer.pfc_frame(1 << prio, quanta))

    def start_refresher(self):
        cmd = [sys.executable, os.path.abspath(__file__), "refresher",
               "--port", self.a.peer, "--prio", "3", "--time", "65535",
               "--interval", str(self.a.refresh), "--rt", "10"]
        self.refresher = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                          text=True)
        line = self.refresher.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError("PFC refresher did not start")

    def stop_refresher(self):
        if self.refresher and self.refresher.poll() is None:
            self.refresher.terminate()
            try:
                self.refresher.wait(5)
            except subprocess.TimeoutExpired:
                self.refresher.kill()
        self.refresher = None

    def pause_on(self, port):
        os.kill(self.refresher.pid, signal.SIGUSR1)
        if self.wait_prio(port, 3, lambda r: r.get("egress") == "paused"
                          and r.get("held-pkts", 0) > 0) is None:
            raise RuntimeError("priority 3 of %s did not pause" % port)
        time.sleep(0.05)

    def pause_off(self, port):
        os.kill(self.refresher.pid, signal.SIGUSR2)
        if self.wait_prio(port, 3, lambda r: r.get("egress") == "not_paused"
                          and r.get("held-pkts") == 0) is None:
            raise RuntimeError("priority 3 of %s did not resume" % port)
        time.sleep(0.05)

    # -- windows and alternating series -------------------------------------

    def pmd_tids(self):
        """The thread ids of the PMD threads, in thread id order."""
        task = "/proc/%d/task" % self.vswitchd_pid
        tids = []
        for t in sorted(os.listdir(task), key=int):
            try:
                with open(os.path.join(task, t, "comm")) as f:
                    if f.read().startswith("pmd"):
                        tids.append(int(t))
            except OSError:
                pass
        return tids

    def pmd_tid(self):
        tids = self.pmd_tids()
        return tids[0] if tids else None

    def preemptions_of(self, tid):
        """Involuntary context switches of thread 'tid' so far."""
        try:
            with open("/proc/%d/task/%d/status"
                      % (self.vswitchd_pid, tid)) as f:
                for line in f:
                    if line.startswith("nonvoluntary_ctxt_switches:"):
                        return int(line.split()[1])
        except (OSError, TypeError):
            pass
        return 0

    def pmd_preemptions(self):
        """Involuntary context switches of the PMD threads so far: how often
        something else took their cores (the noise control of
        latencies)."""
        return sum(self.preemptions_of(t) for t in self.pmd_tids())

    def cpu_noise(self):
        """(steal, irq + softirq) jiffies so far of the PMD thread's CPU:
        time a hypervisor or interrupts took from it."""
        tid = self.pmd_tid()
        try:
            with open("/proc/%d/task/%d/stat"
                      % (self.vswitchd_pid, tid)) as f:
                cpu = int(f.read().rsplit(")", 1)[1].split()[36])
            with open("/proc/stat") as f:
                for line in f:
                    if line.startswith("cpu%d " % cpu):
                        v = [int(x) for x in line.split()[1:]]
                        return v[7], v[5] + v[6]
        except (OSError, TypeError, ValueError, IndexError):
            pass
        return 0, 0

    def perf_window(self, label, tx_port=None):
        """An extra window, not used in any figure, with "perf record" on
        the PMD thread (--perf)."""
        tid = self.pmd_tid()
        if not self.a.perf or tid is None:
            return
        out = os.path.join(self.a.perf, re.sub(r"[^\w.=-]+", "_", label)
                           + ".data")
        p = subprocess.Popen(["perf", "record", "-q", "-t", str(tid), "-o",
                              out, "--", "sleep", str(self.window_s)],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        w = self.window(tx_port)
        p.wait()
        self.perf_files.append((label, out, w))

    def perf_report(self):
        for label, path, w in self.perf_files:
            print()
            print("perf profile of the PMD thread, %s (%.0f cyc/pkt, %.2f "
                  "Mpps):" % (label, w["cpp"], w["mpps"]))
            r = subprocess.run(["perf", "report", "-i", path, "--stdio",
                                "--no-children", "--sort", "symbol",
                                "--percent-limit", "1", "-q"],
                               capture_output=True, text=True)
            lines = [ln.rstrip() for ln in r.stdout.splitlines()
                     if ln.strip()]
            for ln in lines[:14]:
                print("  " + ln.strip())

    def window(self, tx_port=None):
        """One measurement window: PMD packets, Mpps, cycles per packet and,
        for 'tx_port', its transmitted packets per second."""
        self.uc.call("dpif-netdev/pmd-stats-clear")
        t0 = time.monotonic()
        if tx_port:
            s0 = self.port_stats()[tx_port]["tx"]
            u0 = time.monotonic()
        time.sleep(self.window_s)
        if tx_port:
            u1 = time.monotonic()
            s1 = self.port_stats()[tx_port]["tx"]
        t1 = time.monotonic()
        st = parse_pmd_stats(self.uc.call("dpif-netdev/pmd-stats-show"))
        t2 = time.monotonic()
        dt = (t1 + t2) / 2 - t0
        w = {"mpps": st["packets"] / dt / 1e6, "cpp": st["cpp"],
             "packets": st["packets"], "secs": dt,
             "pmd_mpps": {p["core"]: p["packets"] / dt / 1e6
                          for p in st["pmds"]}}
        if tx_port:
            w["tx_mpps"] = (s1 - s0) / ((u1 - u0) or 1) / 1e6
            w["tx"] = s1 - s0
        return w

    def series(self, name, ref, x, n_x, metric, tx_port=None):
        """Runs R X R X ... R (n_x X windows, n_x + 1 R windows).  'ref'
        and 'x' put the switch into the reference and the measured
        condition (and may return a context for metric).  Returns the median
        of X_i / sqrt(R_i R_i+1) and the A/A control, the median of
        R_i / sqrt(R_i-1 R_i+1) over the inner R windows."""
        R, X = [], []
        for i in range(n_x + 1):
            ref()
            R.append(self.window(tx_port))
            if i == n_x:
                break
            x()
            X.append(self.window(tx_port))
        r = [metric(w, False) for w in R]
        xv = [metric(w, True) for w in X]
        ratios = [xv[i] / math.sqrt(r[i] * r[i + 1]) for i in range(n_x)]
        ctrl = [r[i] / math.sqrt(r[i - 1] * r[i + 1])
                for i in range(1, n_x)]
        if self.a.perf:
            ref()
            self.perf_window("%s reference" % name, tx_port)
            x()
            self.perf_window("%s measured" % name, tx_port)
            ref()
        res = {"name": name, "ratio": median(ratios), "ctrl": median(ctrl),
               "ci": median_ci(ratios),
               "ratios": ratios, "ctrls": ctrl, "ref": R, "x": X,
               "ref_cpp": median([w["cpp"] for w in R]),
               "x_cpp": median([w["cpp"] for w in X]),
               "ref_mpps": median([w["mpps"] for w in R]),
               "x_mpps": median([w["mpps"] for w in X]),
               "ref_metric": median(r), "x_metric": median(xv)}
        self.results[name] = res
        log("%s: ratio %s%s (windows %s), A/A control %s (%s)" % (
            name, fmt_ratio(res["ratio"]), fmt_ci(res["ci"]),
            " ".join("%.3f" % v for v in ratios), fmt_ratio(res["ctrl"]),
            " ".join("%.3f" % v for v in ctrl)))
        return res

    # -- phases --------------------------------------------------------------

    def phase_setup_nulls(self):
        log("adding 8 net_null sinks (no-rx=1): null0..null7")
        for i in range(8):
            self.add_dpdk_port("null%d" % i, "net_null%d,no-rx=1" % i)
        time.sleep(1)

    def phase_ba(self):
        log("b/a on net_null sink null0 (flow in_port=src -> "
            "null0); a = no QoS, b = QoS pfc pfc-enable=3,4 link-speed=10G")
        self.flows("in_port=src,actions=output:null0")
        self.window()       # Warm up.
        self.series("b/a", lambda: self.qos_clear(["null0"]),
                    lambda: self.qos_set(["null0"], pfc_enable="3,4",
                                         link_speed="10G"),
                    self.a.runs, lambda w, x: w["mpps"])

    def phase_trust(self):
        """b/a with QoS pfc on the ingress port too, for each trust mode:
        trust=pcp with src (802.1Q, priorities 0..7), trust=dscp with srcip,
        a second net_pcap infinite_rx source of untagged IPv4 frames of mixed
        DSCPs (mkpcap --dscp).  One source forwards at a time: the other is
        down (ovs-ofctl mod-port), its rx queue polled as empty
        (netdev_dpdk_rxq_recv() returns at once)."""
        log("trust b/a on net_null sink null0, for trust=pcp (source src, "
            "802.1Q priorities 0..7) and trust=dscp (source srcip, untagged "
            "IPv4, DSCPs %s); a = no QoS on either port, b = QoS pfc "
            "pfc-enable=3,4 link-speed=10G on the source and on null0, "
            "trust=MODE on the source; the other source is down"
            % ",".join("%d" % d for d in TRUST_DSCPS))
        self.add_dpdk_port("srcip", "net_pcap_srcip,rx_pcap=%s,infinite_rx=1"
                           % self.a.pcap_dscp)
        try:
            for mode, port, other in (("pcp", "src", "srcip"),
                                      ("dscp", "srcip", "src")):
                name = "trust=%s b/a" % mode
                self.ofctl("mod-port", "br0", other, "down")
                self.ofctl("mod-port", "br0", port, "up")
                self.flows("in_port=%s,actions=output:null0" % port)
                why, prios = self.trust_check(port, mode)
                if why:
                    log("%s not measured: %s" % (name, why))
                    self.results["trust=%s skipped" % mode] = why
                    continue
                # Warm up, in a: everything the PMD receives must reach
                # null0 (the other source is idle).
                w = self.window("null0")
                log("trust=%s warm-up (a): the PMD received %.2f Mpps, null0 "
                    "sent %.2f Mpps%s" % (
                        mode, w["mpps"], w["tx_mpps"],
                        "" if w["tx_mpps"] >= 0.99 * w["mpps"] else
                        " (NOT all: is %s idle?)" % other))
                res = self.series(
                    name, lambda: self.qos_clear([port, "null0"]),
                    lambda: self.qos_set_trust(port, "null0", mode,
                                               pfc_enable="3,4",
                                               link_speed="10G"),
                    self.a.runs, lambda w, x: w["mpps"])
                res["source"] = port
                res["egress_prio_bytes"] = prios
                res["warmup"] = {"rx_mpps": w["mpps"],
                                 "null0_tx_mpps": w["tx_mpps"]}
        finally:
            self.qos_clear(["src", "srcip", "null0"])
            self.ofctl("mod-port", "br0", "src", "up")
            self.vsctl("--", "del-port", "srcip")

    def trust_check(self, port, mode):
        """Puts the measured condition of trust=MODE on 'port' -> null0 in
        force and checks it: pfc/show of 'port' must say "ingress: trust
        MODE", and neither port may have refused its configuration.  Then
        shapes null0 to 1 Gb/s under ETS, priority p in class p, each class
        12 or 13%, so that every class with packets has a backlog, and
        counts the bytes the scheduler sent per class for a window: the
        priorities that the ingress port gave the packets.  Returns (None,
        [bytes of priority 0..7]), or (why not, None); clears the QoS of
        both ports."""
        self.qos_set_trust(port, "null0", mode, pfc_enable="3,4",
                           link_speed="10G")
        time.sleep(0.3)
        try:
            text = {p: self.uc.call("pfc/show", p) for p in (port, "null0")}
        except RuntimeError as e:
            self.qos_clear([port, "null0"])
            return "pfc/show: %s" % e, None
        for p in (port, "null0"):
            m = re.search(r"last configuration refused: (.*)", text[p])
            if m:
                self.qos_clear([port, "null0"])
                return "QoS pfc on %s refused: %s" % (p, m.group(1)), None
        m = re.search(r"ingress: trust (\w+)", text[port])
        if not m or m.group(1) != mode:
            self.qos_clear([port, "null0"])
            return ("pfc/show %s says %s, not \"ingress: trust %s\""
                    % (port, "\"ingress: trust %s\"" % m.group(1) if m
                       else "no ingress trust", mode)), None
        queues = {tc: {"priorities": tc, "tsa": "ets",
                       "tc_bw": 12 if tc < 4 else 13} for tc in range(8)}
        self.qos_set_ets("null0", queues, pfc_enable="3,4",
                         link_speed="10G", max_rate=1000000000)
        time.sleep(1.0)
        b0 = self.ets_sent("null0")
        time.sleep(self.window_s)
        b1 = self.ets_sent("null0")
        # The backlog drains before the QoS goes (else its removal waits 1
        # s for it, then frees it).
        self.flows("in_port=%s,actions=drop" % port)
        self.qos_clear([port, "null0"])
        self.flows("in_port=%s,actions=output:null0" % port)
        prios = [b1.get(tc, 0) - b0.get(tc, 0) for tc in range(8)]
        total = sum(prios)
        log("trust=%s: %s says \"%s\"; priorities at the egress (bytes "
            "that null0's ETS sent per class, priority p in class p, shaped "
            "to 1 Gb/s): %s" % (
                mode, port, m.group(0), " ".join(
                    "p%d %.1f%%" % (p, 100.0 * b / total if total else 0)
                    for p, b in enumerate(prios))))
        return None, prios

    def phase_ets(self):
        """ETS: b/a with ETS configured and no backlog (null0 takes
        everything), then the shares and the PMD's cycles per packet at a
        shaped bottleneck (max-rate), read from the scheduler's counters."""
        queues = {0: {"priorities": "0,1,2,3", "tsa": "ets", "tc_bw": 25},
                  1: {"priorities": "4,5,6,7", "tsa": "ets", "tc_bw": 75}}
        log("ets b/a on null0: a = no QoS, b = QoS pfc pfc-enable=3,4 "
            "link-speed=10G with Queue rows: class 0 (priorities 0-3) ets "
            "25%, class 1 (priorities 4-7) ets 75%, no max-rate")
        self.flows("in_port=src,actions=output:null0")
        self.window()
        self.series("ets b/a", lambda: self.qos_clear(["null0"]),
                    lambda: self.qos_set_ets("null0", queues,
                                             pfc_enable="3,4",
                                             link_speed="10G"),
                    self.a.runs, lambda w, x: w["mpps"])
        rate = 1000000000
        log("ets shares on null0 shaped to max-rate=%d bit/s, the same "
            "classes (the source offers priorities 0..7 in equal numbers)"
            % rate)
        self.qos_clear(["null0"])
        self.qos_set_ets("null0", queues, pfc_enable="3,4",
                         link_speed="10G", max_rate=rate)
        time.sleep(1.0)
        b0 = self.ets_sent("null0")
        t0 = time.monotonic()
        w = self.window()
        t1 = time.monotonic()
        b1 = self.ets_sent("null0")
        sent = {tc: b1.get(tc, 0) - b0.get(tc, 0) for tc in b1}
        total = sum(sent.values())
        frames = total / FRAME_LEN if FRAME_LEN else 0
        self.results["ets_shaped"] = {
            "rate": rate, "bits_per_s": total * 8 / (t1 - t0),
            "share0": sent.get(0, 0) / total if total else 0,
            "share1": sent.get(1, 0) / total if total else 0,
            "cpp": w["cpp"], "rx_mpps": w["mpps"],
            "cycles_per_sent": (w["cpp"] * w["packets"] / frames
                                if frames else 0)}
        log("ets shaped: %s" % self.results["ets_shaped"])
        self.qos_clear(["null0"])

    def phase_ecn(self):
        """ECN: b/a with ECN keys on every traffic class and no backlog
        (null0 takes everything): a packet that joins no class queue is
        never judged, so marking costs nothing here."""
        log("ecn b/a on null0: a = no QoS, b = QoS pfc pfc-enable=3,4 "
            "link-speed=10G ecn-min-threshold=ecn-max-threshold=30000")
        self.flows("in_port=src,actions=output:null0")
        self.window()
        self.series("ecn b/a", lambda: self.qos_clear(["null0"]),
                    lambda: self.qos_set(["null0"], pfc_enable="3,4",
                                         link_speed="10G",
                                         ecn_min_threshold=30000,
                                         ecn_max_threshold=30000),
                    self.a.runs, lambda w, x: w["mpps"])

    def phase_ports(self):
        log("scaling with 1, 2, 4, 8 PFC ports (net_null sinks; "
            "priority p -> null(p mod k))")
        mem = {}
        for k in (1, 2, 4, 8):
            ports = ["null%d" % i for i in range(k)]
            self.flows(*["in_port=src,dl_vlan_pcp=%d,actions=output:null%d"
                         % (p, p % k) for p in range(8)])
            self.window()
            self.series("ports=%d" % k, lambda: self.qos_clear(ports),
                        lambda: self.qos_set(ports, pfc_enable="3,4",
                                             link_speed="10G"),
                        self.a.port_runs, lambda w, x: w["mpps"])
            if k == 8:
                self.qos_clear(ports)
                time.sleep(0.5)
                mem["rss0"] = self.rss_kb()
                self.qos_set(ports, pfc_enable="3,4", link_speed="10G")
                time.sleep(1.0)
                mem["rss1"] = self.rss_kb()
                self.qos_clear(ports)
        self.results["memory_rss"] = mem
        self.qos_clear(["null%d" % i for i in range(8)])
        log("removing the net_null sinks")
        args = []
        for i in range(8):
            args += ["--", "del-port", "null%d" % i]
        self.vsctl(*args)

    def phase_add_sink(self):
        log("adding sink: net_pcap rx_iface=%s (veth; its peer in netns B "
            "sends PFC frames), no tx stream (drops like net_null)"
            % self.a.sink_if)
        self.add_dpdk_port("sink", "net_pcap_sink,rx_iface=%s"
                           % self.a.sink_if)
        self.flows("in_port=src,actions=output:sink")
        time.sleep(0.5)
        self.window("sink")

    def phase_cb(self):
        # link-speed=1G: 65535 quanta last 33.6 ms, so that the pause holds
        # through a refresh that comes late because this machine stopped
        # the refresher or the PMD for a few ms (at 10G, 3.36 ms, such
        # stalls made the pause lapse dozens of times a window on a busy
        # host).  Nothing on the transmit path depends on the link speed.
        log("c/b on the pcap sink; b = QoS pfc pfc-enable=3,4 "
            "link-speed=1G, c = b + priority 3 paused by PFC frames "
            "(65535 quanta = 33.6 ms) refreshed every %.1f ms"
            % (self.a.refresh * 1e3))
        # Plain windows on this sink, for the cost of polling it.
        self.qos_clear(["sink"])
        plain = [self.window("sink") for _ in range(2)]
        self.results["plain_pcap_sink"] = {
            "cpp": median([w["cpp"] for w in plain]),
            "mpps": median([w["mpps"] for w in plain])}
        self.qos_set(["sink"], pfc_enable="3,4", link_speed="1G",
                     watchdog_detection_time=0)
        self.results["sink_txq"] = (self.pfc_show("sink").get("sink", {})
                                    .get("txq"))
        self.start_refresher()
        before = self.prio_row("sink", 3)
        c_state = {"on": False}

        def ref():
            if c_state["on"]:
                self.pause_off("sink")
                c_state["on"] = False

        def x():
            self.pause_on("sink")
            c_state["on"] = True

        # Unpaused priorities: b transmits all 8, c all but priority 3.
        def metric(w, is_c):
            return w["tx_mpps"] if is_c else w["tx_mpps"] * 7 / 8

        res = self.series("c/b", ref, x, self.a.runs, metric, "sink")
        after = self.prio_row("sink", 3)
        res["transitions"] = (after.get("transitions", 0)
                              - before.get("transitions", 0))
        # One pause per c window, and one more for --perf's.
        res["c_windows"] = self.a.runs + (1 if self.a.perf else 0)
        res["lapses"] = max(0, res["transitions"] - res["c_windows"])
        self.stop_refresher()
        log("c/b: unpaused priorities %.2f Mpps (b) vs %.2f Mpps (c); "
            "priority-3 pause transitions %d in %d c windows (%d lapses)"
            % (res["ref_metric"], res["x_metric"], res["transitions"],
               res["c_windows"], res["lapses"]))

    # -- latencies from the USDT probes --------------------------------------

    def trace_start(self, name, probes):
        """Starts bpftrace on 'probes' for phase 'name'; returns the Tracer,
        or None (the reason is recorded) if it cannot run."""
        path = os.path.join(self.tmp, "trace-%s.txt" % name)
        t = Tracer(os.path.join(self.ovs, "vswitchd/ovs-vswitchd"),
                   self.vswitchd_pid, path, probes)
        if t.error:
            self.usdt = False
            self.usdt_reason = "not measured: %s" % t.error
            log(self.usdt_reason)
            return None
        log("bpftrace attached to %s (trace in %s)" % (", ".join(probes),
                                                       path))
        return t

    def trace_analyze(self, name, tracer, sends, prio_tc, windows=None):
        ev, lost = tracer.stop()
        hz = self.tsc_hz(ev)
        if not hz:
            self.usdt = False
            self.usdt_reason = "not measured: TSC frequency unknown"
            return None
        r = analyze_trace(ev, sends, prio_tc, hz, windows=windows)
        r["lost"] = lost
        self.usdt_results[name] = r
        log("%s: trace of %s events (%d lost); %d pause ends checked, %d "
            "early; %d reaction, %d XOFF generation samples; %d rx frames "
            "unmatched, %d ambiguous"
            % (name, r["events"], lost, r["checked"], len(r["early"]),
               len(r["reaction"]), len(r["xoff"]), r["unmatched_rx"],
               r["ambiguous_rx"]))
        return r

    def tsc_hz(self, ev=None):
        if self.hz is None:
            self.hz = tsc_hz_from_log(os.path.join(self.tmp,
                                                   "ovs-vswitchd.log"))
            self.hz_from = "ovs-vswitchd.log"
        if self.hz is None and ev:
            self.hz = tsc_hz_from_trace(ev)
            self.hz_from = "fitted to the trace"
        return self.hz

    def port_info(self, port):
        """(DPDK port id, traffic class of each priority, link speed) of
        PFC port 'port', from pfc/show."""
        st = self.pfc_show(port).get(port, {})
        tc = [0] * 8
        for row in st.get("prios", []):
            tc[int(row["prio"][1:])] = row.get("tc", 0)
        return st.get("dpdk_port"), tc, st.get("link_speed")

    def send_pfc_logged(self, sends, port_id, speed, block, prio, quanta):
        sends.append({"t": time.monotonic_ns(), "port": port_id,
                      "prio": prio, "quanta": quanta, "speed": speed,
                      "block": block})
        self.send_pfc(prio, quanta)

    def phase_latency(self):
        if not self.usdt:
            log("phase latency skipped: %s" % self.usdt_reason)
            return
        log("XOFF generation, pause ends by XON, pause reaction: src gets "
            "QoS pfc pfc-enable=3 xoff-threshold=6000 xon-threshold=3000; "
            "%d times: PFC frame pausing priority 3 at sink (65535 quanta), "
            "1 ms, XON, 1.5 ms; traced three times, each with only the "
            "probes it times: unpause and tx_frame; paused; rx_frame and "
            "unpause (early releases against the frames sent)"
            % self.a.toggles)
        self.qos_set(["sink"], pfc_enable="3,4", link_speed="10G")
        self.qos_set(["src"], pfc_enable="3", link_speed="10G",
                     xoff_threshold=6000, xon_threshold=3000)
        time.sleep(0.3)
        sink_id, sink_tc, speed = self.port_info("sink")
        src_id, src_tc, _ = self.port_info("src")
        for name, probes in (("latency", ["unpause", "tx_frame"]),
                             ("reaction", ["paused"]),
                             ("early", ["rx_frame", "unpause"])):
            tr = self.trace_start(name, probes)
            if tr is None:
                break
            sends = []
            p0 = self.pmd_preemptions()
            self.uc.call("dpif-netdev/pmd-stats-clear")
            for _ in range(self.a.toggles):
                self.send_pfc_logged(sends, sink_id, speed, "xon", 3, 65535)
                time.sleep(0.001)
                self.send_pfc_logged(sends, sink_id, speed, "xon", 3, 0)
                time.sleep(0.0015)
            iters = parse_pmd_perf(self.uc.call("dpif-netdev/pmd-perf-show",
                                                "-nh"))
            time.sleep(0.3)
            pre = self.pmd_preemptions() - p0
            r = self.trace_analyze(name, tr, sends,
                                   {sink_id: sink_tc, src_id: src_tc})
            if r is not None:
                r["preempt"] = pre
                r["xoff_port"] = src_id
                r["iter_us"] = max(iters.values()) if iters else None
        self.qos_clear(["src"])

    def phase_pause_end(self):
        if not self.usdt:
            log("phase pause-end skipped: %s" % self.usdt_reason)
            return
        log("late end of a pause: single PFC frames for priority 3 that run "
            "out by themselves, while priority 3 flows; %d of each of %s "
            "(quanta@link-speed)" % (self.a.pause_count, ",".join(
                "%d@%s" % qs for qs in self.a.quanta)))
        tr = self.trace_start("pause-end", ["unpause"])
        if tr is None:
            return
        sends = []
        blocks = []
        windows = {}
        speed = None
        prio_tc = {}
        for q, qspeed in self.a.quanta:
            if qspeed != speed:
                speed = qspeed
                self.qos_set(["sink"], pfc_enable="3,4", link_speed=speed)
                time.sleep(0.3)
            sink_id, tc, bps = self.port_info("sink")
            bps = bps or pfc_peer.parse_speed(speed)
            prio_tc[sink_id] = tc
            pause = pfc_peer.quanta_to_s(q, bps)
            block = "%d@%s" % (q, speed)
            p0 = self.pmd_preemptions()
            self.uc.call("dpif-netdev/pmd-stats-clear")
            t0 = time.monotonic_ns()
            for _ in range(self.a.pause_count):
                self.send_pfc_logged(sends, sink_id, bps, block, 3, q)
                time.sleep(pause + 0.0005)
            windows[block] = (t0, time.monotonic_ns())
            iters = parse_pmd_perf(self.uc.call("dpif-netdev/pmd-perf-show",
                                                "-nh"))
            it_us = max(iters.values()) if iters else None
            blocks.append({"block": block, "quanta": q, "speed": speed,
                           "pause_ns": pause * 1e9, "iter_us": it_us,
                           "preempt": self.pmd_preemptions() - p0})
            log("  %s (%.1f us): PMD iteration %s us, PMD preempted %d "
                "times" % (block, pause * 1e6,
                           "%.2f" % it_us if it_us else "?",
                           blocks[-1]["preempt"]))
        time.sleep(0.1)
        r = self.trace_analyze("pause-end", tr, sends, prio_tc, windows)
        if r is None:
            return
        floor = self.timer_floor()
        for b in blocks:
            v = r["late"].get(b["block"], [])
            b.update(lat_summary(v))
            if not v or b["iter_us"] is None:
                b["verdict"] = "INCONCLUSIVE"
                continue
            b["target_ns"] = b["iter_us"] * 1000 + TARGET_LATE_EXTRA_NS
            b["over"] = sum(1 for x in v if x > b["target_ns"]) / len(v)
            b["verdict"] = lat_verdict(b["p99"], b["target_ns"], len(v),
                                       b["preempt"], b["over"], floor)
        r["blocks"] = blocks

    def phase_held(self):
        log("cost with 0, 100 and 10,000 packets held: sink gets "
            "queue-size=16384, link-speed=1M (65535 quanta = 33.6 s); "
            "priority 3 from src is dropped by the flow table, priority-3 "
            "frames injected from netns B are held")
        self.qos_set(["sink"], pfc_enable="3,4", link_speed="1M",
                     watchdog_detection_time=0,
                     queue_size=16384)
        self.flows("priority=20,in_port=src,dl_vlan_pcp=3,actions=drop",
                   "priority=10,in_port=src,actions=output:sink",
                   "priority=20,in_port=sink,dl_vlan_pcp=3,actions=in_port")
        frame = data_frame(3, sport=3333, src=pfc_peer.MAC_B,
                           dst=MAC_DST)
        port = self.peer_port()
        out = {0: [], 100: [], 10000: []}
        held_seen = {0: [], 100: [], 10000: []}
        # Rounds of N = 0, 100, 10000, and a last N = 0: each N > 0 window
        # is compared with the N = 0 windows either side, as in series().
        for rnd in range(self.a.held_runs + 1):
            self.send_pfc(3, 0)
            if self.wait_prio("sink", 3, lambda r: r.get("held-pkts") == 0,
                              5) is None:
                raise RuntimeError("held packets did not drain")
            self.send_pfc(3, 65535)
            self.wait_prio("sink", 3, lambda r: r.get("egress") == "paused")
            have = 0
            for n in (0, 100, 10000):
                if rnd == self.a.held_runs and n:
                    break
                for _ in range(n - have):
                    port.send(frame)
                have = n
                row = self.wait_prio("sink", 3,
                                     lambda r: r.get("held-pkts", -1) >= n,
                                     5) or self.prio_row("sink", 3)
                held_seen[n].append(row.get("held-pkts"))
                w = self.window()
                out[n].append(w)
                if rnd == 0:
                    self.perf_window("held %d" % n)
        self.send_pfc(3, 0)
        c0 = [w["cpp"] for w in out[0]]
        r, ci = {}, {}
        for n in (100, 10000):
            v = [out[n][i]["cpp"] / math.sqrt(c0[i] * c0[i + 1])
                 for i in range(self.a.held_runs)]
            r[n] = median(v)
            ci[n] = median_ci(v)
        ctrl = [c0[i] / math.sqrt(c0[i - 1] * c0[i + 1])
                for i in range(1, len(c0) - 1)]
        self.results["held"] = {
            "windows": {n: [(w["cpp"], w["mpps"]) for w in out[n]]
                        for n in out},
            "cpp": {n: median([w["cpp"] for w in out[n]]) for n in out},
            "mpps": {n: median([w["mpps"] for w in out[n]]) for n in out},
            "ratio": r, "ci": ci, "ctrl": median(ctrl), "ctrls": ctrl,
            "held_seen": held_seen}
        log("held: cycles/packet %s; cost ratios vs 0 held: 100 -> %s, "
            "10000 -> %s; A/A control (0 held vs 0 held either side) %s; "
            "held counts seen %s" % (
                {n: round(v, 1) for n, v in
                 self.results["held"]["cpp"].items()},
                fmt_ratio(r[100]), fmt_ratio(r[10000]), fmt_ratio(
                    self.results["held"]["ctrl"]), held_seen))

    def dump_flow_counts(self):
        """Packets per VLAN priority of the datapath flows from src."""
        counts = [0] * 8
        for line in self.uc.call("dpctl/dump-flows").splitlines():
            m = re.search(r"pcp=(\d)", line)
            p = re.search(r"packets:(\d+)", line)
            if m and p and "in_port(" in line:
                counts[int(m.group(1))] += int(p.group(1))
        return counts

    def phase_plot(self):
        log("plot: per-priority throughput through a pause/resume cycle; "
            "link-speed=10M (65535 quanta = 3.36 s), one flow per priority")
        self.qos_set(["sink"], pfc_enable="3,4", link_speed="10M",
                     watchdog_detection_time=0)
        self.flows(*["in_port=src,dl_vlan_pcp=%d,actions=output:sink" % p
                     for p in range(8)])
        time.sleep(0.5)
        events = [(1.5, "PFC p3 65535 quanta", 65535),
                  (6.0, "PFC p3 65535 quanta", 65535),
                  (7.5, "XON p3", 0)]
        t_total = 9.5
        samples = []
        t0 = time.monotonic()
        ev = list(events)
        while True:
            t = time.monotonic() - t0
            if ev and t >= ev[0][0]:
                self.send_pfc(3, ev[0][2])
                ev.pop(0)
            if t > t_total:
                break
            ta = time.monotonic()
            st = self.pfc_show("sink").get("sink", {})
            offered = self.dump_flow_counts()
            tb = time.monotonic()
            rows = {r["prio"]: r for r in st.get("prios", [])}
            held = [rows.get("p%d" % p, {}).get("held-pkts", 0)
                    for p in range(8)]
            drops = [rows.get("p%d" % p, {}).get("hold-drops", 0)
                     for p in range(8)]
            samples.append(((ta + tb) / 2 - t0, offered, held, drops))
            nxt = t0 + (len(samples)) * 0.1
            time.sleep(max(0, nxt - time.monotonic()))
        self.results["plot"] = {"events": events, "samples": samples}
        self.write_plot(samples, events)

    def write_plot(self, samples, events):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        ts, rates = [], [[] for _ in range(8)]
        held3 = []
        for i in range(1, len(samples)):
            t_a, off_a, held_a, drop_a = samples[i - 1]
            t_b, off_b, held_b, drop_b = samples[i]
            dt = t_b - t_a
            ts.append(t_b)
            for p in range(8):
                deliv = ((off_b[p] - held_b[p] - drop_b[p])
                         - (off_a[p] - held_a[p] - drop_a[p]))
                rates[p].append(max(0, deliv) / dt / 1e6)
            held3.append(held_b[3])
        fig, (ax, ax2) = plt.subplots(
            2, 1, figsize=(10, 6.5), sharex=True,
            gridspec_kw={"height_ratios": [3, 1]})
        for p in range(8):
            ax.plot(ts, rates[p], label="priority %d%s" % (
                        p, " (paused)" if p == 3 else ""),
                    linewidth=3.0 if p == 3 else 1.0,
                    color="tab:red" if p == 3 else None,
                    alpha=0.7 if p == 3 else 1.0,
                    zorder=2 if p == 3 else 3)
        speed_bps = 10e6
        pause_s = pfc_peer.quanta_to_s(65535, speed_bps)
        spans = [(events[0][0], events[0][0] + pause_s,
                  "pause, ends by timer"),
                 (events[1][0], events[2][0], "pause, ended by XON")]
        for a_, b_, what in spans:
            for axx in (ax, ax2):
                axx.axvspan(a_, b_, color="tab:red", alpha=0.12)
            ax.text((a_ + b_) / 2, 0.02, what, ha="center", va="bottom",
                    transform=ax.get_xaxis_transform(), fontsize=8)
        ax.set_ylabel("delivered to sink (Mpps)")
        ax.set_title("OVS-DPDK PFC: per-priority throughput through a "
                     "pause/resume cycle of priority 3\n(one PMD, net_pcap "
                     "source, sampled every 100 ms; PFC frames from a scapy "
                     "link partner, link-speed 10M)", fontsize=10)
        ax.legend(ncol=4, fontsize=8, loc="upper right")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax2.plot(ts, held3, color="tab:red")
        ax2.set_ylabel("p3 held pkts")
        ax2.set_xlabel("time (s)")
        ax2.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(self.a.png, dpi=110)
        plt.close(fig)
        log("wrote %s" % self.a.png)

    def phase_pmd2(self):
        mask = int(self.a.pmd2_mask, 0)
        cores = [c for c in range(64) if (mask >> c) & 1]
        if len(cores) < 2:
            log("phase pmd2 skipped: --pmd2-mask %s names fewer than 2 "
                "CPUs" % self.a.pmd2_mask)
            self.results["pmd2_skipped"] = "pmd2-mask %s" % self.a.pmd2_mask
            return
        cores = cores[:2]
        self.noise_1pmd = self.noise_so_far()
        log("2 PMDs: every port deleted; pmd-cpu-mask=%s; sources m0 "
            "and m1 (net_pcap infinite_rx, rx queue pinned to cores %d and "
            "%d) both forwarding to one net_null sink nullm; a = no QoS, b = "
            "QoS pfc pfc-enable=3,4 link-speed=10G on nullm"
            % (self.a.pmd2_mask, cores[0], cores[1]))
        self.stop_refresher()
        ports = self.vsctl("list-ports", "br0").split()
        if ports:
            args = []
            for p in ports:
                args += ["--", "del-port", p]
            self.vsctl(*args)
        self.vsctl("set", "Open_vSwitch", ".",
                   "other_config:pmd-cpu-mask=%s" % self.a.pmd2_mask)
        for i, core in enumerate(cores):
            self.vsctl("add-port", "br0", "m%d" % i, "--", "set",
                       "Interface", "m%d" % i, "type=dpdk",
                       "options:dpdk-devargs=net_pcap_m%d,rx_pcap=%s,"
                       "infinite_rx=1" % (i, self.a.pcap),
                       "other_config:pmd-rxq-affinity=\"0:%d\"" % core)
            err = self.vsctl("get", "Interface", "m%d" % i, "error")
            if err not in ("", "[]"):
                raise RuntimeError("interface m%d: %s" % (i, err))
        self.add_dpdk_port("nullm", "net_null_m,no-rx=1")
        # ovs-vswitchd starts PMD threads only once a port needs them.
        t_end = time.monotonic() + 30
        while len(self.pmd_tids()) < 2 and time.monotonic() < t_end:
            time.sleep(0.2)
        if len(self.pmd_tids()) < 2:
            raise RuntimeError("ovs-vswitchd did not start 2 PMD threads")
        self.flows("in_port=m0,actions=output:nullm",
                   "in_port=m1,actions=output:nullm")
        time.sleep(1)
        rxq = self.uc.call("dpif-netdev/pmd-rxq-show")
        log("rx queues: " + " | ".join(
            ln.strip() for ln in rxq.splitlines()
            if ln.strip().startswith(("pmd thread", "port:"))))
        self.window()       # Warm up.
        tids = self.pmd_tids()
        pre0 = {t: self.preemptions_of(t) for t in tids}
        cpu0 = [self.cpu_noise_of(c) for c in cores]
        t0 = time.monotonic()
        res = self.series("pmd2", lambda: self.qos_clear(["nullm"]),
                          lambda: self.qos_set(["nullm"], pfc_enable="3,4",
                                               link_speed="10G"),
                          self.a.runs, lambda w, x: w["mpps"])
        secs = time.monotonic() - t0
        cpu1 = [self.cpu_noise_of(c) for c in cores]
        hz = os.sysconf("SC_CLK_TCK")
        res["preempt_per_s"] = [(self.preemptions_of(t) - pre0[t]) / secs
                                for t in tids]
        res["cores"] = cores
        res["cpu_noise_ms"] = [
            ((b[0] - a_[0]) * 1e3 / hz, (b[1] - a_[1]) * 1e3 / hz)
            for a_, b in zip(cpu0, cpu1)]
        per = {}
        for w in res["ref"]:
            for c, v in w.get("pmd_mpps", {}).items():
                per.setdefault(c, []).append(v)
        res["ref_pmd_mpps"] = {c: median(v) for c, v in per.items()}
        vals = list(res["ref_pmd_mpps"].values())
        res["imbalance"] = (min(vals) / max(vals)
                            if len(vals) == 2 and max(vals) > 0 else None)
        self.qos_set(["nullm"], pfc_enable="3,4", link_speed="10G")
        time.sleep(0.3)
        res["show_queues"] = self.pfc_show("nullm").get("nullm", {})
        res["show_queues"] = {k: res["show_queues"].get(k)
                              for k in ("rxq", "txq")}
        self.qos_clear(["nullm"])
        log("pmd2: plain per PMD (core: Mpps) %s; PMD threads preempted "
            "%s times a second; nullm with PFC: %s"
            % ({c: round(v, 2) for c, v in res["ref_pmd_mpps"].items()},
               ["%.0f" % v for v in res["preempt_per_s"]],
               res["show_queues"]))

    def noise_so_far(self):
        """(PMD preemptions, steal ms, interrupt ms) since the run began,
        for the one-PMD phases."""
        cpu1 = self.cpu_noise()
        hz = os.sysconf("SC_CLK_TCK")
        return (self.pmd_preemptions() - self.preempt0,
                (cpu1[0] - self.cpu0[0]) * 1e3 / hz,
                (cpu1[1] - self.cpu0[1]) * 1e3 / hz)

    def cpu_noise_of(self, cpu):
        """(steal, irq + softirq) jiffies so far of CPU 'cpu'."""
        try:
            with open("/proc/stat") as f:
                for line in f:
                    if line.startswith("cpu%d " % cpu):
                        v = [int(x) for x in line.split()[1:]]
                        return v[7], v[5] + v[6]
        except (OSError, ValueError, IndexError):
            pass
        return 0, 0

    def phase_memory(self):
        sizes = {}
        gdb = "/usr/bin/gdb"
        exprs = {"pfc_port": "sizeof(struct pfc_port)",
                 "netdev_dpdk_pfc": "sizeof(struct netdev_dpdk_pfc)",
                 "pfc_txq": "sizeof(struct pfc_txq)",
                 "pfc_held": "sizeof(struct pfc_held)",
                 "max_ports": "sizeof(pfc_ports)/sizeof(pfc_ports[0])"}
        if os.access(gdb, os.X_OK):
            cmd = [gdb, "-batch", "-nx"]
            for e in exprs.values():
                cmd += ["-ex", "print %s" % e]
            cmd.append(os.path.join(self.ovs, "vswitchd/ovs-vswitchd"))
            try:
                r = subprocess.run(cmd, capture_output=True, text=True,
                                   timeout=120)
                vals = re.findall(r"^\$\d+ = (\d+)", r.stdout, re.M)
                if len(vals) == len(exprs):
                    sizes = dict(zip(exprs, map(int, vals)))
            except (subprocess.TimeoutExpired, OSError):
                pass
        self.results["memory_sizes"] = sizes

    # -- the table -----------------------------------------------------------

    def lat_verdict(self, p99, target, samples, preempt, over=None):
        return lat_verdict(p99, target, samples, preempt, over,
                           self.timer_floor())

    def timer_floor(self):
        """The ideal timer's share of deadlines missed by more than 2 us on
        the PMD's CPU (TARGET_LATE_EXTRA_NS is 2 us), or None."""
        if not self.stalls or "late_2us_share" not in self.stalls:
            return None
        return self.stalls["late_2us_share"]

    def lat_row(self, figure, result, key, target, what, none, reason):
        """The table row of latency 'figure': the samples result[key] of a
        traced phase's result (None if the phase did not run), against
        'target' ns.  'what' names the samples, 'none' says what was missing
        if there are none, 'reason' why the phase did not run."""
        if result and result[key]:
            s = lat_summary(result[key])
            pre = result.get("preempt", 0)
            return (figure,
                    "p50 %d / p99 %d / max %d ns (%d %s)"
                    % (s["p50"], s["p99"], s["max"], s["n"], what),
                    "p99 <= %d ns" % target, "%d preempt." % pre,
                    self.lat_verdict(s["p99"], target, s["n"], pre))
        return (figure, "not measured: " + none if result else reason,
                "p99 <= %d ns" % target, "-", "INCONCLUSIVE")

    def table(self):
        """The result table: rows of (figure, measured, target, A/A,
        verdict)."""
        return self.cost_rows() + self.latency_rows() + self.info_rows()

    def cost_rows(self):
        """Rows of the cost ratios: b/a, trust b/a, ETS, ECN, 2 PMDs,
        c/b."""
        R = self.results
        rows = []

        ba = R.get("b/a")
        if ba:
            rows.append((
                "b/a, PFC enabled, nothing paused, 1 PMD",
                "%s%s  (a %.2f Mpps %.0f cyc/pkt, b %.2f Mpps %.0f cyc/pkt; "
                "net_null sink)"
                % (fmt_ratio(ba["ratio"]), fmt_ci(ba.get("ci")),
                   ba["ref_mpps"], ba["ref_cpp"],
                   ba["x_mpps"], ba["x_cpp"]),
                ">= %.2f" % TARGET_BA, fmt_ratio(ba["ctrl"]),
                ratio_verdict(ba["ratio"], ba["ratio"] >= TARGET_BA,
                              ba["ctrl"], ba["ratio"], TARGET_BA,
                              ba.get("ci"))))
        for mode, what in (("pcp", "8 priorities tagged"),
                           ("dscp", "untagged IPv4 mixed DSCP")):
            label = ("b/a, trust=%s, QoS pfc on ingress and egress, %s, 1 "
                     "PMD" % (mode, what))
            tb = R.get("trust=%s b/a" % mode)
            why = R.get("trust=%s skipped" % mode)
            if tb:
                seen = sum(1 for b in tb["egress_prio_bytes"] if b)
                v = ratio_verdict(tb["ratio"], tb["ratio"] >= TARGET_BA,
                                  tb["ctrl"], tb["ratio"], TARGET_BA,
                                  tb.get("ci"))
                if seen < 8:
                    # Not the traffic the target is for.
                    v = "INCONCLUSIVE"
                rows.append((
                    label,
                    "%s%s  (a %.2f Mpps %.0f cyc/pkt, b %.2f Mpps %.0f "
                    "cyc/pkt; net_null sink; %d of 8 priorities at the "
                    "egress)"
                    % (fmt_ratio(tb["ratio"]), fmt_ci(tb.get("ci")),
                       tb["ref_mpps"], tb["ref_cpp"],
                       tb["x_mpps"], tb["x_cpp"], seen),
                    ">= %.2f" % TARGET_BA, fmt_ratio(tb["ctrl"]), v))
            elif why:
                rows.append((label, "not measured: %s" % why,
                             ">= %.2f" % TARGET_BA, "-", "INCONCLUSIVE"))
        eb = R.get("ets b/a")
        if eb:
            rows.append((
                "ets b/a, ETS configured (25/75), no backlog, 1 PMD",
                "%s%s  (a %.2f Mpps, b %.2f Mpps; net_null sink)"
                % (fmt_ratio(eb["ratio"]), fmt_ci(eb.get("ci")),
                   eb["ref_mpps"], eb["x_mpps"]),
                ">= %.2f" % TARGET_BA, fmt_ratio(eb["ctrl"]),
                ratio_verdict(eb["ratio"], eb["ratio"] >= TARGET_BA,
                              eb["ctrl"], eb["ratio"], TARGET_BA,
                              eb.get("ci"))))
        nb = R.get("ecn b/a")
        if nb:
            rows.append((
                "ecn b/a, ECN keys on every class, no backlog, 1 PMD",
                "%s%s  (a %.2f Mpps, b %.2f Mpps; net_null sink)"
                % (fmt_ratio(nb["ratio"]), fmt_ci(nb.get("ci")),
                   nb["ref_mpps"], nb["x_mpps"]),
                ">= %.2f" % TARGET_BA, fmt_ratio(nb["ctrl"]),
                ratio_verdict(nb["ratio"], nb["ratio"] >= TARGET_BA,
                              nb["ctrl"], nb["ratio"], TARGET_BA,
                              nb.get("ci"))))
        es = R.get("ets_shaped")
        if es:
            ok = (abs(es["share0"] / 0.25 - 1) <= TARGET_ETS_SHARE
                  and abs(es["share1"] / 0.75 - 1) <= TARGET_ETS_SHARE
                  and abs(es["bits_per_s"] / es["rate"] - 1) <= 0.05)
            rows.append((
                "ets shares at max-rate %.0f Mb/s, tc-bw 25/75"
                % (es["rate"] / 1e6),
                "%.3f / %.3f at %.1f Mb/s (scheduler's bytes)"
                % (es["share0"], es["share1"], es["bits_per_s"] / 1e6),
                "within %d%% of 0.25 / 0.75; rate within 5%%"
                % (TARGET_ETS_SHARE * 100), "-",
                "PASS" if ok else "FAIL"))
            rows.append((
                "ets scheduling at the bottleneck, PMD cycles",
                "%.0f cyc per packet received (the flood, mostly dropped "
                "at admission), %.0f cyc per packet sent"
                % (es["cpp"], es["cycles_per_sent"]),
                "info", "-", "info"))
        rows.append(self.pmd2_row())
        cb = R.get("c/b")
        if cb:
            v = ratio_verdict(cb["ratio"], cb["ratio"] >= TARGET_CB,
                              cb["ctrl"], cb["ratio"], TARGET_CB,
                              cb.get("ci"))
            lapsed = ""
            if cb.get("lapses"):
                # The c windows were not all paused throughout: a pause
                # that lapsed released what it held, and holding it again
                # costs what c does not measure.
                v = "INCONCLUSIVE"
                lapsed = "; the pause lapsed %d times" % cb["lapses"]
            rows.append((
                "c/b, other priorities while one is paused",
                "%s%s  (b %.2f Mpps, c %.2f Mpps unpaused; %.0f/%.0f "
                "cyc/pkt; pcap sink%s)"
                % (fmt_ratio(cb["ratio"]), fmt_ci(cb.get("ci")),
                   cb["ref_metric"], cb["x_metric"], cb["ref_cpp"],
                   cb["x_cpp"], lapsed),
                ">= %.2f" % TARGET_CB, fmt_ratio(cb["ctrl"]), v))
        return rows

    def latency_rows(self):
        """Rows of the USDT latencies, or why they were not measured."""
        rows = []
        U = self.usdt_results
        reason = self.usdt_reason or NOT_MEASURED_USDT
        checked = [r for r in U.values() if r.get("checked")]
        if checked:
            n = sum(r["checked"] for r in checked)
            early = sum(len(r["early"]) for r in checked)
            unknown = sum(r["unknown_pause"] for r in checked)
            rows.append((
                "Sent while paused, early releases",
                "%d early of %d pause ends (unpause probe)%s"
                % (early, n, "; %d not attributable" % unknown
                   if unknown else ""),
                "0", "-", "PASS" if early == 0 else "FAIL"))
        else:
            rows.append(("Sent while paused, early releases",
                         reason if not U else "not measured: no pause end "
                         "traced", "0", "-", "INCONCLUSIVE"))

        rows.append(self.lat_row(
            "Pause reaction p99", U.get("early"), "reaction",
            TARGET_REACTION_NS, "pauses; PFC frame read to its pause in "
            "force for every transmit decision", "no pause traced", reason))

        blocks = [b for b in U.get("pause-end", {}).get("blocks", [])
                  if b.get("n")]
        lat = U.get("latency")
        if lat and lat.get("xon_release") and lat.get("iter_us"):
            # Pauses ended by XON, from the latency phase: from the read of
            # the XON, since the product's own end of such a pause is the
            # XON's earliest arrival, before it could be read.
            v = lat["xon_release"]
            b = dict(lat_summary(v), block="XON", quanta=0, speed="XON",
                     iter_us=lat["iter_us"], preempt=lat.get("preempt", 0))
            b["target_ns"] = b["iter_us"] * 1000 + TARGET_LATE_EXTRA_NS
            b["over"] = sum(1 for x in v if x > b["target_ns"]) / len(v)
            b["verdict"] = lat_verdict(b["p99"], b["target_ns"], len(v),
                                       b["preempt"], b["over"],
                                       self.timer_floor())
            blocks.append(b)
        if blocks:
            order = {"PASS": 0, "INCONCLUSIVE": 1, "FAIL": 2}
            worst = max(blocks, key=lambda b: (
                order[b["verdict"]],
                b["p99"] - b.get("target_ns", 0)))
            floor = self.timer_floor()
            rows.append((
                "Late end of a pause p99 (worst length)",
                "p50 %d / p99 %d / max %d ns (%s, %d ends; PMD "
                "iteration %s us%s)"
                % (worst["p50"], worst["p99"], worst["max"],
                   "%d quanta at %s" % (worst["quanta"], worst["speed"])
                   if worst["quanta"] else "pauses ended by XON",
                   worst["n"],
                   "%.2f" % worst["iter_us"] if worst.get("iter_us")
                   else "?",
                   "; %.1f%% over target" % (worst["over"] * 100)
                   if worst.get("over") is not None else ""),
                "p99 <= %s" % ("%d ns (%.2f us iteration + 2 us)"
                               % (worst["target_ns"], worst["iter_us"])
                               if "target_ns" in worst else
                               "one PMD iteration + 2 us"),
                "%d preempt.%s" % (worst.get("preempt", 0),
                                   ", ideal %.1f%% over" % (floor * 100)
                                   if floor is not None else ""),
                worst["verdict"]))
        else:
            rows.append(("Late end of a pause p99",
                         reason if not U else "not measured: no pause end "
                         "traced", "p99 <= one PMD iteration + 2 us", "-",
                         "INCONCLUSIVE"))

        rows.append(self.lat_row(
            "XOFF generation p99", U.get("latency"), "xoff", TARGET_XOFF_NS,
            "samples", "no XOFF traced", reason))
        return rows

    def info_rows(self):
        """Rows for information: PFC ports vs plain, held packets, memory."""
        R = self.results
        rows = []
        for k in (1, 2, 4, 8):
            s = R.get("ports=%d" % k)
            if s:
                rows.append((
                    "%d PFC port%s vs plain" % (k, "s" if k > 1 else ""),
                    "%s  (%.0f -> %.0f cyc/pkt)" % (
                        fmt_ratio(s["ratio"]), s["ref_cpp"], s["x_cpp"]),
                    "info", fmt_ratio(s["ctrl"]), "info"))
        h = R.get("held")
        if h:
            for n in (100, 10000):
                cost = h["ratio"][n]
                ci = h.get("ci", {}).get(n)
                rows.append((
                    "cost %d held / 0 held" % n,
                    "%s%s  (%.0f -> %.0f cyc/pkt)" % (
                        fmt_ratio(cost), fmt_ci(ci), h["cpp"][0],
                        h["cpp"][n]),
                    "<= %.2f" % TARGET_HELD, fmt_ratio(h["ctrl"]),
                    ratio_verdict(cost, cost <= TARGET_HELD, h["ctrl"],
                                  cost, TARGET_HELD, ci)))
        ms = R.get("memory_sizes") or {}
        qs = 1024
        ntx = R.get("sink_txq") or 1
        if ms:
            per_txq = 8 * qs * ms["pfc_held"] + ms["pfc_txq"]
            rows.append((
                "memory per PFC port",
                "%d B per tx queue (8 x %d x %d B traffic class queues + "
                "%d B), x %d tx queue%s + %d B QoS object; static %d B slot"
                % (per_txq, qs, ms["pfc_held"], ms["pfc_txq"], ntx,
                   "s" if ntx > 1 else "", ms["netdev_dpdk_pfc"],
                   ms["pfc_port"]),
                "info", "-", "info"))
            rows.append((
                "static, all ports",
                "%d B (%d slots x %d B, with or without PFC)"
                % (ms["max_ports"] * ms["pfc_port"], ms["max_ports"],
                   ms["pfc_port"]), "info", "-", "info"))
        else:
            rows.append(("memory per PFC port",
                         "%d B traffic class queues per tx queue (8 x %d x "
                         "16 B) + per-port state" % (8 * qs * 16, qs),
                         "info", "-", "info"))
        mem = R.get("memory_rss")
        if mem:
            rows.append(("RSS delta, QoS on 8 ports",
                         "%+d KiB (%+.0f KiB/port; untouched ring pages "
                         "are not resident)" % (
                             mem["rss1"] - mem["rss0"],
                             (mem["rss1"] - mem["rss0"]) / 8),
                         "info", "-", "info"))
        return rows

    def pmd2_row(self):
        label = "2 PMDs to one PFC port, aggregate Mpps, PFC/plain"
        target = ">= %.2f" % TARGET_PMD2
        p = self.results.get("pmd2")
        if not p:
            why = self.results.get("pmd2_skipped", "phase not run")
            return (label, "not measured: %s" % why, target, "-",
                    "INCONCLUSIVE")
        v = ratio_verdict(p["ratio"], p["ratio"] >= TARGET_PMD2, p["ctrl"],
                          p["ratio"], TARGET_PMD2, p.get("ci"))
        per = p.get("ref_pmd_mpps", {})
        pre = p.get("preempt_per_s", [])
        contended = (max(pre or [0]) >= 100
                     or (p.get("imbalance") is not None
                         and p["imbalance"] < 0.9))
        note = ""
        if v == "FAIL" and contended:
            # With as many PMD threads as CPUs, the main thread, the
            # benchmark and the kernel take time from a PMD thread, and
            # that, not PFC, can decide the ratio.
            v = "INCONCLUSIVE"
            note = "; PMDs share their cores with the rest"
        return (label,
                "%s%s  (a %.2f Mpps, b %.2f Mpps; plain per PMD %s Mpps; "
                "PMDs preempted %s/s%s)"
                % (fmt_ratio(p["ratio"]), fmt_ci(p.get("ci")), p["ref_mpps"],
                   p["x_mpps"],
                   "/".join("%.2f" % per[c] for c in sorted(per)),
                   "/".join("%.0f" % x for x in pre), note),
                target, fmt_ratio(p["ctrl"]), v)

    def print_table(self, rows):
        w = [max(len(r[i]) for r in rows + [self.HEAD]) for i in range(5)]
        line = "+".join("-" * (x + 2) for x in w)
        print()
        try:
            with open(os.path.join(self.tmp, "header.txt")) as f:
                for ln in f:
                    print(ln.rstrip())
        except OSError:
            pass
        print("+" + line + "+")
        for r in [self.HEAD, None] + rows:
            if r is None:
                print("+" + line + "+")
                continue
            print("| " + " | ".join(r[i].ljust(w[i]) for i in range(5))
                  + " |")
        print("+" + line + "+")

    HEAD = ("figure", "measured", "target", "A/A ctrl", "verdict")

    def run(self):
        names = self.a.phases.split(",")
        phases = []
        for n in names:
            if n not in PHASES:
                raise SystemExit("unknown phase %s (known: %s)"
                                 % (n, ",".join(PHASES)))
            phases.append(getattr(self, PHASES[n]))
        self.load0 = open("/proc/loadavg").read().split()[0]
        self.preempt0 = self.pmd_preemptions()
        self.cpu0 = self.cpu_noise()
        self.noise_1pmd = None
        try:
            for ph in phases:
                if ph == self.phase_pmd2:
                    try:
                        ph()
                    except RuntimeError as e:
                        # The table of the other phases still prints.
                        log("2-PMD phase failed: %s" % e)
                        self.results["pmd2_skipped"] = "phase failed: %s" % e
                    continue
                ph()
        finally:
            self.stop_refresher()
        rows = self.table()
        log("run took %.0f s" % (time.monotonic() - self.t_start))
        self.print_table(rows)
        print()
        self.print_notes()
        self.print_details()
        print("Plot: %s" % self.a.png)
        with open(self.a.json, "w") as f:
            json.dump({"results": self.results, "table": rows,
                       "stalls": self.stalls, "tsc_hz": self.hz,
                       "usdt": self.usdt_results,
                       "usdt_reason": self.usdt_reason},
                      f, indent=1,
                      default=str)
        print("Raw results: %s" % self.a.json)
        self.perf_report()

    def print_notes(self):
        """How to read the table: the estimators, the controls, the noise
        and the stalls of the machine."""
        print("Ratios are throughput ratios, the median over %d alternating "
              "~%.0f s windows of X_i / sqrt(R_i * R_i+1) (R: reference "
              "windows either side)." % (self.a.runs, self.window_s))
        print("[lo, hi]: a distribution-free %d%% confidence interval for "
              "that median, from the order statistics of the windows' "
              "ratios; a result whose interval holds its target is "
              "INCONCLUSIVE: the windows cannot tell which side of the "
              "target it is on." % round(CI_COVERAGE * 100))
        print("A/A ctrl: the same estimator applied to reference windows "
              "only, R_i / sqrt(R_i-1 * R_i+1).  A result whose control is "
              "further from 1 than the result itself, or than the result "
              "from its target, is INCONCLUSIVE (PFC_BENCH_RUNS=10 narrows "
              "the noise).")
        print("Latencies come from the USDT probes of netdev_dpdk_pfc, "
              "traced with bpftrace (TSC time stamps, converted with the "
              "TSC frequency %s).  Their control is how often the PMD "
              "thread lost its core meanwhile (involuntary context "
              "switches): a p99 over target with at least one preemption "
              "per 100 events is INCONCLUSIVE.  The late end of a pause has "
              "a second control, 'ideal N%% over': how often an ideal timer "
              "on the PMD's CPU would miss a deadline by more than 2 us, "
              "because the CPU did not run then (see Stalls below).  A p99 "
              "over target whose samples miss it no more often than that "
              "is INCONCLUSIVE; one that misses more often FAILs.  Each "
              "latency is the difference of two TSCs passed to one probe "
              "hit, and each phase traces only the probes it needs, so no "
              "trap into the kernel falls inside a timed interval."
              % ("%d Hz from %s" % (self.hz, self.hz_from) if self.hz
                 else "of ovs-vswitchd"))
        if not self.usdt_results:
            print("Latency rows: %s." % (self.usdt_reason
                                         or NOT_MEASURED_USDT))
        pre, steal, irq = self.noise_1pmd or self.noise_so_far()
        print("Noise: load average %s at the start, %s at the end; with one "
              "PMD thread, it lost its core %d times and its CPU lost %.0f "
              "ms to the hypervisor (steal) and %.0f ms to interrupts."
              % (self.load0, open("/proc/loadavg").read().split()[0],
                 pre, steal, irq))
        st = self.stalls
        if st:
            print("Stalls: before ovs-vswitchd started, pfc-freeze-probe, "
                  "a busy loop on the PMD's CPU %d, stopped running %.0f "
                  "times a second for 2 us or more (%.0f for 5 us or more; "
                  "median %.1f us), %.2f%% of the time: time that no code "
                  "on that CPU gets, which steal time does not show.  A "
                  "deadline at a random instant falls more than 2 us "
                  "before the end of such a stall %.2f%% of the time: an "
                  "ideal timer misses by more than 2 us that often."
                  % (st["cpu"], st["per_s_2us"], st["per_s_5us"],
                     st["median_ns"] / 1000, st["lost_share"] * 100,
                     st["late_2us_share"] * 100))

    def print_details(self):
        """What the table summarizes: late pause ends per length, first
        decisions, early releases, the 2-PMD phase, c windows and the pcap
        sink's poll."""
        pe = self.usdt_results.get("pause-end", {}).get("blocks")
        if pe:
            print("Late end of a pause per length (unpause TSC minus the "
                  "pause's end; the table shows the worst verdict):")
            for e in pe:
                if e.get("n"):
                    print("  %5d quanta at %4s = %8.1f us: p50 %6d ns, p99 "
                          "%7d ns, max %8d ns, %d ends, PMD iteration %s us, "
                          "target %s ns, %d PMD preemptions%s: %s" % (
                              e["quanta"], e["speed"], e["pause_ns"] / 1e3,
                              e["p50"], e["p99"], e["max"], e["n"],
                              "%.2f" % e["iter_us"] if e.get("iter_us")
                              else "?",
                              "%d" % e["target_ns"] if "target_ns" in e
                              else "?", e["preempt"],
                              "; %.1f%% over target" % (e["over"] * 100)
                              if e.get("over") is not None else "",
                              e.get("verdict", "-")))
                else:
                    print("  %5d quanta at %4s: no pause end traced (no "
                          "packet held?)" % (e["quanta"], e["speed"]))
        lat = self.usdt_results.get("latency")
        if lat and lat.get("xon_release"):
            s_ = lat_summary(lat["xon_release"])
            print("Pauses ended by XON: unpause p50 %d / p99 %d / max %d ns "
                  "after the XON was read (%d ends)."
                  % (s_["p50"], s_["p99"], s_["max"], s_["n"]))
        fd = self.usdt_results.get("reaction")
        if fd and fd["first_decision"]:
            s_ = lat_summary(fd["first_decision"])
            print("First transmit decision on the paused port after the PFC "
                  "frame was read (it honoured the pause; it waits for the "
                  "rest of the PMD iteration, during which nothing is sent "
                  "to that port): p50 %d / p99 %d / max %d ns (%d pauses)."
                  % (s_["p50"], s_["p99"], s_["max"], s_["n"]))
        for name, r in sorted(self.usdt_results.items()):
            for e in r["early"][:10]:
                print("EARLY RELEASE (%s): port %d priority %d txq %d, "
                      "%d ns before the end of a %s pause"
                      % (name, e["port"], e["prio"], e["txq"],
                         e["early_ns"], e["block"]))
        p2 = self.results.get("pmd2")
        if p2:
            print("2 PMDs: PMD threads on CPUs %s; plain aggregate %.2f "
                  "Mpps, per PMD %s; each PMD thread preempted %s times a "
                  "second; their CPUs lost %s ms (steal, interrupts); sink "
                  "queues with PFC: %s.  With as many PMD threads as CPUs, "
                  "ovs-vswitchd's other threads, ovsdb-server, this script "
                  "and the kernel run on the PMDs' CPUs: a FAIL with a "
                  "PMD preempted 100 times a second or more, or one PMD "
                  "forwarding under 90%% of the other's rate, is reported "
                  "INCONCLUSIVE."
                  % (",".join(map(str, p2["cores"])), p2["ref_mpps"],
                     {c: round(v, 2) for c, v in
                      p2["ref_pmd_mpps"].items()},
                     ["%.0f" % x for x in p2["preempt_per_s"]],
                     ["%.0f/%.0f" % x for x in p2["cpu_noise_ms"]],
                     p2.get("show_queues")))
        cb = self.results.get("c/b")
        if cb:
            print("c windows: priority 3 went from not paused to paused %d "
                  "times in %d windows (%d lapses between refreshes)." % (
                      cb["transitions"], cb["c_windows"], cb["lapses"]))
        pp = self.results.get("plain_pcap_sink")
        if pp and "b/a" in self.results:
            o = pp["cpp"] - self.results["b/a"]["ref_cpp"]
            print("The pcap sink's empty rx poll (a libpcap poll() per PMD "
                  "iteration) costs: plain forwarding %.0f cyc/pkt to the "
                  "pcap sink vs %.0f to net_null, %+.0f cyc/pkt that dilute "
                  "c/b and the held-packet ratios." % (
                      pp["cpp"], self.results["b/a"]["ref_cpp"], o))
            est = []
            if cb and o > 0:
                est.append("c/b %.3f" % ((cb["ref_cpp"] - o)
                                         / (cb["x_cpp"] - o)))
            h = self.results.get("held")
            if h and o > 0:
                for n in (100, 10000):
                    est.append("cost %d held / 0 held %.3f" % (
                        n, (h["cpp"][n] - o) / (h["cpp"][0] - o)))
            if est:
                print("Estimated without that poll (cycles ratio, minus "
                      "%.0f cyc/pkt each side; not a verdict): %s."
                      % (o, ", ".join(est)))


def cmd_run(args):
    args.quanta = [(int(q.split("@")[0]), q.split("@")[1])
                   for q in args.quanta.split(",")]
    bench = Bench(args)
    signal.signal(signal.SIGTERM, lambda s, f: sys.exit(143))
    bench.run()


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.
                                RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)

    s = sub.add_parser("mkpcap", help="write the source pcap")
    s.add_argument("file")
    s.add_argument("--count", type=int,
                   help="frames (default 64; with --dscp, 5 per DSCP)")
    s.add_argument("--dscp", action="store_true",
                   help="untagged IPv4 frames of DSCPs %s in turn, for "
                   "trust=dscp" % ",".join("%d" % d for d in TRUST_DSCPS))
    s.set_defaults(func=cmd_mkpcap)

    s = sub.add_parser("refresher", help="keep a priority paused")
    s.add_argument("--port", required=True, help="[NETNS:]IFACE")
    s.add_argument("--prio", default="3")
    s.add_argument("--time", type=int, default=65535)
    s.add_argument("--interval", type=float, default=0.001)
    s.add_argument("--rt", type=int, default=0)
    s.set_defaults(func=cmd_refresher)

    s = sub.add_parser("parse-show", help="parse pfc/show from stdin")
    s.set_defaults(func=cmd_parse_show)

    s = sub.add_parser("analyze-usdt",
                       help="latency figures from a bpftrace trace (stdin)")
    s.add_argument("--sends", required=True,
                   help='JSON: {"sends": [...], "prio_tc": {port: [tc...]}}'
                   " (see analyze_trace())")
    s.add_argument("--hz", type=int,
                   help="TSC frequency (default: fitted to the trace)")
    s.set_defaults(func=cmd_analyze_usdt)

    s = sub.add_parser("run", help="run the benchmark")
    s.add_argument("--ovs", required=True, help="OVS build tree")
    s.add_argument("--tmp", required=True, help="OVS run directory")
    s.add_argument("--peer", required=True,
                   help="NETNS:IFACE of the sink's link partner")
    s.add_argument("--sink-if", required=True,
                   help="the veth the sink port reads (rx_iface)")
    s.add_argument("--pcap", required=True,
                   help="the traffic source's pcap (for the 2-PMD phase)")
    s.add_argument("--pcap-dscp", required=True,
                   help="the pcap of mkpcap --dscp (for the trust phase's "
                   "second source, srcip)")
    s.add_argument("--config-h", required=True,
                   help="config.h of the OVS build (HAVE_USDT_PROBES)")
    s.add_argument("--pmd2-mask", default="0x3",
                   help="pmd-cpu-mask of the 2-PMD phase, two CPUs")
    s.add_argument("--png", required=True)
    s.add_argument("--json", required=True)
    s.add_argument("--window", type=float, default=2.0)
    s.add_argument("--runs", type=int, default=8)
    s.add_argument("--port-runs", type=int, default=3)
    s.add_argument("--held-runs", type=int, default=5)
    s.add_argument("--refresh", type=float, default=0.001)
    s.add_argument("--toggles", type=int, default=1100)
    s.add_argument("--pause-count", type=int, default=1000,
                   help="PFC frames sent per pause length for the late end "
                   "of a pause")
    s.add_argument("--quanta", default="1@100M,10@100M,100@10G,1000@10G,"
                   "10000@10G,65535@10G",
                   help="pause lengths, QUANTA@LINK-SPEED: a pause must "
                   "outlast a PMD iteration (a few us) to hold anything")
    s.add_argument("--perf", metavar="DIR",
                   help="also profile one extra window of each condition "
                   "with perf record on the PMD thread, into DIR, and print "
                   "the top symbols")
    s.add_argument("--phases", default=",".join(PHASES),
                   help="comma-separated phases to run, of %s (default: "
                   "all)" % ",".join(PHASES))
    s.set_defaults(func=cmd_run)

    args = p.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
