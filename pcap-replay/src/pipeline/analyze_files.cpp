// analyze_files: the captures named on the command line, read in turn
// (CaptureReader) into one Analyzer.
#include <replay/pipeline/analyze_files.hpp>

#include <optional>
#include <variant>

#include <replay/analysis/thresholds.hpp>
#include <replay/input/capture_reader.hpp>

namespace replay {

Report analyze_files(const std::vector<std::string>& files, const Options& options, bool keep_timeline,
                     std::vector<std::string>& errors, const FlowSink& sink,
                     const std::function<void(const FileProgress&)>& progress, const SinkMode& mode) {
  Analyzer a(options, keep_timeline);
  if (sink) a.set_flow_sink(sink, mode);
  std::optional<CaptureTime> origin;  // frame 1 of the first input that has one (Wireshark's Time column)
  for (std::size_t i = 0; i < files.size(); ++i) {
    a.add_file(i, files[i]);
    InputFile in;
    in.name = files[i];
    auto opened = CaptureReader::open(files[i], i, options.filter);
    if (auto* err = std::get_if<std::string>(&opened)) {
      errors.push_back(*err);
      in.error = *err;
      a.add_input(in);
      continue;
    }
    in.opened = true;
    auto& reader = std::get<CaptureReader>(opened);
    // The reader says of each diagnostic whether its frame was skipped, and
    // keeps at most limits::kMaxDiagnostics of them (the rest counted).
    Segment seg;
    // The origin as soon as it is known (the flow sink waits for it); a look
    // at the reader every limits::kProgressEverySegments segments.
    // Its connections' times count from its own frame 1 (set_file_origin).
    std::optional<CaptureTime> file_origin;
    for (std::uint64_t n = 1; reader.next(seg); ++n) {
      if (!file_origin && reader.stats().first_frame_time) {
        a.set_file_origin(i, *(file_origin = reader.stats().first_frame_time));
        if (!origin) a.set_origin(*(origin = file_origin));
      }
      a.add(seg);
      if (progress && n % limits::kProgressEverySegments == 0)
        progress(FileProgress{i, files[i], reader.stats().frames, reader.progress()});
    }
    const std::vector<Diagnostic>& diags = reader.diagnostics();
    const CaptureStats& st = reader.stats();
    if (!file_origin && st.first_frame_time) a.set_file_origin(i, *st.first_frame_time);
    if (!origin && st.first_frame_time) a.set_origin(*(origin = st.first_frame_time));
    in.frames = st.frames;
    in.first_frame_time = st.first_frame_time;
    in.tcp_segments = st.tcp_segments;
    in.read_error = st.read_error;
    in.lost = st.lost;
    in.clock_steps_back = st.clock_steps_back;
    for (const ClockStep& c : st.clock_steps)
      if (c.rebased) in.clock_rebased.push_back(c);
    for (const auto& d : diags) in.skipped_frames += d.skipped && d.field != "pcap" ? 1 : 0;
    in.skipped_frames += st.diagnostics_dropped_skipped;
    // Unusable: nothing readable at all (the first record fails), or every
    // record malformed. A valid capture with no TCP in it is usable.
    if (st.read_error && st.frames == 0) {
      in.error = diags.empty() ? files[i] + ": the first record cannot be read" : to_string(diags.back());
    } else if (st.frames > 0 && st.malformed == st.frames) {
      in.error = files[i] + ": every frame (" + std::to_string(st.frames) + ") is malformed";
    }
    a.add_diagnostics(diags);
    a.count_dropped_diagnostics(st.diagnostics_dropped_skipped, st.diagnostics_dropped_warned);
    a.add_input(in);
  }
  Report r = a.finish();
  if (origin) r.first_time = *origin, r.have_first_time = true;
  return r;
}

}  // namespace replay
