// analyze_files_parallel: the shards of one run in threads, their
// connections put back in id order and their reports merged.
#include <replay/pipeline/analyze_parallel.hpp>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace replay {

namespace {

// The connections the threads finish, each handed to the caller's sink in
// id order: one thread's can wait for an earlier one of another. One thread
// at a time hands on (the writer: whoever finds nothing being handed on),
// outside the lock, so that the sink's work (a JSON entry, text) does not
// stop the other threads; they only leave their connections with it.
class InOrder {
 public:
  InOrder(const FlowSink& sink, bool keep) : sink_(sink), keep_(keep) {}
  // Connection `f` (its own thread analysed it), with its origin.
  void add(FlowReport&& f, CaptureTime origin) {
    const std::size_t id = f.id;
    std::unique_lock<std::mutex> lock(mu_);
    waiting_.emplace(id, std::pair{std::move(f), origin});
    if (writing_ || failed_) return;  // the writer hands it on when its turn comes
    writing_ = true;
    // (A sink that throws ends the writer's turn and all handing on: the
    // thread that called it stops with the exception, and the run with it;
    // nothing after the connection it failed on is written.)
    struct EndTurn {
      std::unique_lock<std::mutex>& lock;
      bool& writing;
      bool& failed;
      int unwinding = std::uncaught_exceptions();
      ~EndTurn() {
        if (!lock.owns_lock()) lock.lock();
        writing = false;
        if (std::uncaught_exceptions() > unwinding) failed = true;
      }
    } end_turn{lock, writing_, failed_};
    std::vector<std::pair<FlowReport, CaptureTime>> ready;
    for (;;) {
      for (auto it = waiting_.begin(); it != waiting_.end() && it->first == next_; it = waiting_.erase(it), ++next_)
        ready.push_back(std::move(it->second));
      if (ready.empty()) return;
      lock.unlock();
      for (auto& [report, at] : ready) {
        if (sink_) sink_(report, at);
        if (keep_)
          kept_.push_back(std::move(report));
        else
          streamed_.add(report);  // as Analyzer does after its sink
      }
      ready.clear();
      lock.lock();
    }
  }
  // The totals of the connections handed on and dropped (!keep).
  const FlowTotals& streamed() const { return streamed_; }
  // The reports kept (SinkMode::keep_reports), in id order; what is still
  // waiting (a thread that stopped early) after them.
  std::vector<FlowReport> take() {
    for (auto& [id, w] : waiting_)
      if (keep_) kept_.push_back(std::move(w.first));
    waiting_.clear();
    return std::move(kept_);
  }

 private:
  std::mutex mu_;
  const FlowSink& sink_;
  bool keep_;
  bool writing_ = false;  // a thread is handing connections on (under mu_)
  bool failed_ = false;   // the sink threw: nothing more is handed on (under mu_)
  std::size_t next_ = 1;  // the id handed on next (under mu_)
  std::map<std::size_t, std::pair<FlowReport, CaptureTime>> waiting_;  // (under mu_)
  // The writer's alone (one at a time; read after the threads end).
  std::vector<FlowReport> kept_;
  FlowTotals streamed_;
};

}  // namespace

Report analyze_files_parallel(const std::vector<std::string>& files, const Options& options, unsigned jobs,
                              bool keep_timeline, std::vector<std::string>& errors, const FlowSink& sink,
                              const std::function<void(const FileProgress&)>& progress, const SinkMode& mode) {
  // Every thread reads every file: only regular files can be read more
  // than once (not "-", a pipe, a FIFO, a device).
  const bool rereadable = std::all_of(files.begin(), files.end(), [](const std::string& f) {
    std::error_code ec;
    return f != "-" && std::filesystem::is_regular_file(f, ec);
  });
  // (Connections only, no sender model: nothing to share out.)
  if (jobs <= 1 || options.shard_n > 1 || !rereadable || !options.model_senders)
    return analyze_files(files, options, keep_timeline, errors, sink, progress, mode);
  InOrder in_order(sink, mode.keep_reports);
  std::vector<Report> reports(jobs);
  std::vector<std::vector<std::string>> thread_errors(jobs);
  std::vector<std::exception_ptr> failed(jobs);
  SinkMode drop;
  drop.keep_reports = false;  // each connection leaves its thread at once
  std::vector<std::thread> threads;
  for (unsigned k = 1; k <= jobs; ++k)
    threads.emplace_back([&, k] {
      try {
        Options o = options;
        o.shard_k = k;
        o.shard_n = jobs;
        reports[k - 1] = analyze_files(
            files, o, keep_timeline, thread_errors[k - 1],
            [&in_order](FlowReport& f, CaptureTime origin) {
              if (!f.elsewhere) in_order.add(std::move(f), origin);
            },
            k == 1 ? progress : nullptr, drop);
      } catch (...) {
        failed[k - 1] = std::current_exception();
      }
    });
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
  // A file still being written can be longer for a later thread.
  for (unsigned k = 1; k < jobs; ++k)
    for (std::size_t i = 0; i < reports[0].inputs.size() && i < reports[k].inputs.size(); ++i) {
      const InputFile& a = reports[0].inputs[i];
      const InputFile& b = reports[k].inputs[i];
      if (a.frames != b.frames || a.tcp_segments != b.tcp_segments || a.error != b.error)
        throw std::runtime_error(fmt::format("{}: the file changed while {} threads read it ({} and {} frames; is it "
                                             "still being written?): read it with -j 1",
                                             a.name, jobs, a.frames, b.frames));
    }
  // What every thread read alike (files, inputs, diagnostics, the origin,
  // lockstep) is the first's; the counts of connections are each thread's
  // own, summed; the limits in the order one thread meets them.
  Report r = std::move(reports[0]);
  errors.insert(errors.end(), thread_errors[0].begin(), thread_errors[0].end());
  r.options = options;
  r.flows = in_order.take();
  // The threads moved their connections out before counting them: the
  // totals of those dropped are the hand-over's.
  r.streamed = in_order.streamed();
  for (unsigned k = 1; k < jobs; ++k) {
    const Report& o = reports[k];
    if (r.file_totals.size() < o.file_totals.size()) r.file_totals.resize(o.file_totals.size());
    for (std::size_t i = 0; i < o.file_totals.size(); ++i) r.file_totals[i].add(o.file_totals[i]);
    r.dropped_segments += o.dropped_segments;
    r.limit_hits.insert(r.limit_hits.end(), o.limit_hits.begin(), o.limit_hits.end());
  }
  std::stable_sort(r.limit_hits.begin(), r.limit_hits.end(), [](const LimitHit& a, const LimitHit& b) {
    return std::pair(a.file_index, a.frame) < std::pair(b.file_index, b.frame);
  });
  return r;
}

}  // namespace replay
