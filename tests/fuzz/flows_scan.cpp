// Fuzz harness: FlowsScan (replay/report/json_flows_scan.hpp), the scan
// `pcap-replay merge` reads shard documents with, against nlohmann's parser
// of the whole input. Byte 0 picks the read block (1 to 64 bytes: escapes,
// strings and brackets across block edges); the rest is the document.
// Invariants:
//  - the scan either throws ScanError or hands out elements and a rest;
//  - what it accepts is JSON: when the rest and every element parse, the
//    whole input parses too (the bytes no parser sees, between the
//    elements, are blanks and single commas);
//  - each element is an object, starting at its element_offset() in the
//    input; every byte of the rest is the input's byte at
//    file_offset_of_rest();
//  - when the rest's "flows" is [] (what merge takes), the document's
//    "flows" is the elements, in order, and the rest is the document with
//    "flows" emptied.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include <replay/report/json_flows_scan.hpp>

#include "common/memory_file.hpp"

namespace {
using nlohmann::json;

std::optional<json> try_parse(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::exception&) {  // parse_error, out_of_range (a number past a double)
    return std::nullopt;
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t block = 1 + data[0] % 64;
  const std::string doc(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::FILE* f = fmemopen(const_cast<char*>(doc.data()), doc.size(), "r");
  if (!f) return 0;  // fmemopen refuses an empty buffer
  std::vector<std::string> elements;
  std::vector<std::uint64_t> offsets;
  std::string rest;
  std::vector<std::uint64_t> rest_at;
  try {
    replay::FlowsScan scan(f, "fuzz.json", true, block);
    for (std::string e; scan.next(e);) {
      elements.push_back(e);
      offsets.push_back(scan.element_offset());
    }
    rest = scan.rest();
    for (std::size_t i = 0; i < rest.size(); ++i) rest_at.push_back(scan.file_offset_of_rest(i));
  } catch (const replay::ScanError&) {
    std::fclose(f);
    return 0;
  }
  std::fclose(f);

  for (std::size_t i = 0; i < elements.size(); ++i) {
    fuzz::check(!elements[i].empty() && elements[i].front() == '{', "an element that does not begin with '{'");
    fuzz::check(doc.compare(offsets[i], elements[i].size(), elements[i]) == 0, "an element not at its offset");
  }
  for (std::size_t i = 0; i < rest.size(); ++i)
    fuzz::check(rest_at[i] < doc.size() && doc[rest_at[i]] == rest[i], "a byte of the rest not at its offset");

  const auto rest_j = try_parse(rest);
  if (!rest_j) return 0;
  std::vector<json> parsed;
  for (const std::string& e : elements) {
    auto j = try_parse(e);
    if (!j) return 0;
    fuzz::check(j->is_object(), "an element that parses to no object");
    parsed.push_back(std::move(*j));
  }
  const auto whole = try_parse(doc);
  fuzz::check(whole.has_value(), "the rest and every element parse, the document does not");
  fuzz::check(whole->is_object() && rest_j->is_object(), "a document that is no object");
  if (rest_j->contains("flows") && (*rest_j)["flows"] == json::array()) {
    const json& flows = (*whole)["flows"];
    fuzz::check(flows.is_array() && flows.size() == parsed.size(), "\"flows\" is not the elements handed out");
    for (std::size_t i = 0; i < parsed.size(); ++i) fuzz::check(flows[i] == parsed[i], "an element differs");
    json expected = *whole;
    expected["flows"] = json::array();
    fuzz::check(expected == *rest_j, "the rest is not the document with \"flows\" emptied");
  }
  return 0;
}
