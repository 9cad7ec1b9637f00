#!/usr/bin/env bash
# thin-linear: net.ipv4.tcp_thin_linear_timeouts=1 in the sender namespace.
# A thin stream: the client (198.18.0.1, the sender under test) makes
# request/responses of 200 bytes each way to 198.18.0.2:5001, one outstanding
# at a time (so packets_out is 1 < 4). 1 s in, an nft rule at the receiver's
# prerouting drops every segment from the sender; it is removed when the
# sender's tcp_info shows total_rto >= 8, so the 9th RTO retransmission gets
# through. Kernel rule (net/ipv4/tcp_timer.c, tcp_retransmit_timer, label
# out_reset_timer): in ESTABLISHED, with thin_lto or the sysctl, if
# tcp_stream_is_thin(tp) (packets_out < 4 and not in initial slow start) and
# icsk_retransmits <= TCP_THIN_LINEAR_RETRIES (6), backoff is reset to 0 and
# rto recomputed from srtt (no doubling); icsk_retransmits is incremented
# before the test, so expiries 1-6 keep the base rto and doubling starts with
# the 7th expiry.
#
#   sudo bash tests/capture/lab/thin-linear.sh
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="sender namespace, veth-s (tcpdump before the receiver-side drop: every transmission of the client is in the file; ACKs are never dropped)"
DESCRIPTION="thin request/response stream (1 segment in flight), tcp_thin_linear_timeouts=1; blackhole of sender->receiver segments from 1 s until total_rto reached 8; the 9th RTO retransmission gets through."
EXPECT_TIMEOUTS=9
NOTES="9 RTO expiries of the same segment (the request in flight). Gaps between RTO retransmissions: expiries 1..7 are each ~rto_base (~204-212 ms: the timer after expiries 1-6 is NOT doubled, backoff stays 0), then 2x (after the 7th expiry rto = 2*base), then 4x: i.e. retransmissions at ~+0.2 (or after the TLP), +0.2 x6, +0.41, +0.82 s. A TLP (loss_probes) may precede the first RTO: with one segment in flight the probe timeout is min(2*srtt + rto_min, rto), so the probe comes ~rto after the send and the first RTO ~rto after the probe. A checker that requires doubling (RFC 6298 5.5) reports the 6 non-doubled expiries as violations; a linux profile with thin-linear knowledge accepts them."
lab_init thin-linear
lab_topology
lab_sysctl net.ipv4.tcp_thin_linear_timeouts 1
lab_start 5001
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5001 --mode rr --max-conns 1 \
   --ready "$WORK/srv.ready" --timeout 120 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
$SNDX "$PY" "$LAB_DIR/peer.py" client --to $RADDR --port 5001 --mode rr --requests 150 --req-size 200 \
   --resp-size 200 --gap-ms 20 --nodelay --connected "$WORK/conn.json" --timeout 120 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
lab_wait_file "$WORK/conn.json" 10
SENDER=$SADDR:$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["lport"])' "$WORK/conn.json")
sleep 1
lab_nft_rule pre blackhole ip saddr $SADDR tcp dport 5001 drop
lab_del_rule_when blackhole total_rto 8 60
wait $CLI
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json")}"
lab_finish
