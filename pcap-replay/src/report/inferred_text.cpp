#include <replay/report/inferred_text.hpp>

#include <vector>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace replay {

using std::chrono::microseconds;

namespace {
using Out = std::back_insert_iterator<fmt::memory_buffer>;
// A setting's duration: "1 s", "3 s", "200 ms".
void put_ms(Out out, microseconds d) {
  if (d.count() % 1'000'000 == 0 && d.count() > 0)
    fmt::format_to(out, FMT_COMPILE("{} s"), d.count() / 1'000'000);
  else
    fmt::format_to(out, FMT_COMPILE("{:.0f} ms"), static_cast<double>(d.count()) / 1000.0);
}
// To the nearest 10 ms for the summary ("1 s", "200 ms").
microseconds round10(microseconds d) { return (d + microseconds{5'000}) / 10'000 * 10'000; }
// A name as a compiled format copies it: an empty view may have no data,
// and memcpy from a null pointer is undefined even for no bytes.
std::string_view text(std::string_view v) { return v.data() ? v : std::string_view(""); }
}  // namespace

// Formatted into one buffer with compiled format strings (every report
// prints it once per sender: bench/README.md, "The text report's cost").
std::string summarize(const SenderReport& s, const Options& o) {
  const InferredSettings& in = s.inferred;
  const StackProfile* p = find_profile(s.profile);
  const std::string_view title = text(p ? p->title : s.profile);
  std::uint64_t musts = 0;
  for (const auto& f : s.findings) musts += f.level == Level::must ? 1 : 0;
  // The settings read from its waits, each after "; " (the first after ": "
  // when the line goes on to them): part(label) starts one.
  fmt::memory_buffer parts;
  const Out to_parts = std::back_inserter(parts);
  const auto part = [&parts, to_parts](std::string_view label) {
    parts.append(std::string_view("; "));
    parts.append(label);
    return to_parts;
  };
  if (in.initial_rto) put_ms(part("initial RTO "), round10(*in.initial_rto));
  if (!in.syn_waits.empty()) {
    const Out out = part("SYN waits ");
    for (std::size_t i = 0; i < in.syn_waits.size(); ++i) {
      if (i > 0) parts.push_back(',');
      put_ms(out, round10(in.syn_waits[i]));
    }
    if (in.syn_linear) fmt::format_to(out, FMT_COMPILE(" ({} linear SYN timeouts)"), *in.syn_linear);
  }
  if (in.min_first_wait) {
    put_ms(part("first RTO "), round10(*in.min_first_wait));
    // A floor only where a wait showed it (inference.cpp).
    if (in.floor == RtoFloor::sum) parts.append(std::string_view(" (a 1 s floor on the sum, RFC 6298 2.4)"));
    else if (in.floor == RtoFloor::variance)
      parts.append(std::string_view(" (below 1 s: a floor on the variance term, as Linux's rto_min, or none)"));
  }
  if (in.probes) fmt::format_to(part("tail-loss probes "), FMT_COMPILE("({})"), in.probes);
  if (in.plateau) put_ms(part("backoff capped at "), round10(*in.plateau));
  if (in.additive) {
    put_ms(part("a constant "), round10(*in.additive));
    parts.append(std::string_view(" on every RTO"));
  }
  if (in.linear_data >= 2) fmt::format_to(part(""), FMT_COMPILE("{} linear data timeouts"), in.linear_data);
  if (in.lateness) {
    put_ms(part("timers up to "), *in.lateness);
    parts.append(std::string_view(" late"));
  }
  if (in.tsval_hz) fmt::format_to(part("TSval clock "), FMT_COMPILE("{:.0f} Hz"), *in.tsval_hz);
  for (auto name : in.settings) {
    part("setting: ");
    parts.append(text(name));
  }
  const std::string_view rest(parts.data(), parts.size());

  fmt::memory_buffer line;
  const Out out = std::back_inserter(line);
  const std::string_view verdict = musts == 0 ? "no MUST departure from " : "departs from ";
  if (s.timeouts.empty() && in.probes == 0) {
    // Nothing to tell one stack from another: say so, not "behaves like".
    if (o.auto_profile) {
      fmt::format_to(out,
                     FMT_COMPILE("no timer expiry or probe to tell its stack from (judged against {}, the first "
                                 "profile)"),
                     text(s.profile));
    } else {
      line.append(verdict);
      line.append(title);
      line.append(std::string_view(": no timer expiry or probe to read settings from"));
    }
    line.append(rest);
    return fmt::to_string(line);
  }
  if (o.auto_profile) {
    fmt::format_to(out, FMT_COMPILE("behaves like {}"), title);
    for (std::size_t i = 0; i < in.ties.size(); ++i) {
      line.append(i == 0 ? std::string_view(" (so do, as far as this capture shows: ") : std::string_view(", "));
      line.append(text(in.ties[i]));
    }
    if (!in.ties.empty()) line.push_back(')');
  } else {
    line.append(verdict);
    line.append(title);
  }
  if (!rest.empty()) {  // ": " before the first setting, "; " between
    line.append(std::string_view(": "));
    line.append(rest.substr(2));
  }
  return fmt::to_string(line);
}

}  // namespace replay
