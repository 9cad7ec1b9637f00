#include <replay/report/report_html.hpp>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <set>
#include <span>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include <replay/report/inferred_text.hpp>
#include <replay/report/judgement_text.hpp>
#include <replay/report/report_text.hpp>
#include <replay/plot/sender_graph.hpp>
#include <replay/plot/svg_plot.hpp>
#include <replay/analysis/thresholds.hpp>
#include "plot/time_sequence_graph.hpp"
#include <replay/analysis/milliseconds.hpp>

namespace replay {

namespace {

using svg::escape;

// Seconds from frame 1 of the file of connection `f`.
double rel_s(const Report& r, const FlowReport& f, CaptureTime t) { return seconds_since(t, r.origin_of(f.file_index)); }

std::size_t count_level(const SenderReport& s, Level l) {
  return static_cast<std::size_t>(std::count_if(s.findings.begin(), s.findings.end(), [&](const Judgement& f) { return f.level == l; }));
}

std::string anchor(const FlowReport& f, std::size_t dir) { return fmt::format("flow-{}-{}", f.id, dir == 0 ? "c2s" : "s2c"); }

constexpr const char* kStyle = R"(
body{font-family:"DejaVu Sans",Verdana,sans-serif;margin:1.5em auto;max-width:1180px;color:#222;background:#fff}
h1{font-size:1.5em;margin-bottom:.2em} h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
pre{background:#f4f4f4;padding:.6em;overflow-x:auto;font-size:.85em;white-space:pre-wrap}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#eee} table.sortable th{cursor:pointer;user-select:none} table.sortable th:hover{background:#ddd}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.cards{display:flex;flex-wrap:wrap;gap:.6em;margin:.8em 0}
.card{border:1px solid #ccc;border-radius:4px;padding:.4em .8em;min-width:6em}
.card b{display:block;font-size:1.4em}
.MUST{color:#c0001a;font-weight:bold} .SHOULD{color:#b85f00;font-weight:bold} .MAY,.INFO{color:#555}
details{border:1px solid #ddd;border-radius:4px;margin:.6em 0;padding:.3em .6em}
summary{cursor:pointer;font-weight:bold} .graph{overflow-x:auto} .graph svg{max-width:100%;height:auto}
.scroll{max-height:28em;overflow-y:auto}
)";

// Click a header to sort its table by that column (numbers numerically),
// click again to reverse. Inline, no external code.
constexpr const char* kScript = R"(
document.querySelectorAll('table.sortable').forEach(function(t){
  t.querySelectorAll('th').forEach(function(th,i){
    th.title='click to sort';
    th.addEventListener('click',function(){
      var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows),up=th.dataset.dir!=='asc';
      t.querySelectorAll('th').forEach(function(h){delete h.dataset.dir;});
      th.dataset.dir=up?'asc':'desc';
      rows.sort(function(x,y){
        var a=x.cells[i].dataset.v||x.cells[i].textContent,c=y.cells[i].dataset.v||y.cells[i].textContent;
        var na=parseFloat(a),nc=parseFloat(c),r=(!isNaN(na)&&!isNaN(nc))?na-nc:a.localeCompare(c);
        return up?r:-r;});
      rows.forEach(function(r){b.appendChild(r);});
    });
  });
});
)";

void write_header(std::ostream& os, const Report& r, int exit_status) {
  std::string files;
  for (const auto& f : r.files) files += (files.empty() ? "" : ", ") + f;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>pcap-replay check: "
     << escape(files) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  os << "<h1>pcap-replay check</h1>\n<p>" << escape(files) << "</p>\n";
  // The text report's opening lines (profile, tolerance, model), as written there.
  std::ostringstream text;
  write_text_report(text, r);
  const std::string t = text.str();
  const auto cut = t.find("\nflow ");
  os << "<pre>" << escape(t.substr(0, cut == std::string::npos ? std::min<std::size_t>(t.size(), 2000) : cut))
     << "</pre>\n";
  std::uint64_t retx = 0, timeouts = 0, senders = 0;
  for (const auto& f : r.flows)
    for (const auto& s : f.senders) {
      retx += s.retransmissions();
      timeouts += s.timeouts.size();
      senders += s.data_segments > 0 ? 1 : 0;
    }
  os << "<div class=\"cards\">\n";
  const auto card = [&](std::string_view label, std::uint64_t v, std::string_view cls) {
    os << fmt::format("<div class=\"card\"><b class=\"{}\">{}</b>{}</div>\n", cls, v, label);
  };
  card("connections", r.flows.size(), "");
  card("senders with data", senders, "");
  card("retransmissions", retx, "");
  card("timer expiries", timeouts, "");
  card("MUST findings", r.count(Level::must), r.count(Level::must) ? "MUST" : "");
  card("SHOULD findings", r.count(Level::should), r.count(Level::should) ? "SHOULD" : "");
  card("MAY findings", r.count(Level::may), "");
  card("INFO notes", r.count(Level::info), "");
  card("exit status", static_cast<std::uint64_t>(exit_status), exit_status ? "MUST" : "");
  os << "</div>\n<pre>" << escape(summary_line(r)) << "</pre>\n";
  std::ostringstream problems;
  write_input_problems(problems, r);
  if (!problems.str().empty()) os << "<h2>Input problems</h2>\n<pre>" << escape(problems.str()) << "</pre>\n";
}

// The anchors of the sender sections on the page (the links of the tables go only there).
using Anchors = std::set<std::string>;

// A flow's id, linked to its section when it has one.
std::string flow_link(const Anchors& a, const FlowReport& f, std::size_t dir) {
  const std::string id = anchor(f, dir);
  if (a.count(id)) return fmt::format("<a href=\"#{}\">{}</a>", id, f.id);
  const std::string other = anchor(f, 1 - dir);
  if (a.count(other)) return fmt::format("<a href=\"#{}\">{}</a>", other, f.id);
  return std::to_string(f.id);
}

void write_connections(std::ostream& os, const Report& r, const Anchors& anchors, const ReportView& view,
                       const StreamNumbers& streams) {
  // The file is named once, at the top of the page; a column (its name
  // without the directories) only when there are several.
  const bool files = r.inputs.size() > 1;
  os << "<h2>Connections</h2>\n";
  os << "<div class=\"scroll\"><table class=\"sortable\" id=\"connections\">\n<thead><tr>"
     << "<th>flow</th>" << (files ? "<th>file</th>" : "")
     << "<th>client</th><th>server</th><th>packets</th><th>duration (s)</th>"
        "<th>retransmissions</th><th>timer expiries</th><th>MUST</th><th>SHOULD</th><th>INFO</th></tr></thead>\n<tbody>\n";
  for (const auto& f : r.flows) {
    if (!view.shows(f, streams)) continue;
    std::uint64_t retx = 0, touts = 0, must = 0, should = 0, info = 0;
    for (const auto& s : f.senders) {
      retx += s.retransmissions();
      touts += s.timeouts.size();
      must += count_level(s, Level::must);
      should += count_level(s, Level::should);
      info += count_level(s, Level::info) + count_level(s, Level::may);
    }
    const std::size_t d = f.senders[0].data_segments >= f.senders[1].data_segments ? 0 : 1;
    os << fmt::format(
        "<tr><td class=\"n\" data-v=\"{}\">{}</td>{}<td>{}</td><td>{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{:.3f}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n{}\">{}</td>"
        "<td class=\"n{}\">{}</td><td class=\"n\">{}</td></tr>\n",
        f.id, flow_link(anchors, f, d),
        files ? fmt::format("<td title=\"{}\">{}</td>", escape(f.file),
                            escape(std::filesystem::path(f.file).filename().string()))
              : std::string(),
        escape(to_string(f.client)), escape(to_string(f.server)), f.packets,
        std::chrono::duration<double>(f.last_time - f.first_time).count(), retx, touts, must ? " MUST" : "", must,
        should ? " SHOULD" : "", should, info);
  }
  os << "</tbody></table></div>\n";
}

void write_findings(std::ostream& os, const Report& r, const Anchors& anchors, const ReportView& view,
                    const StreamNumbers& streams) {
  os << "<h2>Findings</h2>\n";
  std::size_t shown = 0;
  for (const auto& f : r.flows)
    if (view.shows(f, streams))
      for (const auto& s : f.senders) shown += view.shown_findings(s);
  if (shown == 0) {
    os << (view.level == Level::info ? std::string("<p>none</p>\n")
                                     : fmt::format("<p>none at {} or above (--level)</p>\n", to_string(view.level)));
    return;
  }
  os << "<div class=\"scroll\"><table class=\"sortable\" id=\"findings\">\n<thead><tr><th>flow</th><th>sender</th>"
        "<th>level</th><th>rule</th><th>frame</th><th>time (s)</th><th>what</th></tr></thead>\n<tbody>\n";
  for (const auto& f : r.flows) {
    if (!view.shows(f, streams)) continue;
    for (std::size_t d = 0; d < 2; ++d)
      for (const auto& x : f.senders[d].findings) {
        if (!view.shows(x)) continue;
        const auto lvl = to_string(x.level);
        os << fmt::format(
            "<tr><td class=\"n\" data-v=\"{}\">{}</td><td>{}</td><td class=\"{}\" data-v=\"{}\">{}</td><td>{}</td>"
            "<td class=\"n\">{}</td><td class=\"n\">{:.6f}</td><td>{}</td></tr>\n",
            f.id, flow_link(anchors, f, d), escape(to_string(f.senders[d].src)), lvl, static_cast<int>(x.level), lvl,
            escape(to_string(x.rule)), x.frame, rel_s(r, f, x.time), escape(describe(x, r.options)));
      }
  }
  os << "</tbody></table></div>\n";
}

void write_sender(std::ostream& os, const Report& r, const FlowReport& f, std::size_t d, bool open) {
  const SenderReport& s = f.senders[d];
  const std::size_t must = count_level(s, Level::must), should = count_level(s, Level::should);
  os << fmt::format("<details id=\"{}\"{}><summary>flow {} sender {} &#8594; {}: {} MUST, {} SHOULD, {} timer "
                    "expir{}, {} retransmission(s)</summary>\n",
                    anchor(f, d), open ? " open" : "", f.id, escape(to_string(s.src)), escape(to_string(s.dst)), must,
                    should, s.timeouts.size(), s.timeouts.size() == 1 ? "y" : "ies", s.retransmissions());
  os << fmt::format("<p>{}, frames {}-{}; {} packets, {} data-bearing segments, {} payload bytes; profile {}.</p>\n",
                    escape(f.file), f.first_frame, f.last_frame, s.packets, s.data_segments, s.bytes, escape(s.profile));
  os << "<p>" << escape(summarize(s, r.options)) << "</p>\n";
  std::string kinds;
  for (std::size_t k = 1; k < kSendKinds; ++k)
    if (s.by_kind[k] && is_retransmission(static_cast<SendKind>(k))) kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", s.by_kind[k], to_string(static_cast<SendKind>(k)));
  os << "<p>retransmissions: " << (kinds.empty() ? std::string("none") : escape(kinds)) << "</p>\n";
  if (!s.timeouts.empty()) {
    os << "<table class=\"sortable\"><thead><tr><th>frame</th><th>at (s)</th><th>seq</th><th>n</th><th>waited (ms)</th>"
          "<th>predicted (ms)</th><th>accepted (ms)</th><th>armed by</th><th>verdict</th><th>findings</th></tr></thead><tbody>\n";
    for (const auto& t : s.timeouts) {
      // A cell's sort value; none for an unknown wait (the capture clock
      // stepped): its row sorts by its "?" and "-".
      const auto sort_key = [&](std::chrono::microseconds d) {
        return t.wait_unknown ? std::string() : fmt::format(" data-v=\"{:.1f}\"", ms(d));
      };
      std::string rules;
      for (auto id : t.rules) rules += (rules.empty() ? "" : ", ") + std::string(to_string(id));
      os << fmt::format(
          "<tr><td class=\"n\">{}</td><td class=\"n\">{:.3f}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
          "<td class=\"n\"{}>{}</td><td class=\"n\">{}{}</td><td class=\"n\"{}>{}</td>"
          "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
          t.frame, rel_s(r, f, t.time), t.rel_seq, t.expiry, sort_key(t.wait.lo),
          t.wait_unknown ? std::string("?") : escape(interval_text(t.wait)), escape(interval_text(t.predicted)),
          t.basis == Basis::doubling ? "*" : "", sort_key(t.accepted.lo),
          t.wait_unknown ? std::string("-") : escape(interval_text(t.accepted)), to_string(t.armed_by), to_string(t.verdict), escape(rules));
    }
    os << "</tbody></table>\n";
    if (std::any_of(s.timeouts.begin(), s.timeouts.end(), [](const TimeoutRecord& t) { return t.basis == Basis::doubling; }))
      os << "<p style=\"font-size:.8em\">* predicted from the previous expiry's wait (the 5.5 doubling), once the "
            "chain departed from the profile's RTO.</p>\n";
  }
  if (has_graph(s)) {
    os << "<div class=\"graph\">\n" << sender_svg(r, f, d, false) << "</div>\n";
    // Each short episode again, zoomed: on the whole connection's axis its
    // expiries, windows and findings would lie on top of each other.
    const auto zoomed = zoomed_episodes(r, f, d);
    for (std::size_t i = 0; i < zoomed.size(); ++i)
      os << fmt::format("<p class=\"zoom\">Episode {}: {} timer expir{} ({}), {:.3f}-{:.3f} s, zoomed:</p>\n", i + 1,
                        zoomed[i].expiries, zoomed[i].expiries == 1 ? "y" : "ies",
                        zoomed[i].first_frame == zoomed[i].last_frame
                            ? fmt::format("frame {}", zoomed[i].first_frame)
                            : fmt::format("frames {}-{}", zoomed[i].first_frame, zoomed[i].last_frame),
                        zoomed[i].t0, zoomed[i].t1)
         << "<div class=\"graph zoom\">\n" << sender_svg(r, f, d, false, zoomed[i]) << "</div>\n";
  }
  else os << "<p>no picture: the report was made without the timeline</p>\n";
  os << "</details>\n";
}

// A sender has something to show: a timer expiry, a retransmission, or a finding the view shows.
bool has_story(const SenderReport& s, const ReportView& view) {
  return !s.timeouts.empty() || s.retransmissions() > 0 || view.shown_findings(s) > 0;
}

// Senders as rows of one table (id: the table's).
void write_sender_rows(std::ostream& os, std::span<const SenderRef> rows, std::string_view id) {
  os << fmt::format("<div class=\"scroll\"><table class=\"sortable\" id=\"{}\">\n<thead><tr><th>flow</th><th>sender</th>"
                    "<th>peer</th><th>packets</th><th>retransmissions</th><th>timer expiries</th><th>MUST</th><th>SHOULD</th>"
                    "<th>INFO</th></tr></thead>\n<tbody>\n",
                    id);
  for (const SenderRef& x : rows) {
    const SenderReport& s = x.flow->senders[x.dir];
    os << fmt::format("<tr><td class=\"n\">{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
                      "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n",
                      x.flow->id, escape(to_string(s.src)), escape(to_string(s.dst)), s.packets, s.retransmissions(),
                      s.timeouts.size(), count_level(s, Level::must), count_level(s, Level::should),
                      count_level(s, Level::info) + count_level(s, Level::may));
  }
  os << "</tbody></table></div>\n";
}

}  // namespace

std::vector<SenderRef> senders_worst_first(const Report& r, const ReportView& view) {
  std::vector<SenderRef> v;
  const StreamNumbers streams(r);
  for (const auto& f : r.flows)
    if (view.shows(f, streams))
      for (std::size_t d = 0; d < 2; ++d)
        if (f.senders[d].data_segments > 0 && view.shows(f.senders[d])) v.push_back({&f, d});
  const auto key = [](const SenderRef& x) {
    const SenderReport& s = x.flow->senders[x.dir];
    return std::tuple{count_level(s, Level::must), count_level(s, Level::should), s.timeouts.size(), s.retransmissions()};
  };
  std::stable_sort(v.begin(), v.end(), [&](const SenderRef& a, const SenderRef& b) { return key(a) > key(b); });
  return v;
}

void write_html_report(std::ostream& os, const Report& r, int exit_status, const ReportView& view) {
  write_header(os, r, exit_status);
  if (const std::string sel = view.describe(); !sel.empty())
    os << "<p class=\"selection\">Shown: what " << escape(sel)
       << " selects; the summary cards and the exit status count the whole input.</p>\n";
  const StreamNumbers streams(r);
  // The senders with something to show (a timer expiry, a retransmission, a
  // finding) get a section with their picture; the others one table row.
  std::vector<SenderRef> senders, quiet;
  for (const SenderRef& x : senders_worst_first(r, view))
    (has_story(x.flow->senders[x.dir], view) ? senders : quiet).push_back(x);
  const std::size_t sections = std::min(senders.size(), limits::kHtmlMaxSections);
  Anchors anchors;
  for (std::size_t i = 0; i < sections; ++i) anchors.insert(anchor(*senders[i].flow, senders[i].dir));
  write_connections(os, r, anchors, view, streams);
  write_findings(os, r, anchors, view, streams);
  os << fmt::format("<h2>Senders, the worst first ({})</h2>\n", senders.size());
  if (sections > limits::kHtmlOpenSenders)
    os << fmt::format("<p>The first {} are open; click a heading to open the others.</p>\n", limits::kHtmlOpenSenders);
  for (std::size_t i = 0; i < sections; ++i)
    write_sender(os, r, *senders[i].flow, senders[i].dir, i < limits::kHtmlOpenSenders);
  if (sections < senders.size()) {
    os << fmt::format("<h2>The other {} senders</h2>\n<p>Only the worst {} senders have a section with a picture on this "
                      "page; <code>pcap-replay plot --svg DIR</code> draws every sender.</p>\n",
                      senders.size() - sections, sections);
    write_sender_rows(os, std::span<const SenderRef>(senders).subspan(sections), "other-senders");
  }
  if (!quiet.empty()) {
    os << fmt::format("<h2>Senders with nothing to show ({})</h2>\n<p>No timer expiry, no retransmission, no finding: "
                      "one row each, no picture (<code>pcap-replay plot --svg DIR</code> draws them too).</p>\n",
                      quiet.size());
    write_sender_rows(os, quiet, "quiet-senders");
  }
  os << "<p style=\"font-size:.8em;color:#666\">Written by pcap-replay check --html: one self-contained page, no "
        "network access; the tables sort on a click on their headings.</p>\n";
  os << "<script>" << kScript << "</script>\n</body>\n</html>\n";
}

}  // namespace replay
