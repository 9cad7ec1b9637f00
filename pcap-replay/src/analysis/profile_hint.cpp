#include <replay/analysis/profile_hint.hpp>

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

void HintTally::judged(const FlowReport& f) {
  for (std::size_t d = 0; d < 2; ++d)
    if (musts(f.senders[d]) != 0 && departing_.insert({f.id, d}).second) ++departing;
}

void HintTally::best(const FlowReport& f) {
  for (std::size_t d = 0; d < 2; ++d) {
    if (!departing_.contains({f.id, d})) continue;
    const SenderReport& b = f.senders[d];
    if (b.profile == judged_profile_ || musts(b) != 0) continue;
    ++explained;
    ++fits_[std::string(b.profile)];
  }
}

std::optional<std::string> profile_hint(const Report& judged, const Report& best) {
  HintTally tally(judged.options.profile->name);
  for (const auto& f : judged.flows) tally.judged(f);
  for (const auto& f : best.flows) tally.best(f);
  return tally.text();
}

std::optional<std::string> HintTally::text() const {
  const auto& fits = fits_;
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
