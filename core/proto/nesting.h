// One nesting limit for the whole tree. Nets nest through control ops (If, While, Do) and
// RecurrentNetwork's step nets, and every walk over them (the executors, the reference, shape
// inference, autodiff, the transforms, the drawer) recurses once per level. A user's text net of a
// few thousand nested Ifs would overflow the stack in protobuf's parser and in each of those walks,
// so a net deeper than kMaxNetNesting is refused where it is read, with a clear error, and the
// parsers get recursion limits that admit every net within the limit (protobuf's default of 100
// message levels does not: each level of nets costs three, NetDef > OperatorDef > Argument).
//
// Shared by both halves (the reference includes only core/proto/), so it holds no op semantics.
#ifndef PARITY_CORE_PROTO_NESTING_H_
#define PARITY_CORE_PROTO_NESTING_H_

#include <google/protobuf/message.h>

#include <string>

#include "core/proto/caffe2.pb.h"

namespace parity {

// The deepest nesting of nets parity reads or writes: the top-level net is depth 0, a net held by
// one of its ops' arguments depth 1, and so on. Caffe2's own models nest a few levels (a While
// whose body is a Do holding an If); 64 leaves room for generated nets and costs well under a
// megabyte of stack in the deepest walk.
inline constexpr int kMaxNetNesting = 64;

// The protobuf recursion limit that admits every message holding nets within kMaxNetNesting:
// three message levels per net level, plus the wrappers around a net (a fuzz case, a finding,
// TensorProtos inside arguments) with room to spare.
inline constexpr int kProtoRecursionLimit = 3 * kMaxNetNesting + 32;

// Whether the string argument `arg` holds a net in text format, as Caffe2 writes step nets and as
// control ops accept theirs.
bool IsNetTextArgument(const caffe2::Argument& arg);

// Parses `message` from protobuf text under kProtoRecursionLimit (protobuf's text parser has no
// limit of its own). Returns false on failure; `error`, when given, receives the parser's first
// message with its line and column.
bool ParseTextProto(const std::string& text, google::protobuf::Message* message,
                    std::string* error = nullptr);

// Parses a net written in text format (an argument's string), under kProtoRecursionLimit.
// Returns false when the text is not a NetDef or is nested too deeply; `error`, when given,
// receives the parser's first message.
bool ParseNetText(const std::string& text, caffe2::NetDef* net, std::string* error = nullptr);

// The nesting depth of `net` (0 for a net without sub-nets), counting nets in `n`, `nets` and
// text arguments; stops counting past kMaxNetNesting + 1, so it never recurses further. A text
// argument that does not parse counts as no net here (its reader reports it).
int NetNestingDepth(const caffe2::NetDef& net);

// Throws parity::Error (kInvalidNet) naming `what` when `net` nests deeper than kMaxNetNesting.
void CheckNetNesting(const caffe2::NetDef& net, const std::string& what);

// The deepest nesting of messages in `bytes` read as a `type` on the wire (1 for a message
// without sub-messages), found without recursion and without parsing: stops counting once past
// `limit`. -1 when the bytes are not well-formed wire format. Tells a parse that failed on
// nesting from one that failed on garbage.
int WireNestingDepth(const std::string& bytes, const google::protobuf::Descriptor* type, int limit);

// Parses a binary message under kProtoRecursionLimit (protobuf's ParseFromString stops at 100).
bool ParseBinaryProto(const std::string& bytes, google::protobuf::Message* message);

}  // namespace parity

#endif  // PARITY_CORE_PROTO_NESTING_H_
