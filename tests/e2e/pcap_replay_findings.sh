#!/usr/bin/env bash
# `pcap-replay findings` and `--level` from the command line, on the lab's
# rto-max-low.pcap (Linux, tcp_rto_max_ms=5000, a blackhole; README of
# tests/captures/lab): under rfc6298 one SHOULD 2.4 (frame 279) and four
# MUST 2.5 (frames 284-287). tshark is the oracle for those frames: each is
# a retransmission of the same SEQ, about 5.12 s after the one before (the
# cap the MUST names), so a reader of the capture in Wireshark sees what the
# lines say. Exit 0 pass, 77 skip (no binary, or no tshark outside CI), 1 fail.
set -u
BUILD=${BUILD:-build}
BIN="$BUILD/bin/pcap-replay"
CAP=tests/captures/lab/rto-max-low.pcap
[ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 77; }
if ! command -v tshark > /dev/null; then
  [ -n "${CI:-}" ] && { echo "FAIL: tshark missing in CI (make deps installs it)"; exit 1; }
  echo "skip: no tshark"; exit 77
fi
fail=0
out=$(mktemp); err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
expect() {  # expect STATUS DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" > "$out" 2> "$err"; local got=$?
  if [ "$got" -ne "$want" ]; then echo "FAIL: $what: exit $got, expected $want"; head -3 "$err"; fail=1
  else echo "ok: $what (exit $got)"; fi
}

expect 1 "findings --level must: the MUST lines, exit 1" -- "$BIN" findings --profile rfc6298 --level must --tsv "$CAP"
frames=$(cut -f2 "$out" | tr '\n' ' ')
[ "$frames" = "284 285 286 287 " ] || { echo "FAIL: MUST frames '$frames', expected 284-287"; fail=1; }
awk -F'\t' 'NF != 6 || $1 != "'"$CAP"'" || $3 != "MUST" || $4 != "2.5" || $5 != "198.18.0.1:42140 -> 198.18.0.2:5001" { bad = 1 }
            END { exit bad }' "$out" || { echo "FAIL: a TSV line is not file, frame, MUST, 2.5, sender, message"; fail=1; }
# The oracle: tshark calls each a retransmission of one SEQ, 5.12 s (+-5 ms) after the previous one.
tshark -r "$CAP" -Y 'frame.number >= 283 && frame.number <= 287' -T fields -e frame.number -e frame.time_relative \
  -e tcp.seq -e tcp.analysis.retransmission 2> /dev/null |
  awk 'NR > 1 && ($4 != 1 || $3 != seq || ($2 - t) < 5.115 || ($2 - t) > 5.125) { bad = 1 } { t = $2; seq = $3 }
       END { exit bad || NR != 5 }' || { echo "FAIL: tshark does not see frames 284-287 as retransmissions 5.12 s apart"; fail=1; }

expect 1 "findings, every level: the SHOULD first (frame order)" -- "$BIN" findings --profile rfc6298 "$CAP"
head -1 "$out" | grep -q "^$CAP:279: SHOULD 2.4 198.18.0.1:42140 -> 198.18.0.2:5001: " ||
  { echo "FAIL: first line is not frame 279's SHOULD 2.4: $(head -1 "$out")"; fail=1; }
[ "$(wc -l < "$out")" -eq 5 ] || { echo "FAIL: $(wc -l < "$out") lines, expected 5"; fail=1; }
expect 1 "findings --flow 1 (the report kept, not streamed): the same lines" -- "$BIN" findings --profile rfc6298 --flow 1 "$CAP"
[ "$(wc -l < "$out")" -eq 5 ] || { echo "FAIL: --flow 1 gave $(wc -l < "$out") lines"; fail=1; }
expect 0 "findings under linux: nothing to say, exit 0" -- "$BIN" findings --profile linux --level should "$CAP"
[ ! -s "$out" ] || { echo "FAIL: lines printed where linux finds nothing at SHOULD: $(head -1 "$out")"; fail=1; }
expect 0 "findings --strict with SHOULD only: exit 0 without, 1 with --strict" -- \
  "$BIN" findings --profile rfc6298 tests/captures/lab/rto-min-route.pcap
expect 1 "  ... --strict" -- "$BIN" findings --strict --profile rfc6298 tests/captures/lab/rto-min-route.pcap
expect 2 "--level warn is refused" -- "$BIN" findings --level warn "$CAP"
grep -q -- '--level' "$err" || { echo "FAIL: the error does not name --level"; fail=1; }

expect 1 "check --level MUST (any case): no SHOULD line, the summary still counts it" -- \
  "$BIN" check --profile rfc6298 --level MUST "$CAP"
grep -q '\[SHOULD 2.4\]' "$out" && { echo "FAIL: check --level must printed a SHOULD"; fail=1; }
grep -q 'findings: 4 MUST, 1 SHOULD' "$out" || { echo "FAIL: the summary line lost the hidden SHOULD"; fail=1; }
expect 1 "check --json --level must" -- "$BIN" check --json --profile rfc6298 --level must "$CAP"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((x["level"], x["frame"]) for c in d["flows"] for s in c["senders"] for x in s["findings"])
assert got == [("MUST", f) for f in (284, 285, 286, 287)], got
assert d["selection"]["level"] == "MUST" and d["summary"]["should"] == 1, d["selection"]' "$out" ||
  { echo "FAIL: check --json --level must"; fail=1; }

# -Y: the connections it shows are the tcp.stream values tshark -Y gives for
# the same expression (many-flows.pcap: 120 connections interleaved).
M=tests/captures/lab/many-flows.pcap
for y in 'tcp.port == 5001 && frame.number >= 100 && frame.number < 120' 'frame.number == 500' \
         'frame.number > 3000 and frame.number != 3100' 'ip.addr == 198.18.0.2 && tcp.port == 5002' \
         'tcp.stream == 7' 'tcp.stream == 7 && frame.number <= 10' 'tcp.stream == +12'; do
  want=$(tshark -r "$M" -Y "$y" -T fields -e tcp.stream 2> /dev/null | sort -un | tr '\n' ' ')
  got=$("$BIN" flows -Y "$y" "$M" | awk 'NR > 1 { print $2 }' | sort -un | tr '\n' ' ')
  [ "$got" = "$want" ] && echo "ok: -Y '$y': tcp.stream $got" ||
    { echo "FAIL: -Y '$y': ours '$got', tshark '$want'"; fail=1; }
done
expect 1 "findings -Y frame.number: only the findings at those frames" -- \
  "$BIN" findings --profile rfc6298 --tsv -Y 'frame.number >= 285 && frame.number <= 286' "$CAP"
[ "$(cut -f2 "$out" | tr '\n' ' ')" = "285 286 " ] || { echo "FAIL: -Y frames: $(cut -f2 "$out" | tr '\n' ' ')"; fail=1; }
expect 2 "-Y with a field not read: refused, -f suggested" -- "$BIN" check -Y 'tcp.analysis.retransmission' "$CAP"
grep -q -- "-f takes a BPF filter" "$err" || { echo "FAIL: no -f hint"; fail=1; }
expect 2 "-Y tcp.stream under -f: refused (the numbering counts hidden connections)" -- \
  "$BIN" flows -f 'tcp port 5001' -Y 'tcp.stream == 1' "$M"
expect 2 "a tcpdump filter after the files: the -f hint" -- "$BIN" check "$CAP" tcp port 80
grep -q "give it with -f 'tcp port 80'" "$err" || { echo "FAIL: no -f hint for the trailing filter"; fail=1; }
# Across connections: one file's lines in frame order (many-flows: 120 connections interleaved).
"$BIN" findings --profile rfc6298 --tsv tests/captures/lab/many-flows.pcap | cut -f2 > "$out.frames"
sort -n -c "$out.frames" && [ -s "$out.frames" ] && echo "ok: findings across connections in frame order" ||
  { echo "FAIL: findings not in frame order: $(head -4 "$out.frames" | tr '\n' ' ')"; fail=1; }
rm -f "$out.frames"
expect 2 "a quoted tcpdump filter after the files: the -f hint" -- "$BIN" check "$CAP" 'tcp port 80'
grep -q "give it with -f 'tcp port 80'" "$err" || { echo "FAIL: no -f hint for the quoted filter"; fail=1; }
expect 2 "a display filter where a file was expected: the -Y hint" -- "$BIN" check "$CAP" 'tcp.stream == 0'
grep -q "give it with -Y 'tcp.stream == 0'" "$err" || { echo "FAIL: no -Y hint"; fail=1; }
expect 0 "-Y matching no connection: a note" -- "$BIN" flows -Y 'tcp.port == 9' "$CAP"
grep -q 'shows none of the 1 connection(s)' "$err" || { echo "FAIL: no note for a -Y that shows nothing"; fail=1; }
# A blank -Y is no filter, as tshark takes it (tshark -Y '   ' shows every frame).
if cmp -s <("$BIN" flows -Y '   ' "$M" 2>&1) <("$BIN" flows "$M" 2>&1) && cmp -s <("$BIN" flows -Y '' "$M" 2>&1) <("$BIN" flows "$M" 2>&1); then
  echo "ok: -Y '' and -Y '   ' show what no -Y shows"
else
  echo "FAIL: a blank -Y is not the same as none"; fail=1
fi
exit $fail
