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

"""Link partners for exercising IEEE 802.1Qbb PFC in Open vSwitch.

This is the traffic side of utilities/ovs-pfc-demo and tests/system/run.sh.
It builds PFC and other MAC Control frames with scapy, sends sequence-numbered
data streams with an 802.1Q priority (PCP), records what arrives, and can act
as a PFC-honouring sender or as a receiver that pauses its partner.

Run it with the Debian interpreter, /usr/bin/python3, which has python3-scapy.
Ports are given as NETNS:IFACE (or just IFACE for the current namespace).  A
single process may hold ports in several network namespaces: the sockets are
opened inside each namespace and stay bound to it, so one process can time
both ends of a path against one clock.

Wire format used for data frames: EtherType 0x88B5 (IEEE local
experimental), optionally behind an 802.1Q tag carrying the priority, and a
12-octet header: magic "PFCT", stream id (1), priority (1), run id (2),
sequence number (4, big-endian).

Subcommands (see --help of each):
  build       print the octets of a MAC Control frame variant
  send-pfc    send PFC (or malformed MAC Control) frames, once or refreshed
  send-macc   send MAC Control frames of given opcodes, DAs and VLAN tags
  stream      send sequence-numbered data streams at a given rate
  recv        record arriving frames; SIGUSR1 writes a snapshot, SIGTERM ends
  check       check a recv record: exactly once, in order, none, ...
  decode      print the MAC Control frames of a recv record
  scenario    a whole traffic scenario across two ports (incast: across
              several senders and B), timed against one clock
  selftest    offline checks of the frame builders (no network needed)
"""

import argparse
import ctypes
import json
import multiprocessing
import os
import queue
import select
import signal
import socket
import struct
import sys
import threading
import time
import traceback

PFC_DA = "01:80:c2:00:00:01"
ETH_MAC_CONTROL = 0x8808
OPCODE_PAUSE = 0x0001
OPCODE_PFC = 0x0101
DATA_TYPE = 0x88B5
MAGIC = b"PFCT"
DATA_HDR = struct.Struct("!4sBBHI")
DEFAULT_VLAN = 10
UDP_SRC_IP = "10.0.0.1"        # Data frames in IPv4/UDP (DataStream udp_sport).
UDP_DST_IP = "10.0.0.2"
UDP_DPORT = 5001
VXLAN_PORT = 4789               # IANA's VXLAN port (RFC 7348).
VXLAN_LOCAL_IP = "172.31.0.1"   # The switch's tunnel endpoint, and
VXLAN_REMOTE_IP = "172.31.0.2"  # the peer's (--frames vxlan4).
UDP6_SRC_IP = "fd00::1"         # Data frames in IPv6/UDP (DataStream ip="6").
UDP6_DST_IP = "fd00::2"
QUANTUM_BITS = 512

MAC_A = "02:00:00:00:0a:01"     # Host in namespace A.
MAC_B = "02:00:00:00:0b:01"     # Host in namespace B.
MAC_C = "02:00:00:00:0c:01"     # Host in namespace C (a guest).
MAC_D = "02:00:00:00:0d:01"     # Hosts in namespaces D and E (incast).
MAC_E = "02:00:00:00:0e:01"
HOST_MACS = {"A": MAC_A, "B": MAC_B, "C": MAC_C, "D": MAC_D, "E": MAC_E}

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_IGNORE_OUTGOING = 23
PACKET_OUTGOING = 4
TP_STATUS_VLAN_VALID = 0x10
TP_STATUS_VLAN_TPID_VALID = 0x40
SO_RCVBUFFORCE = 33
SO_SNDBUFFORCE = 32
SO_TIMESTAMPNS = 35
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
AUXDATA = struct.Struct("=IIIHHHH")

_scapy = None


def scapy():
    """Imports scapy lazily (it takes a second) and returns its namespace."""
    global _scapy
    if _scapy is None:
        import logging
        logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
        try:
            from scapy.layers.l2 import Ether, Dot1Q
            from scapy.packet import Raw
            from scapy.contrib import mac_control
        except ImportError as e:
            sys.exit("pfc_peer: scapy is missing (%s): install the Debian "
                     "package python3-scapy and run with /usr/bin/python3"
                     % e)
        _scapy = argparse.Namespace(Ether=Ether, Dot1Q=Dot1Q, Raw=Raw,
                                    mc=mac_control)
    return _scapy


def parse_speed(s):
    """Parses a link speed such as '10G', '100M', '10000000' into bit/s."""
    s = str(s).strip()
    mult = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
    if s and s[-1].lower() in mult:
        return int(float(s[:-1]) * mult[s[-1].lower()])
    return int(s)


def quanta_to_s(quanta, speed):
    """Seconds paused by 'quanta' pause quanta at 'speed' bit/s."""
    return quanta * QUANTUM_BITS / float(speed)


def parse_prios(s):
    """'3', '3,5', 'none' -> bitmap."""
    mask = 0
    if s in ("", "none"):
        return 0
    for tok in str(s).replace(" ", ",").split(","):
        if tok:
            n = int(tok)
            if not 0 <= n <= 7:
                raise ValueError("priority %s out of range" % tok)
            mask |= 1 << n
    return mask


def mask_str(mask):
    return ",".join(str(n) for n in range(8) if mask & (1 << n)) or "none"


# ---------------------------------------------------------------------------
# Frame builders.

def pfc_frame(enable, times, src=MAC_B, dst=PFC_DA):
    """A valid PFC frame, padded to 60 octets, built with scapy's MAC Control
    layer.  'enable' is the priority_enable_vector bitmap, 'times' eight
    quanta (or a single value used for every enabled priority)."""
    s = scapy()
    if isinstance(times, int):
        times = [times if enable & (1 << n) else 0 for n in range(8)]
    fields = {}
    for n in range(8):
        fields["c%d_enabled" % n] = (enable >> n) & 1
        fields["c%d_pause_time" % n] = times[n]
    pkt = (s.Ether(dst=dst, src=src, type=ETH_MAC_CONTROL)
           / s.mc.MACControlClassBasedFlowControl(**fields))
    frame = bytes(pkt)
    return frame.ljust(60, b"\0")


def pfc_body(enable, times, opcode=OPCODE_PFC, high=0):
    if isinstance(times, int):
        times = [times if enable & (1 << n) else 0 for n in range(8)]
    return struct.pack("!HH8H", opcode, ((high & 0xff) << 8) | enable,
                       *times)


def macc_frame(body, src=MAC_B, dst=PFC_DA, vlan=None, pad=True,
               pad_byte=b"\0"):
    """A MAC Control frame (EtherType 0x8808) around 'body', built with
    scapy, optionally 802.1Q tagged, optionally padded to 60 octets."""
    s = scapy()
    if vlan is None:
        pkt = s.Ether(dst=dst, src=src, type=ETH_MAC_CONTROL) / s.Raw(body)
    else:
        pkt = (s.Ether(dst=dst, src=src)
               / s.Dot1Q(vlan=vlan, prio=0, type=ETH_MAC_CONTROL)
               / s.Raw(body))
    frame = bytes(pkt)
    if pad and len(frame) < 60:
        frame += (pad_byte * 60)[:60 - len(frame)]
    return frame


def parse_tags(spec):
    """'' or '-' -> []; '8100:10' -> [(0x8100, 10)];
    '88a8:100,8100:10' -> [(0x88a8, 100), (0x8100, 10)], outermost first.
    A tag may give a PCP as TPID:VID:PCP."""
    tags = []
    if spec in (None, "", "-", "none"):
        return tags
    for item in spec.split(","):
        w = item.split(":")
        tpid, vid = int(w[0], 16), int(w[1])
        pcp = int(w[2]) if len(w) > 2 else 0
        if tpid not in (0x8100, 0x88A8, 0x9100) or not 0 <= vid < 4096 \
           or not 0 <= pcp < 8:
            raise ValueError("bad VLAN tag %r" % item)
        tags.append((tpid, vid, pcp))
    return tags


def tagged_macc_frame(body, src, dst, tags):
    """A MAC Control frame around 'body' behind the VLAN tags 'tags'
    (parse_tags(), outermost first; an 802.1ad S-tag is TPID 0x88a8), built
    with scapy and padded to 60 octets."""
    s = scapy()
    types = [t[0] for t in tags] + [ETH_MAC_CONTROL]
    pkt = s.Ether(dst=dst, src=src, type=types[0])
    for i, (_, vid, pcp) in enumerate(tags):
        pkt = pkt / s.Dot1Q(prio=pcp, vlan=vid, type=types[i + 1])
    frame = bytes(pkt / s.Raw(body))
    return frame.ljust(60, b"\0")


def macc_kind_frame(spec, src, enable=0x08, time_=65535):
    """'OPCODE@DST@TAGS' -> a MAC Control frame.  OPCODE is pfc (0x0101,
    priorities 'enable' paused for 'time_' quanta), pause (802.3x, 0x0001,
    'time_' quanta) or a number; DST a MAC address or 'pfc' for
    01:80:c2:00:00:01; TAGS as parse_tags()."""
    op, dst, tags = (spec.split("@") + ["", ""])[:3]
    dst = PFC_DA if dst in ("", "pfc") else dst
    if op == "pfc":
        body = pfc_body(enable, time_)
    elif op == "pause":
        body = struct.pack("!HH", OPCODE_PAUSE, time_)
    else:
        body = pfc_body(enable, time_, opcode=int(op, 0))
    return tagged_macc_frame(body, src, dst, parse_tags(tags))


# Variants of MAC Control frames, for robustness tests.  Each is
# (builder(enable, time, src), expectation), where expectation is what a PFC
# port must do with it: "pfc" (act on it), "invalid", "pause-ignored",
# "unsupported".
def _v_valid(e, t, src):
    return pfc_frame(e, t, src)


def _v_unpadded(e, t, src):
    return macc_frame(pfc_body(e, t), src=src, pad=False)       # 34 octets


def _v_junk_pad(e, t, src):
    return macc_frame(pfc_body(e, t), src=src, pad_byte=b"\xa5")


def _v_high_octet(e, t, src):
    return macc_frame(pfc_body(e, t, high=0xff), src=src)


def _v_truncated(e, t, src):
    return macc_frame(pfc_body(e, t), src=src, pad=False)[:33]


def _v_vlan(e, t, src):
    return macc_frame(pfc_body(e, t), src=src, vlan=DEFAULT_VLAN)


def _v_wrong_da(e, t, src):
    return macc_frame(pfc_body(e, t), src=src, dst=MAC_A)


def _v_pause(e, t, src):
    return macc_frame(struct.pack("!HH", OPCODE_PAUSE, t), src=src)


def _v_unknown(e, t, src):
    return macc_frame(pfc_body(e, t, opcode=0x0102), src=src)


VARIANTS = {
    "valid": (_v_valid, "pfc"),
    "unpadded": (_v_unpadded, "pfc"),
    "junk-pad": (_v_junk_pad, "pfc"),
    "high-octet": (_v_high_octet, "pfc"),
    "truncated": (_v_truncated, "invalid"),
    "vlan": (_v_vlan, "invalid"),
    "wrong-da": (_v_wrong_da, "invalid"),
    "pause": (_v_pause, "pause-ignored"),
    "unknown-opcode": (_v_unknown, "unsupported"),
}


def variant_frame(name, enable, time_, src=MAC_B):
    return VARIANTS[name][0](enable, time_, src)


class DataStream:
    """Pre-built data frames of one stream; frame(seq) patches the seq."""

    def __init__(self, stream, prio, src, dst, tagged=True, vlan=DEFAULT_VLAN,
                 size=128, run=0, udp_sport=None, ip=None, dscp=0,
                 outer_dst=None, ecn=0):
        s = scapy()
        if ip == "vxlan":
            # Untagged IPv4 of DSCP 0 in VXLAN (RFC 7348) to the switch's
            # tunnel endpoint, whose MAC is 'outer_dst', in an outer IPv4
            # header of DSCP 'dscp': only the outer header tells the
            # priority.
            from scapy.layers.inet import IP, UDP
            from scapy.layers.vxlan import VXLAN
            inner = DataStream(stream, prio, src, dst, False, size=size,
                               run=run, ip="4", dscp=0)
            pkt = (s.Ether(dst=outer_dst, src=src)
                   / IP(src=VXLAN_REMOTE_IP, dst=VXLAN_LOCAL_IP,
                        tos=dscp << 2)
                   / UDP(sport=4000 + stream, dport=VXLAN_PORT, chksum=0)
                   / VXLAN(vni=0) / s.Raw(bytes(inner.buf)))
            self.off = 50 + inner.off
            self.stream, self.prio, self.tagged = stream, prio, False
            self.buf = bytearray(bytes(pkt))
            return
        hdr = DATA_HDR.pack(MAGIC, stream, prio, run, 0)
        if ip is not None and udp_sport is None:
            udp_sport = 4000 + stream
        if udp_sport is not None:
            # IPv4/UDP (or, with ip="6", IPv6/UDP) of DSCP 'dscp', so that a
            # kernel flow hash (PACKET_FANOUT_HASH of net_af_packet's
            # queues) tells the streams apart by port, and so that a switch
            # that trusts DSCP classifies them.  The UDP checksum is 0
            # (none; for IPv6, which forbids it, the receiver here ignores
            # it): the seq is patched in afterwards.
            from scapy.layers.inet import IP, UDP
            from scapy.layers.inet6 import IPv6
            udp = UDP(sport=udp_sport, dport=UDP_DPORT, chksum=0)
            if ip == "6":
                l3 = (IPv6(src=UDP6_SRC_IP, dst=UDP6_DST_IP,
                           tc=(dscp << 2) | ecn)
                      / udp / s.Raw(hdr))
                l3len = 48
            else:
                l3 = (IP(src=UDP_SRC_IP, dst=UDP_DST_IP,
                         tos=(dscp << 2) | ecn)
                      / udp / s.Raw(hdr))
                l3len = 28
            if tagged:
                pkt = (s.Ether(dst=dst, src=src)
                       / s.Dot1Q(prio=prio, vlan=vlan) / l3)
                self.off = 18 + l3len
            else:
                pkt = s.Ether(dst=dst, src=src) / l3
                self.off = 14 + l3len
        elif tagged:
            pkt = (s.Ether(dst=dst, src=src)
                   / s.Dot1Q(prio=prio, vlan=vlan, type=DATA_TYPE)
                   / s.Raw(hdr))
            self.off = 18
        else:
            pkt = s.Ether(dst=dst, src=src, type=DATA_TYPE) / s.Raw(hdr)
            self.off = 14
        self.stream, self.prio, self.tagged = stream, prio, tagged
        self.buf = bytearray(bytes(pkt).ljust(max(size, 60), b"\0"))

    def frame(self, seq):
        struct.pack_into("!I", self.buf, self.off + 8, seq)
        return bytes(self.buf)


def parse_streams(spec):
    """'0:0,1:3,2:0u' -> [(stream, prio, tagged)]; a trailing 'u' means
    untagged (the port's default priority applies)."""
    out = []
    for item in spec.split(","):
        sid, prio = item.split(":")
        tagged = not prio.endswith("u")
        out.append((int(sid), int(prio.rstrip("u")), tagged))
    return out


# ---------------------------------------------------------------------------
# Parsing.

def parse_frame(frame):
    """Returns a dict describing 'frame' (octets as on the wire)."""
    d = {"len": len(frame)}
    if len(frame) < 14:
        d["kind"] = "runt"
        return d
    d["dst"] = ":".join("%02x" % b for b in frame[0:6])
    d["src"] = ":".join("%02x" % b for b in frame[6:12])
    et = struct.unpack_from("!H", frame, 12)[0]
    off = 14
    tags = 0
    # Up to two VLAN tags (802.1Q, or an 802.1ad S-tag outside a C-tag);
    # "pcp" and "vid" are the outer tag's.
    while et in (0x8100, 0x88A8, 0x9100) and tags < 2 \
            and len(frame) >= off + 4:
        tci = struct.unpack_from("!H", frame, off)[0]
        if not tags:
            d["pcp"], d["vid"] = tci >> 13, tci & 0xFFF
        et = struct.unpack_from("!H", frame, off + 2)[0]
        off += 4
        tags += 1
    if tags:
        d["tags"] = tags
    d["type"] = et
    if et == ETH_MAC_CONTROL:
        d["kind"] = "macc"
        d["tagged"] = "pcp" in d
        if len(frame) >= off + 2:
            d["opcode"] = struct.unpack_from("!H", frame, off)[0]
        if d.get("opcode") == OPCODE_PFC and len(frame) >= off + 20:
            vec = struct.unpack_from("!H", frame, off + 2)[0]
            d["enable"] = vec & 0xFF
            d["vector"] = vec
            d["times"] = list(struct.unpack_from("!8H", frame, off + 4))
        elif d.get("opcode") == OPCODE_PAUSE and len(frame) >= off + 4:
            d["pause_time"] = struct.unpack_from("!H", frame, off + 2)[0]
    elif (et == DATA_TYPE and len(frame) >= off + DATA_HDR.size
          and frame[off:off + 4] == MAGIC):
        _, stream, prio, run, seq = DATA_HDR.unpack_from(frame, off)
        d.update(kind="data", stream=stream, prio=prio, run=run, seq=seq)
    elif (et == 0x0800 and len(frame) >= off + 20 + 8 + 8 + 14
          and frame[off] >> 4 == 4 and frame[off + 9] == 17
          and struct.unpack_from("!H", frame,
                                 off + (frame[off] & 0xF) * 4 + 2)[0]
          == VXLAN_PORT):
        # VXLAN (RFC 7348): the frame inside, with the outer header's DSCP
        # and PCP.
        inner = parse_frame(frame[off + (frame[off] & 0xF) * 4 + 16:])
        d.update({k: v for k, v in inner.items()
                  if k not in ("len", "pcp", "vid", "tags")})
        d["outer_dscp"] = frame[off + 1] >> 2
        d["inner_pcp"] = inner.get("pcp")
    elif (et == 0x0800 and len(frame) >= off + 20
          and frame[off] >> 4 == 4 and frame[off + 9] == 17
          and len(frame) >= off + (frame[off] & 0xF) * 4 + 8
          + DATA_HDR.size
          and frame[off + (frame[off] & 0xF) * 4 + 8:
                    off + (frame[off] & 0xF) * 4 + 12] == MAGIC):
        # A data frame in IPv4/UDP (DataStream with udp_sport).
        l4 = off + (frame[off] & 0xF) * 4
        _, stream, prio, run, seq = DATA_HDR.unpack_from(frame, l4 + 8)
        d.update(kind="data", stream=stream, prio=prio, run=run, seq=seq,
                 sport=struct.unpack_from("!H", frame, l4)[0],
                 dscp=frame[off + 1] >> 2, ecn=frame[off + 1] & 3)
    elif (et == 0x86DD and len(frame) >= off + 48 + DATA_HDR.size
          and frame[off] >> 4 == 6 and frame[off + 6] == 17
          and frame[off + 48:off + 52] == MAGIC):
        # A data frame in IPv6/UDP (DataStream with ip="6").
        _, stream, prio, run, seq = DATA_HDR.unpack_from(frame, off + 48)
        d.update(kind="data", stream=stream, prio=prio, run=run, seq=seq,
                 sport=struct.unpack_from("!H", frame, off + 40)[0],
                 dscp=((frame[off] & 0xF) << 2) | (frame[off + 1] >> 6),
                 ecn=(frame[off + 1] >> 4) & 3)
    else:
        d["kind"] = "other"
    return d


def is_pfc(d):
    return d.get("kind") == "macc" and d.get("opcode") == OPCODE_PFC \
        and "enable" in d


# ---------------------------------------------------------------------------
# Sockets.

def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc().setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "setns: %s" % os.strerror(err))


class Port:
    """A raw AF_PACKET socket on IFACE inside network namespace NS."""

    def __init__(self, spec):
        ns, _, iface = spec.rpartition(":")
        self.spec, self.ns, self.iface = spec, ns, iface
        orig = None
        if ns:
            orig = os.open("/proc/self/ns/net", os.O_RDONLY)
            fd = os.open("/run/netns/%s" % ns, os.O_RDONLY)
            try:
                _setns(fd)
            finally:
                os.close(fd)
        try:
            # Protocol 0: receives nothing until bound to the interface.
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
            for opt, val in ((SO_RCVBUFFORCE, 32 << 20),
                             (SO_SNDBUFFORCE, 4 << 20)):
                try:
                    s.setsockopt(socket.SOL_SOCKET, opt, val)
                except OSError:
                    pass
            s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
            try:
                s.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
            except OSError:
                pass
            s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            s.bind((iface, ETH_P_ALL))
            self.sock = s
        finally:
            if orig is not None:
                _setns(orig)
                os.close(orig)
        self.tx_lock = threading.Lock()

    def send(self, frame):
        with self.tx_lock:
            return self.sock.send(frame)

    def recv(self, timeout):
        """Returns (timestamp, frame) or None.  The timestamp is the
        kernel's receive time (CLOCK_REALTIME, as time.time())."""
        r, _, _ = select.select([self.sock], [], [], timeout)
        if not r:
            return None
        data, anc, _, addr = self.sock.recvmsg(65536, 256)
        if addr[2] == PACKET_OUTGOING:
            return False
        ts = None
        for level, typ, cdata in anc:
            if level == SOL_PACKET and typ == PACKET_AUXDATA \
               and len(cdata) >= AUXDATA.size:
                st, _, _, _, _, tci, tpid = AUXDATA.unpack_from(cdata)
                if st & TP_STATUS_VLAN_VALID:
                    if not st & TP_STATUS_VLAN_TPID_VALID:
                        tpid = 0x8100
                    data = data[:12] + struct.pack("!HH", tpid, tci) \
                        + data[12:]
            elif level == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("=qq", cdata[:16])
                ts = sec + nsec * 1e-9
        return (ts if ts else time.time()), data

    def close(self):
        self.sock.close()


class Recorder(threading.Thread):
    """Records every data and MAC Control frame arriving on a Port."""

    def __init__(self, port, on_frame=None):
        super().__init__(daemon=True)
        self.port = port
        self.on_frame = on_frame
        # (t, stream, prio, pcp, seq, run, outer_dscp, vid, dscp, ecn): pcp
        # and vid of the outer tag (None if untagged), outer_dscp of a VXLAN
        # frame, dscp and ecn of the IP packet (the inner one in VXLAN), or
        # None.
        self.data = []
        self.macc = []      # parse_frame() dicts with "t"
        self.other = 0
        self.lock = threading.Lock()
        self.halt = threading.Event()
        self.error = None

    def run(self):
        while not self.halt.is_set():
            try:
                r = self.port.recv(0.05)
            except OSError as e:
                # The interface went away (its namespace was deleted).
                self.error = e
                break
            if not r:
                continue
            t, frame = r
            d = parse_frame(frame)
            d["t"] = t
            with self.lock:
                if d["kind"] == "data":
                    self.data.append((t, d["stream"], d["prio"],
                                      d.get("pcp"), d["seq"], d["run"],
                                      d.get("outer_dscp"), d.get("vid"),
                                      d.get("dscp"), d.get("ecn")))
                elif d["kind"] == "macc":
                    self.macc.append(d)
                else:
                    self.other += 1
            if self.on_frame:
                self.on_frame(d)

    def stop(self):
        self.halt.set()
        self.join(2)

    def seqs(self, stream, since=None, until=None):
        with self.lock:
            return [x[4] for x in self.data if x[1] == stream
                    and (since is None or x[0] >= since)
                    and (until is None or x[0] < until)]

    def arrivals(self, stream):
        with self.lock:
            return [(x[0], x[4]) for x in self.data if x[1] == stream]

    def snapshot(self):
        with self.lock:
            return {"data": list(self.data),
                    "macc": [dict(m) for m in self.macc],
                    "other": self.other}


class PauseState:
    """The eight pause timers of a PFC-honouring host (seed 000 4.4)."""

    def __init__(self, speed, ignore_src=None):
        self.speed = speed
        self.ignore_src = ignore_src
        self.until = [0.0] * 8
        self.lock = threading.Lock()
        self.xoff_rx = [0] * 8
        self.xon_rx = [0] * 8
        self.ignored = 0        # PFC frames from 'ignore_src'.

    def on_frame(self, d):
        if not is_pfc(d):
            return
        if d["src"] == self.ignore_src:
            # The far host's own frame, forwarded by a broken switch: it
            # must not pass for the switch's flow control.
            self.ignored += 1
            return
        with self.lock:
            for n in range(8):
                if d["enable"] & (1 << n):
                    q = d["times"][n]
                    if q:
                        self.xoff_rx[n] += 1
                        self.until[n] = d["t"] + quanta_to_s(q, self.speed)
                    else:
                        self.xon_rx[n] += 1
                        self.until[n] = 0.0

    def paused_until(self, prio):
        with self.lock:
            return self.until[prio]


# ---------------------------------------------------------------------------
# Senders.

def send_streams(port, streams, count, rate, size=128, src=MAC_A, dst=MAC_B,
                 start_seq=0, run=0, pause=None, stop=None, log=None,
                 times=None, udp_sports=None, ips=None, vlan=DEFAULT_VLAN):
    """Sends 'count' frames of each stream in 'streams' [(id, prio, tagged)],
    interleaved, at 'rate' frames/s in total.  If 'pause' is a PauseState,
    honours it per priority.  If 'count' is None, sends until 'stop' is set.
    If 'times' is a dict, times[stream] gets the time of each send.  If
    'udp_sports' is a dict {stream: UDP source port}, the frames are IPv4/UDP
    from that port.  If 'ips' is a dict {stream: (IP version "4" or "6",
    DSCP)}, the frames are IPv4/UDP or IPv6/UDP with that DSCP.  Tagged
    streams have VID 'vlan'.  Returns {stream: frames sent}."""
    ips = ips or {}
    ds = [DataStream(sid, prio, src, dst, tagged, vlan=vlan, size=size,
                     run=run,
                     udp_sport=(udp_sports or {}).get(sid),
                     ip=ips.get(sid, (None, 0))[0],
                     dscp=ips.get(sid, (None, 0))[1],
                     outer_dst=(ips.get(sid, (None, 0, None)) + (None,))[2],
                     ecn=(ips.get(sid, (None, 0)) + (None, 0))[3] or 0)
          for sid, prio, tagged in streams]
    sent = {sid: 0 for sid, _, _ in streams}
    interval = 1.0 / rate if rate else 0.0
    t_next = time.time()
    seq = start_seq
    paused_s = 0.0
    while count is None or seq < start_seq + count:
        if stop is not None and stop.is_set():
            break
        for st in ds:
            if pause is not None:
                while True:
                    now = time.time()
                    until = pause.paused_until(st.prio)
                    if now >= until:
                        break
                    wait = min(until - now, 0.0005)
                    time.sleep(wait)
                    paused_s += wait
                    t_next = time.time()
            now = time.time()
            if interval and now < t_next:
                if t_next - now > 0.0002:
                    time.sleep(t_next - now)
            t_next = max(t_next + interval, time.time() - 0.01)
            if times is not None:
                times.setdefault(st.stream, []).append(time.time())
            port.send(st.frame(seq))
            sent[st.stream] += 1
        seq += 1
    if log:
        log("sent %s (paused %.3f s)" % (sent, paused_s))
    return sent


def send_pfc_refreshed(port, frame, interval, stop, until=None, other=None):
    """Sends 'frame' every 'interval' s until 'stop' is set or time 'until'.
    With 'other', sends 'frame' and 'other' in turn.  Returns the number
    sent."""
    n = 0
    t_next = time.time()
    while not stop.is_set() and (until is None or time.time() < until):
        port.send(other if other is not None and n % 2 else frame)
        n += 1
        t_next += interval
        delay = t_next - time.time()
        if delay > 0:
            stop.wait(delay)
        else:
            t_next = time.time()
    return n


# ---------------------------------------------------------------------------
# Checks.

class Checker:
    def __init__(self, name):
        self.name = name
        self.failures = []
        self.facts = {}

    def log(self, msg):
        print("[%s] %s" % (self.name, msg), flush=True)

    def ok(self, cond, msg):
        if cond:
            self.log("ok: " + msg)
        else:
            self.log("FAIL: " + msg)
            self.failures.append(msg)
        return cond

    def finish(self, facts_file=None):
        if facts_file:
            with open(facts_file, "w") as f:
                json.dump(self.facts, f, indent=1, sort_keys=True)
        if self.failures:
            self.log("RESULT: FAIL (%d failed checks)" % len(self.failures))
            return 1
        self.log("RESULT: PASS")
        return 0


def seq_report(seqs, expected):
    """Describes how 'seqs' differs from the list 'expected'."""
    if seqs == expected:
        return "all %d in order, exactly once" % len(expected)
    s = set(seqs)
    missing = [x for x in expected if x not in s]
    dups = len(seqs) - len(s)
    out_of_order = sum(1 for a, b in zip(seqs, seqs[1:]) if b < a)
    extra = sorted(s - set(expected))
    return ("got %d of %d: %d missing (first %s), %d duplicates, %d "
            "out of order, %d unexpected (first %s)"
            % (len(seqs), len(expected), len(missing), missing[:5], dups,
               out_of_order, len(extra), extra[:5]))


def check_seqs(ck, seqs, expected, what):
    return ck.ok(seqs == expected, "%s: %s" % (what,
                                                seq_report(seqs, expected)))


# ---------------------------------------------------------------------------
# Scenarios: whole traffic patterns across port A and port B of a switch
# whose A->B and B->A paths forward everything.  They check what the two
# hosts see; the caller checks the switch's counters with the facts file.

class Lab:
    def __init__(self, args, name):
        self.ck = Checker(name)
        self.args = args
        self.a = Port(args.a)
        self.b = Port(args.b)
        self.speed_a = parse_speed(args.speed_a)
        self.speed_b = parse_speed(args.speed_b)
        self.pause_a = PauseState(self.speed_a, ignore_src=MAC_B)
        self.rec_a = Recorder(self.a, self.pause_a.on_frame)
        self.rec_b = Recorder(self.b)
        self.rec_a.start()
        self.rec_b.start()
        self.run_id = os.getpid() & 0xFFFF
        # The first use of scapy's layers takes ~0.2 s: pay it now, not in
        # the middle of a timed sequence.
        pfc_frame(0x08, 0)
        DataStream(0, 0, MAC_A, MAC_B)
        time.sleep(0.1)

    def log(self, msg):
        self.ck.log(msg)

    def xoff_b(self, prios, quanta=65535):
        """B pauses 'prios' at the switch's port B."""
        return self.b.send(pfc_frame(prios, quanta, src=MAC_B))

    def xon_b(self, prios):
        return self.b.send(pfc_frame(prios, 0, src=MAC_B))

    def stream_a(self, streams, count, rate, start_seq=0, pause=None,
                 stop=None, times=None):
        return send_streams(self.a, streams, count, rate, src=MAC_A,
                            dst=MAC_B, start_seq=start_seq, run=self.run_id,
                            size=self.args.size, pause=pause, stop=stop,
                            times=times)

    def settle(self, rec, stream, n, timeout):
        """Waits until 'rec' holds 'n' frames of 'stream' or 'timeout'."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if len(rec.seqs(stream)) >= n:
                return True
            time.sleep(0.02)
        return False

    def finish(self):
        time.sleep(0.05)
        self.rec_a.stop()
        self.rec_b.stop()
        self.ck.facts["macc_at_a"] = self.rec_a.snapshot()["macc"]
        self.ck.facts["macc_at_b"] = self.rec_b.snapshot()["macc"]
        return self.ck.finish(self.args.facts)


def sc_pause(args):
    """Pause honoured per priority: p3 paused by B, p0 (tagged and untagged)
    keeps flowing; after XON every p3 frame arrives once, in order."""
    lab = Lab(args, "pause")
    ck, n = lab.ck, args.count
    pause_s = quanta_to_s(65535, lab.speed_b)
    refresh = min(pause_s / 3, 0.5)
    stop = threading.Event()
    refresher = threading.Thread(
        target=send_pfc_refreshed,
        args=(lab.b, pfc_frame(0x08, 65535, src=MAC_B), refresh, stop),
        daemon=True)
    refresher.start()
    time.sleep(0.05)
    streams = [(0, 0, True), (3, 3, True), (100, 0, False)]
    lab.log("B pauses priority 3 (65535 quanta = %.4f s at %s, refreshed "
            "every %.4f s); A sends %d frames each of p0 tagged (stream 0), "
            "p3 (stream 3), untagged (stream 100)"
            % (pause_s, args.speed_b, refresh, n))
    lab.stream_a(streams, n, args.rate)
    lab.settle(lab.rec_b, 0, n, 2.0)
    lab.settle(lab.rec_b, 100, n, 1.0)
    time.sleep(0.3)
    check_seqs(ck, lab.rec_b.seqs(0), list(range(n)),
               "p0 tagged at B during the pause")
    check_seqs(ck, lab.rec_b.seqs(100), list(range(n)),
               "untagged (default priority 0) at B during the pause")
    p3_early = lab.rec_b.seqs(3)
    ck.ok(not p3_early, "no p3 frame reached B while paused (%d did)"
          % len(p3_early))
    pcps = {x[3] for x in lab.rec_b.snapshot()["data"] if x[1] == 0}
    ck.ok(pcps == {0}, "p0 frames kept PCP 0 (saw %s)" % pcps)
    stop.set()
    refresher.join()
    # Seed 000 4.4: a timer whose e[n] is 0 is unaffected, whatever time[n]
    # says.  B's pause (3.4 s at 10M) is no longer refreshed; a frame with
    # e[5]=1 only and every time[n]=0 must leave p3 paused.
    lab.b.send(pfc_frame(0x20, [0] * 8, src=MAC_B))
    lab.log("B sends a PFC frame with e[5]=1 only, time[0..7]=0")
    time.sleep(0.3)
    p3_e5 = lab.rec_b.seqs(3)
    ck.ok(not p3_e5, "p3 stayed paused: e[3]=0 leaves its timer alone (%d "
          "p3 frames arrived)" % len(p3_e5))
    t_xon = time.time()
    lab.xon_b(0x08)
    lab.log("B sends XON for priority 3")
    lab.settle(lab.rec_b, 3, n, 3.0)
    time.sleep(0.3)
    check_seqs(ck, lab.rec_b.seqs(3), list(range(n)), "p3 at B after XON")
    arr = lab.rec_b.arrivals(3)
    if arr:
        lab.log("p3 released %.1f ms after XON, last after %.1f ms"
                % ((arr[0][0] - t_xon) * 1e3, (arr[-1][0] - t_xon) * 1e3))
    pcps = {x[3] for x in lab.rec_b.snapshot()["data"] if x[1] == 3}
    ck.ok(pcps == {3}, "p3 frames kept PCP 3 (saw %s)" % pcps)
    return lab.finish()


def sc_timer(args):
    """Timer expiry: B pauses p3 for Q quanta and never resumes it; the held
    frames must leave on their own, not before Q quanta have elapsed."""
    lab = Lab(args, "timer")
    ck, n = lab.ck, args.count
    q = args.quanta
    pause_s = quanta_to_s(q, lab.speed_b)
    lab.log("B pauses p3 for %d quanta = %.1f ms at %s; no XON follows"
            % (q, pause_s * 1e3, args.speed_b))
    frame = pfc_frame(0x08, q, src=MAC_B)
    if args.first_quanta:
        # A longer pause first: the second frame must replace the timer
        # (seed 000 4.4), so the pause ends Q quanta after the second.
        lab.log("B first pauses p3 for %d quanta, then 10 ms later for %d"
                % (args.first_quanta, q))
        lab.b.send(pfc_frame(0x08, args.first_quanta, src=MAC_B))
        time.sleep(0.01)
    t0 = time.time()
    lab.b.send(frame)
    time.sleep(min(0.01, pause_s / 10))
    t_send = time.time()
    lab.stream_a([(0, 0, True), (3, 3, True)], n, 0)
    t_sent = time.time()
    lab.log("A sent %d p0 and %d p3 frames in %.1f ms, %.1f ms after the "
            "pause frame" % (n, n, (t_sent - t_send) * 1e3,
                             (t_send - t0) * 1e3))
    lab.settle(lab.rec_b, 3, n, pause_s + args.slack + 1.0)
    time.sleep(0.2)
    check_seqs(ck, lab.rec_b.seqs(0), list(range(n)), "p0 at B")
    p0 = lab.rec_b.arrivals(0)
    if p0:
        ck.ok(p0[-1][0] < t0 + pause_s,
              "p0 all arrived during the p3 pause (last %.1f ms after the "
              "pause frame)" % ((p0[-1][0] - t0) * 1e3))
    check_seqs(ck, lab.rec_b.seqs(3), list(range(n)), "p3 at B, released "
               "by timer expiry")
    p3 = lab.rec_b.arrivals(3)
    if p3:
        first, last = (p3[0][0] - t0), (p3[-1][0] - t0)
        ck.facts.update(first_p3_s=first, last_p3_s=last, pause_s=pause_s)
        # The pause starts when the switch receives the frame, after t0, so
        # nothing may leave before t0 + pause_s.  The only tolerance is for
        # the switch's clock rate (its TSC frequency estimate): 0.5%.
        lower = pause_s * (1 - args.tolerance)
        ck.ok(first >= lower,
              "first p3 left %.2f ms after the pause frame, not before the "
              "requested %.2f ms (bound %.2f ms)"
              % (first * 1e3, pause_s * 1e3, lower * 1e3))
        ck.ok(last <= pause_s + args.slack,
              "last p3 left %.2f ms after the pause frame, within %.0f ms "
              "of the pause's end" % (last * 1e3, args.slack * 1e3))
    return lab.finish()


def _xoff_check_first(ck, args, first, times):
    """Checks that the switch's first XOFF to A ('first') came after the
    frame that made A's charge reach xoff-threshold (args.xoff_a octets of
    args.size frames), and promptly; 'times' has when A sent each frame
    of each priority."""
    # Port A's charge for p3 is the bytes of p3 frames from A that the
    # switch holds (all of them, B pauses p3).  XOFF may not come before
    # the frame that makes the charge reach xoff-threshold has been sent
    # (causality), and should follow it promptly.
    p = [k for k in range(8) if first["enable"] & (1 << k)][0]
    k = -(-args.xoff_a // args.size)        # frames to reach it
    sent_t = times.get(p, [])
    before = sum(1 for t in sent_t if t < first["t"])
    ck.ok(before >= k, "first XOFF came after A had sent %d p%d frames "
          "of %d octets; the threshold %d needs %d"
          % (before, p, args.size, args.xoff_a, k))
    if len(sent_t) >= k:
        late = first["t"] - sent_t[k - 1]
        ck.ok(late < 0.05, "first XOFF %.1f ms after the frame that "
              "crossed xoff-threshold was sent" % (late * 1e3))


def sc_xoff(args):
    """XOFF generation: B pauses p3 and p5 at the switch's port B; A floods
    both; port A (pfc-enable 3 only) must send XOFF for p3, never naming
    another priority, refresh it while the charge stays high, and XON once
    B resumes and the held frames drain."""
    lab = Lab(args, "xoff")
    ck, n = lab.ck, args.count
    enabled_a = parse_prios(args.enabled_a)
    hold = parse_prios(args.hold)
    pause_s = quanta_to_s(65535, lab.speed_b)
    stop = threading.Event()
    refresher = threading.Thread(
        target=send_pfc_refreshed,
        args=(lab.b, pfc_frame(hold, 65535, src=MAC_B),
              min(pause_s / 3, 0.5), stop), daemon=True)
    refresher.start()
    time.sleep(0.05)
    streams = [(p, p, True) for p in range(8) if hold & (1 << p)]
    streams.append((0, 0, True))
    lab.log("B pauses priorities %s; A sends %d frames per stream %s"
            % (mask_str(hold), n, [s[0] for s in streams]))
    t_start = time.time()
    times = {}
    lab.stream_a(streams, n, args.rate, times=times)
    time.sleep(0.5)
    check_seqs(ck, lab.rec_b.seqs(0), list(range(n)), "p0 at B during pause")
    for p in range(8):
        if hold & (1 << p):
            got = lab.rec_b.seqs(p)
            ck.ok(not got, "no p%d frame reached B while paused (%d did)"
                  % (p, len(got)))
    pfc_a = [m for m in lab.rec_a.snapshot()["macc"] if is_pfc(m)]
    xoffs = [m for m in pfc_a if m["enable"] & enabled_a
             and any(m["times"][k] for k in range(8)
                     if m["enable"] & (1 << k))]
    ck.ok(bool(xoffs), "switch sent XOFF to A while holding (%d PFC frames "
          "so far)" % len(pfc_a))
    if xoffs:
        lab.log("first XOFF at A %.1f ms after A began: %s"
                % ((xoffs[0]["t"] - t_start) * 1e3, fmt_pfc(xoffs[0])))
    if xoffs and args.xoff_a:
        _xoff_check_first(ck, args, xoffs[0], times)
    stop.set()
    refresher.join()
    t_xon = time.time()
    lab.xon_b(hold)
    lab.log("B sends XON for %s" % mask_str(hold))
    for p in range(8):
        if hold & (1 << p):
            lab.settle(lab.rec_b, p, n, 3.0)
    time.sleep(max(0.5, 2 * quanta_to_s(args.quanta_a, lab.speed_a)))
    for p in range(8):
        if hold & (1 << p):
            check_seqs(ck, lab.rec_b.seqs(p), list(range(n)),
                       "p%d at B after XON" % p)
    pfc_a = [m for m in lab.rec_a.snapshot()["macc"] if is_pfc(m)]
    non_pfc = [m for m in lab.rec_a.snapshot()["macc"] if not is_pfc(m)]
    ck.ok(not non_pfc, "only PFC MAC Control frames reached A (%d others)"
          % len(non_pfc))
    bad = [m for m in pfc_a if m["enable"] & ~enabled_a & 0xFF
           or m["vector"] >> 8]
    ck.ok(not bad, "no PFC frame from the switch named a priority outside "
          "pfc-enable %s (%d did%s)" % (mask_str(enabled_a), len(bad),
                                        (": " + fmt_pfc(bad[0])) if bad
                                        else ""))
    ck.ok(all(m["src"] != MAC_B for m in pfc_a),
          "none of them was B's own frame forwarded")
    ck.ok(all(m["dst"] == PFC_DA and m["len"] >= 60 for m in pfc_a),
          "all sent to 01:80:c2:00:00:01, padded to 60 octets")
    p3 = 3 if enabled_a & 0x08 else (enabled_a & -enabled_a).bit_length() - 1
    ev = [(m["t"], m["times"][p3]) for m in pfc_a
          if m["enable"] & (1 << p3)]
    xoff_t = [t for t, q in ev if q]
    xon_t = [t for t, q in ev if not q]
    ck.ok(bool(xoff_t) and all(q == args.quanta_a for _, q in ev if q),
          "XOFF frames carry time[%d] = pause-quanta %d (%d XOFF)"
          % (p3, args.quanta_a, len(xoff_t)))
    ck.ok(bool(xon_t), "switch sent XON (time[%d] = 0) to A (%d)"
          % (p3, len(xon_t)))
    if xoff_t and xon_t:
        ck.ok(ev[-1][1] == 0, "the last PFC frame for p%d is an XON" % p3)
        ck.ok(xon_t[-1] >= t_xon, "the XON followed B's XON")
        held = [t for t in xoff_t if t < t_xon]
        gaps = [b - a for a, b in zip(held, held[1:])]
        pa = quanta_to_s(args.quanta_a, lab.speed_a)
        if gaps:
            gaps.sort()
            lab.log("XOFF refresh gaps: median %.2f ms, max %.2f ms "
                    "(pause %.2f ms)" % (gaps[len(gaps) // 2] * 1e3,
                                         gaps[-1] * 1e3, pa * 1e3))
            ck.ok(gaps[-1] < pa, "XOFF refreshed before A's pause could "
                  "expire (max gap %.2f ms < %.2f ms)"
                  % (gaps[-1] * 1e3, pa * 1e3))
        ck.facts["xoff_gap_max_s"] = gaps[-1] if gaps else None
    ck.facts.update(pfc_frames_at_a=len(pfc_a), xoff_at_a=len(xoff_t),
                    xon_at_a=len(xon_t))
    return lab.finish()


def fmt_pfc(m):
    return ("PFC e=0x%02x time=[%s]" % (m["enable"], ",".join(
        str(m["times"][k]) if m["enable"] & (1 << k) else "-"
        for k in range(8))))


def sc_lossless(args):
    """Lossless end to end: A honours the switch's PFC frames, B pauses and
    resumes the switch a few times; every p3 frame must arrive once and in
    order, and A must actually have been paused."""
    lab = Lab(args, "lossless")
    ck = lab.ck
    stop = threading.Event()
    sent = {}

    def sender():
        sent.update(lab.stream_a([(3, 3, True)], None, args.rate,
                                 pause=lab.pause_a, stop=stop))

    pause_b = quanta_to_s(65535, lab.speed_b)
    refresh = min(pause_b / 3, 0.1)
    episodes = []
    th = threading.Thread(target=sender, daemon=True)
    th.start()
    time.sleep(0.2)
    for i in range(args.cycles):
        t_on = time.time()
        lab.b.send(pfc_frame(0x08, 65535, src=MAC_B))
        while time.time() < t_on + args.pause_ms / 1e3:
            time.sleep(min(refresh, t_on + args.pause_ms / 1e3 - time.time()
                           if t_on + args.pause_ms / 1e3 > time.time()
                           else 0))
            if time.time() < t_on + args.pause_ms / 1e3:
                lab.b.send(pfc_frame(0x08, 65535, src=MAC_B))
        t_off = time.time()
        lab.b.send(pfc_frame(0x08, 0, src=MAC_B))
        episodes.append((t_on, t_off))
        time.sleep(args.resume_ms / 1e3)
    stop.set()
    th.join()
    n = sent.get(3, 0)
    lab.log("A sent %d p3 frames at up to %d/s while B paused the switch "
            "%d times for %d ms" % (n, args.rate, args.cycles, args.pause_ms))
    lab.settle(lab.rec_b, 3, n, 5.0)
    time.sleep(0.3)
    check_seqs(ck, lab.rec_b.seqs(3), list(range(n)), "p3 at B")
    ck.ok(n >= args.rate * args.cycles * args.resume_ms / 1e3 / 4,
          "A actually sent traffic (%d frames)" % n)
    xoff = lab.pause_a.xoff_rx[3]
    ck.ok(xoff > 0, "A was paused by the switch (%d XOFF, %d XON received)"
          % (xoff, lab.pause_a.xon_rx[3]))
    ck.ok(lab.pause_a.ignored == 0, "none of B's PFC frames reached A (%d "
          "did)" % lab.pause_a.ignored)
    leaked = 0
    arr = lab.rec_b.arrivals(3)
    for t_on, t_off in episodes:
        # Frames already past the switch when the pause arrived may still
        # land just after it: allow 20 ms.
        leaked += sum(1 for t, _ in arr if t_on + 0.02 <= t < t_off)
    ck.ok(leaked == 0, "no p3 frame reached B during B's pauses (%d did)"
          % leaked)
    ck.facts.update(sent_p3=n, xoff_rx_at_a=xoff,
                    xon_rx_at_a=lab.pause_a.xon_rx[3])
    return lab.finish()


def flow_report(seqs, n):
    """(reorders, missing, duplicates) of 'seqs' against 0..n-1.  A reorder
    is a frame whose seq is not above every seq before it."""
    reorders, top = 0, -1
    for x in seqs:
        if x <= top:
            reorders += 1
        top = max(top, x)
    got = set(seqs)
    missing = sum(1 for x in range(n) if x not in got)
    return reorders, missing, len(seqs) - len(got)


def _multiflow_report(lab, flows, lossy, sent, sports):
    """What B received of each flow of 'flows' (priority 3) and of the
    lossy flow 'lossy' (priority 0), against 'sent': logs each, and
    returns the per-flow figures and the totals of frames reordered,
    priority-3 frames missing and duplicates."""
    per_flow = {}
    tot_reorders = tot_missing_p3 = tot_dups = 0
    for f in flows + [lossy]:
        seqs = lab.rec_b.seqs(f)
        r, m, d = flow_report(seqs, sent[f])
        per_flow[f] = {"sent": sent[f], "got": len(seqs), "reorders": r,
                       "missing": m, "duplicates": d}
        lab.log("flow %3d (p%d, UDP sport %d): sent %d, got %d, %d "
                "reordered, %d missing, %d duplicates"
                % (f, 0 if f == lossy else 3, sports[f], sent[f], len(seqs),
                   r, m, d))
        tot_reorders += r
        tot_dups += d
        if f != lossy:
            tot_missing_p3 += m
            if r or m or d:
                lab.log("flow %d: first differences: %s"
                        % (f, seq_report(seqs, list(range(sent[f])))))
    return per_flow, tot_reorders, tot_missing_p3, tot_dups


def sc_multiflow(args):
    """Many flows through a switch with several PMD threads and rx queues.
    A sends --flows lossless flows of priority 3 and one lossy flow of
    priority 0 (stream 100), each IPv4/UDP from its own source port so that
    the ingress port's rx queues (a kernel flow hash) spread them, each frame
    numbered per flow; A honours the switch's PFC frames.  Meanwhile B
    pauses the switch's port B --cycles times: a cycle in --expire-every
    ends by expiry of a single PFC frame of --pause-ms, the others by XON
    after a refreshed 65535-quanta pause; every --long-every-th cycle lasts
    --long-pause-ms.  At B, per flow: no reordering; for priority 3 none
    missing, none twice.  Facts: what was sent and counted, for the caller
    to compare with the switch's counters."""
    lab = Lab(args, "multiflow")
    ck = lab.ck
    stop = threading.Event()
    sent = {}
    lossy = 100
    flows = list(range(1, args.flows + 1))
    streams = [(f, 3, True) for f in flows] + [(lossy, 0, True)]
    sports = {f: 10000 + f for f in flows}
    sports[lossy] = 10000 + lossy

    def sender():
        sent.update(send_streams(lab.a, streams, None, args.rate, src=MAC_A,
                                 dst=MAC_B, run=lab.run_id,
                                 size=args.size, pause=lab.pause_a,
                                 stop=stop, udp_sports=sports))

    # Warm the UDP builders up before timing anything.
    DataStream(1, 3, MAC_A, MAC_B, udp_sport=1)
    speed_b = lab.speed_b
    n_pfc = {"xoff": 0, "xon": 0}
    kinds = {"xon": 0, "expiry": 0}

    def b_send(quanta):
        lab.b.send(pfc_frame(0x08, quanta, src=MAC_B))
        n_pfc["xon" if quanta == 0 else "xoff"] += 1

    th = threading.Thread(target=sender, daemon=True)
    th.start()
    time.sleep(0.3)
    for i in range(args.cycles):
        long_ = args.long_every and (i + 1) % args.long_every == 0
        ms = args.long_pause_ms if long_ else args.pause_ms
        if args.expire_every and (i + 1) % args.expire_every == 0:
            # One frame whose pause runs out on its own.
            quanta = min(65535, max(1, int(ms / 1e3 * speed_b
                                           / QUANTUM_BITS)))
            b_send(quanta)
            time.sleep(quanta_to_s(quanta, speed_b))
            kinds["expiry"] += 1
        else:
            t_end = time.time() + ms / 1e3
            b_send(65535)
            while time.time() < t_end:
                time.sleep(max(0.0, min(0.1, t_end - time.time())))
                if time.time() < t_end:
                    b_send(65535)
            b_send(0)
            kinds["xon"] += 1
        time.sleep(args.resume_ms / 1e3)
    stop.set()
    th.join()
    # Nothing may stay paused: a last XON, then wait for everything.
    b_send(0)
    total = sum(sent.values())
    lab.log("A sent %d frames: %d per flow, %d p3 flows and 1 p0 flow, at "
            "up to %d/s in all; B paused p3 %d times (%d ended by XON, %d "
            "by expiry), sending %d XOFF and %d XON"
            % (total, sent.get(1, 0), len(flows), args.rate, args.cycles,
               kinds["xon"], kinds["expiry"], n_pfc["xoff"], n_pfc["xon"]))
    deadline = time.time() + 15
    while time.time() < deadline:
        if all(len(lab.rec_b.seqs(f)) >= sent[f] for f in flows):
            break
        time.sleep(0.05)
    time.sleep(0.5)
    per_flow, tot_reorders, tot_missing_p3, tot_dups = _multiflow_report(
        lab, flows, lossy, sent, sports)
    ck.ok(min(sent[f] for f in flows) >= 50, "A sent at least 50 frames "
          "of each flow (%d to %d)" % (min(sent.values()),
                                       max(sent.values())))
    ck.ok(tot_reorders == 0, "no flow reordered at B (%d frames out of "
          "order in all)" % tot_reorders)
    ck.ok(tot_missing_p3 == 0, "no p3 frame lost (%d missing in all)"
          % tot_missing_p3)
    ck.ok(tot_dups == 0, "no frame twice (%d duplicates)" % tot_dups)
    ck.ok(lab.pause_a.ignored == 0, "none of B's PFC frames reached A (%d "
          "did)" % lab.pause_a.ignored)
    ck.facts.update(
        flows=len(flows), per_flow_sent=sent.get(1, 0), sent_total=total,
        cycles=args.cycles, cycles_xon=kinds["xon"],
        cycles_expiry=kinds["expiry"], b_xoff=n_pfc["xoff"],
        b_xon=n_pfc["xon"], b_pfc=n_pfc["xoff"] + n_pfc["xon"],
        xoff_rx_at_a=lab.pause_a.xoff_rx[3], xon_rx_at_a=lab.pause_a.xon_rx[3],
        pfc_rx_at_a=lab.pause_a.xoff_rx[3] + lab.pause_a.xon_rx[3],
        reorders=tot_reorders, missing_p3=tot_missing_p3,
        lossy_got=per_flow[lossy]["got"], lossy_sent=sent[lossy],
        per_flow={str(k): v for k, v in per_flow.items()})
    return lab.finish()


def parse_sender(spec):
    """'NAME=[NETNS:]IFACE[@MAC]' -> (NAME, '[NETNS:]IFACE', MAC).  MAC
    defaults to the host's of HOST_MACS (A, C, D, E)."""
    name, eq, rest = spec.partition("=")
    port, at, mac = rest.partition("@")
    if not eq or not name or not port:
        raise argparse.ArgumentTypeError(
            "sender %r: expected NAME=[NETNS:]IFACE[@MAC]" % spec)
    if not at:
        mac = HOST_MACS.get(name.upper())
        if mac is None:
            raise argparse.ArgumentTypeError(
                "sender %r: no known MAC for host %s, give NAME=PORT@MAC"
                % (spec, name))
    mac = mac.lower()
    if len(mac.split(":")) != 6:
        raise argparse.ArgumentTypeError("sender %r: bad MAC %r"
                                         % (spec, mac))
    return name, port, mac


def paused_time(frames, prio, speed):
    """Seconds for which the PFC frames 'frames' (records of a Recorder,
    in arrival order) kept priority 'prio' paused at link speed 'speed': from
    each XOFF to the end of its pause time, or to the XON (pause time 0) or
    the next XOFF that ends it earlier."""
    total, start, end = 0.0, None, None
    for m in sorted(frames, key=lambda x: x["t"]):
        if not m["enable"] >> prio & 1:
            continue
        t = m["t"]
        if start is not None and t >= end:
            total += end - start
            start = None
        if m["times"][prio]:
            start = t if start is None else start
            end = t + quanta_to_s(m["times"][prio], speed)
        elif start is not None:
            total += t - start
            start = None
    if start is not None:
        total += end - start
    return total


def _incast_sender(cfg, go, stop, results):
    """One sender of sc_incast, in a process of its own.  Opens its port,
    honours the PFC frames that arrive there (a Recorder feeding a
    PauseState), and, from 'go' until 'stop', sends its priority-3 and
    priority-0 streams to B, each from a thread of its own so that a paused
    priority stops only itself, as in a NIC.  Puts ("ready", name, None),
    then ("done", name, figures) or ("error", name, traceback) on
    'results'."""
    name = cfg["name"]
    # Dies with the scenario (a test's cleanup stops the scenario by PID,
    # and timeout(1) --foreground stops no grandchild).
    try:
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != cfg["ppid"]:
        os._exit(1)
    try:
        port = Port(cfg["port"])
        pause = PauseState(cfg["speed"], ignore_src=MAC_B)
        rec = Recorder(port, pause.on_frame)
        rec.start()
        # --frames: tagged by priority, or untagged IPv4 or IPv6 whose
        # DSCP names the priority (AF31, 26, for p3; 0 for p0).
        frames = cfg["frames"]
        tagged = frames == "tagged"
        streams = [(cfg["p3"], 3, tagged), (cfg["p0"], 0, tagged)]
        ips = ({} if tagged else
               {cfg["p3"]: (frames[-1], 26), cfg["p0"]: (frames[-1], 0)})
        if frames == "vxlan4":
            ips = {cfg["p3"]: ("vxlan", 26, cfg["outer_dst"]),
                   cfg["p0"]: ("vxlan", 0, cfg["outer_dst"])}
        for sid, prio, tg in streams:           # Warm the builders up.
            x = ips.get(sid, (None, 0, None)) + (None,)
            DataStream(sid, prio, cfg["mac"], MAC_B, tg, size=cfg["size"],
                       ip=x[0], dscp=x[1], outer_dst=x[2])
        results.put(("ready", name, None))
        if not go.wait(cfg["timeout"]):
            raise RuntimeError("never told to start")
        halt = threading.Event()
        sent = {}
        t_go = time.time()
        times = {}              # Stream: the send time of each seq.

        def one(stream):
            sent.update(send_streams(port, [stream], None, cfg["rate"],
                                     size=cfg["size"], src=cfg["mac"],
                                     dst=MAC_B, run=cfg["run"], pause=pause,
                                     stop=halt, ips=ips, times=times))

        ths = [threading.Thread(target=one, args=(st,), daemon=True)
               for st in streams]
        if not stop.is_set():
            for th in ths:
                th.start()
        while not stop.wait(0.1):
            if time.time() > t_go + cfg["timeout"]:
                break
        halt.set()
        stuck = []
        for th, st in zip(ths, streams):
            if th.ident is not None:
                # A thread paused by the switch ends once the pause does:
                # at the switch's XON, or after 65535 quanta at most.
                th.join(max(2.0, 3 * quanta_to_s(65535, cfg["speed"])))
                if th.is_alive():
                    stuck.append(st[0])
        # The switch's XON after B's last XON may still be on its way.
        time.sleep(0.3)
        rec.stop()
        snap = rec.snapshot()
        pfc = [m for m in snap["macc"] if is_pfc(m)]
        from_switch = [m for m in pfc if m["src"] != MAC_B]
        xoff_t = [m["t"] for m in from_switch
                  if m["enable"] & 0x08 and m["times"][3]]
        with pause.lock:
            xoff_rx, xon_rx = list(pause.xoff_rx), list(pause.xon_rx)
        paused = paused_time(from_switch, 3, cfg["speed"])
        results.put(("done", name, {
            "paused_s": paused,
            "sent": {str(k): v for k, v in sent.items()},
            "stuck": stuck,
            "xoff_rx": xoff_rx, "xon_rx": xon_rx,
            "ignored": pause.ignored,
            "pfc_rx": len(from_switch),
            "non_p3": sum(1 for m in from_switch if m["enable"] & ~0x08),
            "other_macc": len(snap["macc"]) - len(pfc),
            "data_rx": len(snap["data"]),
            "first_xoff_s": (xoff_t[0] - t_go) if xoff_t else None,
            "recorder_error": str(rec.error) if rec.error else None,
            "p3_times": times.get(cfg["p3"], []),
        }))
    except Exception:
        results.put(("error", name, traceback.format_exc()))


def sc_incast(args):
    """Incast: several PFC-honouring senders into one paused egress.  Host
    A (--a) and each --sender NAME=[NETNS:]IFACE[@MAC], the i-th of them
    counting A as the first, send B two numbered streams, priority 3
    (stream 10*i+3) and priority 0 (stream 10*i), each at --rate frames/s,
    and honour the PFC frames that their switch port (link-speed --speed-a)
    sends them, as a NIC would: a paused priority stops, resumes in order,
    and leaves the other alone.  Each sender is a process of its own, so
    that the senders share no GIL with each other nor with B; B's receiver
    and pauser run in this process.  Meanwhile B pauses --pause-prios
    (priority 3 by default) at the switch's port B --cycles times: XOFF of 65535 quanta (at --speed-b),
    refreshed every 100 ms or a third of its time if shorter, for
    --pause-ms, ended by XON, then --resume-ms of flow.  Checks at B, per
    sender: p3 none lost, none reordered, none twice; p0 none lost.  At
    each sender: the switch sent it at least one XOFF for p3, and none of
    B's PFC frames reached it.  Facts: per sender what was sent, got and
    received, for the caller to compare with the switch's counters."""
    ck = Checker("incast")
    senders = [("A", args.a, MAC_A)] + list(args.sender or [])
    names = [x[0] for x in senders]
    if len(set(names)) != len(names) or len(senders) > 25:
        ck.ok(False, "senders have distinct names, at most 25: %s" % names)
        return ck.finish(args.facts)
    speed_s = parse_speed(args.speed_a)
    speed_b = parse_speed(args.speed_b)
    rate = args.rate
    run_id = os.getpid() & 0xFFFF
    total_s = args.cycles * (args.pause_ms + args.resume_ms) / 1e3
    # Scapy is loaded (its first use takes ~0.2 s) before the fork, so
    # that each sender inherits it; no thread runs in this process yet.
    pfc_frame(0x08, 0)
    DataStream(0, 0, MAC_A, MAC_B)
    ctx = multiprocessing.get_context("fork")
    go, stop = ctx.Event(), ctx.Event()
    results = ctx.Queue()
    procs, cfgs = {}, {}
    for i, (name, port, mac) in enumerate(senders, 1):
        cfgs[name] = dict(name=name, port=port, mac=mac, p3=10 * i + 3,
                          p0=10 * i, rate=rate, size=args.size,
                          speed=speed_s, run=run_id, ppid=os.getpid(),
                          timeout=total_s + 60, frames=args.frames,
                          outer_dst=args.outer_dst)
    for name in names:
        procs[name] = ctx.Process(target=_incast_sender, name="incast-"
                                  + name, daemon=True,
                                  args=(cfgs[name], go, stop, results))
        procs[name].start()
    try:
        return _sc_incast(args, ck, senders, cfgs, procs, go, stop,
                          results, speed_b, total_s)
    finally:
        stop.set()
        go.set()
        for p in procs.values():
            p.join(5)
            if p.is_alive():
                p.kill()
                p.join(1)


def _incast_collect(results, procs, kind, timeout):
    """Waits up to 'timeout' s for a ("kind", name, x) message from every
    sender in 'procs'; returns ({name: x}, {name: error})."""
    got, errors = {}, {}
    deadline = time.time() + timeout
    while len(got) + len(errors) < len(procs):
        left = deadline - time.time()
        if left <= 0:
            break
        try:
            k, name, x = results.get(timeout=min(left, 0.5))
        except queue.Empty:
            for name, p in procs.items():
                if name not in got and name not in errors \
                   and not p.is_alive():
                    errors[name] = "process ended, status %s" % p.exitcode
            continue
        if k == "error":
            errors[name] = x
        elif k == kind:
            got[name] = x
    for name in procs:
        if name not in got and name not in errors:
            errors[name] = "no %r report within %.0f s" % (kind, timeout)
    return got, errors


def _incast_pauses(args, b, mask, pause_s, refresh):
    """B pauses the priorities of 'mask' args.cycles times, for
    args.pause_ms each, its XOFF refreshed every 'refresh' s, then XON
    and args.resume_ms of rest.  Returns the pauses as (start, end)
    times, whether each had a refresh that came too late, the count of
    XOFF and XON sent, and the longest gap between refreshes."""
    n_pfc = {"xoff": 0, "xon": 0}
    xoff = pfc_frame(mask, 65535, src=MAC_B)
    xon = pfc_frame(mask, 0, src=MAC_B)
    episodes = []
    max_gap = 0.0
    late_refresh = []
    for _ in range(args.cycles):
        # The pause starts once the XOFF is sent: the time is taken after
        # the send, so that this process being descheduled in between
        # cannot count frames that arrived before it as inside the pause.
        b.send(xoff)
        t_on = time.time()
        t_end = t_on + args.pause_ms / 1e3
        n_pfc["xoff"] += 1
        last = t_on
        gap = 0.0
        while True:
            now = time.time()
            if now >= t_end:
                break
            if now - last >= refresh:
                b.send(xoff)
                n_pfc["xoff"] += 1
                gap = max(gap, now - last)
                last = now
            else:
                time.sleep(min(last + refresh, t_end) - now)
        # And it ends once the XON may have been sent: the time is taken
        # before the send, so that this process being descheduled in
        # between cannot count the frames that the XON released as inside
        # the pause.
        t_off = time.time()
        b.send(xon)
        n_pfc["xon"] += 1
        gap = max(gap, time.time() - last)
        max_gap = max(max_gap, gap)
        late_refresh.append(gap >= pause_s)
        episodes.append((t_on, t_off))
        time.sleep(args.resume_ms / 1e3)
    return episodes, late_refresh, n_pfc, max_gap


def _incast_leaks(ck, data, p3_ids, p3_times, episodes, late_refresh):
    """From what B received ('data'), the p3 frames that reached it in
    each pause of 'episodes' and just after: returns the bursts after each
    XON, the frames sent into a pause, those of lapsed pauses, those
    from the transmit ring, and the release delays.  'p3_times' maps
    each p3 stream to when its sender sent each frame."""
    # How many p3 frames B got in the first 20 ms after each XON: the
    # frames held at dpdk-b, at most queue-size plus what went to headroom
    # (and a few sent after the switch resumed its senders).
    p3_t = sorted(x[0] for x in data if x[1] in p3_ids)
    # When each sender sent each p3 frame: a frame that left the switch
    # inside a pause may have been in the switch's transmit ring before
    # the pause began (as in a NIC's ring, which the response time of
    # pfc/show covers), unless its sender sent it after the pause began.
    p3_sent = sorted((x[0], p3_times.get(x[1], [])[x[4]]
                      if x[4] < len(p3_times.get(x[1], [])) else None)
                     for x in data if x[1] in p3_ids)
    bursts, leaked, leaked_late, leaked_ring, release = [], 0, 0, 0, []
    for (t_on, t_off), late in zip(episodes, late_refresh):
        bursts.append(sum(1 for t in p3_t if t_off <= t < t_off + 0.02))
        inside = [ts for t, ts in p3_sent if t_on + 0.02 <= t < t_off]
        if late:
            # B's own refresh came after the pause ran out: the switch
            # rightly resumed; not counted against it.
            leaked_late += len(inside)
            continue
        # Sent by their sender 20 ms or more into the pause: the switch
        # read the XOFF before it received them, and had to hold them.
        n = sum(1 for ts in inside if ts is None or ts >= t_on + 0.02)
        leaked += n
        leaked_ring += len(inside) - n
        # From B's XON to the first p3 frame after it, held at the switch
        # during the pause: how late the pause ended, seen from B.
        after = [t for t in p3_t if t >= t_off]
        release.append(round((after[0] - t_off) * 1e3, 3) if after
                       else None)
    if bursts:
        sb = sorted(bursts)
        ck.log("p3 frames at B in the 20 ms after each XON: median %d, "
               "min %d, max %d; during pauses: %d sent into them (and %d "
               "that the switch had received before the pause, from its "
               "transmit ring; %d in %d pauses that B let run out)"
               % (sb[len(sb) // 2], sb[0], sb[-1], leaked, leaked_ring,
                  leaked_late, sum(late_refresh)))
        rl = sorted(x for x in release if x is not None)
        if rl:
            ck.log("from B's XON to the first p3 frame after it: median "
                   "%.1f ms, max %.1f ms" % (rl[len(rl) // 2], rl[-1]))
    return bursts, leaked, leaked_late, leaked_ring, release


def _incast_check_sender(ck, name, cfg, r, error, want, seqs, min_sent,
                         facts):
    """Checks what sender 'name' (config 'cfg') reported in 'r' (None,
    with 'error', if it did not) against what B received of its
    streams ('seqs', 'want' sent), and adds its figures to 'facts'."""
    if r is None:
        err = (error or "no report").strip().splitlines()
        ck.ok(False, "sender %s reported its figures (%s)"
              % (name, err[-1] if err else "no report"))
        return
    s3, s0 = want[cfg["p3"]], want[cfg["p0"]]
    g3, g0 = seqs.get(cfg["p3"], []), seqs.get(cfg["p0"], [])
    r3, m3, d3 = flow_report(g3, s3)
    r0, m0, d0 = flow_report(g0, s0)
    x3, n3 = r["xoff_rx"][3], r["xon_rx"][3]
    ck.log("sender %s (%s, %s): p3 stream %d sent %d, got %d: %d lost, "
           "%d reordered, %d twice; p0 stream %d sent %d, got %d: %d "
           "lost, %d reordered, %d twice; from the switch: %d XOFF and "
           "%d XON for p3 (%d PFC frames, first XOFF %s); B's PFC "
           "frames: %d"
           % (name, cfg["port"], cfg["mac"], cfg["p3"], s3, len(g3), m3,
              r3, d3, cfg["p0"], s0, len(g0), m0, r0, d0, x3, n3,
              r["pfc_rx"], "%.2f s in" % r["first_xoff_s"]
              if r["first_xoff_s"] is not None else "never",
              r["ignored"]))
    if m3 or r3 or d3:
        ck.log("sender %s p3: %s" % (name, seq_report(g3,
                                                      list(range(s3)))))
    if m0:
        ck.log("sender %s p0: %s" % (name, seq_report(g0,
                                                      list(range(s0)))))
    if r["non_p3"] or r["other_macc"] or r["data_rx"]:
        ck.log("sender %s also got %d PFC frames naming another "
               "priority, %d other MAC Control frames, %d data frames"
               % (name, r["non_p3"], r["other_macc"], r["data_rx"]))
    ck.ok(not r["stuck"] and r["recorder_error"] is None,
          "sender %s: its streams stopped when told, its receiver ran "
          "throughout (stuck %s, %s)" % (name, r["stuck"],
                                        r["recorder_error"] or "ok"))
    ck.ok(s3 >= min_sent and s0 >= min_sent,
          "sender %s sent traffic: %d p3, %d p0 frames (at least %d)"
          % (name, s3, s0, min_sent))
    ck.ok(m3 == 0, "sender %s p3: none lost (%d of %d missing at B)"
          % (name, m3, s3))
    ck.ok(r3 == 0, "sender %s p3: none reordered (%d out of order)"
          % (name, r3))
    ck.ok(d3 == 0, "sender %s p3: none twice (%d duplicates)"
          % (name, d3))
    ck.ok(m0 == 0, "sender %s p0: none lost (%d of %d missing at B)"
          % (name, m0, s0))
    ck.ok(x3 >= 1, "sender %s was paused: the switch sent it %d XOFF "
          "for p3" % (name, x3))
    ck.ok(r["ignored"] == 0, "none of B's PFC frames reached sender %s "
          "(%d did)" % (name, r["ignored"]))
    facts["per_sender"][name] = dict(
        port=cfg["port"], mac=cfg["mac"], p3_stream=cfg["p3"],
        p0_stream=cfg["p0"], p3_sent=s3, p3_got=len(g3), p3_missing=m3,
        p3_reorders=r3, p3_dups=d3, p0_sent=s0, p0_got=len(g0),
        p0_missing=m0, p0_reorders=r0, p0_dups=d0, xoff_rx=x3,
        xon_rx=n3, pfc_rx=r["pfc_rx"], b_pfc_rx=r["ignored"],
        first_xoff_s=r["first_xoff_s"], paused_s=r["paused_s"])
    # Flat, for the shell: fact xoff_rx_at_C.
    facts["xoff_rx_at_" + name] = x3
    facts["xon_rx_at_" + name] = n3
    facts["pfc_rx_at_" + name] = r["pfc_rx"]
    facts["p3_sent_" + name] = s3
    facts["p0_sent_" + name] = s0
    facts["paused_s_at_" + name] = round(r["paused_s"], 4)


def _wait_arrived(rec, want, timeout):
    """Waits up to 'timeout' s for Recorder 'rec' to have at least
    want[stream] frames of each stream, then 0.5 s more for stragglers."""
    def arrived():
        with rec.lock:
            c = {}
            for x in rec.data:
                c[x[1]] = c.get(x[1], 0) + 1
            return c

    deadline = time.time() + timeout
    while time.time() < deadline:
        c = arrived()
        if all(c.get(sid, 0) >= n for sid, n in want.items()):
            break
        time.sleep(0.1)
    time.sleep(0.5)


def _sc_incast(args, ck, senders, cfgs, procs, go, stop, results, speed_b,
               total_s):
    names = [x[0] for x in senders]
    rate = args.rate
    _, errors = _incast_collect(results, procs, "ready", 30)
    for name, err in errors.items():
        ck.log("sender %s: %s" % (name, err))
    if not ck.ok(not errors, "all %d senders (%s) ready" % (
            len(senders), ", ".join(names))):
        return ck.finish(args.facts)
    b = Port(args.b)
    rec_b = Recorder(b)
    rec_b.start()
    pause_s = quanta_to_s(65535, speed_b)
    refresh = min(0.1, pause_s / 3)
    mask = parse_prios(args.pause_prios)
    paused = ",".join(str(n) for n in range(8) if mask >> n & 1)
    ck.log("%d senders (%s), each p3 and p0 at %g frames/s; B pauses "
           "priorities %s %d times, %d ms every %d ms: XOFF 65535 quanta "
           "(%.1f ms at %s) refreshed every %.1f ms, then XON"
           % (len(senders), ", ".join("%s: streams %d, %d" % (
               n, cfgs[n]["p3"], cfgs[n]["p0"]) for n in names), rate,
              paused, args.cycles, args.pause_ms,
              args.pause_ms + args.resume_ms, pause_s * 1e3, args.speed_b,
              refresh * 1e3))
    go.set()
    time.sleep(0.3)
    episodes, late_refresh, n_pfc, max_gap = _incast_pauses(
        args, b, mask, pause_s, refresh)
    stop.set()
    ck.log("B paused priorities %s %d times: %d XOFF, %d XON; longest gap "
           "between two of B's PFC frames in a pause %.1f ms (a pause lasts "
           "%.1f ms)" % (paused, len(episodes), n_pfc["xoff"], n_pfc["xon"],
                         max_gap * 1e3, pause_s * 1e3))
    if max_gap >= pause_s:
        # This host was late, not the switch: a pause may have lapsed
        # early, which no check below depends on.
        ck.log("note: B's refresh came %.1f ms late: a pause may have "
               "ended before its XON" % ((max_gap - pause_s) * 1e3))
    done, errors = _incast_collect(results, procs, "done",
                                   10 + 3 * pause_s)
    for name, err in errors.items():
        ck.log("sender %s: %s" % (name, err))
    ck.ok(not errors, "all %d senders stopped and reported" % len(senders))
    want = {}
    for name in names:
        sent = done.get(name, {}).get("sent", {})
        for sid in (cfgs[name]["p3"], cfgs[name]["p0"]):
            want[sid] = sent.get(str(sid), 0)

    _wait_arrived(rec_b, want, 15)
    rec_b.stop()
    ck.ok(rec_b.error is None, "B's receiver ran throughout (%s)"
          % (rec_b.error or "no error"))
    data = rec_b.snapshot()["data"]
    seqs = {}
    for x in data:
        seqs.setdefault(x[1], []).append(x[4])
    p3_ids = {cfgs[n]["p3"] for n in names}
    p3_times = {cfgs[n]["p3"]: done.get(n, {}).get("p3_times", [])
                for n in names}
    bursts, leaked, leaked_late, leaked_ring, release = _incast_leaks(
        ck, data, p3_ids, p3_times, episodes, late_refresh)
    # The outer DSCPs of the frames that reached B in VXLAN, and the PCPs
    # of those that reached it tagged, per priority.
    outer, pcps = {}, {}
    for x in data:
        key = "p3" if x[1] in p3_ids else "p0"
        if x[6] is not None:
            outer.setdefault(key, set()).add(x[6])
        if x[3] is not None:
            pcps.setdefault(key, set()).add(x[3])
    facts = {"outer_dscp_p3": sorted(outer.get("p3", [])),
             "outer_dscp_p0": sorted(outer.get("p0", [])),
             "pcp_p3": sorted(pcps.get("p3", [])),
             "pcp_p0": sorted(pcps.get("p0", [])),
             "senders": names, "cycles": len(episodes),
             "b_xoff": n_pfc["xoff"], "b_xon": n_pfc["xon"],
             "b_pfc": n_pfc["xoff"] + n_pfc["xon"],
             "refresh_s": refresh, "max_refresh_gap_s": max_gap,
             "xon_bursts": bursts, "p3_during_pauses": leaked,
             "p3_during_lapsed_pauses": leaked_late,
             "p3_during_pauses_from_ring": leaked_ring,
             "release_ms": release,
             "per_sender": {}}
    min_sent = max(50, int(rate * total_s / 4))
    for name in names:
        _incast_check_sender(ck, name, cfgs[name], done.get(name),
                             errors.get(name), want, seqs, min_sent,
                             facts)
    ck.facts.update(facts)
    return ck.finish(args.facts)


def sc_malformed(args):
    """Malformed MAC Control frames pause nothing and reach nobody; the
    acceptable variants (unpadded 34 octets, junk padding, nonzero reserved
    octet) are honoured."""
    lab = Lab(args, "malformed")
    ck, n = lab.ck, args.count
    bad = ["truncated", "vlan", "wrong-da", "pause", "unknown-opcode"]
    good = ["unpadded", "junk-pad", "high-octet"]
    expect = {"invalid": 0, "pause-ignored": 0, "unsupported": 0, "pfc": 0}
    seq = 0
    streams = [(0, 0, True), (3, 3, True)]
    for v in bad:
        frame = variant_frame(v, 0x08 if v != "pause" else 0xFF, 65535,
                              MAC_B)
        lab.b.send(frame)
        expect[VARIANTS[v][1]] += 1
        time.sleep(0.02)
        lab.stream_a(streams, n, 2000, start_seq=seq)
        ok0 = lab.settle(lab.rec_b, 3, seq + n, 1.0)
        lab.settle(lab.rec_b, 0, seq + n, 0.2)
        got3 = lab.rec_b.seqs(3)
        got0 = lab.rec_b.seqs(0)
        ck.ok(ok0 and got3 == list(range(seq + n))
              and got0 == list(range(seq + n)),
              "%s (%d octets): paused nothing, p0 and p3 kept flowing "
              "(%s / %s)" % (v, len(frame), seq_report(got0[-n:], list(
                  range(seq, seq + n))), seq_report(got3[-n:], list(
                      range(seq, seq + n)))))
        seq += n
    for v in good:
        frame = variant_frame(v, 0x08, 65535, MAC_B)
        lab.b.send(frame)
        expect["pfc"] += 1
        time.sleep(0.02)
        lab.stream_a(streams, n, 2000, start_seq=seq)
        lab.settle(lab.rec_b, 0, seq + n, 1.0)
        time.sleep(0.2)
        got3 = lab.rec_b.seqs(3)
        ck.ok(len(got3) == seq,
              "%s (%d octets): honoured, p3 paused (%d of %d arrived)"
              % (v, len(frame), len(got3) - seq, n))
        ck.ok(lab.rec_b.seqs(0) == list(range(seq + n)),
              "%s: p0 kept flowing" % v)
        lab.xon_b(0x08)
        expect["pfc"] += 1
        lab.settle(lab.rec_b, 3, seq + n, 2.0)
        time.sleep(0.05)
        check_seqs(ck, lab.rec_b.seqs(3), list(range(seq + n)),
                   "%s: p3 after XON" % v)
        seq += n
    time.sleep(0.2)
    macc_a = lab.rec_a.snapshot()["macc"]
    ck.ok(not macc_a, "no MAC Control frame reached A (%d did%s)"
          % (len(macc_a), (": %s" % macc_a[0]) if macc_a else ""))
    ck.facts["expect"] = expect
    return lab.finish()


def sc_consume(args):
    """MAC Control frames received on a PFC port are consumed there: none of
    every kind, sent from either side, reaches the other side, while data
    still flows both ways."""
    lab = Lab(args, "consume")
    ck, n = lab.ck, args.count
    names = list(VARIANTS)
    for side, port, src in (("B", lab.b, MAC_B), ("A", lab.a, MAC_A)):
        for v in names:
            # Time 0 everywhere: nothing is paused, so the data checks below
            # are not disturbed, but every frame is still a MAC Control frame
            # that must not be forwarded.
            port.send(variant_frame(v, 0x08, 0, src))
            port.send(variant_frame(v, 0xFF, 0, src))
        lab.log("%s sent %d MAC Control frames (%s, twice each)"
                % (side, 2 * len(names), ", ".join(names)))
    time.sleep(0.1)
    send_streams(lab.a, [(0, 0, True), (3, 3, True)], n, 2000, src=MAC_A,
                 dst=MAC_B, run=lab.run_id)
    send_streams(lab.b, [(0, 0, True), (3, 3, True)], n, 2000, src=MAC_B,
                 dst=MAC_A, run=lab.run_id)
    lab.settle(lab.rec_b, 3, n, 2.0)
    lab.settle(lab.rec_a, 3, n, 2.0)
    time.sleep(0.3)
    for side, rec in (("B", lab.rec_b), ("A", lab.rec_a)):
        check_seqs(ck, rec.seqs(0), list(range(n)), "p0 data reached %s"
                   % side)
        check_seqs(ck, rec.seqs(3), list(range(n)), "p3 data reached %s"
                   % side)
    ma = lab.rec_a.snapshot()["macc"]
    mb = lab.rec_b.snapshot()["macc"]
    ck.ok(not ma, "no MAC Control frame reached A (%d did%s)"
          % (len(ma), (": %s" % ma[0]) if ma else ""))
    ck.ok(not mb, "no MAC Control frame reached B (%d did%s)"
          % (len(mb), (": %s" % mb[0]) if mb else ""))
    ck.facts["sent_per_side"] = {v: 2 for v in names}
    return lab.finish()


def sc_loop(args):
    """Self-test without a switch: A and B are the two ends of one veth
    pair.  Checks streams, PCP, MAC Control variants and the honouring
    sender against a pausing receiver."""
    lab = Lab(args, "loop")
    ck, n = lab.ck, args.count
    lab.stream_a([(0, 0, True), (3, 3, True), (100, 0, False)], n, 5000)
    lab.settle(lab.rec_b, 100, n, 2.0)
    time.sleep(0.1)
    for s in (0, 3, 100):
        check_seqs(ck, lab.rec_b.seqs(s), list(range(n)), "stream %d" % s)
    pcps = {(x[1], x[3]) for x in lab.rec_b.snapshot()["data"]}
    ck.ok(pcps == {(0, 0), (3, 3), (100, None)},
          "PCP carried per stream: %s" % sorted(pcps, key=str))
    for v in VARIANTS:
        f = variant_frame(v, 0x08, 1234, MAC_B)
        lab.b.send(f)
    time.sleep(0.2)
    got = lab.rec_a.snapshot()["macc"]
    ck.ok(len(got) == len(VARIANTS), "all %d MAC Control variants crossed "
          "the veth (%d)" % (len(VARIANTS), len(got)))
    lens = [m["len"] for m in got]
    ck.ok(lens == [len(variant_frame(v, 0x08, 1234)) for v in VARIANTS],
          "lengths preserved: %s" % lens)
    # Honouring sender: B (acting as the switch) pauses A for 200 ms.
    lab.pause_a.__init__(lab.speed_a, ignore_src=MAC_A)
    q = int(0.2 * lab.speed_a / QUANTUM_BITS)
    if not ck.ok(q <= 65535, "200 ms fits in 65535 quanta at --speed-a %s"
                 % args.speed_a):
        return lab.finish()
    stop = threading.Event()
    th = threading.Thread(target=lambda: lab.stream_a(
        [(5, 3, True)], None, 2000, pause=lab.pause_a, stop=stop),
        daemon=True)
    th.start()
    time.sleep(0.1)
    t_on = time.time()
    lab.b.send(pfc_frame(0x08, q, src=MAC_B))
    time.sleep(0.4)
    stop.set()
    th.join()
    time.sleep(0.1)
    arr = lab.rec_b.arrivals(5)
    gap = [t for t, _ in arr if t_on + 0.01 < t < t_on + 0.2]
    ck.ok(not gap, "honouring sender stopped for the 200 ms pause (%d frames "
          "leaked)" % len(gap))
    after = [t for t, _ in arr if t > t_on + 0.2]
    ck.ok(bool(after), "and resumed on expiry (%d frames after)"
          % len(after))
    return lab.finish()


SCENARIOS = {
    "multiflow": sc_multiflow, "incast": sc_incast,
    "pause": sc_pause, "timer": sc_timer, "xoff": sc_xoff,
    "lossless": sc_lossless, "malformed": sc_malformed,
    "consume": sc_consume, "loop": sc_loop,
}


# ---------------------------------------------------------------------------
# Command line.

def cmd_build(args):
    f = variant_frame(args.variant, parse_prios(args.prio), args.time)
    print(f.hex())


def cmd_send_pfc(args):
    port = Port(args.port)
    src = args.src or (MAC_B if args.side == "B" else MAC_A)
    frame = variant_frame(args.variant, parse_prios(args.prio), args.time,
                          src)
    stop = threading.Event()
    final = None
    if args.xon_on_exit:
        final = variant_frame(args.variant, parse_prios(args.prio), 0, src)

    def handler(signum, frame_):
        stop.set()
    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    if args.interval:
        if args.rt:
            try:
                os.sched_setscheduler(0, os.SCHED_FIFO,
                                      os.sched_param(args.rt))
            except OSError:
                pass
        until = time.time() + args.duration if args.duration else None
        other = None
        if args.alternate:
            other = variant_frame(args.variant, parse_prios(args.prio), 0,
                                  src)
        n = send_pfc_refreshed(port, frame, args.interval, stop, until,
                               other)
    else:
        for _ in range(args.count):
            port.send(frame)
        n = args.count
    if final is not None:
        port.send(final)
        n += 1
    if args.verbose:
        print("send-pfc: %d frame(s) on %s: %s" % (
            n, args.port, fmt_pfc(parse_frame(frame))
            if is_pfc(parse_frame(frame)) else args.variant))


def cmd_send_macc(args):
    port = Port(args.port)
    frames = [(k, macc_kind_frame(k, args.src, parse_prios(args.prio),
                                  args.time)) for k in args.kind]
    n = 0
    for _ in range(args.count):
        for _, f in frames:
            port.send(f)
            n += 1
            if args.gap:
                time.sleep(args.gap)
    if args.verbose:
        for k, f in frames:
            print("send-macc: %d x %s (%d octets): %s" % (
                args.count, k, len(f), f[:26].hex()))
        print("send-macc: %d frame(s) on %s" % (n, args.port))


def cmd_stream(args):
    port = Port(args.port)
    src, dst = (MAC_A, MAC_B) if args.side == "A" else (MAC_B, MAC_A)
    src, dst = args.src or src, args.dst or dst
    if not args.batch:
        pause = rec = None
        if args.honour:
            # A NIC's pause timers, fed by what arrives on the port: a paused
            # priority stops until its pause ends (the streams share one
            # sender, so it stops the others too).
            pause = PauseState(parse_speed(args.honour),
                               ignore_src=args.dst or dst)
            rec = Recorder(port, pause.on_frame)
            rec.start()
        streams = parse_streams(args.streams)
        ips = ({sid: (args.ip, args.dscp, None, args.ecn)
                for sid, _, _ in streams} if args.ip else None)
        sent = send_streams(port, streams, args.count,
                            args.rate, size=args.size, src=src, dst=dst,
                            start_seq=args.start_seq, pause=pause,
                            log=print if args.verbose else None, ips=ips,
                            vlan=args.vlan)
        if rec is not None:
            rec.stop()
            print("stream: honoured %d XOFF and %d XON frames for p3"
                  % (pause.xoff_rx[3], pause.xon_rx[3]))
        if args.verbose:
            print("stream: sent %s" % sent)
        return 0
    # Batches, each started by SIGUSR1: the process (and scapy) is loaded
    # once, before anything time-critical, and sequence numbers run on
    # across batches.
    go = threading.Event()
    signal.signal(signal.SIGUSR1, lambda s_, f_: go.set())
    quit_ = threading.Event()
    signal.signal(signal.SIGTERM, lambda s_, f_: (quit_.set(), go.set()))
    batches = []
    for spec in args.batch:
        streams, count, rate = spec.split("@")
        batches.append((parse_streams(streams), int(count), float(rate)))
    for streams, _, _ in batches:       # Warm scapy's builders up.
        for sid, prio, tagged in streams:
            DataStream(sid, prio, src, dst, tagged, size=args.size)
    next_seq = {}
    if args.ready:
        open(args.ready, "w").close()
    for i, (streams, count, rate) in enumerate(batches):
        while not go.wait(0.1):
            pass
        go.clear()
        if quit_.is_set():
            break
        starts = {next_seq.get(sid, args.start_seq) for sid, _, _ in streams}
        if len(starts) == 1:
            send_streams(port, streams, count, rate, size=args.size,
                         src=src, dst=dst, start_seq=starts.pop())
        else:
            for st in streams:
                send_streams(port, [st], count, rate / len(streams),
                             size=args.size, src=src, dst=dst,
                             start_seq=next_seq.get(st[0], args.start_seq))
        for sid, _, _ in streams:
            next_seq[sid] = next_seq.get(sid, args.start_seq) + count
        if args.verbose:
            print("stream: batch %d sent %d frames of each of streams %s"
                  % (i + 1, count, [x[0] for x in streams]), flush=True)
        if args.done:
            open("%s.%d" % (args.done, i + 1), "w").close()
    return 0


def write_record(path, rec):
    snap = rec.snapshot()
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(snap, f)
    os.rename(tmp, path)


def cmd_recv(args):
    port = Port(args.port)
    rec = Recorder(port)
    done = threading.Event()
    snap = threading.Event()
    signal.signal(signal.SIGTERM, lambda s, f: done.set())
    signal.signal(signal.SIGINT, lambda s, f: done.set())
    signal.signal(signal.SIGUSR1, lambda s, f: snap.set())
    rec.start()
    if args.ready:
        open(args.ready, "w").close()
    deadline = time.time() + args.duration if args.duration else None
    while not done.is_set():
        if deadline and time.time() >= deadline:
            break
        if not rec.is_alive():
            print("recv: %s: %s" % (args.port, rec.error), file=sys.stderr)
            break
        done.wait(0.05)
        if snap.is_set():
            snap.clear()
            write_record(args.out, rec)
            if args.snapped:
                open(args.snapped, "w").close()
    rec.stop()
    write_record(args.out, rec)


def load_record(path):
    with open(path) as f:
        return json.load(f)


def cmd_check(args):
    rec = load_record(args.record)
    seqs = [x[4] for x in rec["data"] if x[1] == args.stream]
    if args.none:
        print("stream %d: %d frames (expected none)" % (args.stream,
                                                         len(seqs)))
        return 0 if not seqs else 1
    expected = list(range(args.first, args.first + args.expect))
    print("stream %d: %s" % (args.stream, seq_report(seqs, expected)))
    return 0 if seqs == expected else 1


def cmd_ecn(args):
    """Prints, as JSON, the ECN field of the frames of one stream of a
    recv record: how many of each codepoint, and the seqs that arrived with
    CE."""
    rec = load_record(args.record)
    rows = [x for x in rec["data"] if x[1] == args.stream]
    names = {0: "not_ect", 1: "ect1", 2: "ect0", 3: "ce"}
    out = {"frames": len(rows), "not_ect": 0, "ect1": 0, "ect0": 0, "ce": 0,
           "not_ip": 0}
    ce = []
    for x in rows:
        e = x[9] if len(x) > 9 else None
        out[names.get(e, "not_ip")] += 1
        if e == 3:
            ce.append(x[4])
    out["ce_seqs"] = ce
    print(json.dumps(out))
    return 0


def cmd_decode(args):
    rec = load_record(args.record)
    for m in rec["macc"]:
        if is_pfc(m):
            print("%.6f %s -> %s %s" % (m["t"], m["src"], m["dst"],
                                        fmt_pfc(m)))
        else:
            print("%.6f %s -> %s MAC Control opcode 0x%04x len %d" % (
                m["t"], m["src"], m["dst"], m.get("opcode", -1), m["len"]))
    return 0


def cmd_scenario(args):
    sys.setswitchinterval(0.0002)
    try:
        return SCENARIOS[args.name](args)
    except Exception:
        import traceback
        traceback.print_exc()
        print("[%s] RESULT: FAIL (exception)" % args.name, flush=True)
        return 2


def cmd_selftest(args):
    ck = Checker("selftest")
    f = pfc_frame(0x08, 65535)
    ck.ok(f == macc_frame(pfc_body(0x08, 65535)),
          "scapy MAC Control layer and struct builder agree")
    ck.ok(len(f) == 60 and f[:6] == bytes.fromhex("0180c2000001")
          and f[12:14] == b"\x88\x08" and f[14:16] == b"\x01\x01"
          and f[16:18] == b"\x00\x08"
          and f[18 + 6:18 + 8] == b"\xff\xff", "PFC frame layout")
    d = parse_frame(f)
    ck.ok(is_pfc(d) and d["enable"] == 8 and d["times"][3] == 65535,
          "parse of PFC frame")
    lens = {v: len(variant_frame(v, 8, 100)) for v in VARIANTS}
    ck.ok(lens["unpadded"] == 34 and lens["truncated"] == 33
          and lens["vlan"] == 60 and lens["valid"] == 60, "variant lengths "
          "%s" % lens)
    q = quanta_to_s(65535, 10**9)
    pf = [{"t": 0.0, "enable": 8, "times": [0, 0, 0, 65535, 0, 0, 0, 0]},
          {"t": 0.01, "enable": 8, "times": [0, 0, 0, 65535, 0, 0, 0, 0]},
          {"t": 0.02, "enable": 8, "times": [0] * 8},
          {"t": 0.5, "enable": 1, "times": [65535] + [0] * 7},
          {"t": 1.0, "enable": 8, "times": [0, 0, 0, 65535, 0, 0, 0, 0]}]
    pt = paused_time(pf, 3, 10**9)
    ck.ok(abs(pt - (0.02 + q)) < 1e-9, "paused time of p3: XOFF, refresh, "
          "XON, then an XOFF that lapses: %.6f s (%.6f)" % (pt, 0.02 + q))
    ds = DataStream(3, 3, MAC_A, MAC_B)
    d = parse_frame(ds.frame(77))
    ck.ok(d["kind"] == "data" and d["seq"] == 77 and d["pcp"] == 3
          and d["stream"] == 3 and d["len"] == 128, "data frame %s" % d)
    ds = DataStream(5, 3, MAC_A, MAC_B, udp_sport=10005)
    d = parse_frame(ds.frame(123456))
    ck.ok(d["kind"] == "data" and d["seq"] == 123456 and d["pcp"] == 3
          and d["stream"] == 5 and d["sport"] == 10005 and d["len"] == 128
          and d["type"] == 0x0800, "IPv4/UDP data frame %s" % d)
    ck.ok(flow_report([0, 1, 3, 2, 4], 6) == (1, 1, 0),
          "flow_report counts reorders and losses")
    ck.ok(abs(quanta_to_s(65535, parse_speed("10G")) - 3.355e-3) < 1e-6,
          "65535 quanta at 10G is 3.355 ms")
    f = macc_kind_frame("pfc@pfc@88a8:100,8100:10", MAC_C)
    ck.ok(len(f) == 60 and f[:6] == bytes.fromhex("0180c2000001")
          and f[12:14] == b"\x88\xa8" and f[14:16] == b"\x00\x64"
          and f[16:18] == b"\x81\x00" and f[18:20] == b"\x00\x0a"
          and f[20:22] == b"\x88\x08" and f[22:24] == b"\x01\x01"
          and f[24:26] == b"\x00\x08", "802.1ad + 802.1Q tagged PFC frame "
          "layout: %s" % f[:26].hex())
    d = parse_frame(f)
    ck.ok(is_pfc(d) and d["tags"] == 2 and d["vid"] == 100
          and d["times"][3] == 65535, "parse of double-tagged PFC frame %s"
          % d)
    f = macc_kind_frame("pause@%s@8100:10" % MAC_B, MAC_C, time_=7)
    d = parse_frame(f)
    ck.ok(d["kind"] == "macc" and d["opcode"] == OPCODE_PAUSE
          and d["pause_time"] == 7 and d["dst"] == MAC_B and d["tags"] == 1,
          "tagged unicast 802.3x PAUSE %s" % d)
    f = macc_kind_frame("pfc@pfc@-", MAC_B)
    ck.ok(f == pfc_frame(0x08, 65535), "untagged send-macc PFC frame is "
          "pfc_frame()")
    ck.ok(parse_sender("D=pfcD1:pfd1h") == ("D", "pfcD1:pfd1h", MAC_D)
          and parse_sender("x=eth1@02:00:00:00:99:01")
          == ("x", "eth1", "02:00:00:00:99:01"),
          "incast --sender NAME=[NETNS:]IFACE[@MAC]")
    return ck.finish()


# ---------------------------------------------------------------------------
# LLDP (DCBX partner)

def lldp_tlv(tlv_type, value):
    return struct.pack("!H", (tlv_type << 9) | len(value)) + value


def pfc_config_tlv(willing, cap, enable, mbc=False):
    """The IEEE 802.1Qaz PFC Configuration TLV (OUI 00-80-C2, subtype
    0x0B)."""
    flags = (0x80 if willing else 0) | (0x40 if mbc else 0) | (cap & 0x0f)
    return lldp_tlv(127, b"\x00\x80\xc2\x0b" + bytes([flags, enable]))


LLDP_DST = b"\x01\x80\xc2\x00\x00\x0e"
LLDP_VARIANTS = ("valid", "no-ttl", "dup-pfc", "bad-pfc-len", "past-end",
                 "no-end", "cee")


def lldp_frame(src, variant, willing, cap, enable, ttl, port_id=b"eth1"):
    """An LLDPDU from MAC 'src' (also its chassis ID) carrying a PFC
    Configuration TLV, or one of the malformed 'variant's."""
    mac = bytes(int(x, 16) for x in src.split(":"))
    chassis = lldp_tlv(1, b"\x04" + mac)
    port = lldp_tlv(2, b"\x05" + port_id)
    ttl_tlv = lldp_tlv(3, struct.pack("!H", ttl))
    pfc = pfc_config_tlv(willing, cap, enable)
    end = lldp_tlv(0, b"")
    if variant == "no-ttl":
        body = chassis + port + pfc + end
    elif variant == "dup-pfc":
        body = chassis + port + ttl_tlv + pfc + pfc + end
    elif variant == "bad-pfc-len":
        body = (chassis + port + ttl_tlv
                + lldp_tlv(127, b"\x00\x80\xc2\x0b\x88\x18\x00") + end)
    elif variant == "past-end":
        body = chassis + port + ttl_tlv + struct.pack("!H", (127 << 9) | 200)
    elif variant == "no-end":
        body = chassis + port + ttl_tlv + pfc
    elif variant == "cee":
        body = (chassis + port + ttl_tlv
                + lldp_tlv(127, b"\x00\x1b\x21\x02\x00\x01\x02") + end)
    else:
        body = chassis + port + ttl_tlv + pfc + end
    frame = LLDP_DST + mac + b"\x88\xcc" + body
    if variant not in ("past-end", "no-end"):
        # Zeros after the last TLV would read as an End TLV.
        frame += b"\x00" * max(0, 60 - len(frame))
    return frame


def cmd_lldp(args):
    port = Port(args.port)
    frame = lldp_frame(args.src, args.variant, args.willing, args.cap,
                       parse_prios(args.enable) if args.enable != "none"
                       else 0, args.ttl,
                       port_id=args.port_id.encode())
    dst = bytes(int(x, 16) for x in args.dst.split(":"))
    if len(dst) != 6:
        raise SystemExit("lldp: bad --dst %r" % args.dst)
    frame = dst + frame[6:]
    if args.vlan is not None:
        # An 802.1Q tag (VID --vlan, PCP 0) before the EtherType.
        frame = frame[:12] + struct.pack("!HH", 0x8100, args.vlan) \
            + frame[12:]
    for i in range(args.count):
        if i:
            time.sleep(args.interval)
        port.send(frame)


def add_frame_parsers(sub):
    """The commands that send single control frames: build, send-pfc,
    lldp, send-macc."""
    s = sub.add_parser("build", help="print a MAC Control frame in hex")
    s.add_argument("--variant", default="valid", choices=sorted(VARIANTS))
    s.add_argument("--prio", default="3")
    s.add_argument("--time", type=int, default=65535)
    s.set_defaults(func=cmd_build)

    s = sub.add_parser("send-pfc", help="send PFC / MAC Control frames")
    s.add_argument("--port", required=True, help="[NETNS:]IFACE")
    s.add_argument("--side", default="B", choices=["A", "B"],
                   help="which host's source MAC to use")
    s.add_argument("--src")
    s.add_argument("--prio", default="3", help="priorities, e.g. 3 or 3,5")
    s.add_argument("--time", type=int, default=65535, help="pause quanta")
    s.add_argument("--variant", default="valid", choices=sorted(VARIANTS))
    s.add_argument("--count", type=int, default=1)
    s.add_argument("--interval", type=float, default=0,
                   help="refresh every INTERVAL s until SIGTERM/--duration")
    s.add_argument("--duration", type=float, default=0)
    s.add_argument("--alternate", action="store_true",
                   help="with --interval: XOFF and XON (time 0) in turn, a "
                   "partner that pauses and releases")
    s.add_argument("--xon-on-exit", action="store_true",
                   help="send the same frame with time 0 when stopping")
    s.add_argument("--rt", type=int, default=0,
                   help="SCHED_FIFO priority for the refresh loop")
    s.add_argument("-v", "--verbose", action="store_true")
    s.set_defaults(func=cmd_send_pfc)

    s = sub.add_parser("lldp", help="send LLDPDUs with a PFC Configuration "
                       "TLV (a DCBX partner)")
    s.add_argument("--port", required=True, help="[NETNS:]IFACE")
    s.add_argument("--src", required=True, help="source and chassis MAC")
    s.add_argument("--enable", default="3",
                   help="priorities with PFC, e.g. 3,4, or none")
    s.add_argument("--willing", action="store_true")
    s.add_argument("--cap", type=int, default=8)
    s.add_argument("--ttl", type=int, default=120)
    s.add_argument("--variant", default="valid", choices=LLDP_VARIANTS)
    s.add_argument("--count", type=int, default=1)
    s.add_argument("--interval", type=float, default=0.1)
    s.add_argument("--dst", default="01:80:c2:00:00:0e",
                   help="destination: an LLDP group address (default the "
                   "nearest bridge's)")
    s.add_argument("--vlan", type=int,
                   help="send it in an 802.1Q tag of this VID")
    s.add_argument("--port-id", default="eth1",
                   help="Port ID (an interface name)")
    s.set_defaults(func=cmd_lldp)

    s = sub.add_parser("send-macc", help="send MAC Control frames of "
                       "given opcodes, destinations and VLAN tags")
    s.add_argument("--port", required=True, help="[NETNS:]IFACE")
    s.add_argument("--src", default=MAC_C)
    s.add_argument("--kind", action="append", required=True,
                   help="OPCODE@DST@TAGS, repeatable: OPCODE pfc, pause "
                   "or a number; DST a MAC or pfc (01:80:c2:00:00:01); "
                   "TAGS - or TPID:VID[:PCP],... outermost first, e.g. "
                   "88a8:100,8100:10")
    s.add_argument("--prio", default="3", help="PFC: priorities enabled")
    s.add_argument("--time", type=int, default=65535, help="pause quanta")
    s.add_argument("--count", type=int, default=1,
                   help="rounds: each kind is sent COUNT times")
    s.add_argument("--gap", type=float, default=0.001,
                   help="seconds between two frames")
    s.add_argument("-v", "--verbose", action="store_true")
    s.set_defaults(func=cmd_send_macc)


def add_traffic_parsers(sub):
    """The commands that send and record traffic: stream, recv, check,
    decode, ecn."""
    s = sub.add_parser("stream", help="send sequence-numbered streams")
    s.add_argument("--port", required=True)
    s.add_argument("--side", default="A", choices=["A", "B"])
    s.add_argument("--src", help="source MAC (default: the --side host's)")
    s.add_argument("--dst", help="destination MAC (default: the other "
                   "host's)")
    s.add_argument("--streams", default="3:3",
                   help="ID:PRIO[u],... (u = untagged)")
    s.add_argument("--count", type=int, default=100)
    s.add_argument("--rate", type=float, default=1000,
                   help="frames/s, all streams together (0 = flat out)")
    s.add_argument("--size", type=int, default=128)
    s.add_argument("--start-seq", type=int, default=0)
    s.add_argument("--ip", choices=["4", "6"],
                   help="IPv4 or IPv6/UDP frames (default: not IP)")
    s.add_argument("--dscp", type=int, default=0,
                   help="with --ip: their DSCP, 0 to 63")
    s.add_argument("--vlan", type=int, default=DEFAULT_VLAN,
                   help="VID of the tagged streams (0: priority-tagged)")
    s.add_argument("--ecn", type=int, default=0, choices=range(4),
                   help="with --ip: their ECN field (0 Not-ECT, 1 ECT(1), "
                   "2 ECT(0), 3 CE)")
    s.add_argument("--honour", metavar="SPEED",
                   help="honour the PFC frames that arrive, as a NIC of "
                   "link speed SPEED (e.g. 1G) would; not with --batch")
    s.add_argument("--batch", action="append",
                   help="STREAMS@COUNT@RATE: wait for SIGUSR1, then send "
                   "it; repeatable, sequence numbers continue")
    s.add_argument("--ready", help="file touched once ready for batches")
    s.add_argument("--done", help="DONE.N is touched after batch N")
    s.add_argument("-v", "--verbose", action="store_true")
    s.set_defaults(func=cmd_stream)

    s = sub.add_parser("recv", help="record arriving frames")
    s.add_argument("--port", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--ready")
    s.add_argument("--snapped", help="file touched after each snapshot")
    s.add_argument("--duration", type=float, default=0)
    s.set_defaults(func=cmd_recv)

    s = sub.add_parser("check", help="check a recv record")
    s.add_argument("record")
    s.add_argument("--stream", type=int, required=True)
    s.add_argument("--expect", type=int, default=0)
    s.add_argument("--first", type=int, default=0)
    s.add_argument("--none", action="store_true")
    s.set_defaults(func=cmd_check)

    s = sub.add_parser("decode", help="print MAC Control frames recorded")
    s.add_argument("record")
    s.set_defaults(func=cmd_decode)

    s = sub.add_parser("ecn", help="count the ECN codepoints of a stream "
                       "in a recv record (JSON)")
    s.add_argument("record")
    s.add_argument("--stream", type=int, required=True)
    s.set_defaults(func=cmd_ecn)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.
                                RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)

    add_frame_parsers(sub)
    add_traffic_parsers(sub)

    s = sub.add_parser("scenario", help="run a two-port traffic scenario")
    s.add_argument("name", choices=sorted(SCENARIOS))
    s.add_argument("--a", required=True, help="NETNS:IFACE of host A")
    s.add_argument("--b", required=True, help="NETNS:IFACE of host B")
    s.add_argument("--speed-a", default="10G",
                   help="link-speed of the switch's port A")
    s.add_argument("--speed-b", default="10G",
                   help="link-speed of the switch's port B")
    s.add_argument("--count", type=int, default=200)
    s.add_argument("--rate", type=float, default=2000)
    s.add_argument("--size", type=int, default=128)
    s.add_argument("--quanta", type=int, default=2000)
    s.add_argument("--first-quanta", type=int, default=0,
                   help="timer: pause this long first, then --quanta")
    s.add_argument("--quanta-a", type=int, default=65535,
                   help="pause-quanta of the switch's port A")
    s.add_argument("--enabled-a", default="3",
                   help="pfc-enable of the switch's port A")
    s.add_argument("--xoff-a", type=int, default=0,
                   help="xoff-threshold of the switch's port A, bytes")
    s.add_argument("--hold", default="3,5",
                   help="priorities B pauses (xoff scenario)")
    s.add_argument("--tolerance", type=float, default=0.005)
    s.add_argument("--slack", type=float, default=0.5)
    s.add_argument("--cycles", type=int, default=4)
    s.add_argument("--frames", default="tagged",
                   choices=["tagged", "dscp4", "dscp6", "vxlan4"],
                   help="incast: the senders' frames: tagged with their "
                   "priority, or untagged IPv4 or IPv6 whose DSCP gives it "
                   "(26, AF31, for p3; 0 for p0), or IPv4 of DSCP 0 in VXLAN "
                   "to --outer-dst whose outer DSCP gives it")
    s.add_argument("--outer-dst", default="ff:ff:ff:ff:ff:ff",
                   help="incast --frames vxlan4: the switch tunnel "
                   "endpoint's MAC")
    s.add_argument("--pause-ms", type=int, default=300)
    s.add_argument("--pause-prios", default="3",
                   help="incast: the priorities that B pauses (a list); "
                   "its checks count the p3 frames inside those pauses")
    s.add_argument("--resume-ms", type=int, default=200)
    s.add_argument("--facts", help="write facts for the caller as JSON")
    s.add_argument("--flows", type=int, default=8,
                   help="multiflow: lossless (p3) flows")
    s.add_argument("--expire-every", type=int, default=0,
                   help="multiflow: every Nth pause ends by expiry")
    s.add_argument("--long-every", type=int, default=0,
                   help="multiflow: every Nth pause lasts --long-pause-ms")
    s.add_argument("--long-pause-ms", type=int, default=700)
    s.add_argument("--sender", action="append", type=parse_sender,
                   metavar="NAME=[NETNS:]IFACE[@MAC]",
                   help="incast: one more sender besides A (--a), "
                   "repeatable; MAC defaults to host NAME's (C, D, E). "
                   "--rate is then per stream of each sender, --speed-a "
                   "every sender's switch port's link-speed")
    s.set_defaults(func=cmd_scenario)

    s = sub.add_parser("selftest", help="offline builder checks")
    s.set_defaults(func=cmd_selftest)

    args = p.parse_args()
    rc = args.func(args)
    sys.exit(rc or 0)


if __name__ == "__main__":
    main()
