// Running a Case on each engine, with every intermediate blob kept when asked (for localization).
// Results travel as TensorProtos by blob name, so both halves are compared in one currency.
#ifndef PARITY_ORACLES_ENGINES_H_
#define PARITY_ORACLES_ENGINES_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/proto/error.h"
#include "core/proto/parity.pb.h"

namespace parity::oracles {

using Blobs = std::map<std::string, caffe2::TensorProto>;

struct OpTrace {
  int op_index = 0;  // position in the main net (init-net ops are not traced)
  std::string op_type;
  Blobs outputs;     // every tensor output of the op right after it ran
};

struct EngineRun {
  Blobs blobs;                 // every tensor blob after the run (inputs included)
  std::vector<OpTrace> trace;  // filled when asked
  std::optional<Error> error;  // the run failed (bad input or a kernel's complaint)
};

enum class Engine { kProduction, kReferenceF64, kReferenceF32 };
const char* EngineName(Engine engine);

struct RunConfig {
  bool trace = false;
  // Production only: replaces every op's engine (mutant kernels register under test engines).
  std::string engine_override;
  // Production only: replaces NetDef.type ("simple", "dag").
  std::string net_type_override;
};

// The case's inputs by blob name.
Blobs CaseInputs(const Case& c);

EngineRun RunCase(const Case& c, Engine engine, const RunConfig& config = {});

// Blobs the oracles compare: the net's external outputs, else every blob an op writes that is not
// an input of the case.
std::vector<std::string> ComparedBlobs(const Case& c);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_ENGINES_H_
