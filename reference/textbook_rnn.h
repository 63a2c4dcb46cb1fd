// The textbook recurrent cells, written from their equations (the CellPromise comment in
// core/proto/parity.proto: ONNX's LSTM and GRU definitions with Caffe2's gate orders and its
// sequence-length rule), not from the ops a builder emits. The builder oracle
// (oracles/builder_oracle.cc) holds the nets of the cell builders (core/rnn/rnn_cell.h) to them:
// a builder that wires its net wrongly builds the same wrong net for every engine, so the
// reference's run of that net agrees with production and only this statement can disagree.
//
// Plain loops over steps, rows and units, in the interpreter's precisions: kF64 is the truth,
// kF32 the yardstick that sizes the tolerance, as for nets.
#ifndef PARITY_REFERENCE_TEXTBOOK_RNN_H_
#define PARITY_REFERENCE_TEXTBOOK_RNN_H_

#include <map>
#include <string>

#include "core/proto/caffe2.pb.h"
#include "core/proto/parity.pb.h"
#include "reference/interpreter.h"

namespace parity::reference {

// The promised outputs (hidden_all [T, N, H], hidden_last [1, N, H], and the LSTM's cell_all and
// cell_last) by blob name, computed from `inputs` (blob name -> value): floating values as DOUBLE
// (kF64) or FLOAT (kF32) TensorProtos. Throws parity::Error naming the blob when an input is
// missing (kMissingBlob) or its shape does not fit the cell (kShapeMismatch), and kBadArgument for
// a cell other than "lstm" or "gru".
std::map<std::string, caffe2::TensorProto> EvaluateCell(
    const CellPromise& promise, const std::map<std::string, caffe2::TensorProto>& inputs,
    Precision precision);

}  // namespace parity::reference

#endif  // PARITY_REFERENCE_TEXTBOOK_RNN_H_
