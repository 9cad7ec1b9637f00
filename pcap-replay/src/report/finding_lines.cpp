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

void finding_lines(std::vector<FindingLine>& out, const FlowReport& f, const Options& o, const ReportView& view,
                   bool tsv) {
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
    out.push_back(FindingLine{
        f.file_index, x.j->frame,
        tsv ? fmt::format("{}\t{}\t{}\t{}\t{}\t{}", tsv_field(f.file), x.j->frame, to_string(x.j->level),
                          to_string(x.j->rule), tsv_field(sender), tsv_field(message))
            : fmt::format("{}:{}: {} {} {}: {}", f.file, x.j->frame, to_string(x.j->level), to_string(x.j->rule), sender,
                          message)});
  }
}

void write_finding_lines(std::ostream& os, std::vector<FindingLine> lines) {
  std::stable_sort(lines.begin(), lines.end(), [](const FindingLine& a, const FindingLine& b) {
    return a.file_index != b.file_index ? a.file_index < b.file_index : a.frame < b.frame;
  });
  for (const FindingLine& l : lines) os << l.text << '\n';
}

}  // namespace replay
