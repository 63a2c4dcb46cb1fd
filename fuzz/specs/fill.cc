// Test specs of fills and plumbing.
#include <rapidcheck.h>

#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

std::vector<int64_t> ShapeArg() { return AnyDims(1, 3, 4); }

PARITY_OP_SPEC(ConstantFill)
    .Tolerance("exact")
    .Skip("gradient", "a fill has no differentiable input")
    .Make([](const Primary*) {
      OpInstance op("ConstantFill");
      op.Arg("shape", ShapeArg());
      op.Arg("value", static_cast<float>(*rc::gen::inRange(-8, 9)) / 4.0f);
      return std::optional<OpInstance>(op);
    });

PARITY_OP_SPEC(GivenTensorFill)
    .Tolerance("exact")
    .Skip("gradient", "a fill has no differentiable input")
    .Make([](const Primary*) {
      std::vector<int64_t> shape = ShapeArg();
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      auto grid = *rc::gen::container<std::vector<int>>(n, rc::gen::inRange(-100, 101));
      OpInstance op("GivenTensorFill");
      op.Arg("shape", shape);
      // Quarter steps are exact in f32 and f64.
      caffe2::Argument values;
      values.set_name("values");
      for (int g : grid) values.add_floats(static_cast<float>(g) / 4.0f);
      op.RawArg(values);
      return std::optional<OpInstance>(op);
    });

PARITY_OP_SPEC(Copy)
    .Tolerance("exact")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) {
      OpInstance op("Copy");
      op.Input(p ? *p : AnyDims());
      return std::optional<OpInstance>(op);
    });

// Random fills draw from production's generator; the reference cannot match values.
#define PARITY_RANDOM_FILL_SPEC(Type)                                                     \
  PARITY_OP_SPEC(Type)                                                                    \
      .Skip("forward", "random values: production's generator, checked statistically")  \
      .Skip("gradient", "a fill has no differentiable input")                            \
      .Make([](const Primary*) {                                                          \
        OpInstance op(#Type);                                                             \
        op.Arg("shape", ShapeArg());                                                      \
        return std::optional<OpInstance>(op);                                             \
      })
PARITY_RANDOM_FILL_SPEC(UniformFill);
PARITY_RANDOM_FILL_SPEC(GaussianFill);
PARITY_RANDOM_FILL_SPEC(XavierFill);
#undef PARITY_RANDOM_FILL_SPEC

}  // namespace
}  // namespace parity::fuzz
