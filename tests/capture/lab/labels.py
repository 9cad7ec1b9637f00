#!/usr/bin/env python3
"""The Linux kernel's own label for every segment a lab socket sends again,
matched to its frame in the capture.

  labels.py trace --ns NAME --ns NAME --out RAW [--ready FILE]
      Runs labels.bt (bpftrace, tracepoints only) over the sockets of the
      given network namespaces until SIGTERM/SIGINT. RAW gets bpftrace's
      events; RAW.meta.json the clocks (CLOCK_REALTIME - CLOCK_MONOTONIC,
      read before and after), the BTF offsets passed to the program, the
      bpftrace version and any lost events. Mounts tracefs at
      /sys/kernel/tracing when it is missing. --ready FILE is written once
      the probes are attached.

  labels.py match --raw RAW --pcap PCAP --out CSV [--summary JSON]
                  [--capture-addr A]
      Classifies each event by its kernel stack (LABELS below), matches it
      to its frame (direction, sequence range, time) and writes one CSV row
      per event (COLUMNS). --capture-addr is the address of the host on
      whose interface the capture was taken (default 198.18.0.1): its own
      transmissions must all be in the file; the far end's may have been
      dropped on the way. Exit status 1 when a transmission of the capture
      host has no frame, when a frame that repeats sequence space has no
      label, or when bpftrace lost events: the labels are then incomplete.

Classes (the `label` column) and the kernel code that decides them (Linux
6.x, net/ipv4/tcp_timer.c, tcp_output.c, tcp_input.c, tcp_recovery.c,
inet_connection_sock.c, tcp_minisocks.c):

  rto              tcp_retransmit_timer: RTO expiry of an established (or
                   closing) socket; retransmits the head (SND.UNA)
  syn-rto          tcp_retransmit_timer on a SYN (SYN_SENT): the SYN timer
  synack-timer     reqsk_timer_handler: a request socket's SYN-ACK timer
  syn-reply        tcp_check_req: a SYN-ACK sent again because the peer sent
                   its SYN again (inet_rtx_syn_ack from tcp_check_req)
  tlp              tcp_send_loss_probe retransmitting the last segment
  tlp-new          tcp_send_loss_probe sending new data (tcp_write_xmit,
                   push_one = 2): a probe, not a retransmission
  fast-retx        tcp_xmit_retransmit_queue from ACK processing, socket not
                   in CA_Loss: fast retransmit, SACK or RACK recovery
  rack-timer       tcp_xmit_retransmit_queue from tcp_rack_reo_timeout
                   (RACK's reordering timer marked the segment lost)
  slow-start-retx  tcp_xmit_retransmit_queue in CA_Loss: the rest of the
                   window resent, ACK-clocked, after an RTO (go-back-N)
  mtu-retx         tcp_simple_retransmit (a path MTU drop)
  zero-window-probe  tcp_send_probe0 (tcp_write_wakeup): window probe
  keepalive        tcp_keepalive_timer (tcp_write_wakeup): keep-alive
  other            a retransmission from none of the above (reported)

The scorer (score_labels.py) maps these to the checker's events.
"""
import argparse
import csv
import ctypes
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the lab's scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labpcap  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CA_STATES = {0: "Open", 1: "Disorder", 2: "CWR", 3: "Recovery", 4: "Loss"}
TCP_CA_LOSS = 4
# A kernel event and its frame are at most this far apart (the capture's
# timestamp is taken inside the same dev_queue_xmit call the tracepoint
# brackets; measured |dt| is tens of microseconds, summary.max_match_dt_us).
MATCH_WINDOW_S = 0.05
# A far end's frame may reach the capture point this late (a relay holding it).
FAR_LAG_S = 1.0
# GSO pieces of one retransmitted skb follow each other within this.
GSO_GAP_S = 0.002
COLUMNS = ["frame", "t_wall", "src", "sport", "dst", "dport", "seq", "end_seq", "rel_seq", "len", "flags",
           "label", "decided_by", "path", "ca_state", "icsk_retransmits", "err", "more_frames", "copies",
           "dt_us", "note"]


# ---------------------------------------------------------------- BTF

def _btf_types(path="/sys/kernel/btf/vmlinux"):
    d = open(path, "rb").read()
    magic, _ver, _fl, hdr_len, type_off, type_len, str_off, _str_len = struct.unpack_from("<HBBIIIII", d, 0)
    if magic != 0xEB9F:
        raise SystemExit(f"{path}: not BTF (magic {magic:#x})")
    tb, sb = hdr_len + type_off, hdr_len + str_off

    def name(off):
        return d[sb + off:d.index(b"\0", sb + off)].decode()
    types, p, end = [None], tb, tb + type_len
    # Bytes after the 12-byte btf_type: fixed, and per vlen item (kinds 1-19).
    fixed = {1: 4, 3: 12, 14: 4, 17: 4}
    per = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}
    while p < end:
        name_off, info, size = struct.unpack_from("<III", d, p)
        p += 12
        kind, vlen, kflag = (info >> 24) & 0x1F, info & 0xFFFF, info >> 31
        t = {"kind": kind, "name": name(name_off), "type": size}
        if kind in (4, 5):
            t["members"] = []
            for i in range(vlen):
                mn, mt, mo = struct.unpack_from("<III", d, p + 12 * i)
                t["members"].append((name(mn), mt, (mo & 0xFFFFFF) if kflag else mo))
        p += fixed.get(kind, 0) + per.get(kind, 0) * vlen
        types.append(t)
    return types


def btf_offset(types, struct_name, member):
    """offsetof(struct struct_name, member) in bytes (anonymous members searched)."""
    skip = (8, 9, 10, 11, 18)  # typedef, volatile, const, restrict, type_tag

    def resolve(tid):
        t = types[tid]
        while t["kind"] in skip:
            t = types[t["type"]]
        return t

    def find(t, m):
        for mn, mt, mo in t["members"]:
            if mn == m:
                return mo
            if mn == "":
                tt = resolve(mt)
                if tt["kind"] in (4, 5):
                    r = find(tt, m)
                    if r is not None:
                        return mo + r
        return None
    for t in types:
        if t and t["kind"] == 4 and t["name"] == struct_name and t["members"]:
            bits = find(t, member)
            if bits is not None:
                return bits // 8
    raise SystemExit(f"BTF: no member {member} in struct {struct_name}")


# ---------------------------------------------------------------- trace

def clock_offset_ns():
    """CLOCK_REALTIME - CLOCK_MONOTONIC, from the tightest of 20 readings."""
    best = None
    for _ in range(20):
        a = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        r = time.clock_gettime_ns(time.CLOCK_REALTIME)
        b = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        if best is None or b - a < best[0]:
            best = (b - a, r - (a + b) // 2)
    return best[1], best[0]


def ensure_tracefs():
    if os.path.isdir("/sys/kernel/tracing/events/tcp"):
        return
    r = subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"], capture_output=True, text=True)
    if r.returncode != 0 or not os.path.isdir("/sys/kernel/tracing/events/tcp"):
        raise SystemExit("labels: tracefs is not mounted and mounting it failed: " + r.stderr.strip())


def do_trace(a):
    ensure_tracefs()
    inums = [os.stat(f"/run/netns/{n}").st_ino for n in a.ns]
    while len(inums) < 2:
        inums.append(inums[0])
    types = _btf_types()
    off_cb = btf_offset(types, "sk_buff", "cb")
    off_timer = btf_offset(types, "inet_connection_sock", "icsk_retransmit_timer")
    ver = subprocess.run(["bpftrace", "--version"], capture_output=True, text=True).stdout.strip()
    meta = {"bpftrace": ver, "netns": dict(zip(a.ns, inums)), "btf_offsets": {
        "sk_buff.cb": off_cb, "inet_connection_sock.icsk_retransmit_timer": off_timer}}
    meta["clock_before_ns"], meta["clock_before_uncertainty_ns"] = clock_offset_ns()
    env = dict(os.environ)
    # Each event names its stack by id; a bigger stack map makes a collision
    # (an id reused by another stack before it is printed) unlikely.
    env.setdefault("BPFTRACE_MAP_KEYS_MAX", "65536")
    env.setdefault("BPFTRACE_PERF_RB_PAGES", "1024")
    out = open(a.out, "w")
    err = open(a.out + ".err", "w")
    libc = ctypes.CDLL(None, use_errno=True)

    def die_with_parent():  # PR_SET_PDEATHSIG: bpftrace ends (its END runs) if we are killed
        libc.prctl(1, signal.SIGTERM)
    p = subprocess.Popen(["bpftrace", os.path.join(HERE, "labels.bt"), str(inums[0]), str(inums[1]),
                          str(off_cb), str(off_timer)], stdout=out, stderr=err, env=env,
                         preexec_fn=die_with_parent)
    stop = {"now": False}

    def on_signal(_s, _f):
        stop["now"] = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    t0 = time.time()
    ready = False
    while not stop["now"]:
        if p.poll() is not None:
            raise SystemExit("labels: bpftrace exited: " + open(a.out + ".err").read()[-2000:])
        if not ready:
            with open(a.out) as f:
                if any(l.startswith("B ") for l in f):
                    ready = True
                    if a.ready:
                        open(a.ready, "w").close()
            if not ready and time.time() - t0 > 120:
                p.kill()
                raise SystemExit("labels: bpftrace did not attach in 120 s")
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    out.close()
    err.close()
    meta["clock_after_ns"], meta["clock_after_uncertainty_ns"] = clock_offset_ns()
    lost = 0
    for path in (a.out, a.out + ".err"):
        for line in open(path):
            if line.startswith("Lost ") and "events" in line:
                lost += int(line.split()[1])
    meta["lost_events"] = lost
    meta["exit_status"] = p.returncode
    with open(a.out + ".meta.json", "w") as f:
        json.dump(meta, f, indent=1)
    return 0


# ---------------------------------------------------------------- match

def ip_of_word(w: int) -> str:
    return socket.inet_ntoa(struct.pack("<I", w))


def parse_raw(path):
    """Events of labels.bt: dicts with kind, fields and stack (innermost first)."""
    evs, cur = [], None
    for line in open(path):
        if line[:1] in " \t":
            if cur is not None and line.strip():
                # tcp_xmit_retransmit_queue.part.0+0x12: the function's own name
                # (compiler clones: .part.N, .constprop.N, .isra.N, .cold).
                fn = line.strip().split("+")[0].split(".")[0]
                cur["stack"].append(fn)
            continue
        w = line.split()
        if not w or len(w[0]) != 1 or w[0] not in "RSQCT":
            continue
        cur = {"kind": w[0], "ns": int(w[1]), "t_mono_ns": int(w[2]), "stack": [], "f": w[3:]}
        evs.append(cur)
    return evs


# Where a softirq's own stack ends (beyond: whatever it interrupted).
CONTEXT_BOUNDARY = {"call_timer_fn", "handle_softirqs", "__do_softirq", "net_rx_action", "do_softirq",
                    "__irq_exit_rcu", "process_backlog", "__napi_poll"}


def own_context(stack):
    """The frames of the event's own context, innermost first: up to the
    softirq entry (a softirq runs on top of whatever it interrupted, which
    may be another socket's work)."""
    out = []
    for fn in stack:
        if fn in CONTEXT_BOUNDARY:
            break
        out.append(fn)
    return out


def path_of(stack):
    """The TCP call chain of the event's own context, outermost first."""
    keep = [fn for fn in own_context(stack) if fn.startswith(("tcp_", "__tcp_", "inet_", "reqsk_"))]
    return ">".join(reversed(keep[:8]))


def classify(ev):
    """(label, decided_by) for an event, or None when it is not a (re)transmission we label."""
    st = own_context(ev["stack"])
    has = set(st)
    k = ev["kind"]
    if k == "R":
        flags = ev["tcp_flags"]
        if "tcp_send_loss_probe" in has:
            return "tlp", "tcp_send_loss_probe"
        if "tcp_retransmit_timer" in has:
            return ("syn-rto" if flags & labpcap.TH_SYN else "rto"), "tcp_retransmit_timer"
        if "tcp_rack_reo_timeout" in has:
            return "rack-timer", "tcp_rack_reo_timeout"
        if "tcp_simple_retransmit" in has:
            return "mtu-retx", "tcp_simple_retransmit"
        if "tcp_xmit_retransmit_queue" in has:
            return ("slow-start-retx" if ev["ca_state"] == TCP_CA_LOSS else "fast-retx"), "tcp_xmit_retransmit_queue"
        return "other", (st[2] if len(st) > 2 else "?")
    if k == "S":
        if "tcp_check_req" in has:
            return "syn-reply", "tcp_check_req"
        if "reqsk_timer_handler" in has or "tcp_retransmit_timer" in has:
            return "synack-timer", "reqsk_timer_handler" if "reqsk_timer_handler" in has else "tcp_retransmit_timer"
        return "other", (st[2] if len(st) > 2 else "?")
    if k == "Q":
        if "__tcp_retransmit_skb" in has:
            return None  # an R event has it
        if "tcp_send_probe0" in has:
            return "zero-window-probe", "tcp_send_probe0"
        if "tcp_keepalive_timer" in has:
            return "keepalive", "tcp_keepalive_timer"
        if "tcp_send_loss_probe" in has:
            return "tlp-new", "tcp_send_loss_probe"
        return None  # an ordinary send after the timer fired
    return None


def decode(ev, offset_ns):
    f = ev["f"]
    ev["t_wall"] = (ev["t_mono_ns"] + offset_ns) / 1e9
    if ev["kind"] == "R":
        ev.update(src=f[0], sport=int(f[1]), dst=f[2], dport=int(f[3]), seq=int(f[4]), end_seq=int(f[5]),
                  tcp_flags=int(f[6]), err=int(f[7]), state=int(f[8]), ca_state=int(f[9]),
                  retransmits=int(f[10]), snd_una=int(f[11]), snd_nxt=int(f[12]))
    elif ev["kind"] == "S":
        ev.update(src=f[0], sport=int(f[1]), dst=f[2], dport=int(f[3]), seq=int(f[4]),
                  end_seq=(int(f[4]) + 1) % (1 << 32), tcp_flags=labpcap.TH_SYN | labpcap.TH_ACK, err=0,
                  num_timeout=int(f[5]))
    elif ev["kind"] == "Q":
        ev.update(src=ip_of_word(int(f[0])), sport=int(f[1]), dst=ip_of_word(int(f[2])), dport=int(f[3]),
                  seq=int(f[4]), ack=int(f[5]), tcp_flags=int(f[6]), payload=int(f[7]), snd_una=int(f[8]),
                  snd_nxt=int(f[9]), pending=int(f[10]), why=int(f[11]), err=0)
        ev["end_seq"] = (ev["seq"] + ev["payload"] + (1 if ev["tcp_flags"] & (labpcap.TH_SYN | labpcap.TH_FIN) else 0)) % (1 << 32)
    elif ev["kind"] == "C":
        ev.update(src=f[0], sport=int(f[1]), dst=f[2], dport=int(f[3]), ca_state=int(f[4]))
    elif ev["kind"] == "T":
        ev.update(sport=int(f[0]), dport=int(f[1]), pending=int(f[2]), owned=int(f[3]))
    return ev


def _compatible(ev, fr):
    if fr.seq != ev["seq"]:
        return False
    if ev["kind"] == "S":
        return fr.flags & (labpcap.TH_SYN | labpcap.TH_ACK) == labpcap.TH_SYN | labpcap.TH_ACK
    if ev["kind"] == "Q":
        return fr.payload == ev["payload"] and fr.flags == ev["tcp_flags"]
    return fr.seq_len > 0


def _dt_cost(ev, fr, near, sent_at=None):
    """|dt| when the frame can be this event's transmission, else None. At
    the capture host's own interface the frame is within MATCH_WINDOW_S of
    the event; a far end's frame crossed the network (a bridge, or a relay
    that may hold it up to FAR_LAG_S) and cannot precede it by more than
    MATCH_WINDOW_S. `sent_at`: the far frame's send time read from its TSval
    (far_send_times): then dt is from that, within MATCH_WINDOW_S, so a
    held original and the resend released with it are told apart."""
    dt = fr.time - ev["t_wall"]
    if sent_at is not None and not near:
        if dt < -MATCH_WINDOW_S or dt > FAR_LAG_S:
            return None
        ds = sent_at - ev["t_wall"]
        return abs(ds) if abs(ds) <= MATCH_WINDOW_S else None
    if abs(dt) <= MATCH_WINDOW_S or (not near and 0 <= dt <= FAR_LAG_S):
        return abs(dt)
    return None


def far_send_times(cap, capture_addr):
    """For each frame of a far end (not capture_addr) that carries a TSval:
    its send time, from the sender's 1 kHz TSval clock (Linux:
    tcp_time_stamp in ms plus a per-connection offset) placed on the capture
    clock by the frame that arrived soonest after it left (the largest TSval
    - capture time of the direction). A frame held on the way (a relay's
    delay spike) arrives late, but its TSval still says when it left: the
    original of a segment and its resend, released together, are hundreds
    of ms apart here. Exact to the tick (1 ms) plus that least lag."""
    rel, best = {}, {}
    first = {}
    for fr in cap.frames:
        if fr.src == capture_addr or fr.tsval is None:
            continue
        ref = first.setdefault(fr.key, fr.tsval)
        d = (fr.tsval - ref) % (1 << 32)
        ms = d - (1 << 32) if d >= 1 << 31 else d
        rel[fr.number] = (fr.key, ms)
        v = ms - fr.time * 1000.0
        best[fr.key] = max(best.get(fr.key, v), v)
    return {n: (ms - best[k]) / 1000.0 for n, (k, ms) in rel.items()}


def _assign(evs, frs, near, sent_at=None):
    """Order-preserving matching of events to frames (both in time order):
    the most pairs, then the least total |dt| (an event may have no frame: a
    transmission dropped before the capture point)."""
    n, m = len(evs), len(frs)
    best = [[(0, 0.0)] * (m + 1) for _ in range(n + 1)]
    step = [[None] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 and j == 0:
                continue
            cands = []
            if i > 0:
                cands.append((best[i - 1][j], "e"))
            if j > 0:
                cands.append((best[i][j - 1], "f"))
            if i > 0 and j > 0:
                c = (_dt_cost(evs[i - 1], frs[j - 1], near, (sent_at or {}).get(frs[j - 1].number))
                     if _compatible(evs[i - 1], frs[j - 1]) else None)
                if c is not None:
                    k, cost = best[i - 1][j - 1]
                    cands.append(((k + 1, cost - c), "m"))
            best[i][j], step[i][j] = max(cands, key=lambda x: x[0])
    pairs, i, j = [], n, m
    while i > 0 or j > 0:
        st = step[i][j]
        if st == "m":
            pairs.append((evs[i - 1], frs[j - 1]))
            i, j = i - 1, j - 1
        elif st == "e":
            i -= 1
        else:
            j -= 1
    return pairs


def match_events(labelled, cap, capture_addr):
    copies_of = {}
    copy_to_first = labpcap.capture_copies(cap)
    for c, first in copy_to_first.items():
        copies_of.setdefault(first, []).append(c)
    # Candidate frames per (direction, SEQ): first copies only.
    groups = {}
    for fr in cap.frames:
        if fr.number not in copy_to_first:
            groups.setdefault((fr.key, fr.seq), []).append(fr)
    by_key = {}
    for fr in cap.frames:
        by_key.setdefault(fr.key, []).append(fr)
    pending = {}
    for ev in labelled:
        ev["frame"], ev["more_frames"], ev["copies"], ev["dt_us"] = None, [], [], None
        if not ev["err"]:
            pending.setdefault(((ev["src"], ev["sport"], ev["dst"], ev["dport"]), ev["seq"]), []).append(ev)
    used = set()
    sent_at = far_send_times(cap, capture_addr)
    for gk, evs in pending.items():
        evs.sort(key=lambda e: e["t_wall"])
        near = gk[0][0] == capture_addr
        for ev, fr in _assign(evs, groups.get(gk, []), near, sent_at):
            ev["frame"] = fr.number
            ev["dt_us"] = round((fr.time - ev["t_wall"]) * 1e6)
            ev["copies"] += copies_of.get(fr.number, [])
            used.add(fr.number)
    # One skb of several MSS goes out as several frames (GSO).
    for ev in labelled:
        if ev["kind"] != "R" or ev["frame"] is None:
            continue
        frames = by_key[(ev["src"], ev["sport"], ev["dst"], ev["dport"])]
        last = next(f for f in frames if f.number == ev["frame"])
        end = last.end_seq
        for fr in frames[frames.index(last) + 1:]:
            if end == ev["end_seq"] or fr.time - last.time > GSO_GAP_S:
                break
            if fr.seq == end and fr.number not in used and fr.number not in copy_to_first:
                ev["more_frames"].append(fr.number)
                ev["copies"] += copies_of.get(fr.number, [])
                used.add(fr.number)
                end, last = fr.end_seq, fr
    return used


def do_match(a):
    meta = json.load(open(a.raw + ".meta.json"))
    offset_ns = (meta["clock_before_ns"] + meta["clock_after_ns"]) // 2
    drift_us = abs(meta["clock_before_ns"] - meta["clock_after_ns"]) / 1000
    evs = [decode(e, offset_ns) for e in parse_raw(a.raw)]
    cap = labpcap.read(a.pcap)
    labelled = []
    for ev in evs:
        c = classify(ev)
        if c is None:
            continue
        ev["label"], ev["decided_by"] = c
        labelled.append(ev)
    match_events(labelled, cap, a.capture_addr)
    # Relative sequence numbers: from each direction's first frame in the
    # capture (its SYN's ISN when the handshake is in it, as Wireshark).
    base, syn_seen = {}, set()
    for fr in cap.frames:
        if fr.key not in base or (fr.flags & labpcap.TH_SYN and fr.key not in syn_seen):
            base[fr.key] = fr.seq
        if fr.flags & labpcap.TH_SYN:
            syn_seen.add(fr.key)
    problems, notes = [], []
    for ev in labelled:
        note = ""
        if ev["err"]:
            note = f"not sent: __tcp_retransmit_skb returned {ev['err']}" + (
                " (EBUSY: the previous copy was still in the host's queue)" if ev["err"] == -16 else "")
        elif ev["frame"] is None:
            if ev["src"] == a.capture_addr:
                note = "NOT FOUND in the capture"
                problems.append(f"{ev['label']} {ev['src']}:{ev['sport']} seq {ev['seq']} at {ev['t_wall']:.6f}: no frame")
            else:
                note = "not in the capture: sent by the far end, dropped before the capture point"
        ev["note"] = note
    labelled_frames = {ev["frame"] for ev in labelled if ev["frame"]}
    for ev in labelled:
        labelled_frames.update(ev["more_frames"])
    copies = labpcap.capture_copies(cap)
    rep = labpcap.repeats(cap.frames, copies)
    unlabelled = [n for n, kind in rep.items() if kind == "repeat" and n not in copies and n not in labelled_frames]
    for n in unlabelled:
        fr = next(f for f in cap.frames if f.number == n)
        problems.append(f"frame {n} ({fr.src}:{fr.sport} seq {fr.seq} len {fr.payload}) repeats sequence space but has no kernel label")
    if meta.get("lost_events"):
        problems.append(f"bpftrace lost {meta['lost_events']} events")
    for ev in labelled:
        if not ev["stack"]:
            problems.append(f"event at {ev['t_wall']:.6f} has no kernel stack")
    rows = []
    for ev in sorted(labelled, key=lambda e: e["t_wall"]):
        key = (ev["src"], ev["sport"], ev["dst"], ev["dport"])
        b = base.get(key)
        rel = "" if b is None else (ev["seq"] - b) % (1 << 32)
        rows.append({
            "frame": ev["frame"] or "", "t_wall": f"{ev['t_wall']:.6f}", "src": ev["src"], "sport": ev["sport"],
            "dst": ev["dst"], "dport": ev["dport"], "seq": ev["seq"], "end_seq": ev["end_seq"], "rel_seq": rel,
            "len": (ev["end_seq"] - ev["seq"]) % (1 << 32), "flags": labpcap.flag_text(ev["tcp_flags"]),
            "label": ev["label"], "decided_by": ev["decided_by"], "path": path_of(ev["stack"]),
            "ca_state": CA_STATES.get(ev.get("ca_state"), "") if ev["kind"] == "R" else "",
            "icsk_retransmits": ev.get("retransmits", "") if ev["kind"] == "R" else "",
            "err": ev["err"], "more_frames": ";".join(map(str, ev["more_frames"])),
            "copies": ";".join(map(str, ev["copies"])), "dt_us": "" if ev["dt_us"] is None else ev["dt_us"],
            "note": ev["note"]})
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    by_label = {}
    for ev in labelled:
        by_label[ev["label"]] = by_label.get(ev["label"], 0) + 1
    dts = [abs(ev["dt_us"]) for ev in labelled if ev["dt_us"] is not None]
    timers = [e for e in evs if e["kind"] == "T"]
    summary = {
        "events": len(labelled), "by_label": dict(sorted(by_label.items())),
        "matched": sum(1 for ev in labelled if ev["frame"]),
        "not_sent": sum(1 for ev in labelled if ev["err"]),
        "not_in_capture_far_end": sum(1 for ev in labelled if not ev["err"] and not ev["frame"] and ev["src"] != a.capture_addr),
        "not_found": sum(1 for ev in labelled if not ev["err"] and not ev["frame"] and ev["src"] == a.capture_addr),
        "repeated_frames": sum(1 for n, k in rep.items() if k == "repeat" and n not in copies),
        "repeated_frames_labelled": sum(1 for n, k in rep.items() if k == "repeat" and n not in copies and n in labelled_frames),
        "capture_copies": len(copies),
        "max_match_dt_us": max(dts) if dts else None,
        "write_timer_deferred": sum(1 for e in timers if e["owned"]),
        "clock_offset_drift_us": round(drift_us, 1), "lost_events": meta.get("lost_events", 0),
        "capture_addr": a.capture_addr, "problems": problems,
        "bpftrace": meta.get("bpftrace", ""), "time_alignment":
            "CLOCK_MONOTONIC (bpftrace nsecs) + (CLOCK_REALTIME - CLOCK_MONOTONIC) read before and after the run",
    }
    if a.summary:
        with open(a.summary, "w") as f:
            json.dump(summary, f, indent=1)
    print(f"labels: {summary['events']} events {summary['by_label']}; matched {summary['matched']}, "
          f"not sent {summary['not_sent']}, far end not captured {summary['not_in_capture_far_end']}; "
          f"repeated frames {summary['repeated_frames_labelled']}/{summary['repeated_frames']} labelled; "
          f"max |dt| {summary['max_match_dt_us']} us", file=sys.stderr)
    for p in problems:
        print("labels: PROBLEM: " + p, file=sys.stderr)
    return 1 if problems else 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("trace")
    t.add_argument("--ns", action="append", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--ready")
    m = sub.add_parser("match")
    m.add_argument("--raw", required=True)
    m.add_argument("--pcap", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--summary")
    m.add_argument("--capture-addr", default="198.18.0.1")
    a = p.parse_args()
    return do_trace(a) if a.cmd == "trace" else do_match(a)


if __name__ == "__main__":
    sys.exit(main())
