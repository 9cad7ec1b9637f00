#!/usr/bin/env bash
# check --json --shard K/N for K = 1..N, then merge: byte for byte the
# document of one check --json, with the same exit status and the same limit
# lines on stderr; on the shipped captures and on generated ones whose hosts
# share a TSval clock across connections (what a shard must replay for the
# connections it does not analyse), under limits, and under --profile auto.
# Then merge --text: the text report of one check, byte for byte, from the
# shards' documents (under the selections, several inputs, -f, the RTO
# settings, limits), and refused when a document lacks a value the text
# needs. Then merge --html: the page of one check --html, byte for byte, from
# the shards' documents with their timelines (check --json --timeline). Then merge's refusals: a shard missing or given twice, shards of two
# runs, a document that is no shard's; merge reading documents as they come
# (one on standard input, one reformatted, memory far below their size). And
# -j N, the same shards in threads.
set -uo pipefail
BUILD=${BUILD:-build}
BIN=$BUILD/bin/pcap-replay
GEN=$BUILD/bin/replay-gen
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$GEN" "$T/many.pcap" --flows 300 --packets 60000 --loss-permille 20 --seed 7 > /dev/null || fail "replay-gen"
"$GEN" "$T/mid.pcap" --flows 200 --packets 40000 --loss-permille 10 --mid-stream --seed 3 > /dev/null || fail "replay-gen"

summary_flows() { /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["flows"])' "$1"; }

# merged N ARGS... : shards 1..N of `check --json ARGS`, merged, against one run.
merged() {
  local n=$1; shift
  "$BIN" check --json "$@" > "$T/one.json" 2> "$T/one.err"; local rc1=$?
  local docs=()
  for k in $(seq 1 "$n"); do
    "$BIN" check --json --shard "$k/$n" "$@" > "$T/s$k.json" 2> /dev/null
    docs+=("$T/s$k.json")
  done
  # In reverse order: the merge orders them itself.
  local rev=()
  for ((i = ${#docs[@]} - 1; i >= 0; i--)); do rev+=("${docs[i]}"); done
  "$BIN" merge "${rev[@]}" > "$T/m.json" 2> "$T/m.err"; local rc2=$?
  cmp -s "$T/one.json" "$T/m.json" || { diff "$T/one.json" "$T/m.json" | head -20; fail "$n shards of check $* differ from one run"; }
  [ "$rc1" = "$rc2" ] || fail "$n shards of check $*: exit status $rc2, one run $rc1"
  diff <(grep '^pcap-replay: limit:' "$T/one.err") "$T/m.err" > /dev/null || fail "$n shards of check $*: limit lines differ"
  # With more connections than shards, each shard had some (the split is real).
  local total own
  total=$(summary_flows "$T/one.json")
  for k in $(seq 1 "$n"); do
    own=$(summary_flows "$T/s$k.json")
    [ "$own" -gt 0 ] || [ "$total" -lt $((4 * n)) ] || fail "shard $k/$n has none of the $total connections"
  done
  echo "ok: $n shards of check $* ($total connection(s), exit $rc1)"
}

for f in tests/captures/linux-blackhole.pcap tests/captures/lab/*.pcap "$T/many.pcap" "$T/mid.pcap"; do
  merged 2 --profile linux "$f"
done
merged 3 --profile rfc6298 "$T/many.pcap"
merged 5 --profile linux "$T/many.pcap" tests/captures/lab/many-flows.pcap
merged 2 --profile auto tests/captures/lab/capture-dup.pcap
# Limits: a sender past --max-outstanding goes on feeding its hosts' shared
# state in every shard; connections beyond --max-flows are shard 1's to say.
merged 3 --profile linux --max-outstanding 3 "$T/many.pcap"
[ "$(grep -c 'more than --max-outstanding 3' "$T/m.err")" -gt 100 ] || fail "--max-outstanding 3: not the hundreds of limit lines expected"
merged 2 --profile linux --max-flows 50 "$T/many.pcap"
# The profile hint: the MUST departures under rfc6298 of 44 senders in
# several shards, each explained by linux (the shards' tallies summed).
merged 3 --profile rfc6298 tests/captures/lab/many-flows.pcap
grep -q '"profile_hint": "the MUST departures of 44 of 44 sender(s)' "$T/m.json" || fail "no summed profile hint"
for k in 1 2 3; do
  grep -q '"profile_hint": "the MUST departures of 44 ' "$T/s$k.json" && fail "shard $k/3 alone had all 44 senders"
done

# merge --text N ARGS... : shards 1..N of `check --json ARGS`, merged as
# text, against the text of one `check ARGS`, with its exit status.
merged_text() {
  local n=$1; shift
  "$BIN" check "$@" > "$T/one.txt" 2> /dev/null; local rc1=$?
  local docs=()
  for k in $(seq "$n" -1 1); do
    "$BIN" check --json --shard "$k/$n" "$@" > "$T/t$k.json" 2> /dev/null
    docs+=("$T/t$k.json")
  done
  "$BIN" merge --text "${docs[@]}" > "$T/m.txt" 2> "$T/m.err"; local rc2=$?
  cmp -s "$T/one.txt" "$T/m.txt" || { diff "$T/one.txt" "$T/m.txt" | head -20; cat "$T/m.err"; fail "merge --text of $n shards of check $* differs from the text of one run"; }
  [ "$rc1" = "$rc2" ] || fail "merge --text of $n shards of check $*: exit status $rc2, one run $rc1"
  echo "ok: merge --text of $n shards of check $* is its text ($(wc -l < "$T/one.txt") lines, exit $rc1)"
}
for f in tests/captures/linux-blackhole.pcap tests/captures/lab/*.pcap; do
  merged_text 3 --profile rfc6298 "$f"
  merged_text 3 --profile linux "$f"
done
merged_text 3 --profile rfc6298 "$T/many.pcap"
merged_text 3 --profile linux "$T/mid.pcap" tests/captures/lab/many-flows.pcap tests/captures/linux-blackhole.pcap
merged_text 3 --profile rfc6298 --findings-only tests/captures/lab/many-flows.pcap
merged_text 3 --profile rfc6298 --findings-only --level should "$T/many.pcap"
merged_text 3 --profile rfc6298 --level must tests/captures/lab/many-flows.pcap
merged_text 3 --profile linux -Y "frame.number == 206" tests/captures/lab/thin-linear.pcap
merged_text 3 --profile rfc6298 -Y "tcp.port == 5001 && frame.number >= 500" tests/captures/lab/many-flows.pcap
merged_text 3 --profile auto tests/captures/lab/capture-dup.pcap
merged_text 3 --profile linux --rto-min 150 --syn-linear 2 --granularity 2 -f "tcp port 5001" tests/captures/lab/many-flows.pcap
merged_text 2 --profile linux -f "tcp port 1" tests/captures/lab/many-flows.pcap
merged_text 3 --profile linux --max-outstanding 3 "$T/many.pcap"
merged_text 3 --profile rfc6298 --strict tests/captures/linux-blackhole.pcap
printf 'not a capture\n' > "$T/junk.pcap"
merged_text 2 "$T/junk.pcap"
[ -s "$T/m.txt" ] && fail "merge --text of shards of an unusable input wrote a report"
merged_text 2 "$T/junk.pcap" tests/captures/lab/keepalive.pcap
# A value the text needs taken out of a shard's document (the capture
# copies' frames, a sender's sums, the options the heading names): refused
# before anything is written, naming the document and the key.
for k in 1 2; do "$BIN" check --json --profile linux --shard "$k/2" tests/captures/lab/capture-dup.pcap > "$T/d$k.json" 2> /dev/null; done
for cut in 'flows/0/capture_duplicate_frames' 'flows/0/vnet_apart' 'flows/0/senders/0/rtt/karn/sum_sq_us' \
           'flows/0/senders/0/findings_hidden' 'flows/0/senders/0/inferred/ties' 'rto_config/set_on_command_line' \
           'inputs/0/first_time_ns' 'bpf_filter'; do
  # Out of both documents (the keys outside "flows" are alike in every shard).
  /usr/bin/python3 - "$T/d1.json" "$T/d2.json" "$T/cut1.json" "$T/cut2.json" "$cut" <<'PY'
import json, sys
*path, key = sys.argv[5].split("/")
for src, dst in ((sys.argv[1], sys.argv[3]), (sys.argv[2], sys.argv[4])):
    d = json.load(open(src))
    at = d
    try:
        for p in path:
            at = at[int(p)] if p.isdigit() else at[p]
        del at[key]
    except (IndexError, KeyError):
        pass  # the shard without the connection
    json.dump(d, open(dst, "w"), indent=2)
PY
  "$BIN" merge --text "$T/cut1.json" "$T/cut2.json" > "$T/m.txt" 2> "$T/err"; rc=$?
  [ $rc = 2 ] && [ ! -s "$T/m.txt" ] && grep -q "^pcap-replay: merge: $T/cut[12].json: .*${cut##*/}: missing" "$T/err" \
    || { cat "$T/err"; fail "merge --text of a document without $cut: exit $rc, $(wc -c < "$T/m.txt") bytes written"; }
done
echo "ok: merge --text refuses a document without a value the text needs, naming it: $(cat "$T/err")"

# merge --html N ARGS... : shards 1..N of `check --json --timeline ARGS`
# merged with --html: the page of one `check --html ARGS`, byte for byte (its
# pictures drawn from the timelines the documents carry), the document of one
# `check --json --timeline ARGS`, and its exit status.
merged_html() {
  local n=$1; shift
  "$BIN" check --html "$T/one.html" "$@" > /dev/null 2>&1; local rc1=$?
  "$BIN" check --json --timeline "$@" > "$T/one.json" 2> /dev/null
  local docs=()
  for k in $(seq "$n" -1 1); do
    "$BIN" check --json --timeline --shard "$k/$n" "$@" > "$T/h$k.json" 2> /dev/null
    docs+=("$T/h$k.json")
  done
  rm -f "$T/m.html"
  "$BIN" merge --html "$T/m.html" "${docs[@]}" > "$T/m.json" 2> "$T/m.err"; local rc2=$?
  cmp -s "$T/one.html" "$T/m.html" || { diff "$T/one.html" "$T/m.html" | head -20; cat "$T/m.err"; fail "merge --html of $n shards of check $* differs from the page of one run"; }
  cmp -s "$T/one.json" "$T/m.json" || fail "merge --html of $n shards of check --json --timeline $*: not one run's document"
  [ "$rc1" = "$rc2" ] || fail "merge --html of $n shards of check $*: exit status $rc2, one run $rc1"
  echo "ok: merge --html of $n shards of check $* is its page ($(grep -c '<svg' "$T/one.html") picture(s), exit $rc1)"
}
merged_html 3 --profile linux tests/captures/linux-blackhole.pcap
merged_html 3 --profile rfc6298 tests/captures/lab/many-flows.pcap
merged_html 3 --profile linux tests/captures/lab/spurious-rto-eifel.pcap tests/captures/lab/capture-dup.pcap
merged_html 2 --profile auto tests/captures/lab/capture-dup.pcap
merged_html 2 --profile linux "$T/many.pcap"
grep -q '<svg' "$T/m.html" || fail "merge --html: a page without pictures"
# Refused before anything is written, naming the document: shards without
# --timeline (no picture could be drawn), shards with a selection (the page
# counts and draws every connection and finding), a sender's timeline cut.
for k in 1 2; do "$BIN" check --json --profile linux --shard "$k/2" tests/captures/linux-blackhole.pcap > "$T/n$k.json" 2> /dev/null; done
"$BIN" merge --html "$T/m.html" "$T/n1.json" "$T/n2.json" > "$T/m.json" 2> "$T/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$T/m.json" ] && grep -q "n[12].json: written without --timeline" "$T/err" \
  || { cat "$T/err"; fail "merge --html of shards without --timeline: exit $rc"; }
for k in 1 2; do "$BIN" check --json --timeline --level must --profile linux --shard "$k/2" tests/captures/linux-blackhole.pcap > "$T/n$k.json" 2> /dev/null; done
"$BIN" merge --html "$T/m.html" "$T/n1.json" "$T/n2.json" > "$T/m.json" 2> "$T/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$T/m.json" ] && grep -q "selection: a selection" "$T/err" \
  || { cat "$T/err"; fail "merge --html of shards run with --level must: exit $rc"; }
for k in 1 2; do "$BIN" check --json --timeline --profile linux --shard "$k/2" tests/captures/linux-blackhole.pcap > "$T/n$k.json" 2> /dev/null; done
/usr/bin/python3 - "$T/n1.json" "$T/n2.json" <<'PY'
import json, sys
for name in sys.argv[1:]:
    d = json.load(open(name))
    for f in d["flows"]:
        for s in f["senders"]:
            s.pop("timeline", None)
    json.dump(d, open(name, "w"), indent=2)
PY
"$BIN" merge --html "$T/m.html" "$T/n1.json" "$T/n2.json" > "$T/m.json" 2> "$T/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$T/m.json" ] && grep -q 'sender has no "timeline"' "$T/err" \
  || { cat "$T/err"; fail "merge --html of a document without a sender's timeline: exit $rc"; }
stripped=$(cat "$T/err")
# A shard whose entries do not add up to its own summary (an INFO finding
# more counted): refused, naming that shard's document and the count.
F=tests/captures/lab/many-flows.pcap
for k in 1 2; do "$BIN" check --json --timeline --profile rfc6298 --shard "$k/2" "$F" > "$T/f$k.json" 2> /dev/null; done
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["summary"]["info"]+=1; json.dump(d,open(sys.argv[2],"w"))' \
  "$T/f2.json" "$T/g2.json"
"$BIN" merge --html "$T/m.html" "$T/f1.json" "$T/g2.json" > "$T/m.json" 2> "$T/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$T/m.json" ] && grep -q "g2.json: its connections have .* INFO finding(s) where its summary.info counts" "$T/err" \
  || { cat "$T/err"; fail "merge --html of a shard whose entries do not add up: exit $rc"; }
"$BIN" check --timeline tests/captures/linux-blackhole.pcap > /dev/null 2> "$T/err" && fail "check --timeline without --json"
grep -q 'give --json' "$T/err" || fail "check --timeline without --json: $(cat "$T/err")"
echo "ok: merge --html refuses shards without --timeline, with a selection, with a sender's timeline stripped ($stripped), or not adding up to their summary"
# The page's file: one that cannot be written is said before anything goes
# to standard output; one of the documents (by name or as standard input)
# or standard output is refused; a failed write (/dev/full) is exit 2; an
# old page stays as it was when the merge is refused, and is replaced when
# it is written; /dev/null takes a page.
for k in 1 2; do "$BIN" check --json --timeline --profile linux --shard "$k/2" tests/captures/linux-blackhole.pcap > "$T/n$k.json" 2> /dev/null; done
"$BIN" merge --html "$T/no-dir/p.html" "$T/n1.json" "$T/n2.json" > "$T/m.json" 2> "$T/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$T/m.json" ] && grep -q "no-dir/p.html: cannot write the file: No such file or directory" "$T/err" \
  || { cat "$T/err"; fail "merge --html into a missing directory: exit $rc, $(wc -c < "$T/m.json") bytes written"; }
cp "$T/n1.json" "$T/n1.keep"
"$BIN" merge --html "$T/n1.json" "$T/n1.json" "$T/n2.json" > "$T/m.json" 2> "$T/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$T/m.json" ] && cmp -s "$T/n1.json" "$T/n1.keep" && grep -q "one of the files read" "$T/err" \
  || { cat "$T/err"; fail "merge --html over one of its documents: exit $rc"; }
"$BIN" merge --html "$T/n1.json" "$T/n2.json" - < "$T/n1.json" > "$T/m.json" 2> "$T/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$T/m.json" ] && cmp -s "$T/n1.json" "$T/n1.keep" && grep -q "one of the files read" "$T/err" \
  || { cat "$T/err"; fail "merge --html over the document it reads as standard input: exit $rc"; }
"$BIN" merge --html "$T/m.json" "$T/n1.json" "$T/n2.json" > "$T/m.json" 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "it is the standard output" "$T/err" || { cat "$T/err"; fail "merge --html onto its standard output: exit $rc"; }
"$BIN" merge --html "" "$T/n1.json" "$T/n2.json" > "$T/m.json" 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q -- "--html: no file name given" "$T/err" || { cat "$T/err"; fail "merge --html '': exit $rc"; }
"$BIN" merge --html /dev/full "$T/n1.json" "$T/n2.json" > "$T/m.json" 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "/dev/full: writing the file failed" "$T/err" || { cat "$T/err"; fail "merge --html /dev/full: exit $rc"; }
echo old > "$T/page.html"
"$BIN" merge --html "$T/page.html" "$T/n1.json" "$T/f2.json" > /dev/null 2>&1 && fail "merge --html of shards of two runs"
[ "$(cat "$T/page.html")" = old ] || fail "merge --html refused, yet the old page changed"
"$BIN" merge --html "$T/page.html" "$T/n1.json" "$T/n2.json" > /dev/null 2>&1 || fail "merge --html over an old page"
grep -q '<svg' "$T/page.html" || fail "merge --html: the page not written over the old one"
"$BIN" merge --html /dev/null "$T/n1.json" "$T/n2.json" > /dev/null 2> "$T/err" || { cat "$T/err"; fail "merge --html /dev/null"; }
# No input usable: no page (as check --html, text or JSON).
printf 'not a capture\n' > "$T/junk.pcap"
"$BIN" check --json --timeline --shard 1/1 "$T/junk.pcap" > "$T/j.json" 2> /dev/null
"$BIN" merge --html "$T/j.html" "$T/j.json" > /dev/null 2>&1; rc=$?
[ $rc = 2 ] && [ ! -e "$T/j.html" ] || fail "merge --html of an unusable input: exit $rc, page $(ls "$T/j.html" 2>&1)"
"$BIN" check --json --html "$T/j2.html" "$T/junk.pcap" > /dev/null 2>&1; rc=$?
[ $rc = 2 ] && [ ! -e "$T/j2.html" ] || fail "check --json --html of an unusable input: exit $rc, page $(ls "$T/j2.html" 2>&1)"
echo "ok: merge --html's file: said before the report, never a document (standard input's too) or standard output, no page without a usable input, an old one kept when refused"

# -j N: the shards in threads; every output byte for byte -j 1's.
for f in tests/captures/linux-blackhole.pcap tests/captures/lab/many-flows.pcap tests/captures/lab/capture-dup.pcap "$T/many.pcap"; do
  for cmd in "check --profile rfc6298" "check --json --profile linux" "check --json --timeline --profile linux" "findings --profile rfc6298" \
             "timeline --profile linux" "check --profile auto" "check --profile linux --max-outstanding 3"; do
    # shellcheck disable=SC2086
    "$BIN" $cmd -j 1 "$f" > "$T/j1" 2> "$T/j1.err"; r1=$?
    for j in 2 3; do
      # shellcheck disable=SC2086
      "$BIN" $cmd -j $j "$f" > "$T/jn" 2> "$T/jn.err"; rn=$?
      cmp -s "$T/j1" "$T/jn" && cmp -s "$T/j1.err" "$T/jn.err" && [ $r1 = $rn ] || fail "$cmd -j $j $f differs from -j 1"
    done
  done
  "$BIN" check --profile rfc6298 -j 1 --html "$T/h1.html" "$f" > /dev/null 2>&1
  "$BIN" check --profile rfc6298 -j 2 --html "$T/h2.html" "$f" > /dev/null 2>&1
  cmp -s "$T/h1.html" "$T/h2.html" || fail "check --html -j 2 $f differs from -j 1"
  "$BIN" annotate -j 1 -o "$T/a1.pcapng" "$f" > /dev/null 2>&1
  "$BIN" annotate -j 2 -o "$T/a2.pcapng" "$f" > /dev/null 2>&1
  cmp -s "$T/a1.pcapng" "$T/a2.pcapng" || fail "annotate -j 2 $f differs from -j 1"
  echo "ok: -j 2 and -j 3 write what -j 1 writes (check, --json, findings, timeline, auto, limits, --html, annotate): $f"
done

# Refusals, each with exit status 2 and the reason.
refused() {  # refused WHAT PATTERN DOCS...
  local what=$1 pattern=$2; shift 2
  "$BIN" merge "$@" > /dev/null 2> "$T/err"; local rc=$?
  [ $rc = 2 ] || fail "merge of $what: exit status $rc, not 2"
  grep -q -- "$pattern" "$T/err" || { cat "$T/err"; fail "merge of $what: no \"$pattern\""; }
  echo "ok: merge refuses $what: $(cat "$T/err")"
}
f=tests/captures/linux-blackhole.pcap
for k in 1 2 3; do "$BIN" check --json --shard "$k/3" "$f" > "$T/a$k.json" 2> /dev/null; done
"$BIN" check --json --profile linux --shard 2/3 "$f" > "$T/b2.json" 2> /dev/null
"$BIN" check --json "$f" > "$T/whole.json" 2> /dev/null
refused "a missing shard" "1 shard(s) of 3 missing (2)" "$T/a1.json" "$T/a3.json"
refused "a shard given twice" "given twice" "$T/a1.json" "$T/a1.json" "$T/a2.json" "$T/a3.json"
refused "shards of two runs" "not shards of one run" "$T/a1.json" "$T/b2.json" "$T/a3.json"
refused "a document without --shard" "no \"shard\" object" "$T/whole.json"
echo '{"tool": "pcap-replay", "kind": "check"' > "$T/cut.json"
refused "a truncated document" "not a JSON document" "$T/cut.json"
refused "a directory" "cannot read the file" /
# Options the document does not show (shard.run): --max-flows, --strict.
"$BIN" check --json --max-flows 10 --shard 2/3 "$f" > "$T/c2.json" 2> /dev/null
refused "shards run with another --max-flows" "their \"shard.run\" differs" "$T/a1.json" "$T/c2.json" "$T/a3.json"
# Hand-edited: a connection moved to another shard's document, counts gone.
g=tests/captures/lab/many-flows.pcap
for k in 1 2; do "$BIN" check --json --profile linux --shard "$k/2" "$g" > "$T/g$k.json" 2> /dev/null; done
/usr/bin/python3 - "$T/g1.json" "$T/g2.json" "$T/moved.json" "$T/nosum.json" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
a["flows"].append(b["flows"][0])
json.dump(a, open(sys.argv[3], "w"))
del b["inputs"][0]["summary"]
json.dump(b, open(sys.argv[4], "w"))
PY
refused "a connection in another shard's document" "is not shard 1/2's" "$T/moved.json" "$T/g2.json"
refused "a document without its input's counts" "inputs\[0\].summary is not an object" "$T/g1.json" "$T/nosum.json"
# One shard of one: the run itself.
"$BIN" check --json --shard 1/1 "$g" > "$T/one1.json" 2> /dev/null
"$BIN" merge "$T/one1.json" > "$T/m11.json"; r11=$?
"$BIN" check --json "$g" > "$T/c11.json" 2> /dev/null; c11=$?
cmp -s "$T/m11.json" "$T/c11.json" && [ $r11 = $c11 ] || fail "merge of shard 1/1 is not the run's document"
echo "ok: merge of shard 1/1 is the run's document"
# Documents read as they come, not held: one from standard input, one
# reformatted (compact, as Python writes it) give the same bytes; connections
# out of order, or an entry that is not an object, are refused.
for k in 1 2; do "$BIN" check --json --profile linux --shard "$k/2" "$g" > "$T/g$k.json" 2> /dev/null; done
"$BIN" check --json --profile linux "$g" > "$T/g.json" 2> /dev/null
"$BIN" merge "$T/g1.json" - < "$T/g2.json" > "$T/gm.json" || fail "merge with standard input"
cmp -s "$T/gm.json" "$T/g.json" || fail "merge with a document on standard input differs from one run"
/usr/bin/python3 - "$T/g1.json" "$T/compact.json" "$T/swapped.json" "$T/scalar.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
json.dump(a, open(sys.argv[2], "w"), separators=(",", ":"))
b = json.loads(json.dumps(a))
b["flows"][0], b["flows"][1] = b["flows"][1], b["flows"][0]
json.dump(b, open(sys.argv[3], "w"))
a["flows"].insert(0, 7)
json.dump(a, open(sys.argv[4], "w"), indent=1)
PY
"$BIN" merge "$T/compact.json" "$T/g2.json" > "$T/gm.json" || fail "merge of a compact document"
cmp -s "$T/gm.json" "$T/g.json" || fail "merge of a reformatted document differs from one run"
echo "ok: merge reads a document on standard input and one reformatted (compact JSON): the run's bytes"
# No connection in any shard (an unusable input): the document of one run.
printf 'not a capture\n' > "$T/junk.pcap"
"$BIN" check --json "$T/junk.pcap" > "$T/j.json" 2> /dev/null; rj=$?
for k in 1 2; do "$BIN" check --json --shard "$k/2" "$T/junk.pcap" > "$T/j$k.json" 2> /dev/null; done
"$BIN" merge "$T/j1.json" "$T/j2.json" > "$T/jm.json" 2> /dev/null; rm_=$?
cmp -s "$T/jm.json" "$T/j.json" && [ "$rj" = "$rm_" ] || fail "merge of shards without a connection differs from one run"
echo "ok: merge of shards without a connection (unusable input, exit $rj): the run's document"
refused "connections out of id order" "a shard's connections are in id order" "$T/swapped.json" "$T/g2.json"
refused "a flows entry that is not an object" "a \"flows\" entry that is not an object" "$T/scalar.json" "$T/g2.json"
# Edits the scan must not pass over: the "flows" key written with an escape
# (its entries would be missed), junk or a missing comma between entries,
# an entry removed (fewer than the summary counts).
sed '0,/^  "flows": \[/s//  "fl\\u006fws": [/' "$T/g1.json" > "$T/escaped.json"
refused "a \"flows\" key written with an escape" "written with escapes" "$T/escaped.json" "$T/g2.json"
sed '/^  "flows": \[/,/^  \]/s/^    },$/    } : ,,/' "$T/g1.json" > "$T/junk.json"
refused "junk between entries" "not an object" "$T/junk.json" "$T/g2.json"
sed '/^  "flows": \[/,/^  \]/s/^    },$/    }/' "$T/g1.json" > "$T/nocomma.json"
refused "entries without a comma" "without a comma between them" "$T/nocomma.json" "$T/g2.json"
/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["flows"].pop(); json.dump(d, open(sys.argv[2], "w"), indent=2)' "$T/g1.json" "$T/short.json"
refused "a document with an entry removed" "in \"flows\" where its summary counts" "$T/short.json" "$T/g2.json"
# A connection swapped for one the run does not have (the count kept), and
# a second "flows" key written with escapes (another reader's array).
/usr/bin/python3 - "$T/g1.json" "$T/g2.json" "$T/swap.json" "$T/twokeys.json" <<'PY'
import json, sys
M = (1 << 64) - 1
def shard_of(i, n):  # Options::shard_of: SplitMix64 of the id, mod n, from 1
    z = (i + 0x9e3779b97f4a7c15) & M
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    return (z ^ (z >> 31)) % n + 1
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
total = a["summary"]["flows"] + b["summary"]["flows"]
e = a["flows"].pop()
e["flow"] = next(i for i in range(total + 1, 10**6) if shard_of(i, 2) == 1)
a["flows"].append(e)
json.dump(a, open(sys.argv[3], "w"), indent=2)
text = open(sys.argv[1]).read().replace('\n  "flows": [', '\n  "fl\\u006fws": [],\n  "flows": [', 1)
open(sys.argv[4], "w").write(text)
PY
refused "a connection the run does not have" "where the run has" "$T/swap.json" "$T/g2.json"
refused "two \"flows\" keys" "two \"flows\" keys" "$T/twokeys.json" "$T/g2.json"
# A stream that is no document stops at its first byte (it is not copied
# to the end: /dev/zero has none); standard output closed is said at once.
timeout 20 "$BIN" merge /dev/zero "$T/g2.json" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "its top level is not an object" "$T/err" || fail "merge of /dev/zero: exit $rc, $(cat "$T/err")"
"$BIN" merge - "$T/g2.json" < "$T/g1.json" >&- 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "standard output failed: Bad file descriptor" "$T/err" || fail "merge with stdout closed: exit $rc, $(cat "$T/err")"
echo "ok: merge refuses /dev/zero at its first byte, and says when standard output is closed"
# Pipes are copied (a document is read more than once): <(...), /dev/stdin.
"$BIN" merge <(cat "$T/g1.json") "$T/g2.json" > "$T/gm.json" && cmp -s "$T/gm.json" "$T/g.json" || fail "merge of a pipe"
"$BIN" merge /dev/stdin "$T/g2.json" < "$T/g1.json" > "$T/gm.json" && cmp -s "$T/gm.json" "$T/g.json" || fail "merge of /dev/stdin"
echo "ok: merge reads pipes (<(...), /dev/stdin): the run's bytes"
# More shards than descriptors it may keep open (ulimit -n 40, 60 shards):
# each document opened again for each entry.
docs=()
for k in $(seq 1 60); do "$BIN" check --json --profile linux --shard "$k/60" "$g" > "$T/n$k.json" 2> /dev/null; docs+=("$T/n$k.json"); done
(ulimit -n 40; "$BIN" merge "${docs[@]}") > "$T/nm.json" || fail "merge of 60 shards under ulimit -n 40"
cmp -s "$T/nm.json" "$T/g.json" || fail "merge of 60 shards under ulimit -n 40 differs from one run"
echo "ok: merge of 60 shards with 40 descriptors: the run's bytes"
# Memory: the documents are streamed. 20 000 one-SYN connections make
# documents of about 54 MB (2.7 KB a connection); holding them parsed took
# about 9 times their size (2.5 GB for 270 MB), streaming about 7 MB.
"$GEN" "$T/syn.pcap" --flows 20000 --packets 160000 --syn-only --seed 5 > /dev/null || fail "replay-gen --syn-only"
for k in 1 2; do "$BIN" check --json --shard "$k/2" "$T/syn.pcap" > "$T/y$k.json" 2> /dev/null; done
"$BIN" check --json "$T/syn.pcap" > "$T/y.json" 2> /dev/null
docs_kib=$(( ($(stat -c %s "$T/y1.json") + $(stat -c %s "$T/y2.json")) / 1024 ))
/usr/bin/time -o "$T/time" -f '%M' "$BIN" merge "$T/y2.json" "$T/y1.json" > "$T/ym.json" || fail "merge of the one-SYN shards"
cmp -s "$T/ym.json" "$T/y.json" || fail "merge of the one-SYN shards differs from one run"
rss_kib=$(tail -1 "$T/time")
# SAN=1: AddressSanitizer's quarantine keeps freed memory resident (548 MB
# here), so only the normal build's memory says whether merge streams.
if [ "${SAN:-0}" = 1 ]; then
  echo "ok: merge of $docs_kib KiB of shard documents, the run's bytes (memory not checked under SAN=1: $rss_kib KiB)"
else
  [ "$rss_kib" -lt $((docs_kib / 4)) ] || fail "merge of $docs_kib KiB of documents took $rss_kib KiB (not streamed?)"
  echo "ok: merge of $docs_kib KiB of shard documents in $rss_kib KiB of memory, the run's bytes"
fi
# The text from them streams too: one connection at a time.
"$BIN" check "$T/syn.pcap" > "$T/y.txt" 2> /dev/null
/usr/bin/time -o "$T/time" -f '%M' "$BIN" merge --text "$T/y2.json" "$T/y1.json" > "$T/ym.txt" || fail "merge --text of the one-SYN shards"
cmp -s "$T/ym.txt" "$T/y.txt" || fail "merge --text of the one-SYN shards differs from one run's text"
rss_kib=$(tail -1 "$T/time")
if [ "${SAN:-0}" = 1 ]; then
  echo "ok: merge --text of $docs_kib KiB of shard documents, the run's text (memory not checked under SAN=1)"
else
  [ "$rss_kib" -lt $((docs_kib / 4)) ] || fail "merge --text of $docs_kib KiB of documents took $rss_kib KiB (not streamed?)"
  echo "ok: merge --text of $docs_kib KiB of shard documents in $rss_kib KiB of memory, the run's text"
fi
"$BIN" check --shard 1/2 "$f" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q -- "--shard writes a check --json document" "$T/err" || fail "--shard without --json: exit $rc"
for bad in 0/2 3/2 2 a/b 1/0 1/2x "" 1/65537; do
  "$BIN" check --json --shard "$bad" "$f" > /dev/null 2> "$T/err"; rc=$?
  [ $rc = 2 ] && grep -q -- "--shard" "$T/err" || fail "--shard $bad: exit $rc, $(cat "$T/err")"
done
echo "ok: --shard refuses 0/2 3/2 2 a/b 1/0 1/2x, empty, 1/65537, and a shard without --json"
# -j on a pipe: read once, by one thread.
"$BIN" check --profile linux -j 2 <(cat "$g") > "$T/pipe2" 2>&1; r2=$?
"$BIN" check --profile linux -j 1 "$g" > "$T/file1" 2>&1; r1=$?
cmp -s <(sed 's|/dev/fd/[0-9]*|IN|g' "$T/pipe2") <(sed "s|$g|IN|g" "$T/file1") && [ $r1 = $r2 ] || fail "-j 2 on a pipe differs from -j 1 on the file"
echo "ok: -j 2 reads a pipe on one thread"
