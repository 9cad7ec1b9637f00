# Shell helpers for end-to-end scripts that ask tshark whether the TCP/IP
# in a capture is well formed. Source this file; it defines functions only.
#
# The payload of our test transfers is random bytes. tshark's heuristic
# dissectors sometimes take such bytes for an application protocol (Thrift,
# for one) and then flag that "protocol" as malformed, which says nothing
# about the headers under test. Every TCP port is therefore decoded as plain
# data, so only the link, IP and TCP layers are judged.
TSHARK_PAYLOAD_AS_DATA=(-d 'tcp.port==1-65535,data')

# wire_errors CAP: print the frames tshark marks malformed or with an
# expert item of severity "error" (frame number, then the expert messages),
# one per line; nothing when the capture is clean.
wire_errors() {
  tshark -r "$1" "${TSHARK_PAYLOAD_AS_DATA[@]}" \
    -Y "_ws.malformed || _ws.expert.severity == error" \
    -T fields -e frame.number -e _ws.expert.message 2>/dev/null
}

# bad_checksums CAP: print the frames whose IPv4 header or TCP checksum does
# not verify (frame number, source, the TCP checksum and what tshark
# computed), one per line; nothing when every checksum is good.
#
# tshark marks a TCP checksum 0xffff "bad" when it computes 0x0000. In ones'
# complement arithmetic the two are the same number (-0 and +0; RFC 1624
# section 3), and a receiver that verifies by summing the whole segment,
# checksum included, accepts either; Linux writes 0xffff when it updates a
# checksum incrementally. That case is counted as good.
bad_checksums() {
  tshark -r "$1" "${TSHARK_PAYLOAD_AS_DATA[@]}" -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE \
    -Y "ip.checksum.status == 0 || (tcp.checksum.status == 0 && !(tcp.checksum == 0xffff && tcp.checksum_calculated == 0x0000))" \
    -T fields -e frame.number -e ip.src -e ipv6.src -e tcp.checksum -e tcp.checksum_calculated 2>/dev/null
}

# wire_problems CAP: both checks above, as one message (empty when the capture
# is clean). Only for captures whose checksums are complete, such as the ones
# netstack writes at its TUN device; tcpdump on a veth sees the kernel's
# packets before checksum offload fills them in.
wire_problems() {
  local frames sums
  frames=$(wire_errors "$1")
  sums=$(bad_checksums "$1")
  [ -z "$frames" ] || printf 'tshark flags %s malformed/error packets (frame, expert messages):\n%s\n' \
    "$(wc -l <<<"$frames")" "$frames"
  [ -z "$sums" ] || printf 'tshark finds %s bad checksums (frame, source, TCP checksum, computed):\n%s\n' \
    "$(wc -l <<<"$sums")" "$sums"
}
