// The convolution and pooling kernels' bodies (gpu/kernels/conv_pool_body.h) on the host, with the
// geometry the CUDA ops build (ParseConvGeometry, ConvOutputDims, ConvPoolGeometryOf), against the
// CPU: im2col and col2im against core's Im2Col / Col2ImAdd, the pools and their gradients and the
// activation gradients against the CPU engine's ops, bit for bit (the same float operations in the
// same order: a wrong window, pad or stride moves some element and shows); Conv and ConvGradient
// assembled as the CUDA ops do (bodies plus a plain GEMM standing in for cuBLAS) within a
// tolerance, since the GEMMs' summation orders differ.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/ops/common/conv_geometry.h"
#include "core/ops/conv/conv.h"
#include "core/schema.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/conv_pool_body.h"
#include "gpu/kernels/host_device.h"
#include "gpu/kernels/reduce_body.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

namespace k = gpu::kernels;

// One geometry: input [N, C, H, W] and the op's arguments.
struct Geo {
  std::vector<int64_t> x;
  int64_t kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  int64_t group = 1;
  int64_t m = 4;  // Conv's output channels
  std::string name() const {
    return ShapeString(x) + " k" + std::to_string(kh) + "x" + std::to_string(kw) + " s" +
           std::to_string(sh) + "x" + std::to_string(sw) + " d" + std::to_string(dh) + "x" +
           std::to_string(dw) + " p" + std::to_string(pt) + "," + std::to_string(pl) + "," +
           std::to_string(pb) + "," + std::to_string(pr) + " g" + std::to_string(group);
  }
  std::vector<TestArg> Args(bool with_dilation = true) const {
    std::vector<TestArg> args = {{"kernel_h", kh}, {"kernel_w", kw}, {"stride_h", sh},
                                 {"stride_w", sw}, {"pad_t", pt},    {"pad_l", pl},
                                 {"pad_b", pb},    {"pad_r", pr}};
    if (with_dilation) {
      args.push_back({"dilation_h", dh});
      args.push_back({"dilation_w", dw});
    }
    return args;
  }
};

// Convolution geometries: pads, strides, dilations, groups, odd sizes, pointwise.
const std::vector<Geo>& ConvGeos() {
  static const std::vector<Geo> geos = {
      {{2, 3, 7, 6}, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {{1, 2, 9, 8}, 3, 2, 2, 3, 1, 1, 0, 1, 2, 0},
      {{2, 4, 11, 7}, 3, 3, 2, 1, 2, 3, 2, 1, 1, 3, 2, 6},
      {{1, 6, 5, 5}, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 3, 3},  // depthwise-like: group 3
      {{3, 2, 4, 5}, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 4},  // pointwise, 2 groups
      {{1, 1, 6, 9}, 5, 1, 1, 2, 1, 1, 2, 0, 2, 0},
  };
  return geos;
}

// Pooling geometries (pads smaller than the kernel, every dilated window covering the input).
const std::vector<Geo>& PoolGeos() {
  static const std::vector<Geo> geos = {
      {{2, 3, 7, 6}, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
      {{1, 2, 9, 8}, 3, 2, 1, 3, 1, 1, 0, 1, 2, 0},
      {{2, 2, 5, 7}, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1},  // overlapping windows, pads all round
      {{1, 3, 10, 9}, 3, 3, 2, 1, 2, 2, 2, 1, 1, 2},  // dilated
      {{2, 1, 4, 4}, 4, 4, 1, 1, 1, 1, 0, 0, 0, 0},  // one window over everything
      {{1, 2, 6, 5}, 1, 2, 3, 1, 1, 1, 0, 1, 0, 0},
  };
  return geos;
}

void ExpectSameBits(const std::vector<float>& actual, const float* expected, size_t n,
                    const std::string& what) {
  ASSERT_EQ(actual.size(), n) << what;
  for (size_t i = 0; i < n; ++i) {
    const bool both_nan = std::isnan(actual[i]) && std::isnan(expected[i]);
    ASSERT_TRUE(both_nan || std::memcmp(&actual[i], &expected[i], sizeof(float)) == 0)
        << what << " element " << i << ": body " << actual[i] << ", CPU " << expected[i];
  }
}

// Small integers (many ties for MaxPool, exact sums) or general floats.
Tensor Data(const std::vector<int64_t>& dims, uint32_t seed, bool ties) {
  if (!ties) return RandomTensor(dims, seed);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-3, 3);
  Tensor t(DataType::kFloat, dims);
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<float>()[i] = dist(rng) * 0.5f;
  return t;
}

// The geometry as the CUDA ops build it from the def and X's dims; *y_dims gets the output dims.
k::ConvPoolGeometry OpGeometry(const caffe2::OperatorDef& def, ConvKind kind, int64_t planes,
                               const std::vector<int64_t>& x, int64_t channels,
                               std::vector<int64_t>* y_dims) {
  ConvGeometry g = ParseConvGeometry(ArgumentHelper(def, OpSchemaRegistry::Find(def.type())), kind);
  ConvOutputDims(def.type(), x, channels, &g, y_dims);
  return gpu::ConvPoolGeometryOf(g, planes, x[2], x[3], (*y_dims)[2], (*y_dims)[3]);
}

TEST(ConvPoolBody, Im2ColAndCol2ImMatchCoreBitForBit) {
  uint32_t seed = 1;
  for (const Geo& geo : ConvGeos()) {
    const caffe2::OperatorDef def = MakeOp("Conv", {"x", "w"}, {"y"}, geo.Args());
    const int64_t C = geo.x[1], H = geo.x[2], W = geo.x[3];
    std::vector<int64_t> y_dims;
    const k::ConvPoolGeometry kg = OpGeometry(def, ConvKind::kConv, C, geo.x, geo.m, &y_dims);
    ConvGeometry cg = ParseConvGeometry(ArgumentHelper(def, OpSchemaRegistry::Find("Conv")),
                                        ConvKind::kConv);
    const int64_t out_h = y_dims[2], out_w = y_dims[3];
    const int64_t col_size = C * geo.kh * geo.kw * out_h * out_w;
    const Tensor x = Data({C, H, W}, seed++, false);

    std::vector<float> expected_col(col_size, -1.0f), col(col_size, -2.0f);
    Im2Col(x.data<float>(), C, H, W, cg, 0, out_h, out_w, expected_col.data());
    k::RunBodyOnHost(col_size,
                     [&](int64_t i) { k::Im2ColBody(x.data<float>(), col.data(), kg, i); });
    ExpectSameBits(col, expected_col.data(), col_size, "im2col " + geo.name());

    const Tensor dcol = Data({col_size}, seed++, false);
    std::vector<float> expected_dx(C * H * W, 0.0f), dx(C * H * W, -3.0f);
    Col2ImAdd(dcol.data<float>(), C, H, W, cg, 0, out_h, out_w, expected_dx.data());
    k::RunBodyOnHost(C * H * W,
                     [&](int64_t i) { k::Col2ImBody(dcol.data<float>(), dx.data(), kg, i); });
    ExpectSameBits(dx, expected_dx.data(), dx.size(), "col2im " + geo.name());
  }
}

// What StridedBatchedGemm (gpu/ops/gemm.h) asks of cuBLAS, in plain row-major loops (in
// double): Y_b = op(A_b) op(B_b) + beta Y_b for each product b of the batch.
void HostBatchedGemm(const gpu::BatchedGemm& p, float beta, const float* a, const float* b,
                     float* y) {
  for (int64_t batch = 0; batch < p.batch; ++batch) {
    const float* ab = a + batch * p.stride_a;
    const float* bb = b + batch * p.stride_b;
    float* yb = y + batch * p.stride_y;
    for (int64_t i = 0; i < p.M; ++i) {
      for (int64_t j = 0; j < p.N; ++j) {
        double sum = 0;
        for (int64_t q = 0; q < p.K; ++q) {
          sum += static_cast<double>(p.trans_a ? ab[q * p.M + i] : ab[i * p.K + q]) *
                 (p.trans_b ? bb[j * p.K + q] : bb[q * p.N + j]);
        }
        yb[i * p.N + j] = static_cast<float>(sum + beta * yb[i * p.N + j]);
      }
    }
  }
}

// Conv and ConvGradient as gpu/ops/conv.cc assembles them: per image the im2col body (for a
// pointwise convolution the identity, which the op skips), then the op's own batched GEMMs
// (ConvGemmsOf) over the groups; the bias by FillChannelsBody, db by the reduction body over the
// op's geometry, dX by the col2im body. Against the CPU engine's IM2COL kernels. Tolerance: the
// GEMMs sum in other orders (here in double), so 1e-5 absolute on values of magnitude <= ~10; db
// is the same serial sum as the CPU's and must match exactly.
TEST(ConvPoolBody, ConvAndConvGradientAssembledAsTheCudaOpsMatchTheCpu) {
  uint32_t seed = 50;
  for (const Geo& geo : ConvGeos()) {
    const int64_t N = geo.x[0], C = geo.x[1], H = geo.x[2], W = geo.x[3], M = geo.m;
    const std::vector<int64_t> w_dims = {M, C / geo.group, geo.kh, geo.kw};
    std::vector<TestArg> args = geo.Args();
    args.push_back({"group", geo.group});
    const caffe2::OperatorDef conv = MakeOp("Conv", {"x", "w", "b"}, {"y"}, args, "IM2COL");
    const Tensor x = Data(geo.x, seed++, false), w = Data(w_dims, seed++, false);
    const Tensor b = Data({M}, seed++, false);
    auto ws = RunOp(conv, {{"x", x}, {"w", w}, {"b", b}});
    const Tensor& expected_y = ws->GetBlob("y")->GetTensor();

    std::vector<int64_t> y_dims;
    const k::ConvPoolGeometry kg = OpGeometry(conv, ConvKind::kConv, C, geo.x, M, &y_dims);
    ASSERT_EQ(y_dims, expected_y.dims()) << geo.name();
    const int64_t out_hw = y_dims[2] * y_dims[3];
    const int64_t kk = C / geo.group * geo.kh * geo.kw;
    const gpu::ConvGemms gemms = gpu::ConvGemmsOf(
        geo.x, y_dims,
        ParseConvGeometry(ArgumentHelper(conv, OpSchemaRegistry::Find("Conv")), ConvKind::kConv),
        geo.group);
    std::vector<float> y(N * M * out_hw), col(C * geo.kh * geo.kw * out_hw);
    k::RunBodyOnHost(y.size(), [&](int64_t i) {
      k::FillChannelsBody(b.data<float>(), y.data(), M, out_hw, i);
    });
    for (int64_t n = 0; n < N; ++n) {
      k::RunBodyOnHost(col.size(), [&](int64_t i) {
        k::Im2ColBody(x.data<float>() + n * C * H * W, col.data(), kg, i);
      });
      HostBatchedGemm(gemms.forward, 1.0f, w.data<float>(), col.data(), y.data() + n * M * out_hw);
    }
    for (size_t i = 0; i < y.size(); ++i) {
      ASSERT_NEAR(y[i], expected_y.data<float>()[i], 1e-5) << "Conv " << geo.name() << " " << i;
    }

    // ConvGradient (X, W, dY) -> (dW, db, dX).
    const Tensor dy = Data(y_dims, seed++, false);
    auto gws = RunOp(MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}, args, "IM2COL"),
                     {{"x", x}, {"w", w}, {"dy", dy}});
    std::vector<float> db(M);
    const k::ReduceGeometry rg =
        gpu::ReduceGeometryOf("ConvGradient", {N, M, out_hw}, {true, false, true});
    k::RunBodyOnHost(M, [&](int64_t o) {
      k::ReduceSumBody(dy.data<float>(), db.data(), N * out_hw, false, rg, o);
    });
    ExpectSameBits(db, gws->GetBlob("db")->GetTensor().data<float>(), M, "db " + geo.name());

    std::vector<float> dw(M * kk, 0.0f), dx(N * C * H * W), dcol(col.size());
    for (int64_t n = 0; n < N; ++n) {
      k::RunBodyOnHost(col.size(), [&](int64_t i) {
        k::Im2ColBody(x.data<float>() + n * C * H * W, col.data(), kg, i);
      });
      const float* dy_n = dy.data<float>() + n * M * out_hw;
      HostBatchedGemm(gemms.weight_grad, n == 0 ? 0.0f : 1.0f, dy_n, col.data(), dw.data());
      HostBatchedGemm(gemms.data_grad, 0.0f, w.data<float>(), dy_n, dcol.data());
      k::RunBodyOnHost(C * H * W, [&](int64_t i) {
        k::Col2ImBody(dcol.data(), dx.data() + n * C * H * W, kg, i);
      });
    }
    const float* expected_dw = gws->GetBlob("dw")->GetTensor().data<float>();
    for (size_t i = 0; i < dw.size(); ++i) {
      ASSERT_NEAR(dw[i], expected_dw[i], 1e-5) << "dW " << geo.name() << " " << i;
    }
    const float* expected_dx = gws->GetBlob("dx")->GetTensor().data<float>();
    for (size_t i = 0; i < dx.size(); ++i) {
      ASSERT_NEAR(dx[i], expected_dx[i], 1e-5) << "dX " << geo.name() << " " << i;
    }
  }
}

// MaxPool (with Indices) and AveragePool (both count_include_pad settings), then their gradients,
// body against the CPU engine bit for bit. Data with many ties, so "the first maximum in scan
// order" decides which element wins and is credited, and general floats.
void CheckPools(const std::vector<int64_t>& x_dims, const std::vector<TestArg>& args,
                const std::string& name, uint32_t seed) {
  for (bool ties : {true, false}) {
    const Tensor x = Data(x_dims, seed, ties);
    const int64_t planes = x_dims[0] * x_dims[1];
    // MaxPool and MaxPoolGradient.
    const caffe2::OperatorDef max_def = MakeOp("MaxPool", {"x"}, {"y", "i"}, args);
    auto ws = RunOp(max_def, {{"x", x}});
    const Tensor& expected_y = ws->GetBlob("y")->GetTensor();
    std::vector<int64_t> y_dims;
    const k::ConvPoolGeometry kg =
        OpGeometry(max_def, ConvKind::kPool, planes, x_dims, x_dims[1], &y_dims);
    ASSERT_EQ(y_dims, expected_y.dims()) << name;
    const int64_t out = expected_y.numel();
    std::vector<float> y(out, -9.0f);
    std::vector<int64_t> indices(out, -1);
    k::RunBodyOnHost(out, [&](int64_t i) {
      k::MaxPoolBody(x.data<float>(), y.data(), indices.data(), kg, i);
    });
    ExpectSameBits(y, expected_y.data<float>(), out, "MaxPool " + name);
    EXPECT_EQ(indices, Values<int64_t>(ws->GetBlob("i")->GetTensor()))
        << "MaxPool indices " << name;

    const Tensor dy = Data(y_dims, seed + 1, false);
    auto gws = RunOp(MakeOp("MaxPoolGradient", {"x", "y", "dy"}, {"dx"}, args),
                     {{"x", x}, {"y", expected_y}, {"dy", dy}});
    std::vector<int64_t> argmax(out, -1);
    k::RunBodyOnHost(out, [&](int64_t i) {
      k::MaxPoolBody(x.data<float>(), nullptr, argmax.data(), kg, i);
    });
    std::vector<float> dx(x.numel(), -9.0f);
    k::RunBodyOnHost(x.numel(), [&](int64_t i) {
      k::MaxPoolGradientBody(argmax.data(), dy.data<float>(), dx.data(), kg, i);
    });
    ExpectSameBits(dx, gws->GetBlob("dx")->GetTensor().data<float>(), x.numel(),
                   "MaxPoolGradient " + name);

    for (int cip : {0, 1}) {
      std::vector<TestArg> avg_args = args;
      avg_args.push_back({"count_include_pad", cip});
      const std::string what = name + " count_include_pad " + std::to_string(cip);
      auto aws = RunOp(MakeOp("AveragePool", {"x"}, {"y"}, avg_args), {{"x", x}});
      std::vector<float> ay(out, -9.0f);
      k::RunBodyOnHost(out, [&](int64_t i) {
        k::AveragePoolBody(x.data<float>(), ay.data(), kg, cip != 0, i);
      });
      ExpectSameBits(ay, aws->GetBlob("y")->GetTensor().data<float>(), out, "AveragePool " + what);
      auto agws = RunOp(MakeOp("AveragePoolGradient", {"x", "y", "dy"}, {"dx"}, avg_args),
                        {{"x", x}, {"y", aws->GetBlob("y")->GetTensor()}, {"dy", dy}});
      std::vector<float> adx(x.numel(), -9.0f);
      k::RunBodyOnHost(x.numel(), [&](int64_t i) {
        k::AveragePoolGradientBody(dy.data<float>(), adx.data(), kg, cip != 0, i);
      });
      ExpectSameBits(adx, agws->GetBlob("dx")->GetTensor().data<float>(), x.numel(),
                     "AveragePoolGradient " + what);
    }
  }
}

TEST(ConvPoolBody, PoolsAndTheirGradientsMatchTheCpuEngineBitForBit) {
  uint32_t seed = 200;
  for (const Geo& geo : PoolGeos()) CheckPools(geo.x, geo.Args(), geo.name(), seed += 3);
}

TEST(ConvPoolBody, GlobalPoolingMatchesTheCpuEngineBitForBit) {
  CheckPools({2, 3, 5, 7}, {{"global_pooling", 1}}, "global 5x7", 300);
  CheckPools({1, 2, 1, 1}, {{"global_pooling", 1}}, "global 1x1", 301);
}

// A NaN wins a max window only as its first element (the CPU's rule); the argmax and gradient
// follow it.
TEST(ConvPoolBody, MaxPoolNaNOnlyAsTheFirstElement) {
  const float nan = std::nanf("");
  const Tensor x = MakeTensor<float>({1, 1, 2, 4}, {nan, 1, 2, nan, 0, 3, 1, 1});
  const std::vector<TestArg> args = {{"kernel", 2}, {"stride", 2}};
  auto ws = RunOp(MakeOp("MaxPool", {"x"}, {"y", "i"}, args), {{"x", x}});
  std::vector<int64_t> y_dims;
  const k::ConvPoolGeometry kg = OpGeometry(MakeOp("MaxPool", {"x"}, {"y"}, args),
                                            ConvKind::kPool, 1, {1, 1, 2, 4}, 1, &y_dims);
  std::vector<float> y(2);
  std::vector<int64_t> indices(2);
  k::RunBodyOnHost(2, [&](int64_t i) {
    k::MaxPoolBody(x.data<float>(), y.data(), indices.data(), kg, i);
  });
  EXPECT_TRUE(std::isnan(y[0]));  // first element of window 0
  EXPECT_EQ(y[1], 2.0f);          // the NaN at (0, 3) is not first in window 1
  EXPECT_EQ(indices, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(indices, Values<int64_t>(ws->GetBlob("i")->GetTensor()));
}

TEST(ConvPoolBody, ActivationGradientsMatchTheCpuEngineBitForBit) {
  const Tensor dy = RandomTensor({3, 17}, 9, -2.0f, 2.0f);
  const struct {
    const char* type;
    k::ActivationGradient fn;
    float lo, hi;
  } cases[] = {{"ReluGradient", k::ActivationGradient::kRelu, -1.0f, 1.0f},
               {"SigmoidGradient", k::ActivationGradient::kSigmoid, 0.0f, 1.0f},
               {"TanhGradient", k::ActivationGradient::kTanh, -1.0f, 1.0f}};
  for (const auto& c : cases) {
    Tensor y = RandomTensor({3, 17}, 10, c.lo, c.hi);
    y.mutable_data<float>()[5] = 0.0f;  // Relu: Y == 0 gives 0
    auto ws = RunOp(MakeOp(c.type, {"y", "dy"}, {"dx"}), {{"y", y}, {"dy", dy}});
    std::vector<float> dx(y.numel());
    k::RunBodyOnHost(y.numel(), [&](int64_t i) {
      k::ActivationGradientBody(c.fn, y.data<float>(), dy.data<float>(), dx.data(), i);
    });
    ExpectSameBits(dx, ws->GetBlob("dx")->GetTensor().data<float>(), dx.size(), c.type);
  }
}

}  // namespace
}  // namespace parity::testing
