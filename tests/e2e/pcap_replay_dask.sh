#!/usr/bin/env bash
# pcap-replay on Dask (python3-distributed): a scheduler and two workers on
# loopback, pcap-replay/distributed/dask_check.py running 4 shards of one
# check. One worker is killed (SIGKILL, no nanny to restart it) while a shard
# of its runs: Dask must run that shard again on the other worker, and the
# merged document must still be byte for byte one process's, with its exit
# status.
set -uo pipefail
BUILD=${BUILD:-build}
BIN=$(realpath "$BUILD/bin/pcap-replay")
GEN=$BUILD/bin/replay-gen
PY=/usr/bin/python3  # Debian's, where python3-distributed is
if ! "$PY" -c 'import distributed' 2> /dev/null; then
  echo "skip: python3-distributed is not installed (make deps)"
  exit 77
fi
T=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done
  wait 2> /dev/null
  rm -rf "$T"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for l in "$T"/*.log; do [ -e "$l" ] && { echo "--- $l"; tail -n 15 "$l"; }; done
  exit 1
}

# A shard of this capture takes about a second: long enough to be killed in.
"$GEN" "$T/in.pcap" --flows 2000 --packets 2000000 --loss-permille 5 --seed 11 > /dev/null || fail "replay-gen"
port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sched=tcp://127.0.0.1:$port
"$PY" -m distributed.cli.dask_scheduler --host 127.0.0.1 --port "$port" --no-dashboard --no-show \
  > "$T/scheduler.log" 2>&1 &
pids+=($!)
# Nothing to run on yet: the driver gives up after --wait-s, exit 2, one line.
"$PY" pcap-replay/distributed/dask_check.py --scheduler "$sched" --shards 2 --wait-s 2 --pcap-replay "$BIN" \
  -- tests/captures/linux-blackhole.pcap > /dev/null 2> "$T/noworker.err"; rc=$?
[ $rc = 2 ] && grep -q "fewer than 1 worker(s) joined" "$T/noworker.err" || fail "no worker: exit $rc, $(cat "$T/noworker.err")"
echo "ok: without a worker the driver stops after --wait-s: $(cat "$T/noworker.err")"
# The workers run elsewhere (their own directories): relative paths are the driver's.
for w in 1 2; do
  mkdir -p "$T/w$w"
  (cd "$T/w$w" && exec "$PY" -m distributed.cli.dask_worker "$sched" --nthreads 1 --no-nanny --no-dashboard \
    --name "w$w" --local-directory "$T/w$w" > "$T/worker$w.log" 2>&1) &
  pids+=($!)
  eval "worker$w=$!"
done

mkdir "$T/markers"
"$PY" pcap-replay/distributed/dask_check.py --scheduler "$sched" --workers 2 --shards 4 --pcap-replay "$BIN" \
  --marker-dir "$T/markers" -- --profile linux "$T/in.pcap" > "$T/merged.json" 2> "$T/driver.log" &
driver=$!
pids+=($driver)

# Kill worker 1 as soon as a shard runs on it (its started marker without a done one).
killed=""
for _ in $(seq 1 3000); do
  for m in "$T"/markers/started-*-"$worker1"; do
    [ -e "$m" ] || continue
    tag=${m##*/started-}
    if [ ! -e "$T/markers/done-$tag" ]; then
      kill -9 "$worker1"
      killed=${tag%-*}
      break 2
    fi
  done
  kill -0 "$driver" 2> /dev/null || break
  sleep 0.01
done
[ -n "$killed" ] || fail "no shard was seen running on worker 1 (pid $worker1)"
wait "$driver"; rc=$?
[ -e "$T/markers/done-$killed-$worker1" ] && fail "shard $killed finished on worker 1 before the kill: not killed mid-run"
[ -e "$T/markers/done-$killed-$worker2" ] || fail "shard $killed was not run again on worker 2 after worker 1 died"
echo "ok: worker 1 (pid $worker1) killed during shard $killed/4; Dask ran it again on worker 2 (pid $worker2)"

"$BIN" check --json --profile linux "$T/in.pcap" > "$T/one.json" 2> /dev/null; rc1=$?
cmp -s "$T/one.json" "$T/merged.json" || fail "the merged document differs from one process's ($(cmp "$T/one.json" "$T/merged.json"))"
[ "$rc" = "$rc1" ] || fail "exit status $rc through Dask, $rc1 for one process"
echo "ok: 4 shards over 2 workers, one killed: the merged document is one process's ($(wc -c < "$T/one.json") bytes, exit $rc)"

# Two runs at once on the remaining worker, of two captures given by
# relative paths: each gets its own capture's document (the task keys are
# each run's own).
a=tests/captures/lab/many-flows.pcap b=tests/captures/lab/capture-dup.pcap
"$PY" pcap-replay/distributed/dask_check.py --scheduler "$sched" --shards 3 --pcap-replay "$BIN" -- --profile linux "$a" \
  > "$T/ra.json" 2> "$T/ra.err" &
ra=$!
"$PY" pcap-replay/distributed/dask_check.py --scheduler "$sched" --shards 3 --pcap-replay "$BIN" -- --profile linux "$b" \
  > "$T/rb.json" 2> "$T/rb.err"; rcb=$?
wait $ra; rca=$?
"$BIN" check --json --profile linux "$a" > "$T/oa.json" 2> /dev/null; oa=$?
"$BIN" check --json --profile linux "$b" > "$T/ob.json" 2> /dev/null; ob=$?
cmp -s "$T/oa.json" "$T/ra.json" && [ $rca = $oa ] || fail "concurrent run of $a: not its document (exit $rca, $(head -c 300 "$T/ra.err"))"
cmp -s "$T/ob.json" "$T/rb.json" && [ $rcb = $ob ] || fail "concurrent run of $b: not its document (exit $rcb, $(head -c 300 "$T/rb.err"))"
echo "ok: two runs at once, relative paths: each its own capture's document"
