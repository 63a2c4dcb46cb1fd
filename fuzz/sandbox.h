// A worker process that serves requests (in a campaign: a case index in, its CaseReport out), so a
// case that crashes, hangs or exhausts memory ends the worker, not the campaign. The parent knows
// which request it handed out, and what the worker was doing when it died comes back as an
// outcome: the signal, the op it was running (core/running_op.h) and the stack. The caller starts
// a new worker and goes on. (ClusterFuzz's and NNSmith's fork isolation.)
//
// The worker is a fork of the caller, so it has every registered backend, op and spec, test-only
// ones included, with nothing to pass on a command line. It runs ops on one thread
// (core/threads.h) and ignores SIGINT: a Ctrl-C stops the parent, which stops its workers.
#ifndef PARITY_FUZZ_SANDBOX_H_
#define PARITY_FUZZ_SANDBOX_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace parity::fuzz {

struct SandboxLimits {
  double case_timeout = 20;  // seconds one request may take; past it, it hung
  // How far a worker may grow its address space, in MB (setrlimit RLIMIT_AS above what it has at
  // its start); 0: no limit. Not enforced under AddressSanitizer, whose shadow memory reserves
  // terabytes of address space.
  int64_t memory_mb = 0;
};

// Whether memory limits are enforced in this build (not under AddressSanitizer).
bool SandboxEnforcesMemoryLimits();

struct SandboxOutcome {
  enum class Kind { kOk, kCrash, kHang, kResource };
  Kind kind = Kind::kOk;
  std::string response;  // kOk: what the serve function returned
  // What went wrong: "SIGSEGV", "SIGABRT", "timeout", "std::bad_alloc",
  // "uncaught std::runtime_error", "exit 3", ...
  std::string error_class;
  std::string detail;                   // the exception's what(), the fault address, ...
  std::vector<std::string> op_path;     // "op #2 (Do)", "op #0 (Add)": outermost first
  int op_index = -1;                    // the outermost op's position (-1: no op was running)
  std::string op_type;                  // the innermost op's type ("" when no op was running)
  std::vector<std::string> stack;       // symbolized frames, innermost first (signals only)
  std::vector<std::string> own_frames;  // the top frames in parity's own code: function names
};
const char* OutcomeKindName(SandboxOutcome::Kind kind);  // "ok", "crash", "hang", "resource"

class Sandbox {
 public:
  using Serve = std::function<std::string(const std::string& request)>;

  // Forks the worker; kIo if it cannot. The worker runs `warm_up` (if any) before its first
  // request, outside the case timer: set-up every case would otherwise pay the first time (a CUDA
  // context). The parent's deadline for that request keeps its grace of kKillGraceSeconds.
  Sandbox(Serve serve, SandboxLimits limits, std::function<void()> warm_up = {});
  ~Sandbox();  // kills and reaps the worker
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  // Queues a request. The worker answers in order; a caller keeps two in flight so the worker
  // never waits for the parent between cases.
  void Send(const std::string& request);
  int in_flight() const { return in_flight_; }
  // Readable when the worker has answered or died (for poll()).
  int fd() const { return from_worker_; }
  // Seconds until the oldest request in flight is declared hung (0 when past, or when idle).
  double SecondsToDeadline() const;
  // The outcome of the oldest request in flight: waits for it, up to its deadline. Unless it is
  // kOk the worker is gone afterwards (alive() is false) with the requests queued behind it, and
  // the caller starts a new Sandbox.
  SandboxOutcome Receive();
  bool alive() const { return pid_ > 0; }
  // Sends the worker SIGKILL without waiting for it: a pool signals every worker first and then
  // waits for them all (Kill or the destructor), so their exits overlap: a worker that has made a
  // CUDA context exits through the driver's teardown (on an H200 an interrupted campaign whose 16
  // workers were killed and reaped one by one took 4 s to stop).
  void SignalKill();
  // Kills the worker and leaves it unreaped (its zombie goes when this process exits): an
  // interrupted campaign stops without waiting for workers that are inside the CUDA driver.
  void Abandon();

 private:
  void Kill();
  double SecondsToDeadlineOf(double started) const;
  SandboxOutcome Died(SandboxOutcome outcome);  // reaps; fills what the exit status says

  SandboxLimits limits_;
  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  int in_flight_ = 0;
  double front_started_ = 0;  // when the worker started the oldest request (monotonic seconds)
};

// Runs one request in a fresh worker (`parity repro` of a crash).
SandboxOutcome RunSandboxed(const Sandbox::Serve& serve, const SandboxLimits& limits,
                            const std::string& request);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_SANDBOX_H_
