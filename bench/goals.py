#!/usr/bin/env python3
"""The speed goals of bench/README.md ("Goals"), measured against this run.

Reads what `make bench` wrote under DIR (default build/bench):
  estimator.json    bench-estimator --benchmark_out (Google Benchmark JSON)
  timer_wheel.json  bench-timer_wheel --benchmark_out
  replay-scale.tsv  bench/replay-scale.sh: capture, packets, tool, mean s, peak RSS MiB
and prints one line per goal: what was measured, the goal, met or missed.
A file that is missing, or a benchmark absent from it, gives "not measured"
for its goals (never a pass). Exit status 0 in every case: the goals are a
report, not a test (speed is not asserted in tests; bench/README.md).

With Google Benchmark repetitions the median aggregate is used, otherwise the
single run. Times per item: the estimator's cpu_time (one sample per
iteration); the wheel's `per_rearm` counter (thread CPU time of the timed
re-arms and their advance() calls); fire-all's cpu_time.
"""

import csv
import json
import os
import sys

# The goals (issue 8), stated once.
ESTIMATOR_RFC_MAX_NS = 3.0        # BM_Estimator_Rfc6298 ns per sample
ESTIMATOR_LINUX_MAX_NS = 5.0      # BM_Estimator_Linux ns per sample
REARM_MAX_NS_AT_1E6 = 25.0        # BM_TimerWheel_Rearm/1000000 ns per re-arm
REARM_MAX_SPREAD = 1.5            # re-arm at 1e7 / at 1e3
REARM_MIN_VS_SET = 20.0           # std::set re-arm / wheel re-arm, every N
REPLAY_MIN_VS_TCPTRACE = 4.0      # tcptrace time / pcap-replay time
REPLAY_MAX_VS_BARE = 2.0          # pcap-replay time / bare loop time (>= 50 % of its rate)
REPLAY_MIN_VS_TSHARK = 50.0       # tshark time / pcap-replay time
RSS_MAX_GROWTH = 1.2              # peak RSS on the 6x capture / on the first

REARM_SIZES = (1000, 100000, 1000000, 10000000)
PCAP_REPLAY = "pcap-replay check --profile linux"


def load_benchmarks(path):
    """name -> the benchmark's row (median aggregate if repeated), or {}."""
    try:
        with open(path) as f:
            rows = json.load(f).get("benchmarks", [])
    except (OSError, ValueError):
        return {}
    single, median = {}, {}
    for r in rows:
        name = r.get("run_name", r["name"])
        if r.get("run_type") == "aggregate":
            if r.get("aggregate_name") == "median":
                median[name] = r
        else:
            single.setdefault(name, r)
    single.update(median)
    # Manual-time benchmarks are named ".../manual_time"; key them without it.
    return {k.removesuffix("/manual_time"): v for k, v in single.items()}


def ns(row, field):
    """A row's time field in ns (Google Benchmark gives time_unit)."""
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[row.get("time_unit", "ns")]
    return row[field] * scale


lines = []

# Comparisons at the goal's boundary: a value equal to the limit up to the
# rounding of unit conversions (per_rearm s -> ns) is at it.
REL_EPS = 1e-9


def le(a, b):
    return a <= b * (1 + REL_EPS)


def ge(a, b):
    return a >= b * (1 - REL_EPS)


def goal(what, measured, target, met):
    """One line; measured None = not measured."""
    if measured is None:
        lines.append((what, "not measured", target, "-"))
    else:
        lines.append((what, measured, target, "met" if met else "MISSED"))


def estimator_goals(b):
    rfc, lin, dbl = (b.get(n) for n in ("BM_Estimator_Rfc6298", "BM_Estimator_Linux", "BM_Baseline_Double"))
    for name, row, limit in (("RFC 6298", rfc, ESTIMATOR_RFC_MAX_NS), ("Linux", lin, ESTIMATOR_LINUX_MAX_NS)):
        if row is None:
            goal(f"estimator {name}: ns per sample", None, f"<= {limit:g}", False)
            goal(f"estimator {name}: double baseline time / its time", None, "> 1x", False)
            continue
        t = ns(row, "cpu_time")
        goal(f"estimator {name}: ns per sample", f"{t:.2f}", f"<= {limit:g}", le(t, limit))
        if dbl is None:
            goal(f"estimator {name}: double baseline time / its time", None, "> 1x", False)
        else:
            d = ns(dbl, "cpu_time")
            goal(f"estimator {name}: double baseline time / its time", f"{d / t:.2f}x ({d:.2f} ns)", "> 1x", t < d)


def wheel_goals(b):
    def per_rearm(name):
        row = b.get(name)
        return None if row is None or "per_rearm" not in row else row["per_rearm"] * 1e9

    wheel = {n: per_rearm(f"BM_TimerWheel_Rearm/{n}") for n in REARM_SIZES}
    t6 = wheel[1000000]
    goal("wheel re-arm at 1e6: ns", None if t6 is None else f"{t6:.2f}", f"<= {REARM_MAX_NS_AT_1E6:g}",
         t6 is not None and le(t6, REARM_MAX_NS_AT_1E6))
    lo, hi = wheel[REARM_SIZES[0]], wheel[REARM_SIZES[-1]]
    spread = None if lo is None or hi is None else hi / lo
    goal("wheel re-arm, 1e7 / 1e3", None if spread is None else f"{spread:.2f}x ({lo:.2f} -> {hi:.2f} ns)",
         f"<= {REARM_MAX_SPREAD:g}x", spread is not None and le(spread, REARM_MAX_SPREAD))
    for variant in ("", "_Cold"):
        ratios = []
        for n in REARM_SIZES:
            w, s = per_rearm(f"BM_TimerWheel_Rearm{variant}/{n}"), per_rearm(f"BM_Baseline_Set_Rearm{variant}/{n}")
            if w is not None and s is not None:
                ratios.append((s / w, n))
        label = "ACK-driven" if not variant else "cold"
        if len(ratios) < len(REARM_SIZES):
            goal(f"std::set re-arm / wheel re-arm ({label}), every N", None, f">= {REARM_MIN_VS_SET:g}x", False)
        else:
            worst, at = min(ratios)
            goal(f"std::set re-arm / wheel re-arm ({label}), every N", f"least {worst:.0f}x (N = {at})",
                 f">= {REARM_MIN_VS_SET:g}x", ge(worst, REARM_MIN_VS_SET))
    w, m = b.get("BM_TimerWheel_FireAll/1000000"), b.get("BM_Baseline_Multimap_FireAll/1000000")
    if w is None or m is None:
        goal("fire all 1e6: std::multimap time / wheel time", None, "> 1x", False)
    else:
        tw, tm = ns(w, "cpu_time"), ns(m, "cpu_time")
        goal("fire all 1e6: std::multimap time / wheel time", f"{tm / tw:.2f}x ({tw / 1e6:.1f} vs {tm / 1e6:.1f} ms)",
             "> 1x", tw < tm)


def replay_goals(path):
    """Rows of replay-scale.tsv: capture, packets, tool, seconds, rss."""
    by_capture = {}
    try:
        with open(path) as f:
            for cap, packets, tool, secs, rss in csv.reader(f, delimiter="\t"):
                by_capture.setdefault((int(packets), cap), {})[tool] = (secs, rss)
    except (OSError, ValueError):
        pass
    caps = sorted(by_capture)

    def num(x):
        try:
            return float(x)
        except ValueError:
            return None

    first = by_capture[caps[0]] if caps else {}
    pr = num(first.get(PCAP_REPLAY, ("-", "-"))[0])
    for tool, what, limit, faster in (("tcptrace", "tcptrace -n -l -r time / replay time", REPLAY_MIN_VS_TCPTRACE, True),
                                      ("bare", "replay time / bare pcap_next_ex loop time", REPLAY_MAX_VS_BARE, False),
                                      ("tshark", "tshark TCP analysis time / replay time", REPLAY_MIN_VS_TSHARK, True)):
        other = num(first.get(tool, ("-", "-"))[0])
        where = f" ({caps[0][0]} packets)" if caps else ""
        if pr is None or other is None:
            goal(what + where, None, (">= " if faster else "<= ") + f"{limit:g}x", False)
        elif faster:
            goal(what + where, f"{other / pr:.2f}x ({pr:.3f} vs {other:.3f} s)", f">= {limit:g}x",
                 ge(other / pr, limit))
        else:
            goal(what + where, f"{pr / other:.2f}x ({pr:.3f} vs {other:.3f} s)", f"<= {limit:g}x", le(pr / other, limit))
    if len(caps) >= 2:
        a, b = (num(by_capture[c].get(PCAP_REPLAY, ("-", "-"))[1]) for c in (caps[0], caps[-1]))
        if a and b:
            goal(f"replay peak RSS, {caps[-1][0]} / {caps[0][0]} packets", f"{b / a:.2f}x ({a:.1f} -> {b:.1f} MiB)",
                 f"<= {RSS_MAX_GROWTH:g}x", le(b / a, RSS_MAX_GROWTH))
            return
    goal("replay peak RSS, the 6x capture / the first", None, f"<= {RSS_MAX_GROWTH:g}x", False)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "build/bench"
    estimator_goals(load_benchmarks(os.path.join(d, "estimator.json")))
    wheel_goals(load_benchmarks(os.path.join(d, "timer_wheel.json")))
    replay_goals(os.path.join(d, "replay-scale.tsv"))
    widths = [max(len(str(row[i])) for row in lines) for i in range(4)]
    header = ("goal", "measured", "target", "")
    for row in [header] + lines:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())


if __name__ == "__main__":
    main()
