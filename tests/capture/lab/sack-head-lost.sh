#!/usr/bin/env bash
# sack-head-lost: bulk transfer with SACK (client 198.18.0.1 -> sink server
# 198.18.0.2:5001; the sender under test is the CLIENT). Three data segments
# of the same window (writes of 45*1448 bytes, so every segment is a full MSS
# at a fixed offset) are dropped once at the receiver's prerouting hook:
# A = segment 200, B = 203, C = 206 (exact TCP sequence numbers, computed from
# the SYN's ISN read from the capture while the client waits to send). SACKs
# for the segments after them start SACK recovery; A is dropped at EVERY
# transmission (its fast retransmission and RACK's re-retransmissions too)
# until the sender's tcp_info shows total_rto >= 1; then the rule is removed
# (within ~2-30 ms, by the tcp_info waiter itself). The first RTO, which
# fires during recovery, retransmits A at the expiry itself, before anyone
# can see it, so that retransmission is dropped too; the second, doubled RTO
# delivers A. Exactly 2 RTO expiries (3 only if the rule removal took longer
# than the doubled RTO, ~400 ms: the script then fails, nothing is written).
#
#   sudo bash tests/capture/lab/sack-head-lost.sh
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="sender namespace, veth-s (tcpdump before the receiver-side drops: every transmission of the client is in the file; ACKs are never dropped)"
DESCRIPTION="3 MB bulk upload with SACK and timestamps; segments 200, 203, 206 dropped once; every transmission of segment 200 (the head of the SACK recovery) dropped until the first RTO has fired."
EXPECT_TIMEOUTS=2; EXPECT_LOSS_PROBES=0
NOTES="SACK recovery (TcpExtTCPSackRecovery 1); A, B, C are fast-retransmitted; A's fast retransmission is dropped and RACK re-retransmits A (TcpExtTCPLostRetransmit, a few times, varying run to run) while SACKs arrive; all dropped. Then the RTO fires during recovery (TcpExtTCPSackRecoveryFail 1: tcp_retransmit_timer found ca_state Recovery at the first expiry) and retransmits A = the first unacknowledged segment (dropped: the rule goes only once total_rto=1 is seen); the second RTO, 2x later, delivers A. 2 RTO expiries. Fast retransmits and RACK retransmissions are NOT timer expiries."
lab_init sack-head-lost
lab_topology
lab_start 5001
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5001 --mode sink --max-conns 1 \
   --ready "$WORK/srv.ready" --timeout 60 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
$SNDX "$PY" "$LAB_DIR/peer.py" client --to $RADDR --port 5001 --mode bulk --bytes 3000000 --chunk 65160 \
   --connected "$WORK/conn.json" --go "$WORK/go" --timeout 60 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
lab_wait_file "$WORK/conn.json" 10
LPORT=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["lport"])' "$WORK/conn.json")
SENDER=$SADDR:$LPORT
ISN=
for _ in $(seq 100); do
  ISN=$( (tcpdump -r "$WORK/cap.pcap" -nn -S "src host $SADDR and tcp[13] & 2 != 0" 2>/dev/null || true) | grep -m1 -oE 'seq [0-9]+' | cut -d' ' -f2 || true)
  [ -n "$ISN" ] && break; sleep 0.05
done
[ -n "$ISN" ] || { echo "no SYN in the capture" >&2; exit 1; }
seg() { echo $(( (ISN + 1 + $1 * 1448) % 4294967296 )); }
A=$(seg 200); B=$(seg 203); C=$(seg 206)
lab_event isn "{\"isn\": $ISN, \"seq_A\": $A, \"seq_B\": $B, \"seq_C\": $C, \"mss\": 1448}"
lab_nft_rule pre drop_A ip saddr $SADDR tcp dport 5001 tcp sequence $A drop
lab_nft_rule pre drop_B ip saddr $SADDR tcp dport 5001 tcp sequence $B quota until 2250 bytes drop
lab_nft_rule pre drop_C ip saddr $SADDR tcp dport 5001 tcp sequence $C quota until 2250 bytes drop
lab_event go
touch "$WORK/go"
lab_del_rule_when drop_A total_rto 1 30
wait $CLI
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json"), \"drops_B\": $(lab_nft_counter drop_B), \"drops_C\": $(lab_nft_counter drop_C)}"
lab_finish
