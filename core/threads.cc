#include "core/threads.h"

// libgomp's entry point (oneDNN's OpenMP runtime on Debian), declared here rather than through
// <omp.h> so the file builds with compilers that ship no OpenMP header.
extern "C" void omp_set_num_threads(int num_threads);
extern "C" int omp_get_max_threads(void);

namespace parity {

void SetComputeThreads(int threads) { omp_set_num_threads(threads < 1 ? 1 : threads); }

int ComputeThreads() { return omp_get_max_threads(); }

}  // namespace parity
