#include "gpu/device_query.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace parity::gpu {
namespace {

// The answer on the pipe: int32 count, uint32 reason length, the reason's bytes.
bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

[[noreturn]] void ChildMain(int fd, DeviceCountAnswer (*query)()) {
  const DeviceCountAnswer answer = query();
  const int32_t count = answer.count;
  const uint32_t length = static_cast<uint32_t>(answer.reason.size());
  std::string frame(reinterpret_cast<const char*>(&count), 4);
  frame.append(reinterpret_cast<const char*>(&length), 4);
  frame += answer.reason;
  const bool written = WriteAll(fd, frame.data(), frame.size());
  // _exit: the parent's atexit handlers and static destructors (flushing its stdio buffers,
  // tearing down its thread pool) are not the child's to run.
  _exit(written ? 0 : 1);
}

// Reads until EOF, the deadline or an error; false on a timeout.
bool ReadUntilEof(int fd, double timeout_seconds, std::string* out) {
  const auto deadline_ms = static_cast<int64_t>(timeout_seconds * 1000);
  int64_t waited_ms = 0;
  char buffer[4096];
  for (;;) {
    pollfd pfd{fd, POLLIN, 0};
    constexpr int kSliceMs = 100;
    const int ready = poll(&pfd, 1, kSliceMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return true;  // an unusable pipe reads as a short answer
    if (ready == 0) {
      waited_ms += kSliceMs;
      if (waited_ms >= deadline_ms) return false;
      continue;
    }
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    out->append(buffer, static_cast<size_t>(n));
  }
}

std::string ExitDescription(int status) {
  if (WIFSIGNALED(status)) {
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended with wait status " + std::to_string(status);
}

}  // namespace

DeviceCountAnswer QueryDeviceCountInChild(DeviceCountAnswer (*query)(), double timeout_seconds) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return query();
  std::fflush(nullptr);  // nothing buffered is written twice (the child _exits, but be safe)
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return query();
  }
  if (pid == 0) {
    close(fds[0]);
    ChildMain(fds[1], query);
  }
  close(fds[1]);
  std::string bytes;
  const bool finished = ReadUntilEof(fds[0], timeout_seconds, &bytes);
  close(fds[0]);
  if (!finished) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  DeviceCountAnswer answer;
  if (!finished) {
    answer.reason = "the device query (a child process) did not answer within " +
                    std::to_string(static_cast<int>(timeout_seconds)) + " s and was killed";
    return answer;
  }
  uint32_t length = 0;
  if (bytes.size() >= 8) std::memcpy(&length, bytes.data() + 4, 4);
  if (bytes.size() < 8 || bytes.size() != 8 + static_cast<size_t>(length)) {
    answer.reason = "the device query (a child process) " + ExitDescription(status) +
                    " without an answer";
    return answer;
  }
  int32_t count = 0;
  std::memcpy(&count, bytes.data(), 4);
  answer.reason = bytes.substr(8);
  answer.count = count > 0 ? count : 0;
  if (answer.count == 0 && answer.reason.empty()) answer.reason = "the CUDA runtime reports no device";
  return answer;
}

}  // namespace parity::gpu
