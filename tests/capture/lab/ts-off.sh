#!/usr/bin/env bash
# ts-off: net.ipv4.tcp_timestamps=0 in the sender namespace (its SYN offers
# no timestamps, so the connection has none: RTT samples follow Karn's rule,
# none from retransmitted segments). Paced bulk upload (client 198.18.0.1 ->
# sink 198.18.0.2:5001, 1.2 MB, 4 KB every 10 ms) with 3 % random loss of
# the sender's segments at the receiver's prerouting (nft numgen random) for
# the whole transfer, and a blackhole of every sender segment from 1.5 s until
# the sender's tcp_info shows backoff >= 4 (then the 5th RTO of that chain
# gets through). RTOs from the random loss (if any) come on top; the counter
# is the truth.
#
#   sudo bash tests/capture/lab/ts-off.sh
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="sender namespace, veth-s (tcpdump before the receiver-side drops: every transmission of the client is in the file; ACKs are never dropped)"
DESCRIPTION="paced 1.2 MB bulk upload without TCP timestamps; 3% random data loss throughout; a blackhole from 1.5 s until backoff reached 4."
EXPECT_TIMEOUTS=5-
NOTES="timeouts = all RTO expiries: the 5 of the blackhole chain (backoff 1..4 then the 5th gets through, gaps doubling from ~rto) plus any from the random loss (e.g. a lost retransmission). No timestamps: after an RTO the first ACK acknowledges only retransmitted data, which gives no RTT sample (Karn); Linux resets the backoff only on a valid RTT sample (tcp_input.c, tcp_ack_update_rtt: \"RFC6298: only reset backoff on valid RTT measurement\"), i.e. at the first ACK of never-retransmitted data (here within ms, the rest being sent at once). Fast retransmits/TLPs are not expiries."
lab_init ts-off
lab_topology
lab_sysctl net.ipv4.tcp_timestamps 0
lab_start 5001
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5001 --mode sink --max-conns 1 \
   --ready "$WORK/srv.ready" --timeout 120 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
lab_nft_rule pre random_loss ip saddr $SADDR tcp dport 5001 tcp flags \& \(syn\|fin\) == 0 numgen random mod 100 \< 3 drop
$SNDX "$PY" "$LAB_DIR/peer.py" client --to $RADDR --port 5001 --mode bulk --bytes 1200000 --chunk 4096 --pace-ms 10 \
   --connected "$WORK/conn.json" --timeout 120 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
lab_wait_file "$WORK/conn.json" 10
SENDER=$SADDR:$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["lport"])' "$WORK/conn.json")
sleep 1.5
lab_nft_rule pre blackhole ip saddr $SADDR tcp dport 5001 drop
lab_del_rule_when blackhole backoff 4 60
wait $CLI
lab_nft_del random_loss
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json")}"
lab_finish
