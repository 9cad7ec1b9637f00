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

/// How late a stack's retransmission timer fires after its RTO (never early):
/// the lateness model the backoff check allows (analysis/engine/lateness.hpp).
enum class Lateness {
  /// A stack the profile does not name (RFC 6298 as written): proportionally
  /// late by up to --slack, or late by a constant that the chain's own waits
  /// show (read only once they pin it).
  inferred,
  proportional,  ///< up to --slack of the RTO late
  linux_wheel,   ///< Linux timer wheel: up to one bucket late (at most 8/63 of the timeout, plus a jiffy)
  additive,      ///< `additive` late on every arm (FreeBSD's and Darwin's retransmit slop), plus its tick
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
    min_rto,       ///< the RTO's minimum (the profile's floor) may be anywhere in [lo, hi]
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
  /// PTO = 2 SRTT + this otherwise (Linux 6.x: TCP_TIMEOUT_MIN_US, 2 ms;
  /// before, 2 jiffies). The sum is rounded up to the profile's tick.
  std::chrono::microseconds allowance{8'000};
  /// The stack's own probe timer is known exactly (Linux
  /// tcp_schedule_loss_probe): the allowances above, not anything from the
  /// bare 2 SRTT on (RFC 8985 7.2 leaves WCDelAckT to the stack), and the
  /// timer re-armed at every transmission of new data (tcp_write_xmit), so
  /// a probe comes a PTO after the later of the last ACK and the last send.
  bool exact = false;
  /// The most loss probes the stack sends in one flight without an ACK
  /// between (Linux since 5.9, "tcp: allow at most one TLP probe per
  /// flight", and RFC 8985's design: 1; FreeBSD's RACK stack,
  /// rack_tlp_limit: 2); 0 where not known. Only with 1 are a probe's
  /// readings (ChainJudge::settle) all a repeat after it may have.
  unsigned max_per_flight = 0;
};

/// One stack's timer behaviour.
struct StackProfile {
  std::string_view name;     ///< CLI name: "rfc6298", "linux", "freebsd", "macos", "windows"
  std::string_view title;    ///< "Linux 6.x defaults"
  std::string_view sources;  ///< where the numbers come from, in our words
  rto::Config config;        ///< estimator parameters (initial, floor, cap, G, tick, SYN linear, 5.7 RTO)
  FloorMode floor = FloorMode::on_sum;
  Fallback57 fallback_57 = Fallback57::rfc;
  Lateness lateness = Lateness::inferred;
  /// Lateness::additive: added to every data RTO when the timer is armed
  /// (FreeBSD and Darwin tcp_rexmit_slop, 200 ms): the waits are RTO x 2^k +
  /// slop. Not to the SYN schedule (Darwin's SYNs go out 1 s apart exactly).
  std::chrono::microseconds additive{0};
  ProbeRule probe;
  /// The stack's maximum RTO is config.max_rto exactly (Linux's 120 s,
  /// FreeBSD's and Darwin's 64 s). Otherwise config.max_rto is the least cap
  /// allowed (RFC 6298 2.5's 60 s): any cap from it on, or none, fits.
  bool cap_known = false;
  /// The stack takes an RTT sample from newly SACKed, never retransmitted
  /// data, duplicate ACKs included (Linux tcp_ack_update_rtt's sack_rtt).
  /// RFC 6298 and RFC 7323 sample only ACKs that advance SND.UNA.
  bool sack_rtt_samples = false;
  /// Linux tcp_rearm_rto: with a loss-probe or RACK timer pending, the RTO
  /// deadline is the head segment's last transmission + RTO, and an ACK or
  /// SACK that yields an RTT sample re-arms it; a probe and a retransmission
  /// of the head restart it.
  bool rearm_from_head = false;
  /// The RFC 6298 requirements this stack departs from by design (for the
  /// report; the checks follow from the parameters above).
  std::string_view by_design;
  std::span<const Tunable> tunables;
  /// The stack numbers a connection's IPv4 packets with a counter of its
  /// own, one per segment sent (Linux include/net/ip.h ip_select_ident_segs:
  /// a connected socket's DF packets take inet_id, advanced by the segment
  /// count): an ID skipped on a connection is a packet of that connection
  /// the capture did not see.
  bool ip_id_per_connection = false;
};

/// Every profile, in the order `--profile auto` prefers them on a tie.
std::span<const StackProfile> all_profiles();
/// The profile named `name`; nullptr when there is none. "rfc" is an alias of "rfc6298".
const StackProfile* find_profile(std::string_view name);
/// "rfc6298, linux, freebsd, macos, windows".
std::string profile_names();

}  // namespace replay
