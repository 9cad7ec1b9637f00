#pragma once
// A profile of the retransmission timer: RFC 6298's numbers, or the Linux
// kernel's (net/ipv4/tcp_input.c, tcp_timer.c). A plain value: estimators and
// timers copy the few constants they need from it.

#include <chrono>
#include <stdexcept>

#include "rto/export.h"

namespace rto {

/// Thrown by Config::validate() (and so by the estimators' and the timer's constructors) when a
/// configuration is outside what its variant allows. what() names the field,
/// e.g. "rto::Config.max_rto: 30000000 us is below the 60 s RFC 6298 (2.5) minimum".
class RTO_API ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Parameters of the retransmission timeout: the estimator's (initial RTO,
/// floor, cap, G, tick) and the timer's (cap, SYN linear expiries, 5.7
/// fallback, section 5 reset). All durations are microseconds. Build one with
/// rfc6298() or linux_default() and adjust fields; the estimators and
/// RetransmissionTimer validate it when built from it.
struct RTO_API Config {
  /// Which rules: the estimator (rto::Estimator or rto::LinuxEstimator;
  /// rto::AnyEstimator builds the one named) and the timer's 5.7.
  enum class Variant {
    rfc6298,       ///< RFC 6298 sections 2-5 exactly.
    linux_kernel,  ///< Linux tcp_rtt_estimator()/__tcp_set_rto(): mdev, mdev_max, rttvar, RTO = SRTT + rttvar.
  };
  Variant variant = Variant::rfc6298;
  /// RTO before the first RTT sample (RFC 6298 2.1: 1 s). Linux: TCP_TIMEOUT_INIT = 1 s.
  std::chrono::microseconds initial_rto{1'000'000};
  /// Floor on the RTO (RFC 6298 2.4: 1 s). Linux: rto_min 200 ms, applied through
  /// its rttvar term (rttvar >= rto_min), not as a floor on the sum.
  std::chrono::microseconds min_rto{1'000'000};
  /// Cap on the RTO, also on the backed-off RTO (RFC 6298 2.5: MAY cap, the cap
  /// must be >= 60 s). Linux: TCP_RTO_MAX = 120 s.
  std::chrono::microseconds max_rto{60'000'000};
  /// Clock granularity G of RFC 6298 section 2: RTO = SRTT + max(G, K*RTTVAR).
  /// Unused by the Linux variant (its jiffy rounding is `tick`).
  std::chrono::microseconds granularity{1'000};
  /// RFC 6298 5.7: the RTO used when data transmission begins after a SYN
  /// timed out, if the RTO was below it (3 s). Linux: TCP_TIMEOUT_FALLBACK = 3 s.
  std::chrono::microseconds syn_fallback_rto{3'000'000};
  /// Linux net.ipv4.tcp_syn_linear_timeouts (default 4 since 6.5): the first N
  /// SYN timer expiries keep the RTO instead of doubling it. 0 = RFC 6298 5.5.
  /// At most kMaxCount.
  unsigned syn_linear_timeouts = 0;
  /// RFC 6298 section 5 note (after 5.7): after this many consecutive backoffs
  /// SRTT and RTTVAR MAY be cleared so the next sample is treated as the first
  /// (2.2). 0 = off (the default). At most kMaxCount.
  unsigned reset_after_backoffs = 0;
  /// Linux: the RTO is held in jiffies, so it is rounded UP to a multiple of
  /// this tick (4 ms at HZ=250). 0 = no rounding beyond whole microseconds.
  std::chrono::microseconds tick{0};

  /// The largest syn_linear_timeouts and reset_after_backoffs accepted: the
  /// timer counts SYN expiries and backoffs in 16 bits (saturating there).
  static constexpr unsigned kMaxCount = 65'535;

  /// Field-by-field equality.
  bool operator==(const Config&) const = default;

  /// RFC 6298 defaults: initial 1 s, floor 1 s, cap 60 s, G 1 ms, 5.7 fallback 3 s,
  /// no SYN linear timeouts, no section-5 reset, no tick.
  static Config rfc6298();
  /// The Linux kernel's defaults (6.x, HZ=250): Variant::linux_kernel, initial 1 s,
  /// rto_min 200 ms, TCP_RTO_MAX 120 s, fallback 3 s, tcp_syn_linear_timeouts 4,
  /// tick 4 ms.
  static Config linux_default();

  /// Checks the fields against the variant's bounds; throws ConfigError naming
  /// the first offending field. Both variants refuse negative durations, a zero
  /// initial_rto or max_rto, min_rto > max_rto, initial_rto > max_rto, an
  /// initial_rto or syn_fallback_rto below min_rto (an RTO the 2.1 or 5.7 rule
  /// sets must respect the 2.4 floor too), and any duration above 1 hour
  /// (overflow headroom; RTOs are held in 32-bit microseconds, rto::Rto),
  /// and a syn_linear_timeouts or reset_after_backoffs above kMaxCount. The Linux variant refuses min_rto = 0 (its RTO could
  /// be 0, which backoff cannot double). RFC 6298 additionally refuses
  /// max_rto < 60 s (2.5) and granularity 0 (G must be positive). The Linux
  /// variant has the kernel's own bounds: any floor up to the cap (rto_min may be
  /// well below 1 s), any positive cap (the kernel's is 120 s; sysctl-tunable
  /// caps below 60 s exist), granularity 0 (unused).
  void validate() const;
};

}  // namespace rto
