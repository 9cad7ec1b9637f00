#!/usr/bin/env bash
# pcap-replay's resource bounds and write errors, end to end:
# output to a full disk, --max-flows at its boundary, out of memory under
# `ulimit -v`. Each must print a message on stderr and exit 2.
# Exit 0 pass, 77 skip (no binary or no shared traces), 1 fail.
set -u
BUILD=${BUILD:-build}
BIN="$BUILD/bin/pcap-replay"
GEN="$BUILD/bin/replay-gen"
T=../shared/traces/linux
[ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 77; }
[ -f "$T/syn-loss.pcap" ] || { [ "${CI:-}" = true ] && { echo "FAIL: $T missing under CI"; exit 1; }; echo "skip: $T missing"; exit 77; }
fail=0
err=$(mktemp); out=$(mktemp)
trap 'rm -f "$err" "$out" "${many:-}"' EXIT

expect() {  # expect STATUS DESCRIPTION STDERR-PATTERN ("" = stderr empty) -- command...
  local want=$1 what=$2 pat=$3; shift 4
  "$@" >"$out" 2>"$err"; local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; head -3 "$err"; fail=1
  elif [ -z "$pat" ] && [ -s "$err" ]; then
    echo "FAIL: $what: unexpected stderr"; head -3 "$err"; fail=1
  elif [ -n "$pat" ] && ! grep -q -- "$pat" "$err"; then
    echo "FAIL: $what: stderr lacks \"$pat\""; head -3 "$err"; fail=1
  else
    echo "ok: $what (exit $got)"
  fi
}

if [ -w /dev/full ]; then
  for mode in "check" "check --json" "flows" "flows --json" "timeline"; do
    # shellcheck disable=SC2086
    expect 2 "$mode > /dev/full" "writing the report to standard output failed" -- \
      sh -c "exec \"$BIN\" $mode \"$T/syn-loss.pcap\" > /dev/full"
  done
else
  echo "skip: /dev/full not writable"
fi

# syn-loss.pcap holds exactly one connection (flows lists 1): --max-flows 1
# accepts it; a file with two connections (the same capture twice, as two
# inputs: two connections) is cut at the second.
n=$("$BIN" flows --json "$T/syn-loss.pcap" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["flows"]))')
[ "$n" = 1 ] || { echo "FAIL: syn-loss.pcap should hold 1 connection, has $n"; fail=1; }
expect 0 "--max-flows 1, one connection" "" -- "$BIN" check --profile linux --max-flows 1 "$T/syn-loss.pcap"
cp "$T/syn-loss.pcap" "$out.copy.pcap"
expect 2 "--max-flows 1, two connections: the second named" "beyond --max-flows 1" -- \
  "$BIN" check --profile linux --max-flows 1 "$T/syn-loss.pcap" "$out.copy.pcap"
expect 2 "--max-flows 0 refused" "max-flows" -- "$BIN" check --max-flows 0 "$T/syn-loss.pcap"
rm -f "$out.copy.pcap"

# Out of memory: 20 000 connections in 256 MiB of address space. Not under
# SAN=1: AddressSanitizer reserves terabytes of shadow address space at start,
# so no ulimit -v lets it run (the normal build, run by CI too, checks this).
if [ "${SAN:-0}" = 1 ]; then
  echo "note: out-of-memory check not run under SAN=1 (ASan cannot start under ulimit -v); the normal build runs it"
elif [ -x "$GEN" ]; then
  many=$(mktemp --suffix=.pcap)
  "$GEN" "$many" --flows 20000 --packets 160000 >/dev/null
  expect 2 "out of memory under ulimit -v: a message, exit 2" "out of memory" -- \
    bash -c "ulimit -v 262144; exec \"$BIN\" check --profile auto \"$many\" > /dev/null"
else
  [ "${CI:-}" = true ] && { echo "FAIL: $GEN not built under CI"; fail=1; } || echo "skip: $GEN not built"
fi
exit $fail
