#include "netstack/sack_scoreboard.hpp"

#include <algorithm>

#include "rto/seq.hpp"

namespace netstack {

void SackScoreboard::clear() { ranges_.clear(); }

void SackScoreboard::prune(std::uint64_t una) {
  std::erase_if(ranges_, [&](const Range& r) { return r.second <= una; });
  for (auto& r : ranges_) r.first = std::max(r.first, una);
}

bool SackScoreboard::record(const wire::TcpOptions& o, std::uint32_t una_seq, std::uint64_t una, std::uint64_t max) {
  bool news = false;
  for (std::size_t i = 0; i < o.sack_count && i < o.sack.size(); ++i) {
    const std::int64_t l = rto::seq_diff(o.sack[i].left, una_seq);
    const std::int64_t r = rto::seq_diff(o.sack[i].right, una_seq);
    if (r <= 0 || r <= l || static_cast<std::uint64_t>(r) > max - una) continue;
    const std::uint64_t begin = una + static_cast<std::uint64_t>(std::max<std::int64_t>(l, 0));
    const std::uint64_t end = una + static_cast<std::uint64_t>(r);
    news = add(begin, end) || news;
  }
  return news;
}

bool SackScoreboard::add(std::uint64_t begin, std::uint64_t end) {
  auto it = std::lower_bound(ranges_.begin(), ranges_.end(), begin,
                             [](const Range& r, std::uint64_t b) { return r.second < b; });
  // `it` is the first range ending at or after `begin` (touching or overlapping).
  if (it != ranges_.end() && it->first <= begin && end <= it->second) return false;  // already known
  std::uint64_t b = begin, e = end;
  auto last = it;
  while (last != ranges_.end() && last->first <= e) {
    b = std::min(b, last->first);
    e = std::max(e, last->second);
    ++last;
  }
  it = ranges_.erase(it, last);
  ranges_.insert(it, {b, e});
  if (ranges_.size() > kMaxRanges) ranges_.pop_back();  // forget the highest range
  return true;
}

}  // namespace netstack
