#!/usr/bin/env bash
# `make fuzz`: runs every libFuzzer harness (build/fuzz/bin/fuzz-*) for
# FUZZ_SECONDS each (default 300), one after the other, over its committed
# corpus (tests/fuzz/corpus/<harness>/) plus the seeds of tests/fuzz/seeds.sh,
# with its dictionary when there is one (tests/fuzz/dict/<harness>.dict).
# New inputs go to build/fuzz/corpus/<harness>/ (not the repo: minimise with
# -merge=1 before committing any); crashes, leaks and timeouts to
# build/fuzz/crashes/<harness>/. Prints each harness's last status line
# (cov:, ft:, corp:, exec/s) and exits 1 when any harness found something.
# FUZZ_ONLY="a b" runs only those harnesses; FUZZ_JOBS=N runs N at once;
# FUZZ_FORK=0 runs each in one process (it stops at the first finding, and
# prints libFuzzer's final stats: stat::number_of_executed_units, the
# executions the README tables give).
set -u
BIN=${BIN:-build/fuzz/bin}
OUT=${OUT:-build/fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-300}
FUZZ_JOBS=${FUZZ_JOBS:-1}
FUZZ_FORK=${FUZZ_FORK:-1}
here=$(dirname "$0")
harnesses=${FUZZ_ONLY:-$(cd "$here" && ls *.cpp | sed 's/\.cpp$//')}

run_one() {  # $1 = harness
  local h=$1 bin="$BIN/fuzz-$1" dict=() seeds
  [ -x "$bin" ] || { echo "fuzz: $bin is missing (make fuzz-build)"; return 1; }
  mkdir -p "$OUT/corpus/$h" "$OUT/crashes/$h" "$OUT/logs"
  [ -r "$here/dict/$h.dict" ] && dict=(-dict="$here/dict/$h.dict")
  seeds=$(bash "$here/seeds.sh" "$h")
  local max_len=4096  # one frame, header or field value
  case $h in parsers|reader|gzip) max_len=16384 ;; pipeline) max_len=8192 ;; esac  # whole short captures (speed)
  # Fork mode goes on after a finding (each one saved); -timeout: a run of
  # one input longer than 30 s is a hang (one over 5 s is saved as slow-unit-*,
  # to look at); -rss_limit_mb: the reader may hold
  # a 17 MiB window.
  local fork=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  [ "$FUZZ_FORK" = 0 ] && fork=()
  /usr/bin/time -o "$OUT/logs/$h.cpu" -f "%U %S" nice -n 10 "$bin" "${fork[@]}" -max_total_time="$FUZZ_SECONDS" \
    -timeout=30 -report_slow_units=5 -rss_limit_mb=2048 -max_len=$max_len -print_final_stats=1 -artifact_prefix="$OUT/crashes/$h/" \
    "${dict[@]}" "$OUT/corpus/$h" "$here/corpus/$h" $seeds >"$OUT/logs/$h.log" 2>&1
  local rc=$?
  local last found
  last=$(grep -E '^#[0-9]+' "$OUT/logs/$h.log" | tail -n 1)
  found=$(find "$OUT/crashes/$h" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  local execs
  execs=$(grep -E '^stat::number_of_executed_units' "$OUT/logs/$h.log" | awk '{print $2}')
  echo "fuzz-$h: exit $rc, $found finding(s), CPU s (user sys): $(tail -n 1 "$OUT/logs/$h.cpu"); ${execs:+executions $execs; }$last; log $OUT/logs/$h.log"
  [ "$rc" -eq 0 ] && [ "$found" -eq 0 ]
}

failed=0
running=0
for h in $harnesses; do
  run_one "$h" &
  running=$((running + 1))
  if [ "$running" -ge "$FUZZ_JOBS" ]; then wait -n || failed=1; running=$((running - 1)); fi
done
while [ "$running" -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done
if [ "$failed" -ne 0 ]; then
  echo "make fuzz: findings in $OUT/crashes/ (reproduce: $BIN/fuzz-NAME FILE)"
  exit 1
fi
echo "make fuzz: no findings"
