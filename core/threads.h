// How many threads one op may use: oneDNN's OpenMP team (the float GEMMs and the conv family's
// primitives), and ParallelFor's split of large elementwise, broadcast, reduction, softmax, norm
// and gather work (core/parallel.h: the caller plus helper threads). A fuzz worker sets 1: the
// campaign runs one worker per core, and a forked child must not enter a parallel region its
// parent's OpenMP pool started.
#ifndef PARITY_CORE_THREADS_H_
#define PARITY_CORE_THREADS_H_

#include <new>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace parity {

// A thread that cannot start (no address space left for its stack under a memory limit, or the
// process's thread limit) is a resource running out, as an allocation that fails: a std::bad_alloc,
// which the fuzz worker files as `resource` and the command line as a resource-limit error (exit
// 2), where std::system_error would be an internal error, and a half-built pool of joinable
// threads std::terminate.
class ThreadStartFailure : public std::bad_alloc {
 public:
  explicit ThreadStartFailure(const std::system_error& cause)
      : message_(std::string("cannot start a thread: ") + cause.what()) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// std::thread(function...), with a failure to start it thrown as ThreadStartFailure.
template <typename... Args>
std::thread StartThread(Args&&... args) {
  try {
    return std::thread(std::forward<Args>(args)...);
  } catch (const std::system_error& error) {
    throw ThreadStartFailure(error);
  }
}

// Applies to the calling thread only (OpenMP keeps the setting per thread: a std::thread started
// later reads the process default, OMP_NUM_THREADS or the core count). ThreadPool hands it on: its
// workers take the setting of the thread that created the pool, so the DAG executor runs ops with
// the same team size as SimpleNet, and kernels whose sums are split by team size (oneDNN's
// convolutions) give the same bits on both.
void SetComputeThreads(int threads);

// The calling thread's setting: what SetComputeThreads last set on it, else the process default.
int ComputeThreads();

}  // namespace parity

#endif  // PARITY_CORE_THREADS_H_
