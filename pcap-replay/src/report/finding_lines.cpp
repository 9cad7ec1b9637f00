#include <replay/report/finding_lines.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <replay/report/judgement_text.hpp>

namespace replay {

namespace {
// A field of a tab-separated line: its tabs and line breaks become spaces.
std::string tsv_field(std::string s) {
  std::replace_if(s.begin(), s.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
  return s;
}
}  // namespace

void write_finding_lines(std::ostream& os, const FlowReport& f, const Options& o, const ReportView& view, bool tsv) {
  struct Shown {
    const Judgement* j;
    std::size_t dir;
  };
  std::vector<Shown> shown;
  for (std::size_t d = 0; d < 2; ++d)
    for (const Judgement& j : f.senders[d].findings)
      if (view.shows(j)) shown.push_back({&j, d});
  std::stable_sort(shown.begin(), shown.end(), [](const Shown& a, const Shown& b) { return a.j->frame < b.j->frame; });
  for (const Shown& x : shown) {
    const SenderReport& s = f.senders[x.dir];
    const std::string sender = to_string(s.src) + " -> " + to_string(s.dst);
    const std::string message = describe(*x.j, o);
    if (tsv)
      os << fmt::format("{}\t{}\t{}\t{}\t{}\t{}\n", tsv_field(f.file), x.j->frame, to_string(x.j->level),
                        to_string(x.j->rule), tsv_field(sender), tsv_field(message));
    else
      os << fmt::format("{}:{}: {} {} {}: {}\n", f.file, x.j->frame, to_string(x.j->level), to_string(x.j->rule), sender,
                        message);
  }
}

}  // namespace replay
