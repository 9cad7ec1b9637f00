// Fuzz harness: the whole pipeline of `pcap-replay check`: the input as a
// capture file through analyze_files (reader -> Analyzer), then every report
// writer (text, JSON, the flow list, flows JSON, the timeline CSV, the HTML
// page). The whole input is the capture; its last byte also picks the
// profile (rfc6298, linux, auto) and whether the HTML page is drawn. Invariants:
//  - one input entry, naming the file; flows numbered 1..N in order;
//  - per flow: packets = the two senders' packets + capture duplicates (each
//    listed); first frame <= last frame; every segment the reader returned
//    is in exactly one flow or dropped by a limit: sum of packets + dropped
//    = the input's TCP segments;
//  - per sender: data-bearing segments = the send kinds counted (by_kind);
//    at most as many data-bearing segments as packets; timeouts in frame order;
//  - the JSON documents parse (nlohmann); their summary equals the report's
//    counts and they list each data sender with its counts; the text report
//    carries its summary line.
#include <nlohmann/json.hpp>

#include <numeric>
#include <sstream>

#include <replay/analysis/analyzer.hpp>
#include <replay/report/input_counts.hpp>
#include <replay/pipeline/analyze_files.hpp>
#include <replay/report/report_html.hpp>
#include <replay/report/report_json.hpp>
#include <replay/report/report_text.hpp>
#include <replay/report/timeline_csv.hpp>

#include "common/memory_file.hpp"

namespace {

constexpr const char* kProfiles[] = {"rfc6298", "linux", "auto"};

void check_flows(const replay::Report& r) {
  std::uint64_t packets = 0;
  for (std::size_t i = 0; i < r.flows.size(); ++i) {
    const replay::FlowReport& f = r.flows[i];
    fuzz::check(f.id == i + 1, "flows are numbered 1..N in order");
    fuzz::check(f.first_frame <= f.last_frame, "a flow's first frame is not after its last");
    fuzz::check(f.packets == f.senders[0].packets + f.senders[1].packets + f.capture_duplicates,
                "a flow's packets are its senders' and its capture duplicates");
    fuzz::check(f.duplicate_frames.size() == f.capture_duplicates, "each capture duplicate is listed");
    fuzz::check(f.duplicate_of.size() == f.capture_duplicates, "each capture duplicate names the frame it copies");
    for (std::size_t k = 0; k < f.duplicate_of.size(); ++k)
      fuzz::check(f.duplicate_of[k] < f.duplicate_frames[k], "a capture duplicate copies an earlier frame");
    std::uint64_t copy_rows = 0;  // (the timeline is kept, and every profile models the senders)
    for (const replay::SenderReport& s : f.senders)
      for (const replay::TimelineEvent& e : s.timeline) copy_rows += e.event == replay::kCaptureCopyEvent ? 1 : 0;
    fuzz::check(copy_rows == f.capture_duplicates, "each capture duplicate has one timeline row");
    packets += f.packets;
    // A second server's connection begins with the client's SYN it answers,
    // the frame its first connection holds too (FlowReport::alongside).
    if (f.alongside && f.alongside->syn_frame != 0) {
      fuzz::check(f.first_frame == f.alongside->syn_frame && f.alongside->flow < f.id,
                  "a shared SYN begins the later of its two connections");
      --packets;
    }
    for (const replay::SenderReport& s : f.senders) {
      const std::uint64_t kinds = std::accumulate(s.by_kind.begin(), s.by_kind.end(), std::uint64_t{0});
      fuzz::check(kinds == s.data_segments, "a sender's send kinds add up to its data-bearing segments");
      fuzz::check(s.data_segments <= s.packets, "no more data-bearing segments than packets");
      for (std::size_t k = 1; k < s.timeouts.size(); ++k)
        fuzz::check(s.timeouts[k - 1].frame < s.timeouts[k].frame, "timeouts in frame order");
    }
  }
  fuzz::check(r.inputs.size() == 1, "one input entry per file");
  fuzz::check(packets + r.dropped_segments == r.inputs[0].tcp_segments,
              "every TCP segment is in one flow (a second server's answered SYN in two), a capture duplicate, "
              "or dropped by a limit");
}

void check_summary(const nlohmann::json& doc, const replay::Report& r) {
  const auto& s = doc.at("summary");
  const replay::InputCounts in = replay::input_counts(r);
  fuzz::check(s.at("flows").get<std::size_t>() == r.flows.size(), "JSON summary: flows");
  fuzz::check(s.at("must").get<std::uint64_t>() == r.count(replay::Level::must), "JSON summary: MUST");
  fuzz::check(s.at("should").get<std::uint64_t>() == r.count(replay::Level::should), "JSON summary: SHOULD");
  fuzz::check(s.at("frames_skipped").get<std::size_t>() == in.skipped, "JSON summary: frames skipped");
  fuzz::check(s.at("frames_with_warning").get<std::size_t>() == in.warned, "JSON summary: warnings");
}

// check --json lists, per flow in order, each sender that sent data (SCHEMA.md),
// with its packets, data-bearing segments, timeouts and findings.
void check_json_senders(const nlohmann::json& connections, const replay::Report& r) {
  fuzz::check(connections.size() == r.flows.size(), "JSON lists every connection");
  for (std::size_t c = 0; c < r.flows.size(); ++c) {
    const replay::FlowReport& f = r.flows[c];
    const nlohmann::json& entries = connections[c].at("senders");
    fuzz::check(connections[c].at("flow").get<std::size_t>() == f.id, "a JSON connection carries its flow id");
    std::size_t i = 0;
    for (const replay::SenderReport& s : f.senders) {
      if (s.data_segments == 0) continue;
      fuzz::check(i < entries.size(), "JSON lists every sender that sent data");
      const nlohmann::json& e = entries[i++];
      fuzz::check(e.at("packets").get<std::uint64_t>() == s.packets &&
                      e.at("data_segments").get<std::uint64_t>() == s.data_segments &&
                      e.at("timeouts").size() == s.timeouts.size() && e.at("findings").size() == s.findings.size(),
                  "a JSON sender entry carries its sender's counts");
    }
    fuzz::check(i == entries.size(), "JSON lists only senders that sent data");
  }
}

nlohmann::json parse(const std::string& text, const char* what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fuzz::fail(std::string(what) + " does not parse: " + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace replay;
  if (size < 1) return 0;
  const std::uint8_t pick = data[size - 1];
  fuzz::MemoryFile file({data, size});
  const Options opts = Options::for_profile(kProfiles[pick % 3]);
  std::vector<std::string> errors;
  const Report r = analyze_files({file.path()}, opts, /*keep_timeline=*/true, errors);
  fuzz::check(r.inputs.size() == 1 && r.inputs[0].name == file.path(), "the input entry names the file");
  fuzz::check(errors.empty() == r.inputs[0].opened, "an open error is reported, and only then");
  check_flows(r);

  std::ostringstream text, json_text, flows_text, flows_json, csv;
  write_text_report(text, r);
  const std::string summary = summary_line(r);
  fuzz::check(text.str().find(summary) != std::string::npos, "the text report carries the summary line");
  write_json_report(json_text, r);
  const nlohmann::json doc = parse(json_text.str(), "check --json");
  check_summary(doc, r);
  check_json_senders(doc.at("flows"), r);
  write_flow_list(flows_text, r);
  write_json_flow_list(flows_json, r);
  const nlohmann::json fdoc = parse(flows_json.str(), "flows --json");
  fuzz::check(fdoc.at("flows").size() == r.flows.size(), "flows --json lists every flow");
  write_timeline_csv(csv, r);
  if ((pick & 0x80) != 0) {
    std::ostringstream html;
    write_html_report(html, r, r.exit_status(false));
    fuzz::check(html.str().find("</html>") != std::string::npos, "the HTML page is complete");
  }
  return 0;
}
