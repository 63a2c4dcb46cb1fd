// Conv, ConvRelu and ConvGradient on their two CPU engines: DNNL (the default, oneDNN's
// primitives) and IM2COL (im2col + GEMM) agree on hand-picked shapes (groups, depthwise, stride 2,
// asymmetric pads, dilation, no bias, pointwise) within the rounding bound of their sums.
//
// The bound: each output is a sum of K products (plus the bias), and any f32 summation order,
// with or without FMA, computes it within gamma_K * sum |terms| of the exact value, gamma_K =
// K u / (1 - K u), u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 3.1). The
// two engines sum in different orders, so they may differ by twice that, per element, where
// sum |terms| is computed here in f64 from the same taps. K is the accumulation length: C/G*kh*kw
// (+1 for the bias) for Y and dX's M/G*kh*kw, N*out_h*out_w for dW and db.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/conv_geometry.h"
#include "core/ops/conv/conv_dnnl.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

struct Instance {
  std::string name;
  int64_t n, c, h, w, m, kh, kw;
  int64_t group = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_t = 0, pad_l = 0, pad_b = 0, pad_r = 0;
  int64_t dilation_h = 1, dilation_w = 1;
  bool bias = true;

  int64_t out_h() const { return (h + pad_t + pad_b - (dilation_h * (kh - 1) + 1)) / stride_h + 1; }
  int64_t out_w() const { return (w + pad_l + pad_r - (dilation_w * (kw - 1) + 1)) / stride_w + 1; }
  std::vector<int64_t> x_dims() const { return {n, c, h, w}; }
  std::vector<int64_t> w_dims() const { return {m, c / group, kh, kw}; }
  std::vector<int64_t> y_dims() const { return {n, m, out_h(), out_w()}; }
  std::vector<TestArg> args() const {
    return {{"kernel_h", kh},
            {"kernel_w", kw},
            {"stride_h", stride_h},
            {"stride_w", stride_w},
            {"pads", Ints{pad_t, pad_l, pad_b, pad_r}},
            {"dilation_h", dilation_h},
            {"dilation_w", dilation_w},
            {"group", group}};
  }
  ConvGeometry geometry() const {
    ConvGeometry g;
    g.kernel_h = kh;
    g.kernel_w = kw;
    g.stride_h = stride_h;
    g.stride_w = stride_w;
    g.dilation_h = dilation_h;
    g.dilation_w = dilation_w;
    g.pad_t = pad_t;
    g.pad_l = pad_l;
    g.pad_b = pad_b;
    g.pad_r = pad_r;
    return g;
  }
};

std::vector<Instance> Instances() {
  std::vector<Instance> out;
  out.push_back({"plain 3x3 pad 1", 2, 3, 9, 8, 5, 3, 3});
  out.back().pad_t = out.back().pad_l = out.back().pad_b = out.back().pad_r = 1;
  out.push_back({"groups 2", 2, 6, 9, 8, 4, 3, 3, 2});
  out.back().pad_t = out.back().pad_b = 1;
  out.push_back({"depthwise", 1, 8, 10, 10, 8, 3, 3, 8});
  out.back().pad_t = out.back().pad_l = out.back().pad_b = out.back().pad_r = 1;
  out.push_back({"depthwise, multiplier 2, no bias", 1, 4, 7, 9, 8, 3, 3, 4});
  out.back().bias = false;
  out.push_back({"stride 2", 2, 5, 11, 9, 7, 3, 3, 1, 2, 2, 1, 1, 1, 1});
  out.push_back({"strides 2 x 3, no bias", 1, 3, 12, 13, 4, 2, 3, 1, 2, 3});
  out.back().bias = false;
  out.push_back({"asymmetric pads", 1, 2, 6, 7, 3, 3, 2, 1, 1, 1, 2, 0, 1, 3});
  out.push_back({"dilation 2", 1, 3, 9, 9, 4, 3, 3, 1, 1, 1, 2, 2, 2, 2, 2, 2});
  out.push_back({"dilation 2 x 3, stride 2", 2, 4, 11, 13, 6, 3, 2, 2, 2, 1, 1, 0, 0, 2, 2, 3});
  out.push_back({"pads wider than the kernel", 1, 2, 5, 5, 3, 2, 2, 1, 1, 1, 3, 3, 3, 3});
  out.push_back({"pointwise", 2, 16, 7, 7, 24, 1, 1});
  out.push_back({"blocked channels", 1, 32, 14, 14, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1});
  out.push_back({"one output pixel", 3, 5, 3, 3, 2, 3, 3});
  return out;
}

double Gamma(int64_t k) {
  const double u = std::ldexp(1.0, -24);
  return k * u / (1 - k * u);
}

// Calls f(y_index, x_index, w_index) for every tap of the convolution that reads the image (taps
// over the padding contribute nothing), in plain loops from the definition.
template <typename F>
void ForEachTap(const Instance& s, F f) {
  const int64_t cg = s.c / s.group, mg = s.m / s.group, oh = s.out_h(), ow = s.out_w();
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t m = 0; m < s.m; ++m) {
      const int64_t g = m / mg;
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          const int64_t yi = ((n * s.m + m) * oh + y) * ow + x;
          for (int64_t c = 0; c < cg; ++c) {
            for (int64_t i = 0; i < s.kh; ++i) {
              const int64_t ih = y * s.stride_h - s.pad_t + i * s.dilation_h;
              if (ih < 0 || ih >= s.h) continue;
              for (int64_t j = 0; j < s.kw; ++j) {
                const int64_t iw = x * s.stride_w - s.pad_l + j * s.dilation_w;
                if (iw < 0 || iw >= s.w) continue;
                f(yi, ((n * s.c + g * cg + c) * s.h + ih) * s.w + iw,
                  ((m * cg + c) * s.kh + i) * s.kw + j);
              }
            }
          }
        }
      }
    }
  }
}

// Every element of a and b within 2 * gamma_k * scale[i] of each other.
void ExpectWithinRounding(const Tensor& a, const Tensor& b, const std::vector<double>& scale,
                          int64_t k, const std::string& what) {
  ASSERT_EQ(a.dims(), b.dims()) << what;
  ASSERT_EQ(a.numel(), static_cast<int64_t>(scale.size())) << what;
  int64_t bad = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double diff = std::abs(double{a.data<float>()[i]} - double{b.data<float>()[i]});
    const double bound = 2 * Gamma(k) * scale[i];
    if (diff > bound && ++bad <= 5) {
      ADD_FAILURE() << what << " element " << i << ": " << a.data<float>()[i] << " vs "
                    << b.data<float>()[i] << ", |diff| " << diff << " > " << bound;
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

class ConvEngines : public ::testing::TestWithParam<Instance> {};

TEST_P(ConvEngines, ForwardAgreesWithinTheRoundingBound) {
  const Instance& s = GetParam();
  const Tensor x = RandomTensor(s.x_dims(), 1), w = RandomTensor(s.w_dims(), 2),
               b = RandomTensor({s.m}, 3);
  std::vector<std::string> inputs = {"x", "w"};
  if (s.bias) inputs.push_back("b");
  std::vector<double> scale(s.n * s.m * s.out_h() * s.out_w(), 0.0);
  ForEachTap(s, [&](int64_t yi, int64_t xi, int64_t wi) {
    scale[yi] += std::abs(double{x.data<float>()[xi]} * w.data<float>()[wi]);
  });
  if (s.bias) {
    const int64_t plane = s.out_h() * s.out_w();
    for (size_t i = 0; i < scale.size(); ++i)
      scale[i] += std::abs(b.data<float>()[i / plane % s.m]);
  }
  const int64_t k = s.c / s.group * s.kh * s.kw + (s.bias ? 1 : 0);
  for (const char* type : {"Conv", "ConvRelu"}) {
    auto run = [&](const std::string& engine) {
      auto ws =
          RunOp(MakeOp(type, inputs, {"y"}, s.args(), engine), {{"x", x}, {"w", w}, {"b", b}});
      return ws->GetTensor("y");
    };
    const Tensor dnnl = run("DNNL"), im2col = run("IM2COL"), by_default = run("");
    EXPECT_EQ(dnnl.dims(), s.y_dims()) << s.name;
    ExpectWithinRounding(dnnl, im2col, scale, k, s.name + ": " + type);
    EXPECT_EQ(Values<float>(by_default), Values<float>(dnnl)) << s.name << ": the default is DNNL";
  }
  // And it is oneDNN that computed it, not the im2col fallback.
  DnnlConvForward direct(s.geometry(), s.group);
  std::vector<float> y(s.n * s.m * s.out_h() * s.out_w());
  EXPECT_TRUE(direct.Run(s.x_dims(), s.w_dims(), s.y_dims(), x.data<float>(), w.data<float>(),
                         s.bias ? b.data<float>() : nullptr, y.data()))
      << s.name << ": oneDNN declined";
}

TEST_P(ConvEngines, GradientAgreesWithinTheRoundingBound) {
  const Instance& s = GetParam();
  const Tensor x = RandomTensor(s.x_dims(), 4), w = RandomTensor(s.w_dims(), 5),
               dy = RandomTensor(s.y_dims(), 6);
  std::vector<double> dw_scale(w.numel(), 0.0), dx_scale(x.numel(), 0.0), db_scale(s.m, 0.0);
  ForEachTap(s, [&](int64_t yi, int64_t xi, int64_t wi) {
    dw_scale[wi] += std::abs(double{dy.data<float>()[yi]} * x.data<float>()[xi]);
    dx_scale[xi] += std::abs(double{dy.data<float>()[yi]} * w.data<float>()[wi]);
  });
  const int64_t plane = s.out_h() * s.out_w();
  for (int64_t i = 0; i < dy.numel(); ++i)
    db_scale[i / plane % s.m] += std::abs(dy.data<float>()[i]);
  // With a bias: (dW, db, dX); without: no_bias=1, (dW, dX).
  std::vector<TestArg> args = s.args();
  std::vector<std::string> outputs = {"dw", "db", "dx"};
  if (!s.bias) {
    args.emplace_back("no_bias", 1);
    outputs = {"dw", "dx"};
  }
  auto run = [&](const std::string& engine) {
    return RunOp(MakeOp("ConvGradient", {"x", "w", "dy"}, outputs, args, engine),
                 {{"x", x}, {"w", w}, {"dy", dy}});
  };
  const auto dnnl = run("DNNL"), im2col = run("IM2COL"), by_default = run("");
  const int64_t positions = s.n * plane;
  ExpectWithinRounding(dnnl->GetTensor("dw"), im2col->GetTensor("dw"), dw_scale, positions,
                       s.name + ": dW");
  ExpectWithinRounding(dnnl->GetTensor("dx"), im2col->GetTensor("dx"), dx_scale,
                       s.m / s.group * s.kh * s.kw, s.name + ": dX");
  if (s.bias) {
    ExpectWithinRounding(dnnl->GetTensor("db"), im2col->GetTensor("db"), db_scale, positions,
                         s.name + ": db");
  }
  for (const std::string& out : outputs) {
    EXPECT_EQ(Values<float>(by_default->GetTensor(out)), Values<float>(dnnl->GetTensor(out)))
        << s.name << ": " << out << ", the default is DNNL";
  }
  DnnlConvBackward direct(s.geometry(), s.group);
  std::vector<float> dw(w.numel()), db(s.m), dx(x.numel());
  EXPECT_TRUE(direct.Run(s.x_dims(), s.w_dims(), s.y_dims(), x.data<float>(), w.data<float>(),
                         dy.data<float>(), dw.data(), s.bias ? db.data() : nullptr, dx.data()))
      << s.name << ": oneDNN declined";
}

INSTANTIATE_TEST_SUITE_P(Shapes, ConvEngines, ::testing::ValuesIn(Instances()),
                         [](const ::testing::TestParamInfo<Instance>& info) {
                           std::string name;
                           for (char ch : info.param.name) {
                             if (std::isalnum(static_cast<unsigned char>(ch))) name += ch;
                           }
                           return name;
                         });

// One op run at several shapes and with new values: the cached primitives follow (rebuilt on a
// new shape, rebound to the tensors' current buffers on every run).
TEST(ConvEngines, CachedPrimitivesFollowShapesAndBuffers) {
  Workspace ws;
  caffe2::OperatorDef def =
      MakeOp("Conv", {"x", "w", "b"}, {"y"}, {{"kernel", 3}, {"pad", 1}}, "DNNL");
  caffe2::OperatorDef reference = def;
  reference.set_engine("IM2COL");
  reference.set_output(0, "y_im2col");
  ws.CreateTensor("x")->CopyFrom(RandomTensor({1, 3, 8, 8}, 1));
  ws.CreateTensor("w")->CopyFrom(RandomTensor({4, 3, 3, 3}, 2));
  ws.CreateTensor("b")->CopyFrom(RandomTensor({4}, 3));
  auto op = CreateOperator(def, &ws);
  auto im2col = CreateOperator(reference, &ws);
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 3, 8, 8}, {1, 3, 8, 8}, {2, 3, 5, 9}, {1, 3, 8, 8}, {3, 3, 16, 4}};
  uint32_t seed = 10;
  for (const auto& dims : shapes) {
    ws.CreateTensor("x")->CopyFrom(RandomTensor(dims, seed++));
    op->Run();
    im2col->Run();
    const Tensor& y = ws.GetTensor("y");
    const Tensor& expected = ws.GetTensor("y_im2col");
    ASSERT_EQ(y.dims(), expected.dims());
    for (int64_t i = 0; i < y.numel(); ++i) {
      // 28 terms of magnitude <= 1: 2 * gamma_28 * 28 < 1e-4.
      EXPECT_NEAR(y.data<float>()[i], expected.data<float>()[i], 1e-4) << ShapeString(dims);
    }
  }
}

// double is not oneDNN's: the DNNL engine falls back to im2col, bit for bit.
TEST(ConvEngines, DoubleFallsBackToIm2col) {
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w = {0.5, -1, 2, 0.25};
  auto run = [&](const std::string& engine, const std::string& type) {
    std::vector<std::string> outputs = {"y"};
    std::map<std::string, Tensor> inputs = {{"x", MakeTensor<double>({1, 1, 3, 3}, x)},
                                            {"w", MakeTensor<double>({1, 1, 2, 2}, w)}};
    if (type == "ConvGradient") {
      outputs = {"dw", "dx"};
      inputs["dy"] = MakeTensor<double>({1, 1, 2, 2}, {1, -2, 3, 0.5});
      auto ws = RunOp(
          MakeOp(type, {"x", "w", "dy"}, outputs, {{"kernel", 2}, {"no_bias", 1}}, engine), inputs);
      return Values<double>(ws->GetTensor("dx"));
    }
    auto ws = RunOp(MakeOp(type, {"x", "w"}, outputs, {{"kernel", 2}}, engine), inputs);
    return Values<double>(ws->GetTensor("y"));
  };
  for (const char* type : {"Conv", "ConvRelu", "ConvGradient"}) {
    EXPECT_EQ(run("DNNL", type), run("IM2COL", type)) << type;
  }
}

TEST(ConvEngines, DnnlIsTheNamedDefaultAndIm2colIsRegistered) {
  for (const char* type : {"Conv", "ConvRelu", "ConvGradient"}) {
    EXPECT_EQ(OperatorRegistry::DefaultEngine(type, kCpuDeviceType), "DNNL") << type;
    const auto engines = OperatorRegistry::Engines(type, kCpuDeviceType);
    for (const char* engine : {"", "DNNL", "IM2COL"}) {
      EXPECT_NE(std::find(engines.begin(), engines.end(), engine), engines.end())
          << type << " lacks engine '" << engine << "'";
    }
  }
  EXPECT_EQ(OperatorRegistry::DefaultEngine("Relu", kCpuDeviceType), "");
}

}  // namespace
}  // namespace parity::testing
