#pragma once
// A `check --json` document read back into the values the analysis made
// (flow_report.hpp, judgement.hpp), so that the report writers word it again:
// `pcap-replay merge --text` writes, from the shards' merged document, the
// text `check` writes for the whole input in one process, with the same
// writers (report_text.hpp). The document carries every value the text
// reads (SCHEMA.md); what the text says is never read back from the
// document's words ("message", "summary", "stream_filter" are not read).
//
// Times: a document's times are read from its rel_time keys (seconds since
// the entry's file's frame 1, exact to the nanosecond as a double holds
// them: the time read back gives the same double again) from the origin the
// document states exactly (first_time_ns); durations in ms back to whole
// microseconds. A report read back is written again byte for byte: the text,
// and the JSON entry (write_flow_json) too.
//
// Errors: JsonReadError, naming the document, the connection and the key
// ("s1.json: flow 7: senders[0].timeouts[2].wait_ms: not an interval of ms").

#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include <replay/analysis/flow_report.hpp>
#include <replay/report/report_view.hpp>

namespace replay {

/// A document, or a "flows" entry, that is not what `check --json` writes
/// (a key missing or of another type, a value no writer gives): what()
/// names the document and the key.
struct JsonReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What reading one "flows" entry needs of its document.
struct EntryContext {
  std::string document;       ///< the document's name, for errors
  CaptureTime origin{};       ///< what its rel_time keys count from (Report::origin_of its file)
  std::size_t file_index = 0; ///< FlowReport::file_index (its "file" among the document's)
  /// The document's selection ("selection", view_from_json): the findings it
  /// hid (a sender's "findings_hidden") are read back as stand-ins that the
  /// view hides too: their level is theirs, their frame one the view does
  /// not show, nothing else is set.
  ReportView view;
};

/// Connection `entry` (an element of a check document's "flows") as the
/// analysis reported it: the connection's fields and its senders' (those
/// the entry lists; the others are left empty, with no data-bearing
/// segment, as the writers skip them). Not read: the words ("message",
/// "summary", "display_filter", "stream_filter"), the epoch "time" keys
/// (rel_time is exact). A sender's "timeline" (check --json --timeline) is
/// read when the entry has one.
/// Throws JsonReadError.
FlowReport from_json_entry(const nlohmann::json& entry, const EntryContext& ctx = {});
/// Its "tcp_stream" (null under -f). Throws JsonReadError.
std::optional<std::uint64_t> entry_stream(const nlohmann::json& entry, const std::string& document = {});

/// The analysis options a check document states: "profile", "tolerance",
/// "rto_config" (with what the command line set) and "bpf_filter". Throws
/// JsonReadError.
Options options_from_json(const nlohmann::json& doc, const std::string& document = {});
/// The document's "selection" (--flow, --stream, --findings-only, --level,
/// -Y). Throws JsonReadError.
ReportView view_from_json(const nlohmann::json& doc, const std::string& document = {});
/// Everything of the report a check document holds but its connections:
/// options, files, inputs (with each one's totals), diagnostics, the
/// lockstep groups, the time origin, and the totals of every connection
/// ("summary", the inputs' "summary") as Report::streamed, Report::flows
/// empty. "flows" is not read (a caller streams the entries through
/// from_json_entry). Throws JsonReadError.
Report report_from_json(const nlohmann::json& doc, const std::string& document = {});

/// The text report of `check` written from a check document, entry by
/// entry, as CheckStream writes it from the analysis: construct it with the
/// document (its "flows" is not read), give it every entry of "flows" in
/// order (entry()), then finish(). What it writes is byte for byte what
/// `check` wrote (text, the same options and selection) for the run whose
/// document it is, and nothing when no input was usable. Holds one
/// connection at a time.
class JsonTextReport {
 public:
  /// Throws JsonReadError.
  JsonTextReport(std::ostream& os, const nlohmann::json& doc, std::string document);
  /// The connection of "flows" entry `entry` read back (from_json_entry)
  /// with its tcp.stream; checks it, writes nothing. `document`: the name of
  /// the document the entry is read from, for errors (empty: the one given
  /// to the constructor; a merge reads the entries from the shards'). Throws
  /// JsonReadError.
  std::pair<FlowReport, std::optional<std::uint64_t>> read(const nlohmann::json& entry,
                                                           const std::string& document = {}) const;
  /// Writes the text of entry `entry` (the heading first). Throws JsonReadError.
  void entry(const nlohmann::json& entry, const std::string& document = {});
  /// Writes the end of the report (write_text_ending) and the profile
  /// hint's line.
  void finish();

 private:
  void begin();
  std::ostream& os_;
  std::string document_;
  Report report_;
  ReportView view_;
  std::optional<std::string> hint_;
  bool begun_ = false;
};

/// A check document's whole report read back, every connection kept (the
/// Report `check --html` keeps), for `merge --html`. The document must show
/// every connection and finding (no --flow, --stream, -Y, --findings-only,
/// --level: the page counts and draws them all) and carry each sender's
/// timeline (check --json --timeline). Use: construct it with the document
/// (its "flows" is not read); check() every entry of every document (of a
/// merge: each shard's) and check_summary() each document with the totals,
/// before anything is written; then add() every entry in order and take()
/// the report. Holds every connection added.
class JsonWholeReport {
 public:
  /// Throws JsonReadError (a selection).
  JsonWholeReport(const nlohmann::json& doc, std::string document);
  /// Reads entry `entry` back (as JsonTextReport::read): its totals. Throws
  /// JsonReadError, also for a sender with data-bearing segments and no
  /// "timeline".
  FlowTotals check(const nlohmann::json& entry, const std::string& document = {}) const;
  /// Throws JsonReadError naming `document` and the count when `read` (the
  /// totals of its entries) is not what its summary counts: connections,
  /// findings by level, retransmissions and timer expiries (its inputs').
  static void check_summary(const FlowTotals& read, const nlohmann::json& doc, const std::string& document);
  /// Reads entry `entry` back and keeps it. Throws JsonReadError.
  void add(const nlohmann::json& entry, const std::string& document = {});
  /// The report: its options, inputs, lockstep groups and every connection
  /// added, as Report::flows (Report::streamed empty).
  Report take();
  /// The document's selection (it shows everything).
  const ReportView& view() const { return view_; }

 private:
  FlowReport read(const nlohmann::json& entry, const std::string& document) const;
  std::string document_;
  Report report_;
  ReportView view_;
};

/// The text report of a whole check document (`doc` with its "flows"): a
/// JsonTextReport given every entry. Throws JsonReadError.
void write_text_from_json(std::ostream& os, const nlohmann::json& doc, const std::string& document = {});

}  // namespace replay
