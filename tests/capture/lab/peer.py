#!/usr/bin/env python3
"""Application end points (Linux kernel TCP) for the capture lab.

Protocol of the request/response mode: each request is a 8-byte header
(!II: request payload length, wanted response length) followed by the
request payload; the server answers with exactly the wanted number of bytes.
Payload bytes are a fixed pattern, so both ends can check them.

  peer.py server --bind A --port P --mode rr|sink [--ready F] [--stop F]
                 [--max-conns N] [sockopts]
      Accepts connections (one thread each) until --stop F exists or
      --max-conns connections have finished. sink: reads to EOF, then closes.
      rr: answers requests until EOF, then closes. Prints a JSON summary.

  peer.py client --to A --port P --mode bulk|rr [--bytes N --chunk C
                 --pace-ms M] [--requests N --req-size S --resp-size S
                 --resp-size-at I:S ... --gap-ms G] [--connected F --go F]
                 [sockopts]
      One connection. --connected F is written (JSON: local port) right after
      connect and, with --go F, the client waits for F before sending.

  peer.py many --to A --bulk-port P --rr-port Q --flows N --concurrency C
               --seed S --duration-s D
      N short flows (half bulk uploads, half request/response), started at
      random times over D seconds, at most C at once. Prints a JSON summary.

sockopts (LAB_CC in the environment sets the default of --cc): --nodelay, --thin-lto (TCP_THIN_LINEAR_TIMEOUTS=16), --user-timeout
MS (TCP_USER_TIMEOUT), --sndbuf B (SO_SNDBUF), --rcvbuf B (SO_RCVBUF; on a
server, set on the listener before listen(), so the window scale and the
window follow it), --keepalive IDLE,INTVL,CNT (SO_KEEPALIVE with
TCP_KEEPIDLE, TCP_KEEPINTVL in seconds and TCP_KEEPCNT), --cc NAME
(TCP_CONGESTION).

server sink mode: --pause-after N --pause-s S stops reading for S seconds
once N bytes have been read (the receive buffer fills, the window closes:
the sender's zero-window probes). client: --expect-error ends with status 0
and the error in its JSON when the connection fails (e.g. ETIMEDOUT from
TCP_USER_TIMEOUT).
"""
import argparse
import json
import os
import random
import socket
import struct
import sys
import threading
import time

TCP_THIN_LINEAR_TIMEOUTS = 16
TCP_USER_TIMEOUT = 18
TCP_CONGESTION = 13


_BASE = bytes(i * 7 % 251 for i in range(251))
_BIG = _BASE * (1 + (1 << 20) // 251)


def pattern(n: int, off: int = 0) -> bytes:
    """Byte i of the stream is (i * 7) % 251; fast enough to keep a bulk
    sender ahead of the veth, so every data segment is one full MSS."""
    out = bytearray()
    while n > 0:
        o = off % 251
        k = min(n, len(_BIG) - o)
        out += _BIG[o:o + k]
        n -= k
        off += k
    return bytes(out)


def sockopts(s, a):
    if getattr(a, "nodelay", False):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if getattr(a, "thin_lto", False):
        s.setsockopt(socket.IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS, 1)
    if getattr(a, "user_timeout", 0):
        s.setsockopt(socket.IPPROTO_TCP, TCP_USER_TIMEOUT, int(a.user_timeout))
    if getattr(a, "sndbuf", 0):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, int(a.sndbuf))
    if getattr(a, "rcvbuf", 0):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, int(a.rcvbuf))
    if getattr(a, "keepalive", None):
        idle, intvl, cnt = (int(x) for x in a.keepalive.split(","))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, idle)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, intvl)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, cnt)
    cc = getattr(a, "cc", None) or os.environ.get("LAB_CC")
    if cc:
        s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())


def recv_exact(c, n):
    buf = bytearray()
    while len(buf) < n:
        b = c.recv(min(1 << 16, n - len(buf)))
        if not b:
            return None
        buf += b
    return bytes(buf)


def serve_one(c, mode, stats, lock, pause_after=0, pause_s=0.0):
    n_in = n_out = reqs = 0
    try:
        if mode == "sink":
            paused = False
            while True:
                b = c.recv(1 << 16)
                if not b:
                    break
                n_in += len(b)
                if pause_after and not paused and n_in >= pause_after:
                    paused = True
                    with lock:
                        stats["paused_at_bytes"] = n_in
                        stats["pause_start"] = round(time.time(), 6)
                    time.sleep(pause_s)
                    with lock:
                        stats["pause_end"] = round(time.time(), 6)
        else:
            while True:
                h = recv_exact(c, 8)
                if h is None:
                    break
                qlen, rlen = struct.unpack("!II", h)
                q = recv_exact(c, qlen) if qlen else b""
                if q is None:
                    break
                n_in += 8 + qlen
                c.sendall(pattern(rlen))
                n_out += rlen
                reqs += 1
        c.close()
        ok = True
    except OSError as e:
        ok = False
        stats.setdefault("errors", []).append(str(e))
    with lock:
        stats["conns"] += 1
        stats["ok"] += ok
        stats["bytes_in"] += n_in
        stats["bytes_out"] += n_out
        stats["requests"] += reqs


def do_server(a):
    fam = socket.AF_INET6 if ":" in a.bind else socket.AF_INET
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sockopts(ls, a)
    ls.bind((a.bind, a.port))
    ls.listen(512)
    ls.settimeout(0.1)
    if a.ready:
        open(a.ready, "w").close()
    stats = {"conns": 0, "ok": 0, "bytes_in": 0, "bytes_out": 0, "requests": 0}
    lock = threading.Lock()
    threads = []
    accepted = 0
    t0 = time.time()
    while True:
        if a.stop and os.path.exists(a.stop):
            break
        if a.max_conns and accepted >= a.max_conns:
            break
        if a.timeout and time.time() - t0 > a.timeout:
            break
        try:
            c, _ = ls.accept()
        except socket.timeout:
            continue
        accepted += 1
        c.settimeout(a.timeout or 120)
        sockopts(c, a)
        t = threading.Thread(target=serve_one, args=(c, a.mode, stats, lock, a.pause_after, a.pause_s),
                             daemon=True)
        t.start()
        threads.append(t)
    for t in threads:
        t.join(a.timeout or 120)
    ls.close()
    print(json.dumps(stats), flush=True)
    return 0


def rr_exchange(s, nreq, req_size, resp_size, resp_at, gap_ms):
    got = 0
    for i in range(nreq):
        rl = resp_at.get(i, resp_size)
        s.sendall(struct.pack("!II", req_size, rl) + pattern(req_size))
        r = recv_exact(s, rl)
        if r is None or r != pattern(rl):
            raise OSError("bad or short response %d" % i)
        got += rl
        if gap_ms:
            time.sleep(gap_ms / 1000.0)
    return got


def bulk_send(s, nbytes, chunk, pace_ms):
    off = 0
    while off < nbytes:
        n = min(chunk, nbytes - off)
        s.sendall(pattern(n, off))
        off += n
        if pace_ms:
            time.sleep(pace_ms / 1000.0)
    return off


def finish(s, timeout):
    s.shutdown(socket.SHUT_WR)
    s.settimeout(timeout or 120)
    while s.recv(4096):
        pass
    s.close()


def do_client(a):
    if not a.expect_error:
        return client_run(a)
    try:
        return client_run(a)
    except OSError as e:
        print(json.dumps({"error": e.strerror or str(e), "errno": e.errno, "t_error": round(time.time(), 6)}),
              flush=True)
        return 0


def client_run(a):
    fam = socket.AF_INET6 if ":" in a.to else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    sockopts(s, a)
    s.settimeout(a.timeout or 120)
    t0 = time.time()
    s.connect((a.to, a.port))
    t_conn = time.time()
    if a.connected:
        with open(a.connected + ".tmp", "w") as f:
            json.dump({"lport": s.getsockname()[1]}, f)
        os.rename(a.connected + ".tmp", a.connected)
    if a.go:
        while not os.path.exists(a.go):
            time.sleep(0.005)
    res = {"connect_s": round(t_conn - t0, 3), "lport": s.getsockname()[1]}
    if a.mode == "bulk":
        res["bytes"] = bulk_send(s, a.bytes, a.chunk, a.pace_ms)
    else:
        at = {}
        for x in a.resp_size_at or []:
            i, v = x.split(":")
            at[int(i)] = int(v)
        res["response_bytes"] = rr_exchange(s, a.requests, a.req_size, a.resp_size, at, a.gap_ms)
        res["requests"] = a.requests
    finish(s, a.timeout)
    res["total_s"] = round(time.time() - t0, 3)
    print(json.dumps(res), flush=True)
    return 0


def do_many(a):
    rnd = random.Random(a.seed)
    plan = []
    for i in range(a.flows):
        kind = "bulk" if i % 2 == 0 else "rr"
        start = rnd.uniform(0, a.duration_s)
        if kind == "bulk":
            plan.append((start, kind, {"bytes": rnd.choice([8, 16, 24, 32, 48]) * 1024}))
        else:
            plan.append((start, kind, {"requests": rnd.randint(2, 6), "resp": rnd.choice([1000, 2000, 3000, 5000])}))
    plan.sort()
    sem = threading.Semaphore(a.concurrency)
    res = {"flows": 0, "ok": 0, "failed": 0, "errors": {}}
    lock = threading.Lock()
    t0 = time.time()

    def run(kind, p):
        ok = False
        err = None
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sockopts(s, a)
            s.settimeout(a.timeout)
            s.connect((a.to, a.bulk_port if kind == "bulk" else a.rr_port))
            if kind == "bulk":
                bulk_send(s, p["bytes"], 4096, 10)
            else:
                rr_exchange(s, p["requests"], 100, p["resp"], {}, 100)
            finish(s, a.timeout)
            ok = True
        except OSError as e:
            err = type(e).__name__
        finally:
            sem.release()
        with lock:
            res["flows"] += 1
            res["ok"] += ok
            if not ok:
                res["failed"] += 1
                res["errors"][err] = res["errors"].get(err, 0) + 1

    threads = []
    for start, kind, p in plan:
        d = t0 + start - time.time()
        if d > 0:
            time.sleep(d)
        sem.acquire()
        t = threading.Thread(target=run, args=(kind, p), daemon=True)
        t.start()
        threads.append(t)
    for t in threads:
        t.join(a.timeout * 3)
    res["elapsed_s"] = round(time.time() - t0, 3)
    print(json.dumps(res), flush=True)
    return 0 if res["failed"] == 0 else 1


def add_sockopts(p):
    p.add_argument("--nodelay", action="store_true")
    p.add_argument("--thin-lto", action="store_true")
    p.add_argument("--user-timeout", type=int, default=0)
    p.add_argument("--sndbuf", type=int, default=0)
    p.add_argument("--rcvbuf", type=int, default=0)
    p.add_argument("--keepalive", help="IDLE,INTVL,CNT (seconds, seconds, probes)")
    p.add_argument("--cc")
    p.add_argument("--timeout", type=float, default=120)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("server")
    s.add_argument("--bind", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--mode", choices=["rr", "sink"], default="sink")
    s.add_argument("--ready")
    s.add_argument("--stop")
    s.add_argument("--max-conns", type=int, default=0)
    s.add_argument("--pause-after", type=int, default=0)
    s.add_argument("--pause-s", type=float, default=0.0)
    add_sockopts(s)
    c = sub.add_parser("client")
    c.add_argument("--to", required=True)
    c.add_argument("--port", type=int, required=True)
    c.add_argument("--mode", choices=["bulk", "rr"], default="bulk")
    c.add_argument("--bytes", type=int, default=100000)
    c.add_argument("--chunk", type=int, default=65536)
    c.add_argument("--pace-ms", type=float, default=0)
    c.add_argument("--requests", type=int, default=10)
    c.add_argument("--req-size", type=int, default=100)
    c.add_argument("--resp-size", type=int, default=1000)
    c.add_argument("--resp-size-at", action="append")
    c.add_argument("--gap-ms", type=float, default=0)
    c.add_argument("--connected")
    c.add_argument("--go")
    c.add_argument("--expect-error", action="store_true")
    add_sockopts(c)
    m = sub.add_parser("many")
    m.add_argument("--to", required=True)
    m.add_argument("--bulk-port", type=int, required=True)
    m.add_argument("--rr-port", type=int, required=True)
    m.add_argument("--flows", type=int, default=120)
    m.add_argument("--concurrency", type=int, default=40)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--duration-s", type=float, default=12)
    m.add_argument("--timeout", type=float, default=30)
    a = p.parse_args()
    return {"server": do_server, "client": do_client, "many": do_many}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
