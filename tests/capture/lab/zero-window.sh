#!/usr/bin/env bash
# zero-window: the receiver stops reading and its window closes; the sender
# probes it. Sink server 198.18.0.2:5001 with SO_RCVBUF 16 KB (set on the
# listener before listen(), so the window scale and the window follow it);
# it reads 32 KB, then stops reading for 4 s. The client (198.18.0.1, the
# sender under test) uploads 200 KB unpaced: the receive buffer fills, the
# advertised window goes to 0, and the client's probe timer
# (ICSK_TIME_PROBE0, tcp_probe_timer -> tcp_send_probe0 -> tcp_write_wakeup
# -> tcp_xmit_probe_skb: a segment with no data and SEQ = SND.UNA - 1)
# sends window probes, backing off from the RTO (~0.2, 0.4, 0.8, 1.6 s
# apart). The receiver answers each with its zero window; when it reads
# again it announces the window and the transfer ends. No loss.
#
#   sudo bash tests/capture/lab/zero-window.sh
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="sender namespace, veth-s (no drops: every segment of both ends is in the file)"
DESCRIPTION="200 KB unpaced upload to a sink with a 16 KB receive buffer that stops reading for 4 s after 32 KB: zero window, the sender's window probes, then the window update."
EXPECT_TIMEOUTS=0; EXPECT_LOSS_PROBES=0; EXPECT_COUNTERS="TcpExtTCPWinProbe=3-"
NOTES="Window probes are NOT retransmissions and NOT timer expiries (TcpExtTCPTimeouts 0): tcp_send_probe0 sends a segment without data at SND.UNA - 1 (TcpExtTCPWinProbe counts them), 0.2, 0.4, 0.8, 1.6 s apart (the probe timer backs off from the RTO, icsk_backoff; tcp_info probes counts them). The receiver's ACKs to them carry window 0. A checker must not count them as RTOs nor as retransmissions of data."
lab_init zero-window
lab_topology
lab_start 5001
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5001 --mode sink --max-conns 1 --rcvbuf 16384 \
   --pause-after 32768 --pause-s 4 --ready "$WORK/srv.ready" --timeout 60 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
$SNDX "$PY" "$LAB_DIR/peer.py" client --to $RADDR --port 5001 --mode bulk --bytes 200000 --chunk 65536 \
   --connected "$WORK/conn.json" --timeout 60 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
lab_wait_file "$WORK/conn.json" 10
SENDER=$SADDR:$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["lport"])' "$WORK/conn.json")
wait $CLI
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json")}"
lab_finish
