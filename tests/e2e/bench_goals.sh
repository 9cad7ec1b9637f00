#!/usr/bin/env bash
# bench/goals.py, the goals table `make bench` prints: fed made-up benchmark
# JSON and replay rows at and just past each goal's boundary, it must say
# "met" at the boundary, "MISSED" past it, and "not measured" (never "met")
# for what is absent. No benchmark runs here (speed is measured in bench/).
set -u
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0

# est RFC_NS LINUX_NS DOUBLE_NS: estimator.json with median aggregates (and a
# first repetition that differs, which must not be used).
est() {
  python3 - "$dir/estimator.json" "$@" <<'PY'
import json, sys
out, rfc, lin, dbl = sys.argv[1], *map(float, sys.argv[2:])
rows = []
for name, t in (("BM_Estimator_Rfc6298", rfc), ("BM_Estimator_Linux", lin), ("BM_Baseline_Double", dbl)):
    rows.append({"name": name, "run_name": name, "run_type": "iteration", "cpu_time": 99.0, "time_unit": "ns"})
    rows.append({"name": name + "_median", "run_name": name, "run_type": "aggregate",
                 "aggregate_name": "median", "cpu_time": t, "time_unit": "ns"})
json.dump({"benchmarks": rows}, open(out, "w"))
PY
}
# wheel W1E3 W1E6 W1E7 SETFACTOR FIREALL_MS MULTIMAP_MS: per_rearm in ns for
# the wheel at 1e3 / 1e6 / 1e7 (1e5 = 1e3's), the std::set's = SETFACTOR x
# the wheel's at every N (both variants), fire-all in ms.
wheel() {
  python3 - "$dir/timer_wheel.json" "$@" <<'PY'
import json, sys
out, w3, w6, w7, k, fw, fm = sys.argv[1], *map(float, sys.argv[2:])
rows = []
for v in ("", "_Cold"):
    for n, w in ((1000, w3), (100000, w3), (1000000, w6), (10000000, w7)):
        for name, t in ((f"BM_TimerWheel_Rearm{v}/{n}/manual_time", w), (f"BM_Baseline_Set_Rearm{v}/{n}/manual_time", w * k)):
            rows.append({"name": name + "_median", "run_name": name, "run_type": "aggregate",
                         "aggregate_name": "median", "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ns",
                         "per_rearm": t * 1e-9})
rows.append({"name": "BM_TimerWheel_FireAll/1000000", "run_name": "BM_TimerWheel_FireAll/1000000",
             "run_type": "iteration", "cpu_time": fw, "time_unit": "ms"})
rows.append({"name": "BM_Baseline_Multimap_FireAll/1000000", "run_name": "BM_Baseline_Multimap_FireAll/1000000",
             "run_type": "iteration", "cpu_time": fm, "time_unit": "ms"})
json.dump({"benchmarks": rows}, open(out, "w"))
PY
}
# replay BARE PR TCPTRACE TSHARK RSS_SMALL RSS_BIG: replay-scale.tsv rows.
replay() {
  printf 'small.pcap\t4000000\tbare\t%s\t2.9\n' "$1" >"$dir/replay-scale.tsv"
  printf 'small.pcap\t4000000\tpcap-replay check --profile linux\t%s\t%s\n' "$2" "$5" >>"$dir/replay-scale.tsv"
  printf 'small.pcap\t4000000\ttcptrace\t%s\t19\n' "$3" >>"$dir/replay-scale.tsv"
  printf 'small.pcap\t4000000\ttshark\t%s\t2000\n' "$4" >>"$dir/replay-scale.tsv"
  printf 'big.pcap\t24000000\tpcap-replay check --profile linux\t9\t%s\n' "$6" >>"$dir/replay-scale.tsv"
}
# expect PATTERN VERDICT: the line whose goal matches PATTERN ends in VERDICT.
expect() {
  local line
  line=$(python3 bench/goals.py "$dir" | grep -E -- "$1")
  if [ -z "$line" ]; then echo "FAIL: no goal line matches '$1'"; fail=1; return; fi
  case "$2" in
    "not measured") grep -q 'not measured' <<<"$line" && ! grep -qw 'met' <<<"$line" ;;
    *) [ "$(awk '{print $NF}' <<<"$line")" = "$2" ] ;;
  esac || { echo "FAIL: '$1' should be $2: $line"; fail=1; }
}

# Nothing measured: every goal says so, none is met.
if python3 bench/goals.py "$dir" | awk 'NR > 1 && $NF == "met"' | grep -q .; then
  echo "FAIL: a goal is met with nothing measured"; fail=1
fi
expect '^estimator Linux: ns' "not measured"
expect '^tcptrace' "not measured"

# At each boundary: RFC 3 ns, Linux 5 ns (and both below the double's 6);
# re-arm 25 ns at 1e6, 1e7 / 1e3 = 15 / 10 = 1.5x, std::set 20x; fire-all
# 10 < 11 ms; replay 1 s against tcptrace 4 s (4x), bare 0.5 s (1 / 0.5 = 2x),
# tshark 50 s (50x); RSS 30 -> 36 MiB (1.2x).
est 3.0 5.0 6.0
wheel 10 25 15 20 10 11
replay 0.5 1 4 50 30 36
expect '^estimator RFC 6298: ns' met
expect '^estimator Linux: ns' met
expect '^estimator RFC 6298: double' met
expect '^estimator Linux: double' met
expect '^wheel re-arm at 1e6' met
expect '^wheel re-arm, 1e7' met
expect 'ACK-driven' met
expect '\(cold\)' met
expect '^fire all' met
expect '^tcptrace' met
expect '^replay time / bare' met
expect '^tshark' met
expect 'peak RSS' met

# Just past each: 3.01 ns, 5.01 ns and the double at 5.01 (a tie is not
# faster); 25.01 ns; 15.01 / 10 = 1.501x; 19.99x; fire-all 11 = 11 (a tie);
# tcptrace 3.99 s (3.99x); bare 0.499 s (2.004x); tshark 49.9 s; RSS 36.01 MiB.
est 3.01 5.01 5.01
wheel 10 25.01 15.01 19.99 11 11
replay 0.499 1 3.99 49.9 30 36.01
expect '^estimator RFC 6298: ns' MISSED
expect '^estimator Linux: ns' MISSED
expect '^estimator RFC 6298: double' met
expect '^estimator Linux: double' MISSED
expect '^wheel re-arm at 1e6' MISSED
expect '^wheel re-arm, 1e7' MISSED
expect 'ACK-driven' MISSED
expect '\(cold\)' MISSED
expect '^fire all' MISSED
expect '^tcptrace' MISSED
expect '^replay time / bare' MISSED
expect '^tshark' MISSED
expect 'peak RSS' MISSED

[ $fail -eq 0 ] && echo "bench_goals: every goal at and past its boundary"
exit $fail
