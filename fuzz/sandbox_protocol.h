// Internal to the sandbox: the frames a worker writes to its parent, and the worker's main loop.
// Parent -> worker: [u32 length][request]. Worker -> parent: [u8 kind][u32 length][payload],
// where the payload of a report is text lines "class ...", "detail ...", "op INDEX TYPE"
// (outermost first) and "pc 0xADDRESS" (innermost first).
#ifndef PARITY_FUZZ_SANDBOX_PROTOCOL_H_
#define PARITY_FUZZ_SANDBOX_PROTOCOL_H_

#include <unistd.h>

#include <cerrno>
#include <cstddef>

#include "fuzz/sandbox.h"

namespace parity::fuzz::sandbox_internal {

// Whole reads and writes on a pipe, retried after signals; false at its end or on an error. Both
// are async-signal-safe (the worker's handlers write their reports with WriteAll).
inline bool ReadAll(int fd, char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

inline bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

enum FrameKind : char {
  kResponse = 'R',     // the serve function's answer
  kSignal = 'S',       // a fatal signal
  kTimeout = 'T',      // the case timer fired
  kOutOfMemory = 'M',  // std::bad_alloc escaped the serve function
  kException = 'X',    // any other exception escaped it
};

// Serves requests from `in` until it closes, answering on `out`; never returns.
[[noreturn]] void WorkerMain(int in, int out, const Sandbox::Serve& serve,
                             const SandboxLimits& limits, const std::function<void()>& warm_up);

}  // namespace parity::fuzz::sandbox_internal

#endif  // PARITY_FUZZ_SANDBOX_PROTOCOL_H_
