// Round-trip: the case's nets survive binary and text serialization unchanged, and the re-parsed
// nets compute bit-identical results.
#include <google/protobuf/text_format.h>

#include "core/io.h"
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

OracleResult CheckRoundTrip(const Case& c, const OracleOptions& options) {
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
