#!/usr/bin/env bash
# Runs the README's "A real RTO in two commands" block as written (the
# fenced sh block after the marker "demo: netstack-rto"; sudo dropped, as
# the test runs as root, and build/ replaced by $BUILD) and checks what it
# shows against the capture: netstack's live progress line reports one RTO
# of seq 1, and the time and the wait it prints are the ones pcap-replay
# and tshark read from the capture. The RTO is 1 s (RFC 6298 2.4 floor
# after one handshake sample), so the wait must be at least 1000 ms
# (a timer never fires early) and, allowing for a loaded machine, below
# 1500 ms. Exit 77 when not root or no /dev/net/tun.
set -u
BUILD=${BUILD:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
README=$HERE/../../README.md
"$BUILD/bin/netstack" --version | grep -qE '^netstack [0-9]+\.[0-9]+\.[0-9]+ ' || { echo "FAIL: netstack --version"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root"; exit 77; }
[ -c /dev/net/tun ] || { echo "skip: no /dev/net/tun"; exit 77; }
command -v tshark >/dev/null || { if [ "${CI:-}" = true ]; then echo "FAIL: no tshark (CI)"; exit 1; fi; echo "skip: no tshark"; exit 77; }
[ -x "$BUILD/bin/netstack" ] && [ -x "$BUILD/bin/pcap-replay" ] || { echo "FAIL: netstack and pcap-replay must be built"; exit 1; }
fail() { echo "FAIL: $*"; exit 1; }

block=$(awk '/demo: netstack-rto/{m=1; next} m && /^```sh/{in_b=1; next} in_b && /^```/{exit} in_b{print}' "$README")
[ -n "$block" ] || fail "no demo block in README.md"
echo "$block" | grep -q -- "--drop-seq 1 --capture /tmp/rto-demo.pcap" || fail "the demo block changed: update this test"
WORK=$(mktemp -d /tmp/netstack_demo.XXXXXX)
trap 'rm -rf "$WORK" /tmp/rto-demo.pcap' EXIT
script=$(printf '%s\n' "$block" | sed -e 's/^sudo //' -e "s|build/bin/|$BUILD/bin/|g")
bash -c "$script" >"$WORK/out.txt" 2>&1; rc=$?
sed 's/^/  /' "$WORK/out.txt"
[ $rc -eq 0 ] || fail "the demo block exited $rc"

line=$(grep -E '^netstack: \+[0-9.]+ s  RTO ' "$WORK/out.txt")
[ "$(printf '%s\n' "$line" | grep -c .)" -eq 1 ] || fail "expected exactly one RTO progress line, got: $line"
at=$(sed -E 's/^netstack: \+([0-9.]+) s.*/\1/' <<<"$line")
waited=$(sed -E 's/.*waited ([0-9.]+) ms.*/\1/' <<<"$line")
grep -q "seq 1 len 1001: waited" <<<"$line" || fail "the RTO is not of seq 1 (1000 bytes + FIN): $line"
grep -q "backoff 1, RTO now 2000 ms" <<<"$line" || fail "the backoff is not 1 -> 2000 ms (RFC 6298 5.5): $line"
python3 -c "import sys; w=float(sys.argv[1]); sys.exit(0 if 1000.0 <= w < 1500.0 else 1)" "$waited" \
  || fail "waited $waited ms: outside [1000, 1500) for a 1 s RTO"

# pcap-replay's expiry row: frame, at (s), seq, n, waited, ...
row=$(grep -E '^ +[0-9]+ +[0-9.]+ +1 +1 +[0-9.]+ +1000\.0 ' "$WORK/out.txt")
[ -n "$row" ] || fail "pcap-replay shows no expiry of seq 1 predicted at 1000 ms"
read -r frame r_at _ _ r_waited _ <<<"$row"
[ "$r_at" = "$at" ] || fail "netstack says +$at s, pcap-replay $r_at s"
[ "$r_waited" = "$waited" ] || fail "netstack says waited $waited ms, pcap-replay $r_waited ms"
# tshark: the same frame is a retransmission of relative seq 1, at the same time since frame 1 (the SYN).
t=$(tshark -r /tmp/rto-demo.pcap -Y "frame.number == $frame && tcp.analysis.retransmission && tcp.seq == 1" \
      -T fields -e frame.time_relative 2>/dev/null)
[ -n "$t" ] || fail "tshark does not see frame $frame as a retransmission of seq 1"
python3 -c "import sys; sys.exit(0 if abs(float(sys.argv[1]) - float(sys.argv[2])) < 0.0005 else 1)" "$t" "$at" \
  || fail "tshark puts frame $frame at $t s, netstack at $at s"
echo "PASS: netstack_readme_demo (RTO after $waited ms, frame $frame)"
