#pragma once

#include <array>
#include <string>
#include <string_view>
// `pcap-replay check --json` (and `flows --json`): the report as one JSON
// document (nlohmann-json).
// The schema is documented in pcap-replay/SCHEMA.md.

#include <nlohmann/json.hpp>
#include <cstdint>
#include <optional>
#include <ostream>

#include <replay/analysis/flow_report.hpp>
#include <replay/report/report_view.hpp>

namespace replay {

/// The report as JSON (see SCHEMA.md; times in seconds since the epoch and
/// since Report::first_time, durations in ms); the flows entries are those
/// `view` shows ("selection" says which), the summary covers everything.
nlohmann::json to_json(const Report& r, const ReportView& view = {});

/// Appends to `entries` the "flows" entry of connection `f` in to_json's
/// document: the connection's fields as flows_to_json gives them, and
/// "senders", one object per sender that sent a data-bearing segment and
/// `view` shows (the caller decides whether `view` shows `f`); `stream` is
/// its tcp.stream (StreamNumbers, StreamCounter), times since `origin`
/// (Report::origin_of its file).
/// (The tree of write_flow_json's text: for callers that keep documents.)
void append_flow_json(nlohmann::json& entries, const FlowReport& f, const Options& options,
                      std::optional<std::uint64_t> stream, CaptureTime origin, const ReportView& view = {});

/// Appends to `out` the text of that entry as nlohmann's dump(2) writes it,
/// every line after the first indented `base_indent` spaces more (the
/// reports written as they go: JsonFlowsWriter::kEntryIndent). Bytes of a
/// file name that are not UTF-8 are written as U+FFFD, as dump_document
/// writes them.
void write_flow_json(std::string& out, const FlowReport& f, const Options& options,
                     std::optional<std::uint64_t> stream, CaptureTime origin, const ReportView& view = {},
                     int base_indent = 0);
/// The report document's schema_version (pcap-replay/SCHEMA.md): raised when
/// a key changes meaning or goes away.
inline constexpr int kSchemaVersion = 3;

/// The top-level keys of a report document (to_json, flows_to_json) that
/// dump_document() writes first, in this order: those known before any input
/// is read, so that a report written as it goes (JsonFlowsWriter) starts its
/// "flows" at once. "flows" follows them, then every other key in
/// alphabetical order (nlohmann::json's).
inline constexpr std::array<std::string_view, 8> kLeadingKeys{"tool",      "schema_version", "kind",       "profile",
                                                              "tolerance", "rto_config",     "bpf_filter", "selection"};

/// A report document as text, indented by 2 as nlohmann's dump(2): the
/// kLeadingKeys present, "flows", then the other keys. No newline at the end.
/// Bytes that are not UTF-8 (a file name) are written as U+FFFD.
std::string dump_document(const nlohmann::json& doc);

/// Writes to_json(r, view) (dump_document) and a newline.
void write_json_report(std::ostream& os, const Report& r, const ReportView& view = {});

/// `pcap-replay flows --json`: the connections only ("kind": "flows"; see
/// SCHEMA.md): per flow id, file, client, server, packets, first/last frame,
/// start time, duration (s), SYN/FIN/RST seen, and per direction packets,
/// data-bearing segments and payload bytes.
/// Each flow also carries Wireshark's tcp_stream (null under -f) and a
/// display filter; only the flows `view` shows are listed.
nlohmann::json flows_to_json(const Report& r, const ReportView& view = {});

/// The "flows" entry of flows_to_json for connection `f`: `stream` is its
/// tcp.stream (StreamNumbers, StreamCounter), "rel_time" seconds since `origin`
/// (Report::first_time).
nlohmann::json flow_list_entry(const FlowReport& f, std::optional<std::uint64_t> stream, CaptureTime origin);

/// Appends to `out` the text of flow_list_entry(f, stream, origin), as
/// write_flow_json does.
void write_flow_list_entry(std::string& out, const FlowReport& f, std::optional<std::uint64_t> stream,
                           CaptureTime origin, int base_indent = 0);
/// Writes flows_to_json(r, view) (dump_document) and a newline.
void write_json_flow_list(std::ostream& os, const Report& r, const ReportView& view = {});

}  // namespace replay
