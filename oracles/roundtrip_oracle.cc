// Round-trip: the case's inputs survive every tensor file format parity reads (.npy, binary and
// text TensorProtos) through the loader unchanged, and its nets survive binary and text
// serialization unchanged, the re-parsed nets computing bit-identical results.
#include <google/protobuf/text_format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/io.h"
#include "core/tensor_proto.h"
#include "oracles/finding.h"
#include "oracles/oracle.h"

namespace parity::oracles {
namespace {

caffe2::NetDef ThroughText(const caffe2::NetDef& net) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(net, &text);
  caffe2::NetDef out;
  ParseProto(text, true, "round-trip text", &out);
  return out;
}

caffe2::NetDef ThroughBinary(const caffe2::NetDef& net) {
  caffe2::NetDef out;
  ParseProto(net.SerializeAsString(), false, "round-trip binary", &out);
  return out;
}

// A scratch path of this process for `suffix` (workers are processes: the pid keeps them apart).
std::string ScratchPath(const std::string& suffix) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/parity-roundtrip-" +
         std::to_string(::getpid()) + suffix;
}

// Writes `bytes` to a scratch file, loads it with LoadTensors as `parity run --input` does, and
// removes it. Scratch files are not the user's: no fsync, no atomic rename.
std::vector<caffe2::TensorProto> ThroughFile(const std::string& bytes, const std::string& suffix) {
  const std::string path = ScratchPath(suffix);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    PARITY_ENFORCE(out.good(), ErrorKind::kIo, "cannot write the scratch file ", path);
  }
  std::vector<caffe2::TensorProto> loaded;
  try {
    loaded = LoadTensors(path);
  } catch (...) {
    std::remove(path.c_str());
    throw;
  }
  std::remove(path.c_str());
  return loaded;
}

// Element i of float tensors `x` and `y` are the same bits, or both NaN (text writes every NaN as
// "nan": its payload is not part of the value).
template <typename T>
bool SameFloats(const Tensor& x, const Tensor& y) {
  const T* a = x.data<T>();
  const T* b = y.data<T>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return false;
  }
  return true;
}

// Whether two protos hold the same tensor, bit for bit, whichever fields carry the values.
bool SameTensor(const caffe2::TensorProto& a, const caffe2::TensorProto& b) {
  const Tensor x = TensorFromProto(a), y = TensorFromProto(b);
  if (x.dtype() != y.dtype() || x.dims() != y.dims() || x.nbytes() != y.nbytes()) return false;
  if (x.dtype() == DataType::kFloat) return SameFloats<float>(x, y);
  if (x.dtype() == DataType::kDouble) return SameFloats<double>(x, y);
  return x.nbytes() == 0 || std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) == 0;
}

// Whether every input is a tensor parity can hold; the backends judge the others.
bool AllConvertible(const Case& c) {
  try {
    for (const caffe2::TensorProto& input : c.inputs()) TensorFromProto(input);
  } catch (const Error&) {
    return false;
  }
  return true;
}

// A finding against the loader of one tensor file form (".npy", ".pb", ".pbtxt TensorProto"):
// the form is what it blames, in the place of an op ("tensor file .npy"), so findings group by
// the reader that is wrong.
Finding FileFinding(const Case& c, const std::string& form, const std::string& error_class,
                    const std::string& message) {
  Finding finding = MakeFinding("roundtrip", c, error_class, message);
  const std::string blamed = "tensor file " + form;
  finding.set_blamed_op_type(blamed);
  finding.set_blamed_op_path(blamed);
  finding.mutable_signature()->set_blamed_op_type(blamed);
  return finding;
}

// `bytes` written as a scratch `suffix` file of `form` (`what`, in messages) and loaded back: a
// finding unless exactly `expected` comes out, names and values bit for bit.
std::optional<Finding> LoadsBack(const Case& c, const std::string& bytes, const char* suffix,
                                 const std::string& form,
                                 const std::vector<caffe2::TensorProto>& expected,
                                 const std::string& what) {
  std::vector<caffe2::TensorProto> loaded;
  try {
    loaded = ThroughFile(bytes, suffix);
  } catch (const Error& error) {
    return FileFinding(c, form, "input file rejected", what + " does not load: " + error.what());
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    if (loaded.size() <= i || loaded[i].name() != expected[i].name() ||
        !SameTensor(loaded[i], expected[i])) {
      return FileFinding(
          c, form, "input file changed a tensor",
          "input '" + expected[i].name() + "' differs when " + what + " is loaded back");
    }
  }
  if (loaded.size() != expected.size()) {
    return FileFinding(c, form, "input file changed a tensor",
                       what + " loads back as " + std::to_string(loaded.size()) + " tensors, not " +
                           std::to_string(expected.size()));
  }
  return std::nullopt;
}

// The case's inputs through every tensor file format parity reads (.npy, binary and text
// TensorProtos, and one input alone as a binary and text TensorProto) and back through the loader:
// the same tensors must come out, or the loader (or the writer) is wrong. No generated case reached
// these readers before.
std::optional<Finding> CheckInputFiles(const Case& c) {
  if (c.inputs_size() == 0 || !AllConvertible(c)) return std::nullopt;
  caffe2::TensorProtos all;
  for (const caffe2::TensorProto& input : c.inputs()) *all.add_protos() = input;
  std::string text;
  google::protobuf::TextFormat::PrintToString(all, &text);
  const std::pair<const char*, std::string> forms[] = {{".pb", all.SerializeAsString()},
                                                       {".pbtxt", text}};
  const std::vector<caffe2::TensorProto> inputs(c.inputs().begin(), c.inputs().end());
  for (const auto& [suffix, bytes] : forms) {
    if (auto finding = LoadsBack(c, bytes, suffix, suffix, inputs,
                                 std::string("the inputs written as a ") + suffix + " file")) {
      return finding;
    }
  }
  // One input alone, as a bare TensorProto file (binary and text): what a user's tools write for
  // one blob, and what the loader must tell apart from a TensorProtos. One input per case, picked
  // from the seed (every input of every case cost a campaign a tenth of its cases).
  const caffe2::TensorProto& single = c.inputs(static_cast<int>(c.seed() % c.inputs_size()));
  std::string single_text;
  google::protobuf::TextFormat::PrintToString(single, &single_text);
  const std::pair<const char*, std::string> alone[] = {{".pb", single.SerializeAsString()},
                                                       {".pbtxt", single_text}};
  for (const auto& [suffix, bytes] : alone) {
    if (auto finding = LoadsBack(
            c, bytes, suffix, std::string(suffix) + " TensorProto", {single},
            "input '" + single.name() + "' written alone as a " + suffix + " TensorProto")) {
      return finding;
    }
  }
  for (const caffe2::TensorProto& input : c.inputs()) {
    std::string npy;
    try {
      npy = SerializeNpy(input);
    } catch (const Error&) {
      continue;  // a dtype .npy does not hold (float16, strings)
    }
    std::vector<caffe2::TensorProto> loaded;
    try {
      loaded = ThroughFile(npy, ".npy");
    } catch (const Error& error) {
      return FileFinding(
          c, ".npy", "input file rejected",
          "input '" + input.name() + "' written as .npy does not load: " + error.what());
    }
    if (loaded.size() != 1 || !SameTensor(loaded[0], input)) {
      return FileFinding(c, ".npy", "input file changed a tensor",
                         "input '" + input.name() + "' differs after a .npy file round trip");
    }
  }
  return std::nullopt;
}

OracleResult CheckRoundTrip(const Case& c, const OracleOptions& options) {
  if (std::optional<Finding> finding = CheckInputFiles(c)) return {std::move(finding), ""};
  const Backend& backend = *options.backend;
  BackendRun original = backend.Run(c);
  for (const char* form : {"binary", "text"}) {
    Case copy = c;
    bool text = std::string(form) == "text";
    *copy.mutable_net() = text ? ThroughText(c.net()) : ThroughBinary(c.net());
    if (c.has_init_net()) {
      *copy.mutable_init_net() = text ? ThroughText(c.init_net()) : ThroughBinary(c.init_net());
    }
    if (copy.net().SerializeAsString() != c.net().SerializeAsString()) {
      return {MakeFinding("roundtrip", c, "serialization changed the net",
                          std::string("the net differs after a ") + form + " round trip"),
              ""};
    }
    BackendRun again = backend.Run(copy);
    if (original.error.has_value() != again.error.has_value()) {
      return {MakeFinding("roundtrip", c, "error mismatch",
                          std::string("the ") + form + " round trip changed whether the net runs"),
              ""};
    }
    // Both runs failed: what a failed op left in its outputs (a buffer resized, never written) is
    // no result to compare.
    if (original.error) continue;
    for (const std::string& blob : ComparedBlobs(c)) {
      auto x = original.blobs.find(blob), y = again.blobs.find(blob);
      if (x == original.blobs.end() || y == again.blobs.end()) continue;
      if (!BitwiseEqual(x->second, y->second)) {
        return {
            MakeFinding("roundtrip", c, "value mismatch",
                        std::string("blob '") + blob + "' differs after a " + form + " round trip"),
            ""};
      }
    }
  }
  // Every run failed alike: the case is bad input.
  return {std::nullopt, "", original.error};
}

const bool kRegistered = RegisterOracle("roundtrip", CheckRoundTrip);

}  // namespace
}  // namespace parity::oracles
