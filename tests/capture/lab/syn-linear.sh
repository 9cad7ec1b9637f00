#!/usr/bin/env bash
# syn-linear-0 / syn-linear-default: the client (198.18.0.1, the sender under
# test) connects to 198.18.0.2:5001; the receiver's prerouting drops its first
# 4 SYNs (byte quota: 4 x 60-byte SYNs), the 5th completes the handshake, then
# 20 KB are sent. MODE 0 sets net.ipv4.tcp_syn_linear_timeouts=0 (SYN RTO
# doubles from the first expiry: 1, 2, 4, 8 s); MODE default leaves it at the
# kernel's default 4 (tcp_retransmit_timer: in SYN_SENT the backoff is not
# increased while total_rto <= tcp_syn_linear_timeouts, so 4 expiries 1 s
# apart).
#
#   sudo bash tests/capture/lab/syn-linear.sh 0|default
source "$(dirname "$0")/lib.sh"
MODE=${1:?usage: syn-linear.sh 0|default}
CAPTURE_POINT="sender namespace, veth-s (tcpdump before the receiver-side drop: all 5 SYNs are in the file)"
EXPECT_TIMEOUTS=4; EXPECT_SYN=4; EXPECT_LOSS_PROBES=0
case $MODE in
  0) DESCRIPTION="SYN dropped 4 times, tcp_syn_linear_timeouts=0: SYN retransmissions 1, 2, 4, 8 s apart (exponential from the start)."
     NOTES="4 SYN RTO expiries (TcpExtTCPTimeouts 4, TcpExtTCPSynRetrans 4): SYNs at ~0, 1, 3, 7, 15 s (gaps 1, 2, 4, 8 s + up to 1/8 lateness). Initial RTO 1 s (RFC 6298 2.1), doubling (5.5). After the handshake: rto from the SYN-ACK's RTT sample (timestamps on), not 3 s (5.7 not applied because there is a valid sample)." ;;
  default) DESCRIPTION="SYN dropped 4 times, default tcp_syn_linear_timeouts=4: SYN retransmissions 1 s apart (linear)."
     NOTES="4 SYN RTO expiries (TcpExtTCPTimeouts 4, TcpExtTCPSynRetrans 4): SYNs at ~0, 1, 2, 3, 4 s (gaps 1 s each, NOT doubled: Linux >= 6.5 default tcp_syn_linear_timeouts=4). A checker requiring doubling (RFC 6298 5.5) reports 3 violations (the 2nd, 3rd and 4th gap); a linux profile accepts them." ;;
  *) echo "MODE must be 0 or default" >&2; exit 2 ;;
esac
lab_init "syn-linear-$MODE"
lab_topology
[ "$MODE" = 0 ] && lab_sysctl net.ipv4.tcp_syn_linear_timeouts 0
lab_start 5001
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5001 --mode sink --max-conns 1 \
   --ready "$WORK/srv.ready" --timeout 60 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
lab_nft_rule pre syn_drop ip saddr $SADDR tcp dport 5001 tcp flags \& \(syn\|ack\) == syn quota until 270 bytes drop
$SNDX "$PY" "$LAB_DIR/peer.py" client --to $RADDR --port 5001 --mode bulk --bytes 20000 --chunk 4096 \
   --connected "$WORK/conn.json" --timeout 60 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
lab_wait_file "$WORK/conn.json" 40
SENDER=$SADDR:$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["lport"])' "$WORK/conn.json")
wait $CLI
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json"), \"syn_drops\": $(lab_nft_counter syn_drop)}"
lab_finish
