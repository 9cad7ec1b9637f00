// SenderEngine: the ledger of outstanding segments and the holes in it.
#include "analysis/engine/sender_engine.hpp"

#include <algorithm>
#include <utility>

#include <rto/seq.hpp>

#include <replay/analysis/thresholds.hpp>

namespace replay::engine {

// ---- the ledger of outstanding segments ---------------------------------

void SenderEngine::mark_retransmitted(std::uint32_t seq, std::uint32_t end, CaptureTime t) {
  // outstanding_ is ordered by sequence: find the first range that ends after seq.
  auto it = std::partition_point(outstanding_.begin(), outstanding_.end(),
                                 [&](const Tx& x) { return seq_le(x.end, seq); });
  for (; it != outstanding_.end() && seq_lt(it->seq, end); ++it) {
    it->retransmitted = true;
    it->last_time = t;
  }
}

void SenderEngine::insert_outstanding(const Tx& x) {
  auto it = std::partition_point(outstanding_.begin(), outstanding_.end(),
                                 [&](const Tx& y) { return seq_lt(y.seq, x.seq); });
  outstanding_.insert(it, x);
  ++unsacked_count_;
  if (scoreboard_) index_unsacked(sb_key(x.seq));
}

void SenderEngine::push_outstanding(const Tx& x) {
  outstanding_.push_back(x);
  ++unsacked_count_;
  if (scoreboard_) index_unsacked(sb_key(x.seq));
}

void SenderEngine::pop_outstanding() {
  ++acked_segments_;
  const Tx& x = outstanding_.front();
  if (!x.sacked) {
    --unsacked_count_;
    if (scoreboard_) unindex_unsacked(sb_key(x.seq));
  }
  outstanding_.pop_front();
}

void SenderEngine::trim_front(std::uint32_t seq) {
  Tx& x = outstanding_.front();
  if (scoreboard_ && !x.sacked) {
    unindex_unsacked(sb_key(x.seq));
    index_unsacked(sb_key(seq));
  }
  x.seq = seq;
}

void SenderEngine::index_unsacked(std::int64_t k) {
  if (unsacked_.empty() || unsacked_.back() < k) {  // the common case: a segment sent after the others
    unsacked_.push_back(k);
    return;
  }
  const auto it = std::lower_bound(unsacked_.begin(), unsacked_.end(), k);
  if (*it != k) unsacked_.insert(it, k);
}

void SenderEngine::unindex_unsacked(std::int64_t k) {
  if (unsacked_.empty()) return;
  if (unsacked_.front() == k) {  // the common case: SND.UNA's segment, acknowledged
    unsacked_.pop_front();
    return;
  }
  const auto it = std::lower_bound(unsacked_.begin(), unsacked_.end(), k);
  if (it != unsacked_.end() && *it == k) unsacked_.erase(it);
}

bool SenderEngine::resent_since(std::uint32_t seq, std::uint32_t end, CaptureTime t0) const {
  auto it = std::partition_point(outstanding_.begin(), outstanding_.end(),
                                 [&](const Tx& x) { return seq_le(x.end, seq); });
  for (; it != outstanding_.end() && seq_lt(it->seq, end); ++it)
    if (it->retransmitted && it->last_time >= t0) return true;
  return false;
}

bool SenderEngine::retransmission_lost(std::uint32_t seq, std::uint32_t end, CaptureTime since) const {
  if (!newest_sacked_send_) return false;
  auto it = std::partition_point(outstanding_.begin(), outstanding_.end(),
                                 [&](const Tx& x) { return seq_le(x.end, seq); });
  for (; it != outstanding_.end() && seq_lt(it->seq, end); ++it)
    if (it->retransmitted && !it->sacked && it->last_time >= since && it->last_time < *newest_sacked_send_)
      return true;
  return false;
}

microseconds SenderEngine::response_floor() const {
  const microseconds d = sender_rtt_.value_or(microseconds{0});
  return d - limits::kAckClockBand.of(d);
}

bool SenderEngine::fill_hole(std::uint32_t seq, std::uint32_t end, CaptureTime t, const wire::TcpOptions& opts) {
  const microseconds window = std::max(limits::kReorderWindowFloor, hs_rtt_.value_or(microseconds{0}));
  for (auto it = holes_.begin(); it != holes_.end(); ++it) {
    if (!(seq_ge(seq, it->seq) && seq_le(end, it->end))) continue;
    // A first transmission reordered before the capture point was sent
    // before the segment beyond the hole; a retransmission after it, once
    // the sender learned of the loss. The sender's clock tells them apart
    // where it moved between the two: an older TSval, sent before; a newer
    // TSval, or a TSecr echoing a newer segment of the peer, sent after.
    const auto older = [](std::optional<std::uint32_t> a, std::optional<std::uint32_t> b) {
      return a && b && rto::ts_diff(*a, *b) < 0;
    };
    const bool sent_before = older(opts.tsval, it->tsval);
    const bool sent_after = older(it->tsval, opts.tsval) || older(it->tsecr, opts.tsecr);
    // Otherwise the timing: soon after the segment beyond the hole, and
    // sooner after the peer showed the loss than the sender's response to
    // it can be captured (a fill that can be that response is one).
    const bool before_response = !it->evidence || since(t, *it->evidence) < response_floor();
    const bool recent = since(t, it->time) <= window && !across_step(it->time, t) && before_response;
    // Shrink or split the hole: this part has now been seen.
    Hole h = *it;
    it = holes_.erase(it);
    if (seq_lt(h.seq, seq)) {
      Hole left = h;
      left.end = seq;
      it = holes_.insert(it, left) + 1;
    }
    if (seq_lt(end, h.end)) {
      h.seq = end;
      holes_.insert(it, h);
    }
    return sent_before || (!sent_after && recent);
  }
  return false;
}

}  // namespace replay::engine
