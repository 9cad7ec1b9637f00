#include <replay/profile_hint.hpp>

#include <map>

#include <fmt/format.h>

namespace replay {

namespace {
std::size_t musts(const SenderReport& s) {
  std::size_t n = 0;
  for (const auto& f : s.findings) n += f.level == Level::must ? 1 : 0;
  return n;
}
}  // namespace

std::optional<std::string> profile_hint(const Report& judged, const Report& best) {
  std::map<std::size_t, const FlowReport*> by_id;
  for (const auto& f : best.flows) by_id[f.id] = &f;
  std::size_t departing = 0, explained = 0;
  std::map<std::string, std::size_t> fits;  // profile -> senders it explains
  for (const auto& f : judged.flows) {
    for (std::size_t d = 0; d < 2; ++d) {
      if (musts(f.senders[d]) == 0) continue;
      ++departing;
      const auto it = by_id.find(f.id);
      if (it == by_id.end()) continue;
      const SenderReport& b = it->second->senders[d];
      if (b.profile == judged.options.profile->name || musts(b) != 0) continue;
      ++explained;
      ++fits[std::string(b.profile)];
    }
  }
  if (explained == 0) return std::nullopt;
  std::string names, only;
  for (const auto& [name, n] : fits) {
    const StackProfile* p = find_profile(name);
    names += fmt::format("{}{} ({}{})", names.empty() ? "" : ", ", name, p ? p->title : "",
                         fits.size() > 1 ? fmt::format(": {} sender(s)", n) : "");
    only = name;
  }
  return fmt::format("the MUST departures of {} of {} sender(s) are what {} does: 0 MUST there; try --profile auto{}",
                     explained, departing, names,
                     fits.size() == 1 ? fmt::format(" (or --profile {})", only) : std::string());
}

}  // namespace replay
