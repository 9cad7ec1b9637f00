#!/usr/bin/env bash
# synack-loss: the SERVER's SYN-ACK is lost. The listener under test is in
# the sender namespace (198.18.0.1:5001); the client connects from the
# receiver namespace, whose prerouting drops the first 3 SYN-ACKs (byte
# quota: 60-byte SYN-ACKs with MSS, SACK-permitted, timestamps and window
# scale). Two mechanisms send the SYN-ACK again (net/ipv4):
#   * the request socket's own timer (reqsk_timer_handler,
#     inet_connection_sock.c; tcp_syn_ack_timeout counts TcpExtTCPTimeouts
#     in the listener's namespace), 1 s, then doubling (2, 4 s);
#   * the client's duplicate SYNs (its SYN timer: 1 s apart, default
#     tcp_syn_linear_timeouts 4): tcp_check_req answers a retransmitted SYN
#     of a pending request with the SYN-ACK again (inet_rtx_syn_ack; at most
#     one per tcp_invalid_ratelimit, 500 ms) and re-arms the request timer.
# Which comes first at ~1 s (the two timers were armed microseconds apart)
# varies run to run; the labels say which frame is which. Both count
# TcpExtTCPSynRetrans. The 4th SYN-ACK gets through; 20 requests follow.
#
#   sudo bash tests/capture/lab/synack-loss.sh
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="sender namespace (the server's), veth-s (tcpdump before the receiver-side drop: every SYN-ACK is in the file)"
DESCRIPTION="the server's first 3 SYN-ACKs dropped at the client's prerouting; SYN-ACKs sent again by the request timer and in reply to the client's duplicate SYNs; then 20 request/responses."
SENDER=$SADDR:5001
EXPECT_TIMEOUTS=1-; EXPECT_SYN=3-; EXPECT_LOSS_PROBES=0
NOTES="timeouts = SYN-ACK timer expiries of the listener (tcp_syn_ack_timeout: TcpExtTCPTimeouts in the server's namespace); syn_timeouts = TcpExtTCPSynRetrans = every SYN-ACK sent again, by the timer AND in reply to a duplicate SYN (tcp_check_req). The labels tell them apart frame by frame (synack-timer vs syn-reply). A checker must not count a reply to a duplicate SYN as an expiry of the SYN-ACK timer. The client's SYN retransmissions (from 198.18.0.2, its own SYN timer, 1 s apart) are in nstat_delta_receiver_ns."
lab_init synack-loss
lab_topology
lab_start 5001
$SNDX "$PY" "$LAB_DIR/peer.py" server --bind $SADDR --port 5001 --mode rr --max-conns 1 \
   --ready "$WORK/srv.ready" --timeout 60 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
lab_nft_rule pre synack_drop ip saddr $SADDR tcp sport 5001 tcp flags \& \(syn\|ack\) == syn\|ack quota until 210 bytes drop
$RCVX "$PY" "$LAB_DIR/peer.py" client --to $SADDR --port 5001 --mode rr --requests 20 --req-size 100 \
   --resp-size 2000 --gap-ms 20 --timeout 60 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
wait $CLI
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json"), \"synack_drops\": $(lab_nft_counter synack_drop)}"
lab_finish
