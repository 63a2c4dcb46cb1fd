// Where (Caffe2's, with ONNX's broadcasting) and its gradient against hand-worked selections.
#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

Tensor Output(const std::unique_ptr<Workspace>& ws, const std::string& name) {
  Tensor out;
  out.CopyFrom(ws->GetTensor(name));
  return out;
}

TEST(Where, SameShapesPickElementwise) {
  auto ws = RunOp(MakeOp("Where", {"c", "x", "y"}, {"z"}),
                  {{"c", MakeTensor<bool>({2, 2}, {true, false, true, true})},
                   {"x", MakeTensor<float>({2, 2}, {1, 2, 3, 4})},
                   {"y", MakeTensor<float>({2, 2}, {9, 8, 7, 6})}});
  ExpectTensorNear(ws->GetTensor("z"), {2, 2}, {1, 8, 3, 4});
}

TEST(Where, BroadcastsAllThreeInputs) {
  // C [2, 1] picks per row, X [3] is a row, Y [] a scalar: Z [2, 3].
  auto ws = RunOp(MakeOp("Where", {"c", "x", "y"}, {"z"}),
                  {{"c", MakeTensor<bool>({2, 1}, {false, true})},
                   {"x", MakeTensor<int64_t>({3}, {1, 2, 3})},
                   {"y", MakeTensor<int64_t>({}, {-5})}});
  const Tensor z = Output(ws, "z");
  EXPECT_EQ(z.dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<int64_t>(z), (std::vector<int64_t>{-5, -5, -5, 1, 2, 3}));
}

TEST(Where, BroadcastOnRowsIsCaffe2sRowForm) {
  auto ws = RunOp(MakeOp("Where", {"c", "x", "y"}, {"z"}, {{"broadcast_on_rows", 1}}),
                  {{"c", MakeTensor<bool>({2}, {false, true})},
                   {"x", MakeTensor<double>({2, 2}, {1, 2, 3, 4})},
                   {"y", MakeTensor<double>({2, 2}, {5, 6, 7, 8})}});
  ExpectTensorNear(ws->GetTensor("z"), {2, 2}, {5, 6, 3, 4});
}

TEST(Where, ShapeInference) {
  TensorType c{DataType::kBool, {4, 1}, true};
  TensorType x{DataType::kFloat, {1, 3}, true};
  TensorType y{DataType::kFloat, {3}, true};
  const auto out = OpSchemaRegistry::Get("Where").InferShapes(
      MakeOp("Where", {"c", "x", "y"}, {"z"}), {c, x, y});
  EXPECT_EQ(out[0].dtype, DataType::kFloat);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{4, 3}));
}

TEST(WhereGradient, RoutesAndSumsBroadcastCopies) {
  // C [2, 1] = [[true], [false]], X [1, 2], Y [2, 2]: row 0 of dZ goes to X, row 1 to Y.
  auto ws = RunOp(MakeOp("WhereGradient", {"c", "x", "y", "dz"}, {"dx", "dy"}),
                  {{"c", MakeTensor<bool>({2, 1}, {true, false})},
                   {"x", MakeTensor<float>({1, 2}, {0, 0})},
                   {"y", MakeTensor<float>({2, 2}, {0, 0, 0, 0})},
                   {"dz", MakeTensor<float>({2, 2}, {1, 2, 3, 4})}});
  ExpectTensorNear(ws->GetTensor("dx"), {1, 2}, {1, 2});
  ExpectTensorNear(ws->GetTensor("dy"), {2, 2}, {0, 0, 3, 4});
  // A scalar X sums every selected element.
  ws = RunOp(MakeOp("WhereGradient", {"c", "x", "y", "dz"}, {"dx", "dy"}),
             {{"c", MakeTensor<bool>({3}, {true, false, true})},
              {"x", MakeTensor<double>({}, {0})},
              {"y", MakeTensor<double>({3}, {0, 0, 0})},
              {"dz", MakeTensor<double>({3}, {1, 2, 4})}});
  ExpectTensorNear(ws->GetTensor("dx"), {}, {5});
  ExpectTensorNear(ws->GetTensor("dy"), {3}, {0, 2, 0});
}

TEST(Where, Errors) {
  const Tensor x = MakeTensor<float>({2}, {1, 2});
  ExpectError(
      [&] {
        RunOp(MakeOp("Where", {"c", "x", "y"}, {"z"}),
              {{"c", MakeTensor<float>({2}, {1, 0})}, {"x", x}, {"y", x}});
      },
      ErrorKind::kShapeMismatch, {"Where", "'c'", "must be bool"});
  ExpectError(
      [&] {
        RunOp(MakeOp("Where", {"c", "x", "y"}, {"z"}), {{"c", MakeTensor<bool>({2}, {true, false})},
                                                        {"x", x},
                                                        {"y", MakeTensor<double>({2}, {1, 2})}});
      },
      ErrorKind::kShapeMismatch, {"Where", "'y'", "dtype of X"});
  ExpectError(
      [&] {
        RunOp(MakeOp("Where", {"c", "x", "y"}, {"z"}),
              {{"c", MakeTensor<bool>({3}, {true, false, true})}, {"x", x}, {"y", x}});
      },
      ErrorKind::kShapeMismatch, {"Where", "cannot broadcast", "[3]", "[2]"});
  ExpectError(
      [&] {
        RunOp(MakeOp("Where", {"c", "x", "y"}, {"z"}, {{"broadcast_on_rows", 1}}),
              {{"c", MakeTensor<bool>({1}, {true})}, {"x", x}, {"y", x}});
      },
      ErrorKind::kShapeMismatch, {"Where", "broadcast_on_rows", "one flag per row"});
  ExpectError(
      [&] {
        RunOp(MakeOp("WhereGradient", {"c", "x", "y", "dz"}, {"dx", "dy"}),
              {{"c", MakeTensor<bool>({2}, {true, false})},
               {"x", x},
               {"y", x},
               {"dz", MakeTensor<float>({3}, {1, 2, 3})}});
      },
      ErrorKind::kShapeMismatch, {"WhereGradient", "'dz'", "output's dims"});
}

}  // namespace
}  // namespace parity::testing
