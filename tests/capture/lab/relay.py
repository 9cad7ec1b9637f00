#!/usr/bin/env python3
"""A userspace Ethernet relay between two interfaces that can HOLD one
direction's frames and release them later, in order: a delay spike (this
kernel has no netem qdisc, and nftables cannot queue).

  relay.py --a IFACE --b IFACE [--delay-ms D] [--ready FILE] [--log FILE]
      Forwards every frame received on A to B and on B to A (AF_PACKET),
      as fast as it can (~0.1 ms), or --delay-ms D after it arrived (a
      constant path delay each way, in order). SIGUSR1 starts holding the frames from
      B to A; SIGUSR2 sends the held frames in arrival order and resumes
      forwarding. SIGTERM ends it. --log FILE gets one line per hold and
      release (CLOCK_REALTIME, frames held).

The endpoints' veths hand over TCP segments with the checksum left to the
"hardware" (CHECKSUM_PARTIAL); a frame relayed through a packet socket is
sent as it is, so the relay fills in the TCP checksum of every IPv4 frame.
"""
import argparse
import collections
import os
import select
import signal
import socket
import struct
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def csum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def fix_tcp_checksum(frame: bytes) -> bytes:
    if len(frame) < 34 or frame[12:14] != b"\x08\x00":
        return frame
    ip = 14
    ihl = (frame[ip] & 0xF) * 4
    if frame[ip + 9] != 6:
        return frame
    tot = struct.unpack_from("!H", frame, ip + 2)[0]
    tcp = ip + ihl
    seg = bytearray(frame[tcp:ip + tot])
    if len(seg) < 20:
        return frame
    seg[16:18] = b"\0\0"
    pseudo = frame[ip + 12:ip + 20] + struct.pack("!BBH", 0, 6, len(seg))
    struct.pack_into("!H", seg, 16, csum(pseudo + bytes(seg)))
    return frame[:tcp] + bytes(seg) + frame[ip + tot:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--ready")
    ap.add_argument("--log")
    ap.add_argument("--delay-ms", type=float, default=0.0)
    a = ap.parse_args()
    delay = a.delay_ms / 1000.0
    socks = {}
    for name in (a.a, a.b):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.bind((name, ETH_P_ALL))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        socks[name] = s
    other = {a.a: socks[a.b], a.b: socks[a.a]}
    by_fd = {s.fileno(): n for n, s in socks.items()}
    state = {"hold": False, "stop": False}
    held = []
    due = collections.deque()  # (monotonic time to send, socket, frame)
    log = open(a.log, "a") if a.log else None

    def on_usr1(_s, _f):
        state["hold"] = True
        if log:
            log.write(f"{time.time():.6f} hold {a.b}->{a.a}\n")
            log.flush()

    def on_usr2(_s, _f):
        state["hold"] = False

    def on_term(_s, _f):
        state["stop"] = True
    signal.signal(signal.SIGUSR1, on_usr1)
    signal.signal(signal.SIGUSR2, on_usr2)
    signal.signal(signal.SIGTERM, on_term)
    if a.ready:
        open(a.ready, "w").close()
    poll = select.poll()
    for s in socks.values():
        poll.register(s, select.POLLIN)
    while not state["stop"]:
        if not state["hold"] and held:
            for fr in held:
                socks[a.a].send(fr)
            if log:
                log.write(f"{time.time():.6f} release {len(held)}\n")
                log.flush()
            held.clear()
        now = time.monotonic()
        while due and due[0][0] <= now:
            _t, sock, fr = due.popleft()
            try:
                sock.send(fr)
            except OSError:
                pass
        wait_ms = 20
        if due:
            wait_ms = max(0, min(20, int((due[0][0] - now) * 1000) + 1))
        try:
            ready = poll.poll(wait_ms)
        except InterruptedError:
            continue
        for fd, _ev in ready:
            name = by_fd[fd]
            while True:
                try:
                    data, addr = socks[name].recvfrom(65535, socket.MSG_DONTWAIT)
                except (BlockingIOError, InterruptedError):
                    break
                if addr[2] == PACKET_OUTGOING:
                    continue
                data = fix_tcp_checksum(data)
                if name == a.b and state["hold"]:
                    held.append(data)
                elif delay > 0:
                    due.append((time.monotonic() + delay, other[name], data))
                else:
                    try:
                        other[name].send(data)
                    except OSError:
                        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
