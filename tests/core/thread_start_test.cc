// A thread that cannot start is a resource running out (std::bad_alloc), not an abort: under a
// campaign's --case-memory limit, the DAG executor's pool and ParallelFor's helpers used to end the
// worker with std::terminate, and the campaign filed a `crash` blamed on ThreadPool.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <new>

#include "core/thread_pool.h"
#include "core/threads.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// The process's address space in bytes, from /proc/self/statm (its first field, in pages).
long AddressSpaceBytes() {
  long pages = 0;
  FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return -1;
  if (std::fscanf(statm, "%ld", &pages) != 1) pages = -1;
  std::fclose(statm);
  return pages < 0 ? -1 : pages * sysconf(_SC_PAGESIZE);
}

TEST(ThreadStart, APoolThatCannotStartItsThreadsThrowsBadAlloc) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan reserves terabytes of address space, so RLIMIT_AS cannot be applied";
#else
  ASSERT_GT(AddressSpaceBytes(), 0);
  // In a child, with room for a few pages but no 8 MiB thread stack: the pool must throw a
  // bad_alloc (exit 7), not terminate (SIGABRT), and not start (exit 0).
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const rlim_t limit = static_cast<rlim_t>(AddressSpaceBytes()) + (1 << 20);
    struct rlimit rl = {limit, limit};
    if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(5);
    try {
      ThreadPool pool(16);
    } catch (const std::bad_alloc& e) {
      _exit(std::string(e.what()).find("cannot start a thread") == 0 ? 7 : 6);
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 7);
#endif
}

TEST(ThreadStart, StartThreadRunsTheFunction) {
  int ran = 0;
  std::thread thread = StartThread([&ran](int value) { ran = value; }, 3);
  thread.join();
  EXPECT_EQ(ran, 3);
}

}  // namespace
}  // namespace parity::testing
