#pragma once
// `pcap-replay check --html FILE`: the report as one self-contained HTML
// page (no network, no external scripts or styles, one small inline script
// that sorts the tables): the summary, a table of the connections and one of
// the findings (both sortable by any column), then one section per sender,
// the worst first (most MUST, then SHOULD findings, then timeouts, then
// retransmissions), each with its timer expiries and its picture
// (sender_graph.hpp). Past limits::kHtmlOpenSenders the sections are
// collapsed (<details>); past limits::kHtmlMaxSections the senders are rows
// of one table, without picture.

#include <ostream>
#include <vector>

#include <replay/analysis/flow_report.hpp>
#include <replay/report/report_view.hpp>

namespace replay {

/// One sender of the report, for ordering.
struct SenderRef {
  const FlowReport* flow;
  std::size_t dir;  ///< 0 client->server, 1 server->client
};

/// The senders that sent a data-bearing segment and `view` shows, worst
/// first: more MUST findings, then more SHOULD, then more timer expiries,
/// then more retransmissions; ties in flow and direction order.
std::vector<SenderRef> senders_worst_first(const Report& r, const ReportView& view = {});

/// Writes the page. `r` should come from an Analyzer with keep_timeline (the
/// pictures need the timeline; without it the sections have no picture).
/// `exit_status`: what the command exits with, stated on the page. `view`
/// picks the connections, senders and findings the tables and sections
/// show (--flow, --stream, --findings-only, --level); the summary cards
/// cover the whole input, as the text report's summary line does.
void write_html_report(std::ostream& os, const Report& r, int exit_status, const ReportView& view = {});

}  // namespace replay
