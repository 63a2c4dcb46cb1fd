// Building Findings: signature, comparisons, the blamed op, and the repro command.
#ifndef PARITY_ORACLES_FINDING_H_
#define PARITY_ORACLES_FINDING_H_

#include <string>

#include "core/proto/error.h"
#include "core/proto/parity.pb.h"
#include "oracles/backend.h"
#include "oracles/tolerance.h"

namespace parity::oracles {

// A Finding for `c` from `oracle` with the given error class and message. The signature's
// blamed op type and dtype are filled by SetBlame / AddComparison.
Finding MakeFinding(const std::string& oracle, const Case& c, const std::string& error_class,
                    const std::string& message);

void AddComparison(Finding* finding, const std::string& blob, const caffe2::TensorProto& expected,
                   const caffe2::TensorProto& actual, const Comparison& comparison);

// Names the op at `index` of the case's net (or of `net` when given) as the culprit.
void SetBlame(Finding* finding, int index, const caffe2::NetDef& net);

// The index of the op a parity::Error's context names first ("... op #3 (Add) ..."), or -1.
int FailingOpIndex(const Error& error);

// Replaces the bytes that are not UTF-8 in every `string` field of `message`, at any depth, with
// U+FFFD. Findings carry engines' error messages, and protobuf neither writes nor reads (parity's
// loader refuses it) a string field that is not UTF-8: a corpus saved with one could not be read
// back by `report`, `repro` or `merge`.
void MakeStringsUtf8(google::protobuf::Message* message);

// "oracle/blamed op/error class/dtype[/frame;frame;frame]": the key findings are deduplicated by.
std::string SignatureKey(const Signature& signature);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_FINDING_H_
