#pragma once
// Durations as the reports print them: milliseconds as a double.

#include <chrono>

namespace replay {

/// `d` in milliseconds (1500 us -> 1.5).
inline double ms(std::chrono::microseconds d) { return std::chrono::duration<double, std::milli>(d).count(); }

}  // namespace replay
