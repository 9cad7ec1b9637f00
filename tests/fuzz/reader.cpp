// Fuzz harness: the whole CaptureReader (format detection, gzip underneath,
// the parsers with resynchronisation, frame numbering, time checks, frame
// decoding) over the input as a file. Invariants beyond "no crash":
//  - the counters partition the frames (capture_reader.hpp, CaptureStats):
//    frames = tcp_segments + filtered_out + non_ip + non_tcp +
//    fragments_skipped + malformed + frames_lost;
//  - segments come with strictly increasing frame numbers up to stats().frames,
//    one per tcp_segments, each with a sane TCP header;
//  - lost byte ranges are in file order, never overlap, and lie inside the
//    (decompressed) input; read_error is set exactly when something was lost;
//  - diagnostics are capped (limits::kMaxDiagnostics) and name the file and a
//    frame that exists; clock steps are listed up to kMaxClockStepsListed.
#include <replay/input/capture_reader.hpp>

#include "common/memory_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace replay;
  fuzz::MemoryFile file({data, size});
  auto opened = CaptureReader::open(file.path(), 3);
  if (auto* e = std::get_if<std::string>(&opened)) {
    fuzz::check(e->rfind(file.path() + ": ", 0) == 0, "an open error names the file: " + *e);
    return 0;
  }
  CaptureReader& r = std::get<CaptureReader>(opened);
  Segment s;
  std::uint64_t segments = 0, last_frame = 0;
  while (r.next(s)) {
    ++segments;
    fuzz::check(s.frame > last_frame && s.frame == r.stats().frames, "a segment is the frame just counted");
    last_frame = s.frame;
    fuzz::check(s.file_index == 3, "a segment carries its file index");
    fuzz::check(s.tcp.data_offset >= 5 && s.tcp.data_offset <= 15, "the TCP data offset is 5..15 words");
    fuzz::check(s.tcp.options.sack_count <= 4, "at most 4 SACK blocks");
    fuzz::check(s.src.address.version == s.dst.address.version, "both ends of a segment have the same IP version");
  }
  fuzz::check(!r.next(s), "the reader stays at its end");
  const CaptureStats& st = r.stats();
  fuzz::check(segments == st.tcp_segments, "tcp_segments counts the segments returned");
  fuzz::check(st.frames == st.tcp_segments + st.filtered_out + st.non_ip + st.non_tcp + st.fragments_skipped +
                               st.malformed + st.frames_lost,
              "the counters partition the frames");
  fuzz::check(st.read_error == !st.lost.empty(), "read_error is set exactly when a range was lost");
  std::uint64_t end = 0, frames_before = 0;
  for (const LostRange& l : st.lost) {
    fuzz::check(l.byte_begin >= end && l.byte_end >= l.byte_begin, "lost ranges are in order and do not overlap");
    fuzz::check(l.frames_before >= frames_before && l.frames_before <= st.frames, "lost ranges count frames in order");
    end = l.byte_end;
    frames_before = l.frames_before;
  }
  const std::size_t diags = r.diagnostics().size();
  fuzz::check(diags <= limits::kMaxDiagnostics, "diagnostics are capped");
  if (diags < limits::kMaxDiagnostics)
    fuzz::check(st.diagnostics_dropped_skipped + st.diagnostics_dropped_warned == 0, "nothing dropped below the cap");
  for (const Diagnostic& d : r.diagnostics()) {
    fuzz::check(d.file == file.path(), "a diagnostic names its file");
    fuzz::check(d.frame <= st.frames + 1, "a diagnostic names a frame of the file (or the one cut short)");
    fuzz::check(!d.field.empty() && !d.message.empty(), "a diagnostic names a field and says what is wrong");
  }
  fuzz::check(st.clock_steps.size() ==
                  std::min<std::uint64_t>(st.clock_steps_back + st.clock_returns, kMaxClockStepsListed),
              "clock steps and returns are listed up to the cap");
  fuzz::check(st.clock_returns <= st.clock_rebases - st.clock_returns, "each return ends a re-based step back");
  if (st.clock_steps_back == 0) fuzz::check(st.largest_step_back.count() == 0, "no step, no largest step");
  return 0;
}
