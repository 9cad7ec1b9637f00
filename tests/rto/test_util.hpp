#pragma once
// Helpers shared by the rto tests: literal durations and instants.

#include <chrono>

#include "rto/clock.hpp"

namespace rto_test {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

/// An rto::Instant `ms` milliseconds after the epoch.
inline rto::Instant at_ms(long long ms) { return rto::Instant{milliseconds{ms}}; }
/// An rto::Instant `us` microseconds after the epoch.
inline rto::Instant at_us(long long us) { return rto::Instant{microseconds{us}}; }

}  // namespace rto_test
