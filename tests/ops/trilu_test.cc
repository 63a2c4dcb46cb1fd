// Trilu against hand-worked triangles; X = [[1, 2, 3], [4, 5, 6]] (2 x 3).
#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

const std::vector<float> kX = {1, 2, 3, 4, 5, 6};

Tensor Trilu(const std::vector<TestArg>& args, const Tensor& x) {
  auto ws = RunOp(MakeOp("Trilu", {"x"}, {"y"}, args), {{"x", x}});
  Tensor out;
  out.CopyFrom(ws->GetTensor("y"));
  return out;
}

TEST(Trilu, UpperLowerAndDiagonals) {
  const Tensor x = MakeTensor<float>({2, 3}, kX);
  // Upper, k = 0: (i, j) with j >= i.
  ExpectTensorNear(Trilu({}, x), {2, 3}, {1, 2, 3, 0, 5, 6});
  // Upper, k = 1: j >= i + 1.
  ExpectTensorNear(Trilu({{"k", 1}}, x), {2, 3}, {0, 2, 3, 0, 0, 6});
  // Lower, k = 0: j <= i; k = -1: j <= i - 1.
  ExpectTensorNear(Trilu({{"upper", 0}}, x), {2, 3}, {1, 0, 0, 4, 5, 0});
  ExpectTensorNear(Trilu({{"upper", 0}, {"k", -1}}, x), {2, 3}, {0, 0, 0, 4, 0, 0});
  // Batched int64, each matrix alike.
  const Tensor y = Trilu({{"upper", 0}}, MakeTensor<int64_t>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{1, 0, 3, 4, 5, 0, 7, 8}));
}

TEST(Trilu, GradientIsTheSameTriangle) {
  auto ws = RunOp(MakeOp("Trilu", {"dy"}, {"dx"}, {{"k", 1}}),
                  {{"dy", MakeTensor<float>({2, 3}, {1, 1, 1, 1, 1, 1})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {0, 1, 1, 0, 0, 1});
  EXPECT_TRUE(OpSchemaRegistry::Get("Trilu").IsInplaceAllowed(0, 0));
}

TEST(Trilu, Errors) {
  ExpectError(
      [] {
        RunOp(MakeOp("Trilu", {"x"}, {"y"}), {{"x", MakeTensor<float>({3}, {1, 2, 3})}});
      },
      ErrorKind::kShapeMismatch, {"Trilu", "rank >= 2"});
  ExpectError(
      [] {
        RunOp(MakeOp("Trilu", {"x"}, {"y"}), {{"x", MakeTensor<bool>({1, 1}, {true})}});
      },
      ErrorKind::kShapeMismatch, {"Trilu", "bool"});
}

}  // namespace
}  // namespace parity::testing
