#pragma once
// The deterministic simulator: one TcpSender and one TcpReceiver joined by two
// SimLinks (forward: sender -> receiver, reverse: receiver -> sender) and
// driven in virtual time. Optionally writes a pcap file of the traffic as the
// sender's host would capture it: outgoing datagrams when the sender emits
// them (before the link may drop them), incoming ones when they arrive.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "netstack/pcap_writer.hpp"
#include "netstack/receiver.hpp"
#include "netstack/sender.hpp"
#include "netstack/sim_link.hpp"
#include "rto/clock.hpp"

namespace netstack {

/// Parameters of a simulated path and its capture.
struct SimConfig {
  LinkConfig forward;  ///< sender -> receiver
  LinkConfig reverse;  ///< receiver -> sender
  /// When set, the capture is written here (raw IP pcap; PcapWriteError if it
  /// cannot be opened).
  std::optional<std::string> pcap_path;
  /// Added to every pcap timestamp (virtual time 0 = this many us after 1970).
  std::chrono::microseconds pcap_epoch{0};
  /// Safety stop: at most this many loop steps per run call (a stuck core
  /// throws std::runtime_error rather than spinning).
  std::uint64_t max_steps = 50'000'000;
};

/// Runs a sender and a receiver the caller owns (references are kept: both
/// must outlive the SimNetwork). Virtual time starts at the epoch of
/// rto::Instant (t = 0) unless run_until() is first called with a later time.
class SimNetwork {
 public:
  /// Joins `sender` and `receiver` by two links built from `config`; opens the
  /// capture file if one is asked for (PcapWriteError).
  SimNetwork(SimConfig config, TcpSender& sender, TcpReceiver& receiver);

  /// Processes every event (deliveries, core deadlines, output) up to and
  /// including virtual time `t`; afterwards now() == t.
  void run_until(rto::Instant t);

  /// Runs until the sender has finished (TimeWait, Failed or Reset), the
  /// receiver is closed and the links are idle, or until `limit`. Returns true
  /// when it finished before the limit.
  bool run_to_completion(rto::Instant limit);

  /// Virtual time of the last event processed.
  rto::Instant now() const { return now_; }
  /// The sender -> receiver link (its stats count what it lost).
  const SimLink& forward() const { return forward_; }
  /// The receiver -> sender link.
  const SimLink& reverse() const { return reverse_; }
  /// Records written to the pcap file so far (0 without one).
  std::uint64_t captured() const { return pcap_ ? pcap_->count() : 0; }
  /// Flushes and closes the capture (also done by the destructor).
  void close_capture();

 private:
  std::optional<rto::Instant> next_event() const;
  void step(rto::Instant t);
  void flush_outputs();

  SimConfig config_;
  TcpSender& sender_;
  TcpReceiver& receiver_;
  SimLink forward_;
  SimLink reverse_;
  std::unique_ptr<PcapWriter> pcap_;
  rto::Instant now_{};
};

}  // namespace netstack
