#!/usr/bin/env bash
# tlp-tail-K (K = 1, 2, 3): request/response; the sender under test is the
# RESPONDER (server 198.18.0.1:5001 in the sender namespace). The client (in
# the receiver namespace) makes 20 requests of 100 bytes, 50 ms apart; every
# response is 4000 bytes except #10, which is 3*1448+100 bytes, so its LAST
# segment is the only sender packet with IP length 152. An nft rule in the
# receiver's prerouting drops the first K packets of IP length 152 from the
# sender (the original tail segment and its next K-1 transmissions), by a
# byte quota (K*152+76 bytes), so the drops need no timing.
#
#   sudo bash tests/capture/lab/tlp-tail.sh K      -> tests/captures/lab/tlp-tail-K.*
source "$(dirname "$0")/lib.sh"
K=${1:?usage: tlp-tail.sh K}
TAIL=100; TAILLEN=$((20 + 32 + TAIL))   # IPv4 + TCP with timestamps + payload
SENDER=$SADDR:5001
CAPTURE_POINT="sender namespace, veth-s (tcpdump before the receiver-side drops: every transmission of the server is in the file; ACKs are never dropped)"
DESCRIPTION="20 request/responses (SACK, timestamps on); the server's tail segment of response #10 (payload $TAIL bytes, IP length $TAILLEN) is dropped $K time(s) in a row at the receiver's prerouting hook."
case $K in
  1) EXPECT_TIMEOUTS=0; EXPECT_LOSS_PROBES=1
     NOTES="The tail segment is lost once: Linux sends one tail-loss probe (a retransmission of that last segment; with one segment outstanding the probe timeout is min(2*srtt + rto_min, rto), so ~208 ms after the original), it is delivered, no RTO. A checker must not count the probe as an RTO expiry." ;;
  2) EXPECT_TIMEOUTS=1; EXPECT_LOSS_PROBES=1
     NOTES="The original and the TLP are dropped; the RTO, ~210 ms after the probe (NOT doubled: the probe is not an expiry, it re-arms the timer with the plain rto), retransmits the segment and it gets through: 1 expiry, 1 probe." ;;
  3) EXPECT_TIMEOUTS=2; EXPECT_LOSS_PROBES=1
     NOTES="The original, the TLP and the first RTO retransmission are dropped; the second RTO (doubled, ~440 ms later) gets through: 2 expiries, 1 probe. Wire gaps ~206, ~208, ~440 ms: the first retransmission is the probe." ;;
  *) echo "K must be 1, 2 or 3" >&2; exit 2 ;;
esac
lab_init "tlp-tail-$K"
lab_topology
lab_start 5001
$SNDX "$PY" "$LAB_DIR/peer.py" server --bind $SADDR --port 5001 --mode rr --max-conns 1 \
   --ready "$WORK/srv.ready" --timeout 60 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
lab_nft_rule pre tail_drop ip saddr $SADDR tcp sport 5001 ip length $TAILLEN quota until $((K * TAILLEN + TAILLEN / 2)) bytes drop
$RCVX "$PY" "$LAB_DIR/peer.py" client --to $SADDR --port 5001 --mode rr --requests 20 --req-size 100 \
   --resp-size 4000 --resp-size-at 9:$((3 * 1448 + TAIL)) --gap-ms 50 --timeout 60 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
wait $CLI
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json"), \"tail_drops\": $(lab_nft_counter tail_drop)}"
lab_finish
