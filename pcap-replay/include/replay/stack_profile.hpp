#pragma once
// A TCP stack's retransmission-timer behaviour as data: one StackProfile per
// stack (RFC 6298 as written, Linux, FreeBSD, macOS, Windows). The timer
// model (timer_model.hpp) is one mechanism parameterised by a profile;
// adding a stack is one entry in stack_profile.cpp plus its tests. The CLI's
// --profile list comes from all_profiles().

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <rto/config.hpp>

namespace replay {

/// How a stack floors the RTO.
enum class FloorMode {
  on_sum,       ///< RFC 6298 2.4: RTO = max(min_rto, SRTT + max(G, 4 RTTVAR)).
  on_variance,  ///< Linux: the variance term is at least rto_min (RTO = SRTT + max(rto_min, ...)).
};

/// What RFC 6298 5.7 becomes in a stack.
enum class Fallback57 {
  rfc,                      ///< 3 s when data begins after a SYN timeout, until the next sample.
  only_without_handshake_sample,  ///< Linux tcp_init_metrics: 3 s only if the handshake gave no sample.
};

/// How late a stack's timers fire (never early).
enum class Lateness {
  none,         ///< fires on time (within the tolerance)
  linux_wheel,  ///< Linux timer wheel: up to one bucket late (4 ms under 252 ms, 32 ms under 2.016 s, ...)
};

/// A documented setting of a stack that changes its timer: a departure from
/// the profile's defaults that this setting explains is reported as INFO
/// naming it, not as MUST (e.g. Linux net.ipv4.tcp_rto_max_ms = 5000).
struct Tunable {
  enum class Kind {
    max_rto,       ///< the cap may be anywhere in [lo, hi]
    thin_linear,   ///< up to `count` data expiries of a thin stream keep the RTO (no doubling)
    syn_linear,    ///< the number of linear SYN expiries may be anything up to `count`
    initial_rto,   ///< the initial RTO may be anywhere in [lo, hi]
  };
  Kind kind;
  std::string_view name;  ///< the setting as its users know it, e.g. "net.ipv4.tcp_rto_max_ms"
  std::chrono::microseconds lo{0}, hi{0};
  unsigned count = 0;
};

/// Tail-loss probe rules (RFC 8985 7; Linux tcp_schedule_loss_probe).
struct ProbeRule {
  bool enabled = false;
  /// PTO = 2 SRTT + this when one segment is in flight (Linux: TCP_RTO_MIN,
  /// 200 ms; RFC 8985: WCDelAckT).
  std::chrono::microseconds single_segment_allowance{200'000};
  /// PTO = 2 SRTT + this otherwise (Linux: TCP_TIMEOUT_MIN, 2 jiffies).
  std::chrono::microseconds allowance{8'000};
};

/// One stack's timer behaviour.
struct StackProfile {
  std::string_view name;     ///< CLI name: "rfc6298", "linux", "freebsd", "macos", "windows"
  std::string_view title;    ///< "Linux 6.x defaults"
  std::string_view sources;  ///< where the numbers come from, in our words
  rto::Config config;        ///< estimator parameters (initial, floor, cap, G, tick, SYN linear, 5.7 RTO)
  FloorMode floor = FloorMode::on_sum;
  Fallback57 fallback_57 = Fallback57::rfc;
  Lateness lateness = Lateness::none;
  /// Added to every data RTO when the timer is armed (FreeBSD and Darwin
  /// tcp_rexmit_slop, 200 ms): the waits are RTO x 2^k + slop. Not to the
  /// SYN schedule (Darwin's SYNs go out 1 s apart exactly).
  std::chrono::microseconds additive{0};
  ProbeRule probe;
  /// Linux tcp_rearm_rto: with a loss-probe or RACK timer pending, the RTO
  /// deadline is the head segment's last transmission + RTO, and an ACK or
  /// SACK that yields an RTT sample re-arms it; a probe and a retransmission
  /// of the head restart it.
  bool rearm_from_head = false;
  /// The RFC 6298 requirements this stack departs from by design (for the
  /// report; the checks follow from the parameters above).
  std::string_view by_design;
  std::span<const Tunable> tunables;
};

/// Every profile, in the order `--profile auto` prefers them on a tie.
std::span<const StackProfile> all_profiles();
/// The profile named `name`; nullptr when there is none. "rfc" is an alias of "rfc6298".
const StackProfile* find_profile(std::string_view name);
/// "rfc6298, linux, freebsd, macos, windows".
std::string profile_names();

}  // namespace replay
