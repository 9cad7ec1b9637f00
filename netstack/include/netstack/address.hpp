#pragma once
// netstack's names for the project's one address and endpoint type, which
// lives in the wire format library (netstack/wire) that pcap-replay shares.

#include <wire/address.hpp>

namespace netstack {

using wire::Endpoint;   ///< address + port (wire/address.hpp)
using wire::IpAddress;  ///< IPv4 or IPv6 address (wire/address.hpp)

}  // namespace netstack
