#include "core/threads.h"

// libgomp's entry point (oneDNN's OpenMP runtime on Debian), declared here rather than through
// <omp.h> so the file builds with compilers that ship no OpenMP header.
extern "C" void omp_set_num_threads(int num_threads);

namespace parity {

void SetComputeThreads(int threads) { omp_set_num_threads(threads < 1 ? 1 : threads); }

}  // namespace parity
