#!/usr/bin/env bash
# Replay at scale: `pcap-replay check` on a generated multi-flow
# capture (bench/replay-scale/gen_capture.cpp: 2000 connections, 4 M packets,
# 1 % loss, 1 kHz TSvals, headers only) beside a bare libpcap loop,
# `tcptrace -n -l -r` and tshark's TCP analysis, as whole processes
# (hyperfine), with the peak RSS of each (GNU time); then pcap-replay alone
# on a 6x larger capture with the same connections, to show its RSS flat.
# Prints one table per capture. Run by `make bench`; needs hyperfine, GNU
# time (Debian `time`), tcptrace, tshark (missing tools: their rows say so).
# Then memory per connection: peak RSS of `check`, `check --json`
# and `check --profile auto` on MEMFLOWS connections of one SYN each.
# The rows also go to $BUILD/bench/replay-scale.tsv, which bench/goals.py reads.
# Env: BUILD (default build), PACKETS (default 4000000), FLOWS (2000),
# RUNS (hyperfine runs, default 3), BIG (the 6x file: 1 = yes, default 1),
# MEMFLOWS (one-SYN connections, default 2000000; 0 = no memory run).
set -u
BUILD=${BUILD:-build}
PACKETS=${PACKETS:-4000000}
FLOWS=${FLOWS:-2000}
RUNS=${RUNS:-3}
BIG=${BIG:-1}
MEMFLOWS=${MEMFLOWS:-2000000}
dir="$BUILD/bench"
mkdir -p "$dir"
gen="$BUILD/bin/replay-gen" bare="$BUILD/bin/replay-bare-loop" pr="$BUILD/bin/pcap-replay"
for x in "$gen" "$bare" "$pr"; do [ -x "$x" ] || { echo "replay-scale: $x not built"; exit 1; }; done
have() { command -v "$1" >/dev/null 2>&1; }
GNU_TIME=/usr/bin/time
[ -x "$GNU_TIME" ] || { echo "replay-scale: GNU time (Debian package time) missing"; exit 1; }

# mean wall-clock seconds of a command over $RUNS runs (hyperfine), or "-".
mean_s() {
  local json; json=$(mktemp)
  if have hyperfine; then
    hyperfine --style none --warmup 1 --runs "$1" --export-json "$json" "$2" >/dev/null 2>&1 &&
      python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"][0]["mean"])' "$json" ||
      echo "-"
  else
    echo "-"
  fi
  rm -f "$json"
}
# peak RSS in MiB of one run (GNU time -v).
rss_mib() {
  local log; log=$(mktemp)
  $GNU_TIME -v sh -c "$1" >/dev/null 2>"$log"
  awk -F: '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$log"
  rm -f "$log"
}

table() {  # table FILE PACKETS LABEL... rows: name|command|runs
  local file=$1 n=$2; shift 2
  printf '\n%s (%s packets)\n' "$file" "$n"
  printf '%-34s %10s %14s %10s %10s %10s %12s\n' tool "time s" "packets/s" "x bare" "x tcptrace" "x tshark" "peak RSS MiB"
  local -A t
  local rows=("$@") r name cmd runs
  for r in "${rows[@]}"; do
    IFS='|' read -r name cmd runs <<<"$r"
    t[$name]=$(mean_s "$runs" "$cmd")
    rss[$name]=$(rss_mib "$cmd")
  done
  for r in "${rows[@]}"; do
    IFS='|' read -r name cmd runs <<<"$r"
    local s=${t[$name]}
    printf '%s\t%s\t%s\t%s\t%s\n' "$file" "$n" "$name" "$s" "${rss[$name]}" >>"$tsv"
    python3 - "$name" "$s" "$n" "${t[bare]:--}" "${t[tcptrace]:--}" "${t[tshark]:--}" "${rss[$name]}" <<'PY'
import sys
name, s, n, bare, tcptrace, tshark, rss = sys.argv[1:]
def ratio(other):  # how many times faster than `other` (or slower: < 1)
    try: return "%.2f" % (float(other) / float(s))
    except (ValueError, ZeroDivisionError): return "-"
try: pps = "%.0f" % (int(n) / float(s))
except (ValueError, ZeroDivisionError): pps = "-"
print("%-34s %10s %14s %10s %10s %10s %12s" % (name, s, pps, ratio(bare), ratio(tcptrace), ratio(tshark), rss))
PY
  done
}
declare -A rss
# Every row also goes to $tsv (capture, packets, tool, mean s, peak RSS MiB)
# for bench/goals.py.
tsv="$dir/replay-scale.tsv"
: >"$tsv"

small="$dir/replay-${PACKETS}.pcap"
[ -s "$small" ] || "$gen" "$small" --flows "$FLOWS" --packets "$PACKETS"
rows=("bare|$bare $small|$RUNS" "pcap-replay check --profile linux|$pr check --profile linux -j 1 $small|$RUNS")
if have tcptrace; then rows+=("tcptrace|tcptrace -n -l -r $small|$RUNS"); else echo "tcptrace missing: row skipped"; fi
if have tshark; then rows+=("tshark|tshark -n -r $small -o tcp.analyze_sequence_numbers:TRUE -Y tcp.analysis.flags|1"); else echo "tshark missing: row skipped"; fi
table "$small" "$PACKETS" "${rows[@]}"

if [ "$BIG" = 1 ]; then
  bign=$((PACKETS * 6))
  big="$dir/replay-${bign}.pcap"
  [ -s "$big" ] || "$gen" "$big" --flows "$FLOWS" --packets "$bign"
  table "$big" "$bign" "bare|$bare $big|1" "pcap-replay check --profile linux|$pr check --profile linux -j 1 $big|1"
fi

if [ "$MEMFLOWS" -gt 0 ]; then
  # Issue 9: 2 M one-packet connections in under 1 GB (1e9 bytes), every mode
  # that writes connections as it goes; then the same count spread over an
  # hour (a SYN flood: each is over 300 s after its SYN, FlowSlot::cannot_resume).
  syn="$dir/syn-${MEMFLOWS}.pcap"
  flood="$dir/flood-${MEMFLOWS}.pcap"
  [ -s "$syn" ] || "$gen" "$syn" --flows "$MEMFLOWS" --syn-only
  [ -s "$flood" ] || "$gen" "$flood" --flows "$MEMFLOWS" --syn-only --span 3600
  printf '\n%s connections of one SYN each: peak RSS (goal for 2 M: under 1e9 bytes)\n' "$MEMFLOWS"
  printf '%-44s %12s %12s\n' run "peak RSS MB" "B/connection"
  for mode in "check" "check --json" "check --profile auto" "flows" "flows --json" "timeline"; do
    kib=$($GNU_TIME -f '%M' $pr $mode -j 1 "$syn" 2>&1 >/dev/null | tail -1)
    awk -v m="pcap-replay $mode" -v k="$kib" -v n="$MEMFLOWS" 'BEGIN { printf "%-44s %12.1f %12.0f\n", m, k * 1024 / 1e6, k * 1024 / n }'
  done
  kib=$($GNU_TIME -f '%M' $pr check -j 1 "$flood" 2>&1 >/dev/null | tail -1)
  awk -v m="pcap-replay check (over 3600 s)" -v k="$kib" -v n="$MEMFLOWS" 'BEGIN { printf "%-44s %12.1f %12.0f\n", m, k * 1024 / 1e6, k * 1024 / n }'
fi
