// Fuzz harness: the estimator (rto::AnyEstimator: RFC 6298 section 2, or
// the Linux tcp_rtt_estimator() variant) and the RTO the timer holds
// (rto::RetransmissionTimer: 5.5, the SYN's linear expiries, 5.7, the section
// 5 reset), wired as a sender wires them, under a random configuration and a
// random stream of events: RTT samples (any value, negative and above 1 h
// included, with or without the Linux RTT-window sequence numbers),
// retransmission timeouts, SYN timeouts and handshake completions.
// Invariants after every event:
//  - the configuration was accepted by Config::validate() (or the harness
//    stops: a refused one must throw ConfigError, nothing else);
//  - the RTO lies within [min_rto, max_rto] (2.4 floor, 2.5 cap), and so does
//    the RTO before backoff;
//  - rto() == min(base_rto() * 2^backoff(), max_rto) (5.5), computed here in
//    128 bits so it cannot overflow however many backoffs came;
//  - the backoff count never wraps: a timeout adds exactly 1 until it saturates
//    at Config::kMaxCount, an accepted sample resets it to 0;
//  - a refused sample (negative or above 1 h) changes nothing;
//  - RFC 6298 variant with no tick: SRTT and RTTVAR stay within 1 us of an
//    independent model of 2.2/2.3 in long double (alpha 1/8, beta 1/4), and the
//    base RTO is SRTT + max(G, 4 * RTTVAR) of that model rounded up, floored and
//    capped, within the fixed point's error (a few us).
#include <rto/any_estimator.hpp>
#include <rto/config.hpp>
#include <rto/retransmission_timer.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>

#include "common/byte_source.hpp"
#include "common/memory_file.hpp"

namespace {

using std::chrono::microseconds;

struct Input : fuzz::ByteSource {
  // A duration in us spread over 0 .. ~2 h, with small values and the bounds
  // (0, 1 h, 1 h + 1) likely.
  std::int64_t duration_us() {
    const std::uint8_t kind = u8();
    switch (kind % 8) {
      case 0: return u8();                                      // 0..255 us
      case 1: return std::int64_t{u32() % 2'000'000};           // up to 2 s
      case 2: return std::int64_t{u32() % 200'000'000};         // up to 200 s
      case 3: return 3'600'000'000 + (kind >> 3) - 16;          // around the 1 h limit
      case 4: return std::int64_t{u32()} * 2;                   // up to ~2.4 h
      case 5: return std::int64_t{u8()} * 1'000'000;            // whole seconds
      case 6: return std::int64_t{u32() % 5'000} * 1'000;       // whole ms up to 5 s
      default: return -std::int64_t{u32() % 1'000'000} - 1;    // negative
    }
  }
};

constexpr std::int64_t kMaxSampleUs = 3'600'000'000;  // the estimators refuse samples above 1 h
// R2 limits nothing reaches: the harness exercises the backoff, not giving up.
constexpr rto::RetryLimits kNoLimits{UINT_MAX, UINT_MAX, microseconds{0}};
constexpr std::size_t kMaxOps = 512;

// RFC 6298 2.2 / 2.3 in long double: the reference the fixed point is held to.
struct RfcModel {
  bool has = false;
  bool fallback = false;  // the 5.7 fallback RTO is in force (until the next sample)
  long double srtt = 0, rttvar = 0;
  void sample(long double r) {
    fallback = false;
    if (!has) {
      srtt = r, rttvar = r / 2, has = true;  // 2.2
      return;
    }
    rttvar = 0.75L * rttvar + 0.25L * std::fabs(srtt - r);  // 2.3, RTTVAR first (old SRTT)
    srtt = 0.875L * srtt + 0.125L * r;
  }
};

struct Snapshot {
  microseconds rto, base;
  std::optional<microseconds> srtt, rttvar;
  unsigned backoff;
  bool operator==(const Snapshot&) const = default;
};

// The estimator and the timer's RTO, as a sender keeps them.
struct Wired {
  rto::AnyEstimator e;
  rto::RetransmissionTimer t;
};

Snapshot snap(const Wired& w) { return {w.t.rto(), w.t.base_rto(), w.e.srtt(), w.e.rttvar(), w.t.backoff()}; }

void check_bounds(const Wired& w, const rto::Config& c) {
  const rto::RetransmissionTimer& e = w.t;
  fuzz::check(e.rto() >= c.min_rto && e.rto() <= c.max_rto, "the RTO lies within [min_rto, max_rto]");
  fuzz::check(e.base_rto() >= c.min_rto && e.base_rto() <= c.max_rto, "the RTO before backoff lies within [min_rto, max_rto]");
  fuzz::check(w.e.rto() >= c.min_rto && w.e.rto() <= c.max_rto && w.e.rto() > microseconds{0},
              "the estimator's RTO lies within [min_rto, max_rto] and is positive");
  fuzz::check(e.backoff() <= rto::Config::kMaxCount, "the backoff count stays within 16 bits");
  // 5.5 with the 2.5 cap: base * 2^backoff, in 128 bits (a shift of 64 or more is "above any cap").
  __extension__ typedef unsigned __int128 U128;
  const U128 base = static_cast<std::uint64_t>(e.base_rto().get().count());
  const U128 doubled = e.backoff() >= 64 ? ~U128{0} : base << e.backoff();
  const U128 want = std::min<U128>(doubled, static_cast<std::uint64_t>(c.max_rto.count()));
  fuzz::check(static_cast<std::uint64_t>(e.rto().get().count()) == want, "rto() == min(base_rto() * 2^backoff, max_rto)");
}

// The model's SRTT/RTTVAR against the estimator's (each rounded to the nearest
// us by srtt()/rttvar(), so 1 us of fixed-point error plus 0.5 of rounding),
// and the base RTO against the model's 2.2-2.5 result.
void check_model(const Wired& w, const rto::Config& c, const RfcModel& m) {
  const rto::AnyEstimator& e = w.e;
  fuzz::check(e.srtt().has_value() == m.has, "SRTT exists exactly when a sample was taken (and not cleared)");
  if (m.fallback) {
    fuzz::check(w.t.base_rto() == std::max(c.syn_fallback_rto, c.min_rto), "5.7: the fallback RTO holds until the next sample");
    return;
  }
  if (!m.has) return;
  fuzz::check(std::fabs(static_cast<long double>(e.srtt()->count()) - m.srtt) <= 1.5L, "SRTT within 1 us of RFC 6298 2.2/2.3");
  fuzz::check(std::fabs(static_cast<long double>(e.rttvar()->count()) - m.rttvar) <= 1.5L,
              "RTTVAR within 1 us of RFC 6298 2.2/2.3");
  const long double g = static_cast<long double>(c.granularity.count());
  long double want = std::ceil(m.srtt + std::max(g, 4 * m.rttvar));
  want = std::clamp(want, static_cast<long double>(c.min_rto.count()), static_cast<long double>(c.max_rto.count()));
  // Fixed-point error: 1 us on SRTT, 4 x 1 us on K*RTTVAR, plus the final round-up.
  fuzz::check(std::fabs(static_cast<long double>(w.t.base_rto().get().count()) - want) <= 6.0L,
              "base RTO = SRTT + max(G, 4 RTTVAR), floored and capped (2.3-2.5)");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in{{data, size}};
  const std::uint8_t form = in.u8();
  rto::Config c = (form & 1) != 0 ? rto::Config::linux_default() : rto::Config::rfc6298();
  // Each field either keeps its profile default or takes a fuzzed value.
  if (form & 2) c.initial_rto = microseconds{in.duration_us()};
  if (form & 4) c.min_rto = microseconds{in.duration_us()};
  if (form & 8) c.max_rto = microseconds{in.duration_us()};
  if (form & 16) c.granularity = microseconds{in.duration_us()};
  if (form & 32) c.syn_fallback_rto = microseconds{in.duration_us()};
  if (form & 64) {
    c.syn_linear_timeouts = in.u8() % 8;
    const std::uint8_t r = in.u8();
    c.reset_after_backoffs = r < 200 ? r % 8 : r * 300u;  // above kMaxCount now and then: refused
  }
  if (form & 128) c.tick = microseconds{in.u8() % 4 == 0 ? 0 : in.duration_us()};
  try {
    c.validate();
  } catch (const rto::ConfigError&) {
    return 0;  // refused (any other exception escapes: libFuzzer reports it)
  }
  // validate()'s promises (config.hpp), checked independently.
  fuzz::check(c.min_rto <= c.max_rto && c.initial_rto >= c.min_rto && c.initial_rto <= c.max_rto &&
                  c.syn_fallback_rto >= c.min_rto && c.max_rto.count() > 0,
              "validate() accepts only floor <= initial, fallback and floor <= cap");
  if (c.variant == rto::Config::Variant::linux_kernel) fuzz::check(c.min_rto.count() > 0, "Linux: min_rto > 0");

  Wired w{rto::AnyEstimator(c), rto::RetransmissionTimer(c, kNoLimits)};
  rto::AnyEstimator& e = w.e;
  rto::RetransmissionTimer& t = w.t;
  const bool rfc = c.variant == rto::Config::Variant::rfc6298;
  const bool modelled = rfc && c.tick.count() <= 1;  // a tick rounds the RTO: no exact model
  RfcModel model;
  fuzz::check(e.rto() == c.initial_rto && t.rto() == c.initial_rto && t.backoff() == 0, "the first RTO is initial_rto (2.1)");
  unsigned syn_timeouts = 0;  // SYN expiries so far: the first syn_linear_timeouts keep the RTO
  // Section 5 note: a backoff that leaves the count at reset_after_backoffs clears SRTT/RTTVAR.
  // The timer says when (Expiry::forget_rtt); the sender clears the estimator.
  // `backs_off`: the expiry doubles the RTO (not a linear SYN expiry).
  auto expired = [&](rto::Expiry x, bool backs_off) {
    fuzz::check(x.verdict == rto::RetryVerdict::Retransmit, "no retry limit is reached (there is none)");
    fuzz::check(x.forget_rtt == (backs_off && c.reset_after_backoffs != 0 && t.backoff() == c.reset_after_backoffs),
                "the section 5 reset is asked exactly at the backoff that makes reset_after_backoffs");
    if (x.forget_rtt) e.forget();
  };
  auto backed_off = [&] {
    if (c.reset_after_backoffs != 0 && t.backoff() == c.reset_after_backoffs) model.has = false;
  };
  std::uint32_t snd_nxt = 1000;
  for (std::size_t op = 0; op < kMaxOps && in.n > 0; ++op) {
    const Snapshot before = snap(w);
    switch (in.u8() % 8) {
      case 0: case 1: case 2: {  // an RTT sample
        const std::int64_t r = in.duration_us();
        const bool windowed = (in.u8() & 1) != 0;
        bool ok;
        if (windowed) {
          const std::uint32_t una = snd_nxt - in.u8();
          snd_nxt += in.u8() * 100u;
          ok = e.on_rtt_sample(microseconds{r}, una, snd_nxt);
        } else {
          ok = e.on_rtt_sample(microseconds{r});
        }
        if (ok) t.on_rtt_sample(e.rto());  // the note after 5.7
        fuzz::check(ok == (r >= 0 && r <= kMaxSampleUs), "a sample is refused exactly when negative or above 1 h");
        if (!ok) {
          fuzz::check(snap(w) == before, "a refused sample changes nothing");
          break;
        }
        fuzz::check(t.backoff() == 0 && t.rto() == e.rto(), "an accepted sample ends the backoff (5.5 note after 5.7)");
        model.sample(static_cast<long double>(r));
        break;
      }
      case 3: case 4:  // the retransmission timer expired (5.5)
        expired(t.on_expiry(rto::Instant{}), true);
        fuzz::check(t.backoff() == std::min<unsigned>(before.backoff + 1, rto::Config::kMaxCount),
                    "a timeout adds one backoff, saturating");
        backed_off();
        break;
      case 5: {  // a SYN timer expired (linear first, then 5.5)
        const bool linear = syn_timeouts < c.syn_linear_timeouts;
        expired(t.on_syn_expiry(rto::Instant{}), !linear);
        if (syn_timeouts < rto::Config::kMaxCount) ++syn_timeouts;
        if (linear) {
          fuzz::check(snap(w) == before, "a linear SYN timeout keeps the RTO and the backoff");
        } else {
          fuzz::check(t.backoff() == std::min<unsigned>(before.backoff + 1, rto::Config::kMaxCount),
                      "a SYN timeout past the linear ones adds one backoff, saturating");
          backed_off();
        }
        break;
      }
      case 6: {  // handshake done (5.7)
        const bool syn_timed_out = (in.u8() & 1) != 0;
        t.on_handshake_complete(syn_timed_out, e.has_sample());
        fuzz::check(e.srtt() == before.srtt && e.rttvar() == before.rttvar, "5.7 changes only the RTO, not SRTT/RTTVAR");
        if (rfc) {
          // 5.7: after a SYN timeout, an RTO (before backoff) below 3 s becomes 3 s and the backoff ends.
          const bool falls_back = syn_timed_out && before.base < c.syn_fallback_rto;
          if (falls_back) {
            fuzz::check(t.base_rto() == c.syn_fallback_rto && t.rto() == c.syn_fallback_rto && t.backoff() == 0,
                        "5.7: RTO re-initialised to the fallback, backoff ended");
            model.fallback = true;
          } else {
            fuzz::check(snap(w) == before, "5.7: no SYN timeout or an RTO already >= 3 s: nothing changes");
          }
        }
        break;
      }
      case 7: {  // many timeouts at once: the saturation of the count
        const unsigned k = in.u8() * 64u + 1;
        for (unsigned i = 0; i < k; ++i) {
          const rto::Expiry x = t.on_expiry(rto::Instant{});
          if (x.forget_rtt) e.forget();
        }
        fuzz::check(t.backoff() == std::min<unsigned>(before.backoff + k, rto::Config::kMaxCount),
                    "k timeouts add k backoffs, saturating");
        if (c.reset_after_backoffs > before.backoff && c.reset_after_backoffs <= before.backoff + k) model.has = false;
        backed_off();
        break;
      }
    }
    check_bounds(w, c);
    if (modelled) check_model(w, c, model);
  }
  return 0;
}
