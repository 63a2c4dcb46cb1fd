// One finding's page (reports/report.h): what is wrong, where, by how much, and how to replay it.
#include <google/protobuf/text_format.h>

#include <filesystem>

#include "core/io.h"
#include "core/proto/error.h"
#include "core/proto/utf8.h"
#include "reports/comparison_view.h"
#include "reports/html.h"
#include "reports/net_drawing.h"
#include "reports/page.h"
#include "reports/report.h"

namespace parity::reports {
namespace {

using Json = nlohmann::json;

// Past this, the readable case is cut (the .pbtxt beside the finding has all of it).
constexpr size_t kMaxCaseText = 200 * 1024;

std::string Fact(const std::string& name, const std::string& value) {
  return value.empty() ? ""
                       : "<tr><th>" + Escape(name) + "</th><td>" + Escape(value) + "</td></tr>";
}

// The net with the blamed op in red and what it feeds shaded, as inline SVG; a note instead when
// the net is too large to lay out.
std::string Drawing(const Finding& f) {
  const caffe2::NetDef& net = f.case_().net();
  DrawOptions options;
  if (f.blamed_op_index() >= 0 && f.blamed_op_index() < net.op_size()) {
    options.highlighted_op = f.blamed_op_index();
  }
  try {
    std::string svg = RenderNet(net, options, "svg");
    const size_t start = svg.find("<svg");
    if (start != std::string::npos) svg = svg.substr(start);
    return "<div class=\"graph\">" + svg + "</div>";
  } catch (const Error& error) {
    return "<p class=\"muted\">The net is not drawn: " + Escape(error.what()) + "</p>";
  }
}

std::string CaseText(const Case& c) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(c, &text);
  if (text.size() > kMaxCaseText) {
    text = Utf8Prefix(text, kMaxCaseText) + "\n… (cut; the whole case is in the .pbtxt)";
  }
  return "<pre class=\"case\">" + Escape(text) + "</pre>";
}

std::string Comparisons(const Finding& f) {
  if (f.comparisons_size() == 0) return "";
  // The gradient oracle compares vᵀJ per input (production against finite differences): its
  // elements are the Jacobian entries, summed along v, that differ.
  std::string out = f.signature().oracle() == "gradient"
                        ? "<h2>Gradient entries that differ (vᵀJ per input: production against "
                          "finite differences)</h2>"
                        : "<h2>What differs</h2>";
  for (const BlobComparison& comparison : f.comparisons()) out += ComparisonHtml(comparison);
  return out;
}

std::string CrashDetails(const Finding& f) {
  if (f.stack_size() == 0 && f.case_timeout() <= 0 && f.case_memory_mb() <= 0) return "";
  std::string out = "<h2>The worker</h2><table><tbody>";
  if (f.case_timeout() > 0) out += Fact("case timeout (s)", Number(f.case_timeout()));
  if (f.case_memory_mb() > 0) out += Fact("case memory (MB)", std::to_string(f.case_memory_mb()));
  out += "</tbody></table>";
  if (f.stack_size() > 0) {
    std::string stack;
    for (int i = 0; i < f.stack_size(); ++i) {
      stack += "#" + std::to_string(i) + " " + f.stack(i) + "\n";
    }
    out += "<h3>Stack (innermost first)</h3><pre>" + Escape(stack) + "</pre>";
  }
  return out;
}

std::string Reduction(const ReportFinding& f) {
  if (!f.info.contains("reduced")) {
    return "<h2>Reduction</h2><p class=\"muted\">Not reduced: the case below is as found.</p>";
  }
  const Json& before = f.info.value("smallest", Json::object());
  const Json& after = f.info["reduced"];
  return "<h2>Reduction</h2><p>" + Escape(before.value("ops", Json(0)).dump()) + " ops, " +
         Escape(before.value("elements", Json(0)).dump()) + " input elements → " +
         Escape(after.value("ops", Json(0)).dump()) + " ops, " +
         Escape(after.value("elements", Json(0)).dump()) + " input elements.</p>";
}

}  // namespace

std::string FindingPage(const ReportInput& input, const ReportFinding& f) {
  // The reduced finding when there is one: a smaller net to read, the same signature.
  const Finding& shown = f.reduced ? *f.reduced : f.first;
  const Signature& s = shown.signature();
  std::string facts =
      "<table class=\"facts\"><tbody>" + Fact("oracle", s.oracle()) +
      Fact("blamed", shown.blamed_op_path().empty() ? s.blamed_op_type() : shown.blamed_op_path()) +
      Fact("error class", s.error_class()) + Fact("dtype", s.dtype()) +
      Fact("backend", shown.backend()) + Fact("error kind", shown.error_kind());
  if (f.info.contains("count")) facts += Fact("seen", f.info["count"].dump() + " time(s)");
  facts += "</tbody></table>";
  const std::string repro = f.info.value("repro", shown.repro_command());
  const std::string body =
      "<p><a href=\"../index.html\">← " + Escape(input.title) + "</a></p><h1>" + Escape(f.key) +
      "</h1>" + facts + "<pre class=\"message\">" + Escape(shown.message()) + "</pre>" +
      (repro.empty() ? "" : "<p>Reproduce: <code>" + Escape(repro) + "</code></p>") +
      "<h2>The net" + (f.reduced ? " (reduced)" : "") + "</h2>" + Drawing(shown) +
      Comparisons(shown) + CrashDetails(shown) + Reduction(f) + "<h2>The case" +
      (f.reduced ? " (reduced)" : "") + "</h2>" + CaseText(shown.case_());
  return Page(f.key, body);
}

std::string WriteReport(const ReportInput& input, const std::string& out_dir) {
  // The report is a directory (index.html and findings/): a file in its place, or a parent that
  // cannot hold it, is named here rather than in the filesystem's words.
  PARITY_ENFORCE(!std::filesystem::exists(out_dir) || std::filesystem::is_directory(out_dir),
                 ErrorKind::kIo, "the HTML report goes into a directory (index.html and "
                 "findings/), and '", out_dir, "' is a file");
  std::error_code error;
  std::filesystem::create_directories(out_dir + "/findings", error);
  PARITY_ENFORCE(!error, ErrorKind::kIo, "cannot make the HTML report's directory '", out_dir,
                 "/findings': ", error.message());
  for (const ReportFinding& f : input.findings) {
    WriteFileAtomic(out_dir + "/findings/" + f.page, FindingPage(input, f));
  }
  const std::string index = out_dir + "/index.html";
  WriteFileAtomic(index, IndexPage(input));
  return index;
}

}  // namespace parity::reports
