// The device count asked in a child process: the answer crosses the pipe whole, a child that dies
// or hangs is "no device" with the reason, and the query never runs in the asking process.
#include "gpu/device_query.h"

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "gpu/device.h"

namespace parity::gpu {
namespace {

DeviceCountAnswer TwoDevicesAndTheChildPid() {
  // The reason carries the pid the query ran in, so the test sees it was not the parent's.
  return {2, std::to_string(getpid())};
}

TEST(DeviceQueryTest, TheAnswerComesFromAChildProcess) {
  const DeviceCountAnswer answer = QueryDeviceCountInChild(&TwoDevicesAndTheChildPid);
  EXPECT_EQ(answer.count, 2);
  ASSERT_FALSE(answer.reason.empty());
  EXPECT_NE(answer.reason, std::to_string(getpid()));
}

DeviceCountAnswer NoDriver() { return {0, "cudaGetDeviceCount: no CUDA-capable device"}; }

TEST(DeviceQueryTest, NoDeviceKeepsTheChildsReason) {
  const DeviceCountAnswer answer = QueryDeviceCountInChild(&NoDriver);
  EXPECT_EQ(answer.count, 0);
  EXPECT_EQ(answer.reason, "cudaGetDeviceCount: no CUDA-capable device");
}

DeviceCountAnswer LongReason() { return {0, std::string(100000, 'r')}; }

TEST(DeviceQueryTest, AReasonLongerThanThePipeBufferArrivesWhole) {
  EXPECT_EQ(QueryDeviceCountInChild(&LongReason).reason, std::string(100000, 'r'));
}

// SIGKILL, not SIGSEGV: under ASan the sanitizer's own SIGSEGV handler turns a segfault into a
// report and exit(1) (the next test covers a child that exits without answering), so only an
// uncatchable signal dies the same way in every build.
DeviceCountAnswer Crash() {
  std::raise(SIGKILL);
  return {1, ""};
}

TEST(DeviceQueryTest, AChildThatCrashesMeansNoDevice) {
  const DeviceCountAnswer answer = QueryDeviceCountInChild(&Crash);
  EXPECT_EQ(answer.count, 0);
  EXPECT_NE(answer.reason.find("killed by signal 9"), std::string::npos) << answer.reason;
}

DeviceCountAnswer ExitWithoutAnswer() {
  std::_Exit(1);
  return {1, ""};
}

TEST(DeviceQueryTest, AChildThatExitsWithoutAnAnswerMeansNoDevice) {
  const DeviceCountAnswer answer = QueryDeviceCountInChild(&ExitWithoutAnswer);
  EXPECT_EQ(answer.count, 0);
  EXPECT_NE(answer.reason.find("exited with status 1 without an answer"), std::string::npos)
      << answer.reason;
}

DeviceCountAnswer Hang() {
  pause();
  return {1, ""};
}

TEST(DeviceQueryTest, AChildThatHangsIsKilledAfterTheTimeout) {
  const DeviceCountAnswer answer = QueryDeviceCountInChild(&Hang, 0.3);
  EXPECT_EQ(answer.count, 0);
  EXPECT_NE(answer.reason.find("did not answer within"), std::string::npos) << answer.reason;
}

// The real count, through the child in a CUDA build: without a device the reason is the
// runtime's (asked in the child and carried back), not a child that died.
TEST(DeviceQueryTest, TheRealCountExplainsZero) {
  if (DeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present: nothing to explain";
  const std::string reason = NoDeviceReason();
  if (CudaBuild()) {
    EXPECT_TRUE(reason.rfind("cudaGetDeviceCount: ", 0) == 0 ||
                reason == "the CUDA runtime reports no device")
        << reason;
  } else {
    EXPECT_NE(reason.find("no CUDA"), std::string::npos) << reason;
  }
}

}  // namespace
}  // namespace parity::gpu
