#!/usr/bin/env bash
# `pcap-replay annotate IN -o OUT.pcapng`, read back by tshark (the oracle):
# the copy has every frame of the input with the same number, time, lengths,
# interface and bytes, and each finding is a comment Wireshark shows on the
# finding's frame (frame.comment), so a display filter finds them. Exit 0
# pass, 77 skip (no binary, or no tshark outside CI), 1 fail.
set -u
BUILD=${BUILD:-build}
BIN="$BUILD/bin/pcap-replay"
CAP=tests/captures/lab/thin-linear.pcap
[ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 77; }
if ! command -v tshark > /dev/null; then
  [ -n "${CI:-}" ] && { echo "FAIL: tshark missing in CI (make deps installs it)"; exit 1; }
  echo "skip: no tshark"; exit 77
fi
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
expect() {  # expect STATUS DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" > "$tmp/out" 2> "$tmp/err"; local got=$?
  if [ "$got" -ne "$want" ]; then echo "FAIL: $what: exit $got, expected $want"; head -3 "$tmp/err"; fail=1
  else echo "ok: $what (exit $got)"; fi
}
# Every frame as tshark reads it: number, time, lengths, interface (a pcap
# has none: 0 in the copy), protocols; and the bytes.
frames() { tshark -r "$1" -T fields -e frame.number -e frame.time_epoch -e frame.len -e frame.cap_len \
             -e frame.interface_id -e frame.protocols 2> /dev/null | awk -F'\t' -v OFS='\t' '$5 == "" { $5 = 0 } 1'; }
same_frames() {  # same_frames IN OUT WHAT
  if [ "$(frames "$1" | wc -l)" -gt 0 ] && cmp -s <(frames "$1") <(frames "$2") &&
     cmp -s <(tshark -r "$1" -x 2> /dev/null) <(tshark -r "$2" -x 2> /dev/null); then
    echo "ok: $3: every frame's number, time, lengths, interface and bytes as in the input"
  else echo "FAIL: $3: the copy's frames differ from the input's"; diff <(frames "$1") <(frames "$2") | head -4; fail=1; fi
}

expect 0 "annotate thin-linear under rfc6298" -- "$BIN" annotate --profile rfc6298 "$CAP" -o "$tmp/a.pcapng"
grep -q "^pcap-replay: wrote $tmp/a.pcapng: 477 frame(s) of $CAP" "$tmp/err" || { echo "FAIL: summary line: $(cat "$tmp/err")"; fail=1; }
[ ! -s "$tmp/out" ] || { echo "FAIL: annotate wrote to standard output"; fail=1; }
same_frames "$CAP" "$tmp/a.pcapng" "pcap in, pcapng out"
# The 5.5 comments are on the frames `findings` names for 5.5, and only there.
want=$("$BIN" findings --profile rfc6298 --tsv "$CAP" | awk -F'\t' '$4 == "5.5" { print $2 }' | sort -un | tr '\n' ' ')
got=$(tshark -r "$tmp/a.pcapng" -Y 'frame.comment contains "5.5"' -T fields -e frame.number 2> /dev/null | tr '\n' ' ')
[ -n "$want" ] && [ "$got" = "$want" ] && echo "ok: frame.comment contains \"5.5\" finds frames $got" ||
  { echo "FAIL: 5.5 comments on frames '$got', findings says '$want'"; fail=1; }
all=$("$BIN" findings --profile rfc6298 --tsv "$CAP" | wc -l)
n=$(tshark -r "$tmp/a.pcapng" -Y 'frame.comment' -T fields -e frame.comment 2> /dev/null | tr ',' '\n' | grep -c '^pcap-replay: ')
[ "$n" -eq "$all" ] || { echo "FAIL: $n comments, $all findings"; fail=1; }
tshark -r "$tmp/a.pcapng" -Y 'frame.number == 204' -T fields -e frame.comment 2> /dev/null |
  grep -q 'pcap-replay: MUST 5.5 (RFC 6298 5.5) 198.18.0.1:43040 -> 198.18.0.2:5001: expiry 2 came 208.0 ms' ||
  { echo "FAIL: frame 204's comment"; fail=1; }
# The copy analyses as the input does.
cmp -s <("$BIN" findings --profile rfc6298 --tsv "$CAP" | cut -f2-) \
       <("$BIN" findings --profile rfc6298 --tsv "$tmp/a.pcapng" | cut -f2-) &&
  echo "ok: the copy's findings are the input's" || { echo "FAIL: the copy analyses differently"; fail=1; }

expect 0 "--level must: only MUST comments" -- "$BIN" annotate --profile rfc6298 --level must "$CAP" -o "$tmp/m.pcapng"
[ "$(tshark -r "$tmp/m.pcapng" -Y 'frame.comment contains "INFO"' 2> /dev/null | wc -l)" -eq 0 ] &&
  [ "$(tshark -r "$tmp/m.pcapng" -Y 'frame.comment contains "MUST"' 2> /dev/null | wc -l)" -eq 6 ] &&
  echo "ok: --level must: 6 MUST frames, no INFO" || { echo "FAIL: --level must comments"; fail=1; }

gzip -c "$CAP" > "$tmp/in.pcap.gz"
expect 0 "gzip input" -- "$BIN" annotate --profile rfc6298 "$tmp/in.pcap.gz" -o "$tmp/g.pcapng"
cmp -s "$tmp/g.pcapng" "$tmp/a.pcapng" && echo "ok: the copy of the gzip file is the copy of the file" ||
  { echo "FAIL: gzip input gives another copy"; fail=1; }

cp "$CAP" "$tmp/self.pcap"; before=$(md5sum < "$tmp/self.pcap")
expect 2 "-o naming the input is refused" -- "$BIN" annotate "$tmp/self.pcap" -o "$tmp/self.pcap"
[ "$(md5sum < "$tmp/self.pcap")" = "$before" ] || { echo "FAIL: the input was written over"; fail=1; }
expect 2 "standard input is refused (read twice)" -- "$BIN" annotate - -o "$tmp/s.pcapng"
grep -q 'not -' "$tmp/err" || { echo "FAIL: the error does not say why"; fail=1; }
expect 2 "two inputs are refused" -- "$BIN" annotate "$CAP" "$CAP" -o "$tmp/t.pcapng"
expect 2 "-o is required" -- "$BIN" annotate "$CAP"

expect 2 "-o - is refused (the copy goes to a file)" -- "$BIN" annotate "$CAP" -o -
expect 2 "a pipe is refused (read twice), no copy left behind" -- "$BIN" annotate <(cat "$CAP") -o "$tmp/pipe.pcapng"
[ ! -e "$tmp/pipe.pcapng" ] || { echo "FAIL: a copy was left behind"; fail=1; }

# The input's own comments are kept (editcap writes them), ours added after.
if command -v editcap > /dev/null; then
  editcap -a '1:first' -a '284:a note of mine' tests/captures/lab/rto-max-low.pcap "$tmp/c.pcapng" 2> /dev/null
  expect 0 "annotate a capture with comments of its own" -- "$BIN" annotate --profile rfc6298 "$tmp/c.pcapng" -o "$tmp/c-out.pcapng"
  c1=$(tshark -r "$tmp/c-out.pcapng" -Y 'frame.number == 1' -T fields -e frame.comment 2> /dev/null)
  c284=$(tshark -r "$tmp/c-out.pcapng" -Y 'frame.number == 284' -T fields -e frame.comment 2> /dev/null)
  [ "$c1" = "first" ] && case "$c284" in "a note of mine,pcap-replay: MUST 2.5 "*) true ;; *) false ;; esac &&
    echo "ok: the input's comments kept, ours after them" || { echo "FAIL: comments: '$c1' / '$c284'"; fail=1; }
fi

# A pcapng of many interfaces (the public zeek capture: its packets on interface 48 of 126).
P=../shared/traces/public/zeek__ldap-gap-data-missing.pcapng
if [ -f "$P" ]; then
  expect 0 "annotate a pcapng of 126 interfaces" -- "$BIN" annotate --profile linux "$P" -o "$tmp/z.pcapng"
  same_frames "$P" "$tmp/z.pcapng" "pcapng in (interface 48), pcapng out"
fi
exit $fail
