#!/usr/bin/env bash
# user-timeout: TCP_USER_TIMEOUT 3000 ms on the client (198.18.0.1, the
# sender under test); paced bulk upload to the sink 198.18.0.2:5001; 0.5 s
# in, an nft rule at the receiver's prerouting drops every segment from the
# client, for good. The RTO backs off (204, 408, 816 ms ...) until the data
# has gone unacknowledged for 3 s: tcp_write_timeout (net/ipv4/tcp_timer.c,
# retransmits_timed_out with the user timeout) aborts the connection
# (ETIMEDOUT to the application, TcpExtTCPAbortOnTimeout) at the expiry
# that passes it; no RST is sent. While backing off, each RTO is clamped to
# the time left before the user timeout (tcp_clamp_rto_to_user_timeout), so
# the last wait is SHORTER than the doubling would make it.
#
#   sudo bash tests/capture/lab/user-timeout.sh
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="sender namespace, veth-s (tcpdump before the receiver-side drop: every transmission of the client is in the file)"
DESCRIPTION="paced bulk upload with TCP_USER_TIMEOUT 3000 ms; blackhole of client->server segments from 0.5 s on, until the client's kernel aborts the connection."
EXPECT_TIMEOUTS=5; EXPECT_COUNTERS="TcpExtTCPAbortOnTimeout=1"
NOTES="RTO expiries of the first unacknowledged segment (after a tail-loss probe), doubling from ~0.2 s, until 3 s after the last ACK: the expiry that passes TCP_USER_TIMEOUT aborts the connection (tcp_write_timeout -> tcp_write_err: ETIMEDOUT, TcpExtTCPAbortOnTimeout 1) and sends NOTHING: TcpExtTCPTimeouts counts that last expiry too, so the capture shows one RTO retransmission fewer than the counter. The RTO before it is clamped to the time left (tcp_clamp_rto_to_user_timeout): its wait is shorter than twice the previous one, which is not a missing doubling (RFC 6298 5.5) but the application's limit (RFC 5482 / RFC 793 user timeout). After the abort the client's socket is gone: the server's later segments get RSTs (outside the capture: the rule stays)."
lab_init user-timeout
lab_topology
lab_start 5001
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5001 --mode sink --max-conns 1 \
   --ready "$WORK/srv.ready" --timeout 30 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
$SNDX "$PY" "$LAB_DIR/peer.py" client --to $RADDR --port 5001 --mode bulk --bytes 2000000 --chunk 4096 --pace-ms 10 \
   --user-timeout 3000 --expect-error --connected "$WORK/conn.json" --timeout 60 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
lab_wait_file "$WORK/conn.json" 10
SENDER=$SADDR:$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["lport"])' "$WORK/conn.json")
sleep 0.5
lab_nft_rule pre blackhole ip saddr $SADDR tcp dport 5001 drop
wait $CLI
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json")}"
"$PY" -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1])).get("errno") == 110 else 1)' "$WORK/client.json" \
  || { lab_log "the client did not end with ETIMEDOUT: $(cat "$WORK/client.json")"; exit 1; }
lab_finish
