// Shape bodies (gpu/kernels/shape_body.h) on the host against the CPU engine: Transpose and Slice
// through the strided copy, Concat and Split through band copies, Gather. Every value is moved,
// never computed, so every comparison is exact.
#include "gpu/kernels/shape_body.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace parity::gpu::kernels {
namespace {

using testing::Ints;
using testing::MakeOp;
using testing::MakeTensor;
using testing::RandomTensor;
using testing::RunOp;
using testing::Values;

std::vector<int64_t> Strides(const Ints& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int a = static_cast<int>(dims.size()) - 2; a >= 0; --a) {
    strides[a] = strides[a + 1] * dims[a + 1];
  }
  return strides;
}

// Float bits as the kernels move them: 32-bit words.
std::vector<uint32_t> Words(const Tensor& t) {
  const auto* p = static_cast<const uint32_t*>(t.raw_data());
  return std::vector<uint32_t>(p, p + t.numel());
}

TEST(ShapeBodyTest, TransposeMatchesTheCpu) {
  const Ints dims{2, 3, 4, 5};
  const std::vector<int> perm{2, 0, 3, 1};
  const Tensor x = RandomTensor(dims, 1);
  auto ws = RunOp(MakeOp("Transpose", {"x"}, {"y"}, {{"axes", Ints{2, 0, 3, 1}}}), {{"x", x}});
  const Tensor& expected = ws->GetTensor("y");
  StridedGeometry g;
  g.rank = 4;
  const std::vector<int64_t> in_strides = Strides(dims);
  for (int a = 0; a < 4; ++a) {
    g.out_dims[a] = dims[perm[a]];
    g.strides[a] = in_strides[perm[a]];
  }
  std::vector<uint32_t> y(x.numel());
  const std::vector<uint32_t> in = Words(x);
  RunBodyOnHost(x.numel(), [&](int64_t o) { StridedCopyElement(o, g, in.data(), y.data()); });
  EXPECT_EQ(expected.dims(), (Ints{4, 2, 5, 3}));
  EXPECT_EQ(y, Words(expected));
}

TEST(ShapeBodyTest, SliceMatchesTheCpu) {
  const Ints dims{3, 4, 5};
  const Tensor x = RandomTensor(dims, 2);
  // Rows 1..2, columns 1..end (-1), all of the last axis: begin [1, 1, 0], box [2, 3, 5].
  auto ws = RunOp(MakeOp("Slice", {"x"}, {"y"}, {{"starts", Ints{1, 1}}, {"ends", Ints{3, -1}}}),
                  {{"x", x}});
  const Tensor& expected = ws->GetTensor("y");
  ASSERT_EQ(expected.dims(), (Ints{2, 3, 5}));
  StridedGeometry g;
  g.rank = 3;
  const std::vector<int64_t> strides = Strides(dims);
  const Ints begin{1, 1, 0};
  for (int a = 0; a < 3; ++a) {
    g.out_dims[a] = expected.dims()[a];
    g.strides[a] = strides[a];
    g.base += begin[a] * strides[a];
  }
  std::vector<uint32_t> y(expected.numel());
  const std::vector<uint32_t> in = Words(x);
  RunBodyOnHost(expected.numel(), [&](int64_t o) { StridedCopyElement(o, g, in.data(), y.data()); });
  EXPECT_EQ(y, Words(expected));
}

TEST(ShapeBodyTest, ConcatAndSplitMatchTheCpu) {
  // Concat on axis 1 of [2, 1, 3] and [2, 2, 3]: outer 2, inner 3, output rows of 9.
  const Tensor a = RandomTensor({2, 1, 3}, 3);
  const Tensor b = RandomTensor({2, 2, 3}, 4);
  auto ws = RunOp(MakeOp("Concat", {"a", "b"}, {"y"}, {{"axis", 1}}), {{"a", a}, {"b", b}});
  const Tensor& expected = ws->GetTensor("y");
  std::vector<uint32_t> y(expected.numel());
  int64_t column = 0;
  for (const Tensor* t : {&a, &b}) {
    BandGeometry g;
    g.width = t->dims()[1] * 3;
    g.src_row = g.width;
    g.dst_row = 9;
    g.dst_col = column;
    const std::vector<uint32_t> src = Words(*t);
    RunBodyOnHost(2 * g.width, [&](int64_t i) { BandCopyElement(i, g, src.data(), y.data()); });
    column += g.width;
  }
  EXPECT_EQ(y, Words(expected));

  // Split it back: each output a band of the input's rows.
  auto split = RunOp(MakeOp("Split", {"y"}, {"p", "q"}, {{"axis", 1}, {"split", Ints{1, 2}}}),
                     {{"y", expected}});
  column = 0;
  const std::vector<uint32_t> whole = Words(expected);
  for (const char* name : {"p", "q"}) {
    const Tensor& piece = split->GetTensor(name);
    BandGeometry g;
    g.width = piece.dims()[1] * 3;
    g.src_row = 9;
    g.src_col = column;
    g.dst_row = g.width;
    std::vector<uint32_t> out(piece.numel());
    RunBodyOnHost(2 * g.width, [&](int64_t i) { BandCopyElement(i, g, whole.data(), out.data()); });
    EXPECT_EQ(out, Words(piece)) << name;
    column += g.width;
  }
  EXPECT_EQ(Words(split->GetTensor("p")), Words(a));
  EXPECT_EQ(Words(split->GetTensor("q")), Words(b));
}

TEST(ShapeBodyTest, GatherMatchesTheCpuWithNegativeIndices) {
  // DATA [2, 4, 3] gathered on axis 1 with indices [[3, -1], [0, 2], [-4, 1]] (wrap_indices=1).
  const Tensor data = RandomTensor({2, 4, 3}, 5);
  const Tensor idx = MakeTensor<int64_t>({3, 2}, {3, -1, 0, 2, -4, 1});
  auto ws = RunOp(MakeOp("Gather", {"d", "i"}, {"y"}, {{"axis", 1}, {"wrap_indices", 1}}),
                  {{"d", data}, {"i", idx}});
  const Tensor& expected = ws->GetTensor("y");
  ASSERT_EQ(expected.dims(), (Ints{2, 3, 2, 3}));
  std::vector<uint32_t> y(expected.numel());
  const std::vector<uint32_t> in = Words(data);
  RunBodyOnHost(expected.numel(), [&](int64_t k) {
    GatherElement(k, in.data(), idx.data<int64_t>(), /*n=*/6, /*bound=*/4, /*block=*/3, y.data());
  });
  EXPECT_EQ(y, Words(expected));
}

TEST(ShapeBodyTest, SliceGradientMatchesTheCpu) {
  const Ints dims{3, 4, 5};
  const Tensor x = RandomTensor(dims, 6);
  const Tensor dy = RandomTensor({2, 3, 5}, 7);
  auto ws = RunOp(MakeOp("SliceGradient", {"x", "dy"}, {"dx"},
                         {{"starts", Ints{1, 1}}, {"ends", Ints{3, -1}}}),
                  {{"x", x}, {"dy", dy}});
  StridedGeometry g;
  g.rank = 3;
  const std::vector<int64_t> strides = Strides(dims);
  const Ints begin{1, 1, 0}, box{2, 3, 5};
  for (int a = 0; a < 3; ++a) {
    g.out_dims[a] = box[a];
    g.strides[a] = strides[a];
    g.base += begin[a] * strides[a];
  }
  std::vector<uint32_t> dx(x.numel(), 0);  // the op zeroes dX first (0.0f is all-zero bits)
  const std::vector<uint32_t> in = Words(dy);
  RunBodyOnHost(dy.numel(), [&](int64_t o) { StridedScatterElement(o, g, in.data(), dx.data()); });
  EXPECT_EQ(dx, Words(ws->GetTensor("dx")));
}

TEST(ShapeBodyTest, GatherGradientAddsRepeatedIndicesInTheCpusOrder) {
  // DATA [2, 3, 4] on axis 1, indices [2, -1, 0, 2] (wrapping): row 2 is picked three times.
  const Tensor data = RandomTensor({2, 3, 4}, 8);
  const Tensor idx = MakeTensor<int32_t>({4}, {2, -1, 0, 2});
  const Tensor dy = RandomTensor({2, 4, 4}, 9);
  auto ws = RunOp(MakeOp("GatherGradient", {"d", "i", "dy"}, {"dd"},
                         {{"axis", 1}, {"wrap_indices", 1}}),
                  {{"d", data}, {"i", idx}, {"dy", dy}});
  std::vector<float> dd(data.numel(), -1.0f);
  RunBodyOnHost(data.numel(), [&](int64_t e) {
    GatherGradientElement(e, dy.data<float>(), idx.data<int32_t>(), 4, 3, 4, dd.data());
  });
  // Sums in the same order from 0: the same bits.
  EXPECT_EQ(dd, Values<float>(ws->GetTensor("dd")));
  const float* g = dy.data<float>();
  EXPECT_EQ(dd[4], 0.0f);                            // row 1 of batch 0: never picked
  EXPECT_EQ(dd[8], ((0.0f + g[0]) + g[4]) + g[12]);  // row 2: indices 0, 1 (-1) and 3
}

TEST(ShapeBodyTest, TileAndItsGradientMatchTheCpu) {
  // [2, 3, 2] tiled 3 times on axis 1: outer 2, block 3 * 2 = 6.
  const Tensor x = RandomTensor({2, 3, 2}, 10);
  auto ws = RunOp(MakeOp("Tile", {"x"}, {"y"}, {{"tiles", 3}, {"axis", 1}}), {{"x", x}});
  const Tensor& expected = ws->GetTensor("y");
  ASSERT_EQ(expected.dims(), (Ints{2, 9, 2}));
  std::vector<uint32_t> y(expected.numel());
  const std::vector<uint32_t> in = Words(x);
  RunBodyOnHost(expected.numel(), [&](int64_t o) { TileElement(o, in.data(), 3, 6, y.data()); });
  EXPECT_EQ(y, Words(expected));

  const Tensor dy = RandomTensor({2, 9, 2}, 11);
  auto grad = RunOp(MakeOp("TileGradient", {"dy"}, {"dx"}, {{"tiles", 3}, {"axis", 1}}),
                    {{"dy", dy}});
  std::vector<float> dx(12);
  RunBodyOnHost(12, [&](int64_t e) { TileGradientElement(e, dy.data<float>(), 3, 6, dx.data()); });
  EXPECT_EQ(dx, Values<float>(grad->GetTensor("dx")));  // the same order of additions
}

TEST(ShapeBodyTest, GatherInt32IndicesOnAxis0ByHand) {
  const std::vector<uint32_t> data{10, 11, 20, 21, 30, 31};  // [3, 2]
  const std::vector<int32_t> idx{2, 0, -1};
  std::vector<uint32_t> y(6);
  RunBodyOnHost(6, [&](int64_t k) { GatherElement(k, data.data(), idx.data(), 3, 3, 2, y.data()); });
  EXPECT_EQ(y, (std::vector<uint32_t>{30, 31, 10, 11, 30, 31}));
}

}  // namespace
}  // namespace parity::gpu::kernels
