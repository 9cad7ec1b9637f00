#!/usr/bin/env python3
"""Writes the hand-made seed inputs of the fuzz harnesses into
tests/fuzz/corpus/<harness>/ (run from the repository root; deterministic).
Every byte is spelled out here from the formats' definitions (pcap:
draft-ietf-opsawg-pcap; pcapng: draft-ietf-opsawg-pcapng; IPv4 RFC 791, IPv6
RFC 8200, TCP RFC 9293 and its options, GRE RFC 2784, VXLAN RFC 7348),
not produced by the code under test. Regression inputs found by fuzzing are
committed beside these under names starting with "regress-" and are not
written by this script."""
import gzip
import os
import struct
import sys

ROOT = os.path.join("tests", "fuzz", "corpus")


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def tcp(sport, dport, seq, ack, flags, win=65535, opts=b"", payload=b"", src=b"\xc6\x12\x00\x01", dst=b"\xc6\x12\x00\x02", v6=False):
    assert len(opts) % 4 == 0
    off = (20 + len(opts)) // 4
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, off << 4, flags, win, 0, 0) + opts
    seg = hdr + payload
    if v6:
        pseudo = src + dst + struct.pack("!I3xB", len(seg), 6)
    else:
        pseudo = src + dst + struct.pack("!xBH", 6, len(seg))
    c = csum(pseudo + seg)
    return seg[:16] + struct.pack("!H", c) + seg[18:]


def ipv4(payload, proto=6, src=b"\xc6\x12\x00\x01", dst=b"\xc6\x12\x00\x02", ident=1, frag=0x4000):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, frag, 64, proto, 0, src, dst)
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload


def ipv6(payload, nh=6, src=b"\xfd" + b"\0" * 14 + b"\x01", dst=b"\xfd" + b"\0" * 14 + b"\x02"):
    return struct.pack("!IHBB", 0x60000000 | 0x12345, len(payload), nh, 64) + src + dst + payload


def ether(payload, etype=0x0800, tags=()):
    out = b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01"
    for t in tags:
        out += struct.pack("!HH", t, 100)
    return out + struct.pack("!H", etype) + payload


MSS = b"\x02\x04\x05\xb4"
SACKP_TS = b"\x04\x02\x08\x0a" + struct.pack("!II", 1000, 0)
WS = b"\x01\x03\x03\x07"
TS = lambda v, e: b"\x01\x01\x08\x0a" + struct.pack("!II", v, e)
SACK2 = b"\x01\x01\x05\x12" + struct.pack("!IIII", 3000, 4000, 5000, 6000)
SYN, ACK, FIN, PSH, RST = 0x02, 0x10, 0x01, 0x08, 0x04


def conversation():
    """A handshake, data, one segment lost and retransmitted on a timeout
    after 1.2 s, FIN: (seconds, frame bytes) for an Ethernet capture."""
    c, s = 0x1000, 0x9000
    a, b = b"\xc6\x12\x00\x01", b"\xc6\x12\x00\x02"
    data = bytes(range(256)) * 2
    f = []
    t = 1_700_000_000.0
    def out(dt, seg, rev=False):
        nonlocal t
        t += dt
        src, dst = (b, a) if rev else (a, b)
        f.append((t, ether(ipv4(seg, src=src, dst=dst, ident=len(f) + 1))))
    out(0, tcp(40000, 5001, c, 0, SYN, opts=MSS + SACKP_TS + WS))
    out(0.010, tcp(5001, 40000, s, c + 1, SYN | ACK, opts=MSS + SACKP_TS + WS, src=b, dst=a), rev=True)
    out(0.010, tcp(40000, 5001, c + 1, s + 1, ACK, opts=TS(1010, 1010)))
    out(0.001, tcp(40000, 5001, c + 1, s + 1, ACK | PSH, opts=TS(1011, 1010), payload=data))
    out(0.010, tcp(5001, 40000, s + 1, c + 1 + 512, ACK, opts=TS(1021, 1011), src=b, dst=a), rev=True)
    out(0.001, tcp(40000, 5001, c + 513, s + 1, ACK | PSH, opts=TS(1022, 1021), payload=data))
    out(1.200, tcp(40000, 5001, c + 513, s + 1, ACK | PSH, opts=TS(2222, 1021), payload=data))
    out(0.010, tcp(5001, 40000, s + 1, c + 1025, ACK, opts=TS(2232, 2222), src=b, dst=a), rev=True)
    out(0.001, tcp(40000, 5001, c + 1025, s + 1, ACK | FIN, opts=TS(2233, 2232)))
    out(0.010, tcp(5001, 40000, s + 1, c + 1026, ACK | FIN, opts=TS(2243, 2233), src=b, dst=a), rev=True)
    return f


def pcap(frames, linktype=1, nano=False, big=False, snaplen=262144):
    e = ">" if big else "<"
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    out = struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)
    for t, fr in frames:
        sec = int(t)
        frac = round((t - sec) * (1e9 if nano else 1e6))
        out += struct.pack(e + "IIII", sec, frac, len(fr), len(fr)) + fr
    return out


def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def pcapng(frames, linktype=1, tsresol=None, extra=b""):
    shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    opts = b""
    if tsresol is not None:
        opts = struct.pack("<HHB3x", 9, 1, tsresol) + struct.pack("<HH", 0, 0)
    idb = block(1, struct.pack("<HHI", linktype, 0, 262144) + opts)
    out = shb + idb + extra
    for t, fr in frames:
        ts = int(t * (10 ** 9 if tsresol == 9 else 10 ** 6))
        out += block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(fr), len(fr)) + fr)
    return out


def write(harness, name, data):
    d = os.path.join(ROOT, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    conv = conversation()
    short = conv[:4]
    captures = {
        "pcap-conversation": pcap(conv),
        "pcap-nano-bigendian": pcap(short, nano=True, big=True),
        "pcap-raw-ip": pcap([(t, fr[14:]) for t, fr in short], linktype=101),
        "pcap-bad-caplen-mid": (lambda p: p[:24 + 16 + len(short[0][1])] + struct.pack("<IIII", 1, 0, 0x7FFFFFFF, 60) + p[24 + 16 + len(short[0][1]):])(pcap(short)),
        "pcap-truncated": pcap(short)[:-7],
        "pcapng-conversation": pcapng(conv, tsresol=9),
        "pcapng-unknown-block": pcapng(short, extra=block(0x0BAD, b"\x01\x02\x03\x04custom") + block(0x77, b"??")),
        "pcapng-bad-length": (lambda p: p[:-4] + b"\x09\x00\x00\x00")(pcapng(short)),
        "pcapng-spb": pcapng([]) + block(3, struct.pack("<I", len(short[0][1])) + short[0][1]),
        "pcapng-two-sections": pcapng(short[:2]) + pcapng(short[2:], linktype=101),
    }
    for name, data in captures.items():
        write("parsers", name, data)
        write("reader", name, data)
    write("pipeline", "pcap-conversation", captures["pcap-conversation"])
    write("pipeline", "pcapng-conversation", captures["pcapng-conversation"] + b"\x80")  # last byte: HTML too

    # Frames of every link type and tunnel (frame harness: selector, wire_len delta, frame).
    v4 = ipv4(tcp(1, 2, 100, 200, ACK, opts=TS(5, 6), payload=b"x" * 10))
    v6 = ipv6(tcp(1, 2, 100, 200, ACK, opts=SACK2, payload=b"y" * 4, src=b"\xfd" + b"\0" * 14 + b"\x01", dst=b"\xfd" + b"\0" * 14 + b"\x02", v6=True))
    hbh = ipv6(bytes([6, 0, 1, 4, 0, 0, 0, 0]) + tcp(1, 2, 1, 1, SYN, opts=MSS), nh=0)
    gre = ipv4(struct.pack("!HH", 0, 0x0800) + v4, proto=47)
    udp = lambda port, body: struct.pack("!HHHH", 12345, port, 8 + len(body), 0) + body
    vxlan = ipv4(udp(4789, b"\x08\0\0\0\0\0\x01\0" + ether(v4)), proto=17)
    geneve = ipv4(udp(6081, b"\x00\x00\x08\x00\0\0\x01\0" + v4), proto=17)
    gtpu = ipv4(udp(2152, struct.pack("!BBHI", 0x30, 0xFF, len(v4), 1) + v4), proto=17)
    ipip = ipv4(v4, proto=4)
    mpls = ether(struct.pack("!I", (16 << 12) | 0x100 | 64) + v4, etype=0x8847)
    sll = struct.pack("!HHH8sH", 0, 1, 6, b"\0" * 8, 0x0800) + v4
    sll2 = struct.pack("!HHIHBB8s", 0x86DD, 0, 1, 1, 0, 6, b"\0" * 8) + v6
    null = struct.pack("<I", 2) + v4
    frames = {
        "eth-ipv4": (1, ether(v4)), "eth-qinq": (1, ether(v4, tags=(0x88A8, 0x8100))), "eth-ipv6": (1, ether(v6, 0x86DD)),
        "eth-hopbyhop": (1, ether(hbh, 0x86DD)), "eth-gre": (1, ether(gre)), "eth-vxlan": (1, ether(vxlan)),
        "eth-geneve": (1, ether(geneve)), "eth-gtpu": (1, ether(gtpu)), "eth-ipip": (1, ether(ipip)),
        "eth-mpls": (1, mpls), "sll": (113, sll), "sll2": (276, sll2), "raw": (101, v4), "ipv6": (229, v6),
        "null": (0, null), "loop": (108, struct.pack(">I", 2) + v4),
    }
    index = {1: 0, 113: 1, 276: 2, 12: 3, 14: 4, 101: 5, 228: 6, 229: 7, 0: 8, 108: 9}  # frame.cpp kLinkTypes
    for name, (dlt, fr) in frames.items():
        write("frame", name, bytes([index[dlt], 0, 0]) + fr)
    write("frame", "eth-ipv4-snaplen-cut", bytes([0, 0, 40]) + ether(v4)[:14 + 20 + 24])
    write("frame", "tunnel-gre", bytes([0xF0, 0, 0]) + struct.pack("!HH", 0x2000, 0x0800) + b"\0\0\0\x07" + v4)
    write("frame", "tunnel-udp-vxlan", bytes([0xF1, 0, 0]) + udp(4789, b"\x08\0\0\0\0\0\x01\0" + ether(v4)))
    write("frame", "tunnel-mpls", bytes([0xF2, 0, 0]) + struct.pack("!I", (16 << 12) | 0x100 | 64) + v4)

    # TCP headers with options (tcp_options harness: the header as captured).
    for name, (flags, opts) in {
        "syn-linux": (SYN, MSS + SACKP_TS + WS), "data-ts": (ACK, TS(1, 2)), "sack-2": (ACK, SACK2),
        "sack-4": (ACK, b"\x01\x01\x05\x22" + b"\0\0\0\x10\0\0\0\x20" * 4), "eol-early": (ACK, b"\x00\x00\x00\x00"),
        "unknown-kind": (ACK, b"\x1e\x06abcd\x01\x01"), "zero-length-option": (ACK, b"\x01\x01\x08\x00"),
        "wscale-15": (SYN, b"\x01\x03\x03\x0f"),
    }.items():
        write("tcp_options", name, tcp(1, 2, 3, 4, flags, opts=opts, payload=b"pp"))

    # gzip harness: mode, 8 steering bytes, payload.
    steer = bytes([3, 200, 17, 0xFF, 1, 64, 9, 128])
    write("gzip", "roundtrip-pcap", bytes([0]) + steer + pcap(short))
    write("gzip", "raw-gzip-pcap", bytes([1]) + steer + gzip.compress(pcap(short), mtime=0))
    write("gzip", "raw-gzip-two-members", bytes([1]) + steer + gzip.compress(pcap(short)[:50], mtime=0) + gzip.compress(pcap(short)[50:], mtime=0))
    write("gzip", "raw-gzip-cut", bytes([1]) + steer + gzip.compress(pcap(short), mtime=0)[:-9])
    write("gzip", "same-as-plain", bytes([2]) + steer + captures["pcap-bad-caplen-mid"])
    write("gzip", "same-as-plain-ng", bytes([2]) + steer + captures["pcapng-bad-length"])

    # netstack_rx: config byte, then ops (netstack_rx.cpp): 0/1 segment
    # [flags, off16, lenmode, len, opt, ack16, win16], 2 corrupt [.. + at16, x],
    # 3 raw [len, bytes], 4 tick [ms16], 5 read [n16].
    def seg(flags, off, ln, opt=0, ack=0, win=65535):
        return bytes([0, flags]) + struct.pack("!H", off) + bytes([1, ln, opt]) + struct.pack("!HH", ack, win)
    syn = seg(SYN, 0, 0, opt=0x0F)
    rx = {
        "in-order": bytes([0]) + syn + seg(ACK, 0, 0) + seg(ACK | PSH, 0, 200) + seg(ACK | PSH, 200, 200) + bytes([5, 0xFF, 0xFF]),
        "out-of-order": bytes([12]) + syn + seg(ACK, 0, 0) + seg(ACK, 300, 100) + seg(ACK, 100, 100) + seg(ACK, 0, 150) + seg(ACK, 200, 100) + bytes([5, 1, 0]),
        "fin-delack": bytes([2]) + syn + seg(ACK, 0, 0) + seg(ACK, 0, 50) + bytes([4, 0, 100]) + seg(ACK | FIN, 50, 10) + bytes([4, 0x10, 0]),
        "corrupt-raw": bytes([17]) + syn + bytes([2]) + seg(ACK, 0, 40)[1:] + bytes([0, 50, 0x40]) + bytes([3, 8]) + b"\x45\0\0\x28\0\0\0\0" + seg(RST, 0, 0),
    }
    for name, data in rx.items():
        write("netstack_rx", name, data)

    # retry_after: 4 bytes of `now` (seconds since 1970, big-endian), then the field value.
    now = struct.pack("!I", 1_795_000_000)
    for name, v in {
        "delay": b"120", "delay-ows": b" \t3600 ", "imf": b"Sun, 06 Nov 1994 08:49:37 GMT",
        "rfc850": b"Sunday, 06-Nov-94 08:49:37 GMT", "asctime": b"Sun Nov  6 08:49:37 1994",
        "future": b"Wed, 29 Feb 2040 23:59:60 GMT", "huge": b"9223372036855",
    }.items():
        write("retry_after", name, now + v)

    # estimator: form byte (bit 0 Linux profile, bits 1-7 fuzzed config fields),
    # then ops (estimator.cpp): 0-2 sample [kind, value.., windowed], 3/4
    # timeout, 5 SYN timeout, 6 handshake [syn_timed_out], 7 many timeouts [k].
    def sample_ms(ms, windowed=0):
        return bytes([0, 6]) + struct.pack("!I", ms) + bytes([windowed])
    est = sample_ms(100) + sample_ms(120) + sample_ms(80) + bytes([3, 3]) + sample_ms(90) + bytes([7, 4])
    write("estimator", "rfc-samples", bytes([0]) + est)
    write("estimator", "linux-samples", bytes([1]) + sample_ms(100, 1) + sample_ms(300, 1) + sample_ms(50, 1) + bytes([3]))
    write("estimator", "syn-fallback", bytes([0, 5, 5, 6, 1]) + sample_ms(40))
    write("estimator", "refused-samples", bytes([0, 0, 7, 0, 0, 0, 1, 0, 0, 3, 20, 0]))  # negative, just over 1 h

    # timer_wheel: tick index (1 = 1 ms), start kind (0 = epoch), then ops
    # (timer_wheel.cpp): [what, entry, args]: 0/1 arm [deadline], 2 cancel,
    # 3 destroy, 4 advance +u8 us, 5 advance +u32 % 4096 ticks, 6 backwards,
    # 7 advance to a deadline. Deadline kinds: 3 = now + u32 ticks, 5 = max,
    # 8 = now + u32 % 100000 us.
    wheel = (bytes([0, 1, 8]) + struct.pack("!I", 10_000) + bytes([0, 2, 3]) + struct.pack("!I", 300_000)
             + bytes([0, 3, 5]) + bytes([4, 0, 200]) + bytes([5, 0]) + struct.pack("!I", 20) + bytes([2, 2])
             + bytes([5, 0]) + struct.pack("!I", 4095) + bytes([3, 3]) + bytes([7, 0, 5]))
    write("timer_wheel", "arm-advance-cancel", bytes([1, 0]) + wheel)

    # netstack_pair: options byte, then ops (netstack_pair.cpp): 0 write
    # [size], 1-3 deliver [index] (bit 4 of the op: towards the receiver),
    # 4 drop, 5 duplicate, 6 corrupt [index, at16, x], 7 tick [16 bits],
    # 8 read [16 bits], 9 close (bit 4).
    fwd, back = bytes([0x11, 0]), bytes([0x01, 0])
    pair = bytes([0, 0, 0x10, 0]) + (fwd + back) * 6 + bytes([0x17, 0, 50]) + (fwd + back) * 4 + bytes([0x19])
    write("netstack_pair", "transfer", bytes([0x03]) + pair)
    lossy = (bytes([0, 0, 0x20, 0]) + fwd + back + fwd + bytes([0x14, 0]) + bytes([0x15, 1]) + bytes([0x16, 0, 0, 30, 0x40])
             + fwd + back + bytes([0x17, 1, 0]) + fwd + back + bytes([0x08, 1, 0]) + bytes([0x19]))
    write("netstack_pair", "lossy-sack-ts", bytes([0x03 | 0x04]) + lossy)
    write("netstack_pair", "small-window-linux", bytes([0x10 | 0x20 | 0x40 | 0x80]) + pair)


if __name__ == "__main__":
    sys.exit(main())
