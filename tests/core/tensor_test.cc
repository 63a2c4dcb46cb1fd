#include "core/tensor.h"

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
