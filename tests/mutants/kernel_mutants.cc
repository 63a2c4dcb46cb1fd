// The first part of the mutant catalogue: kernels of every family, each bug the kind a kernel
// author makes (a dropped term, an off-by-one axis, a swapped pad, a flipped flag).
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "core/operator.h"
#include "core/tensor.h"
#include "tests/mutants/mutant_cases.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {

using namespace cases;  // NOLINT: the private case builders

void AddKernelMutants(std::vector<Entry>* out) {
  auto add = [out](Mutant m, Wrap w) { out->push_back({std::move(m), std::move(w)}); };

  // ---- linalg
  {
    Wrap w;
    w.after = [](Operator& self) {
      const Tensor& b = self.Input(2);
      float* y = FloatOutput(self, 0);
      const int64_t n = b.numel(), total = self.Output(0)->numel();
      for (int64_t i = 0; i < total; ++i) y[i] -= b.data<float>()[i % n];
    };
    add(M("FC_BIAS_DROPPED", "FC", "forward", "linalg", "FC ignores its bias"), w);
  }
  {
    Wrap w;
    w.edit = [](const Operator&, caffe2::OperatorDef* def) { RemoveArg(def, "trans_b"); };
    add(M("MATMUL_IGNORES_TRANS_B", "MatMul", "forward", "linalg", "MatMul ignores trans_b"), w);
  }
  {
    Wrap w;
    w.after = [](Operator& self) {
      if (self.OutputSize() < 2) return;
      const Tensor& dy = self.Input(2);
      Tensor* db = self.Output(1);
      std::copy(dy.data<float>(), dy.data<float>() + db->numel(), db->mutable_data<float>());
    };
    Mutant m = M("FCGRADIENT_DB_FIRST_ROW", "FCGradient", "gradient", "linalg",
                 "FCGradient's db from the first row of dY only (missing accumulation)");
    m.spec_type = "FC";
    add(m, w);
  }
  {
    Wrap w;
    w.after = [](Operator& self) {
      if (self.OutputSize() < 3) return;
      Tensor* dx = self.Output(2);
      float* p = dx->mutable_data<float>();
      for (int64_t i = 0; i < dx->numel(); ++i) p[i] = -p[i];
    };
    Mutant m = M("FCGRADIENT_DX_SIGN", "FCGradient", "gradient", "linalg",
                 "FCGradient's dX with the wrong sign");
    m.spec_type = "FC";
    add(m, w);
  }

  // ---- conv
  {
    Wrap w;
    w.edit = [](const Operator&, caffe2::OperatorDef* def) {
      for (const char* name : {"dilation", "dilations", "dilation_h", "dilation_w"}) {
        RemoveArg(def, name);
      }
    };
    add(M("CONV_DILATION_IGNORED", "Conv", "forward", "conv", "Conv ignores dilation"), w);
  }
  {
    Wrap w;
    // The filters of group g see the input channels of group g + 1.
    w.inputs[0] = [](const Operator& self, const Tensor& x, Tensor* out) {
      const int64_t group = IntArg(self.def(), "group", 1);
      out->Resize(x.dims());
      const int64_t n = x.dim(0), c = x.dim(1), hw = x.numel() / (n * c), shift = c / group;
      const float* in = x.data<float>();
      float* o = out->mutable_data<float>();
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t ch = 0; ch < c; ++ch) {
          std::copy(in + (i * c + (ch + shift) % c) * hw, in + (i * c + (ch + shift) % c + 1) * hw,
                    o + (i * c + ch) * hw);
        }
      }
    };
    add(M("CONV_GROUP_MIXED", "Conv", "forward", "conv",
          "Conv's groups read the next group's input channels"),
        w);
  }
  {
    Wrap w;
    w.edit = [](const Operator&, caffe2::OperatorDef* def) {
      SwapPads(def, "pad_t", "pad_b", 0, 2);
    };
    add(M("CONV_PAD_TB_SWAPPED", "Conv", "forward", "conv", "Conv swaps the top and bottom pads"),
        w);
  }
  {
    Wrap w;
    w.edit = [](const Operator&, caffe2::OperatorDef* def) {
      SwapPads(def, "pad_l", "pad_r", 1, 3);
    };
    Mutant m = M("CONVGRADIENT_PAD_LR_SWAPPED", "ConvGradient", "gradient", "conv",
                 "ConvGradient swaps the left and right pads");
    m.spec_type = "Conv";
    add(m, w);
  }

  // ---- pool
  {
    Wrap w;
    w.edit = [](const Operator&, caffe2::OperatorDef* def) {
      SetInt(def, "count_include_pad", IntArg(*def, "count_include_pad", 0) == 0 ? 1 : 0);
    };
    add(M("AVERAGEPOOL_COUNT_INCLUDE_PAD_FLIPPED", "AveragePool", "forward", "pool",
          "AveragePool's count_include_pad flipped"),
        w);
    Mutant m = M("AVERAGEPOOLGRADIENT_COUNT_INCLUDE_PAD_FLIPPED", "AveragePoolGradient", "gradient",
                 "pool", "AveragePoolGradient's count_include_pad flipped");
    m.spec_type = "AveragePool";
    add(m, w);
  }
  {
    Wrap w;
    // Searching -X: the gradient goes to the window's minimum instead of its maximum.
    w.inputs[0] = [](const Operator&, const Tensor& x, Tensor* out) {
      out->Resize(x.dims());
      const float* in = x.data<float>();
      float* o = out->mutable_data<float>();
      for (int64_t i = 0; i < x.numel(); ++i) o[i] = -in[i];
    };
    Mutant m = M("MAXPOOLGRADIENT_WRONG_ELEMENT", "MaxPoolGradient", "gradient", "pool",
                 "MaxPoolGradient credits the window's minimum, not its maximum");
    m.spec_type = "MaxPool";
    add(m, w);
  }
  {
    Wrap w;
    w.edit = [](const Operator&, caffe2::OperatorDef* def) {
      for (const char* name : {"stride", "strides", "stride_h", "stride_w"}) RemoveArg(def, name);
    };
    add(M("MAXPOOL_STRIDE_IGNORED", "MaxPool", "forward", "pool", "MaxPool ignores the stride"), w);
  }

  // ---- shape
  {
    Wrap w;
    w.edit = [](const Operator& self, caffe2::OperatorDef* def) {
      ShiftAxis(self, def, "axis", 1);
    };
    Mutant m = M("CONCAT_AXIS_OFF_BY_ONE", "Concat", "forward", "shape", "Concat on axis + 1");
    m.make = MakeConcat;
    add(m, w);
  }
  {
    Wrap w;
    w.edit = [](const Operator& self, caffe2::OperatorDef* def) {
      std::vector<int64_t> axes = IntsArg(*def, "axes");
      if (axes.size() >= 2) {
        std::swap(axes[0], axes[1]);
      } else {
        axes.clear();
        for (int i = 0; i < self.Input(0).ndim(); ++i) axes.push_back(i);  // no transpose at all
      }
      SetInts(def, "axes", axes);
    };
    Mutant m = M("TRANSPOSE_AXES_SWAPPED", "Transpose", "forward", "shape",
                 "Transpose swaps the first two axes of its permutation (identity when none)");
    m.make = MakeTranspose;
    add(m, w);
  }
  {
    Wrap w;
    w.inputs[1] = [](const Operator& self, const Tensor& indices, Tensor* out) {
      const int64_t n = self.Input(0).dim(0);
      out->Resize(indices.dims());
      if (indices.dtype() == DataType::kInt64) {
        for (int64_t i = 0; i < indices.numel(); ++i) {
          out->mutable_data<int64_t>()[i] = (indices.data<int64_t>()[i] + 1) % n;
        }
      } else {
        for (int64_t i = 0; i < indices.numel(); ++i) {
          out->mutable_data<int32_t>()[i] =
              static_cast<int32_t>((indices.data<int32_t>()[i] + 1) % n);
        }
      }
    };
    Mutant m =
        M("GATHER_OFF_BY_ONE", "Gather", "forward", "shape", "Gather reads index + 1 (wrapping)");
    m.make = MakeGather;
    add(m, w);
  }
  {
    Wrap w;
    w.edit = [](const Operator&, caffe2::OperatorDef* def) {
      std::vector<int64_t> ends = IntsArg(*def, "ends");
      if (ends.empty()) return;
      ends[0] -= 1;  // -1 ("to the end") becomes -2, e becomes e - 1
      SetInts(def, "ends", ends);
    };
    Mutant m = M("SLICE_END_OFF_BY_ONE", "Slice", "forward", "shape",
                 "Slice's end on the first axis one short");
    m.make = MakeSlice;
    add(m, w);
  }
  {
    Wrap w;
    w.edit = [](const Operator& self, caffe2::OperatorDef* def) {
      ShiftAxis(self, def, "axis", 0);
    };
    Mutant m = M("TILE_WRONG_AXIS", "Tile", "forward", "shape", "Tile repeats along axis + 1");
    m.make = MakeTile;
    add(m, w);
  }

  // ---- reduce / softmax
  {
    // Only an empty tensor reaches it: Caffe2's start value for a max, float's lowest, left where
    // nothing was reduced (the identity is -inf; the f64 reference's lowest differs anyway).
    Wrap w;
    w.after = [](Operator& self) {
      const Tensor& x = self.Input(0);
      Tensor* y = self.Output(0);
      if (x.numel() != 0 || y->numel() == 0 || y->dtype() != DataType::kFloat) return;
      std::fill(FloatOutput(self, 0), FloatOutput(self, 0) + y->numel(),
                std::numeric_limits<float>::lowest());
    };
    add(M("REDUCEMAX_EMPTY_AXIS_LOWEST", "ReduceMax", "forward", "reduce",
          "ReduceMax over an empty axis gives float's lowest value, not -inf"),
        w);
  }
  {
    Wrap w;
    w.edit = [](const Operator& self, caffe2::OperatorDef* def) {
      std::vector<int64_t> axes = IntsArg(*def, "axes");
      const int64_t rank = self.Input(0).ndim();
      for (int64_t& a : axes) a = (Canonical(a, rank) + 1) % rank;
      SetInts(def, "axes", axes);
    };
    Mutant m = M("REDUCESUM_AXIS_OFF_BY_ONE", "ReduceSum", "forward", "reduce",
                 "ReduceSum reduces axis + 1");
    m.make = MakeReduceSum;
    add(m, w);
  }
  {
    Wrap w;
    w.edit = [](const Operator& self, caffe2::OperatorDef* def) {
      ShiftAxis(self, def, "axis", 1);
    };
    Mutant m =
        M("SOFTMAX_AXIS_OFF_BY_ONE", "Softmax", "forward", "reduce", "Softmax coerces at axis + 1");
    m.make = MakeSoftmax;
    m.tolerance = "transcendental";
    add(m, w);
  }

  // ---- numerically hard inputs (issue 12): killed only by the specs' large-logit and
  // small-variance domains; with values near 1 they pass.
  {
    Wrap w;
    // Softmax as exp(x) / sum(exp(x)) without subtracting the row max: exact in exact arithmetic,
    // inf / inf = NaN once a logit passes ~88 in f32.
    w.after = [](Operator& self) {
      const Tensor& x = self.Input(0);
      const int64_t axis = Canonical(self.args().Get<int64_t>("axis"), x.ndim());
      int64_t rows = 1;
      for (int64_t d = 0; d < axis; ++d) rows *= x.dim(d);
      const int64_t cols = x.numel() / std::max<int64_t>(rows, 1);
      float* y = FloatOutput(self, 0);
      for (int64_t r = 0; r < rows; ++r) {
        float sum = 0;
        for (int64_t k = 0; k < cols; ++k) sum += std::exp(x.data<float>()[r * cols + k]);
        for (int64_t k = 0; k < cols; ++k)
          y[r * cols + k] = std::exp(x.data<float>()[r * cols + k]) / sum;
      }
    };
    Mutant m = M("SOFTMAX_NO_MAX_SHIFT", "Softmax", "forward", "reduce",
                 "Softmax without subtracting the row max (overflows on large logits)");
    m.tolerance = "transcendental";
    add(m, w);
  }
  {
    Wrap w;
    // SpatialBN (inference) dividing by sqrt(var) instead of sqrt(var + epsilon): with variances
    // near 1 the difference (~eps / 2 relative) hides below f32 noise; near 1e-6 it is a factor 3.
    w.after = [](Operator& self) {
      if (self.OutputSize() != 1 || self.InputSize() < 5) return;
      const Tensor& x = self.Input(0);
      const bool nhwc = self.args().Get<std::string>("order") == "NHWC";
      const int64_t c = nhwc ? x.dim(x.ndim() - 1) : x.dim(1);
      const int64_t inner = nhwc ? 1 : x.numel() / (x.dim(0) * c);
      const double eps = self.args().Get<float>("epsilon");
      const float* bias = FloatInput(self, 2);
      const float* var = FloatInput(self, 4);
      float* y = FloatOutput(self, 0);
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t ch = (i / inner) % c;
        const double factor = std::sqrt((var[ch] + eps) / var[ch]);
        y[i] = static_cast<float>((y[i] - bias[ch]) * factor + bias[ch]);
      }
    };
    Mutant m = M("SPATIALBN_DROPS_EPSILON", "SpatialBN", "forward", "norm",
                 "SpatialBN (inference) normalizes by sqrt(var), forgetting epsilon");
    add(m, w);
  }

  // ---- elementwise (post-processing or input replacement only: these kernels are evolving)
  {
    Wrap w;
    w.edit = [](const Operator&, caffe2::OperatorDef* def) {
      if (def->input_size() > 1) def->mutable_input()->RemoveLast();
    };
    Mutant m =
        M("SUM_DROPS_LAST_INPUT", "Sum", "forward", "elementwise", "Sum ignores its last input");
    m.make = MakeSum;
    add(m, w);
    Mutant g = M("SUM_ACCUMULATION_DROPS_LAST", "Sum", "gradient", "elementwise",
                 "Sum ignores its last input: a fanned-out blob's gradients lose one term");
    g.build = FanOutFcCases();
    add(g, w);
  }
  {
    Wrap w;
    // B's last dim collapsed to its first element: a broadcast that drops a dim.
    w.inputs[1] = [](const Operator&, const Tensor& b, Tensor* out) {
      std::vector<int64_t> dims = b.dims();
      const int64_t last = dims.back();
      dims.back() = 1;
      out->Resize(dims);
      for (int64_t i = 0; i < out->numel(); ++i) {
        out->mutable_data<float>()[i] = b.data<float>()[i * last];
      }
    };
    Mutant m = M("ADD_BROADCAST_DROPS_DIM", "Add", "forward", "elementwise",
                 "Add broadcasts B's first element along B's last dim");
    m.make = MakeBroadcastAdd;
    add(m, w);
  }
  {
    Wrap w;
    w.after = [](Operator& self) {
      float* y = FloatOutput(self, 0);
      for (int64_t i = 0; i < self.Output(0)->numel(); ++i) y[i] = 1.0f - y[i];
    };
    Mutant m = M("SIGMOID_WRONG_SIGN", "Sigmoid", "forward", "elementwise",
                 "Sigmoid computes sigmoid(-x)");
    m.make = [](const Primary*) { return MakeUnary("Sigmoid", Domain::kAny); };
    m.tolerance = "transcendental";
    add(m, w);
  }
  {
    Wrap w;
    w.after = [](Operator& self) {
      const float* x = FloatInput(self, 0);
      float* y = FloatOutput(self, 0);
      for (int64_t i = 0; i < self.Output(0)->numel(); ++i) {
        if (x[i] < 0) y[i] = 0.01f * x[i];
      }
    };
    Mutant m = M("RELU_LEAKS", "Relu", "forward", "elementwise",
                 "Relu lets 1% of negative inputs through");
    m.make = [](const Primary*) { return MakeUnary("Relu", Domain::kAwayFromZero); };
    add(m, w);
  }

  // ---- norm
  {
    Wrap w;
    // Normalizes with the unbiased variance (n / (n - 1)) where the biased one belongs.
    w.after = [](Operator& self) {
      if (self.OutputSize() < 5) return;
      const Tensor& x = self.Input(0);
      const int64_t c = x.dim(1), n = x.numel() / c, inner = x.numel() / (x.dim(0) * c);
      const float eps = static_cast<float>(self.args().Get<float>("epsilon"));
      const float* bias = FloatInput(self, 2);
      const float* inv_std = self.Output(4)->data<float>();
      float* y = FloatOutput(self, 0);
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t ch = (i / inner) % c;
        const double var = 1.0 / (double(inv_std[ch]) * inv_std[ch]) - eps;
        const double factor = std::sqrt((var + eps) / (var * double(n) / double(n - 1) + eps));
        y[i] = static_cast<float>((y[i] - bias[ch]) * factor + bias[ch]);
      }
    };
    Mutant m = M("SPATIALBN_UNBIASED_VARIANCE", "SpatialBN", "forward", "norm",
                 "SpatialBN normalizes with the unbiased variance (biased/unbiased mixed)");
    m.build = SpatialBnTrainingCases();
    add(m, w);
  }
  {
    Wrap w;
    // Y = (x - mean) / (sqrt(var) + epsilon) instead of / sqrt(var + epsilon).
    w.after = [](Operator& self) {
      const Tensor& x = self.Input(0);
      const int64_t rank = x.ndim();
      const int64_t axis = Canonical(self.args().Get<int64_t>("axis"), rank);
      int64_t rows = 1;
      for (int64_t i = 0; i < axis; ++i) rows *= x.dim(i);
      const int64_t cols = x.numel() / rows;
      const double eps = self.args().Get<float>("epsilon");
      const float* in = x.data<float>();
      const float* mean = self.Output(1)->data<float>();
      const float* stdev = self.Output(2)->data<float>();
      float* y = FloatOutput(self, 0);
      for (int64_t r = 0; r < rows; ++r) {
        const double s = std::sqrt(std::max(0.0, double(stdev[r]) * stdev[r] - eps)) + eps;
        for (int64_t j = 0; j < cols; ++j) {
          y[r * cols + j] = static_cast<float>((in[r * cols + j] - mean[r]) / s);
        }
      }
    };
    Mutant m = M("LAYERNORM_EPSILON_OUTSIDE_SQRT", "LayerNorm", "forward", "norm",
                 "LayerNorm divides by sqrt(var) + epsilon");
    m.make = MakeLayerNorm;
    m.tolerance = "transcendental";
    add(m, w);
  }

  // ---- loss
  {
    Wrap w;
    w.after = [](Operator& self) {
      const int64_t n = self.Input(0).dim(0);
      FloatOutput(self, 1)[0] *= static_cast<float>(n);
    };
    Mutant m = M("SOFTMAXWITHLOSS_NOT_AVERAGED", "SoftmaxWithLoss", "forward", "loss",
                 "SoftmaxWithLoss sums the rows' losses instead of averaging");
    m.make = MakeSoftmaxWithLoss;
    m.tolerance = "transcendental";
    add(m, w);
  }
  {
    Wrap w;
    w.after = [](Operator& self) {
      float* z = FloatOutput(self, 0);
      for (int64_t i = 0; i < self.Output(0)->numel(); ++i) z[i] *= 2.0f;
    };
    Mutant m = M("SQUAREDL2DISTANCE_MISSING_HALF", "SquaredL2Distance", "forward", "loss",
                 "SquaredL2Distance without the 1/2");
    m.make = MakeSquaredL2;
    add(m, w);
  }

  // ---- rnn
  {
    Wrap w;
    w.edit = [](const Operator&, caffe2::OperatorDef* def) { RemoveArg(def, "forget_bias"); };
    Mutant m = M("LSTMUNIT_FORGET_BIAS_IGNORED", "LSTMUnit", "forward", "rnn",
                 "LSTMUnit ignores forget_bias");
    m.make = MakeLstmWithForgetBias;
    m.tolerance = "transcendental";
    add(m, w);
  }
  {
    Wrap w;
    w.edit = [](const Operator&, caffe2::OperatorDef* def) {
      // Drop seq_lengths (the input before the timestep): every row counts as active.
      if (IntArg(*def, "sequence_lengths", 1) == 0) return;
      auto* inputs = def->mutable_input();
      inputs->DeleteSubrange(inputs->size() - 2, 1);
      SetInt(def, "sequence_lengths", 0);
    };
    Mutant m = M("GRUUNIT_SEQ_LENGTHS_IGNORED", "GRUUnit", "forward", "rnn",
                 "GRUUnit ignores seq_lengths (rows past their sequence are updated)");
    m.make = MakeGruWithPastRows;
    m.tolerance = "transcendental";
    add(m, w);
  }
  // ---- gradient kernels of the elementwise and rnn families
  auto negate_output = [](Operator& self) {
    float* p = FloatOutput(self, 0);
    for (int64_t i = 0; i < self.Output(0)->numel(); ++i) p[i] = -p[i];
  };
  for (const auto& [name, type, forward, domain] :
       std::vector<std::tuple<std::string, std::string, std::string, Domain>>{
           {"RELUGRADIENT_WRONG_SIGN", "ReluGradient", "Relu", Domain::kAwayFromZero},
           {"TANHGRADIENT_WRONG_SIGN", "TanhGradient", "Tanh", Domain::kAny}}) {
    Wrap w;
    w.after = negate_output;
    Mutant m = M(name, type, "gradient", "elementwise", type + " with the wrong sign");
    std::string forward_type = forward;
    Domain input_domain = domain;
    m.make = [forward_type, input_domain](const Primary*) {
      return MakeUnary(forward_type, input_domain);
    };
    m.tolerance = "transcendental";
    add(m, w);
  }
  {
    Wrap w;
    // dX = dY * y instead of dY * y * (1 - y): the (1 - y) factor dropped.
    w.after = [](Operator& self) {
      const float* y = FloatInput(self, 0);
      float* dx = FloatOutput(self, 0);
      for (int64_t i = 0; i < self.Output(0)->numel(); ++i) dx[i] /= (1.0f - y[i]);
    };
    Mutant m = M("SIGMOIDGRADIENT_MISSING_FACTOR", "SigmoidGradient", "gradient", "elementwise",
                 "SigmoidGradient without the (1 - y) factor");
    m.make = [](const Primary*) { return MakeUnary("Sigmoid", Domain::kAny); };
    m.tolerance = "transcendental";
    add(m, w);
  }
  {
    Wrap w;
    w.edit = [](const Operator&, caffe2::OperatorDef* def) { RemoveArg(def, "forget_bias"); };
    Mutant m = M("LSTMUNITGRADIENT_FORGET_BIAS_IGNORED", "LSTMUnitGradient", "gradient", "rnn",
                 "LSTMUnitGradient ignores forget_bias");
    m.make = MakeLstmWithForgetBias;
    m.tolerance = "transcendental";
    add(m, w);
  }
}

}  // namespace parity::mutants
