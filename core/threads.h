// How many threads one op may use. Today that is oneDNN's OpenMP team (the float GEMMs); the
// intra-op pool joins it when it lands. A fuzz worker sets 1: the campaign runs one worker per
// core, and a forked child must not enter a parallel region its parent's OpenMP pool started.
#ifndef PARITY_CORE_THREADS_H_
#define PARITY_CORE_THREADS_H_

namespace parity {

// Applies to the calling thread and the threads it starts from now on.
void SetComputeThreads(int threads);

}  // namespace parity

#endif  // PARITY_CORE_THREADS_H_
