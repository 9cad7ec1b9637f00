#include <replay/report/annotated_capture.hpp>

#include <bit>
#include <map>

#include <fmt/format.h>

#include <replay/analysis/rules.hpp>
#include <replay/input/pcapng_format.hpp>
#include <replay/input/record_source.hpp>
#include <replay/report/judgement_text.hpp>

namespace replay {

namespace {

using namespace pcapng;  // block types and option codes (input/pcapng_format.hpp)
constexpr std::uint8_t kNanoseconds = 9;  // if_tsresol: 10^-9 s

// A block under construction: its body in little-endian, then framed.
class Block {
 public:
  void u16(std::uint16_t v) { bytes(&v, 2); }
  void u32(std::uint32_t v) { bytes(&v, 4); }
  void u64(std::uint64_t v) { bytes(&v, 8); }
  void raw(const std::uint8_t* p, std::size_t n) {
    body_.insert(body_.end(), p, p + n);
    pad();
  }
  void option(std::uint16_t code, std::string_view value) {
    u16(code);
    u16(static_cast<std::uint16_t>(value.size()));
    raw(reinterpret_cast<const std::uint8_t*>(value.data()), value.size());
  }
  void end_options() {
    u16(kOptEnd);
    u16(0);
  }
  // Type, total length, body, total length again.
  void write(std::ostream& os, std::uint32_t type) const {
    const auto total = static_cast<std::uint32_t>(body_.size() + 12);
    put32(os, type);
    put32(os, total);
    os.write(reinterpret_cast<const char*>(body_.data()), static_cast<std::streamsize>(body_.size()));
    put32(os, total);
  }

 private:
  void bytes(const void* p, std::size_t n) {
    static_assert(std::endian::native == std::endian::little, "pcapng blocks are written in the host's order: LE here");
    const auto* b = static_cast<const std::uint8_t*>(p);
    body_.insert(body_.end(), b, b + n);
  }
  void pad() {
    while (body_.size() % 4) body_.push_back(0);
  }
  static void put32(std::ostream& os, std::uint32_t v) { os.write(reinterpret_cast<const char*>(&v), 4); }
  std::vector<std::uint8_t> body_;
};

// An option value fits 16 bits of length: a longer comment is cut (at a
// UTF-8 character boundary) and says so.
std::string fit_option(std::string s) {
  constexpr std::size_t kMax = 65535;
  if (s.size() <= kMax) return s;
  std::size_t cut = kMax - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  return s + "...";
}

// The opt_comment values of a pcapng packet block's options, as stored
// (code and length in the section's byte order; the end option or a
// truncated option ends them).
std::vector<std::string> input_comments(const RawRecord& rec) {
  std::vector<std::string> out;
  for_each_option(rec.options, rec.options_swapped, [&out](std::uint16_t code, std::span<const std::uint8_t> v) {
    if (code == kOptComment) out.emplace_back(reinterpret_cast<const char*>(v.data()), v.size());
  });
  return out;
}

}  // namespace

void add_finding_comments(FrameComments& out, const FlowReport& f, const Options& o, const ReportView& view) {
  for (const SenderReport& s : f.senders)
    for (const Judgement& j : s.findings) {
      if (!view.shows(j)) continue;
      out[j.frame].push_back(fmt::format("pcap-replay: {} {} ({}) {} -> {}: {}", to_string(j.level),
                                         to_string(j.rule), rule(j.rule).section, to_string(s.src), to_string(s.dst),
                                         describe(j, o)));
    }
}

std::variant<AnnotateResult, std::string> write_annotated_pcapng(const std::string& in, std::ostream& out,
                                                                 const FrameComments& comments,
                                                                 std::string_view application) {
  auto opened = RecordSource::open(in);
  if (auto* e = std::get_if<std::string>(&opened)) return *e;
  RecordSource& src = std::get<RecordSource>(opened);

  Block shb;
  shb.u32(kByteOrderMagic);
  shb.u16(1);  // version 1.0
  shb.u16(0);
  shb.u64(~std::uint64_t{0});  // section length not given
  shb.option(kShbUserAppl, application);
  shb.end_options();
  shb.write(out, kShb);

  AnnotateResult res;
  // The input's interface ids are kept: before a record of interface N,
  // every interface up to N is described (as the input describes it while
  // its section is being read; one the parser no longer knows, from an
  // earlier section no record used, as the record's own).
  const auto describe_interface = [&out](const RawInterface& f) {
    Block idb;
    idb.u16(static_cast<std::uint16_t>(linktype_of_dlt(f.dlt)));
    idb.u16(0);  // reserved
    idb.u32(f.snaplen);
    idb.option(kOptTsresol, std::string_view(reinterpret_cast<const char*>(&kNanoseconds), 1));
    idb.end_options();
    idb.write(out, kIdb);
  };
  std::uint64_t described = 0;  // interfaces 0 .. described - 1 are in the copy
  RawRecord rec;
  std::uint64_t frame = 0;
  std::int64_t last_ns = 0;
  while (src.next(rec, frame)) {
    std::vector<std::string> notes;
    // A block naming an interface its section does not describe (the
    // analysis skips it as malformed; numbered all the same): kept, on
    // interface 0, and said.
    const std::uint32_t on = rec.bad_interface ? 0 : rec.interface;
    if (rec.bad_interface)
      notes.push_back(fmt::format("pcap-replay: the input's block names interface {}, which its section does not "
                                  "describe; copied on interface 0",
                                  rec.interface));
    for (; described <= on; ++described) {
      const auto i = static_cast<std::uint32_t>(described);
      describe_interface(i == on && !rec.bad_interface ? RawInterface{rec.dlt, rec.snaplen}
                                            : src.interface(i).value_or(RawInterface{rec.dlt, rec.snaplen}));
    }
    std::int64_t ns = rec.time_ns;
    if (rec.no_timestamp) {
      ns = last_ns;
    } else if (rec.time_issue != TimeIssue::kNone) {
      ns = 0;
      notes.push_back("pcap-replay: the record's timestamp could not be read; written as time 0");
    }
    if (ns < 0) {  // before 1970: pcapng times are unsigned
      notes.push_back(fmt::format("pcap-replay: the record's time is {} ns before 1970; written as time 0", -ns));
      ns = 0;
    }
    last_ns = ns;
    Block epb;
    epb.u32(on);
    const auto t = static_cast<std::uint64_t>(ns);
    epb.u32(static_cast<std::uint32_t>(t >> 32));
    epb.u32(static_cast<std::uint32_t>(t));
    epb.u32(static_cast<std::uint32_t>(rec.data.size()));
    epb.u32(rec.wire_len);
    epb.raw(rec.data.data(), rec.data.size());
    // The comments the input's block had come first, kept as they were.
    const std::vector<std::string> kept = input_comments(rec);
    for (const std::string& text : kept) epb.option(kOptComment, text);
    const auto c = comments.find(frame);
    if (c != comments.end())
      for (const std::string& text : c->second) epb.option(kOptComment, fit_option(text));
    for (const std::string& text : notes) epb.option(kOptComment, text);
    const bool commented = c != comments.end() || !notes.empty() || !kept.empty();
    if (commented) epb.end_options();
    epb.write(out, kEpb);
    ++res.frames;
    if (commented) ++res.commented;
  }
  res.damage = src.damage();
  res.read_error = src.error();
  return res;
}

}  // namespace replay
