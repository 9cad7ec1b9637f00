#include "paths.hpp"

#include <cstdlib>

namespace testcommon {

std::filesystem::path repo_root() { return std::filesystem::current_path(); }

std::filesystem::path shared_dir() {
  if (const char* env = std::getenv("RTO_SHARED_DIR")) return env;
  return repo_root() / ".." / "shared";
}

}  // namespace testcommon
