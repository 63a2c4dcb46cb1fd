// Test specs of the losses: SquaredL2Distance, AveragedLoss, LabelCrossEntropy, SoftmaxWithLoss,
// SigmoidCrossEntropyWithLogits, NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss.
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

// ONNX's class losses over X [N, C, d1..dk] (k <= 2; the primary's dims when it has rank >= 2):
// targets of X's dims without dim 1, classes in [0, C); one case in 3 without ignore_index, else
// with a negative one or one of the classes, a third of the positions set to it (never the first,
// so "mean" never divides by a zero weight sum); optional positive weights [C]; every reduction.
std::optional<OpInstance> MakeClassLoss(const std::string& type, const Primary* p, Domain domain) {
  std::vector<int64_t> x;
  if (p) {
    if (p->size() < 2 || p->size() > 4) return std::nullopt;
    x = *p;
  } else {
    x = {Dim(1, 3), Dim(1, 5)};
    for (int k = Pick(3); k > 0; --k) x.push_back(Dim(1, 3));
  }
  const int64_t classes = x[1];
  InputSpec target;
  target.dims = {x[0]};
  target.dims.insert(target.dims.end(), x.begin() + 2, x.end());
  int64_t positions = 1;
  for (int64_t d : target.dims) positions *= d;
  if (classes == 0 || positions == 0) return std::nullopt;
  target.dtype = *rc::gen::arbitrary<bool>() ? DataType::kInt32 : DataType::kInt64;
  target.domain = Domain::kShape;
  target.differentiable = false;
  target.values = *rc::gen::container<std::vector<int64_t>>(
      positions, rc::gen::inRange<int64_t>(0, classes));
  OpInstance op(type);
  const int ignore_form = Pick(3);
  if (ignore_form != 0) {
    const int64_t ignore = ignore_form == 2 && classes > 1
                               ? *rc::gen::inRange<int64_t>(0, classes)
                               : -*rc::gen::inRange<int64_t>(1, 4);
    for (int64_t i = 1; i < positions; ++i) {
      if (*rc::gen::inRange(0, 3) == 0) target.values[i] = ignore;
    }
    if (target.values[0] == ignore) target.values[0] = (ignore + 1) % classes;
    op.Arg("ignore_index", ignore);
  }
  op.Input(x, domain);
  op.AddInput(target);
  if (*rc::gen::arbitrary<bool>()) op.NotDifferentiable(op.Input({classes}, Domain::kPositive));
  const int reduction = Pick(4);
  if (reduction != 0) {
    op.Arg("reduction", std::string(reduction == 1 ? "none" : reduction == 2 ? "sum" : "mean"));
  }
  return op;
}

// NegativeLogLikelihoodLoss is linear in its input: any values, intermediates too.
PARITY_OP_SPEC(NegativeLogLikelihoodLoss)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) {
      return MakeClassLoss("NegativeLogLikelihoodLoss", p, Domain::kAny);
    });

// SoftmaxCrossEntropyLoss: logits up to 1e3 (a log-softmax without the shift overflows); half the
// cases ask for log_prob too (no gradient: the check weighs the loss alone).
PARITY_OP_SPEC(SoftmaxCrossEntropyLoss)
    .Tolerance("transcendental")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) {
      auto op = MakeClassLoss("SoftmaxCrossEntropyLoss", p, Domain::kLogits);
      if (op && *rc::gen::arbitrary<bool>()) op->SetNumOutputs(2);
      return op;
    });

}  // namespace
}  // namespace parity::fuzz
