// fuse_relu: FC or Conv followed by a Relu that alone reads its output becomes one fused op
// (FCRelu, ConvRelu: the producer's inputs and arguments, Y = max(op(...), 0)), writing the Relu's
// output. Exactly the same values: the fused kernels run the producer's kernel, then Relu in place.
#include <map>
#include <string>

#include "core/transforms/fusion.h"
#include "core/transforms/net_edits.h"
#include "core/transforms/pass.h"

namespace parity::transforms {
namespace {

void FuseRelu(TransformedNet* t) {
  RefuseSubNets(t->predict, "fuse_relu", "they may read the producer's output");
  static const auto* kFused =
      new std::map<std::string, std::string>{{"FC", "FCRelu"}, {"Conv", "ConvRelu"}};
  FusePairs(t, {"FC", "Conv"}, "Relu", [](TransformedNet* t, const Ssa&, int producer, int) {
    caffe2::OperatorDef* op = t->predict.mutable_op(producer);
    op->set_type(kFused->at(op->type()));
    return true;
  });
}

PARITY_REGISTER_PASS(PassInfo{
    "fuse_relu",
    "Requires nothing; refuses nets with sub-nets. Turns FC or Conv whose output only a Relu "
    "reads into FCRelu or ConvRelu (same inputs and arguments) writing the Relu's output, and "
    "removes the Relu. Guarantees the same values: the fused kernels are the producer's, then "
    "Relu in place.",
    /*preserves_outputs=*/true, FuseRelu, /*uses_constants=*/false,
    /*rewrites=*/{{"FC", "Relu"}, {"Conv", "Relu"}}});

}  // namespace
}  // namespace parity::transforms
