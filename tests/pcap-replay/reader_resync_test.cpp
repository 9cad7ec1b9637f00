// Nothing lost silently: a damaged record length in the middle of a
// pcap, or a damaged block length in a pcapng, costs that record only; the
// reader resynchronises, the lost byte range is reported (CaptureStats, the
// JSON inputs entry, the text report, stderr) and the exit status is 2 with
// the whole report. Also: files cut short, gzip input, garbage after damage.
#include "reader_capture_builder.hpp"

#include <sys/wait.h>

#include <sstream>

#include <replay/analysis/analyzer.hpp>
#include <replay/input/reader_limits.hpp>
#include <replay/report/report_json.hpp>

using namespace readertest;
namespace fs = std::filesystem;

namespace {

Bytes slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::uint32_t le32_at(const Bytes& b, std::size_t off) {
  return std::uint32_t{b[off]} | (std::uint32_t{b[off + 1]} << 8) | (std::uint32_t{b[off + 2]} << 16) |
         (std::uint32_t{b[off + 3]} << 24);
}
void set_le32(Bytes& b, std::size_t off, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[off + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// The record offsets of a little-endian pcap, walked here from the headers.
std::vector<std::size_t> pcap_record_offsets(const Bytes& f) {
  std::vector<std::size_t> out;
  for (std::size_t off = 24; off + 16 <= f.size(); off += 16 + le32_at(f, off + 8)) out.push_back(off);
  return out;
}

const std::string kBlackhole = "tests/captures/linux-blackhole.pcap";
constexpr std::size_t kBlackholeFrames = 296;  // tshark -r linux-blackhole.pcap | wc -l; every frame is TCP

// The pcap-replay binary beside this test binary (build/bin or build/san/bin).
std::string cli() { return (fs::read_symlink("/proc/self/exe").parent_path() / "pcap-replay").string(); }

struct Run {
  int status = -1;
  std::string out, err;
};
Run run_cli(const std::string& args) {
  REQUIRE_MESSAGE(fs::exists(cli()), "pcap-replay binary not found at " << cli());
  const std::string err_file = write_temp({}, "stderr.txt");
  Run r;
  FILE* p = ::popen((cli() + " " + args + " 2>" + err_file).c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  const Bytes e = slurp(err_file);
  r.err.assign(e.begin(), e.end());
  return r;
}

// The shipped capture as a little-endian pcapng (SHB, one IDB with
// if_tsresol 9, one EPB per record), built from its records by the builder.
Bytes blackhole_as_pcapng() {
  const Bytes f = slurp(kBlackhole);
  REQUIRE(le32_at(f, 0) == 0xA1B2C3D4u);  // µs, little-endian
  std::vector<NgPacket> pkts;
  for (std::size_t off : pcap_record_offsets(f)) {
    const std::uint32_t cap = le32_at(f, off + 8);
    NgPacket p;
    p.ts = std::uint64_t{le32_at(f, off)} * 1'000'000'000 + std::uint64_t{le32_at(f, off + 4)} * 1000;
    p.orig_len = le32_at(f, off + 12);
    p.data.assign(f.begin() + static_cast<std::ptrdiff_t>(off + 16),
                  f.begin() + static_cast<std::ptrdiff_t>(off + 16 + cap));
    pkts.push_back(std::move(p));
  }
  return pcapng_file(static_cast<std::uint16_t>(le32_at(f, 20)), {std::uint8_t{9}}, pkts);
}

}  // namespace

TEST_CASE("resync: pcap record 150 with caplen 0x7fffffff loses that record only") {
  Bytes f = slurp(kBlackhole);
  const auto offs = pcap_record_offsets(f);
  REQUIRE(offs.size() == kBlackholeFrames);
  const std::size_t at = offs[149];  // frame 150
  const std::uint32_t cap = le32_at(f, at + 8);
  set_le32(f, at + 8, 0x7fffffff);
  const auto path = write_temp(f, "resync.pcap");
  const ReadResult r = read_all(path);
  CHECK(r.segments.size() == kBlackholeFrames - 1);  // 296 - the damaged one
  CHECK(r.stats.frames == kBlackholeFrames);          // numbering unchanged after the loss
  CHECK(r.stats.frames_lost == 1);
  REQUIRE(r.segments.size() > 150);
  CHECK(r.segments[148].frame == 149);
  CHECK(r.segments[149].frame == 151);  // Wireshark's number of the record after the damaged one
  REQUIRE(r.stats.lost.size() == 1);
  CHECK(r.stats.lost[0].byte_begin == at);
  CHECK(r.stats.lost[0].byte_end == at + 16 + cap);  // the next record header
  CHECK(r.stats.lost[0].frames_before == 149);
  CHECK(r.stats.lost[0].frames_lost == std::optional<std::uint64_t>(1));
  CHECK_FALSE(r.stats.lost[0].to_end);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].frame == 150);
  CHECK(r.diagnostics[0].field == "pcap");
  CHECK(r.diagnostics[0].message.find("2147483647") != std::string::npos);
  CHECK(r.diagnostics[0].message.find("bytes " + std::to_string(at) + "-" + std::to_string(at + 16 + cap - 1)) !=
        std::string::npos);
}

TEST_CASE("resync: the CLI exits 2 with the whole report, the lost range on stderr and in JSON") {
  Bytes f = slurp(kBlackhole);
  const std::size_t at = pcap_record_offsets(f)[149];
  const std::uint32_t cap = le32_at(f, at + 8);
  set_le32(f, at + 8, 0x7fffffff);
  const auto path = write_temp(f, "resync-cli.pcap");
  const std::string range = std::to_string(at) + "-" + std::to_string(at + 16 + cap - 1);
  const Run t = run_cli("check " + path);
  CHECK(t.status == 2);
  // The six timeouts of the shipped capture (README, make run) are all still found.
  CHECK(t.out.find("6 timeout(s)") != std::string::npos);
  CHECK(t.out.find("lost input") != std::string::npos);
  CHECK(t.out.find(path + ": bytes " + range + " lost after frame 149 (1 frame)") != std::string::npos);
  CHECK(t.err.find("lost input: " + path + ": bytes " + range) != std::string::npos);
  const Run j = run_cli("check --json " + path);
  CHECK(j.status == 2);
  const auto doc = nlohmann::json::parse(j.out);
  REQUIRE(doc["inputs"].size() == 1);
  const auto& lost = doc["inputs"][0]["lost"];
  REQUIRE(lost.size() == 1);
  CHECK(lost[0]["byte_begin"] == at);
  CHECK(lost[0]["byte_end"] == at + 16 + cap);
  CHECK(lost[0]["frames_before"] == 149);
  CHECK(lost[0]["frames_lost"] == 1);
  CHECK(doc["inputs"][0]["frames"] == kBlackholeFrames);
  CHECK(doc["inputs"][0]["tcp_segments"] == kBlackholeFrames - 1);
  // The undamaged file exits as before (0: no MUST departure, README).
  CHECK(run_cli("check " + kBlackhole).status == 0);
}

TEST_CASE("resync: pcapng block 150 with a bad total length loses that block only") {
  Bytes f = blackhole_as_pcapng();
  // SHB 28 bytes, IDB 32 bytes (20 + the 12-byte if_tsresol option and end), then the EPBs.
  std::size_t at = 28 + 32;
  for (int i = 0; i < 149; ++i) at += le32_at(f, at + 4);
  REQUIRE(le32_at(f, at) == 6u);  // an EPB
  const std::uint32_t len = le32_at(f, at + 4);
  SUBCASE("length 0x7fffffff") { set_le32(f, at + 4, 0x7fffffff); }
  SUBCASE("length a multiple of 4 that disagrees with the trailer") { set_le32(f, at + 4, len + 8); }
  const ReadResult r = read_all(write_temp(f, "resync.pcapng"));
  CHECK(r.segments.size() == kBlackholeFrames - 1);
  CHECK(r.stats.frames == kBlackholeFrames);
  REQUIRE(r.segments.size() > 150);
  CHECK(r.segments[149].frame == 151);
  REQUIRE(r.stats.lost.size() == 1);
  CHECK(r.stats.lost[0].byte_begin == at);
  CHECK(r.stats.lost[0].byte_end == at + len);
  CHECK(r.stats.lost[0].frames_lost == std::optional<std::uint64_t>(1));  // the type field says EPB
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].frame == 150);
  CHECK(r.diagnostics[0].field == "pcap");
}

TEST_CASE("resync: garbage to the end of the file after a damaged header loses the rest, named as such") {
  Bytes f = pcap_file(0xA1B2C3D4, 1,
                      {{1, 0, ether(0x0800, ipv4_tcp(false, 1, 0, wire::kSyn, 0))},
                       {1, 1, ether(0x0800, ipv4_tcp(true, 1, 2, wire::kSyn | wire::kAck, 0))}});
  const std::size_t second = 24 + 16 + le32_at(f, 24 + 8);
  set_le32(f, second + 8, 0x7fffffff);
  f.resize(f.size() + 100, 0xEE);  // 0xEEEEEEEE caplens: nothing plausible follows
  const ReadResult r = read_all(write_temp(f, "garbage.pcap"));
  CHECK(r.segments.size() == 1);
  REQUIRE(r.stats.lost.size() == 1);
  CHECK(r.stats.lost[0].to_end);
  CHECK(r.stats.lost[0].byte_begin == second);
  CHECK(r.stats.lost[0].byte_end == f.size());
  CHECK_FALSE(r.stats.lost[0].frames_lost.has_value());
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].frame == 2);
  CHECK(r.diagnostics[0].message.find("the rest of the file") != std::string::npos);
}

TEST_CASE("resync: a file cut in a record is a lost range to the end; the CLI exits 2") {
  Bytes f = slurp(kBlackhole);
  const auto offs = pcap_record_offsets(f);
  f.resize(offs[200] + 16 + 5);  // frame 201 keeps 5 of its bytes
  const auto path = write_temp(f, "cut.pcap");
  const ReadResult r = read_all(path);
  CHECK(r.segments.size() == 200);
  REQUIRE(r.stats.lost.size() == 1);
  CHECK(r.stats.lost[0].byte_begin == offs[200]);
  CHECK(r.stats.lost[0].byte_end == f.size());
  CHECK(r.stats.lost[0].to_end);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].frame == 201);
  CHECK(r.diagnostics[0].message.find("truncated") != std::string::npos);
  CHECK(run_cli("check " + path).status == 2);
}

TEST_CASE("gzip: a .pcap.gz and a .pcapng.gz read as their plain files; gzip on standard input too") {
  if (std::system("command -v gzip >/dev/null 2>&1") != 0) {
    if (std::getenv("CI")) FAIL("gzip is missing");
    MESSAGE("gzip is missing: test skipped");
    return;
  }
  const ReadResult plain = read_all(kBlackhole);
  const std::string gz = write_temp({}, "blackhole.pcap.gz");
  REQUIRE(std::system(("gzip -c " + kBlackhole + " > " + gz).c_str()) == 0);
  const ReadResult z = read_all(gz);
  REQUIRE(z.segments.size() == plain.segments.size());
  for (std::size_t i = 0; i < z.segments.size(); ++i) {
    CHECK(z.segments[i].frame == plain.segments[i].frame);
    CHECK(z.segments[i].tcp.seq == plain.segments[i].tcp.seq);
    CHECK(ns(z.segments[i]) == ns(plain.segments[i]));
  }
  CHECK(z.diagnostics.empty());
  const std::string ng = write_temp(blackhole_as_pcapng(), "blackhole.pcapng");
  REQUIRE(std::system(("gzip -c " + ng + " > " + ng + ".gz").c_str()) == 0);
  temp_files().paths.push_back(ng + ".gz");
  CHECK(read_all(ng + ".gz").segments.size() == kBlackholeFrames);
  // Standard input, gzip-compressed, through the CLI: the same six timeouts.
  const Run t = run_cli("check - < " + gz);
  CHECK(t.status == 0);
  CHECK(t.out.find("6 timeout(s)") != std::string::npos);
  // A gzip stream cut in the middle: what was inflated is read, the rest is a lost range.
  Bytes g = slurp(gz);
  g.resize(g.size() / 2);
  const ReadResult c = read_all(write_temp(g, "cut.pcap.gz"));
  CHECK(c.segments.size() > 0);
  CHECK(c.segments.size() < kBlackholeFrames);
  REQUIRE_FALSE(c.stats.lost.empty());
  CHECK(c.stats.lost.back().to_end);
  // One loss, told once: the record the cut stream stops in is where it
  // begins, its frames unknown (the rest of the compressed input held more),
  // and the one diagnostic names the stream's reason.
  CHECK(c.stats.lost.size() == 1);
  CHECK_FALSE(c.stats.lost.back().frames_lost.has_value());
  std::size_t cut_said = 0;
  for (const auto& d : c.diagnostics) cut_said += d.message.find("cut short") != std::string::npos ? 1 : 0;
  CHECK(cut_said == 1);
}

TEST_CASE("gzip: a stream cut after more than kMaxDiagnostics frame diagnostics is still one loss") {
  if (std::system("command -v gzip >/dev/null 2>&1") != 0) {
    if (std::getenv("CI")) FAIL("gzip is missing");
    MESSAGE("gzip is missing: test skipped");
    return;
  }
  // 12 000 frames, the first 10 050 with IP version 5 (each a skipped frame
  // with a diagnostic: past the 10 000 kept, the rest only counted); then a
  // cut of the compressed stream near its end, inside a record.
  std::vector<testcommon::Record> recs;
  for (std::uint32_t i = 0; i < 12'000; ++i) {
    Bytes f = ether(0x0800, ipv4_tcp(false, 1000 + i, 1, 0x10, 0));
    if (i < 10'050) f[14] = 0x55;
    recs.push_back(testcommon::Record{1'795'000'000 + i / 1000, (i % 1000) * 1000, f, 0});
  }
  const std::string plain = write_temp(pcap_file(testcommon::kPcapMagicMicros, 1, recs), "many-bad.pcap");
  const std::string gz = plain + ".gz";
  REQUIRE(std::system(("gzip -c " + plain + " > " + gz).c_str()) == 0);
  temp_files().paths.push_back(gz);
  Bytes g = slurp(gz);
  g.resize(g.size() * 9 / 10);
  const ReadResult c = read_all(write_temp(g, "many-bad-cut.pcap.gz"));
  REQUIRE(c.diagnostics.size() == replay::limits::kMaxDiagnostics);  // the cap was reached before the cut
  CHECK(c.stats.lost.size() == 1);                                    // one loss, not a record and a stream
  REQUIRE_FALSE(c.stats.lost.empty());
  CHECK(c.stats.lost.back().to_end);
  CHECK_FALSE(c.stats.lost.back().frames_lost.has_value());
}

TEST_CASE("compressed: zstd, xz and bzip2 read as the plain file, concatenated streams as one, on standard input too") {
  struct Tool {
    const char* name;     // the format, as the error messages name it
    const char* command;  // compresses its standard input to its standard output
    const char* suffix;
  };
  for (const Tool t : {Tool{"zstd", "zstd -q -c", ".zst"}, Tool{"xz", "xz -c", ".xz"}, Tool{"bzip2", "bzip2 -c", ".bz2"}}) {
    const std::string format = t.name;
    CAPTURE(format);
    if (std::system((std::string("command -v ") + t.name + " >/dev/null 2>&1").c_str()) != 0) {
      if (std::getenv("CI")) FAIL(t.name << " is missing (make deps installs it)");
      MESSAGE(t.name << " is missing: skipped");
      continue;
    }
    const ReadResult plain = read_all(kBlackhole);
    const std::string packed = write_temp({}, std::string("blackhole.pcap") + t.suffix);
    REQUIRE(std::system((std::string(t.command) + " < " + kBlackhole + " > " + packed).c_str()) == 0);
    const ReadResult z = read_all(packed);
    REQUIRE(z.segments.size() == kBlackholeFrames);
    for (std::size_t i = 0; i < z.segments.size(); ++i) {
      CHECK(z.segments[i].frame == plain.segments[i].frame);
      CHECK(z.segments[i].tcp.seq == plain.segments[i].tcp.seq);
      CHECK(ns(z.segments[i]) == ns(plain.segments[i]));
    }
    CHECK(z.diagnostics.empty());
    CHECK(z.stats.lost.empty());
    // The file as two streams one after the other (its first 10000 bytes,
    // then the rest, each compressed alone): read as one file, as the tool's
    // -d gives them.
    const std::string halves = write_temp({}, std::string("halves.pcap") + t.suffix);
    REQUIRE(std::system(("(head -c 10000 " + kBlackhole + " | " + t.command + "; tail -c +10001 " + kBlackhole + " | " +
                         t.command + ") > " + halves).c_str()) == 0);
    const ReadResult two = read_all(halves);
    CHECK(two.stats.lost.empty());
    CHECK(two.segments.size() == kBlackholeFrames);
    // Standard input: the same six timeouts (kBlackhole's, linux-blackhole.meta.json).
    const Run in = run_cli("check - < " + packed);
    CHECK(in.status == 0);
    CHECK(in.out.find("6 timeout(s)") != std::string::npos);
    // One byte flipped in the middle: the stream is refused or ends there,
    // named by its format; never read as if whole.
    Bytes bad = slurp(packed);
    bad[bad.size() / 2] ^= 0xff;
    const Run b = run_cli("check " + write_temp(bad, std::string("bad.pcap") + t.suffix));
    CHECK(b.status == 2);
    CHECK(b.err.find(std::string(t.name) + ": ") != std::string::npos);
  }
}

TEST_CASE("resync: kMaxCaplen is the largest record accepted; one byte more is damage") {
  using replay::limits::kMaxCaplen;
  auto file_with = [](std::uint32_t caplen) {
    // One SYN, then a record announcing `caplen` bytes (all present, zeros), then a SYN-ACK.
    std::vector<Record> recs{{1, 0, ether(0x0800, ipv4_tcp(false, 1, 0, wire::kSyn, 0))},
                             {1, 1, Bytes(caplen, 0)},
                             {1, 2, ether(0x0800, ipv4_tcp(true, 1, 2, wire::kSyn | wire::kAck, 0))}};
    return pcap_file(0xA1B2C3D4, 1, recs, 0);
  };
  const ReadResult keep = read_all(write_temp(file_with(kMaxCaplen), "max-caplen.pcap"));
  CHECK(keep.stats.lost.empty());
  CHECK(keep.stats.frames == 3);
  CHECK(keep.segments.size() == 2);
  const ReadResult cut = read_all(write_temp(file_with(kMaxCaplen + 1), "max-caplen-1.pcap"));
  REQUIRE(cut.stats.lost.size() == 1);
  CHECK(cut.stats.lost[0].byte_begin == 24 + 16 + 54);  // after the 54-byte SYN frame (14 + 20 + 20)
  CHECK(cut.stats.frames == 3);                          // record 2 lost; the SYN-ACK found again as frame 3
  CHECK(cut.segments.size() == 2);
}

TEST_CASE("resync: a candidate dated kResyncMaxJumpSeconds from the last good record is taken, one more second is not") {
  using replay::limits::kResyncMaxJumpSeconds;
  auto file_with = [](std::uint32_t jump) {
    const Bytes syn = ether(0x0800, ipv4_tcp(false, 1, 0, wire::kSyn, 0));
    // Frame 1 at 1000 s; a damaged header (caplen 0x7fffffff) with 8 junk bytes; then two records at 1000 + jump.
    Bytes f = pcap_file(0xA1B2C3D4, 1, {{1000, 0, syn}});
    put32le(f, 1000);
    put32le(f, 0);
    put32le(f, 0x7fffffff);
    put32le(f, 0x7fffffff);
    append(f, Bytes(8, 0xEE));
    const Bytes rest = pcap_file(0xA1B2C3D4, 1, {{1000 + jump, 0, syn}, {1000 + jump, 1, syn}});
    f.insert(f.end(), rest.begin() + 24, rest.end());
    return f;
  };
  const ReadResult keep = read_all(write_temp(file_with(kResyncMaxJumpSeconds), "jump.pcap"));
  CHECK(keep.segments.size() == 3);
  REQUIRE(keep.stats.lost.size() == 1);
  CHECK(keep.stats.lost[0].byte_end == 24 + 16 + 54 + 16 + 8);  // the first record after the junk
  const ReadResult lost = read_all(write_temp(file_with(kResyncMaxJumpSeconds + 1), "jump-1.pcap"));
  CHECK(lost.segments.size() == 1);
  REQUIRE(lost.stats.lost.size() == 1);
  CHECK(lost.stats.lost[0].to_end);
}
