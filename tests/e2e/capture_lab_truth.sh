#!/usr/bin/env bash
# The capture lab's committed files (tests/captures/lab/, made by
# tests/capture/lab/run-all.sh) are usable by any checker: every NAME.pcap
# reads with tshark (as many frames as its truth.json says), every
# NAME.truth.json parses and has the contract's fields (see
# tests/captures/lab/README.md): scenario, kernel, sender, sysctls,
# nstat_delta, events, expected.timeouts and expected.loss_probes (integers,
# equal to the nstat deltas TcpExtTCPTimeouts / TcpExtTCPLossProbes), and the
# pcap is under 1 MB. Needs no root. Without tshark: skip (77), or fail
# under CI=true.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$HERE/../captures/lab
if ! command -v tshark >/dev/null; then
  if [ "${CI:-}" = true ]; then echo "FAIL: tshark missing under CI"; exit 1; fi
  echo "skip: no tshark"; exit 77
fi
shopt -s nullglob
truths=("$DIR"/*.truth.json)
[ ${#truths[@]} -gt 0 ] || { echo "FAIL: no truth.json in $DIR"; exit 1; }
bad=0
for t in "${truths[@]}"; do
  name=$(basename "$t" .truth.json)
  pcap=$DIR/$name.pcap
  if [ ! -r "$pcap" ]; then echo "FAIL: $name: no $name.pcap"; bad=1; continue; fi
  size=$(stat -c %s "$pcap")
  [ "$size" -lt 1048576 ] || { echo "FAIL: $name.pcap is $size bytes (>= 1 MB)"; bad=1; }
  frames=$(tshark -n -r "$pcap" -T fields -e frame.number 2>/dev/null | wc -l)
  if [ "${PIPESTATUS[0]}" -ne 0 ] || [ "$frames" -eq 0 ]; then echo "FAIL: tshark cannot read $name.pcap"; bad=1; continue; fi
  if ! msg=$(python3 - "$t" "$name" "$frames" <<'PY'
import json, sys
path, name, frames = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = json.load(open(path))
for k in ("scenario", "kernel", "sender", "sysctls", "nstat_delta", "expected", "events"):
    assert k in t, "missing key %s" % k
assert t["scenario"] == name, "scenario %r != file name %r" % (t["scenario"], name)
e = t["expected"]
for k in ("timeouts", "loss_probes", "syn_timeouts"):
    assert isinstance(e.get(k), int) and e[k] >= 0, "expected.%s is not a count" % k
n = t["nstat_delta"]
assert e["timeouts"] == n["TcpExtTCPTimeouts"], "expected.timeouts != nstat TcpExtTCPTimeouts"
assert e["loss_probes"] == n["TcpExtTCPLossProbes"], "expected.loss_probes != nstat TcpExtTCPLossProbes"
assert e["syn_timeouts"] == n["TcpExtTCPSynRetrans"], "expected.syn_timeouts != nstat TcpExtTCPSynRetrans"
assert all("t_wall" in ev and "event" in ev for ev in t["events"]), "event without t_wall/event"
pc = t.get("pcap_check", {})
assert pc.get("frames", frames) == frames, "truth says %s frames, tshark reads %d" % (pc.get("frames"), frames)
print("timeouts=%d loss_probes=%d syn_timeouts=%d frames=%d" % (e["timeouts"], e["loss_probes"], e["syn_timeouts"], frames))
PY
  ); then
    echo "FAIL: $name: $msg"; bad=1; continue
  fi
  echo "  ok $name: $msg"
done
[ $bad -eq 0 ] || exit 1
echo "capture lab: ${#truths[@]} captures ok"
