#pragma once
// Shared helpers of the netstack tests: a sender/receiver pair on a
// simulated path, deterministic payloads, virtual-time literals, temporary
// capture files, and the external checkers (pcap-replay, tshark) run on them.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/command.hpp"
#include "common/paths.hpp"
#include "common/tools.hpp"
#include "netstack/receiver.hpp"
#include "netstack/sender.hpp"
#include "netstack/sim_network.hpp"

namespace nstest {

using std::chrono::microseconds;
using std::chrono::milliseconds;

/// Virtual time t = `ms` milliseconds.
inline rto::Instant at_ms(std::int64_t ms) { return rto::Instant{milliseconds{ms}}; }
/// Milliseconds since t = 0 (exact to the microsecond, as a double for messages).
inline double ms_of(rto::Instant t) { return static_cast<double>(t.time_since_epoch().count()) / 1000.0; }

/// Sender/receiver configs on 198.18.0.1:40000 -> 198.18.0.2:5001 (IPv4), or
/// fd00::1 -> fd00::2 when `v6`.
netstack::SenderConfig sender_config(bool v6 = false);
netstack::ReceiverConfig receiver_config(bool v6 = false);

/// A link with one-way delay `one_way` and nothing else.
netstack::LinkConfig plain_link(microseconds one_way);

/// The seed sweep's path, both ways: 10-49 ms one-way delay (by seed), 3 ms
/// jitter, 10 Mbit/s, a 30-packet queue, 5 % loss, 2 % reordering and 2 %
/// duplication; forward seeded with `seed`, reverse with seed * 7919.
void set_sweep_links(netstack::SimConfig& cfg, std::uint64_t seed);

/// `n` bytes of a deterministic pseudo-random pattern (seed picks the pattern).
std::vector<std::uint8_t> pattern(std::size_t n, std::uint64_t seed = 42);

/// A fresh directory under the system temp dir (not in the repo), removed at
/// exit unless NETSTACK_KEEP_CAPTURES is set.
std::filesystem::path temp_dir();

using testcommon::CommandResult;
using testcommon::repo_root;
using testcommon::run_command;
using testcommon::shared_dir;
using testcommon::skip_or_fail;

/// A path with 50 ms one-way delay each way (RTT 100 ms) and nothing else,
/// with the same blackholes `holes` in both directions.
netstack::SimConfig rtt100(const std::vector<netstack::SimInterval>& holes = {});

/// Number of sender->receiver (src port `sport`) frames tshark flags as
/// retransmissions of any kind (tcp.analysis.retransmission,
/// fast_retransmission, spurious_retransmission, and out_of_order, which in
/// a capture taken at the sender can only be a retransmission); nullopt when
/// tshark is not installed.
std::optional<long> tshark_retransmissions(const std::filesystem::path& pcap, std::uint16_t sport);

/// The path of the pcap-replay binary (build/bin or $BUILD/bin), if built.
std::optional<std::filesystem::path> pcap_replay_binary();

/// A pcap-replay finding a test expects (rule id and Wireshark frame number).
struct Expected {
  std::string rule;
  long frame;
};

/// Checks a simulated capture with the independent tools (doctest CHECKs):
/// `pcap-replay check --profile PROFILE --json` reports exactly `expected`
/// (normally nothing), no diagnostics and every timeout on time, and counts
/// `own` retransmissions for the flow from port 40000; tshark counts the
/// same. A tool that is missing is skipped with a MESSAGE (fails under CI=true).
void check_capture(const std::filesystem::path& pcap, long own, const std::vector<Expected>& expected = {},
                   const std::string& profile = "rfc6298");

}  // namespace nstest
