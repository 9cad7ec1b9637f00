#include "netstack/reassembly.hpp"

#include <algorithm>

namespace netstack {

std::uint64_t ReassemblyQueue::insert(std::uint64_t offset, std::span<const std::uint8_t> data) {
  std::uint64_t added = 0;
  std::uint64_t pos = offset;
  const std::uint64_t end = offset + data.size();
  // Walk the held blocks that overlap [offset, end) and fill the gaps between them.
  auto it = blocks_.upper_bound(pos);
  if (it != blocks_.begin()) {
    auto prev = std::prev(it);
    const std::uint64_t prev_end = prev->first + prev->second.size();
    if (prev_end > pos) pos = std::min(prev_end, end);
  }
  while (pos < end) {
    const std::uint64_t gap_end = (it != blocks_.end()) ? std::min(it->first, end) : end;
    if (gap_end > pos) {
      const auto from = data.begin() + static_cast<std::ptrdiff_t>(pos - offset);
      const auto to = data.begin() + static_cast<std::ptrdiff_t>(gap_end - offset);
      blocks_.emplace(pos, std::vector<std::uint8_t>(from, to));
      added += gap_end - pos;
    }
    if (it == blocks_.end()) break;
    pos = std::max(pos, it->first + it->second.size());
    ++it;
  }
  bytes_ += added;
  return added;
}

std::uint64_t ReassemblyQueue::pop_contiguous(std::uint64_t next, std::vector<std::uint8_t>& out) {
  while (!blocks_.empty()) {
    auto it = blocks_.begin();
    const std::uint64_t start = it->first;
    const std::uint64_t end = start + it->second.size();
    if (start > next) break;
    if (end > next) {
      out.insert(out.end(), it->second.begin() + static_cast<std::ptrdiff_t>(next - start), it->second.end());
      next = end;
    }
    bytes_ -= it->second.size();
    blocks_.erase(it);
  }
  return next;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> ReassemblyQueue::ranges() const {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> r;
  for (const auto& [start, bytes] : blocks_) {
    const std::uint64_t end = start + bytes.size();
    if (!r.empty() && r.back().second == start) {
      r.back().second = end;
    } else {
      r.emplace_back(start, end);
    }
  }
  return r;
}

}  // namespace netstack
