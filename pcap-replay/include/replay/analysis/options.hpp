#pragma once
// Analysis options: the stack profile the sender is checked against, the
// rto::Config it implies, and the tolerances.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <rto/config.hpp>

#include <replay/analysis/stack_profile.hpp>
#include <replay/analysis/thresholds.hpp>

namespace replay {

/// Everything the analysis needs to know besides the capture.
/// A set of frame numbers: [lo, hi] without `excluded`.
struct FrameSelection {
  std::uint64_t lo = 0, hi = ~std::uint64_t{0};
  std::vector<std::uint64_t> excluded;
  bool contains(std::uint64_t frame) const {
    if (frame < lo || frame > hi) return false;
    for (std::uint64_t x : excluded)
      if (x == frame) return false;
    return true;
  }
};

struct Options {
  /// The stack behaviour checked against (--profile); never null.
  const StackProfile* profile = find_profile("rfc6298");
  /// --profile auto: every sender is checked against each profile of
  /// all_profiles() and reported against the one that explains it best.
  bool auto_profile = false;
  /// Estimator configuration: the profile's, with --rto-min / --rto-max /
  /// --syn-linear applied.
  rto::Config config = rto::Config::rfc6298();
  /// Which of config's fields the user set (they are kept when --profile
  /// auto switches profile).
  bool user_min_rto = false, user_max_rto = false, user_syn_linear = false, user_granularity = false;
  /// The absolute part of every timing comparison's tolerance (default
  /// 1 ms). --granularity sets it and RFC 6298's G (config.granularity)
  /// alike: the clock's granularity is what a wait may be off by.
  std::chrono::microseconds absolute_tolerance{1000};
  /// Relative slack of every timing comparison, in percent of the predicted
  /// value (default 10 %). Kept below 50 % so that it can never hide a
  /// factor-of-two error (5.5).
  unsigned slack_percent = 10;
  /// A connection that is idle longer than this and then starts with a SYN
  /// is a new connection (port reuse), even without FIN/RST. One that cannot
  /// resume (reset, closed by a FIN from each side, or only SYNs nothing
  /// answered) is over once idle longer than this: any later segment on its
  /// 4-tuple is a new connection, and the analysis finishes it as the capture
  /// passes that point (its report written while the input is read). 300 s
  /// is more than twice RFC 9293's MSL (2 min, section 3.4.2): no segment of
  /// it can still be in the network, and no TIME-WAIT (Linux: 60 s) lasts so
  /// long.
  std::chrono::microseconds idle_split{std::chrono::seconds{300}};
  /// --max-flows: connections analysed in one run; the segments of later
  /// ones are not analysed and the run exits 2 (limits::kDefaultMaxFlows).
  std::size_t max_flows = limits::kDefaultMaxFlows;
  /// --max-outstanding: unacknowledged segments of one sender; a sender
  /// beyond it ends its connection's analysis there and the run exits 2
  /// (limits::kDefaultMaxOutstanding).
  std::size_t max_outstanding = limits::kDefaultMaxOutstanding;
  /// false: connections only (`pcap-replay flows`): no sender is modelled,
  /// so every SenderReport has only its addresses, and --max-outstanding,
  /// which bounds the models, never applies.
  bool model_senders = true;
  /// --shard K/N: this run analyses only the connections of shard `k` of
  /// `n` (shard_of); it still reads and routes every segment, so frame
  /// numbers, connection ids and tcp.stream numbers stay the whole input's,
  /// and the other connections' effects on what their hosts share (the TSval
  /// clock, the activity) are replayed without judging them
  /// (SenderEngine::feed_only). n == 1: every connection (the default).
  /// Every count of the Report is the shard's own; its connections are
  /// handed to the flow sink with the others' (FlowReport::elsewhere, for
  /// the tcp.stream numbers), which Report::flows keeps too when the sink
  /// keeps the reports.
  std::uint32_t shard_k = 1, shard_n = 1;
  /// Whether this run analyses connection `id` (FlowReport::id).
  bool owns(std::size_t id) const { return shard_n <= 1 || shard_of(id, shard_n) == shard_k; }
  /// The shard (1..n) of connection `id`: a hash of the id, so that
  /// neighbouring connections (a client's parallel ones) spread.
  static std::uint32_t shard_of(std::size_t id, std::uint32_t n);
  /// Filled by the CLI: a BPF expression (informational in the report).
  std::string filter;
  /// Frames asked about (-Y frame.number): each connection notes whether one
  /// of its packets is among them (FlowReport::has_selected_frame).
  std::optional<FrameSelection> frames;

  /// The defaults of a profile.
  static Options for_profile(const StackProfile& p);
  /// The defaults of the profile named `name` (see find_profile); throws
  /// std::invalid_argument naming the known profiles for an unknown name.
  static Options for_profile(std::string_view name);
  /// The same options against another profile (auto), keeping the user's overrides.
  Options with_profile(const StackProfile& p) const;

  /// Tolerance around a predicted duration: absolute_tolerance + slack_percent of it.
  std::chrono::microseconds tolerance(std::chrono::microseconds predicted) const;
};

}  // namespace replay
