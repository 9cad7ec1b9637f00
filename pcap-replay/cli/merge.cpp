#include "merge.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <queue>
#include <utility>

#include <nlohmann/json.hpp>

#include <replay/report/json_flows_scan.hpp>
#include <replay/report/json_flows_writer.hpp>
#include <replay/report/report_json.hpp>
#include <replay/report/shard_merge.hpp>

namespace replay::cli {

namespace {

using nlohmann::json;

// The read buffers of the N documents read at once while merging take at
// most this together (each from 4 KiB to 64 KiB).
constexpr std::size_t kMergeBuffersBytes = 16 << 20;

struct Document {
  std::string name;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file{nullptr, std::fclose};
};

// Standard input copied to a temporary file: a document is read more than
// once (its counts first, then its connections).
std::FILE* spool_stdin() {
  std::FILE* t = std::tmpfile();
  if (!t) throw MergeError(std::string("-: cannot make a temporary file: ") + std::strerror(errno));
  std::vector<char> buf(1 << 16);
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), stdin)) > 0;)
    if (std::fwrite(buf.data(), 1, n, t) != n) throw MergeError(std::string("-: cannot spool: ") + std::strerror(errno));
  if (std::ferror(stdin)) throw MergeError(std::string("-: cannot read: ") + std::strerror(errno));
  return t;
}

void open_all(std::vector<Document>& docs, const std::vector<std::string>& names) {
  // One descriptor per document stays open while they are merged.
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
  bool stdin_read = false;
  for (const std::string& name : names) {
    Document d;
    d.name = name;
    if (name == "-") {
      if (std::exchange(stdin_read, true))
        throw MergeError("-: standard input can be read once; give the other documents as files");
      d.file.reset(spool_stdin());
    } else {
      d.file.reset(std::fopen(name.c_str(), "rb"));
      if (!d.file)
        throw MergeError(name + (errno == EMFILE ? ": cannot open more files at once (ulimit -n); merge reads "
                                                   "every document at once"
                                                 : std::string(": cannot read the file: ") + std::strerror(errno)));
    }
    docs.push_back(std::move(d));
  }
}

void rewind_doc(const Document& d) {
  if (std::fseek(d.file.get(), 0, SEEK_SET) != 0)
    throw MergeError(d.name + ": cannot read it again: " + std::strerror(errno));
}

json parse(const std::string& text, const std::string& name, const char* what) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw MergeError(name + ": not a JSON document (" + what + "): " + e.what());
  }
}

// Each document without its connections (they are not held: a document
// can be larger than memory).
std::vector<std::pair<std::string, json>> read_rests(std::vector<Document>& docs) {
  std::vector<std::pair<std::string, json>> rests;
  for (const Document& d : docs) {
    rewind_doc(d);  // standard input's copy was just written
    FlowsScan scan(d.file.get(), d.name, /*keep_rest=*/true);
    rests.emplace_back(d.name, parse(scan.rest(), d.name, "around \"flows\""));
  }
  return rests;
}

// Every connection of every shard before any is written: its entry is JSON
// with an id of its shard, in increasing order.
void check_entries(const std::vector<Document>& docs, const MergedReport& m) {
  const std::uint64_t n = m.shard_docs.size();
  std::string text;
  for (std::uint64_t k = 1; k <= n; ++k) {
    const Document& d = docs[m.shard_docs[k - 1]];
    rewind_doc(d);
    FlowsScan scan(d.file.get(), d.name, /*keep_rest=*/false);
    std::optional<std::uint64_t> prev;
    while (scan.next(text)) {
      const std::uint64_t id = shard_entry_id(d.name, parse(text, d.name, "a \"flows\" entry"), k, n);
      if (prev && id <= *prev)
        throw MergeError(d.name + ": connection " + std::to_string(id) + " after connection " + std::to_string(*prev) +
                         ": a shard's connections are in id order, each once");
      prev = id;
    }
  }
}

// The shards' connections, by id, into `out` (JsonFlowsWriter's entries).
void merge_entries(const std::vector<Document>& docs, const MergedReport& m, JsonFlowsWriter& out) {
  const std::size_t n = m.shard_docs.size();
  const std::size_t buffer = std::clamp<std::size_t>(kMergeBuffersBytes / n, 4096, 1 << 16);
  struct Cursor {
    FlowsScan scan;
    std::string text;
    json entry;
  };
  std::vector<std::unique_ptr<Cursor>> cursors;
  using Head = std::pair<std::uint64_t, std::size_t>;  // (id, cursor)
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  const auto advance = [&](std::size_t i) {
    Cursor& c = *cursors[i];
    if (!c.scan.next(c.text)) return;
    const Document& d = docs[m.shard_docs[i]];
    c.entry = parse(c.text, d.name, "a \"flows\" entry");
    heads.emplace(shard_entry_id(d.name, c.entry, i + 1, n), i);
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Document& d = docs[m.shard_docs[i]];
    rewind_doc(d);
    cursors.push_back(std::make_unique<Cursor>(Cursor{FlowsScan(d.file.get(), d.name, false, buffer), {}, {}}));
    advance(i);
  }
  std::string entry;
  while (!heads.empty()) {
    const std::size_t i = heads.top().second;
    heads.pop();
    // As one run writes it (nlohmann's dump(2), which the shard's own text
    // is, unless a tool reformatted the document), indented as an element.
    entry.clear();
    for (char ch : cursors[i]->entry.dump(2, ' ', false, json::error_handler_t::replace)) {
      entry.push_back(ch);
      if (ch == '\n') entry.append(JsonFlowsWriter::kEntryIndent, ' ');
    }
    if (!out.begun()) out.begin(m.doc);  // (without an entry, finish writes it all)
    out.entry(entry);
    advance(i);
  }
}

}  // namespace

int run_merge(const std::vector<std::string>& files, bool strict) {
  MergedReport m;
  std::vector<Document> docs;
  try {
    open_all(docs, files);
    const auto rests = read_rests(docs);
    m = merge_shards(rests);
    check_entries(docs, m);
  } catch (const MergeError& e) {
    std::cerr << "pcap-replay: merge: " << e.what() << "\n";
    return 2;
  } catch (const ScanError& e) {
    std::cerr << "pcap-replay: merge: " << e.what() << "\n";
    return 2;
  }
  JsonFlowsWriter out(std::cout);
  try {
    merge_entries(docs, m, out);
  } catch (const std::exception& e) {  // a document changed since it was checked
    std::cerr << "pcap-replay: merge: " << e.what() << " (the document changed while it was merged?)\n";
    return 2;
  }
  out.finish(m.doc);
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
