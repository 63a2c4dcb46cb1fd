// parity reduce FINDING [-o OUT] [--seconds S]: reduces a saved finding's case while its
// signature holds (fuzz/reduce.h) and writes the reduced finding (default: reduced.pb beside it,
// with reduced.pbtxt). Exit 0 when it reduced (or the case was already minimal), 1 when the
// finding no longer reproduces, 2 on bad input.
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "core/io.h"
#include "fuzz/reduce.h"
#include "oracles/describe.h"
#include "oracles/finding.h"
#include "tools/command.h"

namespace parity::tools {
namespace {

struct ReduceCommandOptions {
  std::string finding;
  std::string out;
  double seconds = 10;
};

int Reduce(const ReduceCommandOptions& options) {
  Finding finding;
  LoadProtoFile(options.finding, &finding);
  PARITY_ENFORCE(!finding.oracle().empty(), ErrorKind::kInvalidNet, options.finding,
                 " names no oracle: is it a finding?");
  fuzz::ReduceOptions reduce;
  reduce.seconds = options.seconds;
  const fuzz::ReduceResult result = fuzz::ReduceFinding(finding, reduce);
  if (!result.reproduced) {
    std::cout << "[" << finding.oracle() << "] does not reproduce: nothing to reduce\n";
    return kExitDiscrepancies;
  }
  std::string out = options.out;
  if (out.empty()) {
    out = (std::filesystem::path(options.finding).parent_path() / "reduced.pb").string();
  }
  Finding reduced = result.reduced;
  reduced.set_repro_command("parity repro " + out);
  // A binary file gets a readable twin: "x.pb" -> "x.pbtxt", any other name -> "NAME.pbtxt"
  // ("out.bin" -> "out.bin.pbtxt", not "out..pbtxt"); written together, all or nothing.
  std::vector<std::pair<std::string, std::string>> files = {{out, ProtoFileBytes(out, reduced)}};
  if (!IsTextProtoPath(out)) {
    const bool pb = out.size() > 3 && out.compare(out.size() - 3, 3, ".pb") == 0;
    const std::string twin = (pb ? out.substr(0, out.size() - 3) : out) + ".pbtxt";
    files.emplace_back(twin, ProtoFileBytes(twin, reduced));
  }
  WriteFilesAtomic(files);
  std::cout << "reduced " << Printable(oracles::SignatureKey(finding.signature())) << ": "
            << result.before.ops << " -> " << result.after.ops << " ops, " << result.before.elements
            << " -> " << result.after.elements << " input elements (" << result.checks
            << " checks, " << result.kept << " kept, " << result.seconds << " s"
            << (result.timed_out ? ", time box reached" : "") << ")\nsaved " << Printable(out)
            << "\n";
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "reduce", "Reduce a finding's case while its signature holds", [](CLI::App* app) {
      app->footer(Examples({
          {"parity reduce parity-out/findings/SIGNATURE/case.pb",
           "reduce for 10 s; writes reduced.pb and reduced.pbtxt beside it"},
          {"parity reduce finding.pb -o small.pb --seconds 60",
           "a longer time box, another output"},
      }));
      auto options = std::make_shared<ReduceCommandOptions>();
      app->add_option("finding", options->finding, "Finding file (.pb or .pbtxt)")->required();
      app->add_option("-o,--out", options->out,
                      "Where the reduced finding goes (default: reduced.pb beside the finding)");
      app->add_option("--seconds", options->seconds, "The time box (default 10)")
          ->check(kPositiveSeconds);
      return [options] { return Reduce(*options); };
    }});

}  // namespace
}  // namespace parity::tools
