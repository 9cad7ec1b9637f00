#pragma once
// The capture reader's limits, stated once: how much of a damaged or
// crafted capture it believes, how far it follows tunnels, how many
// diagnostics and clock steps it keeps. The input room's own: the analysis
// (thresholds.hpp) builds on them, never the other way.

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace replay::limits {

using std::chrono::microseconds;

// ---- the capture reader ----------------------------------------------------

/// The largest captured length of one packet either parser accepts:
/// libpcap's MAXIMUM_SNAPLEN (262144 bytes, pcap-int.h), the snaplen tcpdump
/// and dumpcap use by default. A pcap record header claiming more is damage.
inline constexpr std::uint32_t kMaxCaplen = 262'144;
/// The largest pcapng block accepted (16 MiB, libpcap's limit for a block,
/// sf-pcapng.c): a block length above it, below 12 or not a multiple of 4 is damage.
inline constexpr std::uint32_t kMaxBlockBytes = 16u << 20;
/// When scanning for the next record after damage, a candidate pcap record
/// header is taken when it starts a chain of this many plausible headers,
/// each where the one before it ends (or a shorter chain ending exactly at the
/// end of the file): one random 16-byte match is likely in a large file, two
/// chained ones are not.
inline constexpr int kResyncConfirmRecords = 2;
/// A candidate pcap record found by the scan must be dated within this of the
/// last good record (captures do not jump by a day between two packets; a
/// random 32-bit word does).
inline constexpr std::uint32_t kResyncMaxJumpSeconds = 86'400;

/// The most clock steps back kept in CaptureStats::clock_steps and reported
/// as Diagnostics per file; clock_steps_back still counts them all (a
/// capture with jittering timestamps would otherwise fill memory with them).
inline constexpr std::size_t kMaxClockStepsListed = 100;
/// A frame dated at most this much before the frame read just before it is
/// reordering, not a clock step: two capture points or two interfaces of one
/// capture timestamping independently disagree by microseconds to a
/// millisecond (the shared captures: zeek__communityid-tcp.pcap steps back
/// 0.146 ms and 0.184 ms between its directions; the clock steps there are
/// 252 s, ndpi__avast.pcap, and days). Such frames keep their own times. A
/// larger step back is the capture clock stepping: the analysis re-bases the
/// later frames of that input (CaptureReader) and judges no interval across
/// the step.
inline constexpr microseconds kClockReorderMax{1'000};
/// A stretch of frames after a step back ends where a frame's own time
/// jumps forward (by more than kClockReorderMax) back to the clock from
/// before the step: it is dated, after the frame before the step, the
/// stretch's own length within this (the clock from
/// before the step went on through the stretch, and this frame came right
/// after it). Such a stretch was mis-dated (a frame or a few with a wrong
/// timestamp: suricata bug-1450-04's SYN-ACK is dated 21 years early between
/// two frames 45 us apart); the model goes on with the clock from before the
/// step, and no interval across either end is judged. Any other frame stays
/// on the stepped clock (a merged capture of streams far apart, as ndpi's
/// avast.pcap: its stream 7 goes on 14 s apart across the step's end). A
/// return after a longer gap cannot be told from an idle gap: the frames
/// stay on the stepped clock. One reordering allowance.
inline constexpr microseconds kClockReturnSlack = kClockReorderMax;
/// Steps back whose return is still watched for (the innermost ones; a
/// crafted file stepping back without end holds no more).
inline constexpr std::size_t kMaxClockStepsOpen = 16;
/// How many tunnel layers decode_frame follows before it gives up on a frame
/// (kNotTcp): deeper than any real deployment stacks them (an MPLS VPN in
/// GRE in VXLAN is 3), shallow enough that a crafted frame cannot make it loop.
inline constexpr int kMaxTunnelLayers = 8;

/// Reader diagnostics kept for the report; the rest are only counted
/// ("and N more"): a stream of garbage must not grow without limit.
inline constexpr std::size_t kMaxDiagnostics = 10'000;
/// A live capture with no packet waits at most this long (poll(2) on
/// libpcap's selectable descriptor) before it looks again at --duration and
/// at SIGINT/SIGTERM: the capture ends within this of either.
inline constexpr std::chrono::milliseconds kLivePollWait{100};

}  // namespace replay::limits
