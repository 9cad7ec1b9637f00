// replay-bare-loop: the floor of any libpcap-based reader: opens a capture
// and counts its records with pcap_next_ex, nothing else. The replay
// benchmark times pcap-replay against it on the same file.
// Usage: replay-bare-loop FILE; prints "N packets"; exit 2 when FILE cannot be read.

#include <pcap/pcap.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: replay-bare-loop FILE\n");
    return 2;
  }
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* p = pcap_open_offline(argv[1], err);
  if (!p) {
    std::fprintf(stderr, "replay-bare-loop: %s\n", err);
    return 2;
  }
  pcap_pkthdr* h = nullptr;
  const u_char* data = nullptr;
  unsigned long long n = 0;
  int rc;
  while ((rc = pcap_next_ex(p, &h, &data)) == 1) ++n;
  if (rc == PCAP_ERROR) std::fprintf(stderr, "replay-bare-loop: %s\n", pcap_geterr(p));
  pcap_close(p);
  std::printf("%llu packets\n", n);
  return rc == PCAP_ERROR ? 2 : 0;
}
