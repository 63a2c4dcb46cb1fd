#include "reports/page.h"

#include "reports/html.h"

namespace parity::reports {
namespace {

constexpr char kStyle[] = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #202124; max-width: 1200px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; } h3 { font-size: 15px; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #dadce0; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f1f3f4; cursor: pointer; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f8f9fa; border: 1px solid #dadce0; padding: 8px; overflow: auto;
      max-height: 480px; white-space: pre-wrap; word-break: break-all; }
code { background: #f1f3f4; padding: 1px 4px; }
.bad { color: #c5221f; font-weight: 600; } .ok { color: #188038; font-weight: 600; }
.muted { color: #5f6368; }
section.finding { border: 1px solid #dadce0; border-radius: 6px; padding: 6px 12px; margin: 8px 0; }
.graph { overflow: auto; max-height: 720px; border: 1px solid #dadce0; }
.bar { background: #f29900; height: 12px; display: inline-block; }
)css";

// Sorts a table by the clicked column (numbers numerically); the page reads the same without it.
constexpr char kScript[] = R"js(
document.querySelectorAll('th').forEach(function (th) {
  th.addEventListener('click', function () {
    var table = th.closest('table'), body = table.tBodies[0], i = th.cellIndex;
    var rows = Array.prototype.slice.call(body.rows);
    var asc = th.dataset.asc !== '1'; th.dataset.asc = asc ? '1' : '0';
    rows.sort(function (a, b) {
      var x = a.cells[i].textContent, y = b.cells[i].textContent;
      var nx = parseFloat(x), ny = parseFloat(y);
      var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
      return asc ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
)js";

}  // namespace

std::string Page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
         Escape(title) + "</title><style>" + kStyle + "</style></head><body>\n" + body +
         "\n<script>" + kScript + "</script></body></html>\n";
}

}  // namespace parity::reports
