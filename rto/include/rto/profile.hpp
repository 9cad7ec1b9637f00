#pragma once
// A validated estimator configuration shared by the estimators of many
// connections, so each one holds a pointer instead of a 64-byte Config copy.

#include <cstdint>

#include "rto/config.hpp"
#include "rto/export.h"

namespace rto {

class Estimator;

/// A Config that has passed Config::validate(), with the constants the
/// estimator's per-sample path derives from it (the RFC 6298 G term in fixed
/// point, the tick's reciprocal). Estimators built from a Profile keep a
/// pointer to it (8 bytes per connection) instead of a copy of the Config.
///
/// Lifetime rule: a Profile must outlive every Estimator built from it (and
/// every copy of those estimators); it is not copyable or movable, so its
/// address is stable. Profile::shared() gives one that lives until the
/// process exits.
class RTO_API Profile {
 public:
  /// Validates `config` (throws ConfigError naming the field, as
  /// Config::validate()) and keeps a copy of it.
  explicit Profile(const Config& config);
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  /// The validated configuration.
  const Config& config() const { return cfg_; }

  /// The process-wide Profile equal to `config`: created (validated, throwing
  /// ConfigError for a bad config) the first time a given Config is asked
  /// for, then returned for every equal Config; never destroyed before the
  /// process exits. Thread-safe (a mutex held during the lookup). Memory: one
  /// Profile (about 100 bytes plus a hash-table node) per distinct Config ever
  /// passed, so a program building many distinct configs should construct
  /// its own Profiles instead. Estimator(const Config&) uses this.
  static const Profile& shared(const Config& config);
  /// The profile of Config::rfc6298() (static, no lookup).
  static const Profile& rfc6298();
  /// The profile of Config::linux_default() (static, no lookup).
  static const Profile& linux_default();

 private:
  friend class Estimator;
  // The per-sample path's constants first (one cache line with the variant).
  Config::Variant variant_;
  std::int64_t min_rto_us_;      // 2.4 floor (Linux: rto_min, through rttvar)
  std::int64_t max_rto_us_;      // 2.5 cap
  std::int64_t granularity_fx_;  // RFC 6298 G in 2^-20 us (Estimator::kFracBits)
  std::int64_t tick_us_;         // Linux jiffy rounding; 0 or 1 = none
  std::uint64_t tick_recip_;     // ceil(2^(64+s) / tick) when tick_us_ > 1 (Estimator::round_up_to_tick)
  unsigned tick_shift_;          // s: 2^s < tick <= 2^(s+1)
  Config cfg_;
};

}  // namespace rto
