#include "netstack/pcap_writer.hpp"

#include <pcap/pcap.h>

namespace netstack {

struct PcapWriter::Handles {
  pcap_t* dead = nullptr;
  pcap_dumper_t* dumper = nullptr;
};

PcapWriter::PcapWriter(const std::string& path, std::chrono::microseconds epoch)
    : h_(std::make_unique<Handles>()), path_(path), epoch_(epoch) {
  h_->dead = pcap_open_dead(DLT_RAW, 65535);
  if (h_->dead == nullptr) throw PcapWriteError("pcap: cannot create a raw-IP handle for " + path);
  h_->dumper = pcap_dump_open(h_->dead, path.c_str());
  if (h_->dumper == nullptr) {
    std::string reason = pcap_geterr(h_->dead);
    pcap_close(h_->dead);
    h_->dead = nullptr;
    throw PcapWriteError("pcap: cannot open " + path + " for writing: " + reason);
  }
}

PcapWriter::~PcapWriter() { close(); }

void PcapWriter::close() {
  if (!h_) return;
  if (h_->dumper != nullptr) {
    pcap_dump_flush(h_->dumper);
    pcap_dump_close(h_->dumper);
    h_->dumper = nullptr;
  }
  if (h_->dead != nullptr) {
    pcap_close(h_->dead);
    h_->dead = nullptr;
  }
}

void PcapWriter::write(rto::Instant t, std::span<const std::uint8_t> datagram) {
  if (!h_ || h_->dumper == nullptr) return;
  const std::int64_t us = (t.time_since_epoch() + epoch_).count();
  pcap_pkthdr hdr{};
  hdr.ts.tv_sec = static_cast<decltype(hdr.ts.tv_sec)>(us / 1'000'000);
  hdr.ts.tv_usec = static_cast<decltype(hdr.ts.tv_usec)>(us % 1'000'000);
  hdr.caplen = static_cast<bpf_u_int32>(datagram.size());
  hdr.len = static_cast<bpf_u_int32>(datagram.size());
  pcap_dump(reinterpret_cast<u_char*>(h_->dumper), &hdr, datagram.data());
  ++count_;
}

}  // namespace netstack
