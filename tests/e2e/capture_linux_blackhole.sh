#!/usr/bin/env bash
# The shipped capture of `make run` (tests/captures/linux-blackhole.pcap,
# made by tests/capture/linux-blackhole.sh) still shows what its README
# says: read by tshark, one segment is retransmitted 6 times by the Linux
# kernel with each gap twice the previous one (RFC 6298 5.5 backoff from a
# ~200 ms RTO), nothing malformed; pcap-replay --profile linux finds it clean.
# Needs no root.
set -u
BUILD=${BUILD:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../common/tshark_wire.sh"
CAP=$HERE/../captures/linux-blackhole.pcap
command -v tshark >/dev/null || { echo "skip: no tshark"; exit 77; }
[ -r "$CAP" ] || { echo "FAIL: $CAP missing"; exit 1; }
fail() { echo "FAIL: $*"; exit 1; }

# Sender 198.18.0.1; gaps 0.412, 0.832, 1.664, 3.296, 6.656 s in the shipped file.
tshark -r "$CAP" -Y "ip.src==198.18.0.1" -T fields -e frame.number -e frame.time_relative \
  -e tcp.seq_raw -e tcp.len -e tcp.flags.syn -e tcp.flags.fin 2>/dev/null \
  | python3 "$HERE/../capture/check_backoff_chain.py" 6 0.3 0.1 | sed 's/^/  /'
[ "${PIPESTATUS[1]}" -eq 0 ] || fail "no chain of 6 doubling timeouts in $CAP"

bad_frames=$(wire_errors "$CAP")
[ -z "$bad_frames" ] || fail "tshark flags $(wc -l <<<"$bad_frames") malformed/error packets (frame, expert messages):
$bad_frames"

# Every transfer byte arrived (the meta file records both ends' SHA-256).
python3 - "$HERE/../captures/linux-blackhole.meta.json" <<'PY' || fail "meta.json: sent and received differ"
import json, sys
m = json.load(open(sys.argv[1]))
t = m["transfer"]
sys.exit(0 if t["sent"] == t["received"] and t["sent"]["bytes"] > 0 else 1)
PY

if [ -x "$BUILD/bin/pcap-replay" ]; then
  out=$("$BUILD/bin/pcap-replay" check --profile linux "$CAP" 2>&1); rc=$?
  echo "$out" | tail -n 1 | sed 's/^/  /'
  [ $rc -eq 0 ] || { echo "$out"; fail "pcap-replay --profile linux exited $rc on the kernel's own capture"; }
  echo "$out" | grep -q "6 timeout(s)" || fail "pcap-replay did not find the 6 timeouts"
fi
if [ -x "$BUILD/bin/pcap-replay" ]; then
  # Under the strict profile (what `make run` shows): expiry 1 fired after
  # ~213 ms, below the 1 s floor (one SHOULD 2.4, frame 179); expiries 2-6
  # double the previous interval (5.5 ok), the second one included although a
  # tail-loss probe went out during the first wait.
  "$BUILD/bin/pcap-replay" check --json "$CAP" | python3 -c '
import json, sys
f = json.load(sys.stdin)["flows"][0]["senders"][0]
got = [(t["frame"], t["verdict"]) for t in f["timeouts"]]
want = [(179, "early")] + [(n, "ok") for n in range(180, 185)]
assert got == want, got
found = [(x["rule"], x["level"], x["frame"]) for x in f["findings"]]
assert found == [("2.4", "SHOULD", 179)], found
' || fail "pcap-replay --profile rfc6298: expected one SHOULD 2.4 at frame 179 and expiries 180-184 ok"
fi
echo "PASS: capture_linux_blackhole"
