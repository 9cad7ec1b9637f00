#!/usr/bin/env python3
"""Writes NAME.truth.json (+ pcap, tcp_info CSV, kernel labels) from a lab run's work dir.

Called by lab_finish (lib.sh). The truth is the sender namespace's kernel
counters (nstat deltas); the scenario's design numbers (--expect-*) are
checked against them, and nothing is written when they disagree
(LAB_DESIGN_ADVISORY=1: written anyway, the disagreement in truth.json's
"design_mismatch", for runs whose path changes the design's timing, e.g.
LAB_MIDDLE=delay; the kernel's labels must still match its counters).
"""
import argparse
import gzip
import json
import os
import platform
import shutil
import subprocess
import sys

COUNTERS = ["TcpExtTCPTimeouts", "TcpExtTCPLossProbes", "TcpExtTCPLossProbeRecovery",
            "TcpExtTCPSynRetrans", "TcpRetransSegs", "TcpExtTCPFastRetrans",
            "TcpExtTCPSpuriousRTOs", "TcpExtTCPSackRecovery", "TcpExtTCPRenoRecovery",
            "TcpExtTCPSlowStartRetrans", "TcpExtTCPSackRecoveryFail", "TcpExtTCPRenoRecoveryFail",
            "TcpExtTCPLossFailures", "TcpExtTCPSackFailures", "TcpExtTCPLostRetransmit",
            "TcpExtTCPAbortOnTimeout", "TcpExtTCPTimeoutRehash", "TcpOutSegs", "TcpActiveOpens",
            "TcpPassiveOpens", "TcpExtTCPOrigDataSent", "TcpExtTCPDSACKRecv", "TcpExtTCPRetransFail"]


def nstat(path):
    d = {}
    with open(path) as f:
        for line in f:
            k, v = line.split("\t")
            d[k] = int(v)
    return d


def delta(work, side):
    b, a = nstat(f"{work}/nstat.{side}.before"), nstat(f"{work}/nstat.{side}.after")
    out = {k: a.get(k, 0) - b.get(k, 0) for k in COUNTERS}
    for k in sorted(a):  # every other counter that moved
        if k not in out and a[k] - b.get(k, 0) and not k.startswith(("Ip", "Udp", "Icmp")):
            out[k] = a[k] - b.get(k, 0)
    return out


def tsv(path):
    d = {}
    if os.path.exists(path):
        for line in open(path):
            if "\t" in line:
                k, v = line.rstrip("\n").split("\t", 1)
                d[k] = v
    return d


def tshark_count(pcap, filt):
    r = subprocess.run(["tshark", "-n", "-r", pcap, "-Y", filt, "-T", "fields", "-e", "frame.number"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("tshark failed on %s: %s" % (pcap, r.stderr))
    return len([l for l in r.stdout.splitlines() if l.strip()])


# The kernel's labels of the sender namespace (labels.csv) against its own
# counters: a label per counted event, or the labeller missed one. A timer
# expiry that aborts the connection (TcpExtTCPAbortOnTimeout) is counted and
# sends nothing.
LABEL_COUNTERS = {
    "TcpRetransSegs": {"rto", "syn-rto", "synack-timer", "syn-reply", "tlp", "fast-retx", "rack-timer",
                       "slow-start-retx", "mtu-retx", "other"},
    "TcpExtTCPLossProbes": {"tlp", "tlp-new"},
    "TcpExtTCPSynRetrans": {"syn-rto", "synack-timer", "syn-reply"},
    "TcpExtTCPWinProbe": {"zero-window-probe"},
    "TcpExtTCPKeepAlive": {"keepalive"},
    "TcpExtTCPTimeouts": {"rto", "syn-rto", "synack-timer"},
}


def labels_vs_counters(labels_csv, sender_addr, counters):
    import csv
    rows = [r for r in csv.DictReader(open(labels_csv)) if r["src"] == sender_addr and r["err"] == "0"]
    out, errs = {}, []
    for name, classes in LABEL_COUNTERS.items():
        got = sum(1 for r in rows if r["label"] in classes)
        want = counters.get(name, 0)
        if name == "TcpExtTCPTimeouts":
            want -= counters.get("TcpExtTCPAbortOnTimeout", 0)
        out[name] = {"labels": got, "counter": counters.get(name, 0)}
        if got != want:
            errs.append(f"labels: {got} {'/'.join(sorted(classes))} from {sender_addr}, kernel counted {name} {want}")
    return out, errs


def check(name, want, got):
    if not want:
        return None
    if "-" in want:
        lo, hi = want.split("-")
        ok = int(lo) <= got <= (int(hi) if hi else 10**9)
    else:
        ok = got == int(want)
    return None if ok else f"{name}: designed {want}, kernel counted {got}"


def main():
    p = argparse.ArgumentParser()
    for k in ["scenario", "work", "outdir", "sender", "sender-addr", "ports", "notes", "expect-timeouts",
              "expect-loss-probes", "expect-syn", "expect-counters", "middle", "capture-addr", "description",
              "capture-point", "made-by"]:
        p.add_argument("--" + k, default="")
    a = p.parse_args()
    delay_ms = float(os.environ.get("LAB_DELAY_MS", "20")) if a.middle == "delay" else 0
    w = a.work
    snd, rcv = delta(w, "snd"), delta(w, "rcv")
    events = [json.loads(l) for l in open(f"{w}/events.jsonl") if l.strip()]
    rules = [json.loads(l) for l in open(f"{w}/rules.jsonl") if l.strip()]
    sysctls = tsv(f"{w}/sysctls.all.tsv")
    sysctls.update(tsv(f"{w}/sysctls.tsv"))
    pcap = f"{w}/cap.pcap"
    src = a.sender_addr
    pc = {
        "frames": tshark_count(pcap, "frame"),
        "from_sender_addr": tshark_count(pcap, f"ip.src == {src}"),
        "tshark_retransmissions_from_sender_addr": tshark_count(
            pcap, f"ip.src == {src} && (tcp.analysis.retransmission || tcp.analysis.fast_retransmission)"),
        "syn_from_sender_addr": tshark_count(pcap, f"ip.src == {src} && tcp.flags.syn == 1 && tcp.flags.ack == 0"),
        "fin_retransmissions_from_sender_addr": tshark_count(
            pcap, f"ip.src == {src} && tcp.flags.fin == 1 && tcp.analysis.retransmission"),
        "synack_from_sender_addr": tshark_count(pcap, f"ip.src == {src} && tcp.flags.syn == 1 && tcp.flags.ack == 1"),
    }
    errs = [e for e in [check("timeouts", a.expect_timeouts, snd["TcpExtTCPTimeouts"]),
                        check("loss_probes", a.expect_loss_probes, snd["TcpExtTCPLossProbes"]),
                        check("syn_timeouts", a.expect_syn, snd["TcpExtTCPSynRetrans"])] if e]
    # EXPECT_COUNTERS="TcpExtTCPKeepAlive=3- TcpExtTCPAbortOnTimeout=1": sender-namespace counters.
    design_counters = {}
    for item in a.expect_counters.split():
        name, want = item.split("=", 1)
        design_counters[name] = want
        e = check(name, want, snd.get(name, 0))
        if e:
            errs.append(e)
    truth = {
        "scenario": a.scenario,
        "made_by": a.made_by,
        "kernel": platform.release(),
        "hz": 250,
        "description": a.description,
        "capture": {"point": a.capture_point, "host": a.capture_addr or src,
                    "snaplen": int(os.environ.get("SNAPLEN", "128")),
                    "ports": [int(x) for x in a.ports.split(",")], "clock": "CLOCK_REALTIME (same as t_wall)"},
        "topology": {"sender_ns_addr": src, "receiver_ns_addr": "198.18.0.2", "link": "veth",
                     "middle": {"": "none (one veth pair)", "bridge": "a bridge in a middle namespace (drops there)",
                                "relay": "relay.py in a middle namespace (AF_PACKET, ~0.1-1 ms a frame; "
                                         "holds the receiver's frames during a delay spike)",
                                "delay": "relay.py in a middle namespace delaying every frame each way "
                                         "(drops there, between the two ends)"}[a.middle],
                     "added_delay_ms": delay_ms, "gso_max_segs": 1,
                     "delay_note": "no netem qdisc on this kernel: RTT is the veth's (~0.02-0.1 ms)"
                                   + ("; plus the relay's" if a.middle in ("relay", "delay") else "")
                                   + (f"; plus {delay_ms} ms each way in the relay" if delay_ms else "")},
        "sender": a.sender,
        "sysctls": sysctls,
        "socket_options": {"TCP_CONGESTION": os.environ.get("LAB_CC", ""),
                           "note": "net.ipv4.tcp_congestion_control is the namespace default; "
                                   "every lab socket sets TCP_CONGESTION itself"},
        "nstat_delta": snd,
        "nstat_delta_receiver_ns": rcv,
        "expected": {
            "timeouts": snd["TcpExtTCPTimeouts"],
            "loss_probes": snd["TcpExtTCPLossProbes"],
            "syn_timeouts": snd["TcpExtTCPSynRetrans"],
            "retrans_segs": snd["TcpRetransSegs"],
            "notes": a.notes,
        },
        "design": {"timeouts": a.expect_timeouts, "loss_probes": a.expect_loss_probes,
                   "syn_timeouts": a.expect_syn, "counters": design_counters},
        "pcap_check": pc,
        "drop_rules": rules,
        "events": events,
    }
    if errs and os.environ.get("LAB_DESIGN_ADVISORY") == "1":
        print("design (advisory): " + "; ".join(errs), file=sys.stderr)
        truth["design_mismatch"] = errs
        errs = []
    if os.path.exists(f"{w}/labels.csv"):
        truth["labels_vs_counters"], lerrs = labels_vs_counters(f"{w}/labels.csv", src, snd)
        errs += lerrs
    if errs:
        print("MISMATCH: " + "; ".join(errs), file=sys.stderr)
        print(json.dumps(truth["nstat_delta"], indent=1), file=sys.stderr)
        with open(f"{w}/truth.json", "w") as f:
            json.dump(truth, f, indent=2)
        return 1
    os.makedirs(a.outdir, exist_ok=True)
    base = os.path.join(a.outdir, a.scenario)
    shutil.copy(pcap, base + ".pcap")
    csv = f"{w}/tcpinfo.csv"
    for old in (base + ".tcpinfo.csv", base + ".tcpinfo.csv.gz"):
        if os.path.exists(old):
            os.remove(old)
    if os.path.getsize(csv) > 200_000:
        with open(csv, "rb") as fi, gzip.GzipFile(base + ".tcpinfo.csv.gz", "wb", mtime=0) as fo:
            shutil.copyfileobj(fi, fo)
        truth["files"] = {"tcpinfo": a.scenario + ".tcpinfo.csv.gz"}
    else:
        shutil.copy(csv, base + ".tcpinfo.csv")
        truth["files"] = {"tcpinfo": a.scenario + ".tcpinfo.csv"}
    truth["files"]["pcap"] = a.scenario + ".pcap"
    # The kernel's label of each retransmission (labels.py: bpftrace), at its frame.
    labels = f"{w}/labels.csv"
    if os.path.exists(labels):
        shutil.copy(labels, base + ".labels.csv")
        truth["files"]["labels"] = a.scenario + ".labels.csv"
        truth["labels"] = json.load(open(f"{w}/labels.json"))
    with open(base + ".truth.json", "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    e = truth["expected"]
    print(f"{a.scenario}: timeouts={e['timeouts']} loss_probes={e['loss_probes']} syn_retrans={e['syn_timeouts']} "
          f"retrans_segs={e['retrans_segs']} tshark_retx={pc['tshark_retransmissions_from_sender_addr']} "
          f"frames={pc['frames']} pcap={os.path.getsize(base + '.pcap')}B"
          + (f" labels={truth['labels']['by_label']}" if "labels" in truth else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
