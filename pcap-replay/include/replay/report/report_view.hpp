#pragma once
// What part of a report is printed (--flow, --stream, --findings-only,
// --level, -Y). The view only hides: the summary line, the lockstep section and
// the exit status still cover the whole input.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <replay/analysis/flow_report.hpp>
#include <replay/report/display_filter.hpp>
#include <replay/report/wireshark_ref.hpp>

namespace replay {

/// The connections and senders a report prints.
struct ReportView {
  std::optional<std::uint64_t> flow;    ///< --flow N: only connection N (FlowReport::id, 1-based)
  std::optional<std::uint64_t> stream;  ///< --stream N: only connections whose tcp.stream (StreamNumbers) is N
  bool findings_only = false;           ///< --findings-only: only senders with at least one shown finding
  Level level = Level::info;            ///< --level: only the findings at this level or above (at_least)
  std::optional<DisplayFilter> display; ///< -Y: the connections and the findings' frames it allows
  /// check --json --timeline: each shown sender's entry carries its timeline
  /// (FlowReport's, kept by the analysis), for `merge --html`. Not a
  /// selection: the document's "selection" does not name it.
  bool timeline = false;

  /// Whether connection `f` is printed (its senders then by shows(s));
  /// `streams` are the report's tcp.stream numbers.
  bool shows(const FlowReport& f, const StreamNumbers& streams) const;
  /// The same, given the tcp.stream of `f` (StreamNumbers::of,
  /// StreamCounter::next; nullopt when not known).
  bool shows(const FlowReport& f, std::optional<std::uint64_t> stream) const;
  /// Whether sender `s` (of a shown connection) is printed.
  bool shows(const SenderReport& s) const;
  /// Whether finding `j` (of a shown sender) is printed: its level is `level` or above.
  bool shows(const Judgement& j) const { return at_least(j.level, level) && (!display || display->shows_frame(j.frame)); }
  /// How many of `s`'s findings are printed.
  std::size_t shown_findings(const SenderReport& s) const;
  /// What the view hides, in words ("--level MUST; -Y \"tcp.port == 80\""),
  /// empty when it shows everything.
  std::string describe() const;
  /// Why the view is an argument error, or nullopt: --flow naming no
  /// connection ("--flow 9: no such connection; the input has 3 (1-3)"),
  /// --stream naming none, or --stream under a BPF filter (the stream
  /// numbers are unknown there, see StreamNumbers).
  std::optional<std::string> error(const Report& r, const StreamNumbers& streams) const;
};

/// Removes from r.flows the connections `v` does not show (for writers that
/// take no view, e.g. the timeline CSV); the flow ids are kept.
void keep_shown_flows(Report& r, const ReportView& v);

}  // namespace replay
