#!/usr/bin/env bash
# spurious-rto-eifel / spurious-rto-frto (`spurious-rto.sh eifel|frto`): a
# delay spike makes the RTO fire although nothing was lost. The two ends
# are joined through a userspace relay in a middle namespace (relay.py:
# this kernel has no netem, and nftables cannot queue a packet). Paced bulk
# upload (client 198.18.0.1 -> sink 198.18.0.2:5001, 1 MB, 4 KB every
# 10 ms); 1 s in, the relay HOLDS every frame of the receiver (its ACKs) for
# 450 ms, then releases them in order. The client's data all arrives; its
# timers see no ACK: the loss probe (~2 srtt, at least 10 ms) and one RTO
# (~rto after the probe; the next would be 2x later, after the release)
# retransmit. The released ACKs acknowledge the original transmissions and
# the kernel undoes the expiry (net/ipv4/tcp_input.c, tcp_process_loss):
#   eifel: timestamps on: the first released ACK's TSecr is older than the
#     retransmission (tcp_packet_delayed): TcpExtTCPLossUndo;
#   frto: tcp_timestamps=0 in the sender namespace: F-RTO (RFC 5682, on by
#     default, tcp_frto 2): the ACK of the retransmitted head advances
#     SND.UNA, the sender sends NEW data instead of going back N, and the
#     next ACK, of never-retransmitted data, proves the RTO spurious:
#     TcpExtTCPSpuriousRTOs.
#
# With a second argument `recv` (spurious-rto-eifel-recv, -frto-recv) the
# capture is the receiver's (veth-r, the relay's far side): the ACKs at the
# moment the receiver sent them, before the relay held them, and the
# client's segments as they arrived. The capture then shows the data
# acknowledged long before the client resent it: the ACKs it saw had not
# reached the client.
#
# With `data` (spurious-rto-eifel-data, -recv-data) the relay holds the
# CLIENT's frames (its data) instead of the receiver's: at the receiver the
# capture sees nothing of the client for 450 ms, then every segment it sent
# meanwhile (the probe and the RTO's resend among them) within a few ms, in
# the order sent; at the sender it sees them leave on time and the ACKs come
# late, as with the ACKs held.
#
#   sudo bash tests/capture/lab/spurious-rto.sh eifel|frto [recv] [data]
MODE=${1:?usage: spurious-rto.sh eifel|frto [recv] [data]}
AT= HELD=
for arg in "${@:2}"; do
  case $arg in
    recv) AT=recv; CAPTURE_ADDR=198.18.0.2 ;;
    data) HELD=data; export LAB_RELAY_HOLD=sender ;;
    *) echo "after the mode: recv (the capture point) and/or data (what the relay holds)" >&2; exit 2 ;;
  esac
done
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="sender namespace, veth-s (the client's side of the relay: every transmission of the client; the receiver's ACKs as the client got them, after the spike)"
[ -n "$AT" ] && CAPTURE_POINT="receiver namespace, veth-r (the receiver's side of the relay: the client's segments as they arrived, every one; the receiver's ACKs when it sent them, BEFORE the relay held them: the capture sees them up to 450 ms before the client did)"
EXPECT_TIMEOUTS=1
case $MODE in
  eifel) EXPECT_COUNTERS="TcpExtTCPLossUndo=1"
     DESCRIPTION="paced 1 MB bulk upload through a userspace relay, timestamps on; 1 s in, the relay holds every frame from the receiver (its ACKs) for 450 ms and then releases them in order: an RTO expiry while nothing was lost, undone by the timestamps (Eifel)." ;;
  frto) EXPECT_COUNTERS="TcpExtTCPSpuriousRTOs=1"
     DESCRIPTION="paced 1 MB bulk upload through a userspace relay, tcp_timestamps=0; 1 s in, the relay holds every frame from the receiver (its ACKs) for 450 ms and then releases them in order: an RTO expiry while nothing was lost, found spurious by F-RTO." ;;
  *) echo "MODE must be eifel or frto" >&2; exit 2 ;;
esac
NOTES="Nothing is lost: every retransmission is spurious. The ACKs are held 450 ms: tail-loss probe(s) and ONE RTO expiry retransmit; the released ACKs acknowledge the original transmissions and the kernel undoes the expiry ($EXPECT_COUNTERS). The expiry still happened (TcpExtTCPTimeouts 1). A checker should count it as an expiry and may call the retransmission spurious only AFTER the fact: when it was sent the data was not acknowledged. The relay adds ~0.1-1 ms of jitter, so loss probes can also come at other times (labels)."
if [ -n "$HELD" ]; then
  NOTES="${NOTES/The ACKs are held 450 ms/The client's DATA is held 450 ms (relay.py holds the sender's frames; its ACKs pass)}"
  DESCRIPTION="${DESCRIPTION/every frame from the receiver (its ACKs)/every frame from the client (its data)}"
  [ -n "$AT" ] && CAPTURE_POINT="receiver namespace, veth-r (the receiver's side of the relay: the client's segments when the relay released them, up to 450 ms after they left, the held ones back to back; the receiver's ACKs when it sent them)"
fi
lab_init "spurious-rto-$MODE${AT:+-$AT}${HELD:+-$HELD}"
LAB_MIDDLE=relay lab_topology
[ "$MODE" = frto ] && lab_sysctl net.ipv4.tcp_timestamps 0
lab_start 5001 $([ -n "$AT" ] && echo veth-r || echo veth-s)
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5001 --mode sink --max-conns 1 \
   --ready "$WORK/srv.ready" --timeout 60 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
$SNDX "$PY" "$LAB_DIR/peer.py" client --to $RADDR --port 5001 --mode bulk --bytes 1000000 --chunk 4096 --pace-ms 10 \
   --connected "$WORK/conn.json" --timeout 60 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
lab_wait_file "$WORK/conn.json" 10
SENDER=$SADDR:$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["lport"])' "$WORK/conn.json")
sleep 1
lab_relay_spike 0.45
wait $CLI
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json")}"
lab_finish
