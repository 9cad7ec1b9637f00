#include "merge.hpp"
#include "page_file.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <queue>
#include <utility>

#include <nlohmann/json.hpp>

#include <replay/report/json_flows_scan.hpp>
#include <replay/report/json_flows_writer.hpp>
#include <replay/report/json_report_reader.hpp>
#include <replay/report/report_html.hpp>
#include <replay/report/report_json.hpp>
#include <replay/report/shard_merge.hpp>

namespace replay::cli {

namespace {

using nlohmann::json;

// The read buffers of the documents read at once while merging take at
// most this together (each from 4 KiB to 64 KiB).
constexpr std::size_t kMergeBuffersBytes = 16 << 20;
// Descriptors left for everything else when the documents are kept open.
constexpr rlim_t kSpareDescriptors = 64;

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// A document: a regular file, opened when read (a merge may have more than
// it can keep open), or a copy of a pipe or of standard input, kept open.
struct Document {
  std::string name;
  File pipe{nullptr, std::fclose};   // a pipe's document, until copied (read_rests)
  File spool{nullptr, std::fclose};  // its copy
  struct stat seen {};  // the file as first opened (regular files)
};

// The same file, unchanged since it was first opened: device, inode,
// size, modification and change times.
bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size &&
         a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec &&
         a.st_ctim.tv_sec == b.st_ctim.tv_sec && a.st_ctim.tv_nsec == b.st_ctim.tv_nsec;
}

[[noreturn]] void changed(const Document& d) {
  throw MergeError(d.name + ": the file changed while it was merged (merge reads each document more than once)");
}

// An unnamed temporary file for a copy of a pipe's document (standard
// input, <(...)): a document is read more than once. Unbuffered, as every
// file FlowsScan reads (it buffers).
File temporary(const std::string& name) {
  File t(std::tmpfile(), std::fclose);
  if (!t) throw MergeError(name + ": cannot make a temporary file: " + std::strerror(errno));
  std::setvbuf(t.get(), nullptr, _IONBF, 0);
  return t;
}

std::vector<Document> documents(const std::vector<std::string>& names) {
  std::vector<Document> docs;
  bool stdin_read = false;
  for (const std::string& name : names) {
    Document d;
    d.name = name;
    if (name == "-") {
      if (std::exchange(stdin_read, true))
        throw MergeError("-: standard input can be read once; give the other documents as files");
      const int in = dup(STDIN_FILENO);
      d.pipe.reset(in < 0 ? nullptr : fdopen(in, "rb"));
      if (!d.pipe) throw MergeError("-: cannot read standard input: " + std::string(std::strerror(errno)));
    } else {
      File f(std::fopen(name.c_str(), "rb"), std::fclose);
      if (!f) throw MergeError(name + ": cannot read the file: " + std::strerror(errno));
      if (fstat(fileno(f.get()), &d.seen) != 0) throw MergeError(name + ": cannot read the file: " + std::strerror(errno));
      if (S_ISDIR(d.seen.st_mode)) throw MergeError(name + ": cannot read the file: it is a directory");
      if (!S_ISREG(d.seen.st_mode)) d.pipe = std::move(f);  // a pipe, /dev/stdin, <(...)
    }
    docs.push_back(std::move(d));
  }
  return docs;
}

// Document `d` at its start, unbuffered (FlowsScan buffers): its copy, or
// its file opened again and checked to be the one first opened.
std::FILE* open_doc(const Document& d, File& opened) {
  std::FILE* f = d.spool.get();
  if (!f) {
    opened.reset(std::fopen(d.name.c_str(), "rb"));
    if (!opened) {
      if (errno == EMFILE || errno == ENFILE)
        throw MergeError(d.name + ": cannot open another file: " + std::strerror(errno));
      changed(d);
    }
    struct stat now {};
    if (fstat(fileno(opened.get()), &now) != 0 || !same_file(now, d.seen)) changed(d);
    f = opened.get();
  }
  if (!d.spool) std::setvbuf(f, nullptr, _IONBF, 0);  // (the copy is unbuffered from its start)
  if (std::fseek(f, 0, SEEK_SET) != 0) throw MergeError(d.name + ": cannot read it: " + std::strerror(errno));
  return f;
}

void check_unchanged(const std::vector<Document>& docs) {
  for (const Document& d : docs) {
    if (d.spool) continue;
    struct stat now {};
    if (stat(d.name.c_str(), &now) != 0 || !same_file(now, d.seen)) changed(d);
  }
}

// nlohmann's message without its line and column (counted in the text
// parsed, which is not the file): "syntax error while parsing value ...".
std::string parse_message(const json::parse_error& e) {
  const std::string what = e.what();
  const std::size_t at = what.find("parse error");
  const std::size_t colon = at == std::string::npos ? std::string::npos : what.find(": ", at);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

// nlohmann's message without its "[json.exception.out_of_range.406] ".
std::string json_message(const json::exception& e) {
  const std::string what = e.what();
  const std::size_t at = what.find("] ");
  return what.rfind("[json.exception.", 0) == 0 && at != std::string::npos ? what.substr(at + 2) : what;
}

// `text` parsed (`events`: nlohmann's callback, or none); an error names
// the byte of the file (from 1) where text byte `e.byte` came from:
// `file_byte(e.byte - 1) + 1`.
template <class FileByte>
json parse(const std::string& text, const std::string& name, const FileByte& file_byte,
           const json::parser_callback_t& events = nullptr) {
  try {
    return json::parse(text, events);
  } catch (const json::parse_error& e) {
    const std::uint64_t b = e.byte == 0 ? 0 : e.byte - 1;
    throw MergeError(name + ": not a JSON document (byte " + std::to_string(file_byte(b) + 1) + "): " + parse_message(e));
  } catch (const json::exception& e) {  // out_of_range 406: a number past a double ("1e999")
    throw MergeError(name + ": not a JSON document: " + json_message(e));
  }
}

// `text` (the rest of a document) parsed; with its top-level keys named
// "flows" (as the parser decodes them) counted.
template <class FileByte>
json parse_rest(const std::string& text, const std::string& name, const FileByte& file_byte, int& flows_keys) {
  flows_keys = 0;
  return parse(text, name, file_byte, [&flows_keys](int depth, json::parse_event_t event, json& parsed) {
    if (depth == 1 && event == json::parse_event_t::key && parsed == "flows") ++flows_keys;
    return true;
  });
}

// Each document without its connections (they are not held: a document
// can be larger than memory). A pipe's is copied as it is read, and checked
// as it comes (garbage or an endless stream stops at its first bytes that
// cannot be a report).
std::vector<std::pair<std::string, json>> read_rests(std::vector<Document>& docs) {
  std::vector<std::pair<std::string, json>> rests;
  for (Document& d : docs) {
    File opened(nullptr, std::fclose);
    std::FILE* f = nullptr;
    if (d.pipe) {
      d.spool = temporary(d.name);
      f = d.pipe.get();
    } else {
      f = open_doc(d, opened);
    }
    FlowsScan scan(f, d.name, /*keep_rest=*/true);
    if (d.pipe) scan.copy_to(d.spool.get());
    const std::string& text = scan.rest();
    d.pipe.reset();
    int flows_keys = 0;
    json rest = parse_rest(text, d.name, [&](std::uint64_t i) { return scan.file_offset_of_rest(i); }, flows_keys);
    // A "flows" the scan did not take for the array (its key written with
    // escapes): its entries would be missed, or another reader would see
    // another array.
    if (flows_keys > 1) throw MergeError(d.name + ": two \"flows\" keys (one written with escapes?)");
    if (rest.is_object() && rest.contains("flows") && rest["flows"].is_array() && !rest["flows"].empty())
      throw MergeError(d.name + ": its \"flows\" key is written with escapes; write it as plain \"flows\"");
    rests.emplace_back(d.name, std::move(rest));
  }
  return rests;
}

// The selection of a document shows every connection (no --flow,
// --stream, -Y, --findings-only): its entries are then as many as its
// summary's flows.
bool shows_every_flow(const json& doc) {
  const auto it = doc.find("selection");
  if (it == doc.end() || !it->is_object()) return false;
  for (const char* k : {"flow", "stream", "display_filter"})
    if (!it->contains(k) || !(*it)[k].is_null()) return false;
  return it->contains("findings_only") && (*it)["findings_only"] == false;
}

// Every connection of every shard before any is written: its entry is JSON
// with an id of its shard, in increasing order, as many as the shard counts;
// and, for the text (`text_report` given), an entry it can read back; for
// the page (`whole` given), with its timelines, adding up to its summary.
void check_entries(const std::vector<Document>& docs, const std::vector<std::pair<std::string, json>>& rests,
                   const MergedReport& m, const JsonTextReport* text_report, const JsonWholeReport* whole) {
  const std::uint64_t n = m.shard_docs.size();
  std::string text;
  for (std::uint64_t k = 1; k <= n; ++k) {
    const std::size_t i = m.shard_docs[k - 1];
    const Document& d = docs[i];
    File opened(nullptr, std::fclose);
    FlowsScan scan(open_doc(d, opened), d.name, /*keep_rest=*/false);
    std::optional<std::uint64_t> prev;
    std::uint64_t entries = 0;
    FlowTotals read;  // (the page's)
    while (scan.next(text)) {
      const std::uint64_t at = scan.element_offset();
      const json entry = parse(text, d.name, [at](std::uint64_t b) { return at + b; });
      const std::uint64_t id = shard_entry_id(d.name, entry, k, n);
      if (prev && id <= *prev)
        throw MergeError(d.name + ": connection " + std::to_string(id) + " after connection " + std::to_string(*prev) +
                         ": a shard's connections are in id order, each once");
      prev = id;
      ++entries;
      if (text_report) text_report->read(entry, d.name);
      if (whole) read.add(whole->check(entry, d.name));
    }
    const json& doc = rests[i].second;
    if (whole) JsonWholeReport::check_summary(read, doc, d.name);
    const std::uint64_t counted = doc["summary"]["flows"].get<std::uint64_t>();
    if (shows_every_flow(doc) && entries != counted)
      throw MergeError(d.name + ": " + std::to_string(entries) + " connection(s) in \"flows\" where its summary counts " +
                       std::to_string(counted));
    // Showing every connection, the shards' ids are 1..N of the run's N
    // (each shard's as many as it counts, distinct, each at most N).
    const std::uint64_t total = m.doc["summary"]["flows"].get<std::uint64_t>();
    if (shows_every_flow(doc) && prev && *prev > total)
      throw MergeError(d.name + ": connection " + std::to_string(*prev) + " where the run has " + std::to_string(total));
  }
}

// Descriptors open now (inherited ones too, the copies of pipes).
std::size_t open_descriptors() {
  std::error_code ec;
  std::size_t n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n;
}

// The shards' connections, by id, each given to `emit` with the name of its
// document: false when standard output failed (errno says why).
using Emit = std::function<void(const json& entry, const std::string& document)>;
bool merge_entries(const std::vector<Document>& docs, const MergedReport& m, const Emit& emit) {
  const std::size_t n = m.shard_docs.size();
  const std::size_t buffer = std::clamp<std::size_t>(kMergeBuffersBytes / n, 4096, 1 << 16);
  // Every document open at once when the descriptors allow; else each
  // opened again for each entry read.
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
  const bool keep_open = getrlimit(RLIMIT_NOFILE, &lim) == 0 &&
                         (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur > open_descriptors() + n + kSpareDescriptors);
  struct Cursor {
    const Document* doc;
    File opened{nullptr, std::fclose};
    FlowsScan scan;
    std::string text;
    json entry;
  };
  std::vector<std::unique_ptr<Cursor>> cursors;
  using Head = std::pair<std::uint64_t, std::size_t>;  // (id, cursor)
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  const auto advance = [&](std::size_t i) {
    Cursor& c = *cursors[i];
    if (!keep_open && !c.doc->spool) {  // open it again where it was left
      const std::uint64_t at = c.scan.position();
      std::FILE* f = open_doc(*c.doc, c.opened);
      if (std::fseek(f, static_cast<long>(at), SEEK_SET) != 0) changed(*c.doc);
      c.scan.reattach(f);
    }
    const bool more = c.scan.next(c.text);
    if (!keep_open) c.opened.reset();
    if (!more) return;
    const std::uint64_t at = c.scan.element_offset();
    c.entry = parse(c.text, c.doc->name, [at](std::uint64_t b) { return at + b; });
    heads.emplace(shard_entry_id(c.doc->name, c.entry, i + 1, n), i);
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Document& d = docs[m.shard_docs[i]];
    File opened(nullptr, std::fclose);
    std::FILE* f = open_doc(d, opened);
    cursors.push_back(std::make_unique<Cursor>(Cursor{&d, std::move(opened), FlowsScan(f, d.name, false, buffer), {}, {}}));
    if (!keep_open) cursors.back()->opened.reset();
    if (!keep_open && !d.spool) cursors.back()->scan.reattach(nullptr);
    advance(i);
  }
  while (!heads.empty()) {
    const std::size_t i = heads.top().second;
    heads.pop();
    emit(cursors[i]->entry, cursors[i]->doc->name);
    if (!std::cout) return false;
    advance(i);
  }
  return true;
}

// The JSON document's writer of merge_entries' entries.
Emit json_entries(const MergedReport& m, JsonFlowsWriter& out) {
  return [&m, &out, entry = std::string()](const json& e, const std::string&) mutable {
    // As one run writes it (nlohmann's dump(2), which the shard's own text
    // is unless a tool reformatted it), indented as an element.
    entry.clear();
    for (char ch : e.dump(2, ' ', false, json::error_handler_t::replace)) {
      entry.push_back(ch);
      if (ch == '\n') entry.append(JsonFlowsWriter::kEntryIndent, ' ');
    }
    if (!out.begun()) out.begin(m.doc);  // (without an entry, finish writes it all)
    out.entry(entry);
  };
}

std::string write_failed() {
  return std::string("pcap-replay: merge: writing the report to standard output failed: ") +
         (errno ? std::strerror(errno) : "an error on the stream") + "\n";
}

// --html: every shard was run with --timeline (its "shard.run"), else why not.
void check_timelines(const std::vector<std::pair<std::string, json>>& rests) {
  for (const auto& [name, doc] : rests) {
    const json& run = doc["shard"]["run"];
    if (!run.contains("timeline") || run["timeline"] != true)
      throw MergeError(name + ": written without --timeline: merge --html draws each sender from its timeline (run the "
                              "shards with check --json --timeline --shard K/N)");
  }
}

}  // namespace

int run_merge(const std::vector<std::string>& files, bool strict, bool text, const std::string& html) {
  // Standard output closed: say so now (a temporary file would get its
  // descriptor and the document with it).
  if (fcntl(STDOUT_FILENO, F_GETFD) == -1) {
    std::cerr << write_failed();
    return 2;
  }
  MergedReport m;
  std::vector<Document> docs;
  // --text: the text report, written from the merged document (its
  // connections streamed through it as for the JSON).
  std::optional<JsonTextReport> text_report;
  // --html: the whole report read back, every connection kept, for the page.
  std::optional<JsonWholeReport> whole;
  try {
    docs = documents(files);
    const auto rests = read_rests(docs);
    m = merge_shards(rests);
    if (text) text_report.emplace(std::cout, m.doc, docs[m.shard_docs[0]].name);
    if (!html.empty()) {
      check_timelines(rests);
      whole.emplace(m.doc, docs[m.shard_docs[0]].name);
    }
    check_entries(docs, rests, m, text_report ? &*text_report : nullptr, whole ? &*whole : nullptr);
    check_unchanged(docs);
  } catch (const MergeError& e) {
    std::cerr << "pcap-replay: merge: " << e.what() << "\n";
    return 2;
  } catch (const JsonReadError& e) {
    std::cerr << "pcap-replay: merge: " << e.what() << "\n";
    return 2;
  } catch (const ScanError& e) {
    std::cerr << "pcap-replay: merge: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "pcap-replay: merge: out of memory\n";
    return 2;
  }
  // --html: the page's file, checked before anything is written (a page
  // that cannot be written is said first); written at the end.
  std::optional<PageFile> page;
  if (whole) {
    std::string error;
    page = PageFile::check(html, read_files(files), error);
    if (!page) {
      std::cerr << "pcap-replay: merge: " << error << "\n";
      return 2;
    }
  }
  // Checked whole: what follows fails only when a document changes under
  // it (said, exit 2: the document written is then not to be used), or
  // when standard output does.
  JsonFlowsWriter out(std::cout);
  try {
    errno = 0;
    const Emit written = text_report
                             ? Emit([&text_report](const json& e, const std::string& name) { text_report->entry(e, name); })
                             : json_entries(m, out);
    const Emit emit = !whole ? written : Emit([&written, &whole](const json& e, const std::string& name) {
      whole->add(e, name);
      written(e, name);
    });
    if (!merge_entries(docs, m, emit)) {
      std::cerr << write_failed();
      return 2;
    }
    check_unchanged(docs);
  } catch (const std::bad_alloc&) {
    std::cerr << "pcap-replay: merge: out of memory\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "pcap-replay: merge: " << e.what() << "\n";
    return 2;
  }
  errno = 0;
  if (text_report)
    text_report->finish();
  else
    out.finish(m.doc);
  std::cout.flush();
  if (!std::cout) {
    std::cerr << write_failed();
    return 2;
  }
  // What one run says on standard error of the limits (the rest of its
  // stderr, the input problems, is in the document's "inputs" and "diagnostics").
  for (std::string hit : m.limit_hits) {
    // One line each, whatever a document holds.
    std::replace(hit.begin(), hit.end(), '\n', ' ');
    std::cerr << "pcap-replay: limit: " << hit << "\n";
  }
  if (m.dropped_segments > 0)
    std::cerr << "pcap-replay: limit: " << m.dropped_segments << " segment(s) not analysed (exit status 2)\n";
  const nlohmann::json& sum = m.doc["summary"];
  strict = strict || m.strict;  // as the shards were run
  int status = sum.value("must", std::uint64_t{0}) > 0 || (strict && sum.value("should", std::uint64_t{0}) > 0) ? 1 : 0;
  for (const nlohmann::json& in : m.doc["inputs"])
    if (!in.value("usable", true) || (in.contains("lost") && !in["lost"].empty())) status = 2;
  if (!m.limit_hits.empty()) status = 2;
  if (page) {  // as check --html writes it, with the same status; none when no input was usable (as check)
    bool usable = false;
    for (const nlohmann::json& in : m.doc["inputs"]) usable = usable || in.value("usable", true);
    if (!usable) return status;
    std::string error;
    try {
      const Report r = whole->take();
      if (!page->write([&](std::ostream& os) { write_html_report(os, r, status, whole->view()); }, error)) {
        std::cerr << "pcap-replay: merge: " << error << "\n";
        return 2;
      }
    } catch (const std::bad_alloc&) {
      std::cerr << "pcap-replay: merge: out of memory\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "pcap-replay: merge: --html " << html << ": " << e.what() << "\n";
      return 2;
    }
  }
  return status;
}

}  // namespace replay::cli
