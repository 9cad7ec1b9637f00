#pragma once
// The server of the reconnect storm: one port that is closed (answers every
// SYN with a RST, RFC 9293 3.10.7.1) or silent (drops every SYN, as a
// firewall or an overloaded host does) until `opens_at`, then listens: each
// new client endpoint gets its own netstack::TcpReceiver, which completes the
// handshake.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "netstack/address.hpp"
#include "netstack/receiver.hpp"
#include "rto/clock.hpp"

namespace storm {

/// What the server does with SYNs before it opens.
enum class OutageMode {
  refuse,  ///< the port is closed: RST,ACK for each SYN (the client fails at once)
  silent,  ///< nothing answers: the SYN is dropped (the client times out)
};

/// "refuse" or "silent".
const char* to_string(OutageMode m);

/// One server port with an outage, then a listener.
class StormServer {
 public:
  /// Serves `local`; closed or silent (by `mode`) before `opens_at`, listening from then on.
  StormServer(netstack::Endpoint local, OutageMode mode, rto::Instant opens_at);

  /// A datagram from a client arrived at `now`: answered, dropped or handed
  /// to the client's TcpReceiver (created on its first SYN after opens_at).
  void on_datagram(std::span<const std::uint8_t> ip, rto::Instant now);
  /// Fires the receivers' deadlines at or before `now` (SYN-ACK retransmissions).
  void on_tick(rto::Instant now);
  /// The earliest receiver deadline; nullopt when none.
  std::optional<rto::Instant> next_deadline() const;
  /// Datagrams to send back, in order, moved out.
  std::vector<std::vector<std::uint8_t>> take_output();

  /// Connections the listener has accepted (receiver Established), so far.
  std::size_t established() const;

 private:
  using Key = std::pair<std::array<std::uint8_t, 16>, std::uint16_t>;
  netstack::Endpoint local_;
  OutageMode mode_;
  rto::Instant opens_at_;
  std::map<Key, netstack::TcpReceiver> receivers_;
  std::vector<std::vector<std::uint8_t>> out_;
  std::uint16_t ip_id_ = 1;
};

}  // namespace storm
