// libFuzzer targets for every parser of user input (issue 11; as OSS-Fuzz runs for protobuf and
// ONNX): whatever the bytes, parsing ends in a parsed message or a parity::Error — never a crash,
// a hang, or undefined behaviour (built with ASan and UBSan). Which parser a binary exercises is
// chosen at compile time (PARITY_FUZZ_TARGET), so each target is one small binary.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/io.h"
#include "core/proto/caffe2.pb.h"
#include "core/proto/error.h"
#include "core/proto/parity.pb.h"

namespace {

void Parse(const std::string& bytes) {
  const std::string target = PARITY_FUZZ_TARGET;
  if (target == "netdef_text") {
    caffe2::NetDef net;
    parity::ParseProto(bytes, /*text=*/true, "input", &net);
  } else if (target == "netdef_binary") {
    caffe2::NetDef net;
    parity::ParseProto(bytes, /*text=*/false, "input", &net);
  } else if (target == "tensor_file") {
    // The three forms `--input` accepts: .npy, binary and text TensorProtos.
    try {
      parity::ParseNpy(bytes, "input.npy");
    } catch (const parity::Error&) {
    }
    caffe2::TensorProtos protos;
    try {
      parity::ParseProto(bytes, /*text=*/false, "input.pb", &protos);
    } catch (const parity::Error&) {
    }
    parity::ParseProto(bytes, /*text=*/true, "input.pbtxt", &protos);
  } else if (target == "finding") {
    parity::Finding finding;
    try {
      parity::ParseProto(bytes, /*text=*/false, "finding.pb", &finding);
    } catch (const parity::Error&) {
    }
    parity::ParseProto(bytes, /*text=*/true, "finding.pbtxt", &finding);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    Parse(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const parity::Error&) {
    // A clear error is the right answer to bad bytes.
  }
  return 0;
}
