#!/usr/bin/env bash
# End-to-end checks of the pcap-replay command line: sub-commands, flags,
# exit statuses (0 clean, 1 departures, 2 unusable input/arguments), stdin.
# Exit 0 pass, 77 skip (no binary or no shared traces), 1 fail.
set -u
BUILD=${BUILD:-build}
BIN="$BUILD/bin/pcap-replay"
T=../shared/traces/linux
[ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 77; }
[ -f "$T/syn-loss.pcap" ] || { echo "skip: $T missing"; exit 77; }
fail=0
expect() {  # expect STATUS DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" >/tmp/pcap_replay_cli.$$ 2>/tmp/pcap_replay_cli_err.$$; local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; head -5 /tmp/pcap_replay_cli_err.$$; fail=1
  else
    echo "ok: $what (exit $got)"
  fi
}
expect 0 "linux capture, --profile linux: no MUST" -- "$BIN" check --profile linux "$T/syn-loss.pcap"
expect 1 "linux capture, --profile rfc6298: 5.5, and 5.7 noted" -- "$BIN" check "$T/syn-loss.pcap"
grep -q '\[MUST 5.5\]' /tmp/pcap_replay_cli.$$ || { echo "FAIL: no 5.5 in the report"; fail=1; }
grep -q '\[INFO 5.7\]' /tmp/pcap_replay_cli.$$ || { echo "FAIL: no INFO 5.7 note in the report"; fail=1; }
expect 0 "blackhole, rfc6298: SHOULD only" -- "$BIN" check "$T/blackhole-backoff.pcap"
expect 1 "blackhole, rfc6298 --strict: SHOULD counts" -- "$BIN" check --strict "$T/blackhole-backoff.pcap"
expect 2 "missing file" -- "$BIN" check /nonexistent.pcap
grep -q '/nonexistent.pcap' /tmp/pcap_replay_cli_err.$$ || { echo "FAIL: stderr does not name the file"; fail=1; }
expect 2 "unknown profile" -- "$BIN" check --profile bsd "$T/syn-loss.pcap"
expect 2 "no sub-command" -- "$BIN"
expect 2 "cap below 60 s refused for rfc6298" -- "$BIN" check --rto-max 30000 "$T/syn-loss.pcap"
expect 1 "--syn-linear 0 under linux: the linear SYN timeouts depart from 5.5" -- \
  "$BIN" check --syn-linear 0 --profile linux "$T/syn-loss.pcap"
grep -q '\[MUST 5.5\]' /tmp/pcap_replay_cli.$$ || { echo "FAIL: no 5.5 with --syn-linear 0"; fail=1; }
expect 0 "--rto-min 100 under linux: the profile's rto_min overridden (RTO 340 -> 240 ms)" -- \
  "$BIN" check --json --profile linux --rto-min 100 "$T/blackhole-backoff.pcap"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["flows"][0]["timeouts"][0]; assert d["rto_config"]["min_rto_ms"]==100.0 and t["predicted_rto_ms"]<300, t' \
  /tmp/pcap_replay_cli.$$ || { echo "FAIL: --rto-min"; fail=1; }
expect 0 "JSON output" -- "$BIN" check --json --profile linux "$T/syn-loss.pcap"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["flows"][0]["timeouts"][5]["predicted_rto_ms"]==2000.0' \
  /tmp/pcap_replay_cli.$$ || { echo "FAIL: JSON content"; fail=1; }
expect 0 "timeline CSV" -- "$BIN" timeline --csv --profile linux "$T/syn-loss.pcap"
head -1 /tmp/pcap_replay_cli.$$ | grep -q '^flow,direction,frame,time,rel_time,event,seq,sample_us,sample_kind,srtt_us,rttvar_us,rto_us,backoff$' \
  || { echo "FAIL: CSV header"; fail=1; }
expect 0 "flows list" -- "$BIN" flows "$T/syn-loss.pcap" "$T/bulk-clean.pcap"
[ "$(grep -c '198.18.0.1' /tmp/pcap_replay_cli.$$)" -eq 2 ] || { echo "FAIL: flows list"; fail=1; }
expect 0 "stdin with a BPF filter" -- bash -c "\"$BIN\" check --profile linux -f 'tcp port 5001' - < \"$T/syn-loss.pcap\""
expect 0 "filter matching nothing" -- "$BIN" check -f 'tcp port 1' "$T/syn-loss.pcap"
grep -q 'summary: 0 flow' /tmp/pcap_replay_cli.$$ || { echo "FAIL: filter"; fail=1; }
rm -f /tmp/pcap_replay_cli.$$ /tmp/pcap_replay_cli_err.$$
exit $fail
