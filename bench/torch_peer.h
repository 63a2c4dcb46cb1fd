// PyTorch as a benchmark peer (Debian's python3-torch; never a dependency of the engine or of the
// tests). A peer script (bench/torch_*.py) runs the same work in a child process, times each
// iteration with its own loop and prints one line per iteration: the seconds it took. The
// benchmark reports those as manual time, so parity and the peer appear in one Google Benchmark
// table (and in bench/compare.py's) on the same machine, in the same run, with the same threads.
#ifndef PARITY_BENCH_TORCH_PEER_H_
#define PARITY_BENCH_TORCH_PEER_H_

#include <benchmark/benchmark.h>

#include <string>

namespace parity::bench {

// Runs `python3 bench/<script> <arguments> --iterations N` (PARITY_BENCH_PYTHON picks the
// interpreter, default /usr/bin/python3, where Debian puts torch) and reports its N timings as the
// state's iterations. Register the benchmark with UseManualTime()->Iterations(N). One child
// process serves five repetitions of a row (it runs 5 N iterations; the later repetitions report
// the next N each), since starting Python with torch takes seconds. When the peer cannot run (no
// torch), the row is skipped with the last line the script printed.
void TimeTorchPeer(benchmark::State& state, const std::string& script,
                   const std::string& arguments, int iterations);

}  // namespace parity::bench

#endif  // PARITY_BENCH_TORCH_PEER_H_
