#!/usr/bin/env python3
"""Samples the kernel's struct tcp_info of every TCP socket on the lab ports,
through sock_diag (NETLINK_INET_DIAG, the interface `ss -tin` uses), in the
network namespace it runs in.

  tcpinfo.py sample --ports 5001,5002 --out FILE.csv [--interval-ms 10]
                    [--stop FILE] [--all-rows]
      Every interval, dumps all IPv4/IPv6 TCP sockets whose local or remote
      port is one of --ports and writes a CSV row for each socket whose
      timer-relevant fields changed since its previous row (or every row with
      --all-rows). Runs until --stop FILE exists or SIGTERM/SIGINT.

  tcpinfo.py wait --ports P --field total_rto --min 1 [--timeout S]
      Polls every 2 ms in-process and exits 0 as soon as max(FIELD) over the
      matching sockets >= MIN (1 on timeout); --then CMD runs CMD right
      away (e.g. an `nft delete rule`), without a shell script's latency.

  tcpinfo.py get --ports P --field backoff [--max]
      Prints one field of the (first / max over) matching sockets, for scripts
      that wait on a kernel state.

Columns: t_wall (CLOCK_REALTIME, same clock as tcpdump), laddr, lport, raddr,
rport, state, ca_state (0 Open, 1 Disorder, 2 CWR, 3 Recovery, 4 Loss),
timer (1 retransmit/probe/TLP, 2 keepalive, 3 timewait, 4 zero-window probe),
timer_ms (time left), rto_ms, rtt_ms, rttvar_ms, backoff, retransmits
(icsk_retransmits), probes, unacked, sacked, lost, retrans (in flight),
total_retrans, total_rto, total_rto_recoveries, snd_cwnd, snd_ssthresh,
cookie (kernel socket id).
"""
import argparse
import os
import signal
import socket
import struct
import sys
import time

NETLINK_INET_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 1
NLM_F_DUMP = 0x300
NLMSG_DONE = 3
NLMSG_ERROR = 2
INET_DIAG_INFO = 2

STATES = {1: "ESTABLISHED", 2: "SYN_SENT", 3: "SYN_RECV", 4: "FIN_WAIT1", 5: "FIN_WAIT2",
          6: "TIME_WAIT", 7: "CLOSE", 8: "CLOSE_WAIT", 9: "LAST_ACK", 10: "LISTEN", 11: "CLOSING",
          12: "NEW_SYN_RECV"}

COLS = ["t_wall", "laddr", "lport", "raddr", "rport", "state", "ca_state", "timer", "timer_ms",
        "rto_ms", "rtt_ms", "rttvar_ms", "backoff", "retransmits", "probes", "unacked", "sacked",
        "lost", "retrans", "total_retrans", "total_rto", "total_rto_recoveries", "snd_cwnd",
        "snd_ssthresh", "cookie"]
# Fields whose change makes a new row (rtt alone changing every ACK would not).
KEY = ["state", "ca_state", "timer", "rto_ms", "backoff", "retransmits", "probes", "unacked",
       "sacked", "lost", "retrans", "total_retrans", "total_rto"]


def dump(fam):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_INET_DIAG)
    try:
        req = struct.pack("=BBBBI", fam, socket.IPPROTO_TCP, 1 << (INET_DIAG_INFO - 1), 0, 0xFFFFFFFF)
        req += b"\0" * 48  # inet_diag_sockid: any
        hdr = struct.pack("=IHHII", 16 + len(req), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, 1, 0)
        s.send(hdr + req)
        out = []
        while True:
            data = s.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                ln, typ, _fl, _seq, _pid = struct.unpack_from("=IHHII", data, off)
                if typ == NLMSG_DONE:
                    return out
                if typ == NLMSG_ERROR:
                    return out
                out.append(parse(fam, data[off + 16: off + ln]))
                off += (ln + 3) & ~3
    finally:
        s.close()


def addr(fam, raw):
    return socket.inet_ntop(fam, raw[:4] if fam == socket.AF_INET else raw[:16])


def parse(fam, m):
    family, state, timer, _retrans = struct.unpack_from("=BBBB", m, 0)
    sport, dport = struct.unpack_from("!HH", m, 4)
    src, dst = m[8:24], m[24:40]
    cookie = struct.unpack_from("=Q", m, 44)[0]
    expires = struct.unpack_from("=I", m, 52)[0]
    r = {"laddr": addr(fam, src), "lport": sport, "raddr": addr(fam, dst), "rport": dport,
         "state": STATES.get(state, str(state)), "timer": timer, "timer_ms": expires, "cookie": cookie}
    off = 72
    while off + 4 <= len(m):
        ln, typ = struct.unpack_from("=HH", m, off)
        if ln < 4:
            break
        if typ == INET_DIAG_INFO:
            ti = m[off + 4: off + ln]
            r.update(tcp_info(ti))
        off += (ln + 3) & ~3
    return r


def tcp_info(b):
    g = lambda fmt, o: struct.unpack_from(fmt, b, o)[0] if len(b) >= o + struct.calcsize(fmt) else ""
    r = {"ca_state": g("=B", 1), "retransmits": g("=B", 2), "probes": g("=B", 3), "backoff": g("=B", 4)}
    rto = g("=I", 8)
    r["rto_ms"] = rto / 1000 if rto != "" else ""
    r["unacked"], r["sacked"], r["lost"], r["retrans"] = g("=I", 24), g("=I", 28), g("=I", 32), g("=I", 36)
    rtt, rttvar = g("=I", 68), g("=I", 72)
    r["rtt_ms"] = rtt / 1000 if rtt != "" else ""
    r["rttvar_ms"] = rttvar / 1000 if rttvar != "" else ""
    r["snd_ssthresh"], r["snd_cwnd"] = g("=I", 76), g("=I", 80)
    r["total_retrans"] = g("=I", 100)
    # tcpi_total_rto, tcpi_total_rto_recoveries (u16 each, Linux >= 6.7)
    r["total_rto"], r["total_rto_recoveries"] = g("=H", 240), g("=H", 242)
    return r


def matching(ports):
    rows = []
    for fam in (socket.AF_INET, socket.AF_INET6):
        for r in dump(fam):
            if r["lport"] in ports or r["rport"] in ports:
                if r["state"] != "LISTEN":
                    rows.append(r)
    return rows


def do_sample(a):
    ports = {int(p) for p in a.ports.split(",")}
    stop = [False]
    signal.signal(signal.SIGTERM, lambda *_: stop.__setitem__(0, True))
    signal.signal(signal.SIGINT, lambda *_: stop.__setitem__(0, True))
    last = {}
    with open(a.out, "w", buffering=1) as f:
        f.write(",".join(COLS) + "\n")
        if a.ready:
            open(a.ready, "w").close()
        nxt = time.time()
        while not stop[0] and not (a.stop and os.path.exists(a.stop)):
            now = time.time()
            for r in matching(ports):
                k = (r["cookie"],)
                sig = tuple(r.get(c, "") for c in KEY)
                if a.all_rows or last.get(k) != sig:
                    last[k] = sig
                    r["t_wall"] = "%.6f" % now
                    f.write(",".join(str(r.get(c, "")) for c in COLS) + "\n")
            nxt += a.interval_ms / 1000.0
            d = nxt - time.time()
            if d > 0:
                time.sleep(d)
            else:
                nxt = time.time()
    return 0


def do_get(a):
    ports = {int(p) for p in a.ports.split(",")}
    vals = [r.get(a.field, "") for r in matching(ports) if r.get(a.field, "") != ""]
    if a.state:
        vals = [r.get(a.field, "") for r in matching(ports) if r["state"] == a.state]
    if not vals:
        print("")
    elif a.max:
        print(max(vals))
    else:
        print(vals[0])
    return 0


def do_wait(a):
    ports = {int(p) for p in a.ports.split(",")}
    deadline = time.time() + a.timeout
    while time.time() < deadline:
        vals = [r.get(a.field, "") for r in matching(ports)]
        vals = [v for v in vals if v != ""]
        if vals and max(vals) >= a.min:
            t = time.time()
            if a.then:
                import subprocess
                subprocess.run(a.then, shell=True, check=False)
            print("%s %.6f %.6f" % (max(vals), t, time.time()))
            return 0
        time.sleep(0.002)
    print("timeout", file=sys.stderr)
    return 1


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample")
    s.add_argument("--ports", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--interval-ms", type=float, default=10)
    s.add_argument("--stop")
    s.add_argument("--ready")
    s.add_argument("--all-rows", action="store_true")
    g = sub.add_parser("get")
    g.add_argument("--ports", required=True)
    g.add_argument("--field", required=True)
    g.add_argument("--state")
    g.add_argument("--max", action="store_true")
    w = sub.add_parser("wait")
    w.add_argument("--ports", required=True)
    w.add_argument("--field", required=True)
    w.add_argument("--min", type=float, required=True)
    w.add_argument("--timeout", type=float, default=60)
    w.add_argument("--then", help="shell command run at once when the condition holds")
    a = p.parse_args()
    return {"sample": do_sample, "get": do_get, "wait": do_wait}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
