#pragma once
// The named limits of the chain judge (chain_judge.cpp), each a property of
// the evidence a reading needs, stated once and tested at its boundary
// (tests/pcap-replay/engine_chain_judge_test.cpp).

#include <chrono>
#include <cstddef>

#include <replay/analysis/interval.hpp>

namespace replay::engine::limits {

/// A constant lateness read from a chain (a stack the profile does not
/// name) is relied on only when this many waits of one run pin it: two
/// differences that double (waits x + s, 2x + s, 4x + s). With fewer, a
/// chain that only such a constant explains cannot be told from one that
/// did not double: INFO "cannot tell".
inline constexpr std::size_t kInferredAdditiveWaits = 3;

/// The largest constant lateness read from a chain of a stack the profile
/// does not name: the slop the stacks known to add one add at every arm
/// (FreeBSD tcp_rexmit_slop and Darwin TCPTV_REXMTSLOP, 200 ms). Beyond it a
/// constant would explain any growth short of a doubling.
inline constexpr std::chrono::microseconds kMaxInferredSlop{200'000};

/// A constant lateness beyond kMaxInferredSlop (a stack's slop set higher,
/// as FreeBSD's net.inet.tcp.rexmit_slop can be) is read from a chain only
/// up to this share of R, the RTO at the chain's first expiry: then each
/// wait's growth (R 2^k from one expiry to the next) is at least twice the
/// constant, and the doubling stays what the waits show. A larger constant
/// would let a timer that barely backs off pass for one that doubles
/// (waits 1008, 3011 ms, then two more together 8023 ms: R = s = 504 ms).
inline constexpr Ratio kMaxSlopOfBase{1, 2};

/// A cap on the backoff is read only when at least this many expiries wait
/// at it (a plateau): one shorter wait at the end of a chain is as much a
/// missing doubling as a cap.
inline constexpr std::size_t kCapEstablishedWaits = 2;

/// The RFC 6298 2.5 minimum of a maximum RTO: a chain held at a cap below
/// it departs from 2.5.
inline constexpr std::chrono::microseconds kRfcMinMaxRto{60'000'000};

/// An expiry later than this factor of its prediction (plus the granularity)
/// gets an INFO "late" note (a sender may wait longer: never a departure).
inline constexpr Ratio kLateFactor{3, 2};

/// Tail-loss probes of one chain whose two readings (probe or first expiry)
/// are weighed against each other; past this many (2^n readings) the later
/// ones are read as probes, the profile's default.
inline constexpr std::size_t kMaxProbeReadings = 3;

}  // namespace replay::engine::limits
