#include <replay/report/report_view.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <vector>


namespace replay {

bool ReportView::shows(const FlowReport& f, const StreamNumbers& streams) const { return shows(f, streams.of(f)); }

bool ReportView::shows(const FlowReport& f, std::optional<std::uint64_t> stream_of_f) const {
  if (flow && f.id != *flow) return false;
  if (stream && stream_of_f != stream) return false;
  if (display && !display->shows(f, stream_of_f)) return false;
  if (findings_only) {
    for (const auto& s : f.senders)
      if (shows(s)) return true;
    return false;
  }
  return true;
}

bool ReportView::shows(const SenderReport& s) const { return !findings_only || shown_findings(s) > 0; }

std::size_t ReportView::shown_findings(const SenderReport& s) const {
  return static_cast<std::size_t>(
      std::count_if(s.findings.begin(), s.findings.end(), [this](const Judgement& j) { return shows(j); }));
}

std::string ReportView::describe() const {
  std::string out;
  const auto add = [&out](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
  if (flow) add(fmt::format("--flow {}", *flow));
  if (stream) add(fmt::format("--stream {}", *stream));
  if (findings_only) add("--findings-only");
  if (level != Level::info) add(fmt::format("--level {}", to_string(level)));
  if (display) add(fmt::format("-Y \"{}\"", display->text));
  return out;
}

std::optional<std::string> ReportView::error(const Report& r, const StreamNumbers& streams) const {
  const std::size_t n = r.flows.size();
  const std::string have = n == 0 ? "the input has none" : fmt::format("the input has {} (1-{})", n, n);
  if (flow && (*flow == 0 || *flow > n)) return fmt::format("--flow {}: no such connection; {}", *flow, have);
  if (display && display->reads_stream() && !r.options.filter.empty())
    return fmt::format("-Y \"{}\": Wireshark's stream numbers count the connections the filter \"{}\" hides, "
                       "which are not read; use --flow (see pcap-replay flows) or drop -f",
                       display->text, r.options.filter);
  if (stream && !r.options.filter.empty())
    return fmt::format("--stream {}: Wireshark's stream numbers count the connections the filter \"{}\" hides, "
                       "which are not read; use --flow (see pcap-replay flows) or drop -f",
                       *stream, r.options.filter);
  if (stream) {
    for (const auto& f : r.flows)
      if (streams.of(f) == stream) return std::nullopt;
    return fmt::format("--stream {}: no connection has tcp.stream {}", *stream, *stream);
  }
  return std::nullopt;
}

void keep_shown_flows(Report& r, const ReportView& v) {
  const StreamNumbers streams(r);  // before erasing: the numbering counts every connection
  std::vector<bool> keep;
  for (const auto& f : r.flows) keep.push_back(v.shows(f, streams));
  std::size_t i = 0;
  std::erase_if(r.flows, [&](const FlowReport&) { return !keep[i++]; });
}

}  // namespace replay
