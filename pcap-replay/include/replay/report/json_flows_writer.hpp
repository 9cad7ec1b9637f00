#pragma once
// A JSON report document written with its top-level "flows" array filled
// entry by entry, byte for byte what dump_document (report_json.hpp) gives
// for the whole document: used by the reports written as the analysis goes
// (CheckStream, FlowListStream). Only kLeadingKeys come before "flows", so
// the document can begin before any input is read.

#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace replay {

class JsonFlowsWriter {
 public:
  explicit JsonFlowsWriter(std::ostream& os) : os_(os) {}
  /// Whether begin() was called.
  bool begun() const { return begun_; }
  /// Writes `head` (a document whose kLeadingKeys are complete, "flows"
  /// empty) up to and including the array's "[".
  void begin(const nlohmann::json& head);
  /// The indent of the array's elements: write each with
  /// write_flow_json's / write_flow_list_entry's base_indent this.
  static constexpr int kEntryIndent = 4;
  /// One element of the array (after begin()): its text as JsonText wrote
  /// it with base indent kEntryIndent (its first line not indented).
  void entry(std::string_view text);
  /// Writes the rest of `doc` (the whole document with "flows" empty): all of
  /// it when no entry was written, else what follows the array.
  void finish(const nlohmann::json& doc);

 private:
  std::ostream& os_;
  bool begun_ = false;
  bool any_entry_ = false;
};

}  // namespace replay
