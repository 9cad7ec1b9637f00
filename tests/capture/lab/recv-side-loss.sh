#!/usr/bin/env bash
# recv-side-loss: the capture is on the RECEIVER's interface, and the
# losses happen before it. Bulk upload (client 198.18.0.1, the sender under
# test -> sink 198.18.0.2:5001, 400 full segments of 1448 bytes, SACK and
# timestamps); the ends are joined by a bridge in a middle namespace whose
# forward hook drops (exact TCP sequence numbers, from the ISN the receiver
# saw): segments 100 and 101 once, 200 twice (its first and its second
# transmission), 300 once, and 399, the last data segment, once. tcpdump runs in the
# receiver's namespace, on veth-r: it never sees the dropped copies. So the
# first transmissions after a hole arrive "out of order" at the capture
# point, and the retransmissions that fill the holes are, for the capture,
# the first copy of their range; the kernel's labels say which they are.
#
#   sudo bash tests/capture/lab/recv-side-loss.sh
CAPTURE_ADDR=198.18.0.2
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="receiver namespace, veth-r (AFTER the drops in the middle bridge: the dropped transmissions of the client are NOT in the file; every ACK of the receiver is)"
DESCRIPTION="bulk upload of 400 segments captured at the receiver; segments 100, 101, 300 and the last (399) dropped once, 200 twice, in a bridge between the ends (before the capture point)."
EXPECT_TIMEOUTS=0; EXPECT_COUNTERS="TcpExtTCPSackRecovery=1- TcpExtTCPLostRetransmit=1-"
NOTES="Seen from the receiver: the segments after each hole arrive before the hole is filled (out of order only at the capture point: they are first transmissions); the fast retransmissions of 100, 101, 200, 300 and 399 fill the holes (the FIN follows 399 in its own segment, and its SACK starts the recovery of 399); 200's first retransmission is lost too and RACK sends it a third time (TcpExtTCPLostRetransmit). No RTO. Almost no frame in this file repeats sequence space the capture saw before: a checker that calls only repeated ranges retransmissions misses them; the labels name each retransmission by frame. Kernel events with no frame are the dropped ones (labels.csv note: sent by the far end, dropped before the capture point)."
lab_init recv-side-loss
LAB_MIDDLE=1 lab_topology
lab_start 5001 veth-r
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5001 --mode sink --max-conns 1 \
   --ready "$WORK/srv.ready" --timeout 60 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
$SNDX "$PY" "$LAB_DIR/peer.py" client --to $RADDR --port 5001 --mode bulk --bytes $((400 * 1448)) --chunk 65160 \
   --connected "$WORK/conn.json" --go "$WORK/go" --timeout 60 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
lab_wait_file "$WORK/conn.json" 10
SENDER=$SADDR:$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["lport"])' "$WORK/conn.json")
ISN=
for _ in $(seq 100); do
  ISN=$( (tcpdump -r "$WORK/cap.pcap" -nn -S "src host $SADDR and tcp[13] & 2 != 0" 2>/dev/null || true) | grep -m1 -oE 'seq [0-9]+' | cut -d' ' -f2 || true)
  [ -n "$ISN" ] && break; sleep 0.05
done
[ -n "$ISN" ] || { echo "no SYN in the capture" >&2; exit 1; }
seg() { echo $(( (ISN + 1 + $1 * 1448) % 4294967296 )); }
lab_event isn "{\"isn\": $ISN, \"mss\": 1448, \"dropped_segments\": {\"100\": $(seg 100), \"101\": $(seg 101), \"200\": $(seg 200), \"300\": $(seg 300), \"399\": $(seg 399)}}"
for s in 100 101 300 399; do
  lab_nft_rule mid drop_$s ip saddr $SADDR tcp dport 5001 tcp sequence $(seg $s) quota until 2250 bytes drop
done
lab_nft_rule mid drop_200 ip saddr $SADDR tcp dport 5001 tcp sequence $(seg 200) quota until 3750 bytes drop
lab_event go
touch "$WORK/go"
wait $CLI
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json"), \"drops\": {$(for s in 100 101 200 300 399; do printf '"%s": %s,' $s "$(lab_nft_counter drop_$s)"; done | sed 's/,$//')}}"
lab_finish
