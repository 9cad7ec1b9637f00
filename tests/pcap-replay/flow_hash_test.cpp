// The flow table's key (pcap-replay/src/analysis/flow_table.hpp): a segment
// and its reply are the same 4-tuple and hash alike; a change of any one
// address byte, port, address family or input file makes another 4-tuple,
// which compares unequal and (for these inputs) hashes apart.
#include <doctest/doctest.h>

#include <cstddef>
#include <set>
#include <vector>

#include "analysis/flow_table.hpp"

namespace {
using replay::Endpoint;
using replay::FlowEnds;

Endpoint v4(std::uint8_t last, std::uint16_t port) { return Endpoint{wire::IpAddress::v4(198, 18, 0, last), port}; }
}  // namespace

TEST_CASE("flow_hash and same_flow: either order is the same 4-tuple") {
  const Endpoint a = v4(1, 40000), b = v4(2, 5001);
  const FlowEnds ab{0, &a, &b}, ba{0, &b, &a};
  CHECK(replay::same_flow(ab, ba));
  CHECK(replay::flow_hash(ab) == replay::flow_hash(ba));
  const Endpoint self = v4(1, 40000);  // a connection from a socket to itself
  const FlowEnds aa{0, &a, &self};
  CHECK(replay::same_flow(aa, FlowEnds{0, &self, &a}));
}

TEST_CASE("flow_hash and same_flow: one field changed is another 4-tuple") {
  const Endpoint a = v4(1, 40000), b = v4(2, 5001);
  const FlowEnds ab{0, &a, &b};
  Endpoint a_port = a, a_byte = a, a_v6 = a, b_port = b;
  a_port.port = 40001;
  a_byte.address.bytes[15] = 1;  // a byte past the IPv4 four
  a_v6.address.version = 6;      // the same bytes as an IPv6 address
  b_port.port = 5002;
  // The swapped ports (40000 <-> 5001 between the ends) are another 4-tuple too.
  Endpoint a_swapped = a, b_swapped = b;
  a_swapped.port = 5001;
  b_swapped.port = 40000;
  const std::vector<FlowEnds> others{{0, &a_port, &b}, {0, &a_byte, &b}, {0, &a_v6, &b},
                                     {0, &a, &b_port}, {1, &a, &b},      {0, &a_swapped, &b_swapped}};
  std::set<std::uint64_t> hashes{replay::flow_hash(ab)};
  for (const FlowEnds& o : others) {
    CHECK_FALSE(replay::same_flow(ab, o));
    hashes.insert(replay::flow_hash(o));
  }
  CHECK(hashes.size() == others.size() + 1);  // seven 4-tuples, seven hashes
}
