// Capture front end: open (format by magic, gzip underneath), number every
// record, report damage and clock steps, filter, decode frames.
#include <replay/input/capture_reader.hpp>

#include <pcap/pcap.h>

#include <cstdio>
#include <limits>
#include <span>

#include "input/bpf_filter.hpp"
#include <replay/input/byte_stream.hpp>
#include <replay/input/capture_format.hpp>
#include <replay/input/decode_frame.hpp>
#include "input/decode_link.hpp"
#include "input/pcap_file.hpp"
#include <replay/input/pcapng_file.hpp>
#include <replay/input/record_source.hpp>

namespace replay {

struct CaptureReader::State {
  explicit State(ByteStream s, std::string bpf) : in(std::move(s)), filter(std::move(bpf)) {}
  ByteStream in;
  std::unique_ptr<RecordParser> parser;
  BpfFilter filter;
  RawRecord rec;
  FrameIssue issue;
  std::vector<int> filter_failed;  // link types the filter does not compile for (reported once each)
  int checked_dlt = -1;            // the interface the filter was last prepared for
  std::uint32_t checked_snaplen = 0;
};

CaptureReader::CaptureReader(CaptureReader&&) noexcept = default;
CaptureReader& CaptureReader::operator=(CaptureReader&&) noexcept = default;
CaptureReader::~CaptureReader() = default;

std::string linktype_name(int dlt) {
  const char* n = pcap_datalink_val_to_name(dlt);
  return n != nullptr ? n : "no libpcap name";
}

std::variant<CaptureReader, std::string> CaptureReader::open(const std::string& path_or_dash,
                                                             std::size_t file_index, const std::string& bpf) {
  auto stream = ByteStream::open(path_or_dash);
  if (auto* e = std::get_if<std::string>(&stream)) return *e;
  CaptureReader r;
  r.file_ = path_or_dash;
  r.file_index_ = file_index;
  r.st_ = std::make_unique<State>(std::move(std::get<ByteStream>(stream)), bpf);
  State& st = *r.st_;
  const bool pcap = is_pcap_magic(st.in.peek(4));  // (before the parser reads on)
  auto parser = open_record_parser(st.in, path_or_dash);
  if (auto* e = std::get_if<std::string>(&parser)) return *e;
  st.parser = std::move(std::get<std::unique_ptr<RecordParser>>(parser));
  if (pcap) {
    r.linktype_ = st.parser->first_dlt();
    if (!link_type_supported(r.linktype_)) {
      return path_or_dash + ": link type " + std::to_string(r.linktype_) + " (" + r.linktype_name() +
             ") is not supported (EN10MB, LINUX_SLL, LINUX_SLL2, RAW, IPV4, IPV6, NULL, LOOP are)";
    }
  }
  if (st.filter.active()) {
    // pcap: the file's link type. pcapng: interfaces come later; the
    // expression is checked on Ethernet here and compiled per interface.
    const int dlt = pcap ? r.linktype_ : 1;
    if (auto err = st.filter.prepare(dlt, 262144)) {
      return path_or_dash + ": BPF filter \"" + bpf + "\" does not compile: " + *err;
    }
  }
  return r;
}

std::string CaptureReader::linktype_name() const { return replay::linktype_name(linktype_); }

std::optional<double> CaptureReader::progress() const {
  if (!st_) return std::nullopt;
  const auto size = st_->in.file_size();
  if (!size || *size == 0) return std::nullopt;
  return static_cast<double>(st_->in.raw_bytes_read()) / static_cast<double>(*size);
}

void CaptureReader::report(std::uint64_t frame, std::string field, std::string message, bool skipped) {
  // Beyond the cap only counted: a stream of damaged records (a valid header
  // followed by /dev/zero) must not grow memory. The first diagnostics, which
  // include the reason a file is unusable, are always kept.
  if (diagnostics_.size() >= limits::kMaxDiagnostics) {
    ++(skipped ? stats_.diagnostics_dropped_skipped : stats_.diagnostics_dropped_warned);
    return;
  }
  Diagnostic d{file_, frame, std::move(field), std::move(message)};
  d.skipped = skipped;
  diagnostics_.push_back(std::move(d));
}

void CaptureReader::on_damage() {
  const Damage& d = st_->parser->damage();
  LostRange lr;
  lr.byte_begin = d.begin;
  lr.byte_end = d.end;
  lr.frames_before = stats_.frames;
  lr.frames_lost = d.frames;
  lr.to_end = !d.resynced;
  stats_.lost.push_back(lr);
  stats_.read_error = true;
  const std::uint64_t first = stats_.frames + 1;
  std::string msg = d.message;
  if (d.resynced) {
    // The frames after the loss are numbered as if it held its estimate (1 when unknown).
    const std::uint64_t n = d.frames.value_or(1);
    if (!d.frames)
      msg += "; how many frames were lost is unknown: the frames after it are numbered from " +
             std::to_string(first + 1) + " on, as if one was";
    else if (n == 1)
      msg += "; frame " + std::to_string(first) + " is lost";
    stats_.frames += n;
    stats_.frames_lost += n;
  }
  const std::size_t kept = diagnostics_.size();
  report(d.frames == std::optional<std::uint64_t>(0) ? 0 : first, "pcap", std::move(msg));
  damage_diagnostic_ = diagnostics_.size() > kept ? std::optional<std::size_t>(kept) : std::nullopt;
}

namespace {
// a + b in int64, saturated at its limits (dates past 2262 or before 1678
// only arise in crafted files; the model's clock must not wrap).
std::int64_t sat_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
}
}  // namespace

std::int64_t CaptureReader::after_latest(std::int64_t t) const {
  const std::int64_t gap = std::chrono::nanoseconds{limits::kClockReorderMax}.count() + 1;
  return sat_add(sat_add(latest_model_, gap),
                 t == std::numeric_limits<std::int64_t>::min() ? std::numeric_limits<std::int64_t>::max() : -t);
}

void CaptureReader::check_return(std::uint64_t frame, std::int64_t t) {
  const std::int64_t slack = std::chrono::nanoseconds{limits::kClockReturnSlack}.count();
  const OpenStep step = open_steps_.back();
  // The stretch so far, by its own times; the frame, past the time before the step.
  const std::int64_t length = sat_add(last_time_, step.start == std::numeric_limits<std::int64_t>::min()
                                                      ? std::numeric_limits<std::int64_t>::max()
                                                      : -step.start);
  const std::int64_t past = sat_add(t, step.before == std::numeric_limits<std::int64_t>::min()
                                           ? std::numeric_limits<std::int64_t>::max()
                                           : -step.before);
  // A jump forward beyond reordering (as the step back was), to where the
  // clock from before the step reads now, had the stretch lasted its own
  // length and this frame come right after it: within the slack.
  if (sat_add(t, -last_time_) <= std::chrono::nanoseconds{limits::kClockReorderMax}.count()) return;
  if (past < sat_add(length, -slack) || past > sat_add(length, slack)) return;
  open_steps_.pop_back();
  ++stats_.clock_rebases;
  ++stats_.clock_returns;
  // Back on the earlier clock, just after the latest time read if that clock
  // would put the frame before it (the model's clock stays monotonic).
  rebase_ns_ = std::max(step.rebase, after_latest(t));
  const std::chrono::nanoseconds ahead{sat_add(t, -last_time_)};
  if (stats_.clock_steps.size() < kMaxClockStepsListed) {
    ClockStep c{frame, ahead, true, std::chrono::nanoseconds{rebase_ns_}, std::nullopt};
    c.returns_from = step.frame;
    stats_.clock_steps.push_back(c);
    char buf[64], buf2[64];
    std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(ahead.count()) / 1e6);
    std::snprintf(buf2, sizeof buf2, "%.6f", static_cast<double>(past) / 1e6);
    report(frame, "frame.time",
           std::string("the clock returns to its time before the step back at frame ") + std::to_string(step.frame) +
               ": this frame is dated " + buf + " ms after frame " + std::to_string(last_frame_) + " and " + buf2 +
               " ms after frame " + std::to_string(step.frame_before) + " (the frame before that step), so " +
               (step.frame == last_frame_ ? "frame " + std::to_string(step.frame) + " was"
                                          : "frames " + std::to_string(step.frame) + "-" +
                                                std::to_string(last_frame_) + " were") +
               " mis-dated; the frame is used, and no interval across either end of the mis-dated frames is judged",
           false);
  }
}

void CaptureReader::summarise_reordering() {
  if (stats_.reordered == 0) return;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(stats_.largest_reordered.count()) / 1e6);
  report(stats_.first_reordered_frame, "frame.time",
         std::to_string(stats_.reordered) + " frame(s) dated before the frame read just before them, by at most " +
             buf + " ms (the first: frame " + std::to_string(stats_.first_reordered_frame) +
             "): within the " + std::to_string(limits::kClockReorderMax.count()) +
             " us two capture interfaces disagree by, reordering rather than a step of the capture clock; the "
             "frames are used with their own times",
         false);
}

void CaptureReader::step_back(std::uint64_t frame, std::int64_t t) {
  // The difference of two ordered int64 fits in uint64 (computed there, no
  // signed overflow); a step beyond int64 nanoseconds (292 years) saturates.
  const std::uint64_t diff = static_cast<std::uint64_t>(last_time_) - static_cast<std::uint64_t>(t);
  const std::chrono::nanoseconds back{diff > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                                          ? std::numeric_limits<std::int64_t>::max()
                                          : static_cast<std::int64_t>(diff)};
  ++stats_.clock_steps_back;
  if (back > stats_.largest_step_back) stats_.largest_step_back = back;
  // Beyond reordering: the capture clock stepped. This frame goes just
  // after the latest time read so far (plus the reordering allowance, so
  // a frame reordered after it still lands after every frame before the
  // step), and the later frames with it.
  const bool rebased = back > limits::kClockReorderMax;
  if (rebased) {
    ++stats_.clock_rebases;
    if (open_steps_.size() == limits::kMaxClockStepsOpen) open_steps_.erase(open_steps_.begin());
    open_steps_.push_back(OpenStep{last_time_, t, rebase_ns_, last_frame_, frame});
    rebase_ns_ = after_latest(t);
  }
  if (!rebased) {  // reordering: summarised at the end of the file (summarise_reordering)
    if (stats_.reordered++ == 0) stats_.first_reordered_frame = frame;
    if (back > stats_.largest_reordered) stats_.largest_reordered = back;
  }
  const bool listed = stats_.clock_steps.size() < kMaxClockStepsListed;
  if (listed)
    stats_.clock_steps.push_back(ClockStep{frame, back, rebased, std::chrono::nanoseconds{rebase_ns_}, std::nullopt});
  if (rebased && listed) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(back.count()) / 1e6);
    report(frame, "frame.time",
           std::string("the clock steps back ") + buf + " ms from frame " + std::to_string(last_frame_) +
               " (this frame is dated before the one read just before it); the frame is used" +
               "; more than the " + std::to_string(limits::kClockReorderMax.count()) +
               " us two capture interfaces disagree by, so a step of the capture clock: the time that passed "
               "across it is unknown and no interval across it is judged",
           false);
  }
}

bool CaptureReader::check_time(std::uint64_t frame, std::int64_t t) {
  if (have_time_ && t < last_time_) step_back(frame, t);
  if (have_time_ && t >= last_time_ && !open_steps_.empty()) check_return(frame, t);
  const std::int64_t model = sat_add(t, rebase_ns_);
  if (!have_time_ || model > latest_model_) latest_model_ = model;
  last_time_ = t;
  last_frame_ = frame;
  have_time_ = true;
  return true;
}

bool CaptureReader::next(Segment& out) {
  if (!st_) return false;
  State& st = *st_;
  RawRecord& rec = st.rec;
  while (!done_) {
    const ParseStep step = st.parser->next(rec);
    stats_.bytes_read = st.in.raw_bytes_read();
    if (step == ParseStep::kEnd) {
      done_ = true;
      summarise_reordering();
      if (!st.in.error().empty()) {
        const std::uint64_t end = st.in.offset();
        // The damaged stream stopped inside a record, which the parser found
        // cut (on_damage): one loss, told once, with the stream's reason;
        // how many frames the rest of the compressed input held is unknown.
        LostRange* cut = !stats_.lost.empty() && stats_.lost.back().to_end && stats_.lost.back().byte_end == end
                             ? &stats_.lost.back()
                             : nullptr;
        const std::string why = st.in.error() + "; the rest of the file is skipped";
        if (cut) {
          cut->frames_lost.reset();
          // (Its diagnostic may be one of those only counted, past kMaxDiagnostics.)
          if (damage_diagnostic_ && *damage_diagnostic_ < diagnostics_.size())
            diagnostics_[*damage_diagnostic_].message += " (the input stops there: " + why + ")";
        } else {
          LostRange lr;
          lr.byte_begin = lr.byte_end = end;
          lr.frames_before = stats_.frames;
          lr.to_end = true;
          stats_.lost.push_back(lr);
          stats_.read_error = true;
          report(stats_.frames + 1, "pcap", "read error at byte " + std::to_string(end) + ": " + why);
        }
      }
      break;
    }
    if (step == ParseStep::kDamage) {
      on_damage();
      continue;
    }
    const std::uint64_t frame = ++stats_.frames;  // Wireshark counts every packet record from 1
    if (frame == 1 && linktype_ == 0) linktype_ = st.parser->first_dlt();
    if (rec.bad_interface) {
      ++stats_.malformed;
      report(frame, "frame.interface_id",
             "the packet block names interface " + std::to_string(rec.interface) +
                 ", which its section does not describe; the frame is skipped");
      continue;
    }
    if (rec.no_timestamp && have_time_) rec.time_ns = last_time_;  // SPB: no timestamp in the format
    if (rec.time_issue == TimeIssue::kNone) check_time(frame, rec.time_ns);
    if (frame == 1 && rec.time_issue == TimeIssue::kNone && !rec.no_timestamp)  // frame.time_relative's origin
      stats_.first_frame_time = CaptureTime{std::chrono::nanoseconds{rec.time_ns}};
    if (st.filter.active()) {
      if (rec.dlt != st.checked_dlt || rec.snaplen != st.checked_snaplen) {
        st.checked_dlt = rec.dlt;
        st.checked_snaplen = rec.snaplen;
        if (auto err = st.filter.prepare(rec.dlt, rec.snaplen)) {
          bool said = false;
          for (int d : st.filter_failed) said = said || d == rec.dlt;
          if (!said) {
            st.filter_failed.push_back(rec.dlt);
            report(frame, "bpf",
                   "the filter does not compile for link type " + std::to_string(rec.dlt) + " (" +
                       replay::linktype_name(rec.dlt) + "): " + *err + "; its frames are filtered out",
                   false);
          }
        }
      }
      if (!st.filter.matches(rec.dlt, rec.snaplen, rec.data, rec.wire_len)) {
        ++stats_.filtered_out;
        continue;
      }
    }
    if (rec.time_issue == TimeIssue::kFractionTooLarge) {
      ++stats_.malformed;
      report(frame, "frame.time", "the record's fraction of a second (" + std::to_string(rec.raw_fraction) + " " +
                                      rec.fraction_unit + ") is not below 1 s; the frame is skipped");
      continue;
    }
    if (rec.time_issue == TimeIssue::kOutOfRange) {
      ++stats_.malformed;
      report(frame, "frame.time",
             "the timestamp (" + std::to_string(rec.raw_fraction) +
                 " units of its interface's if_tsresol) is outside what 64-bit nanoseconds since 1970 hold "
                 "(years 1678 to 2262); the frame is skipped");
      continue;
    }
    if (!link_type_supported(rec.dlt)) {
      ++stats_.malformed;
      report(frame, "frame.linktype",
             "link type " + std::to_string(rec.dlt) + " (" + replay::linktype_name(rec.dlt) +
                 ") of interface " + std::to_string(rec.interface) + " is not supported; the frame is skipped");
      continue;
    }
    const FrameKind kind = decode_frame_into(rec.dlt, rec.data, rec.wire_len, out, st.issue);
    switch (kind) {
      case FrameKind::kNotIp: ++stats_.non_ip; continue;
      case FrameKind::kNotTcp: ++stats_.non_tcp; continue;
      case FrameKind::kNonFirstFragment: ++stats_.fragments_skipped; continue;
      case FrameKind::kMalformed:
        ++stats_.malformed;
        report(frame, st.issue.error.field, st.issue.error.message);
        continue;
      case FrameKind::kTcp: break;
    }
    if (st.issue.warning) report(frame, st.issue.warning->field, st.issue.warning->message, false);
    out.file_index = file_index_;
    out.frame = frame;
    out.time = CaptureTime{std::chrono::nanoseconds{rec.time_ns}};
    out.rebase = std::chrono::nanoseconds{rebase_ns_};
    ++stats_.tcp_segments;
    return true;
  }
  return false;
}

std::optional<Segment> CaptureReader::next() {
  Segment s;
  if (next(s)) return s;
  return std::nullopt;
}

}  // namespace replay
