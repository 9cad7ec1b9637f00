#include <replay/report/display_filter.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace replay {

namespace {

constexpr std::string_view kRead =
    "tcp.stream == N, frame.number == N (also !=, <, <=, >, >=), ip.addr == A, ipv6.addr == A, tcp.port == P, "
    "joined by && or and";
constexpr std::string_view kInstead =
    "to choose packets before the analysis, -f takes a BPF filter (tcpdump syntax), e.g. -f 'tcp port 80'";

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The terms between "&&" / "and" (outside nothing else: no parentheses, ||, !).
std::vector<std::string_view> split_and(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "&&") == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      i += 2;
      start = i;
      continue;
    }
    const bool word_start = i == 0 || std::isspace(static_cast<unsigned char>(s[i - 1]));
    if (word_start && s.compare(i, 3, "and") == 0 &&
        (i + 3 == s.size() || std::isspace(static_cast<unsigned char>(s[i + 3])))) {
      out.push_back(trim(s.substr(start, i - start)));
      i += 3;
      start = i;
      continue;
    }
    ++i;
  }
  out.push_back(trim(s.substr(start)));
  return out;
}

struct OpName {
  std::string_view text;
  DisplayFilter::Op op;
};
// Longest first, so "<=" is not read as "<".
constexpr std::array<OpName, 12> kOps{{{"==", DisplayFilter::Op::eq}, {"!=", DisplayFilter::Op::ne},
                                      {"<=", DisplayFilter::Op::le}, {">=", DisplayFilter::Op::ge},
                                      {"<", DisplayFilter::Op::lt},  {">", DisplayFilter::Op::gt},
                                      {" eq ", DisplayFilter::Op::eq}, {" ne ", DisplayFilter::Op::ne},
                                      {" le ", DisplayFilter::Op::le}, {" ge ", DisplayFilter::Op::ge},
                                      {" lt ", DisplayFilter::Op::lt}, {" gt ", DisplayFilter::Op::gt}}};

std::optional<std::uint64_t> number(std::string_view v) {
  // Wireshark reads "+3" as 3 (a sign before the digits); from_chars does not.
  if (v.size() > 1 && v.front() == '+' && std::isdigit(static_cast<unsigned char>(v[1]))) v.remove_prefix(1);
  std::uint64_t n = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc{} || p != v.data() + v.size() || v.empty()) return std::nullopt;
  return n;
}

bool compare(std::uint64_t a, DisplayFilter::Op op, std::uint64_t b) {
  switch (op) {
    case DisplayFilter::Op::eq: return a == b;
    case DisplayFilter::Op::ne: return a != b;
    case DisplayFilter::Op::lt: return a < b;
    case DisplayFilter::Op::le: return a <= b;
    case DisplayFilter::Op::gt: return a > b;
    case DisplayFilter::Op::ge: return a >= b;
  }
  return false;
}

}  // namespace

std::variant<DisplayFilter, std::string> DisplayFilter::parse(std::string_view text) {
  DisplayFilter f;
  f.text = std::string(text);
  const auto fail = [&](std::string_view why) {
    return fmt::format("-Y \"{}\": {}; pcap-replay reads {} ({})", text, why, kRead, kInstead);
  };
  if (trim(text).empty()) return fail("an empty filter");
  for (std::string_view term : split_and(text)) {
    if (term.empty()) return fail("&& with nothing on one side");
    if (term.find("||") != std::string_view::npos || term.find(" or ") != std::string_view::npos)
      return fail("|| (or) is not read");
    if (term.front() == '!' || term.front() == '(' || term.rfind("not ", 0) == 0)
      return fail("parentheses and negation are not read");
    std::size_t at = std::string_view::npos;
    const OpName* op = nullptr;
    for (const OpName& o : kOps)
      if (const std::size_t p = term.find(o.text); p != std::string_view::npos && (op == nullptr || p < at)) {
        at = p;
        op = &o;
      }
    if (op == nullptr) return fail(fmt::format("\"{}\" compares nothing (a bare field is not read)", term));
    const std::string_view field = trim(term.substr(0, at));
    const std::string_view value = trim(term.substr(at + op->text.size()));
    Term t;
    t.op = op->op;
    if (field == "tcp.stream" || field == "frame.number" || field == "tcp.port") {
      t.field = field == "tcp.stream" ? Field::tcp_stream : field == "frame.number" ? Field::frame_number : Field::tcp_port;
      const auto n = number(value);
      if (!n) return fail(fmt::format("{} takes a number, not \"{}\"", field, value));
      if (t.field == Field::tcp_port && *n > 65535) return fail(fmt::format("tcp.port {} is beyond 65535", *n));
      if (t.field != Field::frame_number && t.op != Op::eq)
        return fail(fmt::format("{} is read with == only (\"{}\")", field, term));
      t.number = *n;
    } else if (field == "ip.addr" || field == "ipv6.addr") {
      t.field = Field::ip_addr;
      const auto a = wire::IpAddress::parse(value);
      if (!a) return fail(fmt::format("\"{}\" is not an address", value));
      if (a->is_v6() != (field == "ipv6.addr"))
        return fail(fmt::format("{} takes an IPv{} address, not \"{}\"", field, field == "ip.addr" ? 4 : 6, value));
      if (t.op != Op::eq)
        return fail(fmt::format("{} is read with == only (Wireshark's != means \"some address differs\")", field));
      t.address = *a;
    } else {
      return fail(fmt::format("{} is not a field pcap-replay reads", field.empty() ? term : field));
    }
    f.terms.push_back(t);
  }
  return f;
}

bool DisplayFilter::shows(const FlowReport& f, std::optional<std::uint64_t> stream) const {
  for (const Term& t : terms) {
    switch (t.field) {
      case Field::tcp_stream:
        if (stream != t.number) return false;
        break;
      case Field::ip_addr:
        if (f.client.address != t.address && f.server.address != t.address) return false;
        break;
      case Field::tcp_port:
        if (f.client.port != t.number && f.server.port != t.number) return false;
        break;
      case Field::frame_number:
        break;
    }
  }
  const bool reads_frames =
      std::any_of(terms.begin(), terms.end(), [](const Term& t) { return t.field == Field::frame_number; });
  return !reads_frames || f.has_selected_frame;
}

bool DisplayFilter::shows_frame(std::uint64_t frame) const {
  for (const Term& t : terms)
    if (t.field == Field::frame_number && !compare(frame, t.op, t.number)) return false;
  return true;
}

std::optional<FrameSelection> DisplayFilter::frames() const {
  std::optional<FrameSelection> sel;
  for (const Term& t : terms) {
    if (t.field != Field::frame_number) continue;
    if (!sel) sel.emplace();
    switch (t.op) {
      case Op::eq: sel->lo = std::max(sel->lo, t.number), sel->hi = std::min(sel->hi, t.number); break;
      case Op::ne: sel->excluded.push_back(t.number); break;
      case Op::lt:
        if (t.number == 0) sel->lo = 1, sel->hi = 0;  // nothing
        else sel->hi = std::min(sel->hi, t.number - 1);
        break;
      case Op::le: sel->hi = std::min(sel->hi, t.number); break;
      case Op::gt:
        if (t.number == ~std::uint64_t{0}) sel->lo = 1, sel->hi = 0;
        else sel->lo = std::max(sel->lo, t.number + 1);
        break;
      case Op::ge: sel->lo = std::max(sel->lo, t.number); break;
    }
  }
  return sel;
}

bool DisplayFilter::reads_stream() const {
  return std::any_of(terms.begin(), terms.end(), [](const Term& t) { return t.field == Field::tcp_stream; });
}

std::optional<std::string> trailing_bpf(const std::vector<std::string>& given, bool (*exists)(const std::string&)) {
  // A quoted expression is one argument: its words count one by one.
  std::vector<std::string> args;
  for (const std::string& g : given) {
    if (exists(g)) {
      args.push_back(g);
      continue;
    }
    std::size_t i = 0;
    while (i < g.size()) {
      const std::size_t j = g.find(' ', i);
      const std::string w = g.substr(i, j == std::string::npos ? std::string::npos : j - i);
      if (!w.empty()) args.push_back(w);
      if (j == std::string::npos) break;
      i = j + 1;
    }
  }
  // The words a tcpdump expression begins with (pcap-filter(7) primitives and qualifiers).
  static constexpr std::array<std::string_view, 22> kWords{
      "tcp", "udp", "icmp", "icmp6", "ip", "ip6", "arp", "ether", "vlan", "host", "net", "port",
      "portrange", "src", "dst", "not", "and", "or", "less", "greater", "proto", "mpls"};
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (exists(args[i])) continue;
    if (std::find(kWords.begin(), kWords.end(), args[i]) == kWords.end()) return std::nullopt;
    // From here on, no argument is a file: the expression.
    std::string expr;
    for (std::size_t k = i; k < args.size(); ++k) {
      if (exists(args[k])) return std::nullopt;
      expr += (expr.empty() ? "" : " ") + args[k];
    }
    return expr;
  }
  return std::nullopt;
}

}  // namespace replay
