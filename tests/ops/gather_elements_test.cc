// GatherElements (ONNX's) and its gradient against hand-worked picks.
#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

TEST(GatherElements, PicksAlongTheAxis) {
  // ONNX's example: DATA [[1, 2], [3, 4]], axis 1, INDICES [[0, 0], [1, 0]].
  auto ws = RunOp(MakeOp("GatherElements", {"d", "i"}, {"y"}, {{"axis", 1}}),
                  {{"d", MakeTensor<float>({2, 2}, {1, 2, 3, 4})},
                   {"i", MakeTensor<int64_t>({2, 2}, {0, 0, 1, 0})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, {1, 1, 4, 3});
  // Axis 0 with negative indices: DATA [3, 3] = 1..9, INDICES [[-1, -2, 0], [-2, 0, 0]].
  ws = RunOp(MakeOp("GatherElements", {"d", "i"}, {"y"}),
             {{"d", MakeTensor<int32_t>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
              {"i", MakeTensor<int32_t>({2, 3}, {-1, -2, 0, -2, 0, 0})}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("y")), (std::vector<int32_t>{7, 5, 3, 4, 2, 3}));
}

TEST(GatherElements, IndicesSmallerThanDataOffTheAxis) {
  // DATA [2, 3], axis -1, INDICES [1, 4]: only row 0 is read, 4 picks along the columns.
  auto ws = RunOp(MakeOp("GatherElements", {"d", "i"}, {"y"}, {{"axis", -1}}),
                  {{"d", MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6})},
                   {"i", MakeTensor<int64_t>({1, 4}, {2, 2, 0, 1})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 4}, {3, 3, 1, 2});
  const auto out =
      OpSchemaRegistry::Get("GatherElements")
          .InferShapes(MakeOp("GatherElements", {"d", "i"}, {"y"}, {{"axis", -1}}),
                       {{DataType::kDouble, {2, 3}, true}, {DataType::kInt64, {1, 4}, true}});
  EXPECT_EQ(out[0].dtype, DataType::kDouble);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{1, 4}));
}

TEST(GatherElementsGradient, RepeatedPicksAccumulate) {
  // DATA [2, 3], axis 1, INDICES [[2, 2], [0, 1]]: (0, 2) gets 1 + 2; (1, 0) 3; (1, 1) 4.
  auto ws = RunOp(MakeOp("GatherElementsGradient", {"d", "i", "dy"}, {"dd"}, {{"axis", 1}}),
                  {{"d", MakeTensor<float>({2, 3}, {0, 0, 0, 0, 0, 0})},
                   {"i", MakeTensor<int32_t>({2, 2}, {2, 2, 0, 1})},
                   {"dy", MakeTensor<float>({2, 2}, {1, 2, 3, 4})}});
  ExpectTensorNear(ws->GetTensor("dd"), {2, 3}, {0, 0, 3, 3, 4, 0});
}

TEST(GatherElements, Errors) {
  const Tensor d = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  ExpectError(
      [&] {
        RunOp(MakeOp("GatherElements", {"d", "i"}, {"y"}),
              {{"d", d}, {"i", MakeTensor<int64_t>({2}, {0, 1})}});
      },
      ErrorKind::kShapeMismatch, {"GatherElements", "rank of DATA", "[2, 2]"});
  ExpectError(
      [&] {
        RunOp(MakeOp("GatherElements", {"d", "i"}, {"y"}),
              {{"d", d}, {"i", MakeTensor<int64_t>({1, 3}, {0, 1, 0})}});
      },
      ErrorKind::kShapeMismatch, {"GatherElements", "larger than DATA", "dim 1"});
  ExpectError(
      [&] {
        RunOp(MakeOp("GatherElements", {"d", "i"}, {"y"}, {{"axis", 1}}),
              {{"d", d}, {"i", MakeTensor<int32_t>({1, 1}, {-3})}});
      },
      ErrorKind::kBadArgument, {"GatherElements", "index -3", "[-2, 2)", "axis 1"});
  ExpectError(
      [&] {
        RunOp(MakeOp("GatherElements", {"d", "i"}, {"y"}, {{"axis", 2}}),
              {{"d", d}, {"i", MakeTensor<int32_t>({1, 1}, {0})}});
      },
      ErrorKind::kBadArgument, {"GatherElements", "axis 2"});
  ExpectError(
      [&] {
        RunOp(MakeOp("GatherElements", {"d", "i"}, {"y"}),
              {{"d", d}, {"i", MakeTensor<float>({1, 1}, {0})}});
      },
      ErrorKind::kShapeMismatch, {"GatherElements", "'i'", "int32 or int64"});
}

}  // namespace
}  // namespace parity::testing
