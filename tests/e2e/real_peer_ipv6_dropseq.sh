#!/usr/bin/env bash
# netstack send over IPv6 (fd00:0:0:1::2 -> fd00:0:0:2::2) with two chosen
# segments dropped on their first transmission (--drop-seq): the Linux
# receiver still gets every byte; the capture shows each of those segments
# exactly twice (the drop happens after the capture point, so the original
# is in the file), tshark finds nothing malformed, pcap-replay finds no
# departure from RFC 6298. Exit 77 when not root or no /dev/net/tun.
set -u
BUILD=${BUILD:-build}
NETSTACK=$BUILD/bin/netstack
REPLAY=$BUILD/bin/pcap-replay
. "$(dirname "$0")/../common/tshark_wire.sh"
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root"; exit 77; }
[ -c /dev/net/tun ] || { echo "skip: no /dev/net/tun"; exit 77; }
command -v tshark >/dev/null || { echo "skip: no tshark"; exit 77; }
[ -x "$NETSTACK" ] || { echo "FAIL: $NETSTACK not built"; exit 1; }
WORK=$(mktemp -d /tmp/real_peer_v6.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# SMSS over IPv6 = 1500 - 40 (IPv6) - 20 (TCP) - 12 (timestamps) = 1428:
# relative seq 1 is the first segment, 1 + 10 * 1428 = 14281 the eleventh;
# 1449 = 1 + 1448 is IPv4's second segment, not a start here: it must be
# reported as matching nothing, with the real starts 1 1429 2857 4285.
"$NETSTACK" send --ipv6 --bytes 300000 --drop-seq 1 --drop-seq 14281 --drop-seq 1449 \
  --capture "$WORK/cap.pcap" --time-limit 30 >"$WORK/out.txt" 2>&1
rc=$?
sed 's/^/  /' "$WORK/out.txt"
[ $rc -eq 0 ] || fail "netstack send --ipv6 exited $rc"
grep -q "drop-seq 2," "$WORK/out.txt" || fail "the filter did not drop the two chosen segments"
grep -q "warning: --drop-seq 1449 matched no segment.* started at 1 1429 2857 4285" "$WORK/out.txt" \
  || fail "no warning for --drop-seq 1449, which matches no IPv6 segment"
grep -q "rtopeer-far-" "$WORK/out.txt" || fail "netstack did not name its namespaces"
for ns in $(grep -o "rtopeer-[a-z]*-[0-9]*" "$WORK/out.txt" | sort -u); do
  [ -e "/run/netns/$ns" ] && fail "namespace $ns left behind"
done

for rel in 1 14281; do
  n=$(tshark -r "$WORK/cap.pcap" -Y "ipv6.src==fd00:0:0:1::2 && tcp.seq==$rel && tcp.len>0" 2>/dev/null | wc -l)
  [ "$n" -eq 2 ] || fail "segment at relative seq $rel appears $n times in the capture, expected 2"
done
problems=$(wire_problems "$WORK/cap.pcap")
[ -z "$problems" ] || fail "$problems"
if [ -x "$REPLAY" ]; then
  "$REPLAY" check --profile rfc6298 "$WORK/cap.pcap" >"$WORK/replay.txt" 2>&1 \
    || { cat "$WORK/replay.txt"; fail "pcap-replay found departures from RFC 6298"; }
  tail -n 1 "$WORK/replay.txt" | sed 's/^/  /'
fi
echo "PASS: real_peer_ipv6_dropseq"
