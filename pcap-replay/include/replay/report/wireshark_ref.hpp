#pragma once
// How Wireshark names what the report names: a connection's tcp.stream index
// and the display filter that shows a frame, so that a finding can be pasted
// into Wireshark's filter bar.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

#include <replay/analysis/flow_report.hpp>

namespace replay {

/// The tcp.stream index Wireshark gives each connection of a report when it
/// opens the connection's file: 0-based, in order of first frame, counting
/// only the connections of that file (Wireshark numbers each file it opens
/// from 0). A connection that starts with a SYN carrying the same ISN as the
/// SYN of the previous connection on its address pair (a SYN re-sent after
/// an RST or FIN: a new connection here) has that connection's index, as in
/// Wireshark, which starts a new stream only on a SYN with another ISN
/// (packet-tcp.c). Connections on other virtual networks (VLANs, VNIs) are
/// counted as Wireshark counts them by default, by addresses and ports only:
/// the same 4-tuple on VLAN 10 and VLAN 20 is one conversation to it, and
/// two connections here. A connection opened beside another of its 4-tuple
/// by a second server's SYN-ACK (FlowReport::alongside) has that one's
/// index, as in Wireshark (it flags the SYN-ACK "reused ports" and keeps the
/// stream). Unknown (nullopt) under a BPF filter (-f): Wireshark
/// numbers the connections the filter hides too, and they are not read.
/// Computed once for all connections (O(n log n)).
class StreamNumbers {
 public:
  explicit StreamNumbers(const Report& r);
  /// The index of connection `f` of the report; nullopt under -f or for a
  /// connection not in the report.
  std::optional<std::uint64_t> of(const FlowReport& f) const;

 private:
  bool known_ = false;
  std::unordered_map<std::size_t, std::uint64_t> by_id_;  // FlowReport::id -> tcp.stream
};

/// The same numbers as StreamNumbers, given one connection at a time, for a
/// report written as the connections are finished: feed every connection of
/// the input once, in FlowReport::id order. Holds one entry per address pair
/// and file seen (not per connection report).
class StreamCounter {
 public:
  /// `known`: false under a BPF filter (every answer is then nullopt).
  explicit StreamCounter(bool known);
  StreamCounter(const StreamCounter& o);
  StreamCounter(StreamCounter&&) noexcept;
  StreamCounter& operator=(StreamCounter o) noexcept;
  ~StreamCounter();
  /// The tcp.stream of `f`, the next connection in id order.
  std::optional<std::uint64_t> next(const FlowReport& f);

 private:
  // One entry per address pair seen (stream_pairs.cpp): hashed, so that
  // numbering a connection costs the same with a million pairs as with ten.
  struct Pairs;
  bool known_;
  std::map<std::size_t, std::uint64_t> next_;  // file_index -> next new stream
  std::unique_ptr<Pairs> pairs_;
};

/// The Wireshark display filter for one frame: "frame.number == 179".
std::string frame_filter(std::uint64_t frame);

/// The Wireshark display filter for connection `f`: "tcp.stream == 3" when
/// `stream` (its StreamNumbers::of) is known, else the address pair
/// "ip.addr == A && tcp.port == P && ip.addr == B && tcp.port == Q"
/// (ipv6.addr for IPv6). When another connection of its 4-tuple was open on
/// another virtual network (FlowReport::vnet_apart), which Wireshark merges
/// into one stream by default, the stream's filter also names its virtual
/// networks: "tcp.stream == 3 && (vlan.id == 10)".
std::string stream_filter(const FlowReport& f, std::optional<std::uint64_t> stream);

/// The display filter of one virtual network: "vlan.id == 10", stacked tags
/// by layer ("vlan.id#1 == 100 && vlan.id#2 == 200"), an 802.1ad service tag
/// "ieee8021ad.id == 100", "vxlan.vni == 5001",
/// "geneve.vni == 9", NVGRE's VSID in "gre.key & 0xffffff00 == 0x2a00";
/// none: "!(vlan.id > 0) && !ieee8021ad && !vxlan && !geneve".
std::string vnet_filter(const VirtualNetwork& v);

}  // namespace replay
