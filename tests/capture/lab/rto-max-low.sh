#!/usr/bin/env bash
# rto-max-low: net.ipv4.tcp_rto_max_ms=5000 in the sender namespace (it is a
# per-namespace sysctl since 6.15; the socket copies it at creation, so it is
# set before the client starts). Paced bulk upload (client 198.18.0.1 ->
# sink 198.18.0.2:5001, 4 KB every 10 ms); 0.5 s in, an nft rule at the
# receiver's prerouting drops every segment from the sender; it is removed as
# soon as the sender's tcp_info shows total_rto >= 8 (the waiter deletes it
# within ms). RTOs: 204 ms doubling 408, 816, 1632, 3264, then capped at
# 5000 ms for expiries 6, 7, 8 and the 9th, which gets through.
#
#   sudo bash tests/capture/lab/rto-max-low.sh
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="sender namespace, veth-s (tcpdump before the receiver-side drop: every transmission of the client is in the file; ACKs are never dropped)"
DESCRIPTION="paced 400 KB bulk upload, tcp_rto_max_ms=5000; blackhole of sender->receiver segments from 0.5 s until total_rto reached 8; the 9th RTO retransmission gets through."
EXPECT_TIMEOUTS=9
NOTES="9 RTO expiries, all retransmitting the first unacknowledged segment; intervals ~0.2 (after the TLP, if one was sent), 0.41, 0.82, 1.64, 3.3, then 5.0, 5.0, 5.0, 5.0 s (+ timer-wheel lateness up to 256 ms): the backoff plateaus at tcp_rto_max_ms = 5 s (rto 6528 -> 5000 ms after expiry 5). A checker with a 60 s maximum (RFC 6298 2.5) or 120 s (Linux default) must not require doubling past 5 s here. loss_probes: the tail-loss probe(s) before the first RTO (a probe may send NEW data: the app keeps writing), not expiries."
lab_init rto-max-low
lab_topology
lab_sysctl net.ipv4.tcp_rto_max_ms 5000
lab_start 5001
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5001 --mode sink --max-conns 1 \
   --ready "$WORK/srv.ready" --timeout 120 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
$SNDX "$PY" "$LAB_DIR/peer.py" client --to $RADDR --port 5001 --mode bulk --bytes 400000 --chunk 4096 --pace-ms 10 \
   --connected "$WORK/conn.json" --timeout 120 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
lab_wait_file "$WORK/conn.json" 10
SENDER=$SADDR:$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["lport"])' "$WORK/conn.json")
sleep 0.5
lab_nft_rule pre blackhole ip saddr $SADDR tcp dport 5001 drop
lab_del_rule_when blackhole total_rto 8 90
wait $CLI
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json")}"
lab_finish
