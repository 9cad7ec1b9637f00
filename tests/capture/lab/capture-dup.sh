#!/usr/bin/env bash
# capture-dup: every packet is in the capture TWICE. The sender's veth is a
# port of a bridge br0 in the sender namespace (the address 198.18.0.1 is on
# br0), and tcpdump listens on `any` (Linux cooked capture v1, LINUX_SLL), so
# each packet is captured on br0 and again on veth-s, a few microseconds
# apart, identical at the TCP level (same seq, TSval, IP ID). Traffic: a paced
# bulk upload (client 198.18.0.1 -> sink 198.18.0.2:5001); 0.5 s in, a
# blackhole (receiver prerouting, all segments from the sender) until the
# sender's tcp_info shows total_rto >= 3; the 4th RTO gets through.
#
#   sudo bash tests/capture/lab/capture-dup.sh
source "$(dirname "$0")/lib.sh"
CAPTURE_POINT="sender namespace, tcpdump -i any (LINUX_SLL): each packet twice, on br0 and on its port veth-s; drops at the receiver's prerouting"
DESCRIPTION="paced 300 KB bulk upload captured twice per packet (bridge + port, -i any); blackhole from 0.5 s until total_rto reached 3; the 4th RTO gets through."
EXPECT_TIMEOUTS=4
NOTES="4 RTO expiries (gaps ~0.2 after the probe, then 0.41, 0.82, 1.64 s), NOT 8: the second copy of a frame (same seq, same TSval, same IP ID, same direction, <1 ms later, other interface) is a capture duplicate, not a retransmission; a correct checker counts TcpRetransSegs retransmissions (see nstat_delta), not twice that. tshark's tcp.analysis flags every duplicate (pcap_check.tshark_* counts are ~2x + duplicates of originals). In cooked v1 the two copies differ only in their timestamps (a few us apart); dedupe on (direction, seq, len, IP ID, TSval)."
lab_init capture-dup
lab_topology
ip -n "$SND" link add br0 type bridge
ip -n "$SND" addr del $SADDR/24 dev veth-s
ip -n "$SND" link set veth-s master br0
ip -n "$SND" addr add $SADDR/24 dev br0
ip -n "$SND" link set br0 gso_max_segs 1 2>/dev/null || true
ip -n "$SND" link set br0 up
for _ in $(seq 100); do [ "$(ip -n "$SND" -br link show br0 | awk '{print $2}')" = UP ] && break; sleep 0.05; done
sleep 0.5
LAB_TCPDUMP_OPTS="-y LINUX_SLL" lab_start 5001 any
$RCVX "$PY" "$LAB_DIR/peer.py" server --bind $RADDR --port 5001 --mode sink --max-conns 1 \
   --ready "$WORK/srv.ready" --timeout 60 >"$WORK/server.json" &
SRV=$!; PIDS+=($SRV)
lab_wait_file "$WORK/srv.ready" 10
$SNDX "$PY" "$LAB_DIR/peer.py" client --to $RADDR --port 5001 --mode bulk --bytes 300000 --chunk 4096 --pace-ms 10 \
   --connected "$WORK/conn.json" --timeout 60 >"$WORK/client.json" &
CLI=$!; PIDS+=($CLI)
lab_wait_file "$WORK/conn.json" 10
SENDER=$SADDR:$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["lport"])' "$WORK/conn.json")
sleep 0.5
lab_nft_rule pre blackhole ip saddr $SADDR tcp dport 5001 drop
lab_del_rule_when blackhole total_rto 3 30
wait $CLI
wait $SRV
lab_event transfer_done "{\"client\": $(cat "$WORK/client.json"), \"server\": $(cat "$WORK/server.json")}"
lab_finish
