#include "analyzer.hpp"

#include <array>
#include <deque>
#include <optional>
#include <utility>

#include "flow_table.hpp"
#include "sender_model.hpp"

namespace replay {

namespace {
struct Connection {
  FlowReport report;
  std::unique_ptr<SenderModel> model[2];
  std::array<std::deque<Segment>, 2> recent;  // last segments per direction (capture duplicates)
};

// The same segment captured twice (a capture taken on two interfaces, or a
// switch mirroring both ways): identical header fields within 1 ms, or
// within 10 ms with the same TSval. Real retransmissions carry a new TSval
// (the sender's clock ticked), or come an RTT or more later. Only segments
// that occupy sequence space: identical pure ACKs are real (duplicate ACKs).
bool capture_duplicate(const Segment& a, const Segment& b) {
  if (b.payload_len == 0 && !b.tcp.has(wire::kSyn) && !b.tcp.has(wire::kFin)) return false;
  const auto limit = b.tcp.options.tsval ? std::chrono::milliseconds{10} : std::chrono::milliseconds{1};
  return b.time - a.time <= limit && b.time >= a.time && a.tcp.seq == b.tcp.seq &&
         a.tcp.ack == b.tcp.ack && a.tcp.flags == b.tcp.flags && a.tcp.window == b.tcp.window &&
         a.payload_len == b.payload_len && a.tcp.options.tsval == b.tcp.options.tsval &&
         a.tcp.options.sack_count == b.tcp.options.sack_count;
}
}  // namespace

struct Analyzer::Impl {
  Options options;
  bool keep_timeline;
  FlowTable table;
  std::vector<std::unique_ptr<Connection>> conns;
  Report report;
  Impl(Options o, bool keep) : options(std::move(o)), keep_timeline(keep), table(options.idle_split) {}
};

Analyzer::Analyzer(Options options, bool keep_timeline)
    : impl_(std::make_unique<Impl>(std::move(options), keep_timeline)) {
  impl_->options.config.validate();
  impl_->report.options = impl_->options;
}

Analyzer::~Analyzer() = default;

void Analyzer::add_file(std::size_t file_index, const std::string& name) {
  auto& files = impl_->report.files;
  if (files.size() <= file_index) files.resize(file_index + 1);
  files[file_index] = name;
}

void Analyzer::add(const Segment& s) {
  Impl& m = *impl_;
  if (!m.report.have_first_time || s.time < m.report.first_time) {
    m.report.first_time = s.time;
    m.report.have_first_time = true;
  }
  std::optional<std::size_t> idx = m.table.find(s);
  if (!idx) {
    auto c = std::make_unique<Connection>();
    FlowReport& f = c->report;
    f.id = m.conns.size() + 1;
    f.file_index = s.file_index;
    if (s.file_index < m.report.files.size()) f.file = m.report.files[s.file_index];
    // The client sent the SYN; a lone SYN-ACK names it as destination.
    const bool synack = s.tcp.has(wire::kSyn) && s.tcp.has(wire::kAck);
    f.client = synack ? s.dst : s.src;
    f.server = synack ? s.src : s.dst;
    f.first_frame = s.frame;
    f.first_time = s.time;
    f.senders[0].src = f.client;
    f.senders[0].dst = f.server;
    f.senders[1].src = f.server;
    f.senders[1].dst = f.client;
    c->model[0] = std::make_unique<SenderModel>(m.options, f.senders[0], m.keep_timeline);
    c->model[1] = std::make_unique<SenderModel>(m.options, f.senders[1], m.keep_timeline);
    idx = m.conns.size();
    m.conns.push_back(std::move(c));
    m.table.open(s, *idx);
  }
  m.table.update(s);
  Connection& c = *m.conns[*idx];
  FlowReport& f = c.report;
  ++f.packets;
  const int dir = (s.src == f.client) ? 0 : 1;
  for (const Segment& prev : c.recent[dir]) {
    if (capture_duplicate(prev, s)) {
      ++f.capture_duplicates;
      f.duplicate_frames.push_back(s.frame);
      f.last_frame = s.frame;
      f.last_time = s.time;
      return;
    }
  }
  if (c.recent[dir].size() == 8) c.recent[dir].pop_front();
  c.recent[dir].push_back(s);
  f.last_frame = s.frame;
  f.last_time = s.time;
  if (s.tcp.has(wire::kSyn)) f.saw_syn = true;
  if (s.tcp.has(wire::kFin)) f.saw_fin = true;
  if (s.tcp.has(wire::kRst)) f.saw_rst = true;
  c.model[1 - dir]->on_peer(s);
  c.model[dir]->on_send(s);
}

void Analyzer::add_diagnostics(const std::vector<Diagnostic>& d) {
  impl_->report.diagnostics.insert(impl_->report.diagnostics.end(), d.begin(), d.end());
}

Report Analyzer::finish() {
  Impl& m = *impl_;
  for (auto& c : m.conns) {
    c->model[0]->finish();
    c->model[1]->finish();
    m.report.flows.push_back(std::move(c->report));
  }
  m.conns.clear();
  return std::move(m.report);
}

Report analyze_files(const std::vector<std::string>& files, const Options& options, bool keep_timeline,
                     std::vector<std::string>& errors) {
  Analyzer a(options, keep_timeline);
  for (std::size_t i = 0; i < files.size(); ++i) {
    a.add_file(i, files[i]);
    auto opened = CaptureReader::open(files[i], i, options.filter);
    if (auto* err = std::get_if<std::string>(&opened)) {
      errors.push_back(*err);
      continue;
    }
    auto& reader = std::get<CaptureReader>(opened);
    while (auto s = reader.next()) a.add(*s);
    a.add_diagnostics(reader.diagnostics());
  }
  return a.finish();
}

}  // namespace replay
