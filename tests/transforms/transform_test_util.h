// Running a net the pass tests built or rewrote: the init net once, then the predict net on feeds.
#ifndef PARITY_TESTS_TRANSFORMS_TRANSFORM_TEST_UTIL_H_
#define PARITY_TESTS_TRANSFORMS_TRANSFORM_TEST_UTIL_H_

#include <map>
#include <string>

#include "core/tensor.h"
#include "core/transforms/pass.h"
#include "core/workspace.h"

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

}  // namespace parity::testing

#endif  // PARITY_TESTS_TRANSFORMS_TRANSFORM_TEST_UTIL_H_
