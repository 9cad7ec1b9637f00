#include <replay/report/inferred_text.hpp>

#include <vector>

#include <fmt/format.h>

namespace replay {

using std::chrono::microseconds;

namespace {
std::string ms(microseconds d) {
  if (d.count() % 1'000'000 == 0 && d.count() > 0) return fmt::format("{} s", d.count() / 1'000'000);
  return fmt::format("{:.0f} ms", static_cast<double>(d.count()) / 1000.0);
}
// To the nearest 10 ms for the summary ("1 s", "200 ms").
microseconds round10(microseconds d) { return (d + microseconds{5'000}) / 10'000 * 10'000; }
}  // namespace

std::string summarize(const SenderReport& s, const Options& o) {
  const InferredSettings& in = s.inferred;
  const StackProfile* p = find_profile(s.profile);
  const std::string_view title = p ? p->title : s.profile;
  std::uint64_t musts = 0;
  for (const auto& f : s.findings) musts += f.level == Level::must ? 1 : 0;
  std::string tied;
  for (auto t : in.ties) tied += (tied.empty() ? " (so do, as far as this capture shows: " : ", ") + std::string(t);
  if (!tied.empty()) tied += ")";
  std::string line = o.auto_profile ? fmt::format("behaves like {}{}", title, tied)
                     : musts == 0   ? fmt::format("no MUST departure from {}", title)
                                    : fmt::format("departs from {}", title);
  std::vector<std::string> parts;
  if (in.initial_rto) parts.push_back("initial RTO " + ms(round10(*in.initial_rto)));
  if (!in.syn_waits.empty()) {
    std::string sched;
    for (auto w : in.syn_waits) sched += (sched.empty() ? "" : ",") + ms(round10(w));
    parts.push_back("SYN waits " + sched +
                    (in.syn_linear ? fmt::format(" ({} linear SYN timeouts)", *in.syn_linear) : std::string()));
  }
  if (in.min_first_wait)
    parts.push_back(in.floor == RtoFloor::sum
                        ? "first RTO " + ms(round10(*in.min_first_wait)) + " (a 1 s floor on the sum, RFC 6298 2.4)"
                        : "first RTO " + ms(round10(*in.min_first_wait)) +
                              " (below 1 s: a floor on the variance term, as Linux's rto_min, or none)");
  if (in.probes) parts.push_back(fmt::format("tail-loss probes ({})", in.probes));
  if (in.plateau) parts.push_back("backoff capped at " + ms(round10(*in.plateau)));
  if (in.additive) parts.push_back("a constant " + ms(round10(*in.additive)) + " on every RTO");
  if (in.linear_data >= 2) parts.push_back(fmt::format("{} linear data timeouts", in.linear_data));
  if (in.lateness) parts.push_back("timers up to " + ms(*in.lateness) + " late");
  if (in.tsval_hz) parts.push_back(fmt::format("TSval clock {:.0f} Hz", *in.tsval_hz));
  for (auto name : in.settings) parts.push_back("setting: " + std::string(name));
  if (s.timeouts.empty() && in.probes == 0) {
    // Nothing to tell one stack from another: say so, not "behaves like".
    std::string rest;
    for (const auto& x : parts) rest += "; " + x;
    return (o.auto_profile ? fmt::format("no timer expiry or probe to tell its stack from (judged against {}, the "
                                         "first profile)",
                                         s.profile)
                           : line + ": no timer expiry or probe to read settings from") +
           rest;
  }
  for (std::size_t i = 0; i < parts.size(); ++i) line += (i == 0 ? ": " : "; ") + parts[i];
  return line;
}

}  // namespace replay
