// parity report DIR [-o OUT] [--history DIR...]
// The HTML discrepancy report of a campaign directory (reports/report.h): OUT/index.html (default
// DIR/report/index.html) and one page per finding; earlier campaigns given with --history make
// the trend.
#include <iostream>
#include <memory>

#include "core/io.h"
#include "reports/report.h"
#include "tools/command.h"

namespace parity::tools {
namespace {

struct ReportCommandOptions {
  std::string dir;
  std::string out;
  std::vector<std::string> history;
};

int Report(const ReportCommandOptions& options) {
  reports::ReportInput input = reports::ReadCampaign(options.dir);
  reports::AddHistory(options.history, &input);
  const std::string out = options.out.empty() ? options.dir + "/report" : options.out;
  const std::string index = reports::WriteReport(input, out);
  std::cout << "wrote " << Printable(index) << " (" << input.findings.size()
            << " finding page(s))\n";
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "report", "Write a campaign's HTML discrepancy report (index and one page per finding)",
    [](CLI::App* app) {
      app->footer(Examples({
          {"parity report parity-out", "parity-out/report/index.html and one page per finding"},
          {"parity report night-1129 -o www/parity --history night-1127 night-1128",
           "with a trend chart over the earlier nights"},
      }));
      auto options = std::make_shared<ReportCommandOptions>();
      app->add_option("dir", options->dir, "Campaign directory (parity fuzz --out DIR)")
          ->required();
      app->add_option("-o,--output", options->out,
                      "Directory for index.html and findings/ (default DIR/report)");
      app->add_option("--history", options->history,
                      "Earlier campaign directories, oldest first: the trend chart");
      return [options] { return Report(*options); };
    }});

}  // namespace
}  // namespace parity::tools
