// Deliberate losses on the sender -> peer path; see packet_filter.hpp.
#include <netstack/packet_filter.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "netstack/segment_codec.hpp"

namespace netstack {
namespace {

std::optional<std::chrono::microseconds> parse_seconds(const std::string& s) {
  if (s.empty()) return std::nullopt;
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != s.size() || !std::isfinite(v) || v < 0 || v > 1e6) return std::nullopt;
  return std::chrono::microseconds{static_cast<std::int64_t>(std::llround(v * 1e6))};
}

}  // namespace

std::optional<Blackhole> parse_blackhole(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const auto start = parse_seconds(text.substr(0, colon));
  const auto duration = parse_seconds(text.substr(colon + 1));
  if (!start || !duration) return std::nullopt;
  return Blackhole{*start, *duration};
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::DropLoss: return "loss";
    case Verdict::DropSeq: return "drop-seq";
    case Verdict::DropBlackhole: return "blackhole";
  }
  return "?";
}

PacketFilter::PacketFilter(PacketFilterConfig config)
    : config_(std::move(config)), random_(config_.seed), seq_done_(config_.drop_seq.size(), false) {
  if (!(config_.loss >= 0.0 && config_.loss <= 1.0)) {
    throw std::invalid_argument("loss fraction must be within [0, 1], got " + std::to_string(config_.loss));
  }
}

std::optional<rto::Instant> PacketFilter::blackhole_start() const {
  if (!epoch_ || !config_.blackhole) return std::nullopt;
  return *epoch_ + config_.blackhole->start;
}

std::optional<rto::Instant> PacketFilter::blackhole_end() const {
  if (!epoch_ || !config_.blackhole) return std::nullopt;
  return *epoch_ + config_.blackhole->start + config_.blackhole->duration;
}

bool PacketFilter::in_blackhole(rto::Instant now) const {
  const auto start = blackhole_start();
  const auto end = blackhole_end();
  return start && end && now >= *start && now < *end;
}

Verdict PacketFilter::outbound(std::span<const std::uint8_t> datagram, rto::Instant now) {
  if (!epoch_) epoch_ = now;
  if (in_blackhole(now)) {
    ++stats_.dropped_blackhole;
    return Verdict::DropBlackhole;
  }
  const auto parsed = parse_segment(datagram);
  if (const auto* seg = std::get_if<ParsedSegment>(&parsed)) {
    const bool syn = seg->tcp.has(wire::kSyn);
    if (syn && !isn_) isn_ = seg->tcp.seq;
    // One draw per non-SYN datagram whatever else happens to it, so the
    // random drops depend only on the seed and the datagram count.
    const bool lose = !syn && random_.chance(config_.loss);
    if (!syn && isn_ && !seg->payload.empty()) {
      const std::uint32_t rel = seg->tcp.seq - *isn_;  // modulo 2^32, as Wireshark's relative seq
      if (starts_.size() < kRememberedSegmentStarts && std::find(starts_.begin(), starts_.end(), rel) == starts_.end()) {
        starts_.push_back(rel);
      }
      for (std::size_t i = 0; i < config_.drop_seq.size(); ++i) {
        if (!seq_done_[i] && config_.drop_seq[i] == rel) {
          seq_done_[i] = true;
          ++stats_.dropped_seq;
          return Verdict::DropSeq;
        }
      }
    }
    if (lose) {
      ++stats_.dropped_loss;
      return Verdict::DropLoss;
    }
  }
  ++stats_.passed;
  return Verdict::Pass;
}

std::vector<std::uint32_t> PacketFilter::unmatched_drop_seq() const {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < config_.drop_seq.size(); ++i) {
    if (!seq_done_[i]) out.push_back(config_.drop_seq[i]);
  }
  return out;
}

}  // namespace netstack
