#!/usr/bin/env bash
# rto-min-route: the route to the receiver carries `rto_min 50ms` (ip route
# ... rto_min; the kernel reads it per socket from the route: tcp_rto_min()
# = dst_metric_rtt(dst, RTAX_RTO_MIN), in place of the 200 ms TCP_RTO_MIN).
# Paced bulk upload (client 198.18.0.1 -> sink 198.18.0.2:5001, 4 KB every
# 10 ms); 0.5 s in, an nft rule at the receiver's prerouting drops every
# segment from the client until its tcp_info shows total_rto >= 5; the 6th
# RTO retransmission gets through. The base RTO is srtt + max(50 ms,
# 4 rttvar) rounded up to a jiffy (4 ms): ~52 ms, doubling from there.
#
#   sudo bash tests/capture/lab/rto-min-route.sh
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="sender namespace, veth-s (tcpdump before the receiver-side drop: every transmission of the client is in the file; ACKs are never dropped)"
DESCRIPTION="paced 300 KB bulk upload over a route with rto_min 50ms; blackhole of client->server segments from 0.5 s until total_rto reached 5; the 6th RTO retransmission gets through."
EXPECT_TIMEOUTS=6
NOTES="6 RTO expiries of the first unacknowledged segment, ~52, 104, 208, 416, 832, 1664 ms apart (+ timer-wheel lateness; before them a tail-loss probe): the route's rto_min (50 ms) replaces Linux's 200 ms floor of the variance term (tcp_info rto_ms ~52 with backoff 0). A checker assuming rto_min 200 ms sees every expiry 150 ms early; one that knows the route metric (a documented setting, like tcp_rto_max_ms) accepts them."
lab_init rto-min-route
lab_topology
ip -n "$SND" route change 198.18.0.0/24 dev veth-s proto kernel scope link src $SADDR rto_min 50ms
lab_event route "{\"sender_ns\": \"$(ip -n "$SND" route show 198.18.0.0/24)\"}"
lab_start 5001
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5001 --mode sink --max-conns 1 \
   --ready "$WORK/srv.ready" --timeout 60 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
$SNDX "$PY" "$LAB_DIR/peer.py" client --to $RADDR --port 5001 --mode bulk --bytes 300000 --chunk 4096 --pace-ms 10 \
   --connected "$WORK/conn.json" --timeout 60 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
lab_wait_file "$WORK/conn.json" 10
SENDER=$SADDR:$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["lport"])' "$WORK/conn.json")
sleep 0.5
lab_nft_rule pre blackhole ip saddr $SADDR tcp dport 5001 drop
lab_del_rule_when blackhole total_rto 5 30
wait $CLI
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json")}"
lab_finish
