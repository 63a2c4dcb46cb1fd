// Hand-computed values for the shape ops.
#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

std::vector<double> Iota(int n) {
  std::vector<double> v;
  for (int k = 1; k <= n; ++k) v.push_back(k);
  return v;
}

TEST(Shape, Reshape) {
  const Tensors in = {{"x", F({2, 3, 4}, Iota(24))}};
  RunResult r = RunOps({Op("Reshape", {"x"}, {"y", "old"}).Ints("shape", {0, -1})}, in);
  EXPECT_EQ(Dims(r.blobs.at("y")), (std::vector<int64_t>{2, 12}));
  EXPECT_VALUES_NEAR(r.blobs.at("y"), Iota(24), 0);
  EXPECT_EQ(r.blobs.at("old").data_type(), caffe2::TensorProto::INT64);
  EXPECT_EQ(IntValues(r.blobs.at("old")), (std::vector<int64_t>{2, 3, 4}));
  auto y = RunOp(Op("Reshape", {"x", "s"}, {"y", "old"}),
                 {{"x", in.at("x")}, {"s", I64({2}, {-1, 8})}}, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{3, 8}));
  ExpectError(
      [&] {
        RunOps({Op("Reshape", {"x", "s"}, {"y", "o"}).Ints("shape", {24})},
               {{"x", in.at("x")}, {"s", I64({1}, {24})}});
      },
      ErrorKind::kBadArgument);
  ExpectError(
      [&] {
        RunOps({Op("Reshape", {"x"}, {"y", "o"}).Ints("shape", {5, 5})}, in);
      },
      ErrorKind::kShapeMismatch);
  ExpectError(
      [&] {
        RunOps({Op("Reshape", {"x"}, {"y", "o"}).Ints("shape", {-1, -1})}, in);
      },
      ErrorKind::kBadArgument);
  // allowzero=1: a 0 is a dim of 0. An empty [2, 0, 3] to [3, 2, 0]; a 0 beside a -1 is refused.
  const Tensors empty = {{"x", F({2, 0, 3}, {})}};
  EXPECT_EQ(Dims(RunOp(Op("Reshape", {"x"}, {"y"}).Ints("shape", {3, 2, 0}).I("allowzero", 1),
                       empty, "y")),
            (std::vector<int64_t>{3, 2, 0}));
  ExpectError([&] { RunOps({Op("Reshape", {"x"}, {"y"}).Ints("shape", {3, 2, 0})}, empty); },
              ErrorKind::kShapeMismatch);
  ExpectError(
      [&] { RunOps({Op("Reshape", {"x"}, {"y"}).Ints("shape", {0, -1}).I("allowzero", 1)}, in); },
      ErrorKind::kBadArgument);
  // Without allowzero, a copied empty dim beside a -1: only an empty input fits, the -1 is 0.
  EXPECT_EQ(Dims(RunOp(Op("Reshape", {"x"}, {"y"}).Ints("shape", {0, -1}), {{"x", F({0, 4}, {})}},
                       "y")),
            (std::vector<int64_t>{0, 0}));
}

TEST(Shape, Transpose) {
  // [[1,2,3],[4,5,6]]^T = [[1,4],[2,5],[3,6]]
  auto y = RunOp(Op("Transpose", {"x"}, {"y"}), {{"x", F({2, 3}, Iota(6))}}, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{3, 2}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{1, 4, 2, 5, 3, 6}), 0);
  // axes (0, 2, 1) on [1, 2, 3] transposes the last two dims; int64 stays exact.
  auto z = RunOp(Op("Transpose", {"x"}, {"y"}).Ints("axes", {0, 2, 1}),
                 {{"x", I64({1, 2, 3}, {1, 2, 3, 4, 5, 6})}}, "y");
  EXPECT_EQ(Dims(z), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(IntValues(z), (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
  ExpectError(
      [] {
        RunOps({Op("Transpose", {"x"}, {"y"}).Ints("axes", {0, 0})}, {{"x", F({2, 3}, Iota(6))}});
      },
      ErrorKind::kBadArgument);
}

TEST(Shape, Concat) {
  // [[1],[2]] ++ [[3,4],[5,6]] along axis 1 = [[1,3,4],[2,5,6]], split_info [1, 2].
  const Tensors in = {{"a", F({2, 1}, {1, 2})}, {"b", F({2, 2}, {3, 4, 5, 6})}};
  for (int64_t axis : {1, -1}) {
    RunResult r = RunOps({Op("Concat", {"a", "b"}, {"y", "info"}).I("axis", axis)}, in);
    EXPECT_EQ(Dims(r.blobs.at("y")), (std::vector<int64_t>{2, 3}));
    EXPECT_VALUES_NEAR(r.blobs.at("y"), (std::vector<double>{1, 3, 4, 2, 5, 6}), 0);
    EXPECT_EQ(r.blobs.at("info").data_type(), caffe2::TensorProto::INT32);
    EXPECT_EQ(IntValues(r.blobs.at("info")), (std::vector<int64_t>{1, 2}));
  }
  // Default axis 1 comes from order NCHW.
  EXPECT_EQ(Dims(RunOp(Op("Concat", {"a", "b"}, {"y", "i"}), in, "y")),
            (std::vector<int64_t>{2, 3}));
  // split_info is optional (ONNX's Concat, and production, have one output); so is Reshape's
  // old_shape.
  EXPECT_VALUES_NEAR(RunOp(Op("Concat", {"a", "b"}, {"y"}), in, "y"),
                     (std::vector<double>{1, 3, 4, 2, 5, 6}), 0);
  EXPECT_EQ(Dims(RunOp(Op("Reshape", {"b"}, {"y"}).Ints("shape", {4}), in, "y")),
            (std::vector<int64_t>{4}));
  // add_axis stacks along a new axis 1: [[1,3],[2,4]].
  auto s = RunOp(Op("Concat", {"a", "b"}, {"y", "i"}).I("axis", 1).I("add_axis", 1),
                 {{"a", F({2}, {1, 2})}, {"b", F({2}, {3, 4})}}, "y");
  EXPECT_EQ(Dims(s), (std::vector<int64_t>{2, 2}));
  EXPECT_VALUES_NEAR(s, (std::vector<double>{1, 3, 2, 4}), 0);
  ExpectError(
      [&] {
        RunOps({Op("Concat", {"a", "b"}, {"y", "i"}).I("axis", 0)}, in);
      },
      ErrorKind::kShapeMismatch);
}

TEST(Shape, Split) {
  const Tensors in = {{"x", F({2, 4}, Iota(8))}};
  RunResult r = RunOps({Op("Split", {"x"}, {"p", "q"}).I("axis", 1).Ints("split", {1, 3})}, in);
  EXPECT_EQ(Dims(r.blobs.at("p")), (std::vector<int64_t>{2, 1}));
  EXPECT_VALUES_NEAR(r.blobs.at("p"), (std::vector<double>{1, 5}), 0);
  EXPECT_VALUES_NEAR(r.blobs.at("q"), (std::vector<double>{2, 3, 4, 6, 7, 8}), 0);
  RunResult e = RunOps({Op("Split", {"x"}, {"p", "q"})}, in);  // equal parts along axis 1
  EXPECT_VALUES_NEAR(e.blobs.at("p"), (std::vector<double>{1, 2, 5, 6}), 0);
  EXPECT_VALUES_NEAR(e.blobs.at("q"), (std::vector<double>{3, 4, 7, 8}), 0);
  RunResult i = RunOps({Op("Split", {"x", "s"}, {"p", "q"}).I("axis", 0)},
                       {{"x", in.at("x")}, {"s", Int({2}, {1, 1})}});
  EXPECT_VALUES_NEAR(i.blobs.at("q"), (std::vector<double>{5, 6, 7, 8}), 0);
  ExpectError(
      [&] {
        RunOps({Op("Split", {"x"}, {"p", "q"}).Ints("split", {1, 2})}, in);
      },
      ErrorKind::kShapeMismatch);
  ExpectError(
      [&] {
        RunOps({Op("Split", {"x"}, {"p", "q", "r"})}, in);
      },
      ErrorKind::kShapeMismatch);
}

TEST(Shape, FlattenExpandSqueeze) {
  const Tensors in = {{"x", F({2, 3, 4}, Iota(24))}};
  EXPECT_EQ(Dims(RunOp(Op("Flatten", {"x"}, {"y"}).I("axis", 2), in, "y")),
            (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(Dims(RunOp(Op("Flatten", {"x"}, {"y"}), in, "y")), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(Dims(RunOp(Op("Flatten", {"x"}, {"y"}).I("axis", 0), in, "y")),
            (std::vector<int64_t>{1, 24}));
  // A negative axis counts from the end (ONNX's Flatten): -1 is axis 2, -3 is axis 0.
  EXPECT_EQ(Dims(RunOp(Op("Flatten", {"x"}, {"y"}).I("axis", -1), in, "y")),
            (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(Dims(RunOp(Op("Flatten", {"x"}, {"y"}).I("axis", -3), in, "y")),
            (std::vector<int64_t>{1, 24}));
  ExpectError([&] { RunOps({Op("Flatten", {"x"}, {"y"}).I("axis", -4)}, in); },
              ErrorKind::kBadArgument);
  EXPECT_EQ(Dims(RunOp(Op("FlattenToVec", {"x"}, {"y"}), in, "y")), (std::vector<int64_t>{24}));
  auto e =
      RunOp(Op("ExpandDims", {"x"}, {"y"}).Ints("dims", {3, 0}), {{"x", F({2, 3}, Iota(6))}}, "y");
  EXPECT_EQ(Dims(e), (std::vector<int64_t>{1, 2, 3, 1}));
  auto s = RunOp(Op("Squeeze", {"x"}, {"y"}).Ints("dims", {0, 3}),
                 {{"x", F({1, 2, 3, 1}, Iota(6))}}, "y");
  EXPECT_EQ(Dims(s), (std::vector<int64_t>{2, 3}));
  EXPECT_VALUES_NEAR(s, Iota(6), 0);
  ExpectError(
      [] {
        RunOps({Op("Squeeze", {"x"}, {"y"}).Ints("dims", {1})}, {{"x", F({1, 2}, {1, 2})}});
      },
      ErrorKind::kShapeMismatch);
  ExpectError(
      [] {
        RunOps({Op("ExpandDims", {"x"}, {"y"}).Ints("dims", {-1})}, {{"x", F({2}, {1, 2})}});
      },
      ErrorKind::kBadArgument);
}

TEST(Shape, Slice) {
  // [[1,2,3,4],[5,6,7,8]]: rows all (end -1 = the end), columns [1, 3).
  const Tensors in = {{"x", F({2, 4}, Iota(8))}};
  auto y = RunOp(Op("Slice", {"x"}, {"y"}).Ints("starts", {0, 1}).Ints("ends", {-1, 3}), in, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{2, 2}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{2, 3, 6, 7}), 0);
  // Negative start -3 of a dim of 4 is 4 + 1 - 3 = 2.
  auto z = RunOp(Op("Slice", {"x"}, {"y"}).Ints("starts", {0, -3}).Ints("ends", {-1, -1}), in, "y");
  EXPECT_VALUES_NEAR(z, (std::vector<double>{3, 4, 7, 8}), 0);
  // From inputs, slicing only dim 0.
  auto w = RunOp(Op("Slice", {"x", "s", "e"}, {"y"}),
                 {{"x", in.at("x")}, {"s", Int({1}, {1})}, {"e", Int({1}, {2})}}, "y");
  EXPECT_VALUES_NEAR(w, (std::vector<double>{5, 6, 7, 8}), 0);
  // Several dimensions cut at once (Caffe2 allowed one): rows [1, 2), columns [1, 3).
  auto both = RunOp(Op("Slice", {"x"}, {"y"}).Ints("starts", {1, 1}).Ints("ends", {2, 3}), in, "y");
  EXPECT_VALUES_NEAR(both, (std::vector<double>{6, 7}), 0);
  ExpectError(
      [&] {
        RunOps({Op("Slice", {"x"}, {"y"}).Ints("starts", {0, 3}).Ints("ends", {-1, 2})}, in);
      },
      ErrorKind::kBadArgument);
}

TEST(Shape, ShapeGatherTile) {
  auto s = RunOp(Op("Shape", {"x"}, {"y"}), {{"x", F({2, 3}, Iota(6))}}, "y");
  EXPECT_EQ(s.data_type(), caffe2::TensorProto::INT64);
  EXPECT_EQ(IntValues(s), (std::vector<int64_t>{2, 3}));
  // Rows 2, 0, 1, 2 of [[1,2],[3,4],[5,6]] as a [2, 2] index grid.
  auto g = RunOp(Op("Gather", {"d", "i"}, {"y"}),
                 {{"d", F({3, 2}, Iota(6))}, {"i", Int({2, 2}, {2, 0, 1, 2})}}, "y");
  EXPECT_EQ(Dims(g), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_VALUES_NEAR(g, (std::vector<double>{5, 6, 1, 2, 3, 4, 5, 6}), 0);
  auto gi = RunOp(Op("Gather", {"d", "i"}, {"y"}),
                  {{"d", I64({3}, {7, 8, 9})}, {"i", I64({2}, {2, 2})}}, "y");
  EXPECT_EQ(IntValues(gi), (std::vector<int64_t>{9, 9}));
  ExpectError(
      [] {
        RunOps({Op("Gather", {"d", "i"}, {"y"})}, {{"d", F({3}, {1, 2, 3})}, {"i", Int({1}, {3})}});
      },
      ErrorKind::kBadArgument);
  ExpectError(
      [] {
        RunOps({Op("Gather", {"d", "i"}, {"y"})}, {{"d", F({3}, {1, 2, 3})}, {"i", F({1}, {0})}});
      },
      ErrorKind::kShapeMismatch);
  // Negative indices wrap by default on axis 0 (Caffe2's rule): -1 is the last row.
  auto gw = RunOp(Op("Gather", {"d", "i"}, {"y"}),
                  {{"d", F({3, 1}, {10, 20, 30})}, {"i", Int({2}, {-1, -3})}}, "y");
  EXPECT_VALUES_NEAR(gw, (std::vector<double>{30, 10}), 0);
  // ... but not with wrap_indices=0, nor on another axis without the argument.
  ExpectError(
      [] {
        RunOps({Op("Gather", {"d", "i"}, {"y"}).I("wrap_indices", 0)},
               {{"d", F({3}, {1, 2, 3})}, {"i", Int({1}, {-1})}});
      },
      ErrorKind::kBadArgument);
  ExpectError(
      [] {
        RunOps({Op("Gather", {"d", "i"}, {"y"}).I("axis", 1)},
               {{"d", F({1, 3}, {1, 2, 3})}, {"i", Int({1}, {-1})}});
      },
      ErrorKind::kBadArgument);
  const Tensors t = {{"x", F({2, 2}, {1, 2, 3, 4})}};
  auto t1 = RunOp(Op("Tile", {"x"}, {"y"}).I("tiles", 2).I("axis", 1), t, "y");
  EXPECT_EQ(Dims(t1), (std::vector<int64_t>{2, 4}));
  EXPECT_VALUES_NEAR(t1, (std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4}), 0);
  auto t0 = RunOp(Op("Tile", {"x"}, {"y"}).I("tiles", 2).I("axis", 0), t, "y");
  EXPECT_VALUES_NEAR(t0, (std::vector<double>{1, 2, 3, 4, 1, 2, 3, 4}), 0);
  // Each of tiles and axis is required, as production requires it (as Slice's starts and ends).
  ExpectError([&] { RunOp(Op("Tile", {"x"}, {"y"}).I("tiles", 2), t, "y"); },
              ErrorKind::kBadArgument);
  ExpectError([&] { RunOp(Op("Tile", {"x"}, {"y"}).I("axis", 0), t, "y"); },
              ErrorKind::kBadArgument);
  auto tn = RunOp(Op("Tile", {"x"}, {"y"}).I("tiles", 2).I("axis", -1), t, "y");
  EXPECT_VALUES_NEAR(tn, (std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4}), 0);
}

// GatherElements: ONNX's examples (axis 1; axis 0 with negative indices), then an index out of
// range.
TEST(Shape, GatherElements) {
  EXPECT_VALUES_NEAR(RunOp(Op("GatherElements", {"d", "i"}, {"y"}).I("axis", 1),
                           {{"d", F({2, 2}, {1, 2, 3, 4})}, {"i", I64({2, 2}, {0, 0, 1, 0})}},
                           "y"),
                     (std::vector<double>{1, 1, 4, 3}), 0);
  auto y = RunOp(Op("GatherElements", {"d", "i"}, {"y"}),
                 {{"d", F({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
                  {"i", Int({2, 3}, {-1, -2, 0, -2, 0, 0})}},
                 "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{2, 3}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{7, 5, 3, 4, 2, 3}), 0);
  ExpectError(
      [] {
        RunOps({Op("GatherElements", {"d", "i"}, {"y"})},
               {{"d", F({2, 1}, {1, 2})}, {"i", Int({1, 1}, {2})}});
      },
      ErrorKind::kBadArgument);
}

}  // namespace
}  // namespace parity::reference::testing
