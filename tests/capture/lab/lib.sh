# Shared shell functions of the capture lab (sourced by every scenario script).
#
#   source "$(dirname "$0")/lib.sh"
#   lab_init NAME            # namespaces lab-PID-s / lab-PID-r, work dir, traps
#   lab_topology             # veth pair 198.18.0.1 (sender) <-> 198.18.0.2 (receiver)
#   lab_sysctl KEY VALUE     # in the SENDER namespace, recorded in truth.json
#   lab_nft_rule CHAIN NAME RULE   # add a rule (receiver ns, chain pre|out), event logged
#   lab_nft_del NAME         # remove it again, event logged with its counter
#   lab_start PORTS          # nstat before, tcpdump at the sender's veth, tcp_info sampler
#   lab_event NAME [JSON-FIELDS]
#   lab_wait_tcpinfo FIELD MIN TIMEOUT_S [PORTS]   # until max(FIELD) >= MIN
#   lab_finish               # stop capture/sampler/labeller, nstat after, write outputs
#
# Every run is traced by labels.py (bpftrace on the kernel's tcp tracepoints):
# NAME.labels.csv names the kernel's reason for each segment sent again, at
# its frame. CAPTURE_ADDR (default the sender's) is the host on whose
# interface tcpdump listens.
#
# Every scenario sets EXPECT_* (the numbers the scenario is designed to give);
# lab_finish fails if the kernel's counters disagree, so a committed capture
# always matches its truth.json.
# Topology: no added delay (this kernel has no netem), RTT is the veth's.

set -euo pipefail

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$LAB_DIR/../../.." && pwd)
OUTDIR=${OUTDIR:-$REPO/tests/captures/lab}
SADDR=198.18.0.1
RADDR=198.18.0.2
SNAPLEN=${SNAPLEN:-128}
PIDS=()
# The interpreter itself, not a version-manager shim (a shim costs ~0.1 s a call).
PY=$(python3 -c 'import sys; print(sys.executable)')
LAB_SAMPLER_PID=
LAB_TCPDUMP_PID=
LAB_TRACER_PID=

lab_now() { date +%s.%N | cut -c1-17; }
lab_log() { echo "[$(date -u +%T.%3N)] $SCENARIO: $*" >&2; }

lab_cleanup() {
  local rc=$?
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.2
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  ip netns del "$SND" 2>/dev/null || true
  ip netns del "$RCV" 2>/dev/null || true
  [ -n "${MID:-}" ] && ip netns del "$MID" 2>/dev/null || true
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
  exit $rc
}

lab_init() {
  SCENARIO=$1
  [ "$(id -u)" -eq 0 ] || { echo "$SCENARIO: needs root (network namespaces, nft)" >&2; exit 77; }
  for t in ip nft tcpdump python3 nstat tshark bpftrace; do
    command -v "$t" >/dev/null || { echo "$SCENARIO: missing tool: $t" >&2; exit 77; }
  done
  SND=lab-$$-s
  RCV=lab-$$-r
  SNDX="ip netns exec $SND"
  RCVX="ip netns exec $RCV"
  WORK=$(mktemp -d /tmp/lab-$SCENARIO.XXXXXX)
  : >"$WORK/events.jsonl"; : >"$WORK/sysctls.tsv"; : >"$WORK/rules.jsonl"
  trap lab_cleanup EXIT
  trap 'exit 130' INT HUP
  trap 'exit 143' TERM
  mkdir -p "$OUTDIR"
  SENDER=${SENDER:-$SADDR}
  NOTES=${NOTES:-}
  CAPTURE_ADDR=${CAPTURE_ADDR:-$SADDR}
}

# Runs a command in the sender / receiver namespace. For a background job use
# `$SNDX cmd &` (no function: $! must be the process itself, so kill reaches it).
snd() { ip netns exec "$SND" "$@"; }
rcv() { ip netns exec "$RCV" "$@"; }

lab_event() {
  local t; t=$(lab_now)
  "$PY" -c 'import json,sys; d={"t_wall": float(sys.argv[1]), "event": sys.argv[2]}; d.update(json.loads(sys.argv[3] or "{}")); print(json.dumps(d))' \
    "$t" "$1" "${2:-}" >>"$WORK/events.jsonl"
  lab_log "event $1 ${2:-}"
}

lab_topology() {
  ip netns add "$SND"
  ip netns add "$RCV"
  ip link add veth-s netns "$SND" type veth peer name veth-r netns "$RCV"
  ip -n "$SND" addr add $SADDR/24 dev veth-s
  ip -n "$RCV" addr add $RADDR/24 dev veth-r
  for ns in "$SND" "$RCV"; do ip -n "$ns" link set lo up; done
  # One MSS per skb on the wire side of the capture (no GSO/TSO super-packets).
  ip -n "$SND" link set veth-s gso_max_segs 1 2>/dev/null || true
  ip -n "$RCV" link set veth-r gso_max_segs 1 2>/dev/null || true
  ip -n "$SND" link set veth-s up
  ip -n "$RCV" link set veth-r up
  # Same congestion control as the shared reference traces (the host default
  # is bbr). A non-init namespace may not make cubic its default (EPERM), so
  # peer.py sets it per socket (TCP_CONGESTION) from LAB_CC (LAB_CC=bbr
  # in the environment: the host's default, for a run of the lab under it).
  export LAB_CC=${LAB_CC:-cubic}
  rcv nft -f - <<NFT
table inet lab {
  chain pre { type filter hook prerouting priority raw; policy accept; }
  chain out { type filter hook output priority raw; policy accept; }
}
NFT
  NFT_NS=$RCV; NFT_TABLE="inet lab"
  case ${LAB_MIDDLE:-0} in
    1) lab_middle bridge ;;
    relay) lab_middle relay ;;
    delay) lab_middle delay ;;
  esac
  # The receiver ACKs every segment at once (route option quickack): with a
  # veth RTT of ~0.05 ms the sender's TLP timeout (2*srtt + 2 ms) is shorter
  # than a delayed ACK (>= 40 ms), and delayed ACKs would make spurious
  # probes at random. LAB_RCV_QUICKACK=0 keeps delayed ACKs.
  if [ "${LAB_RCV_QUICKACK:-1}" = 1 ]; then
    ip -n "$RCV" route change 198.18.0.0/24 dev veth-r proto kernel scope link src $RADDR quickack 1
  fi
}

# lab_middle bridge|relay: a third namespace lab-PID-m between the two ends
# (sender veth-s <-> veth-ms [middle] veth-mr <-> veth-r receiver).
#   bridge: a bridge br0; the drop rules move there (table bridge lab, chain
#     mid). A drop in the middle is invisible to both TCP stacks; a drop in a
#     namespace's own OUTPUT hook is not: the send then fails with EPERM, and
#     e.g. a listener whose SYN-ACK retransmission fails drops the request
#     socket (reqsk_timer_handler), so the client's later segments get RSTs.
#   relay: relay.py forwards the frames (AF_PACKET) and can hold the
#     receiver's frames and release them later (lab_relay_spike): a delay
#     spike. Drop rules stay in the receiver.
#   delay: relay.py forwards every frame LAB_DELAY_MS (default 20) ms after it
#     came, each way (a path of 2 x LAB_DELAY_MS RTT), and the drop rules
#     move to the middle (table netdev lab: chain pre on the way to the
#     receiver, out on the way back, egress hooks of the middle's veths): a
#     drop there is upstream of a capture at either end, as on a real path.
lab_middle() {
  local mode=${1:-bridge}
  LAB_MIDDLE_MODE=$mode
  MID=lab-$$-m
  ip netns add "$MID"
  ip -n "$SND" link del veth-s
  ip link add veth-s netns "$SND" type veth peer name veth-ms netns "$MID"
  ip link add veth-r netns "$RCV" type veth peer name veth-mr netns "$MID"
  ip -n "$SND" addr add $SADDR/24 dev veth-s
  ip -n "$RCV" addr add $RADDR/24 dev veth-r
  [ "$mode" = bridge ] && ip -n "$MID" link add br0 type bridge
  for d in veth-ms veth-mr; do
    ip -n "$MID" link set $d gso_max_segs 1 2>/dev/null || true
    if [ "$mode" = bridge ]; then ip -n "$MID" link set $d master br0; else ip -n "$MID" link set $d promisc on; fi
    ip -n "$MID" link set $d up
  done
  ip -n "$SND" link set veth-s gso_max_segs 1 2>/dev/null || true
  ip -n "$RCV" link set veth-r gso_max_segs 1 2>/dev/null || true
  ip -n "$SND" link set veth-s up
  ip -n "$RCV" link set veth-r up
  if [ "$mode" = bridge ]; then
    ip -n "$MID" link set br0 up
    ip netns exec "$MID" nft -f - <<NFT
table bridge lab {
  chain mid { type filter hook forward priority 0; policy accept; }
}
NFT
    NFT_NS=$MID; NFT_TABLE="bridge lab"
  else
    # relay.py holds the frames that come in on --b: the receiver's (veth-mr,
    # its ACKs), or with LAB_RELAY_HOLD=sender the sender's (veth-ms, its data).
    local a=veth-ms b=veth-mr delay=()
    [ "${LAB_RELAY_HOLD:-receiver}" = sender ] && { a=veth-mr; b=veth-ms; }
    if [ "$mode" = delay ]; then
      delay=(--delay-ms "${LAB_DELAY_MS:-20}")
      ip netns exec "$MID" nft -f - <<NFT
table netdev lab {
  chain pre { type filter hook egress device veth-mr priority 0; policy accept; }
  chain out { type filter hook egress device veth-ms priority 0; policy accept; }
}
NFT
      NFT_NS=$MID; NFT_TABLE="netdev lab"
    fi
    ip netns exec "$MID" "$PY" "$LAB_DIR/relay.py" --a $a --b $b "${delay[@]}" --ready "$WORK/relay.ready" \
        --log "$WORK/relay.log" &
    LAB_RELAY_PID=$!; PIDS+=($!)
    lab_wait_file "$WORK/relay.ready" 10
  fi
  for _ in $(seq 100); do ip netns exec "$SND" ping -c1 -W0.2 $RADDR >/dev/null 2>&1 && break; sleep 0.05; done
}

# lab_relay_spike SECONDS: the relay holds every frame from the receiver (its
# ACKs; with LAB_RELAY_HOLD=sender, from the sender: its data) for SECONDS,
# then sends what it held, in order, and forwards again.
# The event has the relay's own times (hold, release, frames held).
lab_relay_spike() {
  kill -USR1 "$LAB_RELAY_PID"
  sleep "$1"
  kill -USR2 "$LAB_RELAY_PID"
  sleep 0.1
  local h r n
  h=$(awk '$2 == "hold" {t=$1} END {print t}' "$WORK/relay.log")
  read -r r n < <(awk '$2 == "release" {t=$1; n=$3} END {print t, n}' "$WORK/relay.log")
  echo "{\"t_wall\": ${h:-0}, \"event\": \"relay_hold\", \"direction\": \"$([ "${LAB_RELAY_HOLD:-receiver}" = sender ] && echo 'sender->receiver' || echo 'receiver->sender')\", \"seconds\": $1, \"released_at\": ${r:-null}, \"frames_held\": ${n:-0}}" >>"$WORK/events.jsonl"
  lab_log "relay held the ${LAB_RELAY_HOLD:-receiver}'s frames from $h to ${r:-?} (${n:-0} frames)"
}

lab_sysctl() {
  snd sysctl -qw "$1=$2"
  printf '%s\t%s\n' "$1" "$(snd sysctl -n "$1" | tr '\t' ' ')" >>"$WORK/sysctls.tsv"
}

# lab_nft_rule CHAIN NAME MATCH... VERDICT : `counter` goes before the verdict
# (the last word), the rule gets comment NAME.
lab_nft_rule() {
  local chain=$1 name=$2; shift 2
  local args=("$@") verdict=${*: -1}
  unset 'args[${#args[@]}-1]'
  ip netns exec "$NFT_NS" nft add rule $NFT_TABLE "$chain" "${args[@]}" counter "$verdict" comment "\"$name\""
  "$PY" -c 'import json,sys; print(json.dumps({"name": sys.argv[1], "chain": sys.argv[2], "rule": sys.argv[3]}))' \
    "$name" "$chain" "$*" >>"$WORK/rules.jsonl"
  lab_event rule_added "{\"rule\": \"$name\", \"chain\": \"$chain\", \"nft\": $("$PY" -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$*")}"
}

lab_nft_counter() {  # packets matched so far by rule NAME
  ip netns exec "$NFT_NS" nft -a list table $NFT_TABLE | grep "comment \"$1\"" | grep -oE 'packets [0-9]+' | head -n1 | cut -d' ' -f2
}

lab_nft_handle() {  # prints "CHAIN HANDLE" of rule NAME
  ip netns exec "$NFT_NS" nft -a list table $NFT_TABLE | awk -v n="comment \"$1\"" '/chain /{c=$2} index($0,n){print c, $NF; exit}'
}

lab_nft_del() {
  local name=$1 line pk
  line=$(lab_nft_handle "$name")
  pk=$(lab_nft_counter "$name" || true)
  ip netns exec "$NFT_NS" nft delete rule $NFT_TABLE ${line% *} handle ${line##* }
  lab_event rule_removed "{\"rule\": \"$name\", \"dropped_packets\": ${pk:-0}}"
}

# lab_del_rule_when NAME FIELD MIN TIMEOUT_S : removes rule NAME as soon as
# max(FIELD) >= MIN on the sender's sockets (the waiter deletes it itself,
# ~2-30 ms after the kernel state changed), and logs when.
lab_del_rule_when() {
  local name=$1 line v t_seen t_del w
  line=$(lab_nft_handle "$name")
  # In the background + `wait`: a trapped INT/TERM interrupts `wait` at once
  # (a foreground child would delay the trap until it ends).
  $SNDX "$PY" "$LAB_DIR/tcpinfo.py" wait --ports "$PORTS" --field "$2" --min "$3" --timeout "$4" \
        --then "ip netns exec $NFT_NS nft delete rule $NFT_TABLE ${line% *} handle ${line##* }" >"$WORK/wait.out" &
  w=$!; PIDS+=($w)
  if ! wait $w; then lab_log "timeout waiting for $2 >= $3"; return 1; fi
  read -r v t_seen t_del <"$WORK/wait.out"
  lab_log "$2 reached $v at $t_seen; rule $name removed at $t_del"
  echo "{\"t_wall\": $t_del, \"event\": \"rule_removed\", \"rule\": \"$name\", \"trigger\": \"$2 >= $3 in the sender's tcp_info\", \"t_trigger_seen\": $t_seen}" >>"$WORK/events.jsonl"
}

lab_nstat() {  # lab_nstat NS FILE : absolute counters, no history file touched
  ip netns exec "$1" nstat -asz 2>/dev/null | awk 'NF>=2 && $1 !~ /^#/ {print $1"\t"$2}' >"$2"
}

lab_tcpinfo() { snd "$PY" "$LAB_DIR/tcpinfo.py" get --ports "${2:-$PORTS}" --field "$1" --max; }

# lab_wait_tcpinfo FIELD MIN TIMEOUT_S [PORTS] : waits until max over the
# sender's sockets of FIELD >= MIN (tcpinfo.py polls every 2 ms in-process).
lab_wait_tcpinfo() {
  local w
  $SNDX "$PY" "$LAB_DIR/tcpinfo.py" wait --ports "${4:-$PORTS}" --field "$1" --min "$2" --timeout "$3" >"$WORK/wait.out" &
  w=$!; PIDS+=($w)
  if wait $w; then lab_log "$1 reached $(cat "$WORK/wait.out")"; return 0; fi
  lab_log "timeout waiting for $1 >= $2"; return 1
}

# lab_start PORTS [IFACE] : PORTS is a comma list of the lab's TCP ports.
lab_start() {
  PORTS=$1
  local iface=${2:-} filter="" p
  [ -z "$iface" ] && { iface=veth-s; [ "$CAPTURE_ADDR" = "$RADDR" ] && iface=veth-r; }
  for p in ${PORTS//,/ }; do filter="${filter:+$filter or }tcp port $p"; done
  # The kernel's labels: bpftrace over both namespaces' sockets (attaching
  # takes a few seconds: it reads the kernel's BTF).
  "$PY" "$LAB_DIR/labels.py" trace --ns "$SND" --ns "$RCV" --out "$WORK/labels.raw" \
      --ready "$WORK/labels.ready" 2>"$WORK/labels.trace.err" &
  LAB_TRACER_PID=$!; PIDS+=($!)
  for _ in $(seq 1200); do
    [ -e "$WORK/labels.ready" ] && break
    kill -0 "$LAB_TRACER_PID" 2>/dev/null || { cat "$WORK/labels.trace.err" >&2; return 1; }
    sleep 0.1
  done
  [ -e "$WORK/labels.ready" ] || { lab_log "bpftrace did not attach"; return 1; }
  lab_nstat "$SND" "$WORK/nstat.snd.before"
  lab_nstat "$RCV" "$WORK/nstat.rcv.before"
  local ns=$SND
  [ "$CAPTURE_ADDR" = "$RADDR" ] && ns=$RCV
  ip netns exec "$ns" tcpdump -i "$iface" ${LAB_TCPDUMP_OPTS:-} -s "$SNAPLEN" --immediate-mode -U -w "$WORK/cap.pcap" "$filter" 2>"$WORK/tcpdump.err" &
  LAB_TCPDUMP_PID=$!; PIDS+=($!)
  for _ in $(seq 200); do grep -q "listening on" "$WORK/tcpdump.err" 2>/dev/null && break; sleep 0.02; done
  $SNDX "$PY" "$LAB_DIR/tcpinfo.py" sample --ports "$PORTS" --out "$WORK/tcpinfo.csv" \
      --interval-ms 10 --ready "$WORK/sampler.ready" &
  LAB_SAMPLER_PID=$!; PIDS+=($!)
  for _ in $(seq 200); do [ -e "$WORK/sampler.ready" ] && break; sleep 0.02; done
  lab_event capture_start "{\"interface\": \"$iface\", \"namespace\": \"$([ "$ns" = "$SND" ] && echo sender || echo receiver)\", \"filter\": \"$filter\", \"snaplen\": $SNAPLEN}"
}

lab_wait_file() {  # lab_wait_file FILE TIMEOUT_S
  local i
  for i in $(seq $(( ${2:-10} * 100 ))); do [ -e "$1" ] && return 0; sleep 0.01; done
  lab_log "timeout waiting for $1"; return 1
}

# lab_tcpdump_stop PID: stops the tcpdump whose summary goes to
# $WORK/tcpdump.err, and fails (its summary in the log) unless every packet
# its filter took is in the file (without --immediate-mode, libpcap's
# TPACKET_V3 ring hands a block over only when it is full or 1 s old, and a
# tcpdump stopped by a signal loses the rest). bench/kernel-shapes.sh uses it too.
lab_tcpdump_stop() {
  kill -INT "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  local got took
  got=$(awk '/packets captured/ {print $1}' "$WORK/tcpdump.err")
  took=$(awk '/packets received by filter/ {print $1}' "$WORK/tcpdump.err")
  if [ "${got:-x}" != "${took:-y}" ] || grep -q '^[1-9][0-9]* packets dropped by kernel' "$WORK/tcpdump.err"; then
    lab_log "tcpdump lost packets: $(tr '\n' ' ' <"$WORK/tcpdump.err")"
    return 1
  fi
}

# lab_finish : stops capture and sampler, takes the counters and writes
# OUTDIR/SCENARIO.{pcap,truth.json,tcpinfo.csv[.gz]}.
lab_finish() {
  sleep 0.3
  lab_event capture_stop
  lab_tcpdump_stop "$LAB_TCPDUMP_PID" || return 1
  kill -TERM "$LAB_SAMPLER_PID" 2>/dev/null || true
  wait "$LAB_SAMPLER_PID" 2>/dev/null || true
  lab_nstat "$SND" "$WORK/nstat.snd.after"
  lab_nstat "$RCV" "$WORK/nstat.rcv.after"
  kill -TERM "$LAB_TRACER_PID" 2>/dev/null || true
  wait "$LAB_TRACER_PID" 2>/dev/null || true
  if ! "$PY" "$LAB_DIR/labels.py" match --raw "$WORK/labels.raw" --pcap "$WORK/cap.pcap" \
       --out "$WORK/labels.csv" --summary "$WORK/labels.json" --capture-addr "$CAPTURE_ADDR"; then
    lab_log "the kernel's labels are incomplete (see above); nothing written"
    return 1
  fi
  snd bash -c 'for k in tcp_timestamps tcp_sack tcp_dsack tcp_window_scaling tcp_early_retrans tcp_recovery tcp_frto tcp_rto_min_us tcp_rto_max_ms tcp_syn_retries tcp_syn_linear_timeouts tcp_thin_linear_timeouts tcp_retries1 tcp_retries2 tcp_congestion_control tcp_no_metrics_save; do f=/proc/sys/net/ipv4/$k; [ -r $f ] && printf "net.ipv4.%s\t%s\n" $k "$(tr "\t" " " <$f)"; done' >"$WORK/sysctls.all.tsv"
  # A scenario captured at the receiver that describes its sender-side
  # capture point: the receiver's view, and what a path in the middle adds.
  if [ "$CAPTURE_ADDR" = "$RADDR" ] && [[ "${CAPTURE_POINT:-}" != receiver* ]]; then
    CAPTURE_POINT="receiver namespace, veth-r (CAPTURE_ADDR=$RADDR: the sender's segments as they arrived, none the path dropped; the receiver's own when it sent them)"
  fi
  [ "${LAB_MIDDLE_MODE:-}" = delay ] &&
    CAPTURE_POINT="${CAPTURE_POINT:-}; the path: relay.py in a middle namespace, ${LAB_DELAY_MS:-20} ms each way, the drop rules there, between the two ends"
  "$PY" "$LAB_DIR/mktruth.py" --scenario "$SCENARIO" --work "$WORK" --outdir "$OUTDIR" \
    --sender "$SENDER" --sender-addr "$SADDR" --ports "$PORTS" --notes "$NOTES" \
    --expect-timeouts "${EXPECT_TIMEOUTS:-}" --expect-loss-probes "${EXPECT_LOSS_PROBES:-}" \
    --expect-syn "${EXPECT_SYN:-}" --expect-counters "${EXPECT_COUNTERS:-}" \
    --middle "${LAB_MIDDLE_MODE:-}" --capture-addr "$CAPTURE_ADDR" --description "${DESCRIPTION:-}" --capture-point "${CAPTURE_POINT:-}" \
    --made-by "tests/capture/lab/$SCENARIO.sh"
}
