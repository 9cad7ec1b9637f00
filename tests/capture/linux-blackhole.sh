#!/usr/bin/env bash
# Captures the Linux kernel's own TCP sender through a blackhole, for `make run`.
#
#   sudo bash tests/capture/linux-blackhole.sh [OUT_PREFIX]
#
# Default OUT_PREFIX: tests/captures/linux-blackhole  ->  .pcap and .meta.json
#
# Topology (two network namespaces made here, removed on every exit path):
#   ns lab-PID-s  veth  198.18.0.1/24  <-->  198.18.0.2/24  veth  ns lab-PID-r
# No link delay: this kernel has no netem (tc qdisc netem is rejected), so the
# RTT is the veth's few tens of microseconds and Linux's RTO sits at rto_min
# (200 ms). The sender (tests/capture/lab_peer.py send) paces 400 KB over the
# connection; shortly after it starts, an nftables rule in the RECEIVER's
# prerouting hook drops every segment from the sender, so tcpdump on the
# sender's veth still sees every transmission. The rule stays until the
# kernel's backoff (ss -tin "backoff:") reaches $BACKOFF_LIFT (5), i.e. after
# 5 expiries with doubling (~0.2, 0.4, 0.8, 1.6, 3.2 s); the 6th RTO
# retransmission (after ~6.4 s) goes through, the transfer recovers and
# completes, and the receiver checks the byte count and SHA-256.
# Needs root, iproute2, nft, tcpdump, python3. Touches nothing outside the
# namespaces it makes.
# The namespaces, veth pair and nftables table come from the capture lab
# (tests/capture/lab/lib.sh: lab_init, lab_topology, lab_nft_rule); the
# receiver keeps delayed ACKs (LAB_RCV_QUICKACK=0), as when the shipped
# capture was made.
set -euo pipefail

source "$(dirname "$0")/lab/lib.sh"
OUT=${1:-$REPO/tests/captures/linux-blackhole}
BYTES=${BYTES:-400000}
BACKOFF_LIFT=${BACKOFF_LIFT:-5}
PORT=5001

lab_init linux-blackhole
command -v ss >/dev/null || { echo "linux-blackhole.sh: missing tool: ss" >&2; exit 77; }

event() { lab_event "$@"; }

LAB_RCV_QUICKACK=0 lab_topology

ip netns exec "$SND" tcpdump -i veth-s -s 128 -U -w "$WORK/cap.pcap" "tcp port $PORT" 2>"$WORK/tcpdump.err" &
PIDS+=($!)
for _ in $(seq 100); do grep -q "listening on" "$WORK/tcpdump.err" 2>/dev/null && break; sleep 0.05; done

ip netns exec "$RCV" python3 "$REPO/tests/capture/lab_peer.py" recv --bind $RADDR --port $PORT \
  --ready "$WORK/ready" --out "$WORK/recv.json" --timeout 120 &
RECV_PID=$!; PIDS+=($RECV_PID)
for _ in $(seq 100); do [ -e "$WORK/ready" ] && break; sleep 0.05; done
[ -e "$WORK/ready" ] || { echo "receiver did not start" >&2; exit 1; }

event start
ip netns exec "$SND" python3 "$REPO/tests/capture/lab_peer.py" send --to $RADDR --port $PORT \
  --bytes "$BYTES" --chunk 4096 --pace-ms 10 --timeout 120 >"$WORK/send.json" &
SEND_PID=$!; PIDS+=($SEND_PID)

ss_line() { ip netns exec "$SND" ss -tinH state established "( dport = :$PORT )" | tr '\n' ' '; }
field() { grep -oE "(^| )$1:[^ ]+" <<<"$2" | head -n1 | cut -d: -f2 || true; }
# The blackhole starts 0.5 s into the transfer, counted from the handshake
# (on a loaded machine the sender's interpreter can take seconds to start;
# a rule in place before the SYN would catch the handshake instead).
for _ in $(seq 200); do [ -n "$(ss_line | tr -d ' ')" ] && break; sleep 0.05; done
[ -n "$(ss_line | tr -d ' ')" ] || { echo "the sender never connected" >&2; exit 1; }
sleep 0.5
lab_nft_rule pre blackhole ip saddr $SADDR tcp dport $PORT drop
line=$(ss_line)
event blackhole_on "{\"rule\": \"drop all TCP $SADDR->$RADDR:$PORT at receiver prerouting (raw)\", \"rto_ms\": \"$(field rto "$line")\"}"
backoff=0
for _ in $(seq 600); do
  line=$(ss_line)
  backoff=$(field backoff "$line"); backoff=${backoff:-0}
  [ "$backoff" -ge "$BACKOFF_LIFT" ] && break
  sleep 0.05
done
[ "$backoff" -ge "$BACKOFF_LIFT" ] || { echo "backoff never reached $BACKOFF_LIFT" >&2; exit 1; }
drops=$(lab_nft_counter blackhole)
lab_nft_del blackhole
event blackhole_off "{\"backoff\": \"$backoff\", \"rto_ms\": \"$(field rto "$line")\", \"dropped_packets\": ${drops:-0}}"

wait $SEND_PID
wait $RECV_PID
event end
sleep 0.2
kill -INT "${PIDS[0]}" 2>/dev/null || true
wait "${PIDS[0]}" 2>/dev/null || true

sent=$(cat "$WORK/send.json"); got=$(cat "$WORK/recv.json")
[ "$(python3 -c 'import json,sys; a=json.loads(sys.argv[1]); b=json.loads(sys.argv[2]); print(a==b)' "$sent" "$got")" = True ] \
  || { echo "receiver got $got, sender sent $sent" >&2; exit 1; }

sysctls=$(ip netns exec "$SND" bash -c 'for k in tcp_timestamps tcp_sack tcp_window_scaling tcp_early_retrans tcp_recovery tcp_frto tcp_rto_min_us tcp_rto_max_ms tcp_syn_retries tcp_retries2 tcp_congestion_control tcp_wmem tcp_rmem; do f=/proc/sys/net/ipv4/$k; [ -r $f ] && printf "%s\t%s\n" net.ipv4.$k "$(tr "\t" " " <$f)"; done')
mibs=$(ip netns exec "$SND" bash -c 'nstat -az 2>/dev/null | grep -E "TcpExtTCPTimeouts|TcpExtTCPLossProbes|TcpRetransSegs|TcpOutSegs" || true')

python3 - "$OUT.meta.json" "$sent" "$got" "$BYTES" "$BACKOFF_LIFT" "$(uname -r)" "$sysctls" "$mibs" "$WORK/events.jsonl" <<'PY'
import json, sys
out, sent, got, nbytes, lift, kernel, sysctls, mibs, events_file = sys.argv[1:]
events = [json.loads(l) for l in open(events_file) if l.strip()]
meta = {
  "scenario": "linux-blackhole",
  "made_by": "tests/capture/linux-blackhole.sh",
  "kernel": kernel,
  "description": ("Linux kernel TCP sender (ns lab-PID-s) paces %s bytes to a kernel receiver (ns lab-PID-r) "
                  "over a veth pair with no added delay; an nft rule at the receiver's prerouting drops every "
                  "sender->receiver segment from blackhole_on until the sender's backoff reaches %s, then the "
                  "transfer recovers and completes byte-exact." % (nbytes, lift)),
  "capture": {"point": "sender namespace, veth-s (before the drop)", "tool": "tcpdump -i veth-s -s 128 tcp port 5001",
              "snaplen": 128, "gso_max_segs": 1},
  "topology": {"sender": "198.18.0.1", "receiver": "198.18.0.2", "server_port": 5001,
               "link": "veth", "one_way_delay_ms": 0,
               "delay_note": "this kernel has no netem qdisc; RTT is the veth's (~0.05 ms)"},
  "sender_sysctls": dict(l.split("\t", 1) for l in sysctls.splitlines() if "\t" in l),
  "sender_counters": mibs.splitlines(),
  "transfer": {"sent": json.loads(sent), "received": json.loads(got)},
  "events": events,
}
with open(out, "w") as f:
    json.dump(meta, f, indent=2)
    f.write("\n")
PY
cp "$WORK/cap.pcap" "$OUT.pcap"
echo "wrote $OUT.pcap ($(stat -c %s "$OUT.pcap") bytes) and $OUT.meta.json"
