#include "diagnostic.hpp"

namespace replay {

std::string to_string(const Diagnostic& d) {
  std::string s = d.file + ": ";
  if (d.frame != 0) s += "frame " + std::to_string(d.frame) + ": ";
  return s + d.field + ": " + d.message;
}

}  // namespace replay
