#!/usr/bin/env bash
# Captures Linux SYN retransmissions in lockstep: many kernel clients
# connecting at the same moment to a blackholed port.
#
#   sudo bash tests/capture/lockstep-syn.sh [OUT_PREFIX]
#
# Default OUT_PREFIX: tests/captures/lockstep/lockstep-syn -> .pcap and .meta.json
#
# Topology (three network namespaces made here, named lockstep-PID-*, removed
# on every exit path; no traffic leaves them):
#
#   ns lockstep-PID-a  a0 198.18.0.1/24 --veth-- a1 \
#                                                    br0 198.18.0.2/24  ns lockstep-PID-srv
#   ns lockstep-PID-b  b0 198.18.0.3/24 --veth-- b1 /
#
# The server namespace drops every TCP segment to port 5001 (nftables,
# prerouting, priority raw) and answers nothing. At one wall-clock instant T0
# (tests/capture/lockstep_clients.py, both client namespaces wait for it):
#   - namespace a connects $COUNT_A sockets (200) back to back,
#   - namespace b connects $COUNT_B sockets (8) back to back,
#   - namespace b connects $COUNT_B2 more (16) at T0 + $LATE_S (0.5 s).
# The kernel retransmits each SYN on its own timer, with no jitter, so the
# first 208 connections retransmit together (one lockstep group across two
# client hosts) and the late 16 form a second group half a second out of
# phase. Each socket ends with ETIMEDOUT when tcp_syn_retries is exhausted.
# tcpdump runs in each client namespace (snaplen 96, "tcp port 5001"); the
# two files are merged by time. The truth is the kernel's own counter:
# nstat TcpExtTCPSynRetrans in each client namespace.
# Needs root, iproute2, nft, tcpdump, mergecap, nstat, python3.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$REPO/tests/captures/lockstep/lockstep-syn}
COUNT_A=${COUNT_A:-200}
COUNT_B=${COUNT_B:-8}
COUNT_B2=${COUNT_B2:-16}
LATE_S=${LATE_S:-0.5}
PORT=5001
NS=lockstep-$$
NSA=$NS-a
NSB=$NS-b
NSS=$NS-srv
SERVER=198.18.0.2
WORK=$(mktemp -d /tmp/lockstep.XXXXXX)
PIDS=()

cleanup() {
  local rc=$?
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for ns in "$NSA" "$NSB" "$NSS"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

[ "$(id -u)" -eq 0 ] || { echo "lockstep-syn.sh: needs root (network namespaces, nft)" >&2; exit 77; }
for t in ip nft tcpdump mergecap nstat python3 awk; do
  command -v "$t" >/dev/null || { echo "lockstep-syn.sh: missing tool: $t" >&2; exit 77; }
done

for ns in "$NSA" "$NSB" "$NSS"; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
ip -n "$NSS" link add br0 type bridge
ip -n "$NSS" addr add $SERVER/24 dev br0
ip -n "$NSS" link set br0 up
ip link add a0 netns "$NSA" type veth peer name a1 netns "$NSS"
ip link add b0 netns "$NSB" type veth peer name b1 netns "$NSS"
ip -n "$NSA" addr add 198.18.0.1/24 dev a0
ip -n "$NSB" addr add 198.18.0.3/24 dev b0
for l in a1 b1; do ip -n "$NSS" link set $l master br0; ip -n "$NSS" link set $l up; done
ip -n "$NSA" link set a0 up
ip -n "$NSB" link set b0 up

ip netns exec "$NSS" nft -f - <<NFT
table inet lockstep {
  counter blackhole_drops { }
  chain pre {
    type filter hook prerouting priority raw; policy accept;
    tcp dport $PORT counter name blackhole_drops drop
  }
}
NFT

# Permanent neighbour entries, so no SYN waits in the ARP queue (which
# holds only ~100 packets and would drop the rest of the burst).
MAC=$(ip -n "$NSS" -br link show br0 | awk '{print $3}')
ip -n "$NSA" neigh replace $SERVER lladdr "$MAC" dev a0 nud permanent
ip -n "$NSB" neigh replace $SERVER lladdr "$MAC" dev b0 nud permanent

for side in a b; do
  ns=$NS-$side
  ip netns exec "$ns" tcpdump -i ${side}0 -s 96 -U -w "$WORK/$side.pcap" "tcp port $PORT" 2>"$WORK/tcpdump-$side.err" &
  PIDS+=($!)
  for _ in $(seq 100); do grep -q "listening on" "$WORK/tcpdump-$side.err" 2>/dev/null && break; sleep 0.05; done
done

T0=$(python3 -c 'import time; print(f"{time.time() + 2.0:.6f}")')
T1=$(python3 -c "print(f'{$T0 + $LATE_S:.6f}')")
CL=$REPO/tests/capture/lockstep_clients.py
ip netns exec "$NSA" python3 "$CL" --to $SERVER --port $PORT --count "$COUNT_A" --start-at "$T0" --out "$WORK/a.json" &
CA=$!; PIDS+=($CA)
ip netns exec "$NSB" python3 "$CL" --to $SERVER --port $PORT --count "$COUNT_B" --start-at "$T0" --out "$WORK/b.json" &
CB=$!; PIDS+=($CB)
ip netns exec "$NSB" python3 "$CL" --to $SERVER --port $PORT --count "$COUNT_B2" --start-at "$T1" --out "$WORK/b2.json" &
CB2=$!; PIDS+=($CB2)
echo "lockstep-syn.sh: connecting at T0 = $T0 (a: $COUNT_A, b: $COUNT_B) and T0 + $LATE_S (b: $COUNT_B2); waiting for the kernel to give up"
wait $CA; wait $CB; wait $CB2
sleep 0.3
for i in 0 1; do kill -INT "${PIDS[$i]}" 2>/dev/null || true; wait "${PIDS[$i]}" 2>/dev/null || true; done
mergecap -F pcap -w "$WORK/cap.pcap" "$WORK/a.pcap" "$WORK/b.pcap"

synretrans() { ip netns exec "$1" nstat -asz TcpExtTCPSynRetrans | awk '$1 == "TcpExtTCPSynRetrans" {print $2}'; }
RA=$(synretrans "$NSA"); RB=$(synretrans "$NSB")
drops=$(ip netns exec "$NSS" nft list counter inet lockstep blackhole_drops | grep -oE 'packets [0-9]+' | cut -d' ' -f2)
sysctls=$(ip netns exec "$NSA" bash -c 'for k in tcp_syn_retries tcp_syn_linear_timeouts tcp_timestamps; do f=/proc/sys/net/ipv4/$k; [ -r $f ] && printf "%s\t%s\n" net.ipv4.$k "$(cat $f)"; done')

mkdir -p "$(dirname "$OUT")"
python3 - "$OUT.meta.json" "$WORK" "$RA" "$RB" "$drops" "$(uname -r)" "$sysctls" "$T0" "$T1" <<'PY'
import json, sys
out, work, ra, rb, drops, kernel, sysctls, t0, t1 = sys.argv[1:]
def load(n):
    with open(f"{work}/{n}.json") as f:
        return json.load(f)
a, b, b2 = load("a"), load("b"), load("b2")
def summary(d, host):
    return {"client": host, "sockets": d["count"], "start_at": d["start_at"],
            "first_connect": d["first_connect"], "last_connect": d["last_connect"],
            "results": sorted({s["result"] for s in d["sockets"]}),
            "failed_after_s": [round(min(s["end_at"] - s["connect_at"] for s in d["sockets"]), 3),
                               round(max(s["end_at"] - s["connect_at"] for s in d["sockets"]), 3)],
            "local_ports": [s["local_port"] for s in d["sockets"]]}
meta = {
    "scenario": "lockstep-syn",
    "made_by": "tests/capture/lockstep-syn.sh",
    "kernel": kernel,
    "description": ("Linux kernel clients in two namespaces connect at one instant to a server namespace that "
                    "drops every segment to port 5001 (nftables); the kernel's SYN retransmissions are not "
                    "jittered, so connections started together retransmit together until ETIMEDOUT."),
    "capture": {"point": "client namespaces a (a0) and b (b0), merged by time with mergecap",
                "tool": "tcpdump -i a0|b0 -s 96 tcp port 5001", "snaplen": 96},
    "topology": {"server": "198.18.0.2:5001", "clients": {"a": "198.18.0.1", "b": "198.18.0.3"},
                 "link": "veth pairs into a bridge in the server namespace, no added delay",
                 "server_filter": "nft inet prerouting priority raw: tcp dport 5001 drop"},
    "client_sysctls": dict(l.split("\t", 1) for l in sysctls.splitlines() if "\t" in l),
    "kernel_hz": 250,
    "attempts": [summary(a, "198.18.0.1"), summary(b, "198.18.0.3"), summary(b2, "198.18.0.3")],
    "truth": {
        "nstat_TcpExtTCPSynRetrans": {"a": int(ra), "b": int(rb)},
        "server_drops": int(drops),
        "first_syns": a["count"] + b["count"] + b2["count"],
        "lockstep_groups": [
            {"members": a["count"] + b["count"], "clients": ["198.18.0.1", "198.18.0.3"], "start_at": float(t0)},
            {"members": b2["count"], "clients": ["198.18.0.3"], "start_at": float(t1)},
        ],
    },
}
with open(out, "w") as f:
    json.dump(meta, f, indent=1)
    f.write("\n")
PY
cp "$WORK/cap.pcap" "$OUT.pcap"
echo "wrote $OUT.pcap ($(stat -c %s "$OUT.pcap") bytes) and $OUT.meta.json; TcpExtTCPSynRetrans a=$RA b=$RB, server drops $drops"
