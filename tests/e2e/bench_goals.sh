#!/usr/bin/env bash
# bench/goals.py, the goals table `make bench` prints. Fed made-up benchmark
# JSON and replay rows (no benchmark runs here: speed is measured by `make
# bench`, not by a test), it must say "met" at each goal's boundary,
# "MISSED" just past it, and "not measured" (never a verdict) when a measure
# it needs is missing, errored, zero, infinite or malformed; it must exit 0
# without a traceback on every input.
set -u
cd "$(dirname "$0")/../.."
PYTHONDONTWRITEBYTECODE=1 exec python3 - <<'PY'
import json, os, subprocess, sys, tempfile

fails = []
N = (1000, 100000, 1000000, 10000000)


def row(name, field, value, unit="ns", aggregate=True, error=False):
    """A Google Benchmark JSON row: a median aggregate (between a first
    repetition and the other aggregates, whose values differ and must not
    be used) or one run."""
    out = []
    if aggregate:
        out.append({"name": name, "run_name": name, "run_type": "iteration", field: 999.0, "time_unit": unit})
        for agg, v in (("mean", 998.0), ("median", value), ("stddev", 0.5), ("cv", 0.01)):
            out.append({"name": f"{name}_{agg}", "run_name": name, "run_type": "aggregate",
                        "aggregate_name": agg, field: v, "time_unit": unit})
    else:
        r = {"name": name, "run_name": name, "run_type": "iteration", field: value, "time_unit": unit}
        if error:
            r.update(error_occurred=True, error_message="no capture")
        out.append(r)
    return out


def estimator(rfc, lin, dbl, unit="ns"):
    rows = []
    for name, t in (("BM_Estimator_Rfc6298", rfc), ("BM_Estimator_Linux", lin), ("BM_Baseline_Double", dbl)):
        if t is not None:
            rows += row(name, "cpu_time", t, unit)
    return {"benchmarks": rows}


def wheel(ack, set_ack, cold, set_cold, fire_ms, multimap_ms, added):
    """ack/cold: wheel ns per re-arm by N; set_*: the std::set's; added: what
    the re-arm adds to the touch, ns by N (anything but a number is written
    as it is); None = absent."""
    rows = []
    for n in N:
        if n in added:
            v = added[n]
            counter = v * 1e-9 if isinstance(v, (int, float)) and not isinstance(v, bool) else v
            rows += [dict(r, rearm_added=counter, touch=400e-9, touch_rearm=410e-9)
                     for r in row(f"BM_TimerWheel_TouchRearm/{n}/manual_time", "real_time", 1.0)]
    for variant, w, s in (("", ack, set_ack), ("_Cold", cold, set_cold)):
        for n in N:
            for name, t in ((f"BM_TimerWheel_Rearm{variant}/{n}/manual_time", w.get(n)),
                            (f"BM_Baseline_Set_Rearm{variant}/{n}/manual_time", s.get(n))):
                if t is not None:
                    rows += [dict(r, per_rearm=t * 1e-9) for r in row(name, "real_time", 1.0)]
    if fire_ms is not None:
        rows += row("BM_TimerWheel_FireAll/1000000", "cpu_time", fire_ms, "ms", aggregate=False)
    if multimap_ms is not None:
        # In us, not ms: the unit must be read.
        rows += row("BM_Baseline_Multimap_FireAll/1000000", "cpu_time", multimap_ms * 1e3, "us", aggregate=False)
    return {"benchmarks": rows}


def tsv(bare, pr, tcptrace, tshark, rss_small, rss_big):
    """replay-scale.tsv; None leaves a row out, a string is written as is."""
    lines = []
    for tool, secs, rss in (("bare", bare, 2.9), ("pcap-replay check --profile linux", pr, rss_small),
                            ("tcptrace", tcptrace, 19), ("tshark", tshark, 2000)):
        if secs is not None:
            lines.append(f"small.pcap\t4000000\t{tool}\t{secs}\t{rss}")
    if rss_big is not None:
        lines.append(f"big.pcap\t24000000\tpcap-replay check --profile linux\t9\t{rss_big}")
    return "\n".join(lines) + "\n"


def run(case, est=None, whl=None, rep=None, raw=None):
    """goals.py on the files given (dicts as JSON, strings as they are);
    returns goal -> verdict ("met", "MISSED" or "not measured")."""
    with tempfile.TemporaryDirectory() as d:
        for fname, content in (("estimator.json", est), ("timer_wheel.json", whl), ("replay-scale.tsv", rep)):
            if content is not None:
                with open(os.path.join(d, fname), "w") as f:
                    f.write(content if isinstance(content, str) else json.dumps(content))
        for fname, content in (raw or {}).items():
            with open(os.path.join(d, fname), "wb") as f:
                f.write(content)
        p = subprocess.run([sys.executable, "bench/goals.py", d], capture_output=True, text=True)
    if p.returncode != 0 or "Traceback" in p.stderr:
        fails.append(f"{case}: goals.py exited {p.returncode}: {p.stderr.strip()[-300:]}")
        return {}
    out = {}
    for line in p.stdout.splitlines()[1:]:
        verdict = "not measured" if "not measured" in line else line.split()[-1]
        out[line.split("  ")[0]] = verdict
    return out


def expect(case, got, prefix, verdict):
    hits = [v for k, v in got.items() if k.startswith(prefix)]
    if len(hits) != 1:
        fails.append(f"{case}: {len(hits)} goal lines start with {prefix!r}")
    elif hits[0] != verdict:
        fails.append(f"{case}: {prefix!r} is {hits[0]}, should be {verdict}")


GOALS = ("estimator RFC 6298: ns", "estimator RFC 6298: double", "estimator Linux: ns",
         "estimator Linux: double", "wheel re-arm added to the touch", "std::set re-arm / wheel re-arm (ACK",
         "std::set re-arm / wheel re-arm (cold", "fire all", "tcptrace", "replay time / bare", "tshark", "replay peak RSS")


def expect_all(case, got, verdict, but=()):
    for g in GOALS:
        if g not in but:
            expect(case, got, g, verdict)


# Nothing measured: every goal says so.
expect_all("nothing", run("nothing"), "not measured")

# At each boundary. RFC 3 ns and Linux 5 ns, both below the double's 6 ns.
# A re-arm adds 10 ns to the touch at 1e5 and 1e7 (the worst), less
# elsewhere (so a goal read at one N only would not be this one). std::set / wheel per N: 30x, 20x (at 1e5, the
# least), 25x, 40x for the ACK-driven rows; the cold rows 200 / 10 = 20x at
# 1e7 only (100x elsewhere), with wheel times of their own. Fire-all 10 ms
# against 11 ms (given in us). Replay 1 s: tcptrace 4 s (4x), bare 0.5 s
# (1 / 0.5 = 2x), tshark 50 s (50x); RSS 30 -> 36 MiB (1.2x).
ack = {1000: 10, 100000: 40, 1000000: 25, 10000000: 15}
set_ack = {1000: 300, 100000: 800, 1000000: 625, 10000000: 600}
cold = {1000: 3, 100000: 4, 1000000: 5, 10000000: 10}
set_cold = {1000: 300, 100000: 400, 1000000: 500, 10000000: 200}
added = {1000: 3, 100000: 10, 1000000: 9.5, 10000000: 10}
at = run("boundary", estimator(3.0, 5.0, 6.0), wheel(ack, set_ack, cold, set_cold, 10, 11, added),
         tsv(0.5, 1, 4, 50, 30, 36))
expect_all("boundary", at, "met")

# Just past each. RFC 3.01, Linux 5.01 with the double at 5.01 (a tie is not
# faster); a re-arm adding 10.01 ns at 1e6 only; std::set 19.99x at 1e5 (ACK) and
# at 1e7 (cold) only; fire-all 11 = 11; tcptrace 3.99 s; bare 0.499 s
# (2.004x); tshark 49.9 s; RSS 36.01 MiB.
past = run("past", estimator(3.01, 5.01, 5.01),
           wheel(ack, set_ack | {100000: 799.6},
                 cold, set_cold | {10000000: 199.9}, 11, 11, added | {1000000: 10.01}),
           tsv(0.499, 1, 3.99, 49.9, 30, 36.01))
expect_all("past", past, "MISSED", but=("estimator RFC 6298: double",))
expect("past", past, "estimator RFC 6298: double", "met")

# Missing pieces: the double baseline (the estimators' own times stand), the
# wheel at 1e7 (all three "every N" goals), tcptrace's row, the 6x capture
# (BIG=0), the multimap.
without_1e7 = lambda d: {k: v for k, v in d.items() if k != 10000000}
partial = run("partial", estimator(3.0, 5.0, None),
              wheel(without_1e7(ack), set_ack, cold, without_1e7(set_cold), 10, None, without_1e7(added)),
              tsv(0.5, 1, None, 50, 30, None))
for g in ("estimator RFC 6298: ns", "estimator Linux: ns", "replay time / bare", "tshark"):
    expect("partial", partial, g, "met")
for g in ("estimator RFC 6298: double", "estimator Linux: double", "wheel re-arm added to the touch",
          "std::set re-arm / wheel re-arm (ACK", "std::set re-arm / wheel re-arm (cold", "fire all", "tcptrace",
          "replay peak RSS"):
    expect("partial", partial, g, "not measured")

# Errored, zero, negative, infinite and non-numeric measures are not
# measured, whatever their value would say.
# The errored row's time (1 ns) would meet its goal: only the error flag
# rules it out.
err = {"benchmarks": row("BM_Estimator_Rfc6298", "cpu_time", 1.0, aggregate=False, error=True)
                     + row("BM_Estimator_Linux", "cpu_time", 0.0) + row("BM_Baseline_Double", "cpu_time", 6.0)}
bad_wheel = wheel(ack | {1000: 0}, set_ack, cold, set_cold, 0, 11, added | {100000: "inf"})
bad = run("bad values", err, bad_wheel, tsv("inf", -1, 4, "-", -5, 36))
expect_all("bad values", bad, "not measured", but=("std::set re-arm / wheel re-arm (cold",))
expect("bad values", bad, "std::set re-arm / wheel re-arm (cold", "met")
# What a re-arm adds is a difference of two times: one below 0 (lost in the
# noise) counts as 0 added, met; true, null or a string is not measured.
for v, verdict in ((-0.4, "met"), (True, "not measured"), (None, "not measured"), ("9", "not measured")):
    got = run(f"added {v!r}", whl=wheel(ack, set_ack, cold, set_cold, 10, 11, added | {1000: v}))
    expect(f"added {v!r}", got, "wheel re-arm added to the touch", verdict)

# Malformed files: each alone, with nothing else, gives "not measured" and
# no traceback.
malformed_json = [b"", b"{", b"[]", b"null", b'{"benchmarks": null}', b'{"benchmarks": [1, "x", null]}',
                  b'{"benchmarks": [{"cpu_time": 1}]}', b'{"benchmarks": [{"name": "BM_Estimator_Rfc6298"}]}',
                  b'{"benchmarks": [{"name": "BM_Estimator_Rfc6298", "cpu_time": 1, "time_unit": "min"}]}',
                  b'{"benchmarks": [{"name": "BM_Estimator_Rfc6298", "cpu_time": null}]}',
                  b'{"benchmarks": [{"name": "BM_Estimator_Rfc6298", "cpu_time": true}]}',
                  b'{"benchmarks": [{"name": "BM_Estimator_Rfc6298", "cpu_time": 1, "time_unit": []}]}',
                  b'{"benchmarks": [{"name": "BM_TimerWheel_Rearm/1000000", "per_rearm": null}]}',
                  b'{"benchmarks": [{"name": "BM_TimerWheel_TouchRearm/1000", "rearm_added": []}]}',
                  b"\xff\xfe\x00binary"]
for i, content in enumerate(malformed_json):
    got = run(f"malformed json {i}", raw={"estimator.json": content, "timer_wheel.json": content})
    expect_all(f"malformed json {i}", got, "not measured")
# A bad TSV line loses only itself: the lines after it still count.
good = tsv(0.5, 1, 4, 50, 30, 36).splitlines()
messy = "\n".join([good[0], "", "a\tb", "x\t4e6\ttcptrace\t1\t1", '"quoted\t4000000\ttshark\t1'] + good[1:]) + "\n"
got = run("messy tsv", rep=messy)
for g in ("tcptrace", "replay time / bare", "tshark", "replay peak RSS"):
    expect("messy tsv", got, g, "met")
got = run("binary tsv", raw={"replay-scale.tsv": b"\xff\x00\t\t\n\x80"})
for g in ("tcptrace", "replay time / bare", "tshark", "replay peak RSS"):
    expect("binary tsv", got, g, "not measured")

for f in fails:
    print("FAIL:", f)
if not fails:
    print("bench_goals: every goal at and past its boundary; missing or bad measures not measured")
sys.exit(1 if fails else 0)
PY
