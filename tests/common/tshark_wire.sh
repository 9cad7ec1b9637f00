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
