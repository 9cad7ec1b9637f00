#!/usr/bin/env bash
# keepalive: an idle connection with SO_KEEPALIVE, TCP_KEEPIDLE 1 s,
# TCP_KEEPINTVL 1 s, TCP_KEEPCNT 5 on the client (198.18.0.1, the sender
# under test). It makes one request/response with 198.18.0.2:5001, then
# stays idle 6 s and closes. tcp_keepalive_timer sends a keep-alive (no
# data, SEQ = SND.UNA - 1: tcp_write_wakeup -> tcp_xmit_probe_skb) once the
# connection has been idle 1 s, then one every second (it is answered, and
# the idle time counts from the last segment received). From 2.5 s to 4.5 s
# after the request an nft rule at the receiver's prerouting drops the
# client's segments: those keep-alives go unanswered (tcp_info probes goes
# up, the next follows TCP_KEEPINTVL), then they are answered again.
#
#   sudo bash tests/capture/lab/keepalive.sh
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="sender namespace, veth-s (tcpdump before the receiver-side drop: every keep-alive is in the file)"
DESCRIPTION="one request/response, then 6 s idle with keep-alives every 1 s (TCP_KEEPIDLE 1, TCP_KEEPINTVL 1, TCP_KEEPCNT 5); the client's keep-alives dropped from 2.5 to 4.5 s after the request."
EXPECT_TIMEOUTS=0; EXPECT_LOSS_PROBES=0; EXPECT_COUNTERS="TcpExtTCPKeepAlive=4-"
NOTES="Keep-alives are NOT retransmissions and NOT timer expiries (TcpExtTCPTimeouts 0; TcpExtTCPKeepAlive counts them): each is a segment without data at SND.UNA - 1, ~1 s apart, answered by an ACK of SND.UNA, except the ones dropped from 2.5 to 4.5 s (unanswered; the next one follows TCP_KEEPINTVL). A checker must not count them as retransmissions of data nor as RTOs."
lab_init keepalive
lab_topology
lab_start 5001
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5001 --mode rr --max-conns 1 \
   --ready "$WORK/srv.ready" --timeout 60 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
$SNDX "$PY" "$LAB_DIR/peer.py" client --to $RADDR --port 5001 --mode rr --requests 1 --req-size 100 \
   --resp-size 1000 --gap-ms 6000 --keepalive 1,1,5 --connected "$WORK/conn.json" --timeout 60 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
lab_wait_file "$WORK/conn.json" 10
SENDER=$SADDR:$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["lport"])' "$WORK/conn.json")
sleep 2.5
lab_nft_rule pre ka_drop ip saddr $SADDR tcp dport 5001 drop
sleep 2
lab_nft_del ka_drop
wait $CLI
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json")}"
lab_finish
