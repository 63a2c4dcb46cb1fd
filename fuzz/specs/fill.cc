// Test specs of fills and plumbing.
#include <rapidcheck.h>

#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

std::vector<int64_t> ShapeArg() { return AnyDims(1, 3, 4); }

PARITY_OP_SPEC(ConstantFill).Tolerance("exact").Make([](const Primary*) {
  OpInstance op("ConstantFill");
  op.Arg("shape", ShapeArg());
  op.Arg("value", static_cast<float>(*rc::gen::inRange(-8, 9)) / 4.0f);
  return std::optional<OpInstance>(op);
});

PARITY_OP_SPEC(GivenTensorFill).Tolerance("exact").Make([](const Primary*) {
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

// The typed GivenTensor fills: values from `floats` (double) or `ints` (integers, bools).
#define PARITY_GIVEN_FILL_SPEC(Type, use_ints, lo, hi)                              \
  PARITY_OP_SPEC(Type).Tolerance("exact").Make([](const Primary*) {                 \
    std::vector<int64_t> shape = ShapeArg();                                        \
    int64_t n = 1;                                                                  \
    for (int64_t d : shape) n *= d;                                                 \
    auto grid = *rc::gen::container<std::vector<int>>(n, rc::gen::inRange(lo, hi)); \
    OpInstance op(#Type);                                                           \
    op.Arg("shape", shape);                                                         \
    caffe2::Argument values;                                                        \
    values.set_name("values");                                                      \
    for (int g : grid) {                                                            \
      if (use_ints) {                                                               \
        values.add_ints(g);                                                         \
      } else {                                                                      \
        values.add_floats(static_cast<float>(g) / 8.0f);                            \
      }                                                                             \
    }                                                                               \
    op.RawArg(values);                                                              \
    return std::optional<OpInstance>(op);                                           \
  })
PARITY_GIVEN_FILL_SPEC(GivenTensorDoubleFill, false, -100, 101);
PARITY_GIVEN_FILL_SPEC(GivenTensorIntFill, true, -1000, 1001);
PARITY_GIVEN_FILL_SPEC(GivenTensorInt64Fill, true, -1000, 1001);
PARITY_GIVEN_FILL_SPEC(GivenTensorBoolFill, true, 0, 2);
#undef PARITY_GIVEN_FILL_SPEC

// Alias shares storage: the reference's value semantics must see the same values. Checked as a
// single op only: in a net, an in-place write through either name changes the other behind the
// backward pass's blob versions (Caffe2 warns against exactly that), so gradients of such nets are
// not defined by autodiff.
PARITY_OP_SPEC(Alias).Tolerance("exact").Make([](const Primary* p) {
  OpInstance op("Alias");
  op.Input(p ? *p : AnyDims());
  return std::optional<OpInstance>(op);
});

// A copy of any tensor: Copy, and CopyCPUToGPU / CopyGPUToCPU (identity copies on the CPU; in
// nets, round trips for fuse_copy_pairs).
std::optional<OpInstance> MakeCopy(const std::string& type, const Primary* p) {
  OpInstance op(type);
  op.Input(p ? *p : AnyDims());
  return op;
}

PARITY_OP_SPEC(Copy).Tolerance("exact").ConsumesIntermediates(true).Make([](const Primary* p) {
  return MakeCopy("Copy", p);
});
PARITY_OP_SPEC(CopyCPUToGPU)
    .Tolerance("exact")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) { return MakeCopy("CopyCPUToGPU", p); });
PARITY_OP_SPEC(CopyGPUToCPU)
    .Tolerance("exact")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) { return MakeCopy("CopyGPUToCPU", p); });
PARITY_OP_SPEC(EnsureCPUOutput)
    .Tolerance("exact")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) { return MakeCopy("EnsureCPUOutput", p); });

// Range: one, two or three one-element inputs (dims [] or [1]) of float, double, int32 or int64,
// integer values (a float quotient of integers is exact, so ceil gives one length everywhere);
// ascending, descending and empty ranges; never a step of 0.
PARITY_OP_SPEC(Range)
    .Tolerance("exact")
    .Skip("gradient", "no gradient: the output's length is a function of its inputs")
    .Make([](const Primary*) -> std::optional<OpInstance> {
      const DataType dtype = *rc::gen::element(DataType::kInt32, DataType::kInt64,
                                               DataType::kFloat, DataType::kDouble);
      const int count = 1 + Pick(3);
      std::vector<int64_t> values = {*rc::gen::inRange<int64_t>(-6, 7),
                                     *rc::gen::inRange<int64_t>(-6, 13),
                                     *rc::gen::element<int64_t>(1, 2, 3, -1, -2, -3)};
      if (count == 1) values = {*rc::gen::inRange<int64_t>(-2, 13)};
      if (count == 2) values.pop_back();
      OpInstance op("Range");
      for (int64_t v : values) {
        InputSpec spec;
        if (*rc::gen::arbitrary<bool>()) spec.dims = {1};
        spec.dtype = dtype;
        spec.domain = Domain::kShape;
        spec.values = {v};
        spec.differentiable = false;
        op.AddInput(spec);
      }
      return op;
    });

// Random fills draw from production's generator; the reference cannot match values.
#define PARITY_RANDOM_FILL_SPEC(Type)                                                  \
  PARITY_OP_SPEC(Type)                                                                 \
      .Skip("forward", "random values: production's generator, checked statistically") \
      .Make([](const Primary*) {                                                       \
        OpInstance op(#Type);                                                          \
        op.Arg("shape", ShapeArg());                                                   \
        return std::optional<OpInstance>(op);                                          \
      })
PARITY_RANDOM_FILL_SPEC(UniformFill);
PARITY_RANDOM_FILL_SPEC(GaussianFill);
PARITY_RANDOM_FILL_SPEC(XavierFill);
#undef PARITY_RANDOM_FILL_SPEC

}  // namespace
}  // namespace parity::fuzz
