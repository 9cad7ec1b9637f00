#pragma once
// `pcap-replay annotate IN -o OUT.pcapng`: a copy of the capture in pcapng
// with each finding as a comment on its frame (the Enhanced Packet Block's
// opt_comment, RFC draft-ietf-opsawg-pcapng section 3.5), so that Wireshark
// shows it in the packet list and details, and a display filter finds it:
// frame.comment contains "5.5". Every frame's bytes, lengths and time are
// the input's, in the same order, so the frame numbers are the same.

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <replay/analysis/flow_report.hpp>
#include <replay/analysis/options.hpp>
#include <replay/input/capture_format.hpp>
#include <replay/report/report_view.hpp>

namespace replay {

/// The comments to write, by frame number (Wireshark's), in order.
using FrameComments = std::map<std::uint64_t, std::vector<std::string>>;

/// Adds a comment for each finding of `f` that `view` shows, on its frame:
/// "pcap-replay: LEVEL RULE (SECTION) SRC -> DST: MESSAGE", the words of
/// judgement_text.hpp; `o`: the options the capture was judged under.
void add_finding_comments(FrameComments& out, const FlowReport& f, const Options& o, const ReportView& view);

/// What write_annotated_pcapng copied.
struct AnnotateResult {
  std::uint64_t frames = 0;     ///< packet records written (every one the input's parser read)
  std::uint64_t commented = 0;  ///< of them with at least one comment
  std::vector<Damage> damage;   ///< damaged stretches of the input, skipped (their frames are not in the copy)
  std::string read_error;       ///< why the input ended early, else empty
};

/// Reads capture file `in` (pcap or pcapng, compressed or not) record by record
/// and writes it to `out` as one pcapng section: one interface per interface
/// of the input (its link type and snapshot length; timestamps in ns), each
/// record as an Enhanced Packet Block with its bytes, original length and
/// time as read, its own comments (a pcapng input's opt_comment options,
/// kept first), and the comments `comments` holds for its frame. A record
/// whose time could not be read is written at time 0 with a comment saying
/// so; a pcapng Simple Packet Block (no time in the format) at the time of
/// the record before it. `application` is the section's shb_userappl.
/// Errors: the input cannot be opened ("PATH: cannot open: ..."); the
/// output is checked by the caller (out's state).
std::variant<AnnotateResult, std::string> write_annotated_pcapng(const std::string& in, std::ostream& out,
                                                                 const FrameComments& comments,
                                                                 std::string_view application);

}  // namespace replay
