#include <replay/input/record_source.hpp>

#include <replay/input/pcapng_file.hpp>

#include "input/pcap_file.hpp"

namespace replay {

std::variant<std::unique_ptr<RecordParser>, std::string> open_record_parser(ByteStream& in, const std::string& name) {
  const auto head = in.peek(4);
  const std::string what = in.compressed() ? " (" + std::string(in.compression()) + "-compressed)" : "";
  if (head.empty() && !in.error().empty())  // nothing decompressed before the damage
    return name + ": cannot open: " + in.error() + "; nothing before it could be read";
  if (head.empty()) return name + ": cannot open: the file is empty" + what;
  if (is_pcap_magic(head)) return make_pcap_parser(in, name);
  if (is_pcapng_magic(head)) return make_pcapng_parser(in, name);
  return name + ": cannot open: unknown file format" + what + " (neither pcap nor pcapng)" +
         (in.error().empty() ? "" : "; " + in.error());
}

std::uint32_t linktype_of_dlt(int dlt) {
  constexpr std::uint32_t kLinktypeRaw = 101;
  constexpr int kDltRaw = 12;
  return dlt == kDltRaw ? kLinktypeRaw : static_cast<std::uint32_t>(dlt);
}

struct RecordSource::State {
  explicit State(ByteStream s) : in(std::move(s)) {}
  ByteStream in;
  std::unique_ptr<RecordParser> parser;
};

RecordSource::RecordSource(RecordSource&&) noexcept = default;
RecordSource& RecordSource::operator=(RecordSource&&) noexcept = default;
RecordSource::~RecordSource() = default;

std::variant<RecordSource, std::string> RecordSource::open(const std::string& path_or_dash) {
  auto stream = ByteStream::open(path_or_dash);
  if (auto* e = std::get_if<std::string>(&stream)) return *e;
  RecordSource r;
  r.st_ = std::make_unique<State>(std::move(std::get<ByteStream>(stream)));
  auto parser = open_record_parser(r.st_->in, path_or_dash);
  if (auto* e = std::get_if<std::string>(&parser)) return *e;
  r.st_->parser = std::move(std::get<std::unique_ptr<RecordParser>>(parser));
  return r;
}

bool RecordSource::next(RawRecord& rec, std::uint64_t& frame) {
  for (;;) {
    const ParseStep step = st_->parser->next(rec);
    if (step == ParseStep::kEnd) return false;
    if (step == ParseStep::kDamage) {
      damage_.push_back(st_->parser->damage());
      continue;
    }
    frame = ++frames_;
    return true;
  }
}

std::optional<RawInterface> RecordSource::interface(std::uint32_t index) const { return st_->parser->interface(index); }

std::string RecordSource::error() const { return st_->in.error(); }

}  // namespace replay
