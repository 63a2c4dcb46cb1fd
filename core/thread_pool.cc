#include "core/thread_pool.h"

#include "core/parallel.h"
#include "core/threads.h"

namespace parity {

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads < 1) num_threads = 1;
  workers_.reserve(num_threads);
  // The workers run ops with the creating thread's compute threads (core/threads.h): a fuzz
  // worker's one thread, not the process default, so the DAG executor matches SimpleNet; and with
  // its ParallelFor split (core/parallel.h), so a fuzz case's split runs under both executors.
  const int compute_threads = ComputeThreads();
  const ParallelSplit split = CurrentParallelSplit();
  try {
    for (int i = 0; i < num_threads; ++i) {
      workers_.push_back(StartThread([this, compute_threads, split] {
        SetComputeThreads(compute_threads);
        CurrentParallelSplit() = split;
        Work();
      }));
    }
  } catch (...) {
    // The destructor does not run for a constructor that throws: stop the workers that started,
    // or their joinable threads would end the process.
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (std::thread& worker : workers_) worker.join();
    throw;
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  ready_.notify_one();
}

void ThreadPool::Work() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace parity
