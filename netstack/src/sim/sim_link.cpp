#include "netstack/sim_link.hpp"

#include <algorithm>
#include <utility>

namespace netstack {
namespace {

using std::chrono::microseconds;

}  // namespace

SimLink::SimLink(LinkConfig config) : config_(std::move(config)), random_(config_.seed) {
  std::sort(config_.drop_numbers.begin(), config_.drop_numbers.end());
}

bool SimLink::send(rto::Instant now, std::vector<std::uint8_t> datagram) {
  const std::uint64_t number = ++stats_.entered;
  // The random draws happen for every datagram in a fixed order, so one
  // datagram's fate never shifts the draws of the others.
  const bool lost_random = random_.chance(config_.loss);
  const bool reorder = random_.chance(config_.reorder);
  const bool duplicate = random_.chance(config_.duplicate);
  const auto jitter = microseconds{
      static_cast<std::int64_t>(random_.below(static_cast<std::uint64_t>(config_.jitter.count()) + 1))};

  if (std::binary_search(config_.drop_numbers.begin(), config_.drop_numbers.end(), number)) {
    ++stats_.lost_chosen;
    return false;
  }
  for (const auto& hole : config_.blackholes) {
    if (hole.contains(now)) {
      ++stats_.lost_blackhole;
      return false;
    }
  }
  if (lost_random) {
    ++stats_.lost_random;
    return false;
  }

  // Serialisation through a drop-tail queue.
  rto::Instant sent_at = now;
  if (config_.bandwidth_bps > 0) {
    while (!queue_departures_.empty() && queue_departures_.front() <= now) queue_departures_.pop_front();
    // The datagram being serialised is not "waiting"; the rest are.
    const std::size_t waiting = queue_departures_.empty() ? 0 : queue_departures_.size() - 1;
    if (!queue_departures_.empty() && waiting >= config_.queue_limit) {
      ++stats_.lost_queue;
      return false;
    }
    const auto bits = static_cast<std::uint64_t>(datagram.size()) * 8;
    const auto tx = microseconds{static_cast<std::int64_t>((bits * 1'000'000 + config_.bandwidth_bps - 1) /
                                                            config_.bandwidth_bps)};
    const rto::Instant start = std::max(now, link_free_at_);
    link_free_at_ = start + tx;
    queue_departures_.push_back(link_free_at_);
    sent_at = link_free_at_;
  }

  rto::Instant due = sent_at + config_.delay + jitter;
  if (reorder) {
    ++stats_.reordered;
    due += config_.reorder_delay;
  } else {
    due = std::max(due, last_fifo_due_);  // jitter alone keeps FIFO order
    last_fifo_due_ = due;
  }
  if (duplicate) {
    ++stats_.duplicated;
    schedule(due, datagram);
  }
  schedule(due, std::move(datagram));
  return true;
}

void SimLink::schedule(rto::Instant due, std::vector<std::uint8_t> bytes) {
  in_flight_.push_back(InFlight{due, order_++, std::move(bytes)});
  std::push_heap(in_flight_.begin(), in_flight_.end(), [](const InFlight& a, const InFlight& b) {
    return a.due != b.due ? a.due > b.due : a.order > b.order;
  });
}

std::optional<rto::Instant> SimLink::next_delivery() const {
  if (in_flight_.empty()) return std::nullopt;
  return in_flight_.front().due;
}

std::vector<std::vector<std::uint8_t>> SimLink::deliver_due(rto::Instant now) {
  std::vector<std::vector<std::uint8_t>> out;
  const auto later = [](const InFlight& a, const InFlight& b) {
    return a.due != b.due ? a.due > b.due : a.order > b.order;
  };
  while (!in_flight_.empty() && in_flight_.front().due <= now) {
    std::pop_heap(in_flight_.begin(), in_flight_.end(), later);
    out.push_back(std::move(in_flight_.back().bytes));
    in_flight_.pop_back();
    ++stats_.delivered;
  }
  return out;
}

}  // namespace netstack
