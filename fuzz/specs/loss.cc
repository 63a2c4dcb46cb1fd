// Test specs of the losses: SquaredL2Distance, AveragedLoss, LabelCrossEntropy, SoftmaxWithLoss,
// SigmoidCrossEntropyWithLogits.
#include <rapidcheck.h>

#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

PARITY_OP_SPEC(SquaredL2Distance)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims();
      OpInstance op("SquaredL2Distance");
      op.Input(x);
      op.Input(x);
      return op;
    });

PARITY_OP_SPEC(AveragedLoss)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      OpInstance op("AveragedLoss");
      op.Input(p ? *p : AnyDims());
      return op;
    });

// Probabilities away from 0 (the log's pole and Caffe2's 1e-20 floor): not intermediates.
PARITY_OP_SPEC(LabelCrossEntropy)
    .Tolerance("transcendental")
    .Make([](const Primary*) -> std::optional<OpInstance> {
      const int64_t n = Dim(), d = Dim();
      OpInstance op("LabelCrossEntropy");
      op.Input({n, d}, Domain::kProbability);
      op.IndexInput(
          *rc::gen::arbitrary<bool>() ? std::vector<int64_t>{n} : std::vector<int64_t>{n, 1}, d);
      return op;
    });

// SoftmaxWithLoss with integer labels (int32, Caffe2's type), optional weights. Output 0 (the
// softmax) carries no gradient in Caffe2's maker: a gradient check weighs output 1 alone.
// label_prob=1 needs rows of probabilities summing to 1, which the domains cannot draw.
PARITY_OP_SPEC(SoftmaxWithLoss)
    .Tolerance("transcendental")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims(2, 3);
      const int64_t rank = static_cast<int64_t>(x.size());
      if (rank < 1) return std::nullopt;
      const int64_t axis = rank == 1 ? 0 : *rc::gen::inRange<int64_t>(1, rank);
      int64_t n = 1, d = 1;
      for (int64_t i = 0; i < rank; ++i) (i < axis ? n : d) *= x[i];
      OpInstance op("SoftmaxWithLoss", 2);
      op.Input(x, Domain::kLogits);  // logits up to 1e3: a log-sum-exp without the shift overflows
      op.IndexInput(axis == 1 && *rc::gen::arbitrary<bool>() ? std::vector<int64_t>{n}
                                                             : std::vector<int64_t>{n, 1},
                    d);
      if (*rc::gen::arbitrary<bool>()) {
        op.NotDifferentiable(op.Input({n}, Domain::kPositive));  // weights: no gradient
      }
      if (axis != 1) op.Arg("axis", axis);
      if (*rc::gen::arbitrary<bool>()) op.Arg("scale", 0.5f);
      return op;
    });

// Default loss only: the reference does not implement log_D_trick / unjoined_lr_loss yet.
PARITY_OP_SPEC(SigmoidCrossEntropyWithLogits)
    .Tolerance("transcendental")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims();
      OpInstance op("SigmoidCrossEntropyWithLogits");
      // Large logits (|x| up to 1e3): σ(x) is exactly 0 or 1 in f32 past |x| ~ 17, so only a
      // kernel that keeps the exponent non-positive (Caffe2's form) gets a finite loss.
      op.Input(x, Domain::kLogits);
      op.Input(x, Domain::kProbability);
      op.NotDifferentiable(1);  // the schema differentiates the logits only
      return op;
    });

}  // namespace
}  // namespace parity::fuzz
