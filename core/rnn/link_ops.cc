// The two internal ops RecurrentNetwork adds to its step nets (seed 000):
//   rnn_internal_apply_link(timestep, external) -> (internal, external): `internal` becomes a view
//     of rows [t + offset, t + offset + window) of `external` (external is listed as an output
//     too, in place, so the step net's dependency order sees the write through the view).
//   rnn_internal_accumulate_gradient_input(timestep, og, g) -> g: g[t + offset] += og[t], how the
//     gradient of an `_all` output reaches the state gradient row its step reads.
// Both check their rows against the tensors (Caffe2 does only for the second): a link or an
// accumulation outside its tensor is a kShapeMismatch naming the blobs, never a stray write.
#include "core/operator.h"
#include "core/ops/common/shape_util.h"
#include "core/rnn/links.h"

namespace parity {
namespace {

// The timestep is read on the host wherever it lives: RecurrentNetwork keeps it there, as Caffe2
// does, but the op run on its own under a CUDA device option finds it where its caller put it.
int64_t ReadTimestep(const Operator& op) {
  const Tensor& t = op.Input(0);
  PARITY_ENFORCE(t.dtype() == DataType::kInt32 && t.numel() == 1, ErrorKind::kShapeMismatch,
                 op.label(), ": timestep '", op.InputName(0),
                 "' must be an int32 tensor with one element, got ", t.DebugString());
  return HostCopy(t).data<int32_t>()[0];
}

class ApplyLinkOp final : public Operator {
 public:
  ApplyLinkOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        link_{OutputName(0), InputName(1), Arg<int64_t>("offset"), Arg<int64_t>("window")} {
    PARITY_ENFORCE(link_.offset >= 0 && link_.window >= 0, ErrorKind::kBadArgument, label(),
                   ": offset (", link_.offset, ") and window (", link_.window,
                   ") must be set and >= 0");
  }

  void Run() override {
    const int64_t t = ReadTimestep(*this);
    ApplyLink(link_, t, Input(1), Output(0));
    // Output 1 is input 1 (in place): nothing to write.
  }

 private:
  RnnLink link_;
};

class AccumulateInputGradientOp final : public Operator {
 public:
  AccumulateInputGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), offset_(Arg<int64_t>("offset")) {
    PARITY_ENFORCE(offset_ >= 0, ErrorKind::kBadArgument, label(), ": offset (", offset_,
                   ") must be set and >= 0");
  }

  void Run() override {
    const int64_t t = ReadTimestep(*this);
    const Tensor& og = Input(1);
    Tensor* g = Output(0);
    PARITY_ENFORCE(g->ndim() >= 1 && g->dim(0) > 0, ErrorKind::kShapeMismatch, label(),
                   ": gradient '", OutputName(0), "' must have a time axis, got ",
                   g->DebugString());
    const int64_t row = g->numel() / g->dim(0);
    // Compared without forming t + offset_ + 1 or (t + 1) * row, which a huge offset wraps.
    const int64_t rows = g->dim(0);
    const bool in_bounds = t >= 0 && offset_ < rows && t < rows - offset_ &&
                           (row == 0 || t < og.numel() / row);
    PARITY_ENFORCE(in_bounds,
                   ErrorKind::kShapeMismatch, label(), ": step ", t, " with offset ", offset_,
                   " reads row ", t, " of '", InputName(1), "' ", og.DebugString(),
                   " and adds it to row ", t, " + ", offset_, " of '", OutputName(0), "' ",
                   g->DebugString(), ": out of bounds");
    shape_util::ExpectSameDtype(og, g->dtype(), label(), InputName(1));
    shape_util::DispatchFloating(og, label(), InputName(1), [&](auto zero) {
      using T = decltype(zero);
      const T* src = og.data<T>() + t * row;
      T* dst = g->mutable_data<T>() + (t + offset_) * row;
      for (int64_t i = 0; i < row; ++i) dst[i] += src[i];
    });
  }

 private:
  int64_t offset_;
};

}  // namespace

PARITY_OP_SCHEMA(rnn_internal_apply_link)
    .NumInputs(2)
    .NumOutputs(2)
    .EnforceInplace({{1, 1}})
    .Arg("offset", ArgType::kInt, int64_t{-1}, "first row, counted from the timestep (>= 0)")
    .Arg("window", ArgType::kInt, int64_t{-1}, "number of rows (>= 0)")
    .NotDifferentiable()
    .InputDoc(0, "timestep", "int32 [1]")
    .InputDoc(1, "external", "the op-level tensor, rows first")
    .OutputDoc(0, "internal", "a view of rows [t + offset, t + offset + window) of external")
    .Doc("RecurrentNetwork's link: makes a step net blob a view of rows of an op-level blob.");
PARITY_REGISTER_CPU_OPERATOR(rnn_internal_apply_link, ApplyLinkOp);

PARITY_OP_SCHEMA(rnn_internal_accumulate_gradient_input)
    .NumInputs(3)
    .NumOutputs(1)
    .EnforceInplace({{2, 0}})
    .Arg("offset", ArgType::kInt, int64_t{-1}, "target row, counted from the timestep (>= 0)")
    .NotDifferentiable()
    .InputDoc(0, "timestep", "int32 [1]")
    .InputDoc(1, "og", "output gradient over all timesteps")
    .InputDoc(2, "g", "state gradient, updated in place")
    .Doc("RecurrentNetworkGradient's step accumulation: g[t + offset] += og[t].");
PARITY_REGISTER_CPU_OPERATOR(rnn_internal_accumulate_gradient_input, AccumulateInputGradientOp);

}  // namespace parity
