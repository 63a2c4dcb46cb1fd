// The device count and the copies: never a crash without a device or a driver.
#include "gpu/device.h"

#include <gtest/gtest.h>

#include "core/net.h"
#include "core/proto/error.h"
#include "core/tensor.h"
#include "core/workspace.h"
#include "tests/test_util.h"

namespace parity::gpu {
namespace {

TEST(DeviceTest, CountIsNonNegativeAndExplainedWhenZero) {
  const int count = DeviceCount();
  EXPECT_GE(count, 0);
  EXPECT_EQ(count, DeviceCount());  // cached, stable
  if (count == 0) {
    EXPECT_FALSE(NoDeviceReason().empty());
  } else {
    EXPECT_TRUE(NoDeviceReason().empty());
  }
}

TEST(DeviceTest, HostCopiesWorkEverywhere) {
  Tensor src(DataType::kFloat, {2, 3});
  for (int i = 0; i < 6; ++i) src.mutable_data<float>()[i] = static_cast<float>(i);
  Tensor dst;
  CopyTensor(src, &dst);
  ASSERT_EQ(dst.dims(), src.dims());
  EXPECT_EQ(dst.data<float>()[5], 5.0f);
  EXPECT_FALSE(dst.SharesStorageWith(src));
  EXPECT_TRUE(ToCpu(src).SharesStorageWith(src));
}

TEST(DeviceTest, DeviceTensorWithoutDeviceIsAClearError) {
  if (DeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present: nothing to refuse";
  try {
    Tensor on_device(DataType::kFloat, {4}, Device{kCudaDeviceType, 0});
    FAIL() << "allocated device memory without a device";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnknownOp);
    EXPECT_NE(std::string(e.what()).find(CudaBuild() ? "no CUDA device" : "allocator"),
              std::string::npos)
        << e.what();
  }
}

// A CPU op handed a tensor in device memory refuses it instead of reading a device pointer on the
// host. The tensor holds no data, so this runs without a device.
TEST(DeviceTest, CpuOpRefusesADeviceTensor) {
  Workspace ws;
  *ws.CreateTensor("x") = Tensor(Device{kCudaDeviceType, 0});
  caffe2::NetDef net;
  *net.add_op() = testing::MakeOp("Relu", {"x"}, {"y"});
  try {
    ws.RunNetOnce(net);
    FAIL() << "a CPU op ran on a device tensor";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadArgument);
    EXPECT_NE(std::string(e.what()).find("input 'x' is in the memory of device type 1"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace parity::gpu
