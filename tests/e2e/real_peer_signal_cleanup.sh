#!/usr/bin/env bash
# SIGINT in the middle of a transfer (here: inside a 30 s blackhole) makes
# netstack send stop with a non-zero status and a clear message, and leave no
# network namespace, TUN device or receiver process behind.
set -u
BUILD=${BUILD:-build}
NETSTACK=$BUILD/bin/netstack
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root"; exit 77; }
[ -c /dev/net/tun ] || { echo "skip: no /dev/net/tun"; exit 77; }
[ -x "$NETSTACK" ] || { echo "FAIL: $NETSTACK not built"; exit 1; }
OUT=$(mktemp /tmp/real_peer_sig.XXXXXX)
trap 'rm -f "$OUT"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$NETSTACK" send --bytes 1000000 --blackhole 0:30 --time-limit 60 >"$OUT" 2>&1 &
pid=$!
for _ in $(seq 50); do ip netns list 2>/dev/null | grep -q "rtopeer-far-$pid" && break; sleep 0.1; done
ip netns list 2>/dev/null | grep -q "rtopeer-far-$pid" || fail "netstack never made its namespaces"
sleep 1.5
kill -INT "$pid"
wait "$pid"; rc=$?
sed 's/^/  /' "$OUT"
[ $rc -ne 0 ] || fail "interrupted run exited 0"
grep -q "interrupted" "$OUT" || fail "no 'interrupted' message"
# The blackhole starts with the SYN, so no handshake and no data byte left:
# the summary says 0 of the 1000000 bytes it was given were sent.
grep -q "^sent 0 of 1000000 bytes" "$OUT" || fail "the summary does not say that 0 of 1000000 bytes were sent"
if ip netns list 2>/dev/null | grep -q "rtopeer-.*-$pid"; then fail "namespaces left behind: $(ip netns list 2>/dev/null | grep rtopeer-)"; fi
# The kernel receiver is a forked copy of netstack (same command line): none may survive.
sleep 0.2
if pgrep -f -- "send --bytes 1000000 --blackhole 0:30" >/dev/null 2>&1; then fail "a netstack process (the receiver?) is still running"; fi
echo "PASS: real_peer_signal_cleanup (exit $rc)"
