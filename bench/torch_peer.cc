#include "bench/torch_peer.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace parity::bench {

void TimeTorchPeer(benchmark::State& state, const std::string& script,
                   const std::string& arguments, int iterations) {
  const char* python = std::getenv("PARITY_BENCH_PYTHON");
  const std::string command = std::string(python ? python : "/usr/bin/python3") + " bench/" +
                              script + " " + arguments + " --iterations " +
                              std::to_string(iterations) + " 2>&1";
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
  if (status != 0 || seconds.size() != static_cast<size_t>(iterations)) {
    // The last line of its output says why (ModuleNotFoundError: No module named 'torch').
    while (!output.empty() && output.back() == '\n') output.pop_back();
    state.SkipWithError(("the PyTorch peer did not run (apt install python3-torch; "
                         "PARITY_BENCH_PYTHON picks the interpreter): " +
                         output.substr(output.rfind('\n') + 1))
                            .c_str());
    return;
  }
  size_t i = 0;
  for (auto _ : state) {
    state.SetIterationTime(seconds[i]);
    i = (i + 1) % seconds.size();
  }
}

}  // namespace parity::bench
