#pragma once
// Fuzz harness helpers: a fuzz input as a file the capture readers can open
// (they take a path), and the check that turns a broken invariant into a
// crash libFuzzer records.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace fuzz {

/// An anonymous in-memory file (memfd_create(2)) holding a copy of `bytes`,
/// reachable by path as /proc/self/fd/N, closed by the destructor. The
/// readers open the path themselves, so they get their own descriptor and
/// read from offset 0. Aborts (a harness bug, not a finding) when the kernel
/// refuses the memfd.
class MemoryFile {
 public:
  explicit MemoryFile(std::span<const std::uint8_t> bytes);
  ~MemoryFile();
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  /// "/proc/self/fd/N".
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

/// Reports a broken invariant: prints "fuzz invariant failed: WHAT" on
/// stderr and aborts, which libFuzzer records as a crash with its input.
[[noreturn]] void fail(const std::string& what);

/// fail(what) unless `ok`.
inline void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

}  // namespace fuzz
