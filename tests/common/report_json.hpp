#pragma once
// check --json (schema 3) lists connections, each with its senders inside:
// the senders, each merged with its connection's fields (flow, file,
// tcp_stream, ...), in document order, for tests that look at senders.

#include <nlohmann/json.hpp>

namespace testcommon {

inline nlohmann::json report_senders(const nlohmann::json& doc) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : doc.at("flows"))
    for (const auto& s : c.at("senders")) {
      nlohmann::json m = c;
      m.erase("senders");
      m.update(s);
      out.push_back(std::move(m));
    }
  return out;
}

}  // namespace testcommon
