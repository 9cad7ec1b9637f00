#!/usr/bin/env bash
# Smoke run of the microbenchmarks `make bench` runs (bench/*.cpp), each for
# a moment: every one builds, runs without a benchmark error, and writes the
# JSON that bench/goals.py reads, under the names it looks for (goals.py's
# own lists), with repetitions as `make bench` runs them (the median rows).
# No time is asserted (speed is measured by `make bench`, not by a test).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
bin="$BUILD/bin"
shared=${RTO_SHARED_DIR:-../shared}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
# Google Benchmark 1.7 (Debian 12) takes a number of seconds; two
# repetitions and their aggregates only, as make bench's BENCH_FLAGS.
quick=(--benchmark_min_time=0.005 --benchmark_repetitions=2 --benchmark_report_aggregates_only=true
       --benchmark_out_format=json)

run() {  # run NAME [FLAGS...]: bench-NAME to $dir/NAME.json
  local name=$1; shift
  local b="$bin/bench-$name" rc
  if [ ! -x "$b" ]; then echo "FAIL: $b not built"; fail=1; return; fi
  "$b" "${quick[@]}" --benchmark_out="$dir/$name.json" "$@" >"$dir/$name.txt" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then echo "FAIL: $b exited $rc"; cat "$dir/$name.txt"; fail=1; return; fi
  # A benchmark that cannot run (a missing capture, say) reports an error and
  # still exits 0.
  if grep -q 'ERROR OCCURRED' "$dir/$name.txt"; then
    echo "FAIL: $b: a benchmark reported an error"; grep 'ERROR OCCURRED' "$dir/$name.txt"; fail=1
  fi
}

run estimator
run sender_ack
# The re-arm benchmarks (the std::set comparisons and the re-arm beside the
# touch of the connection) at the two smallest N (their names are goals.py's
# for every N; the 1e6 and 1e7 worlds take a minute to build), and fire-all
# against its baseline.
smoke_n='1000|100000'
run timer_wheel --benchmark_filter="Rearm.*/($smoke_n)/|FireAll"
capture="$shared/traces/linux/blackhole-backoff.pcap"
skipped=0
if [ -r "$capture" ]; then
  run reader
  run replay
else
  echo "skip: bench-reader and bench-replay ($capture missing)"
  skipped=1
fi

# The names goals.py reads are in the JSON (its median rows), with the fields
# it uses: the estimator's goals are all measured, and so are the wheel's
# benchmarks at the N run here.
PYTHONDONTWRITEBYTECODE=1 python3 - "$dir" "$smoke_n" <<'PY' || fail=1
import os, sys
sys.path.insert(0, "bench")
import goals
d = sys.argv[1]
est = goals.load_benchmarks(os.path.join(d, "estimator.json"))
wheel = goals.load_benchmarks(os.path.join(d, "timer_wheel.json"))
bad = 0
for name in goals.ESTIMATORS + goals.FIRE_ALL:
    rows = est if name in goals.ESTIMATORS else wheel
    if goals.time_ns(rows, name) is None:
        print(f"FAIL: no usable time for {name} (goals.py would say 'not measured')"); bad = 1
smoke_n = [int(n) for n in sys.argv[2].split("|")]
for variant in ("", "_Cold"):
    for n, names in goals.rearm_names(variant).items():
        if n not in smoke_n:
            continue
        for name in names:
            if goals.per_rearm_ns(wheel, name) is None:
                print(f"FAIL: no usable per_rearm for {name}"); bad = 1
for n, name in goals.touch_rearm_names().items():
    if n in smoke_n and goals.difference_ns(wheel, name, "rearm_added") is None:
        print(f"FAIL: no usable rearm_added for {name}"); bad = 1
for name, rows in list(est.items()) + list(wheel.items()):
    if rows.get("run_type") != "aggregate":
        print(f"FAIL: {name}: goals.py read a single run, not the median of the repetitions"); bad = 1
goals.estimator_goals(est)
for line in goals.lines:
    if line[1] == "not measured":
        print(f"FAIL: goal not measured: {line[0]}"); bad = 1
sys.exit(bad)
PY

# The shapes table (bench/replay-shapes.sh, which make bench runs at 1 M
# packets): every shape generated and timed, at a small size; and the two
# kernel captures of bench/kernel-shapes.sh, small (a 1 MiB upload per flow,
# 200 short connections over 2 s), unless it says it cannot make them here
# ("skipped": not root, a tool missing, no right to make a namespace).
if command -v hyperfine >/dev/null 2>&1 && [ -x "$bin/replay-gen" ]; then
  PACKETS=16000 RUNS=1 BULK_MIB=1 RR_FLOWS=200 RR_SECONDS=2 BUILD=$BUILD bash bench/replay-shapes.sh \
    >"$dir/shapes.txt" 2>&1
  rows=$(awk '/^shape/ { on = 1; next } on' "$dir/shapes.txt" | grep -cE ' [0-9]+ +[0-9]+ ')
  kernel=$(grep -cE '^kernel: .* [0-9]+ +[0-9]+ ' "$dir/shapes.txt" || true)
  if grep -q "no kernel shapes: .*skipped" "$dir/shapes.txt"; then
    [ "$rows" -eq 10 ] && echo "ok: replay-shapes.sh times its 10 shapes; $(grep -o 'kernel-shapes: .*skipped' "$dir/shapes.txt")" \
      || { echo "FAIL: replay-shapes.sh: $rows shapes timed"; cat "$dir/shapes.txt"; fail=1; }
  else
    [ "$rows" -eq 12 ] && [ "$kernel" -eq 2 ] && echo "ok: replay-shapes.sh times its 10 shapes and 2 kernel captures" \
      || { echo "FAIL: replay-shapes.sh: $rows shapes timed ($kernel of the kernel's)"; cat "$dir/shapes.txt"; fail=1; }
  fi
fi

if [ $fail -ne 0 ]; then exit 1; fi
if [ $skipped -ne 0 ]; then exit 77; fi
echo "bench_smoke: every microbenchmark ran; goals.py finds and measures its benchmarks"
