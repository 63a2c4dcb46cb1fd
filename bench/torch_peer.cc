#include "bench/torch_peer.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace parity::bench {
namespace {

// Timings a peer printed and no repetition has reported yet, by command. Starting Python and
// importing torch takes seconds, so one child runs the iterations of kBatchedRepetitions
// repetitions of a row and later repetitions take theirs from here.
constexpr int kBatchedRepetitions = 5;
std::map<std::string, std::vector<double>>& Unreported() {
  static auto* unreported = new std::map<std::string, std::vector<double>>();
  return *unreported;
}

// The folder of the peer scripts, ending in '/': $PARITY_BENCH_DIR when set (a bundle run outside
// Bazel, the .py files copied there); else bench/ under the working directory (bazel run's
// runfiles root, or the source tree); else the folder of this binary.
std::string ScriptDir(const std::string& script) {
  if (const char* dir = std::getenv("PARITY_BENCH_DIR"); dir != nullptr && *dir != '\0') {
    return std::string(dir) + "/";
  }
  std::error_code error;
  if (std::filesystem::exists("bench/" + script, error)) return "bench/";
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error && std::filesystem::exists(self.parent_path() / script, error)) {
    return self.parent_path().string() + "/";
  }
  return "bench/";
}

}  // namespace

void TimeTorchPeer(benchmark::State& state, const std::string& script, int64_t threads,
                   const std::string& arguments, int iterations) {
  const char* python = std::getenv("PARITY_BENCH_PYTHON");
  const std::string t = std::to_string(threads);
  const std::string key = script + " --threads " + t + " " + arguments;
  std::vector<double>& pending = Unreported()[key];
  if (pending.size() >= static_cast<size_t>(iterations)) {
    size_t i = 0;
    for (auto _ : state) state.SetIterationTime(pending[i++ % iterations]);
    pending.erase(pending.begin(), pending.begin() + iterations);
    return;
  }
  const int runs = iterations * kBatchedRepetitions;
  const std::string command =
      "OPENBLAS_NUM_THREADS=" + t + " OMP_NUM_THREADS=" + t + " MKL_NUM_THREADS=" + t + " " +
      std::string(python ? python : "/usr/bin/python3") + " " + ScriptDir(script) + key +
      " --iterations " + std::to_string(runs) + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::vector<double> seconds;
  std::string output;
  char line[4096];
  while (pipe != nullptr && std::fgets(line, sizeof(line), pipe) != nullptr) {
    output += line;
    char* end = nullptr;
    const double value = std::strtod(line, &end);
    if (end != line) seconds.push_back(value);
  }
  const int status = pipe == nullptr ? -1 : pclose(pipe);
  if (status != 0 || seconds.size() != static_cast<size_t>(runs)) {
    // The last line of its output says why (ModuleNotFoundError: No module named 'torch').
    while (!output.empty() && output.back() == '\n') output.pop_back();
    state.SkipWithError(("the PyTorch peer did not run (apt install python3-torch; "
                         "PARITY_BENCH_PYTHON picks the interpreter): " +
                         output.substr(output.rfind('\n') + 1))
                            .c_str());
    return;
  }
  size_t i = 0;
  for (auto _ : state) state.SetIterationTime(seconds[i++ % iterations]);
  pending.assign(seconds.begin() + iterations, seconds.end());
}

}  // namespace parity::bench
