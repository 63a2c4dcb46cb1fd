// ConvTranspose's device algorithm on the host: the GEMM the CUDA op hands cuBLAS
// (ConvGemmsOf(Y, X).data_grad, run here by a plain host loop over its batches, strides and
// transposes), then the fold's body (gpu/kernels/conv_transpose_body.h) over every Y element,
// against the CPU engine's ConvTranspose, bit for bit. Inputs are multiples of 1/8 in [-4, 4]
// (EighthsTensor): every product and partial sum of the GEMM is exact in float, so the GEMM's
// order cannot hide a wrong stride, and the fold (the CPU's order of addition) must give the CPU's
// exact bits; on general floats too where the GEMM has one term per entry (one input channel per
// group), since the fold adds in the CPU's order.
#include "gpu/kernels/conv_transpose_body.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/ops/common/conv_geometry.h"
#include "core/schema.h"
#include "gpu/kernel_geometry.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

namespace k = gpu::kernels;

// Y_b = op(A_b) op(B_b) (beta 0) for every batch b, row-major, summing k in order.
void HostGemm(const gpu::BatchedGemm& p, const float* a, const float* b, float* y) {
  for (int64_t batch = 0; batch < p.batch; ++batch) {
    const float* ab = a + batch * p.stride_a;
    const float* bb = b + batch * p.stride_b;
    float* yb = y + batch * p.stride_y;
    for (int64_t i = 0; i < p.M; ++i) {
      for (int64_t j = 0; j < p.N; ++j) {
        float sum = 0.0f;
        for (int64_t kk = 0; kk < p.K; ++kk) {
          const float av = p.trans_a ? ab[kk * p.M + i] : ab[i * p.K + kk];
          const float bv = p.trans_b ? bb[j * p.K + kk] : bb[kk * p.N + j];
          sum += av * bv;
        }
        yb[i * p.N + j] = sum;
      }
    }
  }
}

struct Case {
  std::vector<int64_t> x;  // [N, C, H, W]
  int64_t m_per_group;     // W is [C, M / group, kh, kw]
  std::vector<TestArg> args;
  int64_t group = 1;
  bool bias = true;
  std::string what;
};

// The CUDA op's computation on the host, from the CPU's parse of the geometry.
std::vector<float> DeviceAlgorithm(const Case& c, const Tensor& x, const Tensor& w, const Tensor* b,
                                   const std::vector<int64_t>& y_dims) {
  std::vector<TestArg> args = c.args;
  const caffe2::OperatorDef def = MakeOp("ConvTranspose", {"x", "w"}, {"y"}, args);
  const ArgumentHelper helper(def, OpSchemaRegistry::Find("ConvTranspose"));
  const ConvGeometry g = ParseConvGeometry(helper, ConvKind::kConv);
  const int64_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3];
  const int64_t M = y_dims[1], out_h = y_dims[2], out_w = y_dims[3];
  const gpu::BatchedGemm spread = gpu::ConvGemmsOf(y_dims, c.x, g, c.group).data_grad;
  const k::ConvPoolGeometry kg = gpu::ConvPoolGeometryOf(g, M, out_h, out_w, H, W);
  std::vector<float> col(M * g.kernel_h * g.kernel_w * H * W, -7.0f);
  std::vector<float> y(N * M * out_h * out_w, -7.0f);
  for (int64_t n = 0; n < N; ++n) {
    HostGemm(spread, w.data<float>(), x.data<float>() + n * C * H * W, col.data());
    float* y_n = y.data() + n * M * out_h * out_w;
    k::RunBodyOnHost(M * out_h * out_w, [&](int64_t i) {
      k::ConvTransposeCol2ImBody(col.data(), b ? b->data<float>() : nullptr, y_n, kg, i);
    });
  }
  return y;
}

// kh x kw from the case's arguments (the filter's dims).
std::vector<int64_t> KernelOf(const Case& c) {
  const caffe2::OperatorDef def = MakeOp("ConvTranspose", {"x", "w"}, {"y"}, c.args);
  const ConvGeometry g = ParseConvGeometry(
      ArgumentHelper(def, OpSchemaRegistry::Find("ConvTranspose")), ConvKind::kConv);
  return {g.kernel_h, g.kernel_w};
}

void Check(const Case& c, const Tensor& x, const Tensor& w, const Tensor& b) {
  std::vector<TestArg> args = c.args;
  if (c.group != 1) args.push_back({"group", c.group});
  Case with_group = c;
  with_group.args = args;
  std::vector<std::string> inputs = {"x", "w"};
  std::map<std::string, Tensor> feed = {{"x", x}, {"w", w}};
  if (c.bias) {
    inputs.push_back("b");
    feed["b"] = b;
  }
  auto ws = RunOp(MakeOp("ConvTranspose", inputs, {"y"}, args), feed);
  const Tensor& want = ws->GetTensor("y");
  const std::vector<float> got =
      DeviceAlgorithm(with_group, x, w, c.bias ? &b : nullptr, want.dims());
  ASSERT_EQ(static_cast<int64_t>(got.size()), want.numel()) << c.what;
  const float* expected = want.data<float>();
  int mismatches = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool same =
        std::isnan(expected[i]) ? std::isnan(got[i]) : std::memcmp(&got[i], &expected[i], 4) == 0;
    if (!same && ++mismatches <= 3) {
      ADD_FAILURE() << c.what << ": Y element " << i << " is " << got[i] << ", the CPU's "
                    << expected[i];
    }
  }
  EXPECT_EQ(mismatches, 0) << c.what << " Y " << ShapeString(want.dims());
}

void CheckExact(const Case& c, uint32_t seed) {
  const std::vector<int64_t> kernel = KernelOf(c);
  const int64_t C = c.x[1];
  const Tensor x = EighthsTensor(c.x, seed);
  const Tensor w = EighthsTensor({C, c.m_per_group, kernel[0], kernel[1]}, seed + 1);
  const Tensor b = EighthsTensor({c.m_per_group * c.group}, seed + 2);
  Check(c, x, w, b);
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {{1, 2, 3, 3}, 3, {{"kernel", 3}}, 1, true, "3x3"},
      {{2, 3, 4, 5}, 2, {{"kernel", 3}, {"stride", 2}}, 1, true, "stride 2"},
      {{2, 2, 3, 4}, 2, {{"kernel", 3}, {"stride", 2}, {"pad", 1}}, 1, false, "pad 1 no bias"},
      {{1, 2, 4, 3},
       3,
       {{"kernel_h", 2}, {"kernel_w", 3}, {"stride_h", 3}, {"stride_w", 1}},
       1,
       true,
       "rectangular kernel and strides"},
      {{1, 2, 3, 3}, 2, {{"kernel", 2}, {"stride", 2}, {"adj", 1}}, 1, true, "adj 1"},
      {{1, 1, 3, 4},
       2,
       {{"kernel", 3}, {"strides", Ints{3, 2}}, {"adjs", Ints{2, 1}}},
       1,
       true,
       "adjs"},
      {{1, 2, 3, 3},
       2,
       {{"kernel", 3}, {"stride", 2}, {"adj_h", 1}, {"adj_w", 0}, {"pads", Ints{0, 1, 2, 1}}},
       1,
       true,
       "adj_h adj_w, asymmetric pads"},
      {{2, 2, 4, 4}, 2, {{"kernel", 3}, {"dilation", 2}}, 1, true, "dilation 2"},
      {{1, 3, 4, 3},
       1,
       {{"kernel", 2}, {"dilations", Ints{2, 1}}, {"stride", 2}, {"pad", 1}},
       1,
       true,
       "dilations and stride"},
      {{2, 4, 3, 3}, 3, {{"kernel", 3}, {"stride", 2}}, 2, true, "group 2"},
      {{1, 6, 2, 3}, 1, {{"kernel", 2}}, 3, false, "group 3, depthwise-like"},
      {{1, 3, 4, 4}, 2, {{"kernel", 1}}, 1, true, "1x1"},
      {{1, 2, 5, 5}, 2, {{"kernel", 3}, {"stride", 2}, {"pad", 2}}, 1, true, "pads cut taps"},
      {{3, 1, 1, 1}, 2, {{"kernel", 3}, {"stride", 2}}, 1, true, "one pixel"},
  };
  return cases;
}

TEST(ConvTransposeBodyTest, MatchesTheCpuBitForBitOnExactValues) {
  uint32_t seed = 1;
  for (const Case& c : Cases()) CheckExact(c, seed += 3);
}

// General floats with one input channel per group: each col entry is a single product (the same
// rounding in any GEMM), so the fold, adding in the CPU's order, must give the CPU's bits.
TEST(ConvTransposeBodyTest, MatchesTheCpuBitForBitOnGeneralFloatsWithOneChannelPerGroup) {
  for (const Case& c : {Case{{2, 1, 3, 4}, 3, {{"kernel", 2}, {"stride", 2}}, 1, true, "C 1"},
                        Case{{1, 2, 3, 3}, 2, {{"kernel", 3}, {"stride", 1}}, 2, true, "G 2"}}) {
    const std::vector<int64_t> kernel = KernelOf(c);
    const Tensor x = RandomTensor(c.x, 5, -3, 3);
    const Tensor w = RandomTensor({c.x[1], c.m_per_group, kernel[0], kernel[1]}, 6);
    const Tensor b = RandomTensor({c.m_per_group * c.group}, 7);
    Check(c, x, w, b);
  }
}

TEST(ConvTransposeBodyTest, NanAndInfReachTheElementsTheCpuGivesThem) {
  Case c{{1, 1, 3, 3}, 2, {{"kernel", 2}, {"stride", 2}}, 1, true, "nan"};
  Tensor x = EighthsTensor(c.x, 9);
  x.mutable_data<float>()[4] = NAN;  // the centre pixel: its 2x2 block of Y in both channels
  x.mutable_data<float>()[0] = INFINITY;
  const Tensor w = EighthsTensor({1, 2, 2, 2}, 10);
  Check(c, x, w, EighthsTensor({2}, 11));
}

}  // namespace
}  // namespace parity::testing
