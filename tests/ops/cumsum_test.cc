// CumSum (ONNX's) against hand-worked running sums; X = [[1, 2, 3], [4, 5, 6]].
#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

Tensor CumSum(const std::vector<TestArg>& args, const Tensor& x) {
  auto ws = RunOp(MakeOp("CumSum", {"x"}, {"y"}, args), {{"x", x}});
  Tensor out;
  out.CopyFrom(ws->GetTensor("y"));
  return out;
}

TEST(CumSum, AxesExclusiveAndReverse) {
  const Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectTensorNear(CumSum({}, x), {2, 3}, {1, 2, 3, 5, 7, 9});
  ExpectTensorNear(CumSum({{"axis", -1}}, x), {2, 3}, {1, 3, 6, 4, 9, 15});
  ExpectTensorNear(CumSum({{"axis", 1}, {"exclusive", 1}}, x), {2, 3}, {0, 1, 3, 0, 4, 9});
  ExpectTensorNear(CumSum({{"axis", 1}, {"reverse", 1}}, x), {2, 3}, {6, 5, 3, 15, 11, 6});
  ExpectTensorNear(CumSum({{"axis", 1}, {"exclusive", 1}, {"reverse", 1}}, x), {2, 3},
                   {5, 3, 0, 11, 6, 0});
  // int64 wraps rather than overflowing.
  const Tensor big = CumSum({}, MakeTensor<int64_t>({2}, {INT64_MAX, 1}));
  EXPECT_EQ(Values<int64_t>(big), (std::vector<int64_t>{INT64_MAX, INT64_MIN}));
  EXPECT_TRUE(OpSchemaRegistry::Get("CumSum").IsInplaceAllowed(0, 0));
}

TEST(CumSum, Errors) {
  ExpectError(
      [] {
        CumSum({{"axis", 2}}, MakeTensor<float>({2, 2}, {1, 2, 3, 4}));
      },
      ErrorKind::kBadArgument, {"CumSum", "axis 2"});
  ExpectError([] { CumSum({}, MakeTensor<bool>({1}, {true})); }, ErrorKind::kShapeMismatch,
              {"CumSum", "unsupported dtype", "bool"});
  ExpectError([] { CumSum({}, MakeTensor<float>({}, {1})); }, ErrorKind::kShapeMismatch,
              {"CumSum", "rank >= 1"});
}

}  // namespace
}  // namespace parity::testing
