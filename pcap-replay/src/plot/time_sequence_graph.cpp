#include "plot/time_sequence_graph.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <unordered_map>

#include <fmt/format.h>

#include <replay/report/judgement_text.hpp>
#include <replay/analysis/thresholds.hpp>
#include "plot/clock_shift.hpp"

namespace replay {

namespace {

using svg::num;

struct KindStyle {
  std::string_view colour, label;
};
// Index = SendKind.
constexpr std::array<KindStyle, kSendKinds> kStyles{{
    {"#4d4d4d", "first transmission"},
    {"#d62728", "RTO retransmission"},
    {"#8c1a4b", "SYN RTO retransmission"},
    {"#ff8c00", "fast retransmit"},
    {"#8e44ad", "tail-loss probe"},
    {"#e377c2", "after-RTO (slow start)"},
    {"#8c564b", "spurious retransmission"},
    {"#a0a0a0", "unclassified repeat"},
    {"#b5b800", "out of order (not a retx)"},
    {"#1f77b4", "SYN-ACK reply to a duplicate SYN"},
    {"#2ca02c", "loss probe with new data"},
    {"#7f7f7f", "keep-alive"},
    {"#bcbd22", "zero-window probe"},
}};
// Every kind has its colour and legend name (a kind added without them fails here).
static_assert(!kStyles.back().label.empty() && kStyles.size() == kSendKinds);

bool from_peer(std::string_view event) { return event == "ack" || event == "dup-ack" || event == "sack"; }

SendKind kind_of(std::string_view event) {
  for (std::size_t k = 0; k < kSendKinds; ++k)
    if (to_string(static_cast<SendKind>(k)) == event) return static_cast<SendKind>(k);
  return SendKind::unclassified;
}

std::string decimation_note(std::string_view what, std::size_t stride, std::size_t drawn, std::size_t total) {
  return fmt::format("{}: 1 in {} drawn ({} of {})", what, stride, drawn, total);
}

}  // namespace

std::string_view kind_colour(SendKind k) { return kStyles[static_cast<std::size_t>(k)].colour; }
std::string_view kind_label(SendKind k) { return kStyles[static_cast<std::size_t>(k)].label; }

std::string_view level_colour(Level l) {
  switch (l) {
    case Level::must: return colour::kMust;
    case Level::should: return colour::kShould;
    default: return colour::kOther;
  }
}

double seconds_since(CaptureTime t, CaptureTime origin) {
  return static_cast<double>((t - origin).count()) / 1e9;
}

void draw_time_sequence(std::string& out, std::vector<std::string>& notes, const SenderReport& s,
                        const Options& options, CaptureTime origin, const svg::Axis& time, const svg::Box& box) {
  auto o = std::back_inserter(out);
  // What the time axis shows (all of it, or an episode zoomed: sender_graph.hpp).
  const auto in_view = [&](CaptureTime t) { return time.contains(seconds_since(t, origin)); };
  // The sequence range: every transmission's bytes, every ACK and SACK edge in view.
  double lo = 0, hi = 0;
  bool any = false;
  const auto widen = [&](double v) {
    if (!any) lo = hi = v, any = true;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  };
  std::array<std::size_t, kSendKinds> per_kind{};
  std::size_t acks = 0, sacks = 0;
  // The cumulative ACK in force where the view begins (a zoomed view): drawn from its left edge.
  std::optional<std::uint32_t> ack_before;
  for (const auto& e : s.timeline)
    if (from_peer(e.event) && seconds_since(e.time, origin) < time.lo) ack_before = e.rel_seq;
  if (ack_before) widen(*ack_before);
  for (const auto& e : s.timeline) {
    // The packet drawn once, at its first capture; a held sample is no segment.
    if (e.event == kCaptureCopyEvent || e.event == kHeldSampleEvent || !in_view(e.time)) continue;
    if (from_peer(e.event)) {
      ++acks;
      widen(e.rel_seq);
      if (e.sack_count) ++sacks;
      for (std::uint8_t i = 0; i < e.sack_count; ++i) widen(e.sack[i].first), widen(e.sack[i].second);
    } else {
      ++per_kind[static_cast<std::size_t>(kind_of(e.event))];
      widen(e.rel_seq);
      widen(static_cast<double>(e.rel_seq) + e.len);
    }
  }
  // At least kMinSeqSpan bytes tall, so the ticks are whole bytes.
  constexpr double kMinSeqSpan = 10;
  if (hi - lo < kMinSeqSpan) hi = lo + kMinSeqSpan;
  const svg::Range yr = svg::padded(lo, hi, false, 0.04, 0);
  const svg::Axis seq{yr.lo, yr.hi, box.bottom, box.top, false};
  const auto X = [&](CaptureTime t) { return time.map(seconds_since(t, origin)); };

  // Frame, grid and axes.
  fmt::format_to(o, "<g class=\"tsg\">\n");
  svg::draw_frame(out, box, time, 10, seq, 8, "relative sequence number (bytes)");

  // SACK blocks, then the cumulative ACK step line (under the transmissions).
  const std::size_t sack_stride = svg::decimation_stride(sacks, limits::kPlotMaxPoints);
  const std::size_t ack_stride = svg::decimation_stride(acks, limits::kPlotMaxPoints);
  std::string sack_path, ack_points;
  std::size_t sack_i = 0, ack_i = 0, sack_drawn = 0, ack_drawn = 0;
  std::optional<double> prev_ack_y;
  if (ack_before) {
    prev_ack_y = seq.map(*ack_before);
    fmt::format_to(std::back_inserter(ack_points), "{},{} ", num(box.left), num(*prev_ack_y));
  }
  for (const auto& e : s.timeline) {
    if (!from_peer(e.event) || !in_view(e.time)) continue;
    const double x = X(e.time);
    if (e.sack_count && sack_i++ % sack_stride == 0) {
      ++sack_drawn;
      for (std::uint8_t i = 0; i < e.sack_count; ++i)
        fmt::format_to(std::back_inserter(sack_path), "M{} {}V{}", num(x), num(seq.map(e.sack[i].first)),
                       num(seq.map(e.sack[i].second)));
    }
    if (ack_i++ % ack_stride != 0) continue;
    ++ack_drawn;
    const double y = seq.map(e.rel_seq);
    if (prev_ack_y) fmt::format_to(std::back_inserter(ack_points), "{},{} ", num(x), num(*prev_ack_y));
    fmt::format_to(std::back_inserter(ack_points), "{},{} ", num(x), num(y));
    prev_ack_y = y;
  }
  if (!sack_path.empty())
    fmt::format_to(o, "<path class=\"sack\" d=\"{}\" stroke=\"{}\" stroke-width=\"3\" stroke-opacity=\"0.6\" fill=\"none\"/>\n",
                   sack_path, colour::kSack);
  if (!ack_points.empty()) {
    if (prev_ack_y) fmt::format_to(std::back_inserter(ack_points), "{},{}", num(box.right), num(*prev_ack_y));
    fmt::format_to(o, "<polyline class=\"ack\" points=\"{}\" stroke=\"{}\" stroke-width=\"1.2\" fill=\"none\"/>\n",
                   ack_points, colour::kAck);
  }
  if (sack_stride > 1) notes.push_back(decimation_note("SACK blocks", sack_stride, sack_drawn, sacks));
  if (ack_stride > 1) notes.push_back(decimation_note("ACKs", ack_stride, ack_drawn, acks));

  // Transmissions: first ones as one path (many), repeats one element each
  // (data-kind, data-frame, a tooltip), drawn over them.
  std::array<std::size_t, kSendKinds> stride{}, seen{}, drawn{};
  for (std::size_t k = 0; k < kSendKinds; ++k) stride[k] = svg::decimation_stride(per_kind[k], limits::kPlotMaxPoints);
  std::string first_path;
  std::string repeats;
  std::unordered_map<std::uint64_t, double> frame_y;  // for the finding markers
  for (const auto& e : s.timeline) {
    if (from_peer(e.event) || e.event == kCaptureCopyEvent || e.event == kHeldSampleEvent || !in_view(e.time)) continue;
    const SendKind k = kind_of(e.event);
    const std::size_t ki = static_cast<std::size_t>(k);
    const double y0 = seq.map(e.rel_seq), y1 = seq.map(static_cast<double>(e.rel_seq) + e.len);
    frame_y.emplace(e.frame, (y0 + y1) / 2);
    if (seen[ki]++ % stride[ki] != 0) continue;
    ++drawn[ki];
    const double x = X(e.time);
    // At least 3 px tall, so a one-byte SYN or probe shows.
    const double mid = (y0 + y1) / 2, half = std::max(1.5, (y0 - y1) / 2);
    if (k == SendKind::first) {
      fmt::format_to(std::back_inserter(first_path), "M{} {}V{}", num(x), num(mid + half), num(mid - half));
      continue;
    }
    fmt::format_to(std::back_inserter(repeats),
                   "<line class=\"tx\" data-kind=\"{}\" data-frame=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
                   "stroke=\"{}\" stroke-width=\"3\"><title>frame {}: {} at {:.6f} s, seq {} ({} bytes)</title></line>\n",
                   e.event, e.frame, num(x), num(mid + half + 1), num(x), num(mid - half - 1), kind_colour(k), e.frame,
                   kind_label(k), seconds_since(e.time, origin), e.rel_seq, e.len);
  }
  if (!first_path.empty())
    fmt::format_to(o, "<path class=\"tx\" data-kind=\"send\" d=\"{}\" stroke=\"{}\" stroke-width=\"1.5\" fill=\"none\"/>\n",
                   first_path, kind_colour(SendKind::first));
  out += repeats;
  for (std::size_t k = 0; k < kSendKinds; ++k)
    if (stride[k] > 1)
      notes.push_back(decimation_note(kind_label(static_cast<SendKind>(k)), stride[k], drawn[k], per_kind[k]));

  // The timer: for each expiry, the arming it counted from (a bar to the
  // predicted expiry, the accepted window around it) and the expiry.
  // Consecutive expiries of one chain resend the same sequence number and
  // their bars would overlap: they alternate between two rows above it, a
  // dotted line joining each expiry to its retransmission.
  std::size_t row = 0;
  for (const auto& t : s.timeouts) {
    if (!in_view(t.time)) continue;
    // The latest reading of the arm (the wait's lower end).
    const CaptureTime arm = armed_at(t, t.wait.lo);
    const double y_seq = seq.map(t.rel_seq);
    const double y = std::max(box.top + 8, y_seq - 12 - 14.0 * static_cast<double>(row++ % 2));
    fmt::format_to(o, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"1\" stroke-dasharray=\"2 2\"/>\n",
                   num(X(t.time)), num(y), num(X(t.time)), num(y_seq), colour::kExpiry);
    const auto at = [&](std::chrono::microseconds d) { return X(after_by(arm, d)); };
    const double xa = X(arm), xp = at(t.predicted.lo), xe = at(t.accepted.lo),
                 xl = t.accepted.bounded() ? at(t.accepted.hi) : at(t.accepted.lo);
    const double xt = X(t.time);
    // An unknown wait (the capture clock stepped): no arm, no window on
    // the capture's axis; the expiry alone.
    if (!t.wait_unknown) {
    fmt::format_to(o,
                   "<rect class=\"window\" data-frame=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"12\" fill=\"{}\" "
                   "fill-opacity=\"0.18\" stroke=\"{}\" stroke-opacity=\"0.7\" stroke-width=\"0.8\"/>\n",
                   t.frame, num(xe), num(y - 6), num(std::max(1.0, xl - xe)), colour::kArm, colour::kArm);
    fmt::format_to(o,
                   "<line class=\"arm\" data-frame=\"{}\" data-cause=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
                   "stroke=\"{}\" stroke-width=\"2\"/>"
                   "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"1.5\"/>"
                   "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>\n",
                   t.frame, to_string(t.armed_by), num(xa), num(y), num(xp), num(y), colour::kArm,
                   num(xa), num(y - 5), num(xa), num(y + 5), colour::kArm,
                   num(xp), num(y - 7), num(xp), num(y + 7), colour::kArm);
    }
    fmt::format_to(o,
                   "<path class=\"expiry\" data-kind=\"{}\" data-frame=\"{}\" data-verdict=\"{}\" "
                   "d=\"M{} {}l6 6l-6 6l-6 -6z\" fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"0.8\">"
                   "<title>frame {}: timer expiry {} of its chain at {:.6f} s, waited {} ms since {} "
                   "(predicted {} ms, accepted {} ms{}): {}</title></path>\n",
                   t.syn ? "syn-rto" : "rto", t.frame, to_string(t.verdict), num(xt), num(y - 6), colour::kExpiry,
                   t.frame, t.expiry, seconds_since(t.time, origin), t.wait_unknown ? std::string("?") : interval_text(t.wait), to_string(t.armed_by),
                   interval_text(t.predicted), interval_text(t.accepted),
                   t.basis == Basis::doubling ? ", from the chain's earlier waits" : "", to_string(t.verdict));
  }

  // Findings: a ring at the frame's transmission, a label with level, rule
  // and frame (staggered in three rows so neighbours do not overlap).
  std::size_t n = 0;
  for (const auto& f : s.findings) {
    if (!in_view(f.time)) continue;
    const auto it = frame_y.find(f.frame);
    const double y = it != frame_y.end() ? it->second : box.top + 10;
    const double x = X(f.time);
    // Below the marker (the timer's rows are above the sequence line), or
    // above it near the bottom of the graph.
    const double step = 13.0 * static_cast<double>(n++ % 3);
    const double ly = y + 24 + step < box.bottom - 4 ? y + 24 + step : std::max(box.top + 12, y - 40 - step);
    const std::string label = fmt::format("{} {} #{}", to_string(f.level), to_string(f.rule), f.frame);
    const bool right = x > (box.left + box.right) / 2;
    fmt::format_to(o,
                   "<g class=\"finding\" data-level=\"{}\" data-rule=\"{}\" data-frame=\"{}\">"
                   "<title>{}</title>"
                   "<circle cx=\"{}\" cy=\"{}\" r=\"7\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>"
                   "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"0.8\"/>"
                   "<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" font-size=\"11\" font-weight=\"bold\" fill=\"{}\" "
                   "stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">{}</text></g>\n",
                   to_string(f.level), svg::escape(to_string(f.rule)), f.frame, svg::escape(describe(f, options)), num(x), num(y),
                   level_colour(f.level), num(x), num(ly > y ? y + 7 : y - 7), num(x), num(ly > y ? ly - 10 : ly + 2), level_colour(f.level),
                   num(right ? x - 4 : x + 4), num(ly), right ? "end" : "start", level_colour(f.level), svg::escape(label));
  }
  out += "</g>\n";
}

}  // namespace replay
