// libpcap front end: open with nanosecond precision, number every record,
// filter with pcap_offline_filter, decode frames, collect diagnostics.
#include "capture_reader.hpp"

#include <pcap/pcap.h>
#include <unistd.h>

#include <cstdio>
#include <span>

#include "decode_frame.hpp"
#include "decode_link.hpp"

namespace replay {

struct CaptureReader::Handle {
  pcap_t* pcap = nullptr;
  bpf_program filter{};
  bool has_filter = false;

  ~Handle() {
    if (has_filter) pcap_freecode(&filter);
    if (pcap != nullptr) pcap_close(pcap);
  }
};

CaptureReader::CaptureReader(CaptureReader&&) noexcept = default;
CaptureReader& CaptureReader::operator=(CaptureReader&&) noexcept = default;
CaptureReader::~CaptureReader() = default;

std::variant<CaptureReader, std::string> CaptureReader::open(const std::string& path_or_dash,
                                                             std::size_t file_index, const std::string& bpf) {
  CaptureReader r;
  r.file_ = path_or_dash;
  r.file_index_ = file_index;
  r.h_ = std::make_unique<Handle>();
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  if (path_or_dash == "-") {
    // Read a duplicate of fd 0 so that pcap_close() leaves stdin itself open.
    const int fd = ::dup(0);
    FILE* f = fd >= 0 ? ::fdopen(fd, "rb") : nullptr;
    if (f == nullptr) {
      if (fd >= 0) ::close(fd);
      return std::string("-: cannot read standard input");
    }
    r.h_->pcap = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    if (r.h_->pcap == nullptr) std::fclose(f);
  } else {
    r.h_->pcap = pcap_open_offline_with_tstamp_precision(path_or_dash.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
  }
  if (r.h_->pcap == nullptr) {
    return path_or_dash + ": cannot open: " + (errbuf[0] != 0 ? errbuf : "libpcap gave no reason");
  }
  r.linktype_ = pcap_datalink(r.h_->pcap);
  if (!link_type_supported(r.linktype_)) {
    return path_or_dash + ": link type " + std::to_string(r.linktype_) + " (" + r.linktype_name() +
           ") is not supported (EN10MB, LINUX_SLL, LINUX_SLL2, RAW, IPV4, IPV6, NULL, LOOP are)";
  }
  if (!bpf.empty()) {
    if (pcap_compile(r.h_->pcap, &r.h_->filter, bpf.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
      return path_or_dash + ": BPF filter \"" + bpf + "\" does not compile: " + pcap_geterr(r.h_->pcap);
    }
    r.h_->has_filter = true;
  }
  return r;
}

std::string CaptureReader::linktype_name() const {
  const char* n = pcap_datalink_val_to_name(linktype_);
  return n != nullptr ? n : "no libpcap name";
}

void CaptureReader::report(std::uint64_t frame, std::string field, std::string message) {
  diagnostics_.push_back(Diagnostic{file_, frame, std::move(field), std::move(message)});
}

std::optional<Segment> CaptureReader::next() {
  while (!done_ && h_ && h_->pcap != nullptr) {
    pcap_pkthdr* hdr = nullptr;
    const u_char* data = nullptr;
    const int rc = pcap_next_ex(h_->pcap, &hdr, &data);
    if (rc == PCAP_ERROR_BREAK) {  // -2: end of file
      done_ = true;
      break;
    }
    if (rc != 1) {
      // A record libpcap cannot read (truncated file, absurd caplen): the
      // frame it would have been; what came before stays.
      done_ = true;
      stats_.read_error = true;
      report(stats_.frames + 1, "pcap", std::string("read error, the rest of the file is skipped: ") +
                                           pcap_geterr(h_->pcap));
      break;
    }
    const std::uint64_t frame = ++stats_.frames;  // Wireshark counts every record from 1
    if (frame == 1 && hdr->ts.tv_usec >= 0 && hdr->ts.tv_usec < 1'000'000'000)  // frame.time_relative's origin
      stats_.first_frame_time =
          CaptureTime{std::chrono::nanoseconds{std::int64_t{hdr->ts.tv_sec} * 1'000'000'000 + hdr->ts.tv_usec}};
    if (h_->has_filter && pcap_offline_filter(&h_->filter, hdr, data) == 0) {
      ++stats_.filtered_out;
      continue;
    }
    // With PCAP_TSTAMP_PRECISION_NANO, tv_usec holds nanoseconds.
    const std::int64_t sec = hdr->ts.tv_sec;
    const std::int64_t nsec = hdr->ts.tv_usec;
    if (nsec < 0 || nsec >= 1'000'000'000) {
      ++stats_.malformed;
      report(frame, "frame.time", "the record's fractional seconds (" + std::to_string(nsec) +
                                      " ns) are not below 1 s; the frame is skipped");
      continue;
    }
    FrameDecode fd = decode_frame(linktype_, std::span<const std::uint8_t>(data, hdr->caplen), hdr->len);
    switch (fd.kind) {
      case FrameKind::kNotIp: ++stats_.non_ip; continue;
      case FrameKind::kNotTcp: ++stats_.non_tcp; continue;
      case FrameKind::kNonFirstFragment: ++stats_.fragments_skipped; continue;
      case FrameKind::kMalformed:
        ++stats_.malformed;
        report(frame, fd.error.field, fd.error.message);
        continue;
      case FrameKind::kTcp: break;
    }
    if (fd.warning) report(frame, fd.warning->field, fd.warning->message);
    Segment s = std::move(fd.segment);
    s.file_index = file_index_;
    s.frame = frame;
    s.time = CaptureTime{std::chrono::nanoseconds{sec * 1'000'000'000 + nsec}};
    ++stats_.tcp_segments;
    return s;
  }
  return std::nullopt;
}

}  // namespace replay
