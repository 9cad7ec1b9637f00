// FlowsScan: the elements of a document's top-level "flows" array handed out
// one at a time, the rest kept with "flows": [], whatever the formatting,
// the strings (brackets and quotes inside them) and the read block size.
// The truth is nlohmann's parse of the same text.

#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <replay/report/json_flows_scan.hpp>

namespace {

using nlohmann::json;

struct Scanned {
  std::vector<std::string> elements;
  std::string rest;
};

// Scans `text` read `block` bytes at a time.
Scanned scan(const std::string& text, std::size_t block) {
  std::FILE* f = fmemopen(const_cast<char*>(text.data()), text.size(), "r");
  REQUIRE(f != nullptr);
  Scanned out;
  try {
    replay::FlowsScan s(f, "doc.json", true, block);
    std::string e;
    while (s.next(e)) out.elements.push_back(e);
    out.rest = s.rest();
  } catch (...) {
    std::fclose(f);
    throw;
  }
  std::fclose(f);
  return out;
}

std::string error_of(const std::string& text) {
  try {
    scan(text, 7);
  } catch (const replay::ScanError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("FlowsScan: the top-level flows' elements, and the document around them") {
  // Brackets, braces, quotes and backslashes in strings; a "flows" key
  // inside an element and in another object (not the array); an empty
  // object and array in an element; a value "flows" (not a key).
  const json doc = {
      {"a", "[{\"flows\": ]}\\"},
      {"b", {{"flows", json::array({1, 2})}}},
      {"c", "flows"},
      {"flows", json::array({{{"flow", 1}, {"flows", json::array({json::object()})}, {"s", "}]\\\"{"}},
                             {{"flow", 2}, {"x", json::object()}, {"y", json::array()}}})},
      {"z", json::array({json::object({{"flows", 3}})})}};
  json rest_expected = doc;
  rest_expected["flows"] = json::array();
  for (const std::string& text : {doc.dump(), doc.dump(2), doc.dump(1, '\t')}) {
    for (std::size_t block : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{64}, std::size_t{1 << 16}}) {
      CAPTURE(text);
      CAPTURE(block);
      const Scanned s = scan("\n " + text + "\n\n", block);
      REQUIRE(s.elements.size() == 2);
      CHECK(json::parse(s.elements[0]) == doc["flows"][0]);
      CHECK(json::parse(s.elements[1]) == doc["flows"][1]);
      CHECK(s.elements[0].front() == '{');
      CHECK(s.elements[1].back() == '}');
      CHECK(json::parse(s.rest) == rest_expected);
    }
  }
}

TEST_CASE("FlowsScan: a document without flows, or with an empty array") {
  CHECK(scan(R"({"a": 1})", 3).elements.empty());
  CHECK(json::parse(scan(R"({"a": 1})", 3).rest) == json{{"a", 1}});
  const Scanned s = scan(R"({"flows": [ ], "k": "v"})", 4);
  CHECK(s.elements.empty());
  CHECK(json::parse(s.rest) == json{{"flows", json::array()}, {"k", "v"}});
}

TEST_CASE("FlowsScan: what it cannot follow is an error naming the document and the byte") {
  CHECK(error_of(R"({"flows": [{"flow": 1})").find("doc.json: not a JSON document (byte 22): it ends before its last '}'") == 0);
  CHECK(error_of("[1, 2]").find("its top level is not an object") != std::string::npos);
  CHECK(error_of("").find("no JSON object in it") != std::string::npos);
  CHECK(error_of(R"({"flows": [1]})").find("a \"flows\" entry that is not an object") != std::string::npos);
  CHECK(error_of(R"({"flows": ["x"]})").find("a \"flows\" entry that is not an object") != std::string::npos);
  CHECK(error_of(R"({"flows": [[]]})").find("a \"flows\" entry that is not an object") != std::string::npos);
  CHECK(error_of(R"({"flows": [], "flows": []})").find("two \"flows\" arrays") != std::string::npos);
  CHECK(error_of(R"({"flows": [}]})").find("a \"flows\" entry that is not an object") != std::string::npos);
  CHECK(error_of(R"({"a": 1}})").find("more after the document's last '}'") != std::string::npos);
  CHECK(error_of(R"({"a": 1} {"b": 2})").find("more after the document's last '}'") != std::string::npos);
  CHECK(error_of(R"({"a": "never closed)").find("it ends before its last '}'") != std::string::npos);
}

TEST_CASE("FlowsScan: the array's grammar: objects separated by single commas") {
  CHECK(scan(R"({"flows": [ {"a": 1} , {"b": 2} ]})", 5).elements.size() == 2);
  CHECK(error_of(R"({"flows": [{"a": 1} {"b": 2}]})").find("without a comma between them") != std::string::npos);
  CHECK(error_of(R"({"flows": [{"a": 1},, {"b": 2}]})").find("without an entry before it") != std::string::npos);
  CHECK(error_of(R"({"flows": [, {"b": 2}]})").find("without an entry before it") != std::string::npos);
  CHECK(error_of(R"({"flows": [{"a": 1},]})").find("a comma before the end") != std::string::npos);
  CHECK(error_of(R"({"flows": [{"a": 1} : , {"b": 2}]})").find("not an object") != std::string::npos);
}

TEST_CASE("FlowsScan: a byte order mark, depth, and where things are in the file") {
  // A UTF-8 byte order mark before the document is skipped (nlohmann's
  // parser skips it too); anywhere else it is not JSON.
  const std::string doc = R"({"k": [1], "flows": [{"flow": 7}, {"flow": 8}], "z": {"x": "]"}})";
  const Scanned s = scan("\xEF\xBB\xBF" + doc, 4);
  CHECK(s.elements.size() == 2);
  CHECK(json::parse(s.rest) == json::parse(R"({"k": [1], "flows": [], "z": {"x": "]"}})"));
  CHECK(error_of(" \xEF\xBB\xBF" + doc).find("not an object") != std::string::npos);
  CHECK(error_of("\xEF\xBB" + doc).find("a byte order mark cut short") != std::string::npos);  // (found by fuzz-flows_scan)
  // Nesting deeper than kMaxJsonDepth is refused (the parser would
  // recurse): the document's object, "flows", the entry and 61 arrays are
  // 64 levels and read; 62 arrays are 65.
  const auto nested = [](int arrays) {
    return R"({"flows": [{"a": )" + std::string(static_cast<std::size_t>(arrays), '[') +
           std::string(static_cast<std::size_t>(arrays), ']') + "}]}";
  };
  CHECK(error_of(nested(replay::kMaxJsonDepth - 3)).empty());
  CHECK(error_of(nested(replay::kMaxJsonDepth - 2)).find("nested deeper than 64 levels") != std::string::npos);
  // Offsets: the elements' first bytes, and the rest's bytes mapped back.
  std::FILE* f = fmemopen(const_cast<char*>(doc.data()), doc.size(), "r");
  REQUIRE(f != nullptr);
  replay::FlowsScan sc(f, "doc.json", true, 3);
  std::string e;
  REQUIRE(sc.next(e));
  CHECK(sc.element_offset() == doc.find(R"({"flow": 7})"));
  REQUIRE(sc.next(e));
  CHECK(sc.element_offset() == doc.find(R"({"flow": 8})"));
  CHECK(!sc.next(e));
  const std::string& rest = sc.rest();
  for (std::size_t i = 0; i < rest.size(); ++i) REQUIRE(doc[sc.file_offset_of_rest(i)] == rest[i]);
  CHECK(sc.file_offset_of_rest(rest.find(R"("z")")) == doc.find(R"("z")"));
  std::fclose(f);
}

TEST_CASE("FlowsScan: reattached to another handle where it stood, it goes on") {
  const std::string doc = R"({"flows": [{"flow": 1, "s": "a\"]"}, {"flow": 2}, {"flow": 3}]})";
  std::vector<std::string> got;
  std::FILE* f = fmemopen(const_cast<char*>(doc.data()), doc.size(), "r");
  replay::FlowsScan sc(f, "doc.json", false, 8);
  for (std::string e; sc.next(e);) {
    got.push_back(e);
    // As merge does past its descriptors: the handle closed, another opened
    // at the position.
    std::fclose(f);
    f = fmemopen(const_cast<char*>(doc.data()), doc.size(), "r");
    REQUIRE(std::fseek(f, static_cast<long>(sc.position()), SEEK_SET) == 0);
    sc.reattach(f);
  }
  std::fclose(f);
  REQUIRE(got.size() == 3);
  CHECK(json::parse(got[0]) == json::parse(R"({"flow": 1, "s": "a\"]"})"));
  CHECK(got[2] == R"({"flow": 3})");
}

TEST_CASE("FlowsScan: at most max_rest bytes outside flows are kept, and a copy gets every byte read") {
  const std::string doc = R"({"a": "0123456789", "flows": [{"flow": 1}]})";
  const auto rest_with = [&](std::size_t max_rest) {
    std::FILE* f = fmemopen(const_cast<char*>(doc.data()), doc.size(), "r");
    REQUIRE(f != nullptr);
    replay::FlowsScan s(f, "doc.json", true, 5, max_rest);
    std::string out;
    try {
      out = s.rest();
    } catch (const replay::ScanError& e) {
      out = e.what();
    }
    std::fclose(f);
    return out;
  };
  const std::string rest = R"({"a": "0123456789", "flows": []})";
  CHECK(rest_with(rest.size()) == rest);
  CHECK(rest_with(rest.size() - 1).find("more than 31 bytes outside \"flows\"") != std::string::npos);
  // copy_to: what a pipe's document is kept as, byte for byte.
  std::FILE* in = fmemopen(const_cast<char*>(doc.data()), doc.size(), "r");
  std::FILE* copy = std::tmpfile();
  REQUIRE((in && copy));
  replay::FlowsScan s(in, "doc.json", true, 3);
  s.copy_to(copy);
  CHECK(s.rest() == rest);
  std::rewind(copy);
  std::string copied(doc.size() + 1, '\0');
  copied.resize(std::fread(copied.data(), 1, copied.size(), copy));
  CHECK(copied == doc);
  std::fclose(in);
  std::fclose(copy);
}
