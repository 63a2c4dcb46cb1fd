// ParallelFor's threads: a process-wide set of helper threads that claim chunks from the caller.
//
// The caller posts the job, then claims and runs chunks itself from a shared counter; helpers that
// wake in time claim the others. The caller waits only for chunks a helper has claimed and is
// running, never for a helper to start: on a loaded machine (these 2-core machines are shared),
// a descheduled helper costs nothing but its share of the work, which the caller does instead.
//
// Why not OpenMP's team (what oneDNN uses; the first version of this file): its fork and join
// waits for every thread of the team to arrive, and libgomp's workers spin for a long time. On
// these 2-core machines shared with other tenants (load average 2.5-4), bench/elementwise_bench
// measured Add on 1M floats at 162 us on one thread and 155 us (median) on a two-thread team in a
// quiet minute, but 1,034 us (median of 9) in a busy one, Tanh 1.2 ms vs 4.8 ms: the spinning
// worker and the caller shared the one free core. With these helpers the worst busy-minute
// figures were 1.2-1.6x the one-thread time instead of 5x, and quiet-minute ones scale (Add on 1M
// floats 160 -> 76 us). Idle, both hand over in a few microseconds, which the threshold
// (parallel.h) covers. Nor core/thread_pool.h: its queue hands whole ops to sleeping workers, a
// 25-40 us condition-variable wake-up per task (measured beside OpenMP's 1 us fork and join).
#include "core/parallel.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <algorithm>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/threads.h"

namespace parity::parallel_internal {
namespace {

// How long a helper polls the queue after its last job, and the caller polls for chunks helpers
// are finishing, before sleeping on a condition variable: about 50 us of pause instructions, so
// back-to-back ops hand over chunks in well under a microsecond instead of a futex wake-up.
constexpr int kSpins = 20000;

// One step of a polling loop, the i-th: a pause instruction, and every 64th step a yield, so a
// poller that shares a core with the thread it waits for (another tenant holding the other core)
// hands it the core instead of spinning out its time slice.
inline void Pause(int i) {
  if (i % 64 == 63) {
    sched_yield();
    return;
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Set while a thread runs a chunk: a ParallelFor inside a chunk runs inline.
thread_local bool in_chunk = false;

struct Job {
  ChunkFunction fn;
  void* context;
  int64_t begin;
  int64_t n;
  int64_t chunks;
  std::atomic<int64_t> next{0};  // the next chunk to claim
  std::atomic<int64_t> done{0};  // chunks finished
  std::mutex mutex;
  std::condition_variable finished;
  std::vector<std::exception_ptr> errors;

  // Claims and runs chunks until none is left. Called by the caller and by helpers; after the
  // caller returned, a helper's claim fails, so fn and context are never touched again.
  void Work() {
    for (int64_t c = next.fetch_add(1); c < chunks; c = next.fetch_add(1)) {
      in_chunk = true;
      try {
        fn(context, begin + n * c / chunks, begin + n * (c + 1) / chunks);
      } catch (...) {
        errors[c] = std::current_exception();
      }
      in_chunk = false;
      if (done.fetch_add(1) + 1 == chunks) {
        std::lock_guard<std::mutex> lock(mutex);
        finished.notify_all();
      }
    }
  }
};

class Helpers {
 public:
  // Hands `job` to `count` helpers, starting helpers up to that many. Wakes sleeping helpers only;
  // spinning ones see the queue change.
  void Post(const std::shared_ptr<Job>& job, int count) {
    int wake = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (threads_ < count) {
        StartThread(&Helpers::Loop, this).detach();  // they live as long as the process
        ++threads_;
      }
      for (int i = 0; i < count; ++i) queue_.push_back(job);
      queued_.store(static_cast<int>(queue_.size()), std::memory_order_release);
      wake = std::min(count, sleepers_);
    }
    for (int i = 0; i < wake; ++i) ready_.notify_one();
  }

 private:
  void Loop() {
    for (;;) {
      for (int i = 0; i < kSpins && queued_.load(std::memory_order_acquire) == 0; ++i) Pause(i);
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ++sleepers_;
        ready_.wait(lock, [&] { return !queue_.empty(); });
        --sleepers_;
        job = std::move(queue_.front());
        queue_.pop_front();
        queued_.store(static_cast<int>(queue_.size()), std::memory_order_release);
      }
      job->Work();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::atomic<int> queued_{0};  // queue_.size(), readable without the lock
  int threads_ = 0;
  int sleepers_ = 0;
};

// Never destroyed (detached helpers may still wait on it at exit). A forked child starts with
// none: its parent's helpers did not come along (it would still finish every job alone).
Helpers* helpers = nullptr;
std::once_flag helpers_once;

Helpers& GetHelpers() {
  std::call_once(helpers_once, [] {
    helpers = new Helpers();
    pthread_atfork(nullptr, nullptr, [] { helpers = new Helpers(); });
  });
  return *helpers;
}

}  // namespace

void RunChunks(int64_t begin, int64_t end, int64_t grain, int threads, ChunkFunction fn,
               void* context) {
  const int64_t n = end - begin;
  if (in_chunk) {  // nested: this thread is already one of a split's workers
    fn(context, begin, end);
    return;
  }
  // Up to 4 chunks per thread, so a helper that starts late still finds work and one that is
  // descheduled mid-chunk holds the caller back by a smaller piece.
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(4 * int64_t{threads}, n / grain));
  if (chunks == 1) {
    fn(context, begin, end);
    return;
  }
  auto job = std::make_shared<Job>();
  job->fn = fn;
  job->context = context;
  job->begin = begin;
  job->n = n;
  job->chunks = chunks;
  job->errors.resize(chunks);
  GetHelpers().Post(job, static_cast<int>(std::min<int64_t>(threads, chunks)) - 1);
  job->Work();
  // A chunk a helper claimed is usually a few microseconds from done: poll before sleeping, as a
  // futex wake-up would cost more than the chunk.
  for (int i = 0; i < kSpins && job->done.load(std::memory_order_acquire) < chunks; ++i) Pause(i);
  if (job->done.load() < chunks) {
    std::unique_lock<std::mutex> lock(job->mutex);
    job->finished.wait(lock, [&] { return job->done.load() == chunks; });
  }
  for (const std::exception_ptr& error : job->errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace parity::parallel_internal
