#!/usr/bin/env bash
# End-to-end checks of the pictures: `pcap-replay plot --svg DIR` and
# `check --html FILE` on the shipped capture, the lab captures and the
# shared Linux traces. Every SVG must render with rsvg-convert (Debian
# librsvg2-bin), and what it holds must match `check --json` of the same
# capture: one expiry marker per timeout, one mark per retransmission of each
# kind, one marker per finding. Exit 0 pass, 77 skip (no binary, or no
# rsvg-convert outside CI), 1 fail.
set -u
BUILD=${BUILD:-build}
BIN="$BUILD/bin/pcap-replay"
[ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 77; }
if ! command -v rsvg-convert >/dev/null 2>&1; then
  [ "${CI:-}" = true ] && { echo "FAIL: rsvg-convert (librsvg2-bin) missing under CI=true"; exit 1; }
  echo "skip: rsvg-convert not installed (apt-get install librsvg2-bin)"; exit 77
fi
tmp=$(mktemp -d /tmp/pcap_replay_pictures.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
captures=(tests/captures/linux-blackhole.pcap tests/captures/lab/*.pcap)
for f in ../shared/traces/linux/*.pcap; do [ -f "$f" ] && captures+=("$f"); done
for cap in "${captures[@]}"; do
  name=$(basename "$cap" .pcap)
  d="$tmp/$name"
  "$BIN" check --json "$cap" >"$tmp/$name.json"; st_json=$?
  "$BIN" check --html "$tmp/$name.html" "$cap" >"$tmp/$name.txt"; st_html=$?
  if [ "$st_json" -ne "$st_html" ] || [ "$st_json" -gt 1 ]; then
    echo "FAIL: $name: check --html exit $st_html, check --json $st_json"; fail=1; continue
  fi
  [ -s "$tmp/$name.html" ] || { echo "FAIL: $name: no HTML written"; fail=1; }
  if ! "$BIN" plot --svg "$d" "$cap" >"$tmp/$name.list"; then echo "FAIL: $name: plot --svg"; fail=1; continue; fi
  while read -r svg; do
    rsvg-convert -o "$svg.png" "$svg" 2>"$tmp/rsvg.err" || { echo "FAIL: rsvg-convert $svg: $(head -2 "$tmp/rsvg.err")"; fail=1; }
  done <"$tmp/$name.list"
  python3 - "$tmp/$name.json" "$d" "$tmp/$name.html" <<'PY' || fail=1
import json, os, re, sys, xml.etree.ElementTree as ET
doc = json.load(open(sys.argv[1])); d = sys.argv[2]; page = open(sys.argv[3]).read()
senders = [dict(s, flow=c["flow"]) for c in doc["flows"] for s in c["senders"]]  # schema 3: senders inside connections
bad = 0
def count(svg, cls, kind=None):
    pat = r'class="%s"' % cls + (r' data-kind="%s"' % kind if kind else '')
    return len(re.findall(pat, svg))
for s in senders:
    if s["data_segments"] == 0: continue
    path = os.path.join(d, "flow-%d-%s.svg" % (s["flow"], "c2s" if s["direction"] == "client->server" else "s2c"))
    if not os.path.exists(path): print("FAIL: missing", path); bad = 1; continue
    svg = open(path).read()
    ET.fromstring(svg.encode())  # well-formed XML
    png = path + ".png"
    if not (os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"): print("FAIL: no PNG for", path); bad = 1
    want = {"expiry": len(s["timeouts"]), "finding": len(s["findings"]), "wait": len(s["timeouts"])}
    got = {k: count(svg, k) for k in want}
    for kind, n in s["retransmissions"].items():
        want["tx:" + kind] = n; got["tx:" + kind] = count(svg, "tx", kind)
    want["expiry:rto"] = sum(1 for t in s["timeouts"] if not t["syn"]); got["expiry:rto"] = count(svg, "expiry", "rto")
    if "decimated:" in svg:  # long series thinned (the note says which): the repeats are compared only whole
        print("note:", os.path.basename(path), "is decimated; retransmissions by kind not compared")
        want = {k: v for k, v in want.items() if not k.startswith("tx:")}
    diff = {k: (want[k], got[k]) for k in want if want[k] != got[k]}
    if diff: print("FAIL:", path, "JSON vs SVG (want, got):", diff); bad = 1
timeouts = sum(len(s["timeouts"]) for s in senders)
if "src=" in page or "<link" in page: print("FAIL: the page references an external resource"); bad = 1
print("ok: %s: %d sender(s), %d expiry marker(s) match the JSON" % (os.path.basename(d), sum(1 for s in senders if s["data_segments"]), timeouts) if not bad else "")
sys.exit(bad)
PY
done
# Errors name the path: a directory that cannot be made.
touch "$tmp/not-a-dir"
"$BIN" plot --svg "$tmp/not-a-dir/x" tests/captures/linux-blackhole.pcap >/dev/null 2>"$tmp/err"; st=$?
if [ $st -ne 2 ] || ! grep -q "not-a-dir/x" "$tmp/err"; then echo "FAIL: plot --svg into a file: exit $st, $(cat "$tmp/err")"; fail=1; else echo "ok: plot --svg bad directory: exit 2, named"; fi
"$BIN" check --html "$tmp/not-a-dir/r.html" tests/captures/linux-blackhole.pcap >/dev/null 2>"$tmp/err"; st=$?
if [ $st -ne 2 ] || ! grep -q "not-a-dir/r.html" "$tmp/err"; then echo "FAIL: check --html unwritable: exit $st, $(cat "$tmp/err")"; fail=1; else echo "ok: check --html unwritable file: exit 2, named"; fi
# --flow, --stream and -Y choose the pictures plot writes too (many-flows: flow 4 is tcp.stream 3).
got=$("$BIN" plot --svg "$tmp/pick" --flow 3 tests/captures/lab/many-flows.pcap | xargs -n1 basename | tr '\n' ' ')
[ "$got" = "flow-3-c2s.svg flow-3-s2c.svg " ] && echo "ok: plot --flow 3 draws flow 3 only" || { echo "FAIL: plot --flow 3 wrote: $got"; fail=1; }
got=$("$BIN" plot --svg "$tmp/pick-y" -Y 'tcp.stream == 3' tests/captures/lab/many-flows.pcap | xargs -n1 basename | tr '\n' ' ')
[ "$got" = "flow-4-c2s.svg flow-4-s2c.svg " ] && echo "ok: plot -Y 'tcp.stream == 3' draws flow 4 only" || { echo "FAIL: plot -Y wrote: $got"; fail=1; }
exit $fail
