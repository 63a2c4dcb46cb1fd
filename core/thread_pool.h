// A fixed set of worker threads fed from one queue. Used by the DAG executor; created once per net
// so a run does not start threads. The workers take the compute threads (core/threads.h) of the
// thread that creates the pool.
#ifndef PARITY_CORE_THREAD_POOL_H_
#define PARITY_CORE_THREAD_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace parity {

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Submit(std::function<void()> task);
  int size() const { return static_cast<int>(workers_.size()); }

 private:
  void Work();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace parity

#endif  // PARITY_CORE_THREAD_POOL_H_
