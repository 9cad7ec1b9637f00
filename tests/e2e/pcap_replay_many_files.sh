#!/usr/bin/env bash
# Several capture files in one run: each file's times count from its own
# frame 1, as Wireshark shows the file opened alone (tshark's
# frame.time_relative is the oracle), and each has its own summary (text
# "per file", JSON inputs[].summary) equal to the run on that file alone.
# Exit 0 pass, 77 skip (no binary, or no tshark outside CI), 1 fail.
set -u
BUILD=${BUILD:-build}
BIN="$BUILD/bin/pcap-replay"
A=tests/captures/lab/rto-max-low.pcap
C=tests/captures/lab/thin-linear.pcap
[ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 77; }
if ! command -v tshark > /dev/null; then
  [ -n "${CI:-}" ] && { echo "FAIL: tshark missing in CI (make deps installs it)"; exit 1; }
  echo "skip: no tshark"; exit 77
fi
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$BIN" check --json --profile rfc6298 "$A" "$C" > "$tmp/both.json"
"$BIN" check --json --profile rfc6298 "$A" > "$tmp/a.json"
"$BIN" check --json --profile rfc6298 "$C" > "$tmp/c.json"
# The second file's frame 204: tshark on that file alone gives its rel_time.
want=$(tshark -r "$C" -Y 'frame.number == 204' -T fields -e frame.time_relative 2> /dev/null)
python3 - "$tmp" "$want" "$C" << 'PY' || fail=1
import json, sys
tmp, want, second = sys.argv[1], float(sys.argv[2]), sys.argv[3]
both = json.load(open(f"{tmp}/both.json"))
got = [x["rel_time"] for c in both["flows"] if c["file"] == second for s in c["senders"] for x in s["findings"] if x["frame"] == 204]
assert got and abs(got[0] - want) < 1e-6, f"frame 204 of the second file at {got}, tshark says {want}"
print(f"ok: the second file's frame 204 at {got[0]:.6f} s, as tshark reads that file alone")
for i, alone in enumerate(("a", "c")):
    one = json.load(open(f"{tmp}/{alone}.json"))
    per = both["inputs"][i]["summary"]
    s = one["summary"]
    for k in ("flows", "must", "should", "may", "info"):
        assert per[k] == s[k], f"inputs[{i}].summary.{k} = {per[k]}, alone {s[k]}"
    assert per == one["inputs"][0]["summary"], (per, one["inputs"][0]["summary"])
    assert both["inputs"][i]["first_time"] == one["inputs"][0]["first_time"]
print("ok: inputs[].summary of each file equals its run alone")
PY
# Text: a per-file block; the timeline's rel_time per file too.
"$BIN" check --profile rfc6298 "$A" "$C" > "$tmp/both.txt"
grep -q "^  $C: 477 frame(s), 1 flow(s), .*; findings: 6 MUST, 1 SHOULD, 0 MAY, 6 INFO; frame 1 at " "$tmp/both.txt" &&
  echo "ok: text per-file line" || { echo "FAIL: no per-file line for $C"; fail=1; }
# Frame 204 is in both files: the second file's row comes last among them.
got=$("$BIN" timeline --profile rfc6298 "$A" "$C" | awk -F, '$3 == 204 { r = $5 } END { print r }')
python3 -c "import sys; sys.exit(abs(float('$got') - float('$want')) > 1e-6)" &&
  echo "ok: timeline rel_time of the second file's frame 204 is its own ($got)" ||
  { echo "FAIL: timeline rel_time $got, tshark $want"; fail=1; }
exit $fail
