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
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["flows"][0]["senders"][0]["timeouts"][0]; assert d["rto_config"]["min_rto_ms"]==100.0 and t["predicted_rto_ms"]<300, t' \
  /tmp/pcap_replay_cli.$$ || { echo "FAIL: --rto-min"; fail=1; }
expect 0 "JSON output" -- "$BIN" check --json --profile linux "$T/syn-loss.pcap"
# The 6th SYN expiry: the first after Linux's 4 linear ones, predicted as
# the chain's RTO (about 1 s) doubled: the window holds 2000 ms.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["flows"][0]["senders"][0]["timeouts"][5]["predicted_ms"]; assert p[0] <= 2000.0 <= p[1], p' \
  /tmp/pcap_replay_cli.$$ || { echo "FAIL: JSON content"; fail=1; }
expect 0 "timeline CSV" -- "$BIN" timeline --csv --profile linux "$T/syn-loss.pcap"
head -1 /tmp/pcap_replay_cli.$$ | grep -q '^flow,direction,frame,time,rel_time,event,seq,sample_us,sample_kind,srtt_us,rttvar_us,rto_us,backoff,copy_of$' \
  || { echo "FAIL: CSV header"; fail=1; }
expect 0 "flows list" -- "$BIN" flows "$T/syn-loss.pcap" "$T/bulk-clean.pcap"
[ "$(grep -c '198.18.0.1' /tmp/pcap_replay_cli.$$)" -eq 2 ] || { echo "FAIL: flows list"; fail=1; }
expect 0 "stdin with a BPF filter" -- bash -c "\"$BIN\" check --profile linux -f 'tcp port 5001' - < \"$T/syn-loss.pcap\""
expect 0 "filter matching nothing" -- "$BIN" check -f 'tcp port 1' "$T/syn-loss.pcap"
grep -q 'summary: 0 flow' /tmp/pcap_replay_cli.$$ || { echo "FAIL: filter"; fail=1; }
grep -q 'note: no TCP segment matched the filter "tcp port 1"' /tmp/pcap_replay_cli.$$ || { echo "FAIL: no filter note"; fail=1; }
expect 0 "filter matching nothing: a note on stderr" -- "$BIN" check -f 'host 1.2.3.4' "$T/syn-loss.pcap"
grep -q 'pcap-replay: note: no TCP segment matched the filter "host 1.2.3.4"' /tmp/pcap_replay_cli_err.$$ \
  || { echo "FAIL: filter note on stderr"; fail=1; }
has_err() {  # has_err TEXT: stderr of the last command contains TEXT
  grep -qF -- "$1" /tmp/pcap_replay_cli_err.$$ || { echo "FAIL: stderr lacks: $1"; head -3 /tmp/pcap_replay_cli_err.$$; fail=1; }
}
user_err() {  # user_err TEXT: like has_err, and no internal names or microseconds
  has_err "$1"
  if grep -q 'rto::Config\| us ' /tmp/pcap_replay_cli_err.$$; then echo "FAIL: internal names/us in: $1"; fail=1; fi
}
has_out() {  # has_out TEXT: stdout of the last command contains TEXT
  grep -qF -- "$1" /tmp/pcap_replay_cli.$$ || { echo "FAIL: stdout lacks: $1"; fail=1; }
}
# Unusable input: exit 2 with the reason on stderr, also when the file opens
# but its first record cannot be read; a usable file beside it is reported.
P=../shared/traces/public
if [ -f "$P/libpcap__pcap-invalid-version-1.pcap" ]; then
  expect 2 "file libpcap refuses to open" -- "$BIN" check "$P/libpcap__pcap-invalid-version-1.pcap"
  has_err "unusable input: $P/libpcap__pcap-invalid-version-1.pcap: cannot open: archaic pcap savefile format"
  [ -s /tmp/pcap_replay_cli.$$ ] && { echo "FAIL: a report for nothing usable"; fail=1; }
  expect 2 "one unusable file beside a good one: report, then exit 2" -- \
    "$BIN" check --profile linux "$P/libpcap__pcap-invalid-version-1.pcap" "$T/syn-loss.pcap"
  has_out "summary: 1 flow(s), 6 retransmission(s), 6 timeout(s)"
  has_out ", 1 unusable file(s); profile linux"
fi
if [ -f "$P/zeek__ldap-gap-data-missing.pcapng" ]; then
  if [ -f "$P/tcpdump__timestamp_invalid_micro.pcap" ]; then
    expect 0 "skipped frames named on stderr as skipped" -- "$BIN" check "$P/tcpdump__timestamp_invalid_micro.pcap"
    has_err "pcap-replay: skipped: $P/tcpdump__timestamp_invalid_micro.pcap: frame 3: frame.time:"
    has_out "input: 2 frame(s) skipped, 0 analysed with a warning"
  fi
  expect 0 "pcapng with interfaces of different snaplens (ldap-gap-data-missing) is read" -- \
    "$BIN" check "$P/zeek__ldap-gap-data-missing.pcapng"
fi
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\0\0\0\0\0\0\0\0\xff\xff\0\0\x01\0\0\0\x01\0\0\0\0\0\0\0\x3c\0\0\0\x3c\0\0\0abc' \
  > /tmp/pcap_replay_cli_cut.$$.pcap
expect 2 "truncated first record" -- "$BIN" check /tmp/pcap_replay_cli_cut.$$.pcap
has_err "unusable input: /tmp/pcap_replay_cli_cut.$$.pcap: frame 1: pcap: read error"
rm -f /tmp/pcap_replay_cli_cut.$$.pcap
# Frames used with a warning are not "skipped" (pppoe-over-qinq: 6 ip.len warnings).
if [ -f "$P/zeek__pppoe-over-qinq.pcap" ]; then
  expect 1 "warnings apart from skipped frames" -- "$BIN" check "$P/zeek__pppoe-over-qinq.pcap"
  has_out "input: 0 frame(s) skipped, 6 analysed with a warning; profile rfc6298"
  has_out "warnings (frames analysed, the problem worked around as Wireshark does):"
  grep -q '^bad input' /tmp/pcap_replay_cli.$$ && { echo "FAIL: warnings listed as bad input"; fail=1; }
  has_err "pcap-replay: warning: $P/zeek__pppoe-over-qinq.pcap: frame 19: ip.len:"
  expect 1 "JSON diagnostics[].skipped" -- "$BIN" check --json "$P/zeek__pppoe-over-qinq.pcap"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=[x["skipped"] for x in d["diagnostics"]]; assert s==[False]*6 and d["summary"]["frames_with_warning"]==6, s' \
    /tmp/pcap_replay_cli.$$ || { echo "FAIL: JSON skipped"; fail=1; }
fi
# The command line itself.
expect 2 "unknown subcommand" -- "$BIN" frobnicate x
has_err 'unknown subcommand "frobnicate"; valid subcommands: check, findings, annotate, flows, timeline, plot'
expect 2 "no subcommand: the valid ones listed" -- "$BIN"
has_err "a subcommand is required: check, findings, flows or timeline"
expect 0 "--version" -- "$BIN" --version
has_out "pcap-replay 0."
expect 0 "check --help documents exit status 2 for unusable input" -- "$BIN" check --help
has_out "whose first record cannot be"
expect 0 "flows --json: the flow list" -- "$BIN" flows --json "$T/syn-loss.pcap" "$T/bulk-clean.pcap"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=d["flows"]; assert d["kind"]=="flows" and len(f)==2 and f[0]["packets"]==2033 and f[0]["senders"][1]["data_segments"]==2 and f[0]["senders"][1]["bytes"]==0, d' \
  /tmp/pcap_replay_cli.$$ || { echo "FAIL: flows --json"; fail=1; }
expect 0 "timeline without --csv: CSV" -- "$BIN" timeline --profile linux "$T/syn-loss.pcap"
head -1 /tmp/pcap_replay_cli.$$ | grep -q '^flow,direction,frame,' || { echo "FAIL: timeline default CSV"; fail=1; }
expect 2 "timeline --json refused" -- "$BIN" timeline --json "$T/syn-loss.pcap"
has_err "timeline --json: the timeline is written as CSV only"
expect 0 "the same file twice: analysed once" -- "$BIN" flows "$T/syn-loss.pcap" "./$T/syn-loss.pcap"
has_err "is the same file as $T/syn-loss.pcap; it is analysed once"
[ "$(grep -c '198.18.0.1' /tmp/pcap_replay_cli.$$)" -eq 1 ] || { echo "FAIL: duplicate file analysed twice"; fail=1; }
expect 2 "--rto-max below 60 s under rfc6298: flag named, in ms" -- "$BIN" check --rto-max 1000 "$T/syn-loss.pcap"
user_err "pcap-replay: --rto-max 1000 ms: RFC 6298 2.5 allows a maximum only if it is at least 60000 ms; to check a stack with a lower cap against its own numbers use --profile linux --rto-max 1000"
expect 2 "--rto-max below the initial RTO" -- "$BIN" check --profile linux --rto-max 500 "$T/syn-loss.pcap"
user_err "--rto-max 500 ms: below the initial RTO of 1000 ms"
expect 2 "--rto-min above the cap" -- "$BIN" check --profile linux --rto-min 200000 "$T/syn-loss.pcap"
user_err "--rto-min 200000 ms: above the maximum RTO (120000 ms of the linux profile)"
expect 2 "--granularity 0 under rfc6298" -- "$BIN" check --granularity 0 "$T/syn-loss.pcap"
user_err "--granularity 0 ms: RFC 6298 needs a positive clock granularity G"
expect 2 "--rto-max 0" -- "$BIN" check --profile linux --rto-max 0 "$T/syn-loss.pcap"
user_err "--rto-max 0 ms: the maximum RTO must be positive"
expect 2 "--rto-min out of range" -- "$BIN" check --rto-min 1e12 "$T/syn-loss.pcap"
user_err "--rto-min 1000000000000 ms: above one hour (3600000 ms)"
# SYN/FIN count as data-bearing; payload bytes apart.
expect 0 "receiver: data-bearing segments and payload bytes" -- "$BIN" check --profile linux "$T/syn-loss.pcap"
has_out "641 packets, 2 data-bearing segment(s) (SYN/FIN count as one byte), 0 payload bytes"
# One direction only (the shipped capture's sender, 209 of its 296 frames):
# the 37 resends (6 RTO, 1 TLP, 30 slow-start with the ACKs) cannot be classified
# without the peer, so no timeouts; the sender's TSvals are still seen.
expect 0 "one-direction capture: resends unclassified, no timeouts" -- \
  "$BIN" check -f 'tcp src port 54906' tests/captures/linux-blackhole.pcap
has_out "retransmissions: 37 unclassified"
has_out "timestamps sent by this side, peer not seen"
has_out "37 retransmission(s), 0 timeout(s)"
# Habits of tcpdump / tshark users.
expect 1 "-r FILE as tcpdump and tshark take it" -- "$BIN" check -r "$T/syn-loss.pcap"
has_out "summary: 1 flow(s), 6 retransmission(s), 6 timeout(s)"
expect 2 "no input file at all" -- "$BIN" check --profile linux
has_err "pcap-replay: check: no capture file given"
expect 2 "a BPF filter that does not compile: an argument error, before any file is read" -- \
  "$BIN" check -f 'tcp prt 80' "$T/syn-loss.pcap"
has_err 'pcap-replay: -f "tcp prt 80": not a valid BPF filter: '
grep -q 'unusable input' /tmp/pcap_replay_cli_err.$$ && { echo "FAIL: BPF error reported as unusable input"; fail=1; }
[ -s /tmp/pcap_replay_cli.$$ ] && { echo "FAIL: a report despite the bad filter"; fail=1; }
expect 2 "CLI11's own errors start with the program's name" -- "$BIN" check --profile bsd "$T/syn-loss.pcap"
if grep -qv '^pcap-replay: ' /tmp/pcap_replay_cli_err.$$; then echo "FAIL: a stderr line without the program's name"; fail=1; fi
for sub in check findings annotate flows timeline; do
  expect 0 "$sub --version" -- "$BIN" $sub --version
  has_out "pcap-replay 0."
done
expect 0 "flows --help: no estimator or check-only options" -- "$BIN" flows --help
for o in --profile --strict --rto-min --findings-only; do
  grep -q -- "$o" /tmp/pcap_replay_cli.$$ && { echo "FAIL: flows --help lists $o"; fail=1; }
done
expect 0 "timeline --help: the estimator options, not --strict" -- "$BIN" timeline --help
has_out "--profile"
grep -q -- "--strict" /tmp/pcap_replay_cli.$$ && { echo "FAIL: timeline --help lists --strict"; fail=1; }
# --json with only unusable input: the document, naming the input and its error; exit 2.
expect 2 "check --json, the only file unusable: JSON printed" -- "$BIN" check --json /nonexistent.pcap
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d["inputs"]; assert len(i)==1 and not i[0]["usable"] and "/nonexistent.pcap" in i[0]["error"] and d["flows"]==[], d' \
  /tmp/pcap_replay_cli.$$ || { echo "FAIL: check --json of an unusable file"; fail=1; }
expect 2 "flows --json, the only file unusable: JSON printed" -- "$BIN" flows --json /nonexistent.pcap
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["kind"]=="flows" and not d["inputs"][0]["usable"], d' \
  /tmp/pcap_replay_cli.$$ || { echo "FAIL: flows --json of an unusable file"; fail=1; }
expect 2 "flows: unusable input is exit 2, as for check" -- "$BIN" flows /nonexistent.pcap "$T/syn-loss.pcap"
expect 2 "timeline: unusable input is exit 2, as for check" -- "$BIN" timeline /nonexistent.pcap "$T/syn-loss.pcap"
# Wireshark's names: the display filter of every finding, tcp.stream of every connection.
expect 0 "display filter per finding, tcp.stream per connection" -- "$BIN" check tests/captures/linux-blackhole.pcap
has_out "frame 179 at 0.541 s: "
has_out "[frame.number == 179]"
has_out "  Wireshark: tcp.stream 0; display filter: tcp.stream == 0"
# tshark shows frame 179 at the same time from frame 1 (the independent truth, when installed).
if command -v tshark >/dev/null; then
  ws=$(tshark -r tests/captures/linux-blackhole.pcap -Y 'frame.number == 179' -T fields -e frame.time_relative 2>/dev/null)
  case $ws in 0.541*) echo "ok: tshark puts frame 179 at $ws s";; *) echo "FAIL: tshark frame 179 at '$ws', the report 0.541"; fail=1;; esac
elif [ "${CI:-}" = true ]; then echo "FAIL: tshark missing (CI=true)"; fail=1; fi
# Triage.
expect 0 "--findings-only: the receiver (no findings) is not printed" -- \
  "$BIN" check --findings-only tests/captures/linux-blackhole.pcap
has_out "sender 198.18.0.1:54906 -> 198.18.0.2:5001"
grep -q 'sender 198.18.0.2:5001 -> ' /tmp/pcap_replay_cli.$$ && { echo "FAIL: --findings-only printed a sender without findings"; fail=1; }
has_out "findings: 0 MUST, 1 SHOULD"
L=tests/captures/lab/many-flows.pcap
if [ -f "$L" ]; then
  expect 0 "--flow 2: only that connection" -- "$BIN" check --profile linux --flow 2 "$L"
  [ "$(grep -c '^flow ' /tmp/pcap_replay_cli.$$)" -eq 1 ] && has_out "flow 2: " \
    || { echo "FAIL: --flow 2"; fail=1; }
  has_out "summary: 120 flow(s)"
  expect 0 "--stream 1: Wireshark's second stream is pcap-replay's flow 2" -- "$BIN" flows --stream 1 "$L"
  [ "$(wc -l < /tmp/pcap_replay_cli.$$)" -eq 2 ] && grep -q '^   2      1  ' /tmp/pcap_replay_cli.$$ \
    || { echo "FAIL: --stream 1"; cat /tmp/pcap_replay_cli.$$; fail=1; }
  expect 2 "--flow beyond the connections" -- "$BIN" check --flow 121 "$L"
  has_err "pcap-replay: --flow 121: no such connection; the input has 120 (1-120)"
  expect 2 "--stream with -f: the stream numbers are unknown" -- "$BIN" check --stream 0 -f 'tcp' "$L"
  has_err "pcap-replay: --stream 0: Wireshark's stream numbers count the connections the filter"
  expect 0 "timeline --flow 3: only flow 3's rows" -- "$BIN" timeline --profile linux --flow 3 "$L"
  [ "$(tail -n +2 /tmp/pcap_replay_cli.$$ | cut -d, -f1 | sort -u)" = 3 ] || { echo "FAIL: timeline --flow 3"; fail=1; }
fi
expect 1 "the hint: rfc6298's departures are Linux's" -- "$BIN" check "$T/syn-loss.pcap"
has_out "hint: the MUST departures of 1 of 1 sender(s) are what linux (Linux 6.x defaults) does: 0 MUST there; try --profile auto (or --profile linux)"
expect 1 "--no-hint" -- "$BIN" check --no-hint "$T/syn-loss.pcap"
grep -q '^hint:' /tmp/pcap_replay_cli.$$ && { echo "FAIL: a hint under --no-hint"; fail=1; }
expect 1 "no hint for standard input (it cannot be read twice)" -- bash -c "\"$BIN\" check - < \"$T/syn-loss.pcap\""
grep -q '^hint:' /tmp/pcap_replay_cli.$$ && { echo "FAIL: a hint for standard input"; fail=1; }
grep -q '^hint:' /tmp/pcap_replay_cli.$$ && { echo "FAIL: a hint under --no-hint"; fail=1; }
expect 1 "--json: profile_hint" -- "$BIN" check --json "$T/syn-loss.pcap"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "try --profile auto" in d["profile_hint"], d["profile_hint"]' \
  /tmp/pcap_replay_cli.$$ || { echo "FAIL: JSON profile_hint"; fail=1; }
expect 0 "no hint without MUST departures" -- "$BIN" check --json --profile linux "$T/syn-loss.pcap"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["profile_hint"] is None' /tmp/pcap_replay_cli.$$ \
  || { echo "FAIL: a hint without MUST"; fail=1; }
# The man page renders without warnings and documents every option --help lists;
# the completion offers each of them.
MAN=pcap-replay/man/pcap-replay.1
COMP=pcap-replay/completion/pcap-replay.bash
if command -v groff >/dev/null; then
  for page in "$MAN" netstack/man/netstack.1; do
    w=$(groff -man -ww -z "$page" 2>&1)
    [ -z "$w" ] && echo "ok: $page renders without warnings" || { echo "FAIL: $page: $w"; fail=1; }
  done
elif [ "${CI:-}" = true ]; then echo "FAIL: groff missing (CI=true)"; fail=1; fi
# One version everywhere: rto/rto.h's RTO_VERSION_STRING, in --version of both
# programs and in the man pages' title lines; the JSON schema's in --version.
want=$(sed -n 's/^#define RTO_VERSION_STRING "\(.*\)".*/\1/p' rto/include/rto/rto.h)
NETSTACK=${BIN%/pcap-replay}/netstack
for got in "$("$BIN" --version | awk '{print $2}')" "$("$NETSTACK" --version | awk '{print $2}')" \
           "$(sed -n '1s/.*"rto \([0-9.]*\)".*/\1/p' "$MAN")" \
           "$(sed -n '1s/.*"rto \([0-9.]*\)".*/\1/p' netstack/man/netstack.1)"; do
  [ "$got" = "$want" ] || { echo "FAIL: version '$got', rto/rto.h says '$want'"; fail=1; }
done
schema=$("$BIN" check --json tests/captures/linux-blackhole.pcap 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["schema_version"])')
"$BIN" --version | grep -q "schema_version $schema)" && echo "ok: --version names the JSON schema_version the report writes ($schema)" \
  || { echo "FAIL: --version does not name schema_version $schema"; fail=1; }
for sub in check findings annotate flows timeline plot; do
  for o in $("$BIN" $sub --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$MAN" || { echo "FAIL: man page lacks $sub $o"; fail=1; }
    [ "$o" = --help ] && continue
    [ "$sub$o" = timeline--json ] && continue  # listed only to be refused (CSV only): not offered
    got=$(bash -c "source $COMP; COMP_WORDS=(pcap-replay $sub ${o:0:4}); COMP_CWORD=2; _pcap_replay; printf '%s\n' \"\${COMPREPLY[@]}\"")
    printf '%s\n' "$got" | grep -qx -- "$o" || { echo "FAIL: completion of $sub lacks $o"; fail=1; }
  done
done
# merge's own options (the names that start its --help's "Options:" lines;
# its descriptions name check's).
for o in $("$BIN" merge --help | sed -n '/^Options:/,/^$/p' | grep -oE '^ +(-[a-zA-Z],)?--[a-z][a-z-]*' | grep -o -- '--[a-z-]*' | sort -u); do
  grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$MAN" || { echo "FAIL: man page lacks merge $o"; fail=1; }
  [ "$o" = --help ] && continue
  got=$(bash -c "source $COMP; COMP_WORDS=(pcap-replay merge ${o:0:4}); COMP_CWORD=2; _pcap_replay; printf '%s\n' \"\${COMPREPLY[@]}\"")
  printf '%s\n' "$got" | grep -qx -- "$o" || { echo "FAIL: completion of merge lacks $o"; fail=1; }
done
got=$(bash -c "source $COMP; COMP_WORDS=(pcap-replay check --profile ''); COMP_CWORD=3; _pcap_replay; echo \"\${COMPREPLY[*]}\"")
[ "$got" = "rfc6298 linux freebsd macos windows auto" ] || { echo "FAIL: --profile completion: $got"; fail=1; }
rm -f /tmp/pcap_replay_cli.$$ /tmp/pcap_replay_cli_err.$$
# What a setting on the command line replaced is in the heading; an
# unwritable --html names the reason.
expect 0 "--rto-min and --syn-linear named in the heading" -- \
  "$BIN" check --rto-min 200 --syn-linear 2 tests/captures/linux-blackhole.pcap
has_out "(RFC 6298 as written; set on the command line: minimum RTO 200 ms, SYN linear timeouts 2)"
expect 2 "--html into a missing directory: the reason" -- \
  "$BIN" check --html /nonexistent-dir/x.html tests/captures/linux-blackhole.pcap
has_err "--html /nonexistent-dir/x.html: cannot write the file: No such file or directory"
exit $fail
