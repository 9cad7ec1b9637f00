#pragma once
// Where the tests find the repository and the shared data beside it.

#include <filesystem>

namespace testcommon {

/// The repository root: the working directory, where `make test` and
/// tests/run-all.sh start every test binary.
std::filesystem::path repo_root();

/// The shared data folder (traces, cases): $RTO_SHARED_DIR when set,
/// otherwise ../shared beside the repository root.
std::filesystem::path shared_dir();

}  // namespace testcommon
