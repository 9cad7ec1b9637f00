#pragma once
// Heap bytes in use by the test binary, for the memory tests:
// the global operator new and delete are replaced (heap_counter.cpp) to add
// and subtract the usable size of every block (malloc_usable_size), so the
// difference of two readings is what the code in between kept allocated,
// malloc's rounding included (what RSS pays), its per-block header excluded.

#include <cstddef>
#include <cstdint>

namespace replaytest {

/// Bytes allocated with operator new and not yet deleted, since the start.
std::int64_t heap_in_use();

}  // namespace replaytest
