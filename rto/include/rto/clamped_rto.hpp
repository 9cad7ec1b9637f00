#pragma once
// rto::Rto: a retransmission timeout held between a floor and a cap (RFC 6298
// 2.4, 2.5), so a negative, zero or out-of-range RTO cannot be written.

#include <algorithm>
#include <chrono>
#include <compare>
#include <cstdint>

namespace rto {

/// A retransmission timeout: a duration in [floor, cap] with
/// 1 us <= floor <= cap <= 1 h. Made only by clamping a duration into its
/// bounds (clamped()) or by an estimator, never from a bare number, so no
/// caller can arm a timer with a negative or unbounded RTO. It carries its cap,
/// so that backing off (5.5) saturates there. 8 bytes, trivially copyable.
///
/// Compared (==, <, ...) by duration alone, with other Rtos and with any
/// std::chrono duration; read as std::chrono::microseconds by get() or by
/// implicit conversion.
class Rto {
 public:
  /// The longest RTO any profile holds: 1 hour (Config::validate()'s bound).
  static constexpr std::chrono::microseconds kMax{3'600'000'000};
  /// The shortest: 1 us. A zero RTO could not be doubled by 5.5.
  static constexpr std::chrono::microseconds kMin{1};

  /// `value` brought into [floor, cap]: below the floor it becomes the floor
  /// (2.4: "rounded up"), above the cap the cap (2.5), negative values
  /// included. The bounds themselves are first brought into [kMin, kMax],
  /// then a floor above the cap is lowered to it. Never fails.
  static constexpr Rto clamped(std::chrono::microseconds value, std::chrono::microseconds floor,
                               std::chrono::microseconds cap) {
    const std::int64_t c = std::clamp(cap.count(), kMin.count(), kMax.count());
    const std::int64_t f = std::clamp(floor.count(), kMin.count(), c);
    return Rto{static_cast<std::uint32_t>(std::clamp(value.count(), f, c)), static_cast<std::uint32_t>(c)};
  }

  /// The timeout.
  constexpr std::chrono::microseconds get() const { return std::chrono::microseconds{us_}; }
  /// The timeout (reading is always safe; writing goes through clamped()).
  constexpr operator std::chrono::microseconds() const { return get(); }
  /// The cap this RTO saturates at when backed off (2.5).
  constexpr std::chrono::microseconds cap() const { return std::chrono::microseconds{cap_us_}; }

  /// 5.5: "RTO <- RTO * 2", saturating at the cap (2.5).
  [[nodiscard]] constexpr Rto doubled() const { return backed_off(1); }
  /// `n` doublings at once: min(RTO * 2^n, cap), for any n without overflow.
  [[nodiscard]] constexpr Rto backed_off(unsigned n) const {
    // us_ < 2^32, so a shift below 32 fits 64 bits; 32 or more passes any cap (< 2^32).
    const std::uint64_t v = n < 32 ? std::uint64_t{us_} << n : std::uint64_t{cap_us_};
    return Rto{static_cast<std::uint32_t>(std::min<std::uint64_t>(v, cap_us_)), cap_us_};
  }

  friend constexpr bool operator==(Rto a, Rto b) { return a.us_ == b.us_; }
  friend constexpr std::strong_ordering operator<=>(Rto a, Rto b) { return a.us_ <=> b.us_; }
  friend constexpr bool operator==(Rto a, std::chrono::microseconds d) { return a.get() == d; }
  friend constexpr std::strong_ordering operator<=>(Rto a, std::chrono::microseconds d) {
    return a.get().count() <=> d.count();
  }

 private:
  // The estimators hold validated bounds (kMin <= floor <= cap <= kMax) and
  // clamp every RTO they compute with them: the value alone is clamped.
  friend class Estimator;
  friend class LinuxEstimator;
  static constexpr Rto within(std::int64_t value, std::uint32_t floor_us, std::uint32_t cap_us) {
    const std::int64_t v = value < floor_us ? floor_us : value;
    return Rto{static_cast<std::uint32_t>(v > cap_us ? cap_us : v), cap_us};
  }
  constexpr Rto(std::uint32_t us, std::uint32_t cap_us) : us_(us), cap_us_(cap_us) {}
  std::uint32_t us_;      // kMin <= us_ <= cap_us_
  std::uint32_t cap_us_;  // <= kMax < 2^32
};

static_assert(sizeof(Rto) == 8);
static_assert(Rto::clamped(std::chrono::microseconds{-5}, std::chrono::seconds{1}, std::chrono::seconds{60}) ==
              std::chrono::seconds{1});
static_assert(Rto::clamped(std::chrono::seconds{90}, std::chrono::seconds{1}, std::chrono::seconds{60}) ==
              std::chrono::seconds{60});
static_assert(Rto::clamped(std::chrono::seconds{40}, std::chrono::seconds{1}, std::chrono::seconds{60}).doubled() ==
              std::chrono::seconds{60});

}  // namespace rto
