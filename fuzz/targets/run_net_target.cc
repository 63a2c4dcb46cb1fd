// libFuzzer target: an arbitrary NetDef (text or binary) is verified against the schemas and run
// on the production engine under a 64 MiB allocation cap.
// Any outcome but a result or a parity::Error (a crash, a sanitizer report, an out-of-memory
// kill, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/io.h"
#include "core/proto/caffe2.pb.h"
#include "core/proto/error.h"
#include "core/schema.h"
#include "core/tensor.h"
#include "core/workspace.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  parity::SetMaxAllocationBytes(int64_t{64} << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  caffe2::NetDef net;
  try {
    // Text first (the seeds are text), then binary.
    try {
      parity::ParseProto(bytes, /*text=*/true, "net", &net);
    } catch (const parity::Error&) {
      parity::ParseProto(bytes, /*text=*/false, "net", &net);
    }
    // Bounded work per input: libFuzzer's -timeout catches anything slower.
    if (net.op_size() > 64) return 0;
    for (const auto& op : net.op()) {
      const parity::OpSchema* schema = parity::OpSchemaRegistry::Find(op.type());
      if (schema != nullptr) schema->Verify(op);
    }
    // Running infers every op's shapes from its real inputs before its kernel allocates.
    parity::Workspace ws;
    ws.RunNetOnce(net);
  } catch (const parity::Error&) {
  }
  return 0;
}
