#include <replay/report/json_flows_writer.hpp>

#include <string_view>

#include <replay/report/report_json.hpp>

namespace replay {

namespace {
// Where dump_document puts the top-level "flows" array: every
// top-level key is on its own line indented by two spaces, and no string in
// the document holds a raw newline (JSON escapes it), so this is unique.
constexpr std::string_view kFlowsKey = "\n  \"flows\": [";
// An element's first line.
constexpr std::string_view kIndent = "    ";
static_assert(kIndent.size() == JsonFlowsWriter::kEntryIndent);

}  // namespace

void JsonFlowsWriter::begin(const nlohmann::json& head) {
  begun_ = true;
  const std::string text = dump_document(head);
  const std::size_t at = text.find(kFlowsKey);
  os_.write(text.data(), static_cast<std::streamsize>(at + kFlowsKey.size()));
}

void JsonFlowsWriter::entry(std::string_view text) {
  os_ << (any_entry_ ? ",\n" : "\n");
  os_.write(kIndent.data(), static_cast<std::streamsize>(kIndent.size()));
  os_.write(text.data(), static_cast<std::streamsize>(text.size()));
  any_entry_ = true;
}

void JsonFlowsWriter::finish(const nlohmann::json& doc) {
  const std::string text = dump_document(doc);
  if (!any_entry_) {
    os_ << text << "\n";  // no entry: the whole document as it is ("flows": [])
    return;
  }
  // The entries are written: close the array and write what follows it.
  const std::size_t after = text.find(kFlowsKey) + kFlowsKey.size();  // at "]" of "[]"
  os_ << "\n  ";
  os_.write(text.data() + after, static_cast<std::streamsize>(text.size() - after));
  os_ << "\n";
}

}  // namespace replay
