#!/usr/bin/env bash
# Captures of the Linux kernel's own TCP in the shapes issue 24 names, for
# bench/replay-shapes.sh to time beside its generated ones: two network
# namespaces joined by a veth pair (the capture lab's topology,
# tests/capture/lab/lib.sh), tcpdump at the sender's veth, loss made by an
# nftables rule at the receiver's way in (invisible to both TCP stacks), the
# ends tests/capture/lab/peer.py. Written to OUTDIR:
#   kernel-bulk32.pcap  32 parallel bulk uploads of BULK_MIB (default 12) MiB
#                       each through a 500 Mbit/s token bucket at the
#                       sender's veth (tcpdump keeps up at that rate; at the
#                       veth's own it lost 405 000 of 556 000), 0.5 % of the
#                       sender's packets lost
#   kernel-rr15k.pcap   RR_FLOWS (default 15 000) short connections over
#                       RR_SECONDS (default 30) s, at most 400 at once: half
#                       request/response (2-6 requests of 100 bytes, answers of
#                       1-5 KB), half uploads of 8-48 KB (peer.py many), 1 % of
#                       the sender's packets lost
# KERNEL_SHAPE_SET (default "bulk32 rr15k") picks some.
#
# Needs root with the right to make network namespaces, and ip, nft, tc (the
# tbf qdisc), tcpdump and python3: where one is missing it prints
# "kernel-shapes: ... skipped" and exits 77. A capture that lost a packet
# (tcpdump's "captured" below its "received by filter"), a client that
# failed, or anything else going wrong is an error (exit 1, the reason on
# standard error): it would time a shape with holes. The random loss and the
# kernel's timing make each run's captures differ: the counts are this
# run's, printed beside the times.
#
#   sudo bash bench/kernel-shapes.sh OUTDIR
set -euo pipefail
out=${1:?usage: kernel-shapes.sh OUTDIR}
skip() { echo "kernel-shapes: $*: skipped" >&2; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, nftables)"
for t in ip nft tc tcpdump python3; do command -v "$t" >/dev/null || skip "$t missing"; done
probe=bench-probe-$$
ip netns add "$probe" 2>/dev/null || skip "cannot make a network namespace (ip netns add)"
ip -n "$probe" link add probe-a type veth peer name probe-b 2>/dev/null &&
  ip netns exec "$probe" tc qdisc add dev probe-a root tbf rate 500mbit burst 64kb latency 50ms 2>/dev/null ||
  { ip netns del "$probe"; skip "no veth pair or tbf qdisc in a namespace"; }
ip netns del "$probe"
mkdir -p "$out"
out=$(cd "$out" && pwd)
BULK_MIB=${BULK_MIB:-12}
RR_FLOWS=${RR_FLOWS:-15000}
RR_SECONDS=${RR_SECONDS:-30}
KERNEL_SHAPE_SET=${KERNEL_SHAPE_SET:-bulk32 rr15k}

# What lab_init sets, without its labelling tools (bpftrace, nstat, tshark):
# a bench capture needs no kernel labels.
source "$(dirname "$0")/../tests/capture/lab/lib.sh"
SCENARIO=kernel-shapes
SND=bench-$$-s RCV=bench-$$-r
SNDX="ip netns exec $SND" RCVX="ip netns exec $RCV"
WORK=$(mktemp -d /tmp/kernel-shapes.XXXXXX)
: >"$WORK/events.jsonl"; : >"$WORK/rules.jsonl"
trap lab_cleanup EXIT
trap 'exit 130' INT HUP
trap 'exit 143' TERM
fail() { echo "kernel-shapes: $*" >&2; exit 1; }

capture_start() {  # capture_start FILE: tcpdump at the sender's veth, lab ports only
  # --immediate-mode: without it libpcap hands packets over a block at a
  # time (full, or 1 s old), and the last block of a stopped tcpdump is lost.
  ip netns exec "$SND" tcpdump -i veth-s -s 96 -B 262144 --immediate-mode -U -w "$1" \
    'tcp port 5001 or tcp port 5002' 2>"$WORK/tcpdump.err" &
  TCPDUMP=$!; PIDS+=($TCPDUMP)
  for _ in $(seq 200); do grep -q "listening on" "$WORK/tcpdump.err" 2>/dev/null && break; sleep 0.02; done
  grep -q "listening on" "$WORK/tcpdump.err" 2>/dev/null || fail "tcpdump did not start: $(cat "$WORK/tcpdump.err")"
}
capture_stop() {  # capture_stop FILE: lets tcpdump write what it has, stops it, checks it lost nothing
  sleep 1.5
  lab_tcpdump_stop "$TCPDUMP" || { rm -f "$1"; fail "$1: tcpdump lost packets"; }
  echo "kernel-shapes: $(basename "$1"): $(awk '/packets captured/ {print $1}' "$WORK/tcpdump.err") packets" >&2
}
server() {  # server PORT MODE: peer.py's server in the receiver namespace until $WORK/stop
  rm -f "$WORK/srv$1.ready"
  $RCVX "$PY" "$LAB_DIR/peer.py" server --bind "$RADDR" --port "$1" --mode "$2" --stop "$WORK/stop" \
    --ready "$WORK/srv$1.ready" --timeout 300 >"$WORK/server$1.json" &
  PIDS+=($!)
  lab_wait_file "$WORK/srv$1.ready" 10 || fail "the $2 server on port $1 did not start"
}

lab_topology
server 5001 sink
server 5002 rr

# Shape 1: parallel bulk uploads.
if [[ " $KERNEL_SHAPE_SET " == *" bulk32 "* ]]; then
  ip netns exec "$SND" tc qdisc add dev veth-s root tbf rate 500mbit burst 64kb latency 50ms
  lab_nft_rule pre bulk_loss ip saddr "$SADDR" numgen random mod 1000 \< 5 drop
  capture_start "$out/kernel-bulk32.pcap"
  clients=()
  for i in $(seq 32); do
    $SNDX "$PY" "$LAB_DIR/peer.py" client --to "$RADDR" --port 5001 --mode bulk \
      --bytes $((BULK_MIB * 1024 * 1024)) --timeout 300 >"$WORK/bulk$i.json" &
    clients+=($!); PIDS+=($!)
  done
  failed=0
  for p in "${clients[@]}"; do wait "$p" || failed=$((failed + 1)); done
  capture_stop "$out/kernel-bulk32.pcap"
  lab_nft_del bulk_loss
  ip netns exec "$SND" tc qdisc del dev veth-s root
  [ $failed -eq 0 ] || { rm -f "$out/kernel-bulk32.pcap"; fail "$failed of 32 bulk uploads failed"; }
fi

# Shape 2: many short connections (in the background, so that a signal
# reaches the trap at once, not when the clients are done).
if [[ " $KERNEL_SHAPE_SET " == *" rr15k "* ]]; then
  lab_nft_rule pre rr_loss ip saddr "$SADDR" numgen random mod 100 \< 1 drop
  capture_start "$out/kernel-rr15k.pcap"
  $SNDX "$PY" "$LAB_DIR/peer.py" many --to "$RADDR" --bulk-port 5001 --rr-port 5002 --flows "$RR_FLOWS" \
    --concurrency 400 --seed 7 --duration-s "$RR_SECONDS" --timeout 60 >"$WORK/many.json" &
  many=$!; PIDS+=($many)
  many_rc=0; wait $many || many_rc=$?
  capture_stop "$out/kernel-rr15k.pcap"
  lab_nft_del rr_loss
  [ $many_rc -eq 0 ] || { rm -f "$out/kernel-rr15k.pcap"; fail "short connections failed: $(cat "$WORK/many.json")"; }
fi
touch "$WORK/stop"
