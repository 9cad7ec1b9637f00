#!/usr/bin/env bash
# pcap-replay check -i (live capture) on a veth pair between two
# network namespaces made here (client 198.19.0.1, server 198.19.0.2).
#
#  1. pcap-replay captures on the client's veth while the client
#     sends 200 000 bytes; for 1 s after the first 60 000 an nft rule in the server's
#     prerouting drops the client's segments, and the client's kernel times
#     out. Oracles: the client namespace's TcpExtTCPTimeouts (nstat delta) =
#     the RTO timeouts pcap-replay reports for the client; a tcpdump of the
#     same interface at the same time, read by pcap-replay from its file,
#     gives the same packets, TCP segments, timeouts and findings. The
#     capture is ended by SIGINT: the report still comes out.
#  2. --duration 1 on an idle interface ends it after 1 s (it used to hang).
#  3. -c N: the capture ends after N packets (4 of 6 UDP datagrams sent).
#  4. Kernel drops: pcap-replay is stopped (SIGSTOP) while 4000 UDP
#     datagrams cross the veth, so libpcap's ring overflows; after SIGCONT
#     the report says "lost input", kernel_drops in JSON, exit 2; frames +
#     kernel_drops = the packets the interface counted (tx + rx deltas of
#     /sys/class/net/IFACE/statistics).
#  5. A bad interface name, and a user without CAP_NET_RAW: a clear
#     "pcap-replay: ..." message, exit 2.
#  6. The status line: under a pty (script(1) from util-linux) a live
#     capture draws "live:IFACE: ... packets" with \r and a 16 MiB file a
#     "% of the file" line; with standard error a file, neither appears.
#  7. The interface removed during the capture: the loss is named, exit 2.
#
# Every blocking step runs under timeout(1); the namespaces are removed on
# exit (trap). Root is needed (namespaces, nft, capture): 77 otherwise,
# which run-all.sh turns into a failure under CI=true.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$REPO/$BUILD;; esac
BIN=$BUILD/bin/pcap-replay
name=pcap_replay_live
fail() { echo "FAIL: $name: $*"; exit 1; }
skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL: $name: $1 (CI=true: not skipped)"; exit 1; fi
  echo "SKIP: $name: $1"; exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, nft, live capture)"
for t in ip nft tcpdump nstat python3 pgrep script setpriv timeout; do
  command -v "$t" >/dev/null || skip "missing tool: $t"
done
[ -x "$BIN" ] || fail "$BIN not built"

C=live-$$-c; S=live-$$-s; VC=vlc$$; VS=vls$$
CADDR=198.19.0.1; SADDR=198.19.0.2; PORT=5001
WORK=$(mktemp -d /tmp/$name.XXXXXX)
chmod 755 "$WORK"
PIDS=()
cleanup() {
  local rc=$?
  for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  ip netns del "$C" 2>/dev/null || true
  ip netns del "$S" 2>/dev/null || true
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"  # KEEP_WORK=1: keep the captures and reports
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT HUP
trap 'exit 143' TERM
CX="timeout 30 ip netns exec $C"
SX="timeout 30 ip netns exec $S"

ip netns add "$C"; ip netns add "$S"
ip link add "$VC" netns "$C" type veth peer name "$VS" netns "$S"
for ns in "$C" "$S"; do
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1  # no IPv6 neighbour discovery in the capture
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
  ip -n "$ns" link set lo up
done
ip -n "$C" addr add $CADDR/24 dev "$VC"; ip -n "$S" addr add $SADDR/24 dev "$VS"
# One MSS per packet on the wire: the capture shows what the kernel counts.
ip -n "$C" link set "$VC" gso_max_segs 1 2>/dev/null || true
ip -n "$S" link set "$VS" gso_max_segs 1 2>/dev/null || true
ip -n "$C" link set "$VC" up; ip -n "$S" link set "$VS" up
# The neighbours are known before any capture: no ARP in the middle.
ip -n "$C" neigh replace $SADDR lladdr "$(ip -n "$S" -o link show "$VS" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')" dev "$VC" nud permanent
ip -n "$S" neigh replace $CADDR lladdr "$(ip -n "$C" -o link show "$VC" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')" dev "$VS" nud permanent
ip netns exec "$S" nft -f - <<NFT
table inet live {
  chain pre { type filter hook prerouting priority raw; policy accept; }
}
NFT

# Server: reads to EOF, prints the byte count. Client: 100 chunks of 2000
# bytes, one every 20 ms (2 s; a file says when 30 are sent), then FIN and
# waits for the server's.
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
elif sys.argv[1] == "client":
    s = socket.create_connection((sys.argv[2], int(sys.argv[3])))
    for i in range(100):
        s.sendall(b"x" * 2000); time.sleep(0.02)
        if i == 29: open(sys.argv[4], "w").close()  # 60 000 bytes sent: the drop may start
    s.shutdown(socket.SHUT_WR); s.recv(1); s.close()
elif sys.argv[1] == "udp":  # N datagrams of 1000 bytes, as fast as the socket takes them
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for _ in range(int(sys.argv[4])):
        s.sendto(b"u" * 1000, (sys.argv[2], int(sys.argv[3])))
PY

# The link is ready both ways (a fresh veth drops packets until its qdisc
# is activated, up to a second): a TCP connect to a closed port is refused.
cat >"$WORK/ready.py" <<'PY'
import socket, sys, time
for _ in range(100):
    try:
        socket.create_connection((sys.argv[1], 9), timeout=0.1)
    except ConnectionRefusedError:
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit("the veth pair never carried a round trip")
PY
$CX python3 "$WORK/ready.py" $SADDR || fail "the veth pair does not work"

counter() { ip netns exec "$C" nstat -asz 2>/dev/null | awk '$1 == "TcpExtTCPTimeouts" {print $2}'; }
wait_file() { for _ in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.05; done; fail "timed out waiting for $1"; }
# Packets the client's veth counted both ways (tx + rx), for the drop case.
if_packets() {
  ip netns exec "$C" cat /sys/class/net/"$VC"/statistics/tx_packets /sys/class/net/"$VC"/statistics/rx_packets |
    awk '{n += $1} END {print n}'
}

# --- 1: a transfer with timeouts, ended by SIGINT, against the kernel's
# counter and a tcpdump of the same interface
$CX tcpdump -i "$VC" -s 262144 --time-stamp-precision=nano -U -w "$WORK/side.pcap" 2>"$WORK/tcpdump.err" &
TCPDUMP=$!; PIDS+=($TCPDUMP)
before=$(counter)
$CX "$BIN" check -i "$VC" --json >"$WORK/live.json" 2>"$WORK/live.err" &
LIVE=$!; PIDS+=($LIVE)
# Both captures active: two packet sockets in the client namespace (a loaded
# machine can take seconds to start tcpdump).
for _ in $(seq 200); do
  [ "$(ip netns exec "$C" awk 'NR > 1' /proc/net/packet | wc -l)" -ge 2 ] && break; sleep 0.05
done
[ "$(ip netns exec "$C" awk 'NR > 1' /proc/net/packet | wc -l)" -ge 2 ] || fail "tcpdump and pcap-replay did not both start"
sleep 0.5
$SX python3 "$WORK/peer.py" server $SADDR $PORT "$WORK/ready" >"$WORK/server.out" &
PIDS+=($!)
wait_file "$WORK/ready"
$CX python3 "$WORK/peer.py" client $SADDR $PORT "$WORK/midway" &
CLI=$!; PIDS+=($CLI)
wait_file "$WORK/midway"
$SX nft add rule inet live pre ip saddr $CADDR tcp dport $PORT drop
sleep 1.0
$SX nft flush chain inet live pre
wait $CLI || fail "the client failed"
after=$(counter)
sleep 0.3  # the last ACK captured
kill -0 $LIVE 2>/dev/null || { cat "$WORK/live.err"; fail "the live capture ended by itself"; }
kill -INT $LIVE  # timeout(1) passes SIGINT on to pcap-replay
set +e; wait $LIVE; live_rc=$?; set -e
sleep 1.2  # tcpdump writes a block of packets when it is retired, 1 s after it began: SIGINT loses an open one
kill -INT $TCPDUMP; wait $TCPDUMP 2>/dev/null || true
received=$(cat "$WORK/server.out")
[ "$received" = 200000 ] || fail "the server received $received bytes, not 200000"
[ "$live_rc" -eq 0 ] || [ "$live_rc" -eq 1 ] || { cat "$WORK/live.err"; fail "check -i, SIGINT: exit $live_rc"; }
set +e; timeout 60 "$BIN" check --json "$WORK/side.pcap" >"$WORK/side.json" 2>"$WORK/side.err"; side_rc=$?; set -e
[ "$side_rc" -eq "$live_rc" ] || fail "exit status: live $live_rc, tcpdump's file $side_rc"
kernel=$((after - before))
if ! msg=$(python3 - "$WORK/live.json" "$WORK/side.json" "$CADDR" "$kernel" "$VC" <<'PY'
import json, sys
live = json.load(open(sys.argv[1])); side = json.load(open(sys.argv[2]))
caddr, kernel, iface = sys.argv[3], int(sys.argv[4]), sys.argv[5]
ins, sins = live["inputs"], side["inputs"]
assert len(ins) == 1 and ins[0]["file"] == "live:" + iface, "inputs: %r" % ins
assert ins[0]["usable"] and not ins[0]["lost"] and ins[0]["kernel_drops"] == 0, "input: %r" % ins[0]
assert "kernel_drops" not in sins[0], "a file's input has kernel_drops: %r" % sins[0]
for k in ("frames", "tcp_segments"):
    assert ins[0][k] == sins[0][k], "%s: live %d, tcpdump %d" % (k, ins[0][k], sins[0][k])
def client(doc):
    s = [f for c in doc["flows"] for f in c["senders"] if f["src"].startswith(caddr + ":")]
    assert len(s) == 1, "client senders: %d" % len(s)
    return s[0]
got, sgot = client(live), client(side)
assert kernel >= 1, "the kernel saw no timeout: the drop did not work"
assert len(got["timeouts"]) == kernel, "timeouts: pcap-replay %d, kernel TcpExtTCPTimeouts %d" % (len(got["timeouts"]), kernel)
key = lambda doc: sorted((f["src"], x["rule"], x["level"], x["frame"]) for c in doc["flows"] for f in c["senders"] for x in f["findings"])
assert key(live) == key(side), "findings: live %r, tcpdump %r" % (key(live), key(side))
tkey = lambda f: [(t["frame"], t["seq"], t["verdict"]) for t in f["timeouts"]]
assert tkey(got) == tkey(sgot), "timeouts: live %r, tcpdump %r" % (tkey(got), tkey(sgot))
print("timeouts %d = TcpExtTCPTimeouts %d; packets %d, TCP segments %d, %d findings = tcpdump's file"
      % (len(got["timeouts"]), kernel, ins[0]["frames"], ins[0]["tcp_segments"], len(key(live))))
PY
); then fail "$msg"; fi
echo "ok: $name: SIGINT after a transfer: report out, exit $live_rc; $msg"

# --- 2: --duration ends an idle capture (libpcap delivers nothing: the
# wait is poll(2) with a timeout, so the deadline is still seen)
t0=$(date +%s%N)
set +e; $CX "$BIN" check -i "$VC" --duration 1 --json >"$WORK/dur.json" 2>"$WORK/dur.err"; rc=$?; set -e
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$rc" -eq 0 ] || { cat "$WORK/dur.err"; fail "--duration 1: exit $rc (124: it did not end)"; }
[ "$ms" -ge 1000 ] || fail "--duration 1 ended after $ms ms"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["inputs"][0]["file"]=="live:"+sys.argv[2]' \
  "$WORK/dur.json" "$VC" || fail "--duration 1: no JSON report"
echo "ok: $name: --duration 1 on an idle interface: ended after $ms ms, JSON report, exit 0"

# --- 3: -c N ends the capture after N packets: 4 of the 6 UDP datagrams sent
# (a socket bound at the server takes them: no ICMP reply)
$SX python3 -c 'import socket,sys,time; s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind((sys.argv[1],9)); time.sleep(25)' $SADDR &
SINK=$!; PIDS+=($SINK)
$CX "$BIN" flows -i "$VC" -c 4 --json >"$WORK/count.json" 2>"$WORK/count.err" &
LIVE=$!; PIDS+=($LIVE)
sleep 0.5
$CX python3 "$WORK/peer.py" udp $SADDR 9 6
set +e; wait $LIVE; rc=$?; set -e  # under timeout 30 (CX): 124 if -c did not end it
[ "$rc" -eq 0 ] || { cat "$WORK/count.err"; fail "-c 4: exit $rc"; }
frames=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["inputs"][0]["frames"])' "$WORK/count.json")
[ "$frames" = 4 ] || fail "-c 4: $frames packets captured"
echo "ok: $name: -c 4: the capture ended after 4 of 6 packets"

# --- 4: kernel drops are lost input (exit 2), counted against the interface's own counters
$CX "$BIN" check -i "$VC" --duration 4 --json >"$WORK/drop.json" 2>"$WORK/drop.err" &
LIVE=$!; PIDS+=($LIVE)
sleep 1
p0=$(if_packets)
REPLAY=$(pgrep -P $LIVE) || fail "kernel drops: no pcap-replay process under $LIVE"  # timeout's child
kill -STOP $REPLAY
$CX python3 "$WORK/peer.py" udp $SADDR 9 4000
p1=$(if_packets)
kill -CONT $REPLAY
set +e; wait $LIVE; rc=$?; set -e
[ "$rc" -eq 2 ] || { cat "$WORK/drop.err"; fail "kernel drops: exit $rc, not 2"; }
grep -q "pcap-replay: lost input: live:$VC: [0-9]* packets dropped before pcap-replay saw them" "$WORK/drop.err" ||
  fail "kernel drops: no 'lost input' on stderr: $(cat "$WORK/drop.err")"
if ! msg=$(python3 - "$WORK/drop.json" $((p1 - p0)) <<'PY'
import json, sys
inp = json.load(open(sys.argv[1]))["inputs"][0]; wire = int(sys.argv[2])
assert inp["kernel_drops"] > 0, "no drops: %r" % inp
assert inp["frames"] + inp["kernel_drops"] == wire, \
    "frames %d + kernel_drops %d != %d packets on the interface" % (inp["frames"], inp["kernel_drops"], wire)
print("frames %d + kernel_drops %d = %d packets the interface counted" % (inp["frames"], inp["kernel_drops"], wire))
PY
); then fail "kernel drops: $msg"; fi
echo "ok: $name: kernel drops: exit 2, $msg"

# --- 5: no such interface; no permission: a clear message, exit 2
set +e; $CX "$BIN" check -i nosuch$$ --duration 1 >/dev/null 2>"$WORK/bad.err"; rc=$?; set -e
if [ "$rc" -ne 2 ] || ! grep -q "^pcap-replay: unusable input: live:nosuch$$: cannot capture: no such interface" "$WORK/bad.err"; then
  fail "no such interface: exit $rc, stderr: $(cat "$WORK/bad.err")"
fi
echo "ok: $name: no such interface: exit 2: $(head -n1 "$WORK/bad.err")"
set +e
$CX setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
  "$BIN" check -i "$VC" --duration 1 >/dev/null 2>"$WORK/perm.err"; rc=$?
set -e
if [ "$rc" -ne 2 ] || ! grep -q "^pcap-replay: unusable input: live:$VC: cannot capture: permission denied" "$WORK/perm.err"; then
  fail "no CAP_NET_RAW: exit $rc, stderr: $(cat "$WORK/perm.err")"
fi
echo "ok: $name: as uid 65534: exit 2: $(head -n1 "$WORK/perm.err")"

# --- 6: the status line: on a terminal only
# (script -q -c CMD FILE runs CMD on a pty and copies what it writes to FILE.)
$CX script -q -e -c "$BIN check -i $VC --duration 1.2" "$WORK/tty.txt" >/dev/null </dev/null ||
  fail "check -i under a pty: $(cat "$WORK/tty.txt")"
grep -aq $'\r'"live:$VC: [0-9]* packets*, [0-9]* TCP connections*, [0-9]* timeouts*, [0-9]* dropped, [0-9.]* s" "$WORK/tty.txt" ||
  fail "no live status line on a terminal: $(od -c "$WORK/tty.txt" | head -5)"
$CX "$BIN" check -i "$VC" --duration 0.6 >/dev/null 2>"$WORK/notty.err" || fail "check -i, stderr a file"
if grep -aq $'\r' "$WORK/notty.err" || grep -aq 'packets, ' "$WORK/notty.err"; then
  fail "a status line although stderr is not a terminal: $(od -c "$WORK/notty.err" | head -5)"
fi
# A 16 MiB capture (limits::kProgressMinFileBytes): 12 000 frames of 1400 bytes.
python3 - "$WORK/big.pcap" <<'PY'
import struct, sys
eth = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00"
ip = bytes.fromhex("450005720001000040060000c6130001c6130002")  # 1394-byte IPv4 TCP, checksum not checked
n, size = 12000, 16 * 1024 * 1024
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
    for i in range(n):
        tcp = struct.pack("!HHIIBBHHH", 40000, 5001, 1 + 1354 * i, 1, 0x50, 0x10, 65535, 0, 0)
        frame = eth + ip + tcp + b"d" * 1354
        f.write(struct.pack("<IIII", 1795998000 + i // 1000, (i % 1000) * 1000, len(frame), len(frame)) + frame)
    assert f.tell() >= size, f.tell()
PY
# The report to a file, stderr on the pty: the progress line is drawn there.
timeout 60 script -q -e -c "$BIN flows $WORK/big.pcap >$WORK/flows-big.txt" "$WORK/tty-file.txt" >/dev/null </dev/null ||
  fail "flows on a 16 MiB file under a pty: $(tail -c 300 "$WORK/tty-file.txt")"
grep -aq $'\r'"$WORK/big.pcap: [0-9]* packets, [0-9]*% of the file" "$WORK/tty-file.txt" ||
  fail "no progress line for a 16 MiB file on a terminal: $(head -c 300 "$WORK/tty-file.txt" | od -c | head)"
# The report itself on the pty (written as the connections finish): no
# progress line drawn among its lines.
timeout 60 script -q -e -c "$BIN flows $WORK/big.pcap" "$WORK/tty-both.txt" >/dev/null </dev/null ||
  fail "flows to the pty: $(tail -c 300 "$WORK/tty-both.txt")"
! grep -aq "% of the file" "$WORK/tty-both.txt" ||
  fail "a progress line among a report written to the same terminal: $(grep -a -m1 '% of the file' "$WORK/tty-both.txt" | od -c | head -3)"
grep -aq "big.pcap" "$WORK/tty-both.txt" || fail "flows to the pty: no connection listed"
timeout 60 "$BIN" flows "$WORK/big.pcap" >/dev/null 2>"$WORK/file-notty.err" || fail "flows on the 16 MiB file"
[ ! -s "$WORK/file-notty.err" ] || fail "stderr not a terminal, yet: $(od -c "$WORK/file-notty.err" | head -3)"
echo "ok: $name: status line: drawn on a pty (live and a 16 MiB file), absent when stderr is a file or the report goes to the same pty"

# --- 7: the interface goes away during the capture: what came before is
# reported, the loss is named, exit 2 (last: it removes the veth pair)
$CX "$BIN" check -i "$VC" >"$WORK/gone.txt" 2>"$WORK/gone.err" &
LIVE=$!; PIDS+=($LIVE)
sleep 1
ip -n "$C" link del "$VC"
set +e; wait $LIVE; rc=$?; set -e
[ "$rc" -eq 2 ] || { cat "$WORK/gone.err"; fail "interface removed: exit $rc, not 2"; }
grep -q "^pcap-replay: lost input: live:$VC: the capture failed after frame [0-9]*; what came after is lost" "$WORK/gone.err" ||
  fail "interface removed: no 'lost input' on stderr: $(cat "$WORK/gone.err")"
grep -q "^  live:$VC: the capture failed after frame" "$WORK/gone.txt" ||
  fail "interface removed: the text report does not name the loss: $(cat "$WORK/gone.txt")"
echo "ok: $name: interface removed during the capture: exit 2: $(grep -m1 'capture failed:' "$WORK/gone.err")"
