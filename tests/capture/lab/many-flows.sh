#!/usr/bin/env bash
# many-flows: 120 short flows from the sender namespace (peer.py many, fixed
# seed): half bulk uploads (8-48 KB in 4 KB writes 10 ms apart, to the sink
# 198.18.0.2:5001), half
# request/response (2-6 requests of 100 bytes 100 ms apart, responses of 1-5 KB from
# 198.18.0.2:5002), started at random times over 12 s, at most 40 at once.
# Loss, all made in a MIDDLE namespace (lab-PID-m, a bridge between the two
# ends, nft table bridge lab, chain mid), invisible to both TCP stacks (a
# first version dropped the receiver's packets in its own OUTPUT hook: the
# kernel then sees the send fail with EPERM, and a listener whose SYN-ACK
# retransmission fails discards the request, so clients got RSTs):
#   * random loss of 2 % of everything the sender sends and of 1 % of
#     everything the receiver sends (its ACKs, SYN-ACKs and responses; these
#     never reach the sender's veth, so they are NOT in the capture);
#   * three outages (all TCP both ways dropped): at ~3 s for 1.0 s,
#     ~6.5 s for 2.5 s, ~11 s for 0.6 s; flows that are connecting, sending or
#     closing then hit RTOs in SYN_SENT, ESTABLISHED and FIN_WAIT1.
# Snaplen 96. The counters are per namespace: the sender namespace holds only
# the clients' sockets, so its TcpExtTCPTimeouts is the number of RTO
# expiries of all 120 client sockets; the receiver's (server side, incl.
# SYN-ACK timeouts) are in nstat_delta_receiver_ns.
#
#   sudo bash tests/capture/lab/many-flows.sh
SNAPLEN=96
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="sender namespace, veth-s: every transmission of the 120 client sockets; the receiver's packets dropped in the middle bridge (random ACK/response loss, outages) are not in the file"
DESCRIPTION="120 concurrent short flows (bulk and request/response), 2% random loss sender->receiver, 1% receiver->sender (at the receiver's output), three outages of 1.0, 2.5 and 0.6 s."
EXPECT_TIMEOUTS=1-
SENDER=all
lab_init many-flows
LAB_RCV_QUICKACK=0 LAB_MIDDLE=1 lab_topology
lab_start 5001,5002
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5001 --mode sink --stop "$WORK/stop" \
   --ready "$WORK/srv1.ready" --timeout 120 >"$WORK/server1.json" &
S1=$!; PIDS+=($S1)
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5002 --mode rr --stop "$WORK/stop" \
   --ready "$WORK/srv2.ready" --timeout 120 >"$WORK/server2.json" &
S2=$!; PIDS+=($S2)
lab_wait_file "$WORK/srv1.ready" 10; lab_wait_file "$WORK/srv2.ready" 10
lab_nft_rule mid random_in ip saddr $SADDR numgen random mod 100 \< 2 drop
lab_nft_rule mid random_out ip daddr $SADDR numgen random mod 100 \< 1 drop
$SNDX "$PY" "$LAB_DIR/peer.py" many --to $RADDR --bulk-port 5001 --rr-port 5002 --flows 120 \
   --concurrency 40 --seed 7 --duration-s 12 --timeout 40 >"$WORK/many.json" &
CLI=$!; PIDS+=($CLI)
outage() {  # outage START_S LEN_S NAME
  sleep "$1"
  lab_nft_rule mid "$3" ip protocol tcp drop
  sleep "$2"
  lab_nft_del "$3"
}
T0=$(date +%s.%N)
since() { "$PY" -c "import time,sys; print(max(0.0, $1 - (time.time() - float(sys.argv[1]))))" "$T0"; }
outage "$(since 3)" 1.0 outage1
outage "$(since 6.5)" 2.5 outage2
outage "$(since 11)" 0.6 outage3
wait $CLI || lab_log "some flows failed: $(cat "$WORK/many.json")"
lab_nft_del random_in; lab_nft_del random_out
touch "$WORK/stop"
wait $S1 $S2 || true
lab_event transfer_done "{\"clients\": $(cat "$WORK/many.json"), \"sink\": $(cat "$WORK/server1.json"), \"rr\": $(cat "$WORK/server2.json")}"
# RTO expiries per TCP state seen in the 10 ms tcp_info samples (a lower
# bound: an expiry whose socket vanished within 10 ms is not seen). The state
# is the one of the sample BEFORE the expiry; "A->B" when it changed between
# the two samples (e.g. SYN_SENT->ESTABLISHED: a SYN RTO that then connected).
"$PY" - "$WORK/tcpinfo.csv" >"$WORK/by_state.json" <<'PY'
import csv, json, sys
last, st, by = {}, {}, {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["total_rto"] == "":
        continue
    k, v = r["cookie"], int(r["total_rto"])
    if v > last.get(k, 0):
        a, b = st.get(k, r["state"]), r["state"]
        key = a if a == b else a + "->" + b
        by[key] = by.get(key, 0) + v - last.get(k, 0)
    last[k] = max(v, last.get(k, 0))
    st[k] = r["state"]
print(json.dumps(dict(sorted(by.items()))))
PY
NOTES="timeouts = RTO expiries of all 120 client sockets in the sender namespace (TcpExtTCPTimeouts), incl. SYN ones (syn_timeouts = TcpExtTCPSynRetrans, SYN retransmissions; every SYN retransmission of a client is an RTO). Per state, from tcp_info samples (lower bound, state before -> after the expiry): $(cat "$WORK/by_state.json"). FIN retransmissions in the pcap: see pcap_check.fin_retransmissions_from_sender_addr (RTOs or probes in FIN_WAIT1). Flows that fail (events: transfer_done) would be counted there. Fast retransmits and TLPs are not expiries. Random loss makes the counts differ from run to run; the truth is this run's counters."
lab_event rto_by_state "{\"from_tcpinfo_lower_bound\": $(cat "$WORK/by_state.json")}"
lab_finish
