#!/usr/bin/env bash
# The HTML page's zoomed episode, as a browser shows it: chromium (headless)
# takes a screenshot of the zoomed picture the page holds for the lab's
# spurious-rto-eifel.pcap (its one short RTO episode), and the screenshot
# must show the episode: the expiry marker's red (#d62728) and the timer's
# arming blue (#1f5fbf) inside the plot area, and the zoomed axis label.
# Exit 0 pass, 77 skip (no binary; no chromium or python3-pil outside CI), 1 fail.
set -u
BUILD=${BUILD:-build}
BIN="$BUILD/bin/pcap-replay"
[ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 77; }
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ] || ! /usr/bin/python3 -c 'import PIL' 2> /dev/null; then
  [ "${CI:-}" = true ] && { echo "FAIL: chromium or python3-pil missing under CI=true (make deps installs them)"; exit 1; }
  echo "skip: chromium or python3-pil not installed"; exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$BIN" check --profile linux --html "$tmp/page.html" tests/captures/lab/spurious-rto-eifel.pcap > /dev/null
# The zoomed picture alone, as the page inlines it.
python3 - "$tmp" << 'PY' || { echo "FAIL: no zoomed picture on the page"; exit 1; }
import sys
d = sys.argv[1]
s = open(f"{d}/page.html").read()
i = s.index('<div class="graph zoom">')
j = s.index("<svg ", i)
k = s.index("</svg>", j) + 6
assert "data-zoom-t0=" in s[j:k]
open(f"{d}/zoom.html", "w").write('<!DOCTYPE html><html><body style="margin:0">' + s[j:k] + "</body></html>")
PY
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1120,664 \
  --screenshot="$tmp/zoom.png" "file://$tmp/zoom.html" > /dev/null 2>&1
[ -s "$tmp/zoom.png" ] || { echo "FAIL: chromium wrote no screenshot"; exit 1; }
/usr/bin/python3 - "$tmp/zoom.png" << 'PY'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
w, h = im.size
# The time-sequence plot area of the picture (sender_graph.cpp kSeqBox: x 80-880, y 58-418).
box = (80, 58, min(880, w), min(418, h))
def near(p, q, tol=40): return all(abs(a - b) <= tol for a, b in zip(p, q))
red = blue = 0
for x in range(box[0], box[2]):
    for y in range(box[1], box[3]):
        p = im.getpixel((x, y))
        red += near(p, (0xd6, 0x27, 0x28))
        blue += near(p, (0x1f, 0x5f, 0xbf))
print(f"screenshot {w}x{h}: {red} expiry-red and {blue} arming-blue pixels in the plot area")
sys.exit(0 if red >= 20 and blue >= 20 else 1)
PY
st=$?
[ $st -eq 0 ] && echo "ok: chromium shows the zoomed episode (expiry and arming drawn)" || echo "FAIL: the zoomed episode is not visible in chromium's screenshot"
exit $st
