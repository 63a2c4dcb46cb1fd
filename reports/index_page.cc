// The campaign's page (reports/report.h): settings, throughput, oracles, cases per op, the trend
// across earlier campaigns, and every finding by signature.
#include <algorithm>
#include <string>
#include <vector>

#include "core/proto/utf8.h"
#include "reports/html.h"
#include "reports/page.h"
#include "reports/report.h"

namespace parity::reports {
namespace {

using Json = nlohmann::json;

// A JSON value as table text: strings as they are, lists joined, objects compact.
std::string Text(const Json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return Number(value.get<double>());
  if (value.is_array()) {
    std::string out;
    for (const auto& item : value) out += (out.empty() ? "" : ", ") + Text(item);
    return out.empty() ? "all" : out;
  }
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string Row(const std::string& name, const std::string& value) {
  return "<tr><th>" + Escape(name) + "</th><td>" + Escape(value) + "</td></tr>";
}

std::string Settings(const Json& s) {
  if (s.empty()) return "";
  std::string rows;
  const auto add = [&](const char* label, const char* key) {
    if (s.contains(key)) rows += Row(label, Text(s[key]));
  };
  add("generator", "generator_version");
  add("seed", "seed");
  add("backend under test", "backend");
  if (s.contains("budget")) {
    const Json& b = s["budget"];
    rows +=
        Row("budget", b.value("cases", -1) >= 0 ? std::to_string(b.value("cases", -1)) + " cases"
                                                : Number(b.value("seconds", 0.0)) + " s");
  }
  add("ops", "ops");
  add("oracles", "oracles");
  add("jobs", "jobs");
  if (s.contains("shard")) {
    rows += Row("shard", std::to_string(s["shard"].value("index", 0)) + " / " +
                             std::to_string(s["shard"].value("count", 1)));
  }
  add("case timeout (s)", "case_timeout_seconds");
  add("case memory (MB, 0 = unlimited)", "case_memory_mb");
  add("workers replaced", "workers_replaced");
  add("interrupted", "interrupted");
  std::string out = "<h2>Campaign</h2><table class=\"settings\"><tbody>" + rows +
                    "</tbody></table><p>" + Escape(Text(s.value("cases", Json(0)))) + " cases in " +
                    Number(s.value("seconds", 0.0)) + " s (" +
                    Number(s.value("cases_per_second", 0.0)) + " cases/s), " + "<span class=\"" +
                    (s.value("findings", 0) > 0 ? "bad" : "ok") + "\">" +
                    Escape(Text(s.value("findings", Json(0)))) + " finding(s)</span>.</p>";
  if (s.contains("oracles_run")) {
    out +=
        "<h3>Oracles</h3><table><thead><tr><th>oracle</th><th>checked</th><th>not "
        "applicable</th></tr></thead><tbody>";
    for (const auto& [oracle, counts] : s["oracles_run"].items()) {
      out += "<tr><td>" + Escape(oracle) + "</td><td class=\"num\">" +
             Escape(Text(counts.value("checked", Json(0)))) + "</td><td class=\"num\">" +
             Escape(Text(counts.value("not_applicable", Json(0)))) + "</td></tr>";
    }
    out += "</tbody></table>";
  }
  return out;
}

// Findings and throughput per campaign, oldest first, the current one last: two small line charts.
std::string Trend(const ReportInput& input) {
  if (input.history.empty()) return "";
  std::vector<std::pair<std::string, Json>> runs = input.history;
  runs.emplace_back(input.source + " (this one)", input.summary);
  const auto chart = [&runs](const char* key, const char* label) {
    std::vector<double> values;
    for (const auto& [dir, summary] : runs) values.push_back(summary.value(key, 0.0));
    const double top = std::max(1.0, *std::max_element(values.begin(), values.end()));
    const int width = 480, height = 120, pad = 30;
    const double step = runs.size() > 1 ? double(width - 2 * pad) / (runs.size() - 1) : 0;
    std::string points, dots;
    for (size_t i = 0; i < values.size(); ++i) {
      const double x = pad + step * i, y = height - pad - (height - 2 * pad) * values[i] / top;
      points += Number(x) + "," + Number(y) + " ";
      dots += "<circle cx=\"" + Number(x) + "\" cy=\"" + Number(y) +
              "\" r=\"3\" fill=\"#1a73e8\"><title>" + Escape(runs[i].first) + ": " +
              Number(values[i]) + "</title></circle>";
    }
    return "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
           "\" height=\"" + std::to_string(height) + "\" role=\"img\"><line x1=\"" +
           std::to_string(pad) + "\" y1=\"" + std::to_string(height - pad) + "\" x2=\"" +
           std::to_string(width - pad) + "\" y2=\"" + std::to_string(height - pad) +
           "\" stroke=\"#999\"/><text x=\"2\" y=\"" + std::to_string(pad - 8) +
           "\" font-size=\"11\">max " + Number(top) + "</text><polyline fill=\"none\" " +
           "stroke=\"#1a73e8\" points=\"" + points + "\"/>" + dots + "</svg><figcaption>" +
           Escape(label) + ", oldest to newest</figcaption></figure>";
  };
  return "<h2>Trend over " + std::to_string(runs.size()) + " campaigns</h2>" +
         chart("findings", "findings per campaign") + chart("cases_per_second", "cases per second");
}

// Op x oracle: the cases holding each op type, and how many of them each oracle judged (a 0 is
// a gap, or an oracle that does not apply to the op: gradients of comparisons, say).
std::string Coverage(const Json& s) {
  if (!s.contains("cases_per_op") || s["cases_per_op"].empty()) return "";
  std::vector<std::string> oracles;
  if (s.contains("oracles_run")) {
    for (const auto& [oracle, counts] : s["oracles_run"].items()) oracles.push_back(oracle);
  }
  const Json matrix = s.value("cases_per_op_oracle", Json::object());
  std::string out = "<h2>Coverage</h2><details><summary>cases per op type and oracle (" +
                    std::to_string(s["cases_per_op"].size()) +
                    " op types)</summary><table class=\"coverage\"><thead><tr><th>op</th>"
                    "<th>cases</th>";
  for (const auto& oracle : oracles) out += "<th>" + Escape(oracle) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& [op, count] : s["cases_per_op"].items()) {
    out += "<tr><td>" + Escape(op) + "</td><td class=\"num\">" + Escape(Text(count)) + "</td>";
    const Json row = matrix.value(op, Json::object());
    for (const auto& oracle : oracles) {
      const int64_t n = row.value(oracle, int64_t{0});
      out += std::string("<td class=\"num") + (n == 0 ? " muted" : "") + "\">" + std::to_string(n) +
             "</td>";
    }
    out += "</tr>";
  }
  return out + "</tbody></table></details>";
}

std::string Sighting(const Json& info, const char* key) {
  if (!info.contains(key)) return "";
  return Text(info[key].value("time", Json(""))) + " (case " +
         Text(info[key].value("index", Json(-1))) + ")";
}

std::string Reduction(const ReportFinding& f) {
  if (!f.info.contains("reduced")) return "not reduced";
  return Text(f.info["smallest"].value("ops", Json(0))) + " → " +
         Text(f.info["reduced"].value("ops", Json(0))) + " ops";
}

std::string FindingsTable(const ReportInput& input) {
  std::string out = "<h2>Findings by signature</h2>";
  if (input.findings.empty()) return out + "<p class=\"ok\">None.</p>";
  out +=
      "<table class=\"findings\"><thead><tr><th>#</th><th>oracle</th><th>blamed</th><th>error "
      "class</th><th>dtype</th><th>count</th><th>first seen</th><th>last seen</th><th>reduced</th>"
      "</tr></thead><tbody>";
  for (size_t i = 0; i < input.findings.size(); ++i) {
    const ReportFinding& f = input.findings[i];
    const Signature& s = f.first.signature();
    out +=
        "<tr><td class=\"num\"><a href=\"findings/" + Escape(f.page) + "\">" +
        std::to_string(i + 1) + "</a></td><td>" + Escape(s.oracle()) + "</td><td>" +
        Escape(f.first.blamed_op_path().empty() ? s.blamed_op_type() : f.first.blamed_op_path()) +
        "</td><td>" + Escape(s.error_class()) + "</td><td>" + Escape(s.dtype()) +
        "</td><td class=\"num\">" + Escape(Text(f.info.value("count", Json(1)))) + "</td><td>" +
        Escape(Sighting(f.info, "first")) + "</td><td>" + Escape(Sighting(f.info, "last")) +
        "</td><td>" + Escape(Reduction(f)) + "</td></tr>";
  }
  out += "</tbody></table>";
  // One collapsed section per finding: a long campaign's page stays quick to open.
  for (size_t i = 0; i < input.findings.size(); ++i) {
    const ReportFinding& f = input.findings[i];
    std::string message = f.first.message();
    if (message.size() > 600) message = Utf8Prefix(message, 600) + " …";
    out += "<section class=\"finding\" id=\"finding-" + std::to_string(i + 1) +
           "\"><details><summary>#" + std::to_string(i + 1) + " " + Escape(f.key) +
           "</summary><pre>" + Escape(message) + "</pre><p>Repro: <code>" +
           Escape(f.info.value("repro", f.first.repro_command())) +
           "</code> · <a href=\"findings/" + Escape(f.page) +
           "\">the finding's page</a></p></details></section>";
  }
  return out;
}

}  // namespace

std::string IndexPage(const ReportInput& input) {
  const std::string body = "<h1>" + Escape(input.title) + "</h1><p class=\"muted\">" +
                           Escape(input.source) + "</p>" + Settings(input.summary) + Trend(input) +
                           FindingsTable(input) + Coverage(input.summary);
  return Page(input.title, body);
}

}  // namespace parity::reports
