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
    if p[:3] == ["pcap-replay", "include", "replay"] and len(p) > 4: return p[3]
    if p[:2] == ["pcap-replay", "src"] and len(p) > 3: return p[2]
    if p[:2] == ["pcap-replay", "cli"]: return "cli"
    return None
inc_re = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
for base in ("pcap-replay/include/replay", "pcap-replay/src", "pcap-replay/cli"):
    for d, _, files in os.walk(os.path.join(root, base)):
        for name in sorted(files):
            full = os.path.join(d, name)
            rel = os.path.relpath(full, root)
            room = room_of(rel)
            if room not in rank:
                print(f"{rel}: outside the rooms ({', '.join(rank)})"); bad += 1; continue
            for n, line in enumerate(open(full, encoding="utf-8", errors="replace"), 1):
                m = inc_re.match(line)
                if not m: continue
                target = None
                if m.group(2).startswith("replay/"):  # <replay/ROOM/...>: the public headers
                    target = "pcap-replay/include/" + m.group(2)
                elif m.group(1) == '"':
                    # "x.hpp" / "../x.hpp": next to the file, else under src/ (-Ipcap-replay/src)
                    here = os.path.normpath(os.path.join(os.path.dirname(rel), m.group(2)))
                    there = os.path.normpath(os.path.join("pcap-replay/src", m.group(2)))
                    target = here if os.path.exists(os.path.join(root, here)) else there
                if target is None: continue
                to = room_of(target)
                if to is None and target.startswith("pcap-replay/"):
                    print(f"{rel}:{n}: includes {target}, outside the rooms"); bad += 1; continue
                if to in rank and rank[to] > rank[room]:
                    print(f"{rel}:{n}: {room} includes {to} (above it): {line.strip()}"); bad += 1
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
sed -i '0,/^#include/s//#include "..\/report\/report_text.hpp"\n#include/' "$tmp/pcap-replay/include/replay/input/diagnostic.hpp"
sed -i '0,/^#include/s//#include "report\/lockstep_report.hpp"\n#include/' "$tmp/pcap-replay/src/input/bpf_filter.cpp"
touch "$tmp/pcap-replay/include/replay/flat.hpp" "$tmp/pcap-replay/src/stray.cpp"
out=$(check "$tmp")
if grep -q "input/segment.hpp:.*input includes report" <<<"$out" && grep -q "input/diagnostic.hpp:.*input includes report" <<<"$out" \
   && grep -q "input/bpf_filter.cpp:.*input includes report" <<<"$out" && grep -q "replay/flat.hpp: a public header outside" <<<"$out" \
   && grep -q "src/stray.cpp: outside the rooms" <<<"$out"; then
  echo "ok: planted violations are caught (<replay/...>, \"../...\", \"room/...\" includes; files outside the rooms)"
else
  printf '%s\n' "$out"; echo "FAIL: the layer check missed a planted violation"; fail=1
fi
exit $fail
