// What the pictures and the HTML page hold, checked against what is known
// of the captures independently of pcap-replay's output: the shipped Linux
// blackhole capture (tests/captures/README.md, and tshark -Y
// frame.number==179..184: six RTO retransmissions of seq 131073, one
// tail-loss probe before them, first wait 204 ms, below RFC 6298 2.4's 1 s);
// rendered with a real SVG renderer (rsvg-convert, Debian librsvg2-bin).
// The page limits (kHtmlOpenSenders, kHtmlMaxSections) at their boundaries on
// captures with 120 and 1200 connections.

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "replay_scenario.hpp"
#include <replay/report/report_html.hpp>
#include <replay/plot/sender_graph.hpp>
#include <replay/analysis/thresholds.hpp>

using namespace replaytest;

namespace {

const std::string kBlackhole = "tests/captures/linux-blackhole.pcap";
const std::string kManyFlows = "tests/captures/lab/many-flows.pcap";
const std::string kStorm = "tests/captures/storm/storm-refuse-exponential.pcap";

std::size_t occurrences(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

// The data-frame values of the elements whose opening tag starts with `prefix`.
std::set<std::uint64_t> frames_of(const std::string& svg, const std::string& prefix) {
  std::set<std::uint64_t> out;
  const std::string attr = "data-frame=\"";
  for (auto p = svg.find(prefix); p != std::string::npos; p = svg.find(prefix, p + prefix.size())) {
    const auto end = svg.find('>', p);
    const auto a = svg.find(attr, p);
    if (a == std::string::npos || a > end) continue;
    out.insert(std::stoull(svg.substr(a + attr.size())));
  }
  return out;
}

std::string html_of(const replay::Report& r) {
  std::ostringstream os;
  replay::write_html_report(os, r, r.exit_status(false));
  return os.str();
}

bool have_rsvg() { return run("command -v rsvg-convert >/dev/null 2>&1 && echo yes") == "yes\n"; }

// Width and height from a PNG's IHDR (bytes 16-23, big-endian), or {0, 0}.
std::pair<std::uint32_t, std::uint32_t> png_size(const std::string& path) {
  std::ifstream is(path, std::ios::binary);
  std::string b((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  if (b.size() < 24 || b.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return {0, 0};
  const auto be = [&](std::size_t i) {
    return (std::uint32_t(std::uint8_t(b[i])) << 24) | (std::uint32_t(std::uint8_t(b[i + 1])) << 16) |
           (std::uint32_t(std::uint8_t(b[i + 2])) << 8) | std::uint32_t(std::uint8_t(b[i + 3]));
  };
  return {be(16), be(20)};
}

}  // namespace

TEST_CASE("pictures: the blackhole sender's graph holds its six RTO expiries, the probe and the 2.4 finding") {
  const auto r = analyze(kBlackhole, Profile::rfc6298, true);
  REQUIRE(r.flows.size() == 1);
  const std::string svg = replay::sender_svg(r, r.flows[0], 0, true);
  REQUIRE(!svg.empty());
  // Frames 179-184 resend seq 131073 on the timer (tshark; README).
  const std::set<std::uint64_t> expiries{179, 180, 181, 182, 183, 184};
  CHECK(occurrences(svg, "class=\"expiry\" data-kind=\"rto\"") == 6);
  CHECK(frames_of(svg, "<path class=\"expiry\"") == expiries);
  CHECK(frames_of(svg, "<line class=\"tx\" data-kind=\"rto\"") == expiries);
  // Each expiry's arming and window: one each.
  CHECK(frames_of(svg, "<line class=\"arm\"") == expiries);
  CHECK(frames_of(svg, "<rect class=\"window\"") == expiries);
  // The first counts from the tail-loss probe (frame 178 is the probe: one tlp mark).
  CHECK(occurrences(svg, "data-kind=\"tlp\"") == 1);
  CHECK(svg.find("class=\"arm\" data-frame=\"179\" data-cause=\"tlp\"") != std::string::npos);
  // One finding: SHOULD 2.4 at 179, labelled.
  CHECK(occurrences(svg, "class=\"finding\"") == 1);
  CHECK(svg.find("data-level=\"SHOULD\" data-rule=\"2.4\" data-frame=\"179\"") != std::string::npos);
  CHECK(svg.find(">SHOULD 2.4 #179</text>") != std::string::npos);
  // Six expiries in one chain: the backoff rises six times (x2 ... x64); the
  // values span SRTT ~0.1 ms to an RTO of seconds: a log axis.
  CHECK(occurrences(svg, "class=\"backoff\"") == 6);
  CHECK(svg.find("data-backoff=\"6\"") != std::string::npos);
  CHECK(svg.find("data-scale=\"log\"") != std::string::npos);
  CHECK(occurrences(svg, "class=\"wait\"") == 6);
  // 209 packets, far below the cap: nothing decimated.
  CHECK(svg.find("every transmission, ACK and estimator step drawn") != std::string::npos);
  CHECK(svg.find("xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
}

TEST_CASE("pictures: rsvg-convert renders every sender's SVG of the blackhole capture") {
  if (!have_rsvg()) {
    if (std::getenv("CI")) FAIL("rsvg-convert (Debian librsvg2-bin) is missing");
    MESSAGE("rsvg-convert not installed (apt-get install librsvg2-bin): skipped");
    return;
  }
  const auto r = analyze(kBlackhole, Profile::rfc6298, true);
  const auto dir = std::filesystem::temp_directory_path() / ("rto-pictures-" + std::to_string(::getpid()));
  const auto paths = replay::write_sender_svgs(r, dir.string());
  REQUIRE(paths.size() == 2);  // the sender and the receiver (its SYN-ACK is data-bearing)
  CHECK(std::filesystem::path(paths[0]).filename() == "flow-1-c2s.svg");
  for (const auto& p : paths) {
    const std::string png = p + ".png";
    const std::string err = run("rsvg-convert -o '" + png + "' '" + p + "' 2>&1; echo rc=$?");
    CHECK(err == "rc=0\n");
    const auto [w, h] = png_size(png);
    CHECK(w == 1120);  // the SVG's width and height, at 1 px per unit
    CHECK(h == 664);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("pictures: the HTML page is self-contained and lists what the report found") {
  const auto r = analyze(kBlackhole, Profile::rfc6298, true);
  const std::string html = html_of(r);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("src=") == std::string::npos);  // no external script, image or frame
  CHECK(html.find("href=\"http") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(occurrences(html, "<script>") == 1);  // the inline table sorter
  // One picture for the data sender; the other (its SYN-ACK only: no
  // expiry, no retransmission, no finding) is a row of the quiet table.
  CHECK(occurrences(html, "<svg ") == 1);
  CHECK(occurrences(html, "<details ") == 1);
  CHECK(html.find("<h2>Senders with nothing to show (1)</h2>") != std::string::npos);
  CHECK(html.find("<tr><td class=\"n\">1</td><td>198.18.0.2:5001</td><td>198.18.0.1:54906</td>") != std::string::npos);
  // One input: named at the top (and in the page title and the sender's
  // section), not in a column of the connections table.
  CHECK(occurrences(html, "<th>file</th>") == 0);
  CHECK(occurrences(html, "tests/captures/linux-blackhole.pcap") == 3);
  CHECK(occurrences(html, "<details id=\"flow-1-c2s\" open>") == 1);
  CHECK(occurrences(html, "class=\"expiry\"") == 6);
  // The findings table: one row, the SHOULD 2.4 at frame 179.
  CHECK(html.find("<td class=\"SHOULD\" data-v=\"1\">SHOULD</td><td>2.4</td><td class=\"n\">179</td>") != std::string::npos);
  CHECK(html.find("<b class=\"SHOULD\">1</b>SHOULD findings") != std::string::npos);
}

TEST_CASE("pictures: a file name is escaped on the page") {
  const auto dir = std::filesystem::temp_directory_path() / ("rto-html-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto odd = dir / "a<b>&c.pcap";
  std::filesystem::copy_file(kBlackhole, odd, std::filesystem::copy_options::overwrite_existing);
  const auto r = analyze(odd.string(), Profile::rfc6298, true);
  const std::string html = html_of(r);
  CHECK(html.find("a<b>&c.pcap") == std::string::npos);
  CHECK(html.find("a&lt;b&gt;&amp;c.pcap") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("pictures: 120 connections: the worst senders first, kHtmlOpenSenders of them open") {
  const auto r = analyze(kManyFlows, Profile::rfc6298, true);
  REQUIRE(r.flows.size() == 120);
  const auto senders = replay::senders_worst_first(r);
  REQUIRE(senders.size() > replay::limits::kHtmlOpenSenders);
  // Worst first: MUST counts never rise down the list.
  std::size_t prev = SIZE_MAX;
  for (const auto& s : senders) {
    const std::size_t m = musts(s.flow->senders[s.dir]);
    CHECK(m <= prev);
    prev = m;
  }
  const std::string html = html_of(r);
  // The kHtmlOpenSenders-th section is open, the next one is not.
  CHECK(occurrences(html, "\" open><summary>") == replay::limits::kHtmlOpenSenders);
  // Sections for the senders with something to show, worst first; the rest one row each.
  std::vector<replay::SenderRef> story;
  for (const auto& x : senders) {
    const auto& s = x.flow->senders[x.dir];
    if (!s.timeouts.empty() || s.retransmissions() > 0 || !s.findings.empty()) story.push_back(x);
  }
  REQUIRE(story.size() < senders.size());
  const std::size_t sections = std::min(story.size(), replay::limits::kHtmlMaxSections);
  CHECK(occurrences(html, "<details id=") == sections);
  CHECK(html.find(fmt::format("<h2>Senders with nothing to show ({})</h2>", senders.size() - story.size())) !=
        std::string::npos);
  // Every RTO expiry of the sectioned senders is drawn, again in the zoomed picture of its episode.
  std::size_t expiries = 0;
  for (std::size_t i = 0; i < sections; ++i) {
    const auto& f = *story[i].flow;
    const auto& s = f.senders[story[i].dir];
    expiries += s.timeouts.size();
    for (const auto& e : replay::zoomed_episodes(r, f, story[i].dir))
      for (const auto& t : s.timeouts) {
        const double at = replay::seconds_between(t.time, r.origin_of(f.file_index));
        if (at >= e.t0 && at <= e.t1) ++expiries;
      }
  }
  CHECK(occurrences(html, "class=\"expiry\"") == expiries);
}

TEST_CASE("pictures: 1200 refused connections: nothing to show, one quiet row each, no picture") {
  const auto r = analyze(kStorm, Profile::rfc6298, true);
  REQUIRE(r.flows.size() == 1200);
  const auto senders = replay::senders_worst_first(r);
  const std::string html = html_of(r);
  CHECK(occurrences(html, "<details id=") == 0);
  CHECK(occurrences(html, "<svg ") == 0);
  const auto table = html.find("id=\"quiet-senders\"");
  REQUIRE(table != std::string::npos);
  CHECK(occurrences(html.substr(table), "<tr><td class=\"n\">") == senders.size());
  CHECK(html.size() < 4'000'000);  // a page to open, not a dump
}

TEST_CASE("pictures: kHtmlMaxSections senders with a section, one more is a row of the other senders' table") {
  // kHtmlMaxSections + 1 connections, each sender with one timer expiry (something to show).
  replay::Report r;
  r.first_time = replay::CaptureTime{std::chrono::seconds{1'000'000}};
  for (std::size_t i = 0; i < replay::limits::kHtmlMaxSections + 1; ++i) {
    replay::FlowReport f;
    f.id = i + 1;
    f.file = "synthetic";
    f.first_time = r.first_time;
    f.last_time = r.first_time + std::chrono::seconds{1};
    auto& s = f.senders[0];
    s.data_segments = 1;
    s.profile = "rfc6298";
    replay::TimelineEvent e;
    e.frame = 1;
    e.time = r.first_time;
    e.event = "send";
    e.len = 1;
    s.timeline.push_back(e);
    replay::TimeoutRecord t;
    t.frame = 2;
    t.time = r.first_time + std::chrono::seconds{1};
    s.timeouts.push_back(t);
    r.flows.push_back(std::move(f));
  }
  const std::string html = html_of(r);
  CHECK(occurrences(html, "<details id=") == replay::limits::kHtmlMaxSections);
  const auto table = html.find("id=\"other-senders\"");
  REQUIRE(table != std::string::npos);
  CHECK(occurrences(html.substr(table), "<tr><td class=\"n\">") == 1);
  CHECK(html.find("id=\"quiet-senders\"") == std::string::npos);
}

TEST_CASE("pictures: a short retransmission episode gets a zoomed picture; one spanning the connection does not") {
  // spurious-rto-eifel.pcap (lab): one RTO episode, short beside the
  // connection; linux-blackhole.pcap: its backoff chain fills the connection.
  const auto eifel = analyze("tests/captures/lab/spurious-rto-eifel.pcap", Profile::linux_kernel, true);
  std::size_t zoomed = 0;
  for (const auto& f : eifel.flows)
    for (std::size_t d = 0; d < 2; ++d) {
      const auto& s = f.senders[d];
      const auto all = replay::episodes(eifel, f, d);
      const auto z = replay::zoomed_episodes(eifel, f, d);
      CHECK(z.size() <= all.size());
      for (const auto& e : z) {
        ++zoomed;
        const double origin_to_first = replay::seconds_between(f.first_time, eifel.origin_of(f.file_index));
        const double whole = replay::seconds_between(f.last_time, eifel.origin_of(f.file_index)) - origin_to_first;
        CHECK(e.t1 - e.t0 < replay::limits::kZoomBelowShare * whole);  // short beside the connection
        // Its window holds its expiries, and the zoomed picture draws exactly those.
        std::size_t inside = 0;
        for (const auto& t : s.timeouts) {
          const double at = replay::seconds_between(t.time, eifel.origin_of(f.file_index));
          if (at >= e.t0 && at <= e.t1) ++inside;
          if (t.frame == e.first_frame || t.frame == e.last_frame) CHECK((at >= e.t0 && at <= e.t1));
        }
        const std::string svg = replay::sender_svg(eifel, f, d, true, e);
        CHECK(svg.find("data-zoom-t0=") != std::string::npos);
        // The cumulative ACK in force across the window is drawn, though no ACK arrives in it.
        CHECK(occurrences(svg, "class=\"ack\"") == 1);
        CHECK(occurrences(svg, "class=\"expiry\"") == inside);
      }
    }
  CHECK(zoomed == 1);
  const std::string html = html_of(eifel);
  CHECK(occurrences(html, "class=\"graph zoom\"") == zoomed);
  const auto bh = analyze(kBlackhole, Profile::rfc6298, true);
  REQUIRE(replay::episodes(bh, bh.flows[0], 0).size() == 1);
  CHECK(replay::zoomed_episodes(bh, bh.flows[0], 0).empty());
  CHECK(occurrences(html_of(bh), "class=\"graph zoom\"") == 0);
}

namespace {
// A report of one connection from 0 to 100 s whose client sent one segment
// at 0 s and expired its timer at each of `expiries` (at, wait, expiry
// number, frame; seconds).
struct Expiry {
  double at_s, wait_s;
  unsigned n;
  std::uint64_t frame;
};
replay::Report one_sender_with(const std::vector<Expiry>& expiries) {
  using namespace std::chrono;
  replay::Report r;
  r.first_time = replay::CaptureTime{seconds{1'000'000}};
  replay::FlowReport f;
  f.id = 1;
  f.first_time = r.first_time;
  f.last_time = r.first_time + seconds{100};
  auto& s = f.senders[0];
  s.data_segments = 1;
  replay::TimelineEvent e;
  e.time = r.first_time;
  e.event = "send";
  s.timeline.push_back(e);
  for (const Expiry& x : expiries) {
    replay::TimeoutRecord t;
    t.time = r.first_time + duration_cast<nanoseconds>(duration<double>(x.at_s));
    t.wait = replay::Interval::point(duration_cast<microseconds>(duration<double>(x.wait_s)));
    t.expiry = x.n;
    t.frame = x.frame;
    s.timeouts.push_back(t);
  }
  r.flows.push_back(f);
  return r;
}
}  // namespace

TEST_CASE("pictures: zoom windows are padded by kZoomPadShare (at least kZoomMinPad); at most kZoomMaxEpisodes") {
  // One sender over 100 s with 4 chains of one expiry each: chain k armed
  // at 10k s, expiring 0.1 s later (wait 100 ms); one more chain of two
  // expiries 1 s apart (armed 79 s, expiries 80 s and 81 s): 5 episodes,
  // all short; kZoomMaxEpisodes (3) of them zoomed.
  using namespace std::chrono;
  std::vector<Expiry> xs{{80.0, 1.0, 1, 800}, {81.0, 1.0, 2, 810}};
  for (std::uint64_t k = 1; k <= 4; ++k) xs.push_back({10.0 * static_cast<double>(k) + 0.1, 0.1, 1, k});
  const replay::Report r = one_sender_with(xs);
  const auto all = replay::episodes(r, r.flows[0], 0);
  REQUIRE(all.size() == 5);
  CHECK(all[0].expiries == 2);
  CHECK(all[0].t0 == doctest::Approx(79.0));  // armed 1 s before its first expiry
  CHECK(all[0].t1 == doctest::Approx(81.0));
  const auto z = replay::zoomed_episodes(r, r.flows[0], 0);
  REQUIRE(z.size() == 3);
  // The 2 s chain: padded by kZoomPadShare of 2 s (0.3 s) each side.
  const double pad = 2.0 * replay::limits::kZoomPadShare;
  CHECK(pad > duration<double>(replay::limits::kZoomMinPad).count());
  CHECK(z[0].t0 == doctest::Approx(79.0 - pad));
  CHECK(z[0].t1 == doctest::Approx(81.0 + pad));
  // A 0.1 s chain: kZoomPadShare of it (15 ms) is below kZoomMinPad (20 ms): padded by that.
  const double min_pad = duration<double>(replay::limits::kZoomMinPad).count();
  CHECK(0.1 * replay::limits::kZoomPadShare < min_pad);
  CHECK(z[1].t0 == doctest::Approx(10.0 - min_pad));
  CHECK(z[1].t1 == doctest::Approx(10.1 + min_pad));
}

TEST_CASE("pictures: an episode is zoomed below kZoomBelowShare of the picture's axis, not above") {
  // A connection from 0 to 100 s: the axis is [0, 101] (1 % padding; not
  // below 0). One expiry at 50 + x s after a wait of x s: the episode spans
  // x, padded by kZoomPadShare each side: 1.3 x. Under kZoomBelowShare
  // (0.25) of 101 s, 25.25 s: zoomed up to x = 19.42 s.
  const auto one_episode = [](double x) {
    const replay::Report r = one_sender_with({{50.0 + x, x, 1, 2}});
    return replay::zoomed_episodes(r, r.flows[0], 0).size();
  };
  REQUIRE(replay::limits::kZoomBelowShare == 0.25);  // the arithmetic above
  REQUIRE(replay::limits::kZoomPadShare == 0.15);
  CHECK(one_episode(19.3) == 1);  // 25.09 s < 25.25 s
  CHECK(one_episode(19.6) == 0);  // 25.48 s > 25.25 s
}

TEST_CASE("pictures: a picture's title names the file without its directories; the page honours --flow") {
  const auto r = analyze(kManyFlows, Profile::rfc6298, true);
  const std::string svg = replay::sender_svg(r, r.flows[2], 0, true);
  CHECK(svg.find("(many-flows.pcap, profile rfc6298)") != std::string::npos);
  CHECK(svg.find("tests/captures/lab/many-flows.pcap") == std::string::npos);
  replay::ReportView v;
  v.flow = 3;
  std::ostringstream page;
  replay::write_html_report(page, r, 0, v);
  const std::string html = page.str();
  // Flow 3's senders only (sections or rows), and the selection said.
  CHECK(html.find("Shown: what --flow 3 selects") != std::string::npos);
  CHECK(occurrences(html, "<details id=\"flow-3-") + occurrences(html, "<tr><td class=\"n\">3</td>") >= 1);
  CHECK(html.find("id=\"flow-4-") == std::string::npos);
  CHECK(html.find("<tr><td class=\"n\">4</td>") == std::string::npos);
}

namespace {

// A sender of n first transmissions of 100 bytes, 1 ms apart, no ACKs.
replay::Report synthetic(std::size_t n) {
  replay::Report r;
  r.first_time = replay::CaptureTime{std::chrono::seconds{1'000'000}};
  r.flows.resize(1);
  auto& f = r.flows[0];
  f.id = 1;
  f.file = "synthetic";
  f.first_time = r.first_time;
  f.last_time = r.first_time + std::chrono::milliseconds(n);
  auto& s = f.senders[0];
  s.profile = "rfc6298";
  s.data_segments = n;
  for (std::size_t i = 0; i < n; ++i) {
    replay::TimelineEvent e;
    e.frame = i + 1;
    e.time = r.first_time + std::chrono::milliseconds(i);
    e.event = "send";
    e.rel_seq = static_cast<std::uint32_t>(1 + 100 * i);
    e.len = 100;
    e.rto = std::chrono::seconds{1};
    s.timeline.push_back(e);
  }
  return r;
}

}  // namespace

TEST_CASE("pictures: a graph of kPlotMaxPoints transmissions is whole, one more is decimated and says so") {
  constexpr auto cap = replay::limits::kPlotMaxPoints;
  const auto whole = synthetic(cap);
  const std::string a = replay::sender_svg(whole, whole.flows[0], 0, true);
  CHECK(a.find("every transmission, ACK and estimator step drawn") != std::string::npos);
  CHECK(occurrences(a, "M") >= cap);  // one path move per transmission
  const auto more = synthetic(cap + 1);
  const std::string b = replay::sender_svg(more, more.flows[0], 0, true);
  // stride ceil(2001 / 2000) = 2: points 0, 2, ..., 2000 drawn = 1001.
  CHECK(b.find(fmt::format("first transmission: 1 in 2 drawn ({} of {})", cap / 2 + 1, cap + 1)) != std::string::npos);
  CHECK(b.find(fmt::format("estimator steps: 1 in 2 drawn, every backoff change kept ({} of {})", cap / 2 + 1, cap + 1)) !=
        std::string::npos);
  // The receiver sent nothing: no picture.
  CHECK(replay::sender_svg(more, more.flows[0], 1, true).empty());
}
