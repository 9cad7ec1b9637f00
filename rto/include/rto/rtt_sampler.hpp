#pragma once
// RTT sampling for RFC 6298 section 3 (Karn's algorithm) and RFC 7323
// section 4 (RTTM with the timestamp option).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "rto/clock.hpp"
#include "rto/export.h"

namespace rto {

/// Produces RTT samples R for Estimator::on_rtt_sample().
///
/// Without timestamps (RFC 6298 section 3): one segment is timed at a time. A
/// new segment starts timing when none is timed; a sample comes from the first
/// ACK that covers the timed segment's end; any retransmission overlapping the
/// timed segment cancels the timing (Karn: never sample a retransmitted segment).
///
/// With timestamps (RFC 7323 section 4): every ACK that advances SND.UNA yields
/// R = TS clock now - TSecr, in the TS clock (ticks of `ts_tick`, default 1 ms),
/// modulo 2^32 with a sign check: a TSecr ahead of the clock (negative elapsed
/// time: the clock stepped back) is discarded; duplicate ACKs never yield a sample.
///
/// The sender's own SND.UNA and SND.MAX (the highest sequence number sent) are
/// passed with each event, as they stand before it; the sampler keeps only
/// the timed segment. Sequence numbers and TSvals are uint32_t compared modulo
/// 2^32 (rto/seq.hpp). Lengths are in sequence space (a SYN or FIN counts 1).
/// No allocation.
///
/// Size: 24 bytes (kBytes): the send time of the timed segment 8, the TS
/// offset and the timed segment's start and end 12, the TS tick in 30 bits
/// with a flag 4.
class RTO_API RttSampler {
 public:
  /// `ts_tick`: the period of one TSval unit (RFC 7323 5.4: 1 ms..1 s; here any
  /// positive duration, default 1 ms). `ts_offset`: added to every TSval
  /// (a per-connection random offset, RFC 7323 section 5.4 / 7.1). A non-positive
  /// tick is replaced by 1 ms; one above kMaxTsTick (about 17.9 minutes, far
  /// beyond RFC 7323's 1 s) is clamped to it.
  explicit RttSampler(std::chrono::microseconds ts_tick = std::chrono::milliseconds{1},
                      std::uint32_t ts_offset = 0);

  /// A segment [seq, seq+len) is transmitted at `now`; `snd_max` is SND.MAX
  /// before it (the end of the highest sequence sent so far; the ISS before
  /// the SYN). New data (seq at or beyond snd_max) starts timing if nothing
  /// is timed; a retransmission (seq below snd_max) that overlaps the timed
  /// segment cancels the timing (section 3, Karn). len 0 (pure ACK) is ignored.
  void on_send(std::uint32_t seq, std::uint32_t len, std::uint32_t snd_max, Instant now);
  /// The retransmission timer expired (RFC 6298 5.4): the earliest segment will be
  /// resent, so no segment in flight may be timed (Karn). Cancels the timing.
  void on_timeout();

  /// An ACK carrying cumulative acknowledgment `ack` arrived at `now` (no
  /// timestamps), while SND.UNA was `snd_una` and SND.MAX `snd_max`. Returns
  /// the RTT sample when the ACK acknowledges new data (snd_una < ack <=
  /// snd_max), covers the timed segment's end and the elapsed time is not
  /// negative; otherwise nullopt (a duplicate or old ACK, or one of data never
  /// sent, gives none).
  [[nodiscard]] std::optional<std::chrono::microseconds> on_ack(std::uint32_t ack, std::uint32_t snd_una,
                                                                 std::uint32_t snd_max, Instant now);
  /// An ACK with the timestamp option (TSecr = `tsecr`) arrived at `now`
  /// while SND.UNA was `snd_una` and SND.MAX `snd_max` (RFC 7323 4.1).
  /// Returns R = (tsval(now) - tsecr) * ts_tick when the ACK acknowledges new
  /// data (snd_una < ack <= snd_max) and the modulo-2^32 difference is >= 0;
  /// nullopt for a duplicate or old ACK or a TSecr in the future. Also stops
  /// the non-timestamp timing if the ACK covers it.
  [[nodiscard]] std::optional<std::chrono::microseconds> on_ack_ts(std::uint32_t ack, std::uint32_t tsecr,
                                                                    std::uint32_t snd_una, std::uint32_t snd_max,
                                                                    Instant now);

  /// The TSval to put in a segment sent at `now`: floor(now / ts_tick) + ts_offset,
  /// modulo 2^32 (RFC 7323 5.4).
  std::uint32_t tsval(Instant now) const;
  /// True while a segment is being timed (no-timestamp mode).
  bool timing() const;
  /// The end (seq+len) of the timed segment; meaningful only when timing().
  std::uint32_t timed_end() const;
  /// The TS clock's tick in use (after the replacement and clamp of the constructor).
  std::chrono::microseconds ts_tick() const { return std::chrono::microseconds{ts_tick_us_}; }

  /// The longest TS tick held: 2^30 - 1 us (RFC 7323's slowest clock is 1 s;
  /// the tick shares 32 bits with a flag).
  static constexpr std::chrono::microseconds kMaxTsTick{(std::int64_t{1} << 30) - 1};
  /// sizeof(RttSampler) on a 64-bit target.
  static constexpr std::size_t kBytes = 24;

 private:
  Instant timed_at_{};
  std::uint32_t ts_offset_;
  std::uint32_t timed_seq_ = 0;
  std::uint32_t timed_end_ = 0;
  std::uint32_t ts_tick_us_ : 30;  // 1 .. kMaxTsTick
  std::uint32_t timing_ : 1;
};

}  // namespace rto
