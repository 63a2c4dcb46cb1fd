// Graph transforms by name, each with a written contract (`parity transform --list` prints them).
//
// A pass rewrites a predict net (and its init net, where it has one) in place, or refuses with a
// kIllegalTransform error whose text is the seed's; ApplyPasses runs passes on a copy and returns
// it only when every pass ran, so a refusal leaves the caller's net unchanged. After each pass the
// guarantees every pass makes are verified (core/transforms/verify.h); a broken one is kInternal,
// naming the pass: a bug of the pass, never of the net.
#ifndef PARITY_CORE_TRANSFORMS_PASS_H_
#define PARITY_CORE_TRANSFORMS_PASS_H_

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/proto/caffe2.pb.h"

namespace parity::transforms {

struct TransformedNet {
  caffe2::NetDef predict;
  caffe2::NetDef init;  // empty when there is none
  // External inputs and outputs a pass renamed (old name -> new name): callers that feed or fetch
  // them by name (the transform oracle) follow the renaming. Two maps, because one name can be
  // both: a net that overwrites its own input x reads x_0 and ends with x_2 under ssa_rewrite.
  std::map<std::string, std::string> renamed_inputs;
  std::map<std::string, std::string> renamed_outputs;
  // Settings passes read by name (`parity transform --set name=value`), e.g. assign_device_option's
  // input_devices.
  std::map<std::string, std::string> settings;
};

struct PassInfo {
  std::string name;
  // What the pass requires of the net and guarantees about the result, in words.
  std::string contract;
  // The external outputs hold the same values after the pass, for the same inputs: the transform
  // oracle (oracles/transform_oracle.cc) checks every such pass on every generated net.
  bool preserves_outputs = true;
  // Rewrites `net`, or throws parity::Error(kIllegalTransform) when the net does not meet the
  // pass's requirements.
  std::function<void(TransformedNet* net)> run;
  // The pass reads constants of the init net (core/transforms/constants.h): the transform oracle
  // gives it the case deployed, its parameters frozen into an init net.
  bool uses_constants = false;
  // Producer -> consumer op types the pass rewrites (Conv -> SpatialBN): the net generator chains
  // them now and then, so that campaigns meet what each pass looks for.
  std::vector<std::pair<std::string, std::string>> rewrites;
  // The settings (TransformedNet::settings) the pass reads, besides "inputs", which every pass
  // that uses constants reads: `parity transform --set` refuses a name no chosen pass reads.
  std::vector<std::string> settings;
};

// Every setting name `pass` reads.
std::vector<std::string> SettingsReadBy(const PassInfo& pass);

class PassRegistry {
 public:
  static bool Register(PassInfo pass);
  // nullptr when unknown.
  static const PassInfo* Find(const std::string& name);
  // Swaps a registered pass (pass mutants); returns the one it replaced.
  static PassInfo Replace(const std::string& name, PassInfo pass);
  // Every pass, by name.
  static std::vector<std::string> Names();
  // Every pass's `rewrites`: producer op type -> the consumer types passes look for after it.
  static std::map<std::string, std::vector<std::string>> Rewrites();
};

// Runs `passes` in order on a copy of `net`, verifying each; throws kBadArgument for an unknown
// pass name, the pass's kIllegalTransform when one refuses, kInternal when one breaks a guarantee.
TransformedNet ApplyPasses(const TransformedNet& net, const std::vector<std::string>& passes);

}  // namespace parity::transforms

#define PARITY_TRANSFORM_CONCAT_INNER(a, b) a##b
#define PARITY_TRANSFORM_CONCAT(a, b) PARITY_TRANSFORM_CONCAT_INNER(a, b)
#define PARITY_REGISTER_PASS(...)                                                   \
  static const bool PARITY_TRANSFORM_CONCAT(parity_registered_pass_, __COUNTER__) = \
      ::parity::transforms::PassRegistry::Register(__VA_ARGS__)

#endif  // PARITY_CORE_TRANSFORMS_PASS_H_
