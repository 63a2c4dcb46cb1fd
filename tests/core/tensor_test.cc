#include "core/tensor.h"

#include <cstdlib>
#include <cstring>

#include "tests/test_util.h"

namespace parity::testing {
namespace {

TEST(Tensor, ResizeReusesBufferWhenLargeEnough) {
  Tensor t;
  t.Resize({4, 4});
  float* first = t.mutable_data<float>();
  t.Resize({2, 8});
  EXPECT_EQ(t.mutable_data<float>(), first);
  t.Resize({3});
  EXPECT_EQ(t.mutable_data<float>(), first);
  EXPECT_EQ(t.numel(), 3);
  t.Resize({100});
  EXPECT_NE(t.mutable_data<float>(), nullptr);
  EXPECT_EQ(t.numel(), 100);
}

TEST(Tensor, DataChecksDtype) {
  Tensor t = MakeTensor<float>({2}, {1, 2});
  ExpectError([&] { t.data<int32_t>(); }, ErrorKind::kShapeMismatch, {"int32", "float [2]"});
}

TEST(Tensor, ViewsShareStorageWithOffset) {
  Tensor t = MakeTensor<float>({3, 2}, {0, 1, 2, 3, 4, 5});
  Tensor row = t.View(2, {1, 2});
  EXPECT_EQ(Values<float>(row), (std::vector<float>{2, 3}));
  row.mutable_data<float>()[1] = 30;
  EXPECT_EQ(t.data<float>()[3], 30);
  EXPECT_TRUE(row.SharesStorageWith(t));
  ExpectError([&] { t.View(5, {1, 2}); }, ErrorKind::kShapeMismatch, {"[1, 2]", "float [3, 2]"});
}

TEST(Tensor, NegativeDimIsBadArgument) {
  Tensor t;
  ExpectError([&] { t.Resize({2, -3}); }, ErrorKind::kBadArgument, {"negative dimension -3", "[2, -3]"});
}

TEST(Tensor, OverflowingDimsAreResourceLimit) {
  Tensor t;
  int64_t big = int64_t{1} << 40;
  ExpectError([&] { t.Resize({big, big}); }, ErrorKind::kResourceLimit, {"overflows int64"});
}

TEST(Tensor, AllocationOverCapIsResourceLimit) {
  int64_t saved = MaxAllocationBytes();
  SetMaxAllocationBytes(1024);
  Tensor t;
  t.Resize({1024});
  ExpectError([&] { t.mutable_data<float>(); }, ErrorKind::kResourceLimit, {"4096 bytes", "cap of 1024"});
  SetMaxAllocationBytes(saved);
}

TEST(Tensor, EmptyTensorsAreFine) {
  Tensor t;
  t.Resize({0, 3});
  EXPECT_EQ(t.numel(), 0);
  EXPECT_NE(t.mutable_data<float>(), nullptr);
  Tensor copy;
  copy.CopyFrom(t);
  EXPECT_EQ(copy.dims(), (std::vector<int64_t>{0, 3}));
}

TEST(Tensor, CanonicalAxis) {
  Tensor t;
  t.Resize({2, 3, 4});
  EXPECT_EQ(t.CanonicalAxis(-1), 2);
  EXPECT_EQ(t.CanonicalAxis(0), 0);
  ExpectError([&] { t.CanonicalAxis(3); }, ErrorKind::kBadArgument, {"axis 3", "rank 3"});
  ExpectError([&] { t.CanonicalAxis(-4); }, ErrorKind::kBadArgument, {"axis -4"});
}

TEST(Tensor, ReshapeKeepsCount) {
  Tensor t = MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  t.Reshape({3, 2});
  EXPECT_EQ(t.dims(), (std::vector<int64_t>{3, 2}));
  ExpectError([&] { t.Reshape({4}); }, ErrorKind::kShapeMismatch, {"[3, 2]", "[4]"});
}

// A fake device whose memory is host memory behind the hooks, so HostCopy's path through a
// device's copy_to_host runs on every machine. The copy flips a counter to show it was used.
constexpr int kFakeDeviceType = 7;
int fake_copies = 0;
void* FakeAllocate(size_t bytes, int) { return std::malloc(bytes); }
void FakeRelease(void* ptr, int) { std::free(ptr); }
void FakeCopyToHost(void* dst, const void* src, size_t bytes, int) {
  ++fake_copies;
  std::memcpy(dst, src, bytes);
}
int fake_moves = 0;
void FakeCopyOnDevice(void* dst, const void* src, size_t bytes, int) {
  ++fake_moves;
  std::memcpy(dst, src, bytes);
}

TEST(HostCopy, ReadsADeviceTensorThroughItsHookAndSharesAHostOne) {
  const Tensor host = MakeTensor<int32_t>({2}, {4, -5});
  EXPECT_TRUE(HostCopy(host).SharesStorageWith(host));

  RegisterDeviceAllocator(kFakeDeviceType, DeviceAllocator{FakeAllocate, FakeRelease, nullptr});
  Tensor on_device(DataType::kBool, {1}, Device{kFakeDeviceType, 0});
  on_device.mutable_data<bool>()[0] = true;  // host memory in disguise
  ExpectError([&] { HostCopy(on_device); }, ErrorKind::kUnknownOp,
              {"no way to read device type 7 on the host"});

  RegisterDeviceAllocator(kFakeDeviceType,
                          DeviceAllocator{FakeAllocate, FakeRelease, FakeCopyToHost});
  const int before = fake_copies;
  const Tensor copy = HostCopy(on_device);
  EXPECT_EQ(fake_copies, before + 1);
  EXPECT_EQ(copy.device().type, kCpuDeviceType);
  EXPECT_EQ(copy.dims(), std::vector<int64_t>{1});
  EXPECT_TRUE(copy.data<bool>()[0]);
  EXPECT_FALSE(copy.SharesStorageWith(on_device));
}

TEST(CopyBytes, MovesDeviceMemoryThroughItsHookAndCopyFromUsesIt) {
  RegisterDeviceAllocator(kFakeDeviceType,
                          DeviceAllocator{FakeAllocate, FakeRelease, FakeCopyToHost, nullptr});
  const Device fake{kFakeDeviceType, 0};
  Tensor a(DataType::kFloat, {3}, fake), b(DataType::kFloat, {3}, fake);
  ExpectError([&] { b.CopyFrom(a); }, ErrorKind::kUnknownOp,
              {"no way to copy within device type 7"});

  RegisterDeviceAllocator(kFakeDeviceType, DeviceAllocator{FakeAllocate, FakeRelease,
                                                           FakeCopyToHost, FakeCopyOnDevice});
  for (int i = 0; i < 3; ++i) a.mutable_data<float>()[i] = 1.5f * static_cast<float>(i) - 1.0f;
  const int before = fake_moves;
  Tensor c(fake);
  c.CopyFrom(a);
  EXPECT_EQ(fake_moves, before + 1);
  EXPECT_EQ(c.device(), fake);
  EXPECT_EQ(Values<float>(HostCopy(c)), (std::vector<float>{-1.0f, 0.5f, 2.0f}));
  // a's second element onto c's first: the hook moves exactly the bytes it is given.
  CopyBytes(fake, c.mutable_data<float>(), a.data<float>() + 1, sizeof(float));
  EXPECT_EQ(fake_moves, before + 2);
  EXPECT_EQ(Values<float>(HostCopy(c)), (std::vector<float>{0.5f, 0.5f, 2.0f}));
  // On the CPU, overlapping ranges move as memmove does.
  Tensor host = MakeTensor<int32_t>({4}, {1, 2, 3, 4});
  CopyBytes(Device{}, host.mutable_data<int32_t>() + 1, host.data<int32_t>(), 3 * sizeof(int32_t));
  EXPECT_EQ(Values<int32_t>(host), (std::vector<int32_t>{1, 1, 2, 3}));
  EXPECT_EQ(fake_moves, before + 2);
}

}  // namespace
}  // namespace parity::testing

namespace parity::testing {
namespace {

TEST(Tensor, NewTensorIsAConsistentScalar) {
  // dims [] means one element; kernels that skip Resize for unchanged dims rely on it.
  Tensor t;
  EXPECT_TRUE(t.dims().empty());
  EXPECT_EQ(t.numel(), 1);
  t.mutable_data<float>()[0] = 2.5f;
  EXPECT_EQ(t.nbytes(), 4u);
  auto ws = RunOp(MakeOp("Scale", {"x"}, {"y"}, {{"scale", 3.0f}}), {{"x", MakeTensor<float>({}, {2})}});
  ExpectTensorNear(ws->GetTensor("y"), {}, {6});
}

}  // namespace
}  // namespace parity::testing
