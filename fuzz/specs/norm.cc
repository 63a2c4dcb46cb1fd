// Test specs of the normalizations: SpatialBN, LayerNorm.
#include <rapidcheck.h>

#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

// SpatialBN in test mode (is_test=1, one output). Training mode must write outputs 1, 2 in place
// over inputs 3, 4 (running statistics), which a generated case cannot name: not covered here.
PARITY_OP_SPEC(SpatialBN).Tolerance("default").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims(2, 4);
      if (x.size() < 2) return std::nullopt;
      const bool nchw = *rc::gen::arbitrary<bool>();
      const int64_t c = nchw ? x[1] : x.back();
      OpInstance op("SpatialBN");
      op.Input(x);
      op.Input({c});                        // scale
      op.Input({c});                        // bias
      op.NotDifferentiable(op.Input({c}));  // mean
      // Variances from 1e-6 to 1, so epsilon (Caffe2's default 1e-5, or 1e-3) sometimes dominates.
      op.NotDifferentiable(op.Input({c}, Domain::kVariance));  // var
      op.Arg("is_test", int64_t{1});
      if (!nchw) op.Arg("order", std::string("NHWC"));
      if (*rc::gen::arbitrary<bool>()) op.Arg("epsilon", 1e-3f);
      return op;
    });

// LayerNorm's outputs mean and std carry no gradient (Caffe2's maker reads only dY); a gradient
// check must weigh output 0 alone.
PARITY_OP_SPEC(LayerNorm).Tolerance("default").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = p ? *p : AnyDims(1, 4);
      const int64_t rank = static_cast<int64_t>(x.size());
      const int64_t axis = *rc::gen::inRange<int64_t>(0, rank);
      int64_t n = 1;
      for (int64_t i = axis; i < rank; ++i) n *= x[i];
      // A single element per row has zero variance: every gradient is 0 but epsilon matters.
      if (n < 2) return std::nullopt;
      OpInstance op("LayerNorm", 3);
      // Half the cases have nearly constant rows (variance down to ~1e-7): epsilon dominates.
      op.Input(x, *rc::gen::arbitrary<bool>() ? Domain::kNarrow : Domain::kAny);
      if (axis != 1 || *rc::gen::arbitrary<bool>()) {
        op.Arg("axis", *rc::gen::arbitrary<bool>() ? axis : axis - rank);
      }
      op.Arg("epsilon", *rc::gen::arbitrary<bool>() ? 1e-3f : 1e-2f);
      if (*rc::gen::arbitrary<bool>()) {
        std::vector<int64_t> tail(x.begin() + axis, x.end());
        op.Input(tail, Domain::kPositive);  // gamma
        op.Input(tail);                     // beta
        op.Arg("elementwise_affine", int64_t{1});
      }
      return op;
    });

}  // namespace
}  // namespace parity::fuzz
