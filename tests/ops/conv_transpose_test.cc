// ConvTranspose (Caffe2's, 2-D NCHW) against hand-worked scatters: each input pixel adds its
// filter-weighted copy onto the output at (input * stride - pad).
#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// X = [[1, 2], [3, 4]]; W = [[1, 10], [100, 1000]]; stride 2 tiles the four stamps side by side.
TEST(ConvTranspose, StrideTwoTilesStamps) {
  const std::map<std::string, Tensor> in = {
      {"x", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})},
      {"w", MakeTensor<float>({1, 1, 2, 2}, {1, 10, 100, 1000})},
      {"b", MakeTensor<float>({1}, {0.5f})}};
  auto ws = RunOp(MakeOp("ConvTranspose", {"x", "w"}, {"y"}, {{"kernel", 2}, {"stride", 2}}), in);
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 4, 4},
                   {1, 10, 2, 20, 100, 1000, 200, 2000, 3, 30, 4, 40, 300, 3000, 400, 4000});
  // adj adds a last row and column no stamp reaches: only the bias.
  ws = RunOp(MakeOp("ConvTranspose", {"x", "w", "b"}, {"y"},
                    {{"kernel", 2}, {"stride", 2}, {"adj_h", 1}, {"adj_w", 1}}),
             in);
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 5, 5},
                   {1.5f,    10.5f, 2.5f,  20.5f, 0.5f,  100.5f, 1000.5f, 200.5f,  2000.5f,
                    0.5f,    3.5f,  30.5f, 4.5f,  40.5f, 0.5f,   300.5f,  3000.5f, 400.5f,
                    4000.5f, 0.5f,  0.5f,  0.5f,  0.5f,  0.5f,   0.5f});
}

// Stride 1: overlapping stamps of a 2x2 filter of ones add up; pad 1 all round crops the border.
TEST(ConvTranspose, OverlapAndPads) {
  const std::map<std::string, Tensor> in = {{"x", MakeTensor<double>({1, 1, 2, 2}, {1, 2, 3, 4})},
                                            {"w", MakeTensor<double>({1, 1, 2, 2}, {1, 1, 1, 1})}};
  auto ws = RunOp(MakeOp("ConvTranspose", {"x", "w"}, {"y"}, {{"kernel", 2}}), in);
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 3, 3}, {1, 3, 2, 4, 10, 6, 3, 7, 4});
  ws = RunOp(MakeOp("ConvTranspose", {"x", "w"}, {"y"}, {{"kernel", 2}, {"pad", 1}}), in);
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 1, 1}, {10});
}

// W is [C, M / group, kh, kw]: with group 2 each channel scales itself; with one group both
// channels add into the one output channel.
TEST(ConvTranspose, Groups) {
  const std::map<std::string, Tensor> in = {{"x", MakeTensor<float>({1, 2, 1, 1}, {1, 2})},
                                            {"w", MakeTensor<float>({2, 1, 1, 1}, {3, 5})}};
  auto ws = RunOp(MakeOp("ConvTranspose", {"x", "w"}, {"y"}, {{"kernel", 1}, {"group", 2}}), in);
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 1, 1}, {3, 10});
  ws = RunOp(MakeOp("ConvTranspose", {"x", "w"}, {"y"}, {{"kernel", 1}}), in);
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 1, 1}, {13});
}

// Caffe2's three spellings of adj agree; two at once are refused.
TEST(ConvTranspose, AdjSpellings) {
  const std::map<std::string, Tensor> in = {{"x", MakeTensor<float>({1, 1, 1, 2}, {1, 2})},
                                            {"w", MakeTensor<float>({1, 1, 1, 1}, {3})}};
  const std::vector<std::vector<TestArg>> forms = {
      {{"kernel", 1}, {"stride", 2}, {"adj", 1}},
      {{"kernel", 1}, {"stride", 2}, {"adjs", Ints{1, 1}}},
      {{"kernel", 1}, {"stride", 2}, {"adj_h", 1}, {"adj_w", 1}}};
  for (const auto& args : forms) {
    auto ws = RunOp(MakeOp("ConvTranspose", {"x", "w"}, {"y"}, args), in);
    ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 4}, {3, 0, 6, 0, 0, 0, 0, 0});
  }
  ExpectError(
      [&] {
        RunOp(MakeOp("ConvTranspose", {"x", "w"}, {"y"},
                     {{"kernel", 1}, {"stride", 2}, {"adj", 1}, {"adjs", Ints{1, 1}}}),
              in);
      },
      ErrorKind::kBadArgument, {"ConvTranspose", "only one of"});
}

TEST(ConvTranspose, RejectsAdjOfAStrideOrMore) {
  ExpectError(
      [] {
        RunOp(MakeOp("ConvTranspose", {"x", "w"}, {"y"},
                     {{"kernel", 2}, {"stride", 2}, {"adj_h", 2}, {"adj_w", 0}}),
              {{"x", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})},
               {"w", MakeTensor<float>({1, 1, 2, 2}, {1, 1, 1, 1})}});
      },
      ErrorKind::kBadArgument, {"ConvTranspose", "adj_h"});
}

TEST(ConvTranspose, ShapeInference) {
  TensorType x{DataType::kFloat, {2, 4, 3, 5}, true};
  TensorType w{DataType::kFloat, {4, 3, 3, 2}, true};
  const auto out = OpSchemaRegistry::Get("ConvTranspose")
                       .InferShapes(MakeOp("ConvTranspose", {"x", "w"}, {"y"},
                                           {{"kernels", std::vector<int64_t>{3, 2}},
                                            {"stride", 2},
                                            {"group", 2},
                                            {"pads", std::vector<int64_t>{1, 0, 1, 0}},
                                            {"adj_h", 1},
                                            {"adj_w", 0}}),
                                    {x, w});
  // (3 - 1) * 2 - 2 + 3 + 1 = 6 rows, (5 - 1) * 2 + 2 = 10 columns, 3 * 2 channels.
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 6, 6, 10}));
}

}  // namespace
}  // namespace parity::testing
