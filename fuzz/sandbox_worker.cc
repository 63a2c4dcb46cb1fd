// The worker side of the sandbox: limits, handlers for fatal signals and the case timer, and the
// serve loop. The handlers run in a process that is going down, so they format their report into a
// static buffer with no allocation, write it with one write(2), and _exit.
#include <cxxabi.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <typeinfo>

#include "core/running_op.h"
#include "core/threads.h"
#include "fuzz/sandbox_protocol.h"
#include "fuzz/symbolize.h"

namespace parity::fuzz::sandbox_internal {
namespace {

int g_out = -1;
double g_case_timeout = 0;

// A report built without allocating: the handlers' only tool.
class Report {
 public:
  void Str(const char* s) {
    while (*s != '\0' && size_ < kCapacity) buffer_[size_++] = *s++;
  }
  // Text on one line: line breaks become spaces.
  void Line(const char* s) {
    for (; *s != '\0' && size_ < kCapacity; ++s) buffer_[size_++] = *s == '\n' ? ' ' : *s;
  }
  void Dec(long long value) {
    char digits[24];
    int n = 0;
    const bool negative = value < 0;
    unsigned long long v = negative ? 0ULL - static_cast<unsigned long long>(value) : value;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    if (negative) Str("-");
    while (n > 0 && size_ < kCapacity) buffer_[size_++] = digits[--n];
  }
  void Hex(uintptr_t value) {
    Str("0x");
    char digits[20];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[value % 16];
      value /= 16;
    } while (value != 0);
    while (n > 0 && size_ < kCapacity) buffer_[size_++] = digits[--n];
  }
  // One "op INDEX TYPE" line per entry of a running-op chain, outermost first.
  void RunningOps(const RunningOp* innermost) {
    const RunningOp* chain[UnwoundOps::kMaxUnwoundDepth];
    int depth = 0;
    for (const RunningOp* op = innermost; op != nullptr; op = op->outer) {
      if (depth == UnwoundOps::kMaxUnwoundDepth) {  // keep the innermost ones
        for (int i = 1; i < depth; ++i) chain[i - 1] = chain[i];
        --depth;
      }
      chain[depth++] = op;
    }
    for (int i = depth - 1; i >= 0; --i) Op(chain[i]->index, chain[i]->def->type().c_str());
  }
  void Op(int index, const char* type) {
    Str("op ");
    Dec(index);
    Str(" ");
    Str(type);
    Str("\n");
  }
  // The calling thread's stack, from the frame at `from_pc` on when it is on the stack (skipping
  // the handler and the signal trampoline).
  void Stack(uintptr_t from_pc) {
    void* pcs[64];
    const int n = backtrace(pcs, 64);
    int first = 0;
    for (int i = 0; i < n; ++i) {
      if (reinterpret_cast<uintptr_t>(pcs[i]) == from_pc) {
        first = i;
        break;
      }
    }
    for (int i = first; i < n; ++i) {
      Str("pc ");
      Hex(reinterpret_cast<uintptr_t>(pcs[i]));
      Str("\n");
    }
  }
  // Writes the frame and ends the worker.
  [[noreturn]] void SendAndExit(FrameKind kind, int exit_code) {
    char header[5];
    header[0] = kind;
    const uint32_t length = static_cast<uint32_t>(size_);
    std::memcpy(header + 1, &length, 4);
    WriteAll(g_out, header, 5);
    WriteAll(g_out, buffer_, size_);
    _exit(exit_code);
  }

 private:
  static constexpr size_t kCapacity = 16384;
  char buffer_[kCapacity];
  size_t size_ = 0;
};

Report g_report;  // static: a handler on a small alternate stack must not hold it

const char* SignalName(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGSYS:
      return "SIGSYS";
    default:
      return "signal";
  }
}

uintptr_t InterruptedPc(void* context) {
#if defined(__x86_64__)
  return static_cast<uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.pc);
#else
  (void)context;
  return 0;
#endif
}

void OnFatalSignal(int signal, siginfo_t* info, void* context) {
  g_report.Str("class ");
  g_report.Str(SignalName(signal));
  g_report.Str("\n");
  if (signal == SIGSEGV || signal == SIGBUS) {
    g_report.Str("detail fault address ");
    g_report.Hex(reinterpret_cast<uintptr_t>(info->si_addr));
    g_report.Str("\n");
  }
  g_report.RunningOps(CurrentRunningOp());
  g_report.Stack(InterruptedPc(context));
  g_report.SendAndExit(kSignal, 128 + signal);
}

// The case timer's signal is directed at the thread that runs cases, so the running op and the
// stack are the hung case's.
void OnCaseTimeout(int, siginfo_t*, void* context) {
  g_report.Str("class timeout\ndetail the case ran past ");
  g_report.Dec(static_cast<long long>(std::ceil(g_case_timeout * 1000)));
  g_report.Str(" ms\n");
  g_report.RunningOps(CurrentRunningOp());
  g_report.Stack(InterruptedPc(context));
  g_report.SendAndExit(kTimeout, 124);
}

// An exception that escaped the serve function: the op it left, from the unwinding record.
[[noreturn]] void ReportException(FrameKind kind, const std::string& error_class,
                                  const char* detail) {
  g_report.Str("class ");
  g_report.Str(error_class.c_str());
  g_report.Str("\ndetail ");
  g_report.Line(detail);
  g_report.Str("\n");
  const UnwoundOps& ops = LastUnwoundOps();
  for (int i = 0; i < ops.depth; ++i) g_report.Op(ops.index[i], ops.type[i]);
  g_report.SendAndExit(kind, 3);
}

void InstallHandlers() {
  // An alternate stack, so a stack overflow is reported too.
  static char alternate_stack[1 << 16];
  stack_t stack{};
  stack.ss_sp = alternate_stack;
  stack.ss_size = sizeof(alternate_stack);
  sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_sigaction = OnFatalSignal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS}) {
    sigaction(signal, &action, nullptr);
  }
  action.sa_sigaction = OnCaseTimeout;
  sigaction(SIGALRM, &action, nullptr);
  // Ctrl-C reaches the whole process group: the parent decides, and stops its workers.
  signal(SIGINT, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  // The first backtrace() loads the unwinder; a handler must not be the first.
  void* warm[2];
  backtrace(warm, 2);
}

void ApplyMemoryLimit(int64_t memory_mb) {
  if (memory_mb <= 0 || !SandboxEnforcesMemoryLimits()) return;
  // The limit is what the worker has (the fork's address space) plus the allowance.
  long pages = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%ld", &pages) != 1) pages = 0;
    std::fclose(statm);
  }
  const rlim_t limit = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) +
                       static_cast<rlim_t>(memory_mb) * 1024 * 1024;
  struct rlimit rl {
    limit, limit
  };
  setrlimit(RLIMIT_AS, &rl);
}

// Closes every descriptor but the standard ones and ours: a worker holding another worker's pipe
// ends would keep that worker's death from reaching the parent as an end of file.
void CloseOtherDescriptors(int in, int out) {
  struct rlimit rl {};
  getrlimit(RLIMIT_NOFILE, &rl);
  const int top =
      rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 65536 ? 65536 : static_cast<int>(rl.rlim_cur);
  for (int fd = 3; fd < top; ++fd) {
    if (fd != in && fd != out) close(fd);
  }
}

struct CaseTimer {
  timer_t id{};
  bool made = false;

  explicit CaseTimer(double seconds) {
    if (seconds <= 0) return;
    struct sigevent event {};
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = SIGALRM;
    event._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
    made = timer_create(CLOCK_MONOTONIC, &event, &id) == 0;
  }
  void Arm(double seconds) const {
    if (!made) return;
    struct itimerspec spec {};
    spec.it_value.tv_sec = static_cast<time_t>(seconds);
    spec.it_value.tv_nsec = static_cast<long>((seconds - std::floor(seconds)) * 1e9);
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
    timer_settime(id, 0, &spec, nullptr);
  }
  void Disarm() const {
    if (!made) return;
    struct itimerspec spec {};
    timer_settime(id, 0, &spec, nullptr);
  }
};

}  // namespace

void WorkerMain(int in, int out, const Sandbox::Serve& serve, const SandboxLimits& limits,
                const std::function<void()>& warm_up) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // a parent killed with -9 takes its workers along
  CloseOtherDescriptors(in, out);
  g_out = out;
  g_case_timeout = limits.case_timeout;
  SetComputeThreads(1);
  InstallHandlers();
  // Before any case is timed, and before the memory limit, which counts from what the worker has
  // once it is set up (a CUDA context reserves address space). A failure here is left for the
  // first case to meet and report.
  if (warm_up) {
    try {
      warm_up();
    } catch (...) {
    }
  }
  ApplyMemoryLimit(limits.memory_mb);
  const CaseTimer timer(limits.case_timeout);
  std::string request;
  for (;;) {
    uint32_t length = 0;
    if (!ReadAll(in, reinterpret_cast<char*>(&length), 4)) _exit(0);  // the parent is done
    request.resize(length);
    if (!ReadAll(in, request.data(), length)) _exit(0);
    ClearUnwoundOps();
    std::string response;
    timer.Arm(limits.case_timeout);
    try {
      response = serve(request);
    } catch (const std::bad_alloc& error) {
      ReportException(kOutOfMemory, "std::bad_alloc", error.what());
    } catch (const std::exception& error) {
      ReportException(kException, "uncaught " + Demangle(typeid(error).name()), error.what());
    } catch (...) {
      const std::type_info* type = abi::__cxa_current_exception_type();
      ReportException(kException,
                      "uncaught " + (type != nullptr ? Demangle(type->name()) : "exception"), "");
    }
    timer.Disarm();
    char header[5];
    header[0] = kResponse;
    length = static_cast<uint32_t>(response.size());
    std::memcpy(header + 1, &length, 4);
    if (!WriteAll(out, header, 5) || !WriteAll(out, response.data(), response.size())) _exit(0);
  }
}

}  // namespace parity::fuzz::sandbox_internal
