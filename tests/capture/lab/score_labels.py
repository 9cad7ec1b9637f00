#!/usr/bin/env python3
"""Scores pcap-replay's classification of every transmission against the
Linux kernel's own labels (NAME.labels.csv, made by labels.py with bpftrace
while the lab captured NAME.pcap).

  score_labels.py [--bin build/bin/pcap-replay] [--dir tests/captures/lab]
                  [--profile linux] [--thresholds FILE] [--json OUT] [NAME...]

For every frame that carries sequence space (data, SYN or FIN) or that the
kernel labelled (a window probe or keep-alive carries none), the TRUTH is:

  * the kernel's label of that transmission (labels.csv; a capture copy of
    a labelled frame is a copy, see below);
  * capture-copy: the same packet captured a second time (same direction,
    SEQ, ACK, flags, length, IP ID and TSval at most 1 ms after it:
    labpcap.capture_copies);
  * out-of-order: a first transmission (no kernel label, overlapping
    nothing its direction showed before) that comes after higher data;
  * send: any other first transmission.

It is compared with the event pcap-replay's `timeline --csv` gives that
frame (`none` when no transmission row names it). KERNEL_TO_CHECKER, the one
table below, maps each truth to the event a correct checker gives. Per class
(the checker's vocabulary): recall = frames whose truth maps to the class
and that the checker gave that class / frames whose truth maps to it;
precision = the same / frames the checker gave that class. A class the
checker does not emit yet has recall 0; a class with no frame either way is
n/a. Also printed: the confusion table (truth x checker event), per capture
the RTO expiries (TcpExtTCPTimeouts, the kernel's labelled expiries of the
sender namespace, those in the capture, those it shows as resends, the
checker's), and the MUST findings of `check --json --profile linux`; and
how many labelled resends the capture shows as the first copy of their
sequence space (at a capture away from the sender, every earlier copy
dropped before it: no capture can show them resent; they stay counted
under their kernel label), with the checker's events for them.

--thresholds FILE: lines `CLASS RECALL_MIN PRECISION_MIN` (percent, `-` for
none) and `must MAX`; the exit status is 1 when a class is below its
minimum or there are more MUST findings than MAX (2 on unusable input).
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the lab's scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labpcap  # noqa: E402

# Kernel label (labels.py) or derived truth -> the event of `timeline --csv`
# a correct checker gives that frame.
KERNEL_TO_CHECKER = {
    "send": "send",                           # first transmission
    "out-of-order": "out-of-order",           # first transmission, after higher data at the capture point
    "capture-copy": "capture-copy",           # the same packet captured twice
    "rto": "rto",                             # tcp_retransmit_timer
    "syn-rto": "syn-rto",                     # tcp_retransmit_timer on a SYN
    "synack-timer": "syn-rto",                # reqsk_timer_handler: the SYN-ACK's own timer
    "syn-reply": "syn-reply",                 # tcp_check_req: SYN-ACK answering a duplicate SYN
    "tlp": "tlp",                             # tcp_send_loss_probe, retransmission
    "tlp-new": "tlp-new",                     # tcp_send_loss_probe, new data
    "fast-retx": "fast-retx",                 # tcp_xmit_retransmit_queue from an ACK, not CA_Loss
    "rack-timer": "fast-retx",                # tcp_rack_reo_timeout (RACK: the checker's fast-retx)
    "slow-start-retx": "slow-start-retx",     # tcp_xmit_retransmit_queue in CA_Loss
    "zero-window-probe": "zero-window-probe", # tcp_send_probe0
    "keepalive": "keepalive",                 # tcp_keepalive_timer
    "mtu-retx": "unclassified",               # tcp_simple_retransmit: no cause on the wire
    "other": "unclassified",                  # a caller labels.py does not know
}
# The events of a transmission in `timeline --csv` (the others, ack, dup-ack,
# sack, are the peer's ACKs as the sender saw them).
TRANSMISSION_EVENTS = {"send", "rto", "syn-rto", "fast-retx", "tlp", "slow-start-retx", "spurious-retx",
                       "unclassified", "out-of-order", "keepalive", "zero-window-probe", "syn-reply", "tlp-new",
                       "capture-copy"}
CLASS_ORDER = ["send", "out-of-order", "capture-copy", "rto", "syn-rto", "syn-reply", "tlp", "tlp-new",
               "fast-retx", "slow-start-retx", "zero-window-probe", "keepalive", "spurious-retx",
               "unclassified", "none"]
TRUTH_ORDER = ["send", "out-of-order", "capture-copy", "rto", "syn-rto", "synack-timer", "syn-reply", "tlp",
               "tlp-new", "fast-retx", "rack-timer", "slow-start-retx", "zero-window-probe", "keepalive",
               "mtu-retx", "other"]
TARGET = 99.0
# Kernel labels of a segment sent again (not a probe without sequence space,
# not new data).
RESEND_LABELS = {"rto", "syn-rto", "synack-timer", "syn-reply", "tlp", "fast-retx", "rack-timer",
                 "slow-start-retx", "mtu-retx", "other"}
EXPIRY_LABELS = {"rto", "syn-rto", "synack-timer"}


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def truth_of(name, d):
    """{frame: truth class} and the capture."""
    cap = labpcap.read(os.path.join(d, name + ".pcap"))
    copies = labpcap.capture_copies(cap)
    rep = labpcap.repeats(cap.frames, copies)
    truth = {}
    for n, kind in rep.items():
        truth[n] = "out-of-order" if kind == "out-of-order" else "send"
    with open(os.path.join(d, name + ".labels.csv")) as f:
        for row in csv.DictReader(f):
            frames = [row["frame"]] + [x for x in row["more_frames"].split(";") if x]
            for x in frames:
                if x:
                    truth[int(x)] = row["label"]
    for c in copies:
        truth[c] = "capture-copy"
    return truth, cap


def checker_events(binary, profile, pcap):
    rc, out, err = run([binary, "timeline", "--csv", "--profile", profile, pcap])
    if rc not in (0, 1):
        raise SystemExit(f"score_labels: {binary} timeline {pcap} failed ({rc}): {err.strip()}")
    ev = {}
    for row in csv.DictReader(out.splitlines()):
        if row["event"] in TRANSMISSION_EVENTS and row["frame"]:
            ev.setdefault(int(row["frame"]), row["event"])
    return ev


def must_findings(binary, profile, pcap):
    rc, out, err = run([binary, "check", "--json", "--no-hint", "--profile", profile, pcap])
    if rc not in (0, 1):
        raise SystemExit(f"score_labels: {binary} check {pcap} failed ({rc}): {err.strip()}")
    j = json.loads(out)
    found = []

    def walk(o):  # findings sit per sender, wherever the schema nests it
        if isinstance(o, dict):
            for k, v in o.items():
                if k == "findings" and isinstance(v, list):
                    found.extend(f"{x.get('rule')} frame {x.get('frame')}" for x in v
                                 if str(x.get("level", "")).upper() == "MUST")
                else:
                    walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    walk(j.get("flows", []))
    return j["summary"].get("must", len(found)), found


def pct(a, b):
    return None if b == 0 else 100.0 * a / b


def fmt(p):
    return "n/a" if p is None else f"{p:6.2f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/bin/pcap-replay")
    ap.add_argument("--dir", default="tests/captures/lab")
    ap.add_argument("--profile", default="linux")
    ap.add_argument("--thresholds")
    ap.add_argument("--json")
    ap.add_argument("--mismatches", action="store_true", help="list every frame where they differ")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    names = a.names or sorted(f[:-len(".labels.csv")] for f in os.listdir(a.dir) if f.endswith(".labels.csv"))
    if not names:
        print(f"score_labels: no *.labels.csv in {a.dir}", file=sys.stderr)
        return 2
    confusion = {}
    mismatches = []
    per_capture = []
    first_seen = {}  # checker's event -> labelled resends the capture shows as first copies
    for name in names:
        truth, cap = truth_of(name, a.dir)
        pcap = os.path.join(a.dir, name + ".pcap")
        ev = checker_events(a.bin, a.profile, pcap)
        src = {f.number: f.src for f in cap.frames}
        # How each frame's sequence space looked at the capture point: a
        # labelled resend whose every earlier copy the path dropped before the
        # capture, and that came after no higher data, is there the first copy
        # of its sequence space ("new"): no capture can show it was sent again.
        shown = labpcap.repeats(cap.frames, labpcap.capture_copies(cap))
        for n, t in truth.items():
            if t in RESEND_LABELS and shown.get(n) == "new":
                c = ev.get(n, "none")
                first_seen[c] = first_seen.get(c, 0) + 1
        for n in sorted(set(truth) | set(ev)):
            t = truth.get(n)
            if t is None:
                # The checker calls it a transmission; the capture shows no sequence space
                # and the kernel no label (e.g. a pure ACK): truth 'none'.
                t = "none"
            c = ev.get(n, "none")
            confusion[(t, c)] = confusion.get((t, c), 0) + 1
            if KERNEL_TO_CHECKER.get(t, t) != c:
                mismatches.append((name, n, t, c))
        tj = json.load(open(os.path.join(a.dir, name + ".truth.json")))
        sender_ns = tj.get("topology", {}).get("sender_ns_addr", "198.18.0.1")
        k_exp = sum(1 for n, t in truth.items() if t in EXPIRY_LABELS and src.get(n) == sender_ns)
        k_exp_shown = sum(1 for n, t in truth.items()
                          if t in EXPIRY_LABELS and src.get(n) == sender_ns and shown.get(n) != "new")
        with open(os.path.join(a.dir, name + ".labels.csv")) as f:
            k_exp_all = sum(1 for r in csv.DictReader(f) if r["label"] in EXPIRY_LABELS and r["src"] == sender_ns)
        c_exp = sum(1 for n, c in ev.items() if c in ("rto", "syn-rto") and src.get(n) == sender_ns)
        must, which = must_findings(a.bin, a.profile, pcap)
        per_capture.append({"capture": name, "TcpExtTCPTimeouts": tj["nstat_delta"]["TcpExtTCPTimeouts"],
                            "kernel_expiries_labelled": k_exp_all, "kernel_expiries_in_capture": k_exp,
                            "kernel_expiries_shown_again": k_exp_shown,
                            "checker_expiries": c_exp, "must": must, "must_findings": which})
    # Per class, in the checker's vocabulary.
    classes = {}
    for (t, c), k in confusion.items():
        want = KERNEL_TO_CHECKER.get(t, t)
        for cls in {want, c}:
            classes.setdefault(cls, {"support": 0, "predicted": 0, "correct": 0})
        classes[want]["support"] += k
        classes[c]["predicted"] += k
        if want == c:
            classes[want]["correct"] += k
    for cls, v in classes.items():
        v["recall"] = pct(v["correct"], v["support"])
        v["precision"] = pct(v["correct"], v["predicted"])
    # Confusion table.
    cols = [c for c in CLASS_ORDER if any(k[1] == c for k in confusion)] + \
        sorted({k[1] for k in confusion} - set(CLASS_ORDER))
    rows = [t for t in TRUTH_ORDER + ["none"] if any(k[0] == t for k in confusion)] + \
        sorted({k[0] for k in confusion} - set(TRUTH_ORDER) - {"none"})
    w = max(len(r) for r in rows) + 2
    print(f"pcap-replay timeline --profile {a.profile} against the kernel's labels, {len(names)} lab captures")
    print("confusion (rows: the kernel's label -> the event a correct checker gives; columns: the checker's event)")
    print(" " * (w + 20) + "".join(f"{c[:10]:>11}" for c in cols))
    for r in rows:
        label = f"{r} -> {KERNEL_TO_CHECKER.get(r, r)}"
        print(f"{label:<{w + 20}}" + "".join(f"{confusion.get((r, c), 0) or '.':>11}" for c in cols))
    # Per-class table, with thresholds.
    th = {}
    must_max = None
    if a.thresholds:
        for line in open(a.thresholds):
            line = line.split("#")[0].split()
            if not line:
                continue
            if line[0] == "must":
                must_max = int(line[1])
                continue
            th[line[0]] = (None if line[1] == "-" else float(line[1]), None if line[2] == "-" else float(line[2]))
    print()
    print(f"{'class':<18}{'support':>8}{'checker':>8}{'correct':>8}{'recall %':>10}{'min':>6}"
          f"{'precision %':>13}{'min':>6}{'target':>8}")
    failed = []
    for cls in [c for c in CLASS_ORDER if c in classes] + sorted(set(classes) - set(CLASS_ORDER)):
        if cls == "none":
            continue
        v = classes[cls]
        rmin, pmin = th.get(cls, (None, None))
        line = (f"{cls:<18}{v['support']:>8}{v['predicted']:>8}{v['correct']:>8}{fmt(v['recall']):>10}"
                f"{'-' if rmin is None else f'{rmin:g}':>6}{fmt(v['precision']):>13}"
                f"{'-' if pmin is None else f'{pmin:g}':>6}{TARGET:>7g}%")
        bad = []
        if rmin is not None and v["recall"] is not None and v["recall"] < rmin:
            bad.append(f"recall {v['recall']:.2f} % < {rmin:g} %")
        if pmin is not None and v["precision"] is not None and v["precision"] < pmin:
            bad.append(f"precision {v['precision']:.2f} % < {pmin:g} %")
        if bad:
            failed.append(f"{cls}: " + ", ".join(bad))
            line += "   BELOW: " + ", ".join(bad)
        print(line)
    for cls in th:
        if cls not in classes:
            print(f"{cls:<18}{'0':>8}{'0':>8}{'0':>8}{'n/a':>10}   (no frame of this class in the lab)")
    print()
    print(f"{'capture':<22}{'TCPTimeouts':>12}{'kernel':>8}{'in pcap':>8}{'resent':>8}{'checker':>8}{'MUST':>6}")
    for p in per_capture:
        print(f"{p['capture']:<22}{p['TcpExtTCPTimeouts']:>12}{p['kernel_expiries_labelled']:>8}"
              f"{p['kernel_expiries_in_capture']:>8}{p['kernel_expiries_shown_again']:>8}"
              f"{p['checker_expiries']:>8}{p['must']:>6}"
              + ("  " + "; ".join(p["must_findings"][:4]) if p["must_findings"] else ""))
    print("(kernel: RTO/SYN/SYN-ACK timer retransmissions the kernel labelled in the sender namespace; "
          "TCPTimeouts also counts an expiry that sent nothing, e.g. the one that aborts the connection; "
          "resent: those in the pcap that it shows as a resend, its sequence space shown before or higher "
          "data before it)")
    if first_seen:
        print(f"labelled resends the capture shows as the first copy of their sequence space (every earlier "
              f"copy dropped before the capture point, no higher data before them; counted above as their "
              f"kernel label): {sum(first_seen.values())}; the checker's events: "
              + ", ".join(f"{k} {v}" for k, v in sorted(first_seen.items())))
    musts = sum(p["must"] for p in per_capture)
    if must_max is not None:
        print(f"MUST findings under --profile {a.profile}: {musts} (allowed {must_max}, target 0)")
        if musts > must_max:
            failed.append(f"{musts} MUST findings > {must_max}")
    if a.mismatches:
        print()
        print("capture frame: kernel -> checker")
        for name, n, t, c in mismatches:
            print(f"  {name} {n}: {t} -> {c}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"classes": classes, "confusion": [{"truth": t, "checker": c, "frames": k}
                                                         for (t, c), k in sorted(confusion.items())],
                       "captures": per_capture,
                       "mismatches": [{"capture": m[0], "frame": m[1], "kernel": m[2], "checker": m[3]}
                                      for m in mismatches]}, f, indent=1)
    if failed:
        print("FAIL: " + "; ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
