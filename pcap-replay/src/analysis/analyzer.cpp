#include <replay/analysis/analyzer.hpp>


#include <string>
#include <utility>

#include "analysis/analyzer_impl.hpp"

namespace replay {

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
  // The model works on a monotonic clock: the frames after a step of the
  // capture clock are re-based (Segment::rebase); the report prints each
  // frame's own time again (restore_capture_times).
  ClockSteps& clock = impl_->clock_of(s.file_index);
  if (s.rebase.count() == 0) {
    clock.observe(s, s.time);
    impl_->add_model(s);
    return;
  }
  Segment r = s;
  r.time = model_time(s);
  clock.observe(s, r.time);
  impl_->add_model(r);
}

void Analyzer::add_diagnostics(const std::vector<Diagnostic>& d) {
  Report& r = impl_->report;
  for (const Diagnostic& x : d) {
    if (r.diagnostics.size() < limits::kMaxDiagnostics) {
      r.diagnostics.push_back(x);
    } else if (x.skipped) {
      ++r.dropped_skipped;
    } else {
      ++r.dropped_warned;
    }
  }
}

void Analyzer::count_dropped_diagnostics(std::uint64_t skipped, std::uint64_t warned) {
  impl_->report.dropped_skipped += skipped;
  impl_->report.dropped_warned += warned;
}

void Analyzer::add_input(const InputFile& in) { impl_->report.inputs.push_back(in); }

void Analyzer::set_flow_sink(FlowSink sink, SinkMode mode) {
  impl_->sink = std::move(sink);
  impl_->mode = std::move(mode);
}

void Analyzer::set_file_origin(std::size_t file_index, CaptureTime origin) {
  Impl& m = *impl_;
  if (m.file_origins.size() <= file_index) m.file_origins.resize(file_index + 1);
  m.file_origins[file_index] = origin;
}

void Analyzer::set_origin(CaptureTime origin) {
  impl_->origin = origin;
  impl_->drain();
}

Report Analyzer::finish() {
  Impl& m = *impl_;
  // No input gave an origin: Report::first_time stays the earliest segment's.
  if (!m.origin && m.report.have_first_time) m.origin = m.report.first_time;
  // Every connection is finished (its models freed, and given to the sink
  // in order) before the reports move; each leaves the queue as its report
  // moves (or as the sink had it, when the reports are not kept).
  m.drain();  // the ones finished before the origin was known, or kept for finish()
  for (std::size_t idx = m.base, end = m.total(); idx < end; ++idx) {
    if (idx >= m.base) m.finish_connection(m.at(idx), idx);
    m.drain();
  }
  m.report.flows.reserve(m.report.flows.size() + m.conns.size());
  while (!m.conns.empty()) {
    m.report.flows.push_back(std::move(*m.conns.front().report()));
    m.conns.pop_front();
  }
  m.report.lockstep = m.attempts.groups();
  m.report.input_flows = m.total();
  return std::move(m.report);
}

std::size_t Analyzer::connections() const { return impl_->total(); }

std::size_t Analyzer::timeouts_so_far() const {
  std::size_t n = impl_->report.streamed.timeouts;
  for (std::size_t i = 0; i < impl_->conns.size(); ++i)
    for (int d = 0; d < 2; ++d) {
      const Connection& c = impl_->conns[i];
      // While live, the first reading's report (its own under --profile auto).
      const Live* live = c.live();
      const Candidate* cand = live && !live->candidates.empty() ? &live->candidates.front() : nullptr;
      if (cand && cand->own)
        n += (*cand->own)[d].timeouts.size();
      else if (c.report())
        n += c.report()->senders[d].timeouts.size();
      else if (live && live->senders)
        n += (*live->senders)[d].timeouts.size();
    }
  return n;
}

}  // namespace replay
