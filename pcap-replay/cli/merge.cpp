#include "merge.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include <replay/report/report_json.hpp>
#include <replay/report/shard_merge.hpp>

namespace replay::cli {

namespace {
// The document in `name` (`-`: standard input); throws MergeError naming it.
nlohmann::json read_document(const std::string& name) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (name != "-") {
    file.open(name, std::ios::binary);
    if (!file) throw MergeError(name + ": cannot read the file: " + std::strerror(errno));
    in = &file;
  }
  try {
    return nlohmann::json::parse(*in);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte: where the parser stopped, from 1.
    throw MergeError(name + ": not a JSON document (byte " + std::to_string(e.byte) + "): " + e.what());
  } catch (const std::exception& e) {  // a directory, a read error
    throw MergeError(name + ": cannot read the file: " + e.what());
  }
}
}  // namespace

int run_merge(const std::vector<std::string>& files, bool strict) {
  MergedReport m;
  try {
    std::vector<std::pair<std::string, nlohmann::json>> docs;
    bool stdin_read = false;
    for (const std::string& f : files) {
      if (f == "-" && std::exchange(stdin_read, true))
        throw MergeError("-: standard input can be read once; give the other documents as files");
      docs.emplace_back(f, read_document(f));
    }
    m = merge_shards(docs);
  } catch (const MergeError& e) {
    std::cerr << "pcap-replay: merge: " << e.what() << "\n";
    return 2;
  }
  std::cout << dump_document(m.doc) << "\n";
  // What one run says on standard error of the limits (the rest of its
  // stderr, the input problems, is in the document's "inputs" and "diagnostics").
  for (std::string hit : m.limit_hits) {
    // One line each, whatever a document holds.
    std::replace(hit.begin(), hit.end(), '\n', ' ');
    std::cerr << "pcap-replay: limit: " << hit << "\n";
  }
  if (m.dropped_segments > 0)
    std::cerr << "pcap-replay: limit: " << m.dropped_segments << " segment(s) not analysed (exit status 2)\n";
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "pcap-replay: merge: writing the report to standard output failed: " << std::strerror(errno) << "\n";
    return 2;
  }
  const nlohmann::json& sum = m.doc["summary"];
  strict = strict || m.strict;  // as the shards were run
  int status = sum.value("must", std::uint64_t{0}) > 0 || (strict && sum.value("should", std::uint64_t{0}) > 0) ? 1 : 0;
  for (const nlohmann::json& in : m.doc["inputs"])
    if (!in.value("usable", true) || (in.contains("lost") && !in["lost"].empty())) status = 2;
  if (!m.limit_hits.empty()) status = 2;
  return status;
}

}  // namespace replay::cli
