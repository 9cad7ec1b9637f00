#include <replay/plot/sender_graph.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "plot/estimator_graph.hpp"
#include <replay/plot/svg_plot.hpp>
#include "plot/time_sequence_graph.hpp"
#include "plot/clock_shift.hpp"

namespace replay {

namespace {

using svg::num;

// Layout, SVG user units.
constexpr double kWidth = 1120, kHeight = 664;
constexpr svg::Box kSeqBox{80, 58, 880, 418};
constexpr svg::Box kEstBox{80, 440, 880, 610};
constexpr double kLegendX = 898;

struct Legend {
  std::string& out;
  double y;
  void heading(std::string_view text) {
    fmt::format_to(std::back_inserter(out), "<text x=\"{}\" y=\"{}\" font-size=\"11\" font-weight=\"bold\">{}</text>\n",
                   num(kLegendX), num(y), svg::escape(text));
    y += 15;
  }
  // shape: "bar" (vertical), "line", "box", "diamond", "ring", "dot"
  void item(std::string_view shape, std::string_view col, std::string_view text) {
    auto o = std::back_inserter(out);
    const double x = kLegendX, cy = y - 4;
    if (shape == "bar")
      fmt::format_to(o, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"/>", num(x + 8),
                     num(cy - 6), num(x + 8), num(cy + 6), col);
    else if (shape == "line")
      fmt::format_to(o, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>", num(x),
                     num(cy), num(x + 16), num(cy), col);
    else if (shape == "box")
      fmt::format_to(o, "<rect x=\"{}\" y=\"{}\" width=\"16\" height=\"10\" fill=\"{}\" fill-opacity=\"0.18\" stroke=\"{}\"/>",
                     num(x), num(cy - 5), col, col);
    else if (shape == "diamond")
      fmt::format_to(o, "<path d=\"M{} {}l6 6l-6 6l-6 -6z\" fill=\"{}\"/>", num(x + 8), num(cy - 6), col);
    else if (shape == "ring")
      fmt::format_to(o, "<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>", num(x + 8),
                     num(cy), col);
    else
      fmt::format_to(o, "<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"/>", num(x + 8), num(cy), col);
    fmt::format_to(o, "<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>\n", num(x + 22), num(y), svg::escape(text));
    y += 15;
  }
};

}  // namespace

bool has_graph(const SenderReport& s) { return s.data_segments > 0 && !s.timeline.empty(); }

std::string sender_svg_name(const FlowReport& f, std::size_t dir) {
  return fmt::format("flow-{}-{}.svg", f.id, dir == 0 ? "c2s" : "s2c");
}

namespace {
// The whole picture's time range: the connection, every event, every arming and window end.
svg::Range whole_range(const Report& r, const FlowReport& f, const SenderReport& s) {
  const CaptureTime origin = r.origin_of(f.file_index);  // its file's frame 1
  double t0 = std::numeric_limits<double>::infinity(), t1 = -t0;
  const auto widen = [&](CaptureTime t) {
    const double v = seconds_since(t, origin);
    t0 = std::min(t0, v);
    t1 = std::max(t1, v);
  };
  // The connection's whole span, so both senders of a flow share an axis.
  widen(f.first_time);
  widen(f.last_time);
  for (const auto& e : s.timeline) widen(e.time);
  for (const auto& t : s.timeouts) {
    const CaptureTime arm = armed_at(t, t.wait.lo);
    widen(arm);
    if (t.accepted.bounded()) widen(after_by(arm, t.accepted.hi));
  }
  return svg::padded(t0, t1, false, 0.01, 0);
}
}  // namespace

std::vector<Episode> episodes(const Report& r, const FlowReport& f, std::size_t dir) {
  const SenderReport& s = f.senders[dir];
  const CaptureTime origin = r.origin_of(f.file_index);
  std::vector<Episode> out;
  for (const TimeoutRecord& t : s.timeouts) {
    const double at = seconds_since(t.time, origin);
    const double armed = seconds_since(armed_at(t, t.wait.hi), origin);
    if (out.empty() || t.expiry <= 1) out.push_back(Episode{armed, at, t.frame, t.frame, 0});
    Episode& e = out.back();
    e.t0 = std::min(e.t0, armed);
    e.t1 = std::max(e.t1, at);
    e.last_frame = t.frame;
    ++e.expiries;
  }
  return out;
}

std::vector<Episode> zoomed_episodes(const Report& r, const FlowReport& f, std::size_t dir) {
  std::vector<Episode> out;
  if (!has_graph(f.senders[dir])) return out;
  const svg::Range whole = whole_range(r, f, f.senders[dir]);
  const double min_pad = std::chrono::duration<double>(limits::kZoomMinPad).count();
  for (Episode e : episodes(r, f, dir)) {
    const double pad = std::max(min_pad, (e.t1 - e.t0) * limits::kZoomPadShare);
    e.t0 -= pad;
    e.t1 += pad;
    if (e.t1 - e.t0 >= limits::kZoomBelowShare * (whole.hi - whole.lo)) continue;
    out.push_back(e);
    if (out.size() == limits::kZoomMaxEpisodes) break;
  }
  return out;
}

std::string sender_svg(const Report& r, const FlowReport& f, std::size_t dir, bool standalone,
                       const std::optional<Episode>& zoom) {
  const SenderReport& s = f.senders[dir];
  if (!has_graph(s)) return {};
  const CaptureTime origin = r.origin_of(f.file_index);  // its file's frame 1
  const svg::Range tr = zoom ? svg::Range{zoom->t0, zoom->t1} : whole_range(r, f, s);
  const svg::Axis time{tr.lo, tr.hi, kSeqBox.left, kSeqBox.right, false};

  std::string body;
  std::vector<std::string> notes;
  draw_time_sequence(body, notes, s, r.options, origin, time, kSeqBox);
  const bool log = draw_estimator(body, notes, s, origin, time, kEstBox);

  std::string out;
  auto o = std::back_inserter(out);
  if (standalone) out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  fmt::format_to(o,
                 "<svg {}width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" font-family=\"DejaVu Sans, Verdana, sans-serif\" "
                 "class=\"sender-graph\" data-flow=\"{}\" data-direction=\"{}\"{}>\n",
                 standalone ? "xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" " : "", num(kWidth), num(kHeight),
                 num(kWidth), num(kHeight), f.id, dir == 0 ? "c2s" : "s2c",
                 zoom ? fmt::format(" data-zoom-t0=\"{:.6f}\" data-zoom-t1=\"{:.6f}\"", zoom->t0, zoom->t1) : std::string());
  fmt::format_to(o, "<rect width=\"{}\" height=\"{}\" fill=\"#fafafa\"/>\n", num(kWidth), num(kHeight));
  // The file's name without its directories, so that the title fits.
  const std::string title =
      zoom ? fmt::format("flow {} sender {} \u2192 {}: {}, zoomed to {:.3f}-{:.3f} s", f.id, to_string(s.src),
                         to_string(s.dst),
                         zoom->first_frame == zoom->last_frame
                             ? fmt::format("the expiry at frame {}", zoom->first_frame)
                             : fmt::format("expiries at frames {}-{}", zoom->first_frame, zoom->last_frame),
                         zoom->t0, zoom->t1)
           : fmt::format("flow {} sender {} \u2192 {}  ({}, profile {})", f.id, to_string(s.src), to_string(s.dst),
                         std::filesystem::path(f.file).filename().string(), s.profile);
  fmt::format_to(o, "<text x=\"{}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{}</text>\n", num(kSeqBox.left),
                 svg::escape(title));
  const std::string sub =
      notes.empty() ? std::string("every transmission, ACK and estimator step drawn")
                    : "decimated: " + [&] {
                        std::string j;
                        for (const auto& n : notes) j += (j.empty() ? "" : "; ") + n;
                        return j;
                      }();
  fmt::format_to(o, "<text class=\"note\" x=\"{}\" y=\"38\" font-size=\"11\" fill=\"{}\">{}</text>\n", num(kSeqBox.left),
                 notes.empty() ? "#666666" : "#b00000", svg::escape(sub));
  fmt::format_to(o, "<text x=\"{}\" y=\"52\" font-size=\"11\" fill=\"#444\">time-sequence graph and the replayed retransmission timer</text>\n",
                 num(kSeqBox.left));
  out += body;
  fmt::format_to(o, "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#444\">replayed estimator ({}, with the 5.5 backoff)</text>\n",
                 num(kEstBox.left), num(kEstBox.top - 5), s.profile == "linux" ? "Linux's tcp_rtt_estimator" : "RFC 6298 2.2-2.5");
  // The shared time axis, under the estimator graph.
  svg::draw_x_labels(out, kEstBox, time, 10,
                     zoom ? "time since the first frame of the capture (s): one retransmission episode, zoomed"
                          : "time since the first frame of the capture (s)");

  Legend lg{out, kSeqBox.top + 10};
  lg.heading("transmissions");
  for (std::size_t k = 0; k < kSendKinds; ++k)
    if (k == 0 || s.by_kind[k] > 0) lg.item("bar", kind_colour(static_cast<SendKind>(k)), kind_label(static_cast<SendKind>(k)));
  lg.heading("from the peer");
  lg.item("line", colour::kAck, "cumulative ACK");
  if (s.sack) lg.item("bar", colour::kSack, "SACK block");
  lg.heading("timer (replayed)");
  lg.item("line", colour::kArm, "armed \u2192 predicted expiry");
  lg.item("box", colour::kArm, "accepted window");
  lg.item("diamond", colour::kExpiry, "observed expiry");
  lg.heading("findings");
  lg.item("ring", colour::kMust, "MUST");
  lg.item("ring", colour::kShould, "SHOULD");
  lg.item("ring", colour::kOther, "MAY / INFO");
  lg.y = kEstBox.top + 10;
  lg.heading(log ? "estimator (log scale)" : "estimator");
  lg.item("line", colour::kRto, "RTO (with backoff)");
  lg.item("line", colour::kSrtt, "SRTT");
  lg.item("line", colour::kRttvar, "RTTVAR");
  lg.item("dot", colour::kWait, "observed expiry wait");
  lg.item("dot", colour::kRto, "backoff step (x2^k)");
  out += "</svg>\n";
  return out;
}

std::vector<std::string> write_sender_svgs(const Report& r, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw std::runtime_error(fmt::format("{}: cannot create the directory: {}", dir, ec ? ec.message() : "not a directory"));
  std::vector<std::string> paths;
  for (const auto& f : r.flows)
    for (std::size_t d = 0; d < 2; ++d) {
      if (!has_graph(f.senders[d])) continue;
      const std::string path = (fs::path(dir) / sender_svg_name(f, d)).string();
      std::ofstream os(path, std::ios::binary);
      os << sender_svg(r, f, d, true);
      os.close();
      if (!os) throw std::runtime_error(fmt::format("{}: cannot write the file", path));
      paths.push_back(path);
    }
  return paths;
}

}  // namespace replay
