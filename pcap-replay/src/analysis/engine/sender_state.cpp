#include "analysis/engine/sender_state.hpp"

namespace replay::engine {

std::string_view to_string(Handshake h) {
  switch (h) {
    case Handshake::none: return "none";
    case Handshake::mid_stream: return "mid-stream";
    case Handshake::syn_sent: return "syn-sent";
    case Handshake::syn_received: return "syn-received";
    case Handshake::established: return "established";
  }
  return "none";
}

std::string_view to_string(Recovery r) {
  switch (r) {
    case Recovery::open: return "open";
    case Recovery::probe_out: return "probe-out";
    case Recovery::fast: return "fast";
    case Recovery::rto: return "rto";
  }
  return "open";
}

Interval wait_since(const TimerArm& arm, CaptureTime t) {
  using std::chrono::duration_cast;
  using std::chrono::microseconds;
  return {duration_cast<microseconds>(t - arm.latest), duration_cast<microseconds>(t - arm.earliest)};
}

}  // namespace replay::engine
