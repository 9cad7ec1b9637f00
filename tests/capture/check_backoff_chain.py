#!/usr/bin/env python3
"""Reads `tshark -T fields -e frame.number -e frame.time_relative -e tcp.seq_raw
-e tcp.len -e tcp.flags.syn -e tcp.flags.fin` lines (one sender direction) on
stdin and checks that the capture shows RFC 6298 (5.5) backoff: some segment
is retransmitted at least MIN_RETX times, and each gap between consecutive
retransmissions of it is twice the previous one (within TOL), starting at
least MIN_FIRST_GAP seconds (RTO after one backoff >= 2 x the 1 s floor, 2.4).

usage: check_backoff_chain.py [MIN_RETX=3] [MIN_FIRST_GAP=1.9] [TOL=0.1]
Prints the chain found; exit 0 when one qualifies, 1 otherwise.
"""
import collections
import sys

min_retx = int(sys.argv[1]) if len(sys.argv) > 1 else 3
min_first_gap = float(sys.argv[2]) if len(sys.argv) > 2 else 1.9
tol = float(sys.argv[3]) if len(sys.argv) > 3 else 0.1

sends = collections.defaultdict(list)  # seq -> [(frame, time)]
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    if len(f) < 6:
        continue
    frame, t, seq, length, syn, fin = f[:6]
    occupies = int(length or 0) > 0 or syn in ("1", "True") or fin in ("1", "True")
    if occupies:
        sends[int(seq)].append((int(frame), float(t)))

best = None
for seq, tx in sends.items():
    # The chain may start at a later retransmission: a fast retransmission
    # (RFC 5681 3.2) sent just before the timeouts is not part of the backoff.
    for start in range(1, len(tx)):
        retx = tx[start:]
        if len(retx) < min_retx:
            continue
        gaps = [b[1] - a[1] for a, b in zip(retx, retx[1:])]
        ok = gaps and gaps[0] >= min_first_gap and all(
            abs(g2 / g1 - 2.0) <= 2.0 * tol for g1, g2 in zip(gaps, gaps[1:]) if g1 > 0)
        if ok and (best is None or len(retx) > len(best[1])):
            best = (seq, retx, gaps)

if best is None:
    print("no segment retransmitted %d+ times with doubling gaps" % min_retx)
    for seq, tx in sorted(sends.items(), key=lambda kv: -len(kv[1]))[:5]:
        print("  seq %d sent at %s" % (seq, ", ".join("%.3f (frame %d)" % (t, fr) for fr, t in tx)))
    sys.exit(1)
seq, retx, gaps = best
print("backoff chain for seq %d: retransmissions at frames %s; gaps %s s" % (
    seq, ", ".join(str(fr) for fr, _ in retx), ", ".join("%.3f" % g for g in gaps)))
sys.exit(0)
