#include "core/mutant_switch.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace parity {
namespace mutant {
namespace {

SwitchState ReadEnvironment() {
  SwitchState state;
  const char* id = std::getenv("PARITY_MUTANT");
  if (id != nullptr && *id != '\0') {
    char* end = nullptr;
    long value = std::strtol(id, &end, 10);
    // A malformed id must not silently run the original code as if it were the mutant.
    if (*end != '\0' || value < 0 || value > 1 << 30) {
      std::fprintf(stderr, "parity: PARITY_MUTANT='%s' is not a mutant id\n", id);
      std::abort();
    }
    state.active = static_cast<int>(value);
  }
  const char* path = std::getenv("PARITY_MUTANT_COVERAGE");
  if (path != nullptr && *path != '\0') {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
      // MAP_SHARED: the marks reach the file even if this process is killed with SIGKILL, and
      // forked workers inherit the same mapping.
      void* map = mmap(nullptr, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (map != MAP_FAILED) {
        state.coverage = static_cast<unsigned char*>(map);
        state.coverage_size = static_cast<std::size_t>(st.st_size);
      }
    }
    if (fd >= 0) close(fd);  // the mapping outlives the descriptor
  }
  return state;
}

}  // namespace

const SwitchState& State() {
  static const SwitchState state = ReadEnvironment();
  return state;
}

}  // namespace mutant
}  // namespace parity
