// ResizeLike: the data of input 0 with the dims of input 1 (same element count). Caffe2's op, used
// by the gradients of Flatten and FlattenToVec to give dY back its input's shape.
#include "core/operator.h"
#include "core/schema.h"

namespace parity {
namespace {

class ResizeLikeOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& data = Input(0);
    const Tensor& like = Input(1);
    PARITY_ENFORCE(data.numel() == like.numel(), ErrorKind::kShapeMismatch, label(), ": input ",
                   data.DebugString(), " has ", data.numel(), " elements but the shape source ",
                   like.DebugString(), " has ", like.numel());
    Tensor* out = Output(0);
    if (OutputBlob(0) != InputBlob(0)) out->CopyFrom(data);
    out->Reshape(like.dims());
  }
};

PARITY_OP_SCHEMA(ResizeLike)
    .NumInputs(2)
    .NumOutputs(1)
    .AllowInplace({{0, 0}})
    .DifferentiableInputs({0})
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      int64_t a = CheckedNumElements(in[0].dims), b = CheckedNumElements(in[1].dims);
      PARITY_ENFORCE(a == b, ErrorKind::kShapeMismatch, OpLabel(def), ": input ",
                     ShapeString(in[0].dims), " and shape source ", ShapeString(in[1].dims),
                     " differ in element count");
      return std::vector<TensorType>{{in[0].dtype, in[1].dims, true}};
    })
    .InputDoc(0, "data", "The values.")
    .InputDoc(1, "shape_source", "A tensor whose dims the output takes (same element count).")
    .OutputDoc(0, "output", "The data reshaped to the shape source's dims.")
    .Doc("Copies input 0 and gives it the dims of input 1.");
PARITY_REGISTER_CPU_OPERATOR(ResizeLike, ResizeLikeOp);

}  // namespace
}  // namespace parity
