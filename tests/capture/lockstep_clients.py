#!/usr/bin/env python3
"""Many kernel TCP connects at one moment, for tests/capture/lockstep-syn.sh.

  lockstep_clients.py --to ADDR --port P --count N --start-at EPOCH_S
                      [--timeout S] [--out FILE]

Creates N non-blocking sockets, sleeps until the wall-clock time EPOCH_S
(seconds since 1970, so two processes in two namespaces start together),
then calls connect() on all of them back to back. The kernel sends each SYN
and retransmits it on its own (unjittered) timer while the peer stays
silent. Waits until every socket has failed (ETIMEDOUT once tcp_syn_retries
is exhausted) or connected, or --timeout seconds have passed, and writes one
JSON object: {"count": N, "start_at": ..., "first_connect": t, "last_connect": t,
"sockets": [{"local_port": p, "connect_at": t, "result": "ETIMEDOUT", "end_at": t}, ...]}
(times: seconds since 1970, the same clock as the capture).
"""
import argparse
import errno
import json
import os
import select
import socket
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--to", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--start-at", type=float, required=True)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--out")
    a = ap.parse_args()

    socks = []
    for _ in range(a.count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.bind(("0.0.0.0", 0))  # the local port is known before the SYN goes out
        socks.append(s)
    delay = a.start_at - time.time()
    if delay > 0:
        time.sleep(delay)
    records = []
    for s in socks:
        t = time.time()
        rc = s.connect_ex((a.to, a.port))
        if rc not in (0, errno.EINPROGRESS):
            print(f"connect: {os.strerror(rc)}", file=sys.stderr)
            return 1
        records.append({"local_port": s.getsockname()[1], "connect_at": t, "result": None, "end_at": None})

    poller = select.poll()
    by_fd = {}
    for s, r in zip(socks, records):
        poller.register(s.fileno(), select.POLLOUT | select.POLLERR)
        by_fd[s.fileno()] = (s, r)
    deadline = time.time() + a.timeout
    while by_fd and time.time() < deadline:
        for fd, _ in poller.poll(200):
            s, r = by_fd.pop(fd)
            poller.unregister(fd)
            err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            r["result"] = "connected" if err == 0 else errno.errorcode.get(err, str(err))
            r["end_at"] = time.time()
    for s, r in by_fd.values():
        r["result"] = "pending"
    doc = {
        "count": a.count,
        "start_at": a.start_at,
        "first_connect": records[0]["connect_at"] if records else None,
        "last_connect": records[-1]["connect_at"] if records else None,
        "sockets": records,
    }
    text = json.dumps(doc, indent=1) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    for s in socks:
        s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
