#include <replay/report/input_counts.hpp>

namespace replay {

std::vector<const InputFile*> unusable_inputs(const Report& r) {
  std::vector<const InputFile*> out;
  for (const auto& in : r.inputs)
    if (!in.usable()) out.push_back(&in);
  return out;
}

bool is_unusable_reason(const Report& r, const Diagnostic& d) {
  if (!d.skipped) return false;
  for (const auto& in : r.inputs)
    if (!in.usable() && in.name == d.file && in.error == to_string(d)) return true;
  return false;
}

InputCounts input_counts(const Report& r) {
  InputCounts c;
  c.skipped = r.dropped_skipped;
  c.warned = r.dropped_warned;
  for (const auto& d : r.diagnostics) {
    if (!d.skipped)
      ++c.warned;
    else if (!is_unusable_reason(r, d))
      ++c.skipped;
  }
  for (const auto& in : r.inputs) c.unusable += in.usable() ? 0 : 1;
  return c;
}

std::optional<std::string> empty_input_note(const Report& r) {
  // (A shard with none of the input's connections still had some.)
  if (r.flow_count() != 0 || r.input_flows != 0 || r.inputs.empty()) return std::nullopt;
  bool any_usable = false;
  for (const auto& in : r.inputs) any_usable = any_usable || in.usable();
  if (!any_usable) return std::nullopt;  // the unusable files say it all
  if (!r.options.filter.empty()) return "no TCP segment matched the filter \"" + r.options.filter + "\"";
  return std::string("no TCP segment in the input");
}

}  // namespace replay
