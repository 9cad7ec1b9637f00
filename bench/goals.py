#!/usr/bin/env python3
"""The speed goals of bench/README.md ("Goals"), measured against this run.

Reads what `make bench` wrote under DIR (default build/bench):
  estimator.json    bench-estimator --benchmark_out (Google Benchmark JSON)
  timer_wheel.json  bench-timer_wheel --benchmark_out
  replay-scale.tsv  bench/replay-scale.sh: capture, packets, tool, mean s, peak RSS MiB
and prints one line per goal: what was measured, the goal, met or missed.
What is missing or unusable (no file, a benchmark absent or reported with an
error, a time that is not a positive finite number, a malformed line) gives
"not measured" for the goals that need it, never a verdict; what was skipped
is named on stderr. Exit status 0 in every case: the goals are a report, not
a test (speed is not asserted in tests; bench/README.md).

With Google Benchmark repetitions the median aggregate is used, otherwise the
first run. Times per item: the estimator's cpu_time (one sample per
iteration); the wheel's `rearm_added` counter (what a re-arm and its share of
the advance() calls add to the ACK's touch of the connection, thread CPU
time, beside the touch alone in the same run) and `per_rearm` counter (the
re-arms alone, for the std::set comparison); fire-all's cpu_time.
"""

import json
import math
import os
import sys

# The goals (bench/README.md, "Goals"), stated once.
ESTIMATOR_RFC_MAX_NS = 3.0        # BM_Estimator_Rfc6298 ns per sample
ESTIMATOR_LINUX_MAX_NS = 5.0      # BM_Estimator_Linux ns per sample
REARM_ADDED_MAX_NS = 10.0         # BM_TimerWheel_TouchRearm rearm_added ns per ACK, every N
REARM_MIN_VS_SET = 20.0           # std::set re-arm / wheel re-arm, every N
REPLAY_MIN_VS_TCPTRACE = 4.0      # tcptrace time / pcap-replay time
REPLAY_MAX_VS_BARE = 2.0          # pcap-replay time / bare loop time (>= 50 % of its rate)
REPLAY_MIN_VS_TSHARK = 50.0       # tshark time / pcap-replay time
RSS_MAX_GROWTH = 1.2              # peak RSS on the 6x capture / on the first

REARM_SIZES = (1000, 100000, 1000000, 10000000)
FIRE_ALL = ("BM_TimerWheel_FireAll/1000000", "BM_Baseline_Multimap_FireAll/1000000")
ESTIMATORS = ("BM_Estimator_Rfc6298", "BM_Estimator_Linux", "BM_Baseline_Double")
PCAP_REPLAY = "pcap-replay check --profile linux"
TIME_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}

# Comparisons at the goal's boundary: a value equal to the limit up to the
# rounding of unit conversions (per_rearm s -> ns) is at it.
REL_EPS = 1e-9


def warn(msg):
    print(f"goals: {msg}", file=sys.stderr)


def positive(x):
    """x as a float when it is a finite number > 0 (or a string of one), else None."""
    if isinstance(x, bool):  # JSON true is not a time
        return None
    if not isinstance(x, (int, float)):
        try:
            x = float(x)
        except (TypeError, ValueError):
            return None
    return float(x) if math.isfinite(x) and x > 0 else None


def rearm_names(variant):
    """(wheel, std::set) benchmark names of a re-arm variant ("" or "_Cold") per N."""
    return {n: (f"BM_TimerWheel_Rearm{variant}/{n}", f"BM_Baseline_Set_Rearm{variant}/{n}") for n in REARM_SIZES}


def touch_rearm_names():
    """N -> the name of the benchmark timing re-arm + touch beside the touch alone."""
    return {n: f"BM_TimerWheel_TouchRearm/{n}" for n in REARM_SIZES}


def load_benchmarks(path):
    """name -> the benchmark's row (its median aggregate if repeated), or {}.

    Rows reported with an error, and rows that are not objects with a name,
    are left out (their benchmark is then not measured)."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, UnicodeDecodeError) as e:
        warn(f"{path}: not usable ({e})")
        return {}
    rows = doc.get("benchmarks") if isinstance(doc, dict) else None
    if not isinstance(rows, list):
        warn(f"{path}: no \"benchmarks\" list")
        return {}
    single, median = {}, {}
    for r in rows:
        if not isinstance(r, dict):
            continue
        name = r.get("run_name", r.get("name"))
        if not isinstance(name, str):
            continue
        if r.get("error_occurred"):
            warn(f"{path}: {name} reported an error ({r.get('error_message', '')})")
            continue
        if r.get("run_type") == "aggregate":
            if r.get("aggregate_name") == "median":
                median[name] = r
        else:
            single.setdefault(name, r)
    single.update(median)
    # Manual-time benchmarks are named ".../manual_time"; key them without it.
    return {k.removesuffix("/manual_time"): v for k, v in single.items()}


def time_ns(rows, name, field="cpu_time"):
    """The benchmark's time field in ns (Google Benchmark's time_unit), or None."""
    row = rows.get(name)
    if row is None:
        return None
    unit = row.get("time_unit", "ns")
    scale = TIME_UNIT_NS.get(unit) if isinstance(unit, str) else None
    t = positive(row.get(field))
    return None if scale is None or t is None else t * scale


def per_rearm_ns(rows, name):
    """The wheel benchmark's per_rearm counter (s) in ns, or None."""
    return counter_ns(rows, name, "per_rearm")


def counter_ns(rows, name, counter):
    """A benchmark's counter in s, as ns; None when absent or not a finite number > 0."""
    row = rows.get(name)
    t = None if row is None else positive(row.get(counter))
    return None if t is None else t * 1e9


def difference_ns(rows, name, counter):
    """A counter that is a difference of two times (s), as ns, a negative one
    (the difference lost in the noise) as 0; None when absent or not a
    finite number."""
    row = rows.get(name)
    v = None if row is None else row.get(counter)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return max(0.0, v * 1e9)


lines = []


def goal(what, measured, target, met):
    """One line; measured None = not measured."""
    if measured is None:
        lines.append((what, "not measured", target, "-"))
    else:
        lines.append((what, measured, target, "met" if met else "MISSED"))


def le(a, b):
    return a <= b * (1 + REL_EPS)


def ge(a, b):
    return a >= b * (1 - REL_EPS)


def estimator_goals(b):
    rfc, lin, dbl = (time_ns(b, n) for n in ESTIMATORS)
    for name, t, limit in (("RFC 6298", rfc, ESTIMATOR_RFC_MAX_NS), ("Linux", lin, ESTIMATOR_LINUX_MAX_NS)):
        goal(f"estimator {name}: ns per sample", None if t is None else f"{t:.2f}", f"<= {limit:g}",
             t is not None and le(t, limit))
        what = f"estimator {name}: double baseline time / its time"
        if t is None or dbl is None:
            goal(what, None, "> 1x", False)
        else:
            goal(what, f"{dbl / t:.2f}x (double {dbl:.2f} ns)", "> 1x", t < dbl)


def wheel_goals(b):
    # What a re-arm to a later deadline adds to the ACK's touch of the
    # connection, at every N: the worst N decides. A re-arm too cheap to
    # measure can come out below the touch alone (noise): 0 added.
    what = "wheel re-arm added to the touch, every N: ns"
    added = {n: difference_ns(b, name, "rearm_added") for n, name in touch_rearm_names().items()}
    if any(v is None for v in added.values()):
        goal(what, None, f"<= {REARM_ADDED_MAX_NS:g}", False)
    else:
        worst_n = max(added, key=lambda n: added[n])
        each = ", ".join(f"{added[n]:.2f}" for n in REARM_SIZES)
        goal(what, f"worst {added[worst_n]:.2f} (N = {worst_n}; {each})", f"<= {REARM_ADDED_MAX_NS:g}",
             le(added[worst_n], REARM_ADDED_MAX_NS))
    for variant, label in (("", "ACK-driven"), ("_Cold", "cold")):
        what = f"std::set re-arm / wheel re-arm ({label}), every N"
        ratios = []
        for n, (w_name, s_name) in rearm_names(variant).items():
            w, s = per_rearm_ns(b, w_name), per_rearm_ns(b, s_name)
            if w is not None and s is not None:
                ratios.append((s / w, n))
        if len(ratios) < len(REARM_SIZES):  # "every N": a missing N is no verdict
            goal(what, None, f">= {REARM_MIN_VS_SET:g}x", False)
        else:
            worst, at = min(ratios)
            goal(what, f"least {worst:.0f}x (N = {at})", f">= {REARM_MIN_VS_SET:g}x", ge(worst, REARM_MIN_VS_SET))
    tw, tm = (time_ns(b, n) for n in FIRE_ALL)
    what = "fire all 1e6: std::multimap time / wheel time"
    if tw is None or tm is None:
        goal(what, None, "> 1x", False)
    else:
        goal(what, f"{tm / tw:.2f}x (wheel {tw / 1e6:.1f} ms, multimap {tm / 1e6:.1f} ms)", "> 1x", tw < tm)


def load_replay(path):
    """(packets, capture) -> tool -> (seconds or None, peak RSS MiB or None).

    A line that is not five tab-separated fields with a whole packet count is
    skipped (and named on stderr); the other lines still count."""
    by_capture = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except FileNotFoundError:
        return by_capture
    except OSError as e:
        warn(f"{path}: not usable ({e})")
        return by_capture
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 5 or not fields[1].isdigit():
            warn(f"{path}:{i}: skipped (want capture, packets, tool, seconds, RSS MiB): {line!r}")
            continue
        cap, packets, tool, secs, rss = fields
        by_capture.setdefault((int(packets), cap), {})[tool] = (positive(secs), positive(rss))
    return by_capture


def replay_goals(path):
    by_capture = load_replay(path)
    caps = sorted(by_capture)
    first = by_capture[caps[0]] if caps else {}
    where = f" ({caps[0][0]} packets)" if caps else ""
    pr = first.get(PCAP_REPLAY, (None, None))[0]
    for tool, what, limit, other_over_replay in (
            ("tcptrace", "tcptrace -n -l -r time / replay time", REPLAY_MIN_VS_TCPTRACE, True),
            ("bare", "replay time / bare pcap_next_ex loop time", REPLAY_MAX_VS_BARE, False),
            ("tshark", "tshark TCP analysis time / replay time", REPLAY_MIN_VS_TSHARK, True)):
        other = first.get(tool, (None, None))[0]
        target = (">= " if other_over_replay else "<= ") + f"{limit:g}x"
        if pr is None or other is None:
            goal(what + where, None, target, False)
            continue
        ratio = other / pr if other_over_replay else pr / other
        goal(what + where, f"{ratio:.2f}x (replay {pr:.3f} s, {tool} {other:.3f} s)", target,
             ge(ratio, limit) if other_over_replay else le(ratio, limit))
    target = f"<= {RSS_MAX_GROWTH:g}x"
    if len(caps) >= 2:
        a, b = (by_capture[c].get(PCAP_REPLAY, (None, None))[1] for c in (caps[0], caps[-1]))
        if a is not None and b is not None:
            goal(f"replay peak RSS, {caps[-1][0]} / {caps[0][0]} packets", f"{b / a:.2f}x ({a:.1f} -> {b:.1f} MiB)",
                 target, le(b / a, RSS_MAX_GROWTH))
            return
    goal("replay peak RSS, the 6x capture / the first", None, target, False)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "build/bench"
    estimator_goals(load_benchmarks(os.path.join(d, "estimator.json")))
    wheel_goals(load_benchmarks(os.path.join(d, "timer_wheel.json")))
    replay_goals(os.path.join(d, "replay-scale.tsv"))
    header = ("goal", "measured", "target", "")
    widths = [max(len(str(row[i])) for row in [header] + lines) for i in range(4)]
    for row in [header] + lines:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())


if __name__ == "__main__":
    main()
