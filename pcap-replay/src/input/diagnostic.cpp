#include <replay/input/diagnostic.hpp>

namespace replay {

std::string to_string(const Diagnostic& d) {
  std::string s = d.file + ": ";
  if (d.frame != 0) s += "frame " + std::to_string(d.frame) + ": ";
  return s + d.field + ": " + d.message;
}

std::string to_string(const std::string& file, const LostRange& l) {
  std::string s = file + ": bytes " + std::to_string(l.byte_begin);
  s += l.to_end ? std::string(" to the end of the file") : "-" + std::to_string(l.byte_end > 0 ? l.byte_end - 1 : 0);
  s += " lost after frame " + std::to_string(l.frames_before) + " (";
  if (!l.frames_lost)
    s += "an unknown number of frames";
  else
    s += std::to_string(*l.frames_lost) + (*l.frames_lost == 1 ? " frame" : " frames");
  return s + ")";
}

std::vector<std::string> live_lost_text(const InputFile& in) {
  std::vector<std::string> out;
  if (!in.kernel_drops) return out;  // a file
  const std::uint64_t n = *in.kernel_drops;
  if (n > 0)
    out.push_back(in.name + ": " + std::to_string(n) + (n == 1 ? " packet" : " packets") +
                  " dropped before pcap-replay saw them (pcap_stats: the capture buffer was full, or the interface "
                  "dropped them); the analysis misses them");
  if (in.read_error)
    out.push_back(in.name + ": the capture failed after frame " + std::to_string(in.frames) +
                  "; what came after is lost");
  return out;
}

}  // namespace replay
