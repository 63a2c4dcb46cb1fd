// The parent side of the sandbox: starting a worker, the request/answer protocol, and turning a
// dead worker's report (or its exit status, when it could send none) into an outcome.
#include "fuzz/sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/proto/error.h"
#include "fuzz/sandbox_protocol.h"
#include "fuzz/symbolize.h"

namespace parity::fuzz {
namespace {

// How long past its case timeout a worker may stay silent before it is killed: the worker's own
// timer reports a hang with the op and the stack; this is for one too stuck to run its handler.
constexpr double kKillGraceSeconds = 5;
// Frames of our own code that go into a crash's signature.
constexpr size_t kSignatureFrames = 3;
// Frames a report keeps.
constexpr size_t kMaxStackFrames = 24;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Whether `fd` becomes readable within `seconds`.
bool WaitReadable(int fd, double seconds) {
  const double until = Now() + seconds;
  for (;;) {
    struct pollfd entry {
      fd, POLLIN, 0
    };
    const double left = until - Now();
    const int n = poll(&entry, 1, left <= 0 ? 0 : static_cast<int>(left * 1000) + 1);
    if (n > 0) return true;
    if (n == 0 && Now() >= until) return false;
    if (n < 0 && errno != EINTR) return true;  // let the read see the error
  }
}

void ParseReport(const std::string& text, SandboxOutcome* outcome) {
  std::istringstream lines(text);
  std::string line;
  std::vector<uintptr_t> pcs;
  while (std::getline(lines, line)) {
    const size_t space = line.find(' ');
    const std::string key = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "class") {
      outcome->error_class = value;
    } else if (key == "detail") {
      outcome->detail = value;
    } else if (key == "op") {
      const size_t gap = value.find(' ');
      const int index = std::atoi(value.c_str());
      const std::string type = gap == std::string::npos ? "" : value.substr(gap + 1);
      if (outcome->op_path.empty()) outcome->op_index = index;
      outcome->op_path.push_back("op #" + std::to_string(index) + " (" + type + ")");
      outcome->op_type = type;
    } else if (key == "pc") {
      pcs.push_back(static_cast<uintptr_t>(std::strtoull(value.c_str(), nullptr, 16)));
    }
  }
  for (const CodeFrame& frame : Symbolize(pcs)) {
    // Below the serve function lies the worker's loop and the fork that made it: not the case's.
    if (frame.function.find("sandbox_internal::WorkerMain") != std::string::npos) break;
    if (outcome->stack.size() == kMaxStackFrames) break;
    outcome->stack.push_back(frame.ToString());
    if (frame.own && !frame.function.empty() && outcome->own_frames.size() < kSignatureFrames) {
      outcome->own_frames.push_back(frame.function);
    }
  }
}

std::string SignalName(int signal) {
  const char* name = sigabbrev_np(signal);  // "SEGV"
  return name != nullptr ? std::string("SIG") + name : "signal " + std::to_string(signal);
}

}  // namespace

bool SandboxEnforcesMemoryLimits() {
#if defined(__SANITIZE_ADDRESS__)
  return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return false;
#else
  return true;
#endif
#else
  return true;
#endif
}

const char* OutcomeKindName(SandboxOutcome::Kind kind) {
  switch (kind) {
    case SandboxOutcome::Kind::kOk:
      return "ok";
    case SandboxOutcome::Kind::kCrash:
      return "crash";
    case SandboxOutcome::Kind::kHang:
      return "hang";
    case SandboxOutcome::Kind::kResource:
      return "resource";
  }
  return "?";
}

Sandbox::Sandbox(Serve serve, SandboxLimits limits, std::function<void()> warm_up)
    : limits_(limits) {
  // A request written to a worker that just died must be an EPIPE to handle, not a SIGPIPE that
  // ends the campaign.
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    signal(SIGPIPE, SIG_IGN);
  }
  int requests[2], answers[2];
  PARITY_ENFORCE(pipe2(requests, O_CLOEXEC) == 0, ErrorKind::kIo,
                 "sandbox: pipe: ", std::strerror(errno));
  if (pipe2(answers, O_CLOEXEC) != 0) {
    close(requests[0]);
    close(requests[1]);
    PARITY_ENFORCE(false, ErrorKind::kIo, "sandbox: pipe: ", std::strerror(errno));
  }
  std::fflush(nullptr);  // nothing buffered is written twice
  pid_ = fork();
  if (pid_ == 0) {
    close(requests[1]);
    close(answers[0]);
    sandbox_internal::WorkerMain(requests[0], answers[1], serve, limits_, warm_up);
  }
  close(requests[0]);
  close(answers[1]);
  if (pid_ < 0) {
    close(requests[1]);
    close(answers[0]);
    PARITY_ENFORCE(false, ErrorKind::kIo, "sandbox: fork: ", std::strerror(errno));
  }
  to_worker_ = requests[1];
  from_worker_ = answers[0];
}

Sandbox::~Sandbox() {
  Kill();
  if (to_worker_ >= 0) close(to_worker_);
  if (from_worker_ >= 0) close(from_worker_);
}

void Sandbox::SignalKill() {
  if (pid_ > 0) kill(pid_, SIGKILL);
}

void Sandbox::Abandon() {
  SignalKill();
  in_flight_ = 0;
  pid_ = -1;
}

void Sandbox::Kill() {
  in_flight_ = 0;
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

void Sandbox::Send(const std::string& request) {
  PARITY_ENFORCE(alive(), ErrorKind::kInternal, "sandbox: a request to a dead worker");
  const uint32_t length = static_cast<uint32_t>(request.size());
  std::string frame(reinterpret_cast<const char*>(&length), 4);
  frame += request;
  if (in_flight_++ == 0) front_started_ = Now();
  // A worker that is gone does not read: Receive() sees its death.
  sandbox_internal::WriteAll(to_worker_, frame.data(), frame.size());
}

double Sandbox::SecondsToDeadline() const {
  if (in_flight_ == 0) return 0;
  const double left = SecondsToDeadlineOf(front_started_);
  return left > 0 ? left : 0;
}

SandboxOutcome Sandbox::Receive() {
  SandboxOutcome outcome;
  PARITY_ENFORCE(in_flight_ > 0 && alive(), ErrorKind::kInternal, "sandbox: nothing to receive");
  --in_flight_;
  if (!WaitReadable(from_worker_, SecondsToDeadlineOf(front_started_))) {
    Kill();
    outcome.kind = SandboxOutcome::Kind::kHang;
    outcome.error_class = "timeout";
    outcome.detail = "the worker did not answer within " +
                     std::to_string(limits_.case_timeout + kKillGraceSeconds) + " s and was killed";
    return outcome;
  }
  char header[5];
  if (!sandbox_internal::ReadAll(from_worker_, header, 5)) return Died(outcome);
  uint32_t length = 0;
  std::memcpy(&length, header + 1, 4);
  std::string payload(length, '\0');
  if (!sandbox_internal::ReadAll(from_worker_, payload.data(), length)) return Died(outcome);
  switch (header[0]) {
    case sandbox_internal::kResponse:
      outcome.response = std::move(payload);
      front_started_ = Now();  // the worker goes on with the next request
      return outcome;
    case sandbox_internal::kTimeout:
      outcome.kind = SandboxOutcome::Kind::kHang;
      break;
    case sandbox_internal::kOutOfMemory:
      outcome.kind = SandboxOutcome::Kind::kResource;
      break;
    default:
      outcome.kind = SandboxOutcome::Kind::kCrash;
  }
  ParseReport(payload, &outcome);
  return Died(outcome);
}

double Sandbox::SecondsToDeadlineOf(double started) const {
  return started + limits_.case_timeout + kKillGraceSeconds - Now();
}

SandboxOutcome Sandbox::Died(SandboxOutcome outcome) {
  in_flight_ = 0;  // the requests queued behind the fatal one die with the worker
  int status = 0;
  const pid_t pid = pid_;
  pid_ = -1;
  if (pid > 0 && waitpid(pid, &status, 0) == pid && outcome.error_class.empty()) {
    // No report: the worker was killed from outside (the kernel's OOM killer sends SIGKILL) or
    // something it ran called exit().
    outcome.kind = SandboxOutcome::Kind::kCrash;
    if (WIFSIGNALED(status)) {
      outcome.error_class = SignalName(WTERMSIG(status));
      outcome.detail = "the worker died without a report";
    } else {
      outcome.error_class = "exit " + std::to_string(WEXITSTATUS(status));
      outcome.detail = "the worker exited in the middle of a case";
    }
  }
  if (outcome.kind == SandboxOutcome::Kind::kOk) outcome.kind = SandboxOutcome::Kind::kCrash;
  return outcome;
}

SandboxOutcome RunSandboxed(const Sandbox::Serve& serve, const SandboxLimits& limits,
                            const std::string& request) {
  Sandbox sandbox(serve, limits);
  sandbox.Send(request);
  return sandbox.Receive();
}

}  // namespace parity::fuzz
