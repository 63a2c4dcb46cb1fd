// The second part of the mutant catalogue (issue 12): kernels the first part left alone — the
// unary and binary elementwise ops, the reductions, the losses, more of linalg, conv, pool, norm
// and shape — and the gradient kernels. Each is met by the op's registered spec, that is by the
// default campaign: no private case builders here.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "core/operator.h"
#include "core/parallel.h"
#include "core/process_caches.h"
#include "core/tensor.h"
#include "fuzz/generators.h"
#include "fuzz/spec.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

// After the real kernel: y[i] = fn(x[i], y[i]) on output `out` and input `in` (same size).
std::function<void(Operator&)> PostElementwise(int in, int out,
                                               std::function<float(float x, float y)> fn) {
  return [in, out, fn](Operator& self) {
    if (self.OutputSize() <= out || self.InputSize() <= in) return;
    const Tensor& x = self.Input(in);
    Tensor* y = self.Output(out);
    if (x.dtype() != DataType::kFloat || y->dtype() != DataType::kFloat) return;
    if (x.numel() != y->numel()) return;
    const float* xs = x.data<float>();
    float* ys = y->mutable_data<float>();
    for (int64_t i = 0; i < y->numel(); ++i) ys[i] = fn(xs[i], ys[i]);
  };
}

// After the real kernel: every element of output `out` times `factor(self)`.
std::function<void(Operator&)> ScaleOutput(int out, std::function<double(const Operator&)> factor) {
  return [out, factor](Operator& self) {
    if (self.OutputSize() <= out) return;
    Tensor* y = self.Output(out);
    if (y->dtype() != DataType::kFloat) return;
    const float f = static_cast<float>(factor(self));
    float* ys = y->mutable_data<float>();
    for (int64_t i = 0; i < y->numel(); ++i) ys[i] *= f;
  };
}

std::function<void(const Operator&, caffe2::OperatorDef*)> DropArgs(
    std::vector<std::string> names) {
  return [names](const Operator&, caffe2::OperatorDef* def) {
    for (const std::string& name : names) RemoveArg(def, name);
  };
}

Mutant Spec(Mutant m, const std::string& spec_type) {
  m.spec_type = spec_type;
  return m;
}

}  // namespace

void AddMoreKernelMutants(std::vector<Entry>* out) {
  auto add = [out](Mutant m, Wrap w) { out->push_back({std::move(m), std::move(w)}); };
  auto edit = [](std::function<void(const Operator&, caffe2::OperatorDef*)> fn) {
    Wrap w;
    w.edit = std::move(fn);
    return w;
  };
  auto after = [](std::function<void(Operator&)> fn) {
    Wrap w;
    w.after = std::move(fn);
    return w;
  };

  // ---- unary elementwise
  add(M("ELU_ALPHA_IGNORED", "Elu", "forward", "elementwise", "Elu ignores alpha (uses 1)"),
      edit(DropArgs({"alpha"})));
  add(M("LEAKYRELU_ALPHA_IGNORED", "LeakyRelu", "forward", "elementwise",
        "LeakyRelu ignores alpha (uses 0.01)"),
      edit(DropArgs({"alpha"})));
  add(M("CLIP_MAX_IGNORED", "Clip", "forward", "elementwise", "Clip ignores its upper bound"),
      edit(DropArgs({"max"})));
  add(M("SCALE_IGNORED", "Scale", "forward", "elementwise", "Scale ignores its scale (uses 1)"),
      edit(DropArgs({"scale"})));
  add(M("SOFTSIGN_MISSING_ABS", "Softsign", "forward", "elementwise",
        "Softsign computes x / (1 + x), forgetting |x|"),
      after(PostElementwise(0, 0, [](float x, float) { return x / (1.0f + x); })));
  add(M("EXP_LOW_PRECISION", "Exp", "forward", "elementwise",
        "Exp through a fast approximation with 2^-10 relative error"),
      after(PostElementwise(0, 0, [](float, float y) { return y * (1.0f + 1.0f / 1024); })));
  add(M("LOG_BASE_2", "Log", "forward", "elementwise", "Log computes log2"),
      after(PostElementwise(0, 0, [](float x, float) { return std::log2(x); })));
  add(M("SQRT_OF_HALF", "Sqrt", "forward", "elementwise",
        "Sqrt of x / 2 (a Newton step started from the wrong seed, stopped early)"),
      after(PostElementwise(0, 0, [](float x, float) { return std::sqrt(x / 2.0f); })));
  {
    Wrap w;
    // float -> int32 rounds to nearest; Caffe2 (static_cast) truncates toward zero.
    w.after = [](Operator& self) {
      const Tensor& x = self.Input(0);
      Tensor* y = self.Output(0);
      if (x.dtype() != DataType::kFloat || y->dtype() != DataType::kInt32) return;
      for (int64_t i = 0; i < x.numel(); ++i) {
        y->mutable_data<int32_t>()[i] = static_cast<int32_t>(std::lround(x.data<float>()[i]));
      }
    };
    add(M("CAST_ROUNDS", "Cast", "forward", "elementwise",
          "Cast float -> int32 rounds to nearest instead of truncating"),
        w);
  }

  // ---- binary and variadic elementwise
  add(M("SUB_REVERSED", "Sub", "forward", "elementwise", "Sub computes B - A"),
      after(PostElementwise(0, 0, [](float, float y) { return -y; })));
  {
    Wrap w;
    // A / B computed as B / A where the shapes agree (1 / y).
    w.after = [](Operator& self) {
      if (self.Input(0).numel() != self.Output(0)->numel()) return;
      float* y = FloatOutput(self, 0);
      for (int64_t i = 0; i < self.Output(0)->numel(); ++i) y[i] = 1.0f / y[i];
    };
    add(M("DIV_INVERTED", "Div", "forward", "elementwise", "Div computes B / A"), w);
  }
  add(M("MEAN_DIVIDES_BY_N_PLUS_1", "Mean", "forward", "elementwise",
        "Mean divides the sum of n inputs by n + 1"),
      after(ScaleOutput(0, [](const Operator& self) {
        const double n = self.InputSize();
        return n / (n + 1);
      })));
  add(M("MAX_DROPS_LAST_INPUT", "Max", "forward", "elementwise", "Max ignores its last input"),
      edit([](const Operator&, caffe2::OperatorDef* def) {
        if (def->input_size() > 1) def->mutable_input()->RemoveLast();
      }));

  // ---- reductions
  add(M("REDUCEMEAN_KEEPDIMS_FLIPPED", "ReduceMean", "forward", "reduce",
        "ReduceMean's keepdims flipped"),
      edit([](const Operator&, caffe2::OperatorDef* def) {
        SetInt(def, "keepdims", IntArg(*def, "keepdims", 1) == 0 ? 1 : 0);
      }));
  add(M("REDUCEMAX_AXES_IGNORED", "ReduceMax", "forward", "reduce",
        "ReduceMax ignores axes (reduces every axis)"),
      edit(DropArgs({"axes"})));
  add(M("SUMELEMENTS_AVERAGE_FLIPPED", "SumElements", "forward", "reduce",
        "SumElements' average flag flipped"),
      edit([](const Operator&, caffe2::OperatorDef* def) {
        SetInt(def, "average", IntArg(*def, "average", 0) == 0 ? 1 : 0);
      }));

  // ---- losses
  add(M("AVERAGEDLOSS_SUMS", "AveragedLoss", "forward", "loss",
        "AveragedLoss sums instead of averaging"),
      after(ScaleOutput(0, [](const Operator& self) { return self.Input(0).numel(); })));
  {
    Wrap w;
    w.inputs[1] = [](const Operator& self, const Tensor& label, Tensor* out) {
      const int64_t classes = self.Input(0).dim(self.Input(0).ndim() - 1);
      out->Resize(label.dims());
      for (int64_t i = 0; i < label.numel(); ++i) {
        out->mutable_data<int32_t>()[i] =
            static_cast<int32_t>((label.data<int32_t>()[i] + 1) % classes);
      }
    };
    add(M("LABELCROSSENTROPY_LABEL_OFF_BY_ONE", "LabelCrossEntropy", "forward", "loss",
          "LabelCrossEntropy reads the probability of label + 1"),
        w);
  }
  {
    Wrap w;
    // The textbook form -(t log σ(x) + (1 - t) log(1 - σ(x))) in f32: σ(x) rounds to exactly 1 or
    // 0 past |x| ~ 17 and the log is -inf. Caffe2's form keeps the exponent non-positive.
    w.after = [](Operator& self) {
      const Tensor& x = self.Input(0);
      const float* xs = x.data<float>();
      const float* ts = FloatInput(self, 1);
      const int64_t cols = x.ndim() == 0 ? 1 : x.dim(x.ndim() - 1);
      const int64_t rows = cols == 0 ? 0 : x.numel() / cols;
      float* loss = FloatOutput(self, 0);
      for (int64_t r = 0; r < rows; ++r) {
        float sum = 0;
        for (int64_t k = 0; k < cols; ++k) {
          const float s = 1.0f / (1.0f + std::exp(-xs[r * cols + k]));
          const float t = ts[r * cols + k];
          sum += t * std::log(s) + (1.0f - t) * std::log(1.0f - s);
        }
        loss[r] = -sum / static_cast<float>(cols);
      }
    };
    Mutant m =
        M("SIGMOIDCROSSENTROPY_NAIVE_LOG", "SigmoidCrossEntropyWithLogits", "forward", "loss",
          "SigmoidCrossEntropyWithLogits as log(sigmoid(x)) in f32 (-inf on large "
          "logits)");
    add(m, w);
  }

  // ---- linalg
  add(M("MATMUL_IGNORES_TRANS_A", "MatMul", "forward", "linalg", "MatMul ignores trans_a"),
      edit(DropArgs({"trans_a"})));
  add(M("BATCHMATMUL_IGNORES_TRANS_B", "BatchMatMul", "forward", "linalg",
        "BatchMatMul ignores trans_b"),
      edit(DropArgs({"trans_b"})));
  {
    Wrap w;
    w.inputs[2] = ZerosLike;
    add(M("FCTRANSPOSED_BIAS_DROPPED", "FCTransposed", "forward", "linalg",
          "FCTransposed ignores its bias"),
        w);
  }

  // ---- conv and pool
  {
    Wrap w;
    w.inputs[2] = ZerosLike;
    add(M("CONV_BIAS_DROPPED", "Conv", "forward", "conv", "Conv ignores its bias"), w);
  }
  add(M("CONV_STRIDE_IGNORED", "Conv", "forward", "conv", "Conv ignores the stride"),
      edit(DropArgs({"stride", "strides", "stride_h", "stride_w"})));
  add(M("AVERAGEPOOL_PADS_IGNORED", "AveragePool", "forward", "pool", "AveragePool ignores pads"),
      edit(DropArgs({"pad", "pads", "pad_t", "pad_l", "pad_b", "pad_r"})));

  // ---- norm and shape
  add(M("LAYERNORM_AXIS_OFF_BY_ONE", "LayerNorm", "forward", "norm", "LayerNorm at axis + 1"),
      edit(
          [](const Operator& self, caffe2::OperatorDef* def) { ShiftAxis(self, def, "axis", 1); }));
  add(M("SPLIT_IGNORES_SPLIT", "Split", "forward", "shape",
        "Split ignores its split sizes (equal parts)"),
      edit(DropArgs({"split"})));
  add(M("FLATTEN_AXIS_IGNORED", "Flatten", "forward", "shape", "Flatten ignores axis (uses 1)"),
      edit(DropArgs({"axis"})));

  // ---- gradient kernels
  add(Spec(M("SOFTMAXGRADIENT_WRONG_SIGN", "SoftmaxGradient", "gradient", "reduce",
             "SoftmaxGradient with the wrong sign"),
           "Softmax"),
      after(ScaleOutput(0, [](const Operator&) { return -1.0; })));
  add(Spec(M("SUBGRADIENT_DB_NOT_NEGATED", "SubGradient", "gradient", "elementwise",
             "SubGradient passes dC to B without negating it"),
           "Sub"),
      after(ScaleOutput(1, [](const Operator&) { return -1.0; })));
  add(Spec(M("DIVGRADIENT_DB_WRONG_SIGN", "DivGradient", "gradient", "elementwise",
             "DivGradient's dB with the wrong sign"),
           "Div"),
      after(ScaleOutput(1, [](const Operator&) { return -1.0; })));
  add(Spec(M("REDUCEMEANGRADIENT_NOT_DIVIDED", "ReduceMeanGradient", "gradient", "reduce",
             "ReduceMeanGradient forgets to divide by the reduced count"),
           "ReduceMean"),
      after(ScaleOutput(0, [](const Operator& self) {
        const double y = std::max<int64_t>(self.Input(2).numel(), 1);
        return self.Input(1).numel() / y;
      })));
  add(Spec(M("AVERAGEDLOSSGRADIENT_NOT_AVERAGED", "AveragedLossGradient", "gradient", "loss",
             "AveragedLossGradient spreads dLoss without dividing by the count"),
           "AveragedLoss"),
      after(ScaleOutput(0, [](const Operator& self) { return self.Input(0).numel(); })));
  add(Spec(M("SIGMOIDCROSSENTROPYGRADIENT_NOT_AVERAGED", "SigmoidCrossEntropyWithLogitsGradient",
             "gradient", "loss", "SigmoidCrossEntropyWithLogitsGradient without the 1 / columns"),
           "SigmoidCrossEntropyWithLogits"),
      after(ScaleOutput(0, [](const Operator& self) {
        const Tensor& x = self.Input(1);
        return x.ndim() == 0 ? 1 : x.dim(x.ndim() - 1);
      })));
  add(Spec(M("SQUAREDL2DISTANCEGRADIENT_DY_SIGN", "SquaredL2DistanceGradient", "gradient", "loss",
             "SquaredL2DistanceGradient's dY with the wrong sign"),
           "SquaredL2Distance"),
      after(ScaleOutput(1, [](const Operator&) { return -1.0; })));
  {
    Wrap w;
    // dX = dY everywhere: the mask of clipped elements forgotten.
    w.after = [](Operator& self) {
      const Tensor& dy = self.Input(1);
      std::copy(dy.data<float>(), dy.data<float>() + dy.numel(), FloatOutput(self, 0));
    };
    add(Spec(M("CLIPGRADIENT_PASSES_CLIPPED", "ClipGradient", "gradient", "elementwise",
               "ClipGradient passes the gradient of clipped elements"),
             "Clip"),
        w);
  }
  add(Spec(M("ELUGRADIENT_ALPHA_IGNORED", "EluGradient", "gradient", "elementwise",
             "EluGradient ignores alpha"),
           "Elu"),
      edit(DropArgs({"alpha"})));
  add(Spec(M("LEAKYRELUGRADIENT_ALPHA_IGNORED", "LeakyReluGradient", "gradient", "elementwise",
             "LeakyReluGradient ignores alpha"),
           "LeakyRelu"),
      edit(DropArgs({"alpha"})));
  {
    Wrap w;
    // The conv bias gradient left at zero (db not accumulated at all).
    w.after = [](Operator& self) {
      if (self.OutputSize() < 3) return;
      Tensor* db = self.Output(1);
      std::fill(db->mutable_data<float>(), db->mutable_data<float>() + db->numel(), 0.0f);
    };
    add(Spec(M("CONVGRADIENT_DB_ZERO", "ConvGradient", "gradient", "conv",
               "ConvGradient never writes db (zeros)"),
             "Conv"),
        w);
  }
  {
    Wrap w;
    // LayerNormGradient without the -mean(dY) term: dX += mean_row(dY) / std_row.
    w.after = [](Operator& self) {
      const Tensor& dy = self.Input(0);
      const Tensor& stdev = self.Input(3);
      const int64_t rows = stdev.numel();
      if (rows == 0) return;
      const int64_t cols = dy.numel() / rows;
      const float* g = dy.data<float>();
      float* dx = FloatOutput(self, 0);
      for (int64_t r = 0; r < rows; ++r) {
        double mean = 0;
        for (int64_t k = 0; k < cols; ++k) mean += g[r * cols + k];
        mean /= static_cast<double>(cols);
        for (int64_t k = 0; k < cols; ++k) {
          dx[r * cols + k] += static_cast<float>(mean / stdev.data<float>()[r]);
        }
      }
    };
    add(Spec(M("LAYERNORMGRADIENT_DROPS_MEAN_TERM", "LayerNormGradient", "gradient", "norm",
               "LayerNormGradient forgets the -mean(dY) term of dX"),
             "LayerNorm"),
        w);
  }
  {
    Wrap w;
    // A scatter that assigns instead of adding: repeated indices keep only the last row's dY.
    w.after = [](Operator& self) {
      const Tensor& data = self.Input(0);
      const Tensor& indices = self.Input(1);
      const Tensor& dy = self.Input(2);
      if (data.ndim() == 0 || data.dim(0) == 0) return;
      const int64_t inner = data.numel() / data.dim(0);
      float* dx = FloatOutput(self, 0);
      std::fill(dx, dx + data.numel(), 0.0f);
      for (int64_t k = 0; k < indices.numel(); ++k) {
        const int64_t row = indices.dtype() == DataType::kInt64 ? indices.data<int64_t>()[k]
                                                                : indices.data<int32_t>()[k];
        std::copy(dy.data<float>() + k * inner, dy.data<float>() + (k + 1) * inner,
                  dx + row * inner);
      }
    };
    add(Spec(M("GATHERGRADIENT_ASSIGNS", "GatherGradient", "gradient", "shape",
               "GatherGradient assigns instead of adding (repeated indices lose all but one)"),
             "Gather"),
        w);
  }
  {
    Wrap w;
    // Only when ParallelFor splits the work (several threads): the second chunk's first element,
    // at the first 64-byte line boundary ParallelElementwise splits on, is left unwritten. One
    // thread never shows it; the campaign's cases with compute_threads do (blind spots, issue 37).
    w.after = [](Operator& self) {
      Tensor* y = self.Output(0);
      constexpr int64_t kLineFloats = 16;
      if (ParallelThreads() <= 1 || y->numel() <= kLineFloats) return;
      if (y->numel() < 2 * GrainFor(1)) return;  // the split's own threshold
      FloatOutput(self, 0)[kLineFloats] = 0.0f;
    };
    Mutant m = M("SIGMOID_SPLIT_CHUNK_HEAD", "Sigmoid", "forward", "elementwise",
                 "Sigmoid split over threads leaves the second chunk's first element unwritten");
    // The hunt's cases split their work as half the campaign's do.
    m.build = [](uint64_t seed) {
      Case c = fuzz::SampleCase(fuzz::OpCaseGen(*fuzz::SpecRegistry::Find("Sigmoid")), seed);
      c.set_compute_threads(2 + static_cast<int>(seed % 3));
      return c;
    };
    add(m, w);
  }
  {
    // A plan cache like conv_dnnl.cc's, process-wide and registered to be emptied, whose key
    // leaves out the bottom and right pads: the first Conv of a key fixes the end pads every later
    // one with that key runs with. A campaign needs two cases of one worker that differ only in
    // an end pad to see it (state across cases, issue 37); the determinism oracle's neighbouring
    // case (one argument moved, caches emptied first) makes that pair from every Conv case.
    struct EndPadCache {
      std::mutex mutex;
      std::map<std::string, std::pair<int64_t, int64_t>> pads;  // key -> (bottom, right)
    };
    static auto* cache = new EndPadCache();
    static const bool registered = RegisterProcessCache("mutant CONV_PLAN_KEY_NO_END_PADS", [] {
      std::lock_guard<std::mutex> lock(cache->mutex);
      cache->pads.clear();
    });
    (void)registered;
    Wrap w;
    w.edit = [](const Operator& self, caffe2::OperatorDef* def) {
      const std::vector<int64_t> list = IntsArg(*def, "pads");
      const int64_t pad = IntArg(*def, "pad", 0);
      const bool as_list = list.size() == 4;
      const int64_t t = as_list ? list[0] : IntArg(*def, "pad_t", pad);
      const int64_t l = as_list ? list[1] : IntArg(*def, "pad_l", pad);
      const int64_t b = as_list ? list[2] : IntArg(*def, "pad_b", pad);
      const int64_t r = as_list ? list[3] : IntArg(*def, "pad_r", pad);
      std::string key = std::to_string(t) + "," + std::to_string(l) + ";";
      for (int i = 0; i < self.InputSize(); ++i) {
        for (int64_t d : self.Input(i).dims()) key += std::to_string(d) + ",";
        key += ";";
      }
      for (const auto& arg : def->arg()) {
        if (arg.name() == "pads" || arg.name().rfind("pad", 0) == 0) continue;
        key += arg.SerializeAsString();
      }
      std::pair<int64_t, int64_t> end;
      {
        std::lock_guard<std::mutex> lock(cache->mutex);
        end = cache->pads.emplace(key, std::make_pair(b, r)).first->second;
      }
      if (end == std::make_pair(b, r)) return;
      RemoveArg(def, "pad");
      RemoveArg(def, "pads");
      SetInt(def, "pad_t", t);
      SetInt(def, "pad_l", l);
      SetInt(def, "pad_b", end.first);
      SetInt(def, "pad_r", end.second);
    };
    add(M("CONV_PLAN_KEY_NO_END_PADS", "Conv", "determinism", "conv",
          "Conv's process-wide plan cache keys on the shapes and the top/left pads only: a later "
          "Conv differing only in its bottom or right pad runs with the first one's"),
        w);
  }
}

}  // namespace parity::mutants
