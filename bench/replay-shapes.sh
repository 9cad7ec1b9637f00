#!/usr/bin/env bash
# pcap-replay's cost per packet across shapes of traffic: `pcap-replay
# check` on generated captures (bench/replay-scale/gen_capture.cpp) that
# differ in one dimension at a time (connections, loss, handshakes only),
# beside tcptrace (-n -l -r) and a bare libpcap loop on the same file, with
# the peak RSS per connection; then two captures of the Linux kernel's own
# TCP (bench/kernel-shapes.sh), where it may make them; and, when
# BASELINE_BIN names another build of pcap-replay (an older commit's), that
# build on the same files in the same run, with the ratio.
# A shape slower per packet than the baseline is the regression this exists
# to show (ns/packet: lower is better; "x base" above 1.00 is slower).
# Run by `make bench` (without a baseline); by hand:
#   BASELINE_BIN=/path/to/old/pcap-replay bash bench/replay-shapes.sh
# Env: BUILD (default build), PACKETS (default 1000000), RUNS (hyperfine
# runs, default 3), PROFILE (default linux), KERNEL_SHAPES (0: no kernel
# captures). Needs hyperfine.
set -u
BUILD=${BUILD:-build}
PACKETS=${PACKETS:-1000000}
RUNS=${RUNS:-3}
PROFILE=${PROFILE:-linux}
BASE=${BASELINE_BIN:-}
gen="$BUILD/bin/replay-gen" pr="$BUILD/bin/pcap-replay" bare="$BUILD/bin/replay-bare-loop"
for x in "$gen" "$pr"; do [ -x "$x" ] || { echo "replay-shapes: $x not built"; exit 1; }; done
# As replay-scale.sh: a missing tool skips the table, it does not fail make bench.
command -v hyperfine >/dev/null 2>&1 || { echo "replay-shapes: hyperfine missing (Debian package hyperfine): skipped"; exit 0; }
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "replay-shapes: BASELINE_BIN=$BASE is not executable"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# name|replay-gen arguments (one dimension changed from the first row).
# replay-gen needs at least 8 packets per connection: the many-connection
# shape takes 50000 or PACKETS / 8, whichever is fewer.
many=$((PACKETS / 8 < 50000 ? PACKETS / 8 : 50000))
shapes=(
  "2000 flows, 1 % loss|--flows 2000 --loss-permille 10"
  "4 flows, 1 % loss|--flows 4 --loss-permille 10"
  "$many flows, 1 % loss|--flows $many --loss-permille 10"
  "2000 flows, no loss|--flows 2000 --loss-permille 0"
  "2000 flows, 10 % loss|--flows 2000 --loss-permille 100"
  "handshakes only|--flows $((PACKETS / 10)) --syn-only"
  "2000 flows, mid-stream|--flows 2000 --loss-permille 5 --mid-stream"
  "2000 flows, IPv6|--flows 2000 --loss-permille 10 --ipv6"
  "2000 flows, no timestamps|--flows 2000 --loss-permille 10 --no-timestamps"
  "2000 flows, 5 % reordered|--flows 2000 --loss-permille 10 --reorder-permille 50"
)

mean_s() {  # mean wall-clock seconds of "$1" over $RUNS runs
  local json; json=$(mktemp)
  hyperfine --style none -i --warmup 1 --runs "$RUNS" --export-json "$json" "$1" >/dev/null 2>&1 &&
    python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["mean"])' "$json" ||
    echo "-"
  rm -f "$json"
}
ns_per() { [ "$1" = "-" ] && echo "-" || python3 -c "print('%.0f' % ($1 * 1e9 / $2))"; }
# a / b with two decimals, "-" when either is unknown
ratio() { [ "$1" = "-" ] || [ "$2" = "-" ] && echo "-" || python3 -c "print('%.2f' % ($1 / $2))"; }
# Peak RSS (KiB) of one run of "$@" (Debian's /usr/bin/time), "-" without it.
peak_kib() { [ -x /usr/bin/time ] && /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -n 1 || echo "-"; }
have_tcptrace=0; command -v tcptrace >/dev/null 2>&1 && have_tcptrace=1
have_bare=0; [ -x "$bare" ] && have_bare=1

# The process's own footprint (one connection of 8 packets): what RSS per
# connection is counted above.
"$gen" "$dir/one.pcap" --flows 1 --packets 8 >/dev/null
base_kib=$(peak_kib "$pr" check --profile "$PROFILE" -j 1 "$dir/one.pcap")

printf 'pcap-replay check --profile %s -j 1 (one core), %s packets per capture, mean of %s runs\n' "$PROFILE" "$PACKETS" "$RUNS"
printf '(x tcptrace: tcptrace -n -l -r time / ours, above 1 is faster; of loop: a bare libpcap loop time / ours, the\n'
printf ' share of its packet rate; KiB/conn: peak RSS above a one-connection run, per connection; x -j 2: the time of
 -j 1 / -j 2 (two threads, the same output); "-": the tool is missing)\n'
printf '%-26s %10s %12s %10s %8s %9s %7s' shape packets "ns/packet" "x tcptrace" "of loop" "KiB/conn" "x -j 2"
[ -n "$BASE" ] && printf ' %14s %8s' "base ns/packet" "x base"
printf '\n'
# One row: shape NAME on capture FILE (removed after).
measure() {
  local name=$1 f=$2 n t t2 tt bt conns kib per_conn b
  n=$(capinfos -c -M "$f" 2>/dev/null | awk -F: '/Number of packets/ {gsub(/ /, "", $2); print $2}')
  [ -n "$n" ] || n=$(tcpdump -r "$f" 2>/dev/null | wc -l)
  t=$(mean_s "$pr check --profile $PROFILE -j 1 $f")
  t2=$(mean_s "$pr check --profile $PROFILE -j 2 $f")
  tt="-"; [ $have_tcptrace = 1 ] && tt=$(mean_s "tcptrace -n -l -r $f")
  bt="-"; [ $have_bare = 1 ] && bt=$(mean_s "$bare $f")
  conns=$("$pr" flows "$f" 2>/dev/null | awk 'NR > 1' | wc -l)
  kib=$(peak_kib "$pr" check --profile "$PROFILE" -j 1 "$f")
  per_conn=$([ "$kib" = "-" ] || [ "$base_kib" = "-" ] || [ "$conns" -eq 0 ] && echo "-" ||
             python3 -c "print('%.2f' % (max(0, $kib - $base_kib) / $conns))")
  printf '%-26s %10s %12s %10s %8s %9s %7s' "$name" "$n" "$(ns_per "$t" "$n")" "$(ratio "$tt" "$t")" "$(ratio "$bt" "$t")" \
    "$per_conn" "$(ratio "$t" "$t2")"
  if [ -n "$BASE" ]; then
    b=$(mean_s "$BASE check --profile $PROFILE $f")
    printf ' %14s %8s' "$(ns_per "$b" "$n")" "$(ratio "$t" "$b")"
  fi
  printf '\n'
  rm -f "$f"
}
i=0
for row in "${shapes[@]}"; do
  IFS='|' read -r name args <<<"$row"
  f="$dir/shape$i.pcap"; i=$((i + 1))
  # shellcheck disable=SC2086
  "$gen" "$f" --packets "$PACKETS" $args >/dev/null || { echo "replay-shapes: replay-gen $args failed"; exit 1; }
  measure "$name" "$f"
done
# The Linux kernel's own TCP in two shapes (bench/kernel-shapes.sh: root,
# network namespaces; KERNEL_SHAPES=0 leaves them out). Their packet counts
# are the kernel's, not PACKETS.
# A capture that lost packets (tcpdump behind the veth's rate on a busy
# machine: CI's sanitizer pass beside it) is made again, once.
kernel_shapes() {
  bash "$(dirname "$0")/kernel-shapes.sh" "$dir/kernel" 2>"$dir/kernel.log" && return 0
  grep -q 'tcpdump lost packets' "$dir/kernel.log" || return 1
  bash "$(dirname "$0")/kernel-shapes.sh" "$dir/kernel" 2>"$dir/kernel.log"
}
if [ "${KERNEL_SHAPES:-1}" != 0 ]; then
  if kernel_shapes; then
    if [ -f "$dir/kernel/kernel-bulk32.pcap" ]; then measure "kernel: 32 bulk, 0.5 % loss" "$dir/kernel/kernel-bulk32.pcap"; fi
    if [ -f "$dir/kernel/kernel-rr15k.pcap" ]; then measure "kernel: 15 000 short conns" "$dir/kernel/kernel-rr15k.pcap"; fi
  else
    # Its own lines say why (skipped: what is missing; else what failed).
    echo "replay-shapes: no kernel shapes: $(grep '^kernel-shapes:' "$dir/kernel.log" | tail -n 2 | tr '\n' ' ')"
    grep -q '^kernel-shapes:' "$dir/kernel.log" || tail -n 3 "$dir/kernel.log"
  fi
fi
