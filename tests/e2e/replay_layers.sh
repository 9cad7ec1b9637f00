#!/usr/bin/env bash
# pcap-replay's rooms as layers: input -> analysis -> pipeline -> report and
# plot -> cli. A file of a room includes only headers of its own room or of
# rooms below it (report and plot, one level, may include each other), and
# every public header is in its room's folder (include/replay/<room>/).
# Checked on the tree, then on a copy with one include against the
# direction, which must be caught (the check can fail).
# Exit 0 pass, 1 fail.
set -u
cd "$(dirname "$0")/../.." || exit 1

check() {  # $1: the root of a tree; prints each violation, exit 1 if any
  python3 -B - "$1" <<'PY'
import os, re, sys
root = sys.argv[1]
rank = {"input": 0, "analysis": 1, "pipeline": 2, "report": 3, "plot": 3, "cli": 4}
bad = 0
inc = os.path.join(root, "pcap-replay/include/replay")
for f in sorted(os.listdir(inc)):
    if os.path.isfile(os.path.join(inc, f)):
        print(f"pcap-replay/include/replay/{f}: a public header outside the rooms"); bad += 1
    elif f not in rank:
        print(f"pcap-replay/include/replay/{f}/: no such room ({', '.join(rank)})"); bad += 1
def room_of(rel):
    p = rel.split("/")
    if p[:3] == ["pcap-replay", "include", "replay"]: return p[3]
    if p[:2] == ["pcap-replay", "src"]: return p[2]
    if p[:2] == ["pcap-replay", "cli"]: return "cli"
    return None
pat = re.compile(r'^\s*#\s*include\s*[<"](?:replay/)?([a-z_]+)/[^>"]+[>"]')
for base in ("pcap-replay/include/replay", "pcap-replay/src", "pcap-replay/cli"):
    for d, _, files in os.walk(os.path.join(root, base)):
        for name in sorted(files):
            if not name.endswith((".hpp", ".cpp", ".h")): continue
            rel = os.path.relpath(os.path.join(d, name), root)
            room = room_of(rel)
            if room not in rank: continue
            for n, line in enumerate(open(os.path.join(d, name), encoding="utf-8"), 1):
                m = pat.match(line)
                if not m or m.group(1) not in rank: continue
                if rank[m.group(1)] > rank[room]:
                    print(f"{rel}:{n}: {room} includes {m.group(1)} (above it): {line.strip()}"); bad += 1
sys.exit(1 if bad else 0)
PY
}

fail=0
if check .; then echo "ok: pcap-replay's includes follow input -> analysis -> pipeline -> report, plot -> cli"
else echo "FAIL: includes against the direction (above)"; fail=1; fi

# The check can fail: an input header that includes the report, and a
# header left in the flat folder.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/pcap-replay"
cp -r pcap-replay/include pcap-replay/src pcap-replay/cli "$tmp/pcap-replay/"
sed -i '0,/^#include/s//#include <replay\/report\/report_text.hpp>\n#include/' "$tmp/pcap-replay/include/replay/input/segment.hpp"
touch "$tmp/pcap-replay/include/replay/flat.hpp"
out=$(check "$tmp")
if grep -q "input/segment.hpp:.*input includes report" <<<"$out" && grep -q "replay/flat.hpp: a public header outside" <<<"$out"; then
  echo "ok: an input header including the report, and a header outside the rooms, are caught"
else
  printf '%s\n' "$out"; echo "FAIL: the layer check missed a planted violation"; fail=1
fi
exit $fail
