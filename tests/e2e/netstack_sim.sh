#!/usr/bin/env bash
# `netstack sim` end to end, no root needed:
#   - the README's "netstack sim" block runs as written and prints exactly the
#     output the README shows (the simulator is deterministic);
#   - for each timer profile, a lossy run with a blackhole writes a capture
#     that `pcap-replay check --profile <the same>` judges clean (exit 0, no
#     finding at all), and the story's RTO expiries (time, sequence number,
#     wait, backoff) are the ones pcap-replay reads from the capture; the
#     Linux sender's capture judged against RFC 6298 does show its departure
#     (2.4: a 300 ms RTO under the 1 s floor), so the clean verdicts are not
#     vacuous;
#   - the same options give the same output, another seed another;
#   - bad options exit 2 with a message; the man page lists every option.
# Exit 0 pass, 1 fail.
set -u
BUILD=${BUILD:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
README=$HERE/../../README.md
NS=$BUILD/bin/netstack PR=$BUILD/bin/pcap-replay
[ -x "$NS" ] && [ -x "$PR" ] || { echo "FAIL: $NS and $PR must be built"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp" /tmp/sim-demo.pcap' EXIT
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

# ---- the README's block, as written -------------------------------------------
block=$(awk '/demo: netstack-sim/{m=1; next} m && /^```sh/{in_b=1; next} in_b && /^```/{exit} in_b{print}' "$README")
shown=$(awk '/output: netstack-sim/{m=1; next} m && /^```/{if (in_b) exit; in_b=1; next} in_b{print}' "$README")
if [ -z "$block" ] || [ -z "$shown" ]; then bad "README.md has no netstack-sim demo and output blocks"
else
  sim_cmd=$(printf '%s\n' "$block" | grep 'netstack sim' | sed "s|build/bin/|$BUILD/bin/|g")
  check_cmd=$(printf '%s\n' "$block" | grep 'pcap-replay check' | sed "s|build/bin/|$BUILD/bin/|g")
  bash -c "$sim_cmd" >"$tmp/demo.out" 2>&1; rc=$?
  [ $rc -eq 0 ] && ok "README: '$sim_cmd' exits 0" || bad "README: the sim command exits $rc"
  if [ "$(cat "$tmp/demo.out")" = "$shown" ]; then ok "README: the output shown is what it prints"
  else bad "README: the output differs from what it prints:"; diff <(echo "$shown") "$tmp/demo.out" | head; fi
  bash -c "$check_cmd" >"$tmp/demo.check" 2>&1; rc=$?
  [ $rc -eq 0 ] && grep -q "findings: 0 MUST" "$tmp/demo.check" && ok "README: pcap-replay judges the demo capture clean" \
    || { tail -5 "$tmp/demo.check"; bad "README: pcap-replay on the demo capture (exit $rc)"; }
fi

# ---- each profile: a clean capture, and the story is the capture's --------------
for profile in rfc6298 linux; do
  cap=$tmp/$profile.pcap
  "$NS" sim --bytes 200000 --loss 0.03 --seed 3 --blackhole 0.5:6 --profile "$profile" --capture "$cap" \
    >"$tmp/$profile.out" 2>&1; rc=$?
  [ $rc -eq 0 ] && grep -q '^ok: delivered 200000 bytes byte-exact' "$tmp/$profile.out" \
    && ok "$profile: delivered byte-exact" || { tail -3 "$tmp/$profile.out"; bad "$profile: netstack sim exit $rc"; }
  "$PR" check --profile "$profile" "$cap" >"$tmp/$profile.check" 2>&1; rc=$?
  [ $rc -eq 0 ] && grep -q "findings: 0 MUST, 0 SHOULD, 0 MAY, 0 INFO" "$tmp/$profile.check" \
    && ok "$profile: pcap-replay check --profile $profile: exit 0, no finding" \
    || { grep -E "MUST|summary" "$tmp/$profile.check" | head; bad "$profile: pcap-replay check exit $rc"; }
  "$PR" check --profile "$profile" --json "$cap" >"$tmp/$profile.json" 2>/dev/null
  if python3 - "$tmp/$profile.out" "$tmp/$profile.json" <<'PY'
import json, re, sys
story = [l for l in open(sys.argv[1]) if " RTO expired after " in l]
pat = re.compile(r"^\+([0-9.]+) s  RTO expired after ([0-9.]+) ms: retransmit (?:seq ([0-9]+)|the SYN).*; backoff ([0-9]+),")
told = []
for l in story:
    m = pat.match(l)
    if not m:
        sys.exit("unparsed story line: " + l)
    told.append((round(float(m.group(1)), 3), round(float(m.group(2)), 1), m.group(3), int(m.group(4))))
report = json.load(open(sys.argv[2]))
flow = [f for c in report["flows"] for f in c["senders"] if f["direction"] == "client->server"][0]
seen = [(round(t["rel_time"], 3), round(t["observed_rto_ms"], 1), None if t["syn"] else str(t["seq"]), t["backoff"])
        for t in flow["timeouts"]]
if not told or told != seen:
    sys.exit(f"story {told} != capture {seen}")
print(f"{len(told)} expiries agree")
PY
  then ok "$profile: the story's RTO expiries are the capture's (time, seq, wait, backoff)"
  else bad "$profile: the story and the capture disagree"; fi
done
# The Linux sender's first expiry waits 300 ms: under RFC 6298 2.4's 1 s floor.
"$PR" check --profile rfc6298 "$tmp/linux.pcap" >"$tmp/cross.check" 2>&1; rc=$?
grep -q "\[SHOULD 2.4\]" "$tmp/cross.check" \
  && ok "the linux capture judged as rfc6298: the 2.4 departure is found" \
  || { grep summary "$tmp/cross.check"; bad "the cross-profile check found nothing (exit $rc)"; }

# ---- deterministic ------------------------------------------------------------------
args="--bytes 50000 --loss 0.05 --ack-loss 0.02 --jitter 3 --bandwidth 10M --queue 20"
# shellcheck disable=SC2086
"$NS" sim $args --seed 11 >"$tmp/a.out"; "$NS" sim $args --seed 11 >"$tmp/b.out"; "$NS" sim $args --seed 12 >"$tmp/c.out"
cmp -s "$tmp/a.out" "$tmp/b.out" && ok "the same options print the same story" || bad "two runs differ"
cmp -s "$tmp/a.out" "$tmp/c.out" && bad "another seed changes nothing" || ok "another seed, another story"
grep -q "10000000 bit/s" "$tmp/a.out" && ok "--bandwidth 10M is 10 000 000 bit/s" || bad "--bandwidth 10M"

# ---- bad options: exit 2, a message -------------------------------------------------
expect2() {  # expect2 DESCRIPTION WORD-IN-MESSAGE ARGS...
  local what=$1 word=$2; shift 2
  "$NS" "$@" >"$tmp/bad.out" 2>&1; local rc=$?
  [ $rc -eq 2 ] && grep -q -- "$word" "$tmp/bad.out" && ok "$what: exit 2" || { cat "$tmp/bad.out"; bad "$what: exit $rc"; }
}
expect2 "sim --profile bsd" "profile" sim --profile bsd
expect2 "sim --bandwidth 10Q" "bandwidth" sim --bandwidth 10Q
expect2 "sim --blackhole soon" "blackhole" sim --blackhole soon
expect2 "sim --capture into a missing folder" "error" sim --bytes 10 --capture "$tmp/no/such/dir/x.pcap"
expect2 "send --profile bsd" "profile" send --bytes 10 --profile bsd
# ---- the man page documents every option of both commands --------------------------
for sub in sim send; do
  for o in $("$NS" $sub --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
    grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$HERE/../../netstack/man/netstack.1" \
      || bad "netstack.1 lacks $sub $o"
  done
done
ok "netstack.1 names every option of netstack sim and netstack send"
exit $fail
