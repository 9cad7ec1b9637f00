#!/usr/bin/env bash
# Smoke run of the microbenchmarks `make bench` runs (bench/*.cpp), each for
# a moment: every one builds, runs without a benchmark error, and writes the
# JSON that bench/goals.py reads under the names it looks for. No time is
# asserted (speed is measured by `make bench`, not by a test).
set -u
BUILD=${BUILD:-build}
bin="$BUILD/bin"
shared=${RTO_SHARED_DIR:-../shared}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
# Google Benchmark 1.7 (Debian 12) takes a number of seconds.
quick=(--benchmark_min_time=0.01 --benchmark_out_format=json)

run() {  # run NAME [FLAGS...]: bench-NAME to $dir/NAME.json
  local name=$1; shift
  local b="$bin/bench-$name"
  if [ ! -x "$b" ]; then echo "FAIL: $b not built"; fail=1; return; fi
  if ! "$b" "${quick[@]}" --benchmark_out="$dir/$name.json" "$@" >"$dir/$name.txt" 2>&1; then
    echo "FAIL: $b exited $?"; cat "$dir/$name.txt"; fail=1; return
  fi
  # A benchmark that cannot run (a missing capture, say) reports an error and
  # still exits 0.
  if grep -q 'ERROR OCCURRED' "$dir/$name.txt"; then
    echo "FAIL: $b: a benchmark reported an error"; grep 'ERROR OCCURRED' "$dir/$name.txt"; fail=1
  fi
}

if [ ! -r "$shared/traces/linux/blackhole-backoff.pcap" ]; then
  echo "skip: $shared/traces/linux/blackhole-backoff.pcap missing (bench-reader, bench-replay read it)"
  exit 77
fi

run estimator
# The wheel at the smallest N only (the large worlds take seconds to build),
# and fire-all against its baseline.
run timer_wheel --benchmark_filter='Rearm(_Cold)?/1000/|FireAll'
run reader
run replay

# The names goals.py reads are in the JSON, with the fields it uses.
PYTHONDONTWRITEBYTECODE=1 python3 - "$dir" <<'PY' || fail=1
import os, sys
sys.path.insert(0, "bench")
import goals
d = sys.argv[1]
est = goals.load_benchmarks(os.path.join(d, "estimator.json"))
wheel = goals.load_benchmarks(os.path.join(d, "timer_wheel.json"))
need = {
    "estimator": (est, {n: "cpu_time" for n in ("BM_Estimator_Rfc6298", "BM_Estimator_Linux", "BM_Baseline_Double")}),
    "timer_wheel": (wheel, {
        "BM_TimerWheel_Rearm/1000": "per_rearm", "BM_Baseline_Set_Rearm/1000": "per_rearm",
        "BM_TimerWheel_Rearm_Cold/1000": "per_rearm", "BM_Baseline_Set_Rearm_Cold/1000": "per_rearm",
        "BM_TimerWheel_FireAll/1000000": "cpu_time", "BM_Baseline_Multimap_FireAll/1000000": "cpu_time"}),
}
bad = 0
for what, (rows, names) in need.items():
    for name, field in names.items():
        if name not in rows or field not in rows[name]:
            print(f"FAIL: {what}.json has no {name} with {field} (goals.py would say 'not measured')")
            bad = 1
sys.exit(bad)
PY

[ $fail -eq 0 ] && echo "bench_smoke: every microbenchmark ran; goals.py finds its benchmarks"
exit $fail
