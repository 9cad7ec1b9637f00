#!/usr/bin/env bash
# pcap-replay check -i (live capture, issue 10) on a veth pair between two
# namespaces made here. A client sends 200 KB to a server; for 1.5 s in the
# middle the server's ACKs are dropped (nft, in the server's own output hook,
# so they never reach the wire), and the client's kernel times out.
# Oracles: the client namespace's kernel counter TcpExtTCPTimeouts (nstat
# delta) = the RTO timeouts pcap-replay reports for the client sender; the
# TCP segments pcap-replay captured = those of a tcpdump -w run side by side
# (counted by tcpdump -r). Then SIGINT: without --duration, SIGINT after 2 s
# still gives the JSON report and exit status 0 or 1.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$REPO/build/bin/pcap-replay
name=pcap_replay_live
skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL: $name: $1 (CI=true: not skipped)"; exit 1; fi
  echo "SKIP: $name: $1"; exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, nft, live capture)"
for t in ip nft tcpdump nstat python3; do command -v "$t" >/dev/null || skip "missing tool: $t"; done
[ -x "$BIN" ] || { echo "FAIL: $name: $BIN not built"; exit 1; }

C=live-$$-c; S=live-$$-s; VC=vlc$$; VS=vls$$
CADDR=198.19.0.1; SADDR=198.19.0.2; PORT=5001
WORK=$(mktemp -d /tmp/$name.XXXXXX)
PIDS=()
cleanup() {
  local rc=$?
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  ip netns del "$C" 2>/dev/null || true
  ip netns del "$S" 2>/dev/null || true
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT HUP
trap 'exit 143' TERM

ip netns add "$C"; ip netns add "$S"
ip link add "$VC" netns "$C" type veth peer name "$VS" netns "$S"
for ns in "$C" "$S"; do
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1  # no IPv6 ND chatter in the capture
  ip -n "$ns" link set lo up
done
ip -n "$C" addr add $CADDR/24 dev "$VC"; ip -n "$S" addr add $SADDR/24 dev "$VS"
ip -n "$C" link set "$VC" gso_max_segs 1 2>/dev/null || true
ip -n "$S" link set "$VS" gso_max_segs 1 2>/dev/null || true
ip -n "$C" link set "$VC" up; ip -n "$S" link set "$VS" up
ip netns exec "$S" nft -f - <<NFT
table inet live {
  chain out { type filter hook output priority raw; policy accept; }
}
NFT

# Server: reads to EOF. Client: 100 chunks of 2000 bytes, one every 20 ms (~2 s).
cat >"$WORK/peer.py" <<'PY'
import socket, sys, time
if sys.argv[1] == "server":
    l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind((sys.argv[2], int(sys.argv[3]))); l.listen(1)
    open(sys.argv[4], "w").close()
    c, _ = l.accept(); n = 0
    while True:
        b = c.recv(65536)
        if not b: break
        n += len(b)
    c.close(); print(n)
else:
    s = socket.create_connection((sys.argv[2], int(sys.argv[3])))
    for _ in range(100):
        s.sendall(b"x" * 2000); time.sleep(0.02)
    s.shutdown(socket.SHUT_WR); s.recv(1); s.close()
PY

counter() { ip netns exec "$C" nstat -asz 2>/dev/null | awk '$1 == "TcpExtTCPTimeouts" {print $2}'; }

# --- 1: --duration, against the kernel counter and tcpdump
ip netns exec "$C" tcpdump -i "$VC" -s 262144 -U -w "$WORK/side.pcap" 2>"$WORK/tcpdump.err" &
PIDS+=($!)
before=$(counter)
ip netns exec "$C" "$BIN" check -i "$VC" --duration 6 --json >"$WORK/live.json" 2>"$WORK/live.err" &
LIVE=$!; PIDS+=($LIVE)
sleep 1  # both captures active
ip netns exec "$S" python3 "$WORK/peer.py" server $SADDR $PORT "$WORK/ready" >"$WORK/server.out" &
PIDS+=($!)
for _ in $(seq 50); do [ -e "$WORK/ready" ] && break; sleep 0.05; done
ip netns exec "$C" python3 "$WORK/peer.py" client $SADDR $PORT &
CLI=$!; PIDS+=($CLI)
sleep 0.7
ip netns exec "$S" nft add rule inet live out tcp sport $PORT drop comment '"acks"'
sleep 1.5
ip netns exec "$S" nft flush chain inet live out
wait $CLI
set +e; wait $LIVE; live_rc=$?; set -e
after=$(counter)
sleep 0.3; kill "${PIDS[0]}"; wait "${PIDS[0]}" 2>/dev/null || true
received=$(cat "$WORK/server.out")
[ "$received" = 200000 ] || { echo "FAIL: $name: the server received $received bytes, not 200000"; exit 1; }
if [ "$live_rc" -ne 0 ] && [ "$live_rc" -ne 1 ]; then
  echo "FAIL: $name: check -i exit $live_rc"; cat "$WORK/live.err"; exit 1
fi
kernel=$((after - before))
side_tcp=$(tcpdump -n -r "$WORK/side.pcap" tcp 2>/dev/null | wc -l)
side_all=$(tcpdump -n -r "$WORK/side.pcap" 2>/dev/null | wc -l)
if ! msg=$(python3 - "$WORK/live.json" "$CADDR" "$kernel" "$side_tcp" "$side_all" "$VC" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1])); caddr = sys.argv[2]
kernel, side_tcp, side_all, iface = map(str, sys.argv[3:7])
kernel, side_tcp, side_all = int(kernel), int(side_tcp), int(side_all)
ins = doc["inputs"]
assert len(ins) == 1 and ins[0]["file"] == "live:" + iface, "inputs: %r" % ins
assert ins[0]["usable"] and not ins[0]["lost"], "input: %r" % ins[0]
assert ins[0]["tcp_segments"] == side_tcp, "tcp segments: live %d, tcpdump %d" % (ins[0]["tcp_segments"], side_tcp)
assert ins[0]["frames"] == side_all, "packets: live %d, tcpdump %d" % (ins[0]["frames"], side_all)
snd = [f for f in doc["flows"] if f["src"].startswith(caddr + ":")]
assert len(snd) == 1, "client senders: %d" % len(snd)
got = len(snd[0]["timeouts"])
assert kernel >= 1, "the kernel saw no timeout: the drop did not work"
assert got == kernel, "timeouts: pcap-replay %d, kernel TcpExtTCPTimeouts %d" % (got, kernel)
print("timeouts %d = TcpExtTCPTimeouts %d; TCP segments %d = tcpdump %d; packets %d = tcpdump %d"
      % (got, kernel, ins[0]["tcp_segments"], side_tcp, ins[0]["frames"], side_all))
PY
); then echo "FAIL: $name: $msg"; exit 1; fi
echo "ok: $name: --duration 6: $msg"

# --- 2: SIGINT without --duration: the report still comes out
ip netns exec "$C" "$BIN" check -i "$VC" --json >"$WORK/int.json" 2>"$WORK/int.err" &
LIVE=$!; PIDS+=($LIVE)
sleep 2
kill -INT $LIVE
set +e; wait $LIVE; rc=$?; set -e
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then echo "FAIL: $name: SIGINT: exit $rc"; cat "$WORK/int.err"; exit 1; fi
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["inputs"][0]["file"]=="live:"+sys.argv[2]' \
  "$WORK/int.json" "$VC" || { echo "FAIL: $name: SIGINT: no JSON report"; exit 1; }
echo "ok: $name: SIGINT after 2 s: JSON report, exit $rc"

# --- 3: no such interface: a clear message, exit 2
set +e; ip netns exec "$C" "$BIN" check -i nosuch$$ --duration 1 >/dev/null 2>"$WORK/bad.err"; rc=$?; set -e
if [ "$rc" -ne 2 ] || ! grep -q "live:nosuch$$" "$WORK/bad.err"; then
  echo "FAIL: $name: no such interface: exit $rc, stderr: $(cat "$WORK/bad.err")"; exit 1
fi
echo "ok: $name: no such interface: exit 2: $(head -n1 "$WORK/bad.err")"
