// analyze_live: a live capture (LiveCapture) fed to the Analyzer until a
// limit or a signal ends it; the kernel's drops are lost data.
#include <replay/pipeline/analyze_live.hpp>

#include "input/live_capture.hpp"
#include <replay/analysis/thresholds.hpp>

namespace replay {

namespace {
// The end of the capture: a signal, the duration, the packet count.
bool over(const LiveLimits& until, const volatile std::sig_atomic_t& stop, std::chrono::steady_clock::duration ran,
          std::uint64_t packets) {
  if (stop != 0) return true;
  if (until.duration && ran >= *until.duration) return true;
  return until.packets && packets >= *until.packets;
}
}  // namespace

Report analyze_live(const std::string& iface, const Options& options, bool keep_timeline, const LiveLimits& until,
                    const volatile std::sig_atomic_t& stop,
                    const std::function<void(const LiveProgress&)>& progress, std::vector<std::string>& errors) {
  Analyzer a(options, keep_timeline);
  InputFile in;
  in.name = "live:" + iface;
  a.add_file(0, in.name);
  auto opened = LiveCapture::open(iface, options.filter);
  if (auto* err = std::get_if<std::string>(&opened)) {
    errors.push_back(*err);
    in.error = *err;
    a.add_input(in);
    return a.finish();
  }
  in.opened = true;
  auto& cap = std::get<LiveCapture>(opened);
  const auto start = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::duration> shown;  // when progress was last called
  Segment seg;
  for (;;) {
    const auto ran = std::chrono::steady_clock::now() - start;
    if (over(until, stop, ran, cap.stats().frames)) break;
    if (progress && (!shown || ran - *shown >= limits::kStatusLineInterval)) {
      // The kernel's counters (a system call) and the timeouts (a walk over
      // the connections) only this often.
      const LiveStats& st = cap.read_kernel_counters();
      progress(LiveProgress{in.name, st.frames, a.connections(), a.timeouts_so_far(),
                            st.kernel_dropped + st.interface_dropped, ran});
      shown = ran;
    }
    // Never wait past the --duration deadline.
    auto wait = limits::kLivePollWait;
    if (until.duration) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(*until.duration - ran);
      wait = std::min(wait, std::max(left, std::chrono::milliseconds(0)));
    }
    const LiveRead got = cap.next(seg, wait);
    if (got == LiveRead::kError) {
      // The interface went away (or the like): what came before is analysed.
      errors.push_back(in.name + ": capture failed: " + cap.error());
      in.read_error = true;
      a.add_diagnostics(
          {Diagnostic{in.name, cap.stats().frames, "pcap", "capture failed: " + cap.error() + "; the capture ended here"}});
      break;
    }
    if (got == LiveRead::kSegment) a.add(seg);
  }
  // Stopped by a signal or --duration: the packets already captured may sit
  // in a block libpcap hands over only when it is retired, at most
  // kLivePollWait after it began; read them, so the last ones (a FIN) are
  // not silently missing. -c stops exactly at its count.
  if (!in.read_error && !(until.packets && cap.stats().frames >= *until.packets)) {
    const auto end = std::chrono::steady_clock::now() + 2 * limits::kLivePollWait;
    for (auto now = std::chrono::steady_clock::now(); now < end; now = std::chrono::steady_clock::now()) {
      const auto wait = std::chrono::ceil<std::chrono::milliseconds>(end - now);
      const LiveRead got = cap.next(seg, wait);
      if (got == LiveRead::kError) break;  // the interface went away after the stop: nothing more to read
      if (got == LiveRead::kSegment) a.add(seg);
      if (until.packets && cap.stats().frames >= *until.packets) break;
    }
  }
  const LiveStats& st = cap.read_kernel_counters();
  in.frames = st.frames;
  in.tcp_segments = st.tcp_segments;
  in.kernel_drops = st.kernel_dropped + st.interface_dropped;
  for (const auto& d : cap.diagnostics()) in.skipped_frames += d.skipped ? 1 : 0;
  in.skipped_frames += st.diagnostics_dropped_skipped;
  if (st.kernel_dropped + st.interface_dropped > 0) errors.push_back(live_lost_text(in).front());
  a.add_diagnostics(cap.diagnostics());
  a.count_dropped_diagnostics(st.diagnostics_dropped_skipped, st.diagnostics_dropped_warned);
  a.add_input(in);
  Report r = a.finish();
  if (st.first_frame_time) r.first_time = *st.first_frame_time, r.have_first_time = true;
  return r;
}

}  // namespace replay
