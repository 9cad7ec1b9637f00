#!/usr/bin/env bash
# rto-sack-recovery: RTO expiries DURING SACK recovery, with several holes.
# Bulk upload (client 198.18.0.1, the sender under test -> sink
# 198.18.0.2:5001, 400 full segments, SACK and timestamps); near the end of
# the data, segments 380, 385, 390 and 395 are dropped at EVERY transmission
# (one nft rule, exact TCP sequence numbers from the ISN the capture saw)
# until the client's tcp_info shows total_rto >= 1. SACKs of the segments
# around the holes start SACK recovery; the holes' fast retransmissions and
# RACK's re-retransmissions are all lost; the RTO fires in CA_Recovery
# (TcpExtTCPSackRecoveryFail) and retransmits 380 at the expiry itself,
# before the rule can go (dropped too); the second, doubled RTO delivers
# 380, and its ACK clocks out, in CA_Loss, slow-start retransmissions of the
# other holes only (385, 390, 395: the SACKed segments between them are not
# resent).
#
#   sudo bash tests/capture/lab/rto-sack-recovery.sh
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="sender namespace, veth-s (tcpdump before the receiver-side drops: every transmission of the client is in the file; ACKs are never dropped)"
DESCRIPTION="bulk upload of 400 segments; segments 380, 385, 390, 395 dropped at every transmission until the first RTO: RTO expiries during SACK recovery, then slow start resends the remaining holes."
EXPECT_TIMEOUTS=2; EXPECT_LOSS_PROBES=0; EXPECT_COUNTERS="TcpExtTCPSackRecoveryFail=1 TcpExtTCPSackRecovery=1- TcpExtTCPSlowStartRetrans=1-"
NOTES="SACK recovery (TcpExtTCPSackRecovery) resends the four holes (fast retransmissions) and RACK resends them again (TcpExtTCPLostRetransmit), all lost; the first RTO fires in CA_Recovery (TcpExtTCPSackRecoveryFail 1) and retransmits 380 (lost: the rule goes only once total_rto 1 is seen); the second RTO, 2x later, delivers 380; in CA_Loss the remaining holes 385, 390, 395 are resent by slow start (TcpExtTCPSlowStartRetrans), never the SACKed segments between them. 2 expiries; fast, RACK and slow-start retransmissions are not expiries."
lab_init rto-sack-recovery
lab_topology
lab_start 5001
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
lab_event isn "{\"isn\": $ISN, \"mss\": 1448, \"dropped_segments\": {\"380\": $(seg 380), \"385\": $(seg 385), \"390\": $(seg 390), \"395\": $(seg 395)}}"
lab_nft_rule pre holes ip saddr $SADDR tcp dport 5001 tcp sequence \{ $(seg 380), $(seg 385), $(seg 390), $(seg 395) \} drop
lab_event go
touch "$WORK/go"
lab_del_rule_when holes total_rto 1 30
wait $CLI
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json")}"
lab_finish
