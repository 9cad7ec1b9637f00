#!/usr/bin/env bash
# Smoke run of experiment 4 (bench/reconnect-storm): 100 clients, the claims
# of bench/README.md "Reconnect storm" at a small scale, the captures it
# writes and what pcap-replay's lockstep finding makes of them.
# Exit 0 pass, 77 skip (binaries not built), 1 fail.
set -u
BUILD=${BUILD:-build}
STORM="$BUILD/bin/reconnect-storm"
REPLAY="$BUILD/bin/pcap-replay"
[ -x "$STORM" ] && [ -x "$REPLAY" ] || { echo "skip: $STORM or $REPLAY not built"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

"$STORM" --connections 100 --mode refuse --strategy exponential,full-jitter \
  --svg "$tmp/storm.svg" --pcap "$tmp" >"$tmp/out.txt" || { cat "$tmp/out.txt"; echo "FAIL: exit status"; exit 1; }
cat "$tmp/out.txt"
col() { awk -v s="$1" -v c="$2" '$1 == s && $2 == "refuse" { print $c }' "$tmp/out.txt"; }
# Exponential: every client fails and waits alike, so each pulse holds all 100
# SYNs, also when the server opens; all connected after 5 refused attempts
# (5 x 10 ms round trips), the waits 1 + 2 + 4 + 8 + 16 s and the handshake's
# 10 ms: 0.050 + 31 + 0.010 = 31.060 s.
[ "$(col exponential 3)" = 100 ] && ok "exponential: peak 100 per 100 ms" || bad "exponential peak"
[ "$(col exponential 6)" = 100 ] && ok "exponential: the whole herd meets the opened server" || bad "exponential peak@open"
[ "$(col exponential 7)" = 31.060 ] && ok "exponential: all connected at 31.060 s" || bad "exponential connect time"
# Full jitter: first waits U[0, 1 s], so the 100 first reconnects spread over a second.
awk -v p="$(col full-jitter 3)" 'BEGIN { exit !(p < 50) }' && ok "full jitter: peak under half the herd" || bad "full-jitter peak"
[ -s "$tmp/storm.svg" ] && grep -q '</svg>' "$tmp/storm.svg" && ok "SVG written" || bad "SVG"

"$REPLAY" check --json "$tmp/storm-refuse-exponential.pcap" >"$tmp/e.json"
"$REPLAY" check --json "$tmp/storm-refuse-full-jitter.pcap" >"$tmp/f.json"
python3 - "$tmp/e.json" "$tmp/f.json" <<'PY' && ok "pcap-replay: one lockstep group of 100 (exponential), none (full jitter)" || bad "pcap-replay lockstep"
import json, sys
e = json.load(open(sys.argv[1]))["lockstep"]
f = json.load(open(sys.argv[2]))["lockstep"]
assert len(e) == 1 and e[0]["lockstep"] and e[0]["members"] == 100 and e[0]["retry_kind"] == "reconnect", e
assert [round(o["offset_ms"]) for o in e[0]["offsets"]] == [1010, 3020, 7030, 15040, 31050], e[0]["offsets"]
assert len(f) == 1 and not f[0]["lockstep"] and f[0]["members"] == 100, f
PY
exit $fail
