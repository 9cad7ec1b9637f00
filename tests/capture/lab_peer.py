#!/usr/bin/env python3
"""Kernel TCP endpoints for the capture lab and the real-peer tests.

  lab_peer.py recv --bind ADDR --port P [--ready FILE] [--out FILE]
      Listens (Linux kernel TCP), accepts one connection, reads to EOF and
      writes one JSON line {"bytes": N, "sha256": HEX} to --out (or stdout).
      --ready FILE is created once the socket listens, so a script can wait.

  lab_peer.py send --to ADDR --port P --bytes N [--chunk C] [--pace-ms M]
      Connects, sends N bytes of a fixed pseudo-random pattern in chunks of
      C bytes with M ms between chunks (so a blackhole can start while the
      connection is busy), closes, and prints {"bytes": N, "sha256": HEX}.
"""
import argparse
import hashlib
import json
import socket
import sys
import time


def pattern(n: int) -> bytes:
    """Deterministic payload: SHA-256 counter blocks, so both ends agree."""
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hashlib.sha256(i.to_bytes(8, "big")).digest()
        i += 1
    return bytes(out[:n])


def do_recv(a) -> int:
    fam = socket.AF_INET6 if ":" in a.bind else socket.AF_INET
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.bind, a.port))
    ls.listen(1)
    if a.ready:
        open(a.ready, "w").close()
    if a.timeout:
        ls.settimeout(a.timeout)
    conn, _ = ls.accept()
    if a.timeout:
        conn.settimeout(a.timeout)
    h = hashlib.sha256()
    n = 0
    while True:
        b = conn.recv(1 << 16)
        if not b:
            break
        h.update(b)
        n += len(b)
    conn.close()
    ls.close()
    line = json.dumps({"bytes": n, "sha256": h.hexdigest()})
    if a.out:
        with open(a.out, "w") as f:
            f.write(line + "\n")
    else:
        print(line, flush=True)
    return 0


def do_send(a) -> int:
    data = pattern(a.bytes)
    fam = socket.AF_INET6 if ":" in a.to else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.connect((a.to, a.port))
    off = 0
    while off < len(data):
        s.sendall(data[off:off + a.chunk])
        off += a.chunk
        if a.pace_ms:
            time.sleep(a.pace_ms / 1000.0)
    s.shutdown(socket.SHUT_WR)
    # Wait for the peer's FIN so the close completes inside the capture.
    s.settimeout(a.timeout or None)
    while s.recv(4096):
        pass
    s.close()
    print(json.dumps({"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}), flush=True)
    return 0


def main() -> int:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("recv")
    r.add_argument("--bind", required=True)
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--ready")
    r.add_argument("--out")
    r.add_argument("--timeout", type=float, default=0)
    s = sub.add_parser("send")
    s.add_argument("--to", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--bytes", type=int, required=True)
    s.add_argument("--chunk", type=int, default=8192)
    s.add_argument("--pace-ms", type=float, default=0)
    s.add_argument("--timeout", type=float, default=0)
    a = p.parse_args()
    return do_recv(a) if a.cmd == "recv" else do_send(a)


if __name__ == "__main__":
    sys.exit(main())
