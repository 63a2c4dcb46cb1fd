// PyTorch as a benchmark peer (Debian's python3-torch; never a dependency of the engine or of the
// tests). A peer script (bench/torch_*.py) runs the same work in a child process, times each
// iteration with its own loop and prints one line per iteration: the seconds it took. The
// benchmark reports those as manual time, so parity and the peer appear in one Google Benchmark
// table (and in bench/compare.py's) on the same machine, in the same run, with the same threads.
#ifndef PARITY_BENCH_TORCH_PEER_H_
#define PARITY_BENCH_TORCH_PEER_H_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

namespace parity::bench {

// Runs `python3 <dir>/<script> --threads T <arguments> --iterations N` (PARITY_BENCH_PYTHON picks
// the interpreter, default /usr/bin/python3, where Debian puts torch; PARITY_BENCH_DIR the folder
// holding the scripts, default bench/ under the working directory, else the binary's folder) and
// reports its N timings as the state's iterations. The child's OPENBLAS_NUM_THREADS,
// OMP_NUM_THREADS and MKL_NUM_THREADS are T too: Debian's torch does its GEMMs in OpenBLAS, whose
// own thread pool ignores torch.set_num_threads (measured with set_num_threads(1): the MLP forward,
// the LSTM and the 1x1 Conv ran on both cores, 2.0 CPU-seconds per second; with
// OPENBLAS_NUM_THREADS=1, 1.0). Register the benchmark with UseManualTime()->Iterations(N). One
// child process serves five repetitions of a row (it runs 5 N iterations; the later repetitions
// report the next N each), since starting Python with torch takes seconds. When the peer cannot run
// (no torch), the row is skipped with the last line the script printed.
void TimeTorchPeer(benchmark::State& state, const std::string& script, int64_t threads,
                   const std::string& arguments, int iterations);

}  // namespace parity::bench

#endif  // PARITY_BENCH_TORCH_PEER_H_
