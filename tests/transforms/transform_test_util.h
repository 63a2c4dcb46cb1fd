// Running a net the pass tests built or rewrote: the init net once, then the predict net on feeds.
#ifndef PARITY_TESTS_TRANSFORMS_TRANSFORM_TEST_UTIL_H_
#define PARITY_TESTS_TRANSFORMS_TRANSFORM_TEST_UTIL_H_

#include <map>
#include <string>

#include "core/tensor.h"
#include "core/tensor_proto.h"
#include "core/transforms/export.h"
#include "core/transforms/pass.h"
#include "core/workspace.h"
#include "tests/test_util.h"

namespace parity::testing {

// Blob `output` after running `t.init` (when it has ops), then `t.predict` with `feeds`.
inline Tensor RunTransformed(const transforms::TransformedNet& t,
                             const std::map<std::string, Tensor>& feeds,
                             const std::string& output) {
  Workspace ws;
  if (t.init.op_size() > 0) ws.RunNetOnce(t.init);
  for (const auto& [name, value] : feeds) ws.CreateTensor(name)->CopyFrom(value);
  ws.RunNetOnce(t.predict);
  Tensor out;
  out.CopyFrom(ws.GetBlobOrThrow(output)->GetTensor());
  return out;
}

// The GivenTensorFill writing `values` into `name` (as Export writes a parameter).
inline caffe2::OperatorDef FloatFill(const std::string& name, const std::vector<int64_t>& dims,
                                     const std::vector<float>& values) {
  return transforms::ConstantFillOf(TensorToProto(MakeTensor<float>(dims, values), name));
}

// The values a float fill writes.
inline std::vector<float> FillValues(const caffe2::OperatorDef& fill) {
  for (const auto& arg : fill.arg()) {
    if (arg.name() == "values") return {arg.floats().begin(), arg.floats().end()};
  }
  return {};
}

}  // namespace parity::testing

#endif  // PARITY_TESTS_TRANSFORMS_TRANSFORM_TEST_UTIL_H_
