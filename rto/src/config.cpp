// rto::Config profiles and validation (RFC 6298 2.1, 2.4, 2.5, 5.7; Linux bounds).

#include "rto/config.hpp"

#include <string>

namespace rto {

namespace {

using std::chrono::microseconds;

constexpr microseconds kOneHour{3'600'000'000};

[[noreturn]] void fail(const char* field, microseconds value, const char* why) {
  throw ConfigError(std::string("rto::Config.") + field + ": " + std::to_string(value.count()) +
                    " us " + why);
}

void check_range(const char* field, microseconds value) {
  if (value < microseconds::zero()) fail(field, value, "is negative");
  if (value > kOneHour) fail(field, value, "is above 1 hour (the supported range)");
}

}  // namespace

Config Config::rfc6298() { return Config{}; }

Config Config::linux_default() {
  Config c;
  c.variant = Variant::linux_kernel;
  c.initial_rto = microseconds{1'000'000};    // TCP_TIMEOUT_INIT
  c.min_rto = microseconds{200'000};          // TCP_RTO_MIN (net.ipv4.tcp_rto_min_us)
  c.max_rto = microseconds{120'000'000};      // TCP_RTO_MAX
  c.granularity = microseconds{0};            // Linux has no G term; the jiffy is `tick`
  c.syn_fallback_rto = microseconds{3'000'000};  // TCP_TIMEOUT_FALLBACK
  c.syn_linear_timeouts = 4;                  // net.ipv4.tcp_syn_linear_timeouts (6.5+)
  c.reset_after_backoffs = 0;
  c.tick = microseconds{4'000};               // one jiffy at HZ=250
  return c;
}

void Config::validate() const {
  check_range("initial_rto", initial_rto);
  check_range("min_rto", min_rto);
  check_range("max_rto", max_rto);
  check_range("granularity", granularity);
  check_range("syn_fallback_rto", syn_fallback_rto);
  check_range("tick", tick);
  if (syn_linear_timeouts > kMaxCount)
    throw ConfigError("rto::Config.syn_linear_timeouts: " + std::to_string(syn_linear_timeouts) +
                      " is above " + std::to_string(kMaxCount) + " (the timer's 16-bit SYN expiry count)");
  if (reset_after_backoffs > kMaxCount)
    throw ConfigError("rto::Config.reset_after_backoffs: " + std::to_string(reset_after_backoffs) +
                      " is above " + std::to_string(kMaxCount) + " (the timer's 16-bit backoff count)");
  if (initial_rto == microseconds::zero()) fail("initial_rto", initial_rto, "must be positive (2.1)");
  if (max_rto == microseconds::zero()) fail("max_rto", max_rto, "must be positive (2.5)");
  if (syn_fallback_rto == microseconds::zero())
    fail("syn_fallback_rto", syn_fallback_rto, "must be positive (5.7)");
  if (variant == Variant::rfc6298) {
    // 2.5: "Maximum value MAY be placed on RTO provided it is at least 60 seconds."
    if (max_rto < microseconds{60'000'000})
      fail("max_rto", max_rto, "is below the 60 s minimum of RFC 6298 (2.5)");  // impl: RFC6298-2.5
    // Section 2: G is the clock granularity; 0 would let RTO = SRTT with RTTVAR 0.
    if (granularity == microseconds::zero())
      fail("granularity", granularity, "must be positive (RFC 6298 section 2, G)");  // impl: RFC6298-4-clock
  } else if (variant == Variant::linux_kernel) {
    // The kernel's RTO is SRTT + rttvar with rttvar >= rto_min: rto_min 0 allows
    // an RTO of 0 (a 0 us RTT), which 5.5 cannot back off (2 * 0 = 0).
    if (min_rto == microseconds::zero())
      fail("min_rto", min_rto, "must be positive in the Linux variant (an RTO of 0 never backs off)");
  } else {
    throw ConfigError("rto::Config.variant: unknown value");
  }
  if (min_rto > max_rto) fail("min_rto", min_rto, "exceeds max_rto");
  // 2.4: "Whenever RTO is computed ... rounded up to" the floor: an RTO set
  // without computing (the 2.1 initial value, the 5.7 fallback) must not be
  // below it either. impl: RFC6298-2.4
  if (initial_rto < min_rto)
    fail("initial_rto", initial_rto, ("is below min_rto (" + std::to_string(min_rto.count()) + " us, the 2.4 floor)").c_str());
  if (syn_fallback_rto < min_rto)
    fail("syn_fallback_rto", syn_fallback_rto,
         ("is below min_rto (" + std::to_string(min_rto.count()) + " us, the 2.4 floor)").c_str());
  if (initial_rto > max_rto) fail("initial_rto", initial_rto, "exceeds max_rto");
  if (syn_fallback_rto > max_rto) fail("syn_fallback_rto", syn_fallback_rto, "exceeds max_rto");
}

}  // namespace rto
