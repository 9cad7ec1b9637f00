// rto::RttSampler: RFC 6298 section 3 (Karn's algorithm, one timed segment per
// RTT) and RFC 7323 section 4 (RTTM from TSecr), modulo 2^32 via rto/seq.hpp.

#include "rto/rtt_sampler.hpp"

#include <algorithm>

#include "rto/seq.hpp"

namespace rto {

using std::chrono::microseconds;

static_assert(sizeof(RttSampler) == RttSampler::kBytes, "RttSampler layout changed: update kBytes");

namespace {
// The tick the sampler keeps: 1 ms for a non-positive one, at most kMaxTsTick.
std::uint32_t tick_us(microseconds t) {
  if (t <= microseconds::zero()) return 1'000;
  return static_cast<std::uint32_t>(std::min(t, RttSampler::kMaxTsTick).count());
}
}  // namespace

RttSampler::RttSampler(microseconds ts_tick, std::uint32_t ts_offset)
    : ts_offset_(ts_offset), ts_tick_us_(tick_us(ts_tick) & ((1u << 30) - 1)), timing_(0) {}

void RttSampler::on_send(std::uint32_t seq, std::uint32_t len, std::uint32_t snd_max, Instant now) {
  if (len == 0) return;  // a pure ACK occupies no sequence space and is never timed
  const std::uint32_t end = seq + len;
  const bool retransmission = seq_lt(seq, snd_max);
  if (retransmission) {
    // 3 (Karn): "RTT samples MUST NOT be made using segments that were
    // retransmitted". Resending any byte of the timed segment voids its timing.
    // impl: RFC6298-3-karn
    if (timing_ && seq_lt(seq, timed_end_) && seq_gt(end, timed_seq_)) timing_ = 0;
  } else if (!timing_) {
    // Section 3 / RFC 6298 intro: time one segment per RTT; start on new data.
    timing_ = 1;
    timed_seq_ = seq;
    timed_end_ = end;
    timed_at_ = now;
  }
}

void RttSampler::on_timeout() {
  // 5.4 retransmits the earliest unacknowledged segment; whatever is timed may be
  // resent, so (3, Karn) no sample may come from it.
  timing_ = 0;
}

std::optional<microseconds> RttSampler::on_ack(std::uint32_t ack, std::uint32_t snd_una, std::uint32_t snd_max,
                                               Instant now) {
  // Only an ACK of new data counts: duplicates never give samples, and an ACK
  // of data never sent is ignored.
  if (!seq_gt(ack, snd_una) || seq_gt(ack, snd_max)) return std::nullopt;
  if (!timing_ || seq_lt(ack, timed_end_)) return std::nullopt;
  timing_ = 0;
  // A clock stepped back gives a negative elapsed time: discard it; so is a
  // difference past the range of microseconds (the times at its two ends).
  if (now < timed_at_) return std::nullopt;
  std::int64_t elapsed = 0;
  if (__builtin_sub_overflow(now.time_since_epoch().count(), timed_at_.time_since_epoch().count(), &elapsed))
    return std::nullopt;
  return microseconds{elapsed};
}

std::optional<microseconds> RttSampler::on_ack_ts(std::uint32_t ack, std::uint32_t tsecr, std::uint32_t snd_una,
                                                  std::uint32_t snd_max, Instant now) {
  // RFC 7323 4.1 (RTTM): a sample from every ACK that advances the left edge of
  // the send window (SND.UNA); never from a duplicate ACK, whose TSecr may echo an
  // old segment. impl: RFC7323-4
  if (!seq_gt(ack, snd_una) || seq_gt(ack, snd_max)) return std::nullopt;
  if (timing_ && seq_ge(ack, timed_end_)) timing_ = 0;
  // RFC 7323 5.2: timestamps compare modulo 2^32. A negative difference is a TSecr
  // "in the future", discarded; across the wrap the difference is correct
  // (5 - 4294967290 = 11 ticks).
  const std::int32_t ticks = ts_diff(tsval(now), tsecr);
  if (ticks < 0) return std::nullopt;
  return ticks * ts_tick();
}

std::uint32_t RttSampler::tsval(Instant now) const {
  // RFC 7323 5.4: a clock proportional to real time; modulo 2^32 by truncation.
  const auto ticks = now.time_since_epoch() / ts_tick();
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(ticks)) + ts_offset_;
}

bool RttSampler::timing() const { return timing_ != 0; }
std::uint32_t RttSampler::timed_end() const { return timed_end_; }

}  // namespace rto
