// The toy op's production half, all in one file as a family file holds it: schema (arity,
// argument, in-place rule, shape inference, doc), kernel and gradient maker.
//   ToyScaleShift(X) -> Y = scale * X + 1, elementwise, float.
#include "core/grad/gradient.h"
#include "core/operator.h"
#include "core/schema.h"

namespace parity {
namespace {

class ToyScaleShiftOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& x = Input(0);
    PARITY_ENFORCE(x.dtype() == DataType::kFloat, ErrorKind::kShapeMismatch, label(),
                   ": X must be float, got ", x.DebugString());
    const float scale = Arg<float>("scale");
    Tensor* y = Output(0);
    y->Resize(x.dims());
    const float* in = x.data<float>();
    float* out = y->mutable_data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = scale * in[i] + 1.0f;
  }
};

PARITY_OP_SCHEMA(ToyScaleShift)
    .NumInputs(1)
    .NumOutputs(1)
    .AllowInplace({{0, 0}})
    .Arg("scale", ArgType::kFloat, 2.0, "The factor.")
    .DifferentiableInputs({0})
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      return std::vector<TensorType>{in[0]};
    })
    .InputDoc(0, "X", "Float tensor.")
    .OutputDoc(0, "Y", "scale * X + 1.")
    .Doc("A toy op registered from test code (tests/seam/toy_op): Y = scale * X + 1.");
PARITY_REGISTER_CPU_OPERATOR(ToyScaleShift, ToyScaleShiftOp);

// dX = scale * dY. The scale is passed explicitly: copying the op's arguments would lose the
// default (ToyScaleShift's is 2, Scale's is 1), a bug the default campaign finds in seconds.
PARITY_REGISTER_GRADIENT_OWN_ARGS(ToyScaleShift, [](GradientContext& g) {
  ArgumentHelper args(g.def(), &OpSchemaRegistry::Get("ToyScaleShift"));
  return Ops{g.Op("Scale", {g.GO(0)}, {g.GI(0)}, {FloatArg("scale", args.Get<float>("scale"))})};
});

}  // namespace
}  // namespace parity
