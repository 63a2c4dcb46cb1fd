// The sandbox (fuzz/sandbox.h) as the campaign relies on it: answers come back in order; a worker
// that segfaults, hangs (with or without its timer), throws, exits or runs out of memory becomes
// an outcome naming what happened, the op it was in and, for signals, the stack; and the caller can
// go on with a new worker.
#include "fuzz/sandbox.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>

#include "core/operator.h"
#include "core/workspace.h"
#include "tests/test_util.h"

namespace parity::fuzz {
namespace {

using Kind = SandboxOutcome::Kind;

// Kept out of line and named, so the stack shows it.
__attribute__((noinline)) void WriteThroughAWildPointer() {
  volatile uintptr_t wild = 16;
  *reinterpret_cast<volatile int*>(wild) = 1;
}

// A Relu under a test engine that throws or crashes, to see which op a worker names.
class ThrowingRelu final : public Operator {
 public:
  using Operator::Operator;
  void Run() override { throw std::runtime_error("kernel threw"); }
};
class CrashingRelu final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    WriteThroughAWildPointer();
    Output(0)->Resize({0});  // work after the call: no tail call, so this frame is on the stack
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Relu, "SANDBOX_TEST_THROW", ThrowingRelu);
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Relu, "SANDBOX_TEST_CRASH", CrashingRelu);

// Runs X -> Relu -> Y -> Relu (under `engine`) -> Z.
std::string RunReluNet(const std::string& engine) {
  Workspace ws;
  Tensor* x = ws.CreateBlob("X")->GetMutableTensor();
  x->Resize({4});
  for (int i = 0; i < 4; ++i) x->mutable_data<float>()[i] = static_cast<float>(i) - 1.5f;
  caffe2::NetDef net;
  caffe2::OperatorDef* first = net.add_op();
  first->set_type("Relu");
  first->add_input("X");
  first->add_output("Y");
  caffe2::OperatorDef* second = net.add_op();
  second->set_type("Relu");
  second->add_input("Y");
  second->add_output("Z");
  second->set_engine(engine);
  ws.RunNetOnce(net);
  return "ran";
}

SandboxLimits Limits(double case_timeout) {
  SandboxLimits limits;
  limits.case_timeout = case_timeout;
  return limits;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(Sandbox, AnswersQueuedRequestsInOrderAndStaysUp) {
  Sandbox sandbox([](const std::string& request) { return "echo " + request; }, Limits(10));
  sandbox.Send("one");
  sandbox.Send("two");
  EXPECT_EQ(sandbox.in_flight(), 2);
  EXPECT_EQ(sandbox.Receive().response, "echo one");
  EXPECT_EQ(sandbox.Receive().response, "echo two");
  EXPECT_TRUE(sandbox.alive());
  sandbox.Send("three");
  const SandboxOutcome third = sandbox.Receive();
  EXPECT_EQ(third.kind, Kind::kOk);
  EXPECT_EQ(third.response, "echo three");
}

TEST(Sandbox, ASegfaultIsACrashWithTheSignalAndTheStack) {
  Sandbox sandbox(
      [](const std::string&) {
        WriteThroughAWildPointer();
        return std::string("unreachable");
      },
      Limits(10));
  sandbox.Send("go");
  sandbox.Send("queued behind the crash");
  const SandboxOutcome outcome = sandbox.Receive();
  EXPECT_EQ(outcome.kind, Kind::kCrash);
  EXPECT_EQ(outcome.error_class, "SIGSEGV");
  EXPECT_EQ(outcome.detail, "fault address 0x10");
  EXPECT_TRUE(outcome.op_path.empty());  // no op was running
  ASSERT_FALSE(outcome.own_frames.empty());
  EXPECT_NE(outcome.own_frames[0].find("WriteThroughAWildPointer"), std::string::npos)
      << ::testing::PrintToString(outcome.stack);
  ASSERT_FALSE(outcome.stack.empty());
  EXPECT_NE(outcome.stack[0].find("WriteThroughAWildPointer"), std::string::npos);
  EXPECT_FALSE(sandbox.alive());
  EXPECT_EQ(sandbox.in_flight(), 0);  // the queued request died with the worker
}

TEST(Sandbox, ACrashNamesTheOpItHappenedIn) {
  const SandboxOutcome outcome = RunSandboxed(
      [](const std::string&) { return RunReluNet("SANDBOX_TEST_CRASH"); }, Limits(10), "");
  EXPECT_EQ(outcome.kind, Kind::kCrash);
  EXPECT_EQ(outcome.error_class, "SIGSEGV");
  EXPECT_EQ(outcome.op_index, 1);
  EXPECT_EQ(outcome.op_type, "Relu");
  EXPECT_EQ(outcome.op_path, std::vector<std::string>{"op #1 (Relu)"});
  ASSERT_GE(outcome.own_frames.size(), 2u);
  EXPECT_NE(outcome.own_frames[0].find("WriteThroughAWildPointer"), std::string::npos);
  EXPECT_NE(outcome.own_frames[1].find("CrashingRelu::Run"), std::string::npos);
}

TEST(Sandbox, AnExceptionEscapingAnOpNamesTheOpItLeft) {
  const SandboxOutcome outcome = RunSandboxed(
      [](const std::string&) { return RunReluNet("SANDBOX_TEST_THROW"); }, Limits(10), "");
  EXPECT_EQ(outcome.kind, Kind::kCrash);
  EXPECT_EQ(outcome.error_class, "uncaught std::runtime_error");
  EXPECT_EQ(outcome.detail, "kernel threw");
  EXPECT_EQ(outcome.op_path, std::vector<std::string>{"op #1 (Relu)"});
}

TEST(Sandbox, ABadAllocIsAResourceOutcome) {
  const SandboxOutcome outcome = RunSandboxed(
      [](const std::string&) -> std::string { throw std::bad_alloc(); }, Limits(10), "");
  EXPECT_EQ(outcome.kind, Kind::kResource);
  EXPECT_EQ(outcome.error_class, "std::bad_alloc");
}

TEST(Sandbox, AnExitInTheMiddleOfARequestIsACrash) {
  const SandboxOutcome outcome =
      RunSandboxed([](const std::string&) -> std::string { _exit(7); }, Limits(10), "");
  EXPECT_EQ(outcome.kind, Kind::kCrash);
  EXPECT_EQ(outcome.error_class, "exit 7");
}

TEST(Sandbox, AnAbortIsACrash) {
  const SandboxOutcome outcome =
      RunSandboxed([](const std::string&) -> std::string { std::abort(); }, Limits(10), "");
  EXPECT_EQ(outcome.kind, Kind::kCrash);
  EXPECT_EQ(outcome.error_class, "SIGABRT");
}

// Set-up a worker does once (a CUDA context, in a campaign with the device oracle) runs before its
// first request and is not timed as part of it: a case timeout shorter than the set-up is no hang.
TEST(Sandbox, TheWarmUpRunsBeforeTheFirstRequestAndIsNotTimed) {
  Sandbox sandbox([](const std::string& request) { return "echo " + request; }, Limits(0.3),
                  [] { usleep(800 * 1000); });
  sandbox.Send("one");
  const SandboxOutcome first = sandbox.Receive();
  EXPECT_EQ(first.kind, Kind::kOk) << first.error_class << " " << first.detail;
  EXPECT_EQ(first.response, "echo one");
}

// An abandoned worker is killed and not waited for; the sandbox holds nothing after it.
TEST(Sandbox, AbandonReturnsAtOnce) {
  Sandbox sandbox([](const std::string& request) { return "echo " + request; }, Limits(10));
  sandbox.Send("one");
  const auto start = std::chrono::steady_clock::now();
  sandbox.Abandon();
  EXPECT_LT(SecondsSince(start), 0.5);
  EXPECT_FALSE(sandbox.alive());
  EXPECT_EQ(sandbox.in_flight(), 0);
}

TEST(Sandbox, ALoopPastTheCaseTimeoutIsAHang) {
  const auto start = std::chrono::steady_clock::now();
  const SandboxOutcome outcome = RunSandboxed(
      [](const std::string&) -> std::string {
        for (volatile bool forever = true; forever;) {
        }
        return "";
      },
      Limits(0.3), "");
  EXPECT_EQ(outcome.kind, Kind::kHang);
  EXPECT_EQ(outcome.error_class, "timeout");
  EXPECT_EQ(outcome.detail, "the case ran past 300 ms");
  EXPECT_GE(SecondsSince(start), 0.3);
  EXPECT_LT(SecondsSince(start), 3.0);
}

TEST(Sandbox, AWorkerDeafToItsTimerIsKilledAfterTheGrace) {
  const auto start = std::chrono::steady_clock::now();
  const SandboxOutcome outcome = RunSandboxed(
      [](const std::string&) -> std::string {
        sigset_t alarm;
        sigemptyset(&alarm);
        sigaddset(&alarm, SIGALRM);
        sigprocmask(SIG_BLOCK, &alarm, nullptr);
        for (volatile bool forever = true; forever;) {
        }
        return "";
      },
      Limits(0.2), "");
  EXPECT_EQ(outcome.kind, Kind::kHang);
  EXPECT_NE(outcome.detail.find("killed"), std::string::npos) << outcome.detail;
  EXPECT_LT(SecondsSince(start), 10.0);
}

TEST(Sandbox, AMemoryLimitTurnsARunawayAllocationIntoAResourceOutcome) {
  if (!SandboxEnforcesMemoryLimits()) {
    GTEST_SKIP() << "memory limits are not enforced under AddressSanitizer";
  }
  SandboxLimits limits = Limits(10);
  limits.memory_mb = 128;
  const auto allocate = [](const std::string&) {
    std::unique_ptr<char[]> block(new char[size_t{1} << 30]);  // untouched: only the limit fails it
    static char* volatile observed;  // so the compiler cannot elide the allocation
    observed = block.get();
    return std::string("allocated");
  };
  const SandboxOutcome limited = RunSandboxed(allocate, limits, "");
  EXPECT_EQ(limited.kind, Kind::kResource);
  EXPECT_EQ(limited.error_class, "std::bad_alloc");
  // Without the limit the same request is fine: the limit made the difference.
  const SandboxOutcome free = RunSandboxed(allocate, Limits(10), "");
  EXPECT_EQ(free.kind, Kind::kOk);
  EXPECT_EQ(free.response, "allocated");
}

}  // namespace
}  // namespace parity::fuzz
