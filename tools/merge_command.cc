// parity merge DIR... -o OUT: unites campaign corpora (shards of one nightly campaign, or runs of
// several nights) by signature into OUT/findings, as fuzz/corpus.h describes: counts add up, the
// first case is the lowest case index, the smallest and the reduced case the smallest there is.
// A DIR may be a campaign's out dir or its findings/ directory.
#include <filesystem>
#include <iostream>

#include "core/proto/error.h"
#include "fuzz/campaign.h"
#include "fuzz/corpus.h"
#include "oracles/describe.h"
#include "tools/command.h"

namespace parity::tools {
namespace {

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
};

std::string FindingsDir(const std::string& dir) {
  namespace fs = std::filesystem;
  if (fs::is_directory(fs::path(dir) / "findings")) return dir + "/findings";
  PARITY_ENFORCE(fs::is_directory(dir), ErrorKind::kIo, "merge: no campaign corpus at ", dir);
  return dir;
}

int Merge(const MergeOptions& options) {
  fuzz::MakeDirs(options.out + "/findings");
  fuzz::Corpus corpus(options.out + "/findings");
  for (const std::string& input : options.inputs) {
    PARITY_ENFORCE(std::filesystem::weakly_canonical(FindingsDir(input)) !=
                       std::filesystem::weakly_canonical(corpus.dir()),
                   ErrorKind::kBadArgument, "merge: ", input, " is the output corpus itself");
    corpus.Merge(FindingsDir(input));
  }
  int64_t findings = 0;
  for (const auto& [key, entry] : corpus.entries()) {
    findings += entry.count;
    std::cout << "  " << Printable(key) << ": " << entry.count << " (first case #"
              << entry.first.index << ", smallest " << entry.smallest_size.ops << " ops)\n";
  }
  std::cout << "merged " << options.inputs.size() << " corpora: " << findings << " finding(s), "
            << corpus.entries().size() << " signature(s) under " << corpus.dir() << "\n";
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "merge", "Unite campaign corpora (shards, nights) by signature", [](CLI::App* app) {
      auto options = std::make_shared<MergeOptions>();
      app->add_option("dirs", options->inputs, "Campaign out dirs (or their findings/)")
          ->required();
      app->add_option("-o,--out", options->out, "The merged campaign dir")->required();
      return [options] { return Merge(*options); };
    }});

}  // namespace
}  // namespace parity::tools
