"""The lab's captures, frame by frame (classic libpcap; Ethernet, Linux
cooked v1/v2, raw IPv4; TCP over IPv4, the only kind the lab makes).

Shared by labels.py (the kernel's label of each segment, matched to its
frame) and score_labels.py (the checker's class of each frame against it).
Frame numbers are Wireshark's (1-based, every record counts, TCP or not).
"""
import struct
from dataclasses import dataclass, field

TH_FIN, TH_SYN, TH_RST, TH_PSH, TH_ACK, TH_URG = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
FLAG_NAMES = [(TH_SYN, "SYN"), (TH_FIN, "FIN"), (TH_RST, "RST"), (TH_PSH, "PSH"), (TH_ACK, "ACK"), (TH_URG, "URG")]


def flag_text(fl: int) -> str:
    return "|".join(n for b, n in FLAG_NAMES if fl & b) or "-"


@dataclass
class Frame:
    number: int          # Wireshark's frame.number
    time: float          # capture timestamp, seconds since the epoch (CLOCK_REALTIME)
    src: str
    sport: int
    dst: str
    dport: int
    seq: int
    ack: int
    flags: int
    payload: int         # TCP payload length, from the IP header (not the snaplen)
    ip_id: int
    tsval: int | None    # TCP timestamp option, when the snaplen kept it
    window: int

    @property
    def key(self):
        """The sender's direction: (src, sport, dst, dport)."""
        return (self.src, self.sport, self.dst, self.dport)

    @property
    def seq_len(self) -> int:
        """Sequence space the segment occupies (payload, SYN and FIN count one)."""
        return self.payload + (1 if self.flags & TH_SYN else 0) + (1 if self.flags & TH_FIN else 0)

    @property
    def end_seq(self) -> int:
        return (self.seq + self.seq_len) % (1 << 32)


@dataclass
class Capture:
    path: str
    linktype: int
    frames: list = field(default_factory=list)   # TCP/IPv4 frames only, in file order
    records: int = 0                             # every record of the file


def _ipv4_tcp(buf: bytes, off: int, number: int, t: float):
    if len(buf) < off + 20 or buf[off] >> 4 != 4 or buf[off + 9] != 6:
        return None
    ihl = (buf[off] & 0xF) * 4
    tot, ip_id = struct.unpack_from("!HH", buf, off + 2)
    src = ".".join(str(b) for b in buf[off + 12:off + 16])
    dst = ".".join(str(b) for b in buf[off + 16:off + 20])
    th = off + ihl
    if len(buf) < th + 20:
        return None
    sport, dport, seq, ack, doff_b, fl, win = struct.unpack_from("!HHIIBBH", buf, th)
    doff = (doff_b >> 4) * 4
    tsval = None
    o, end = th + 20, min(th + doff, len(buf))
    while o < end:
        kind = buf[o]
        if kind == 0:
            break
        if kind == 1:
            o += 1
            continue
        if o + 1 >= end:
            break
        ln = buf[o + 1]
        if ln < 2:
            break
        if kind == 8 and ln == 10 and o + 10 <= end:
            tsval = struct.unpack_from("!I", buf, o + 2)[0]
        o += ln
    return Frame(number, t, src, sport, dst, dport, seq, ack, fl, max(0, tot - ihl - doff), ip_id, tsval, win)


def read(path: str) -> Capture:
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError(f"{path}: not a pcap file (shorter than its header)")
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        raise ValueError(f"{path}: not a classic pcap file (magic {magic.hex()})")
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    linktype = struct.unpack_from(e + "I", data, 20)[0] & 0x0FFFFFFF
    cap = Capture(path, linktype)
    p, n = 24, 0
    while p + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack_from(e + "IIII", data, p)
        p += 16
        buf = data[p:p + incl]
        p += incl
        n += 1
        t = sec + frac / (1e9 if nano else 1e6)
        if linktype == 1:        # Ethernet (one 802.1Q tag at most)
            et, off = struct.unpack_from("!H", buf, 12)[0] if len(buf) >= 14 else 0, 14
            if et == 0x8100 and len(buf) >= 18:
                et, off = struct.unpack_from("!H", buf, 16)[0], 18
        elif linktype == 113:    # Linux cooked v1
            et, off = (struct.unpack_from("!H", buf, 14)[0] if len(buf) >= 16 else 0), 16
        elif linktype == 276:    # Linux cooked v2
            et, off = (struct.unpack_from("!H", buf, 0)[0] if len(buf) >= 20 else 0), 20
        elif linktype in (101, 228):  # raw IP / raw IPv4
            et, off = 0x0800, 0
        else:
            raise ValueError(f"{path}: link type {linktype} is not one the lab writes")
        if et != 0x0800:
            continue
        fr = _ipv4_tcp(buf, off, n, t)
        if fr is not None:
            cap.frames.append(fr)
    cap.records = n
    return cap


# Link types of a capture on Linux's `any` device (cooked v1, v2): the only
# captures that can hold one packet twice (seen on two interfaces).
MULTI_INTERFACE_LINKTYPES = (113, 276)


def capture_copies(cap: "Capture", window_s: float = 0.001):
    """{frame number: the frame it copies} for the second capture of a packet
    already in the file: same direction, SEQ, ACK, flags, length, IP ID and
    TSval as a frame at most `window_s` earlier. Only a capture of several
    interfaces has copies: on one interface, two such frames are two
    transmissions (e.g. two SYN-ACKs 0.3 ms apart, IP ID 0, same TSval)."""
    copies = {}
    if cap.linktype not in MULTI_INTERFACE_LINKTYPES:
        return copies
    recent = {}
    for f in cap.frames:
        k = (f.key, f.seq, f.ack, f.flags, f.payload, f.ip_id, f.tsval)
        first = recent.get(k)
        if first is not None and 0 <= f.time - first.time <= window_s:
            copies[f.number] = first.number
        else:
            recent[k] = f
    return copies


def _mod_lt(a: int, b: int) -> bool:
    return ((a - b) & 0xFFFFFFFF) > 0x7FFFFFFF


class SeqCoverage:
    """The sequence space one direction has shown in the capture so far (a
    union of intervals, relative to its first sequence number)."""

    def __init__(self, base: int):
        self.base = base
        self.iv = []          # sorted, disjoint [lo, hi)
        self.high = 0         # highest end seen

    def rel(self, s: int) -> int:
        r = (s - self.base) & 0xFFFFFFFF
        return r - (1 << 32) if r > 0x7FFFFFFF else r

    def overlaps(self, lo: int, hi: int) -> bool:
        return any(a < hi and lo < b for a, b in self.iv)

    def add(self, lo: int, hi: int):
        if hi <= lo:
            return
        out, placed = [], False
        for a, b in self.iv:
            if b < lo or hi < a:
                out.append((a, b))
            else:
                lo, hi = min(lo, a), max(hi, b)
        out.append((lo, hi))
        out.sort()
        self.iv = out
        self.high = max(self.high, hi)


def repeats(frames, copies=None):
    """Per frame number that carries sequence space: 'repeat' when its range
    overlaps what its direction already showed (a retransmission, or a copy),
    'out-of-order' when it does not but comes after higher data (a first
    transmission seen late), 'new' otherwise. A SYN with a new ISN starts a
    new connection on its 4-tuple."""
    copies = copies or {}
    cov = {}
    out = {}
    for f in frames:
        if f.seq_len == 0 or f.flags & TH_RST:
            continue
        c = cov.get(f.key)
        if c is None or (f.flags & TH_SYN and c.rel(f.seq) != 0):
            c = cov[f.key] = SeqCoverage(f.seq)
        lo = c.rel(f.seq)
        hi = lo + f.seq_len
        if f.number in copies or c.overlaps(lo, hi):
            out[f.number] = "repeat"
        elif lo < c.high:
            out[f.number] = "out-of-order"
        else:
            out[f.number] = "new"
        c.add(lo, hi)
    return out
