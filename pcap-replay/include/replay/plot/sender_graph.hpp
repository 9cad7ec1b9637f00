#pragma once
// One sender's picture: a title, its time-sequence graph with the timer
// over it (time_sequence_graph.hpp) and its estimator graph below on the
// same time axis (estimator_graph.hpp), legends, and a line naming any
// series that was decimated. Used inline by the HTML report and written as
// files by `pcap-replay plot --svg DIR`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <replay/analysis/flow_report.hpp>

namespace replay {

/// True when the sender has something to draw: it sent a data-bearing
/// segment and its timeline was kept (Analyzer with keep_timeline).
bool has_graph(const SenderReport& s);

/// A retransmission episode of a sender: one chain of timer expiries (from
/// its first expiry to its last), from the arming its first expiry counted
/// from to its last expiry, in seconds since its file's frame 1.
struct Episode {
  double t0 = 0, t1 = 0;
  std::uint64_t first_frame = 0, last_frame = 0;  ///< its first and last expiry
  std::size_t expiries = 0;
};

/// The episodes of sender `dir` of flow `f` in capture order: its timer
/// expiries (data and SYN), a new episode at each chain's first expiry.
std::vector<Episode> episodes(const Report& r, const FlowReport& f, std::size_t dir);

/// The episodes worth a zoomed picture: padded (limits::kZoomPadShare,
/// kZoomMinPad), spanning less than limits::kZoomBelowShare of the whole
/// picture's time axis; the first limits::kZoomMaxEpisodes of them. The
/// windows returned are the padded ones.
std::vector<Episode> zoomed_episodes(const Report& r, const FlowReport& f, std::size_t dir);

/// The SVG of sender `dir` (0 client->server, 1 server->client) of flow `f`
/// of report `r`, times in seconds since its file's frame 1. `standalone`:
/// a complete SVG file (XML declaration, xmlns) for a renderer such as
/// rsvg-convert; otherwise an <svg> element to inline in HTML. `zoom`: only
/// that episode's window (from zoomed_episodes), the sequence and estimator
/// axes fitted to what happens in it. An empty string when !has_graph().
/// Valid SVG 1.1 (no scripts, no external references).
std::string sender_svg(const Report& r, const FlowReport& f, std::size_t dir, bool standalone,
                       const std::optional<Episode>& zoom = std::nullopt);

/// The file name `plot --svg` gives a sender's picture: "flow-12-c2s.svg" (c2s
/// = client->server, s2c = server->client).
std::string sender_svg_name(const FlowReport& f, std::size_t dir);

/// Writes sender_svg() of every sender with a graph into directory `dir`
/// (created if missing) as sender_svg_name(); returns the paths written, in
/// flow order. Throws std::runtime_error naming the path when the directory
/// cannot be created or a file cannot be written.
std::vector<std::string> write_sender_svgs(const Report& r, const std::string& dir);

}  // namespace replay
