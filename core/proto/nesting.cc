#include "core/proto/nesting.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <climits>
#include <vector>

#include "core/proto/error.h"

namespace parity {
namespace {

// Keeps the text parser's first error.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first_.empty()) {
      first_ = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) +
               ": " + message;
    }
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

// Depth of the deepest sub-net below `net`, counted from `depth`; returns early once past
// kMaxNetNesting, so a hostile net costs at most kMaxNetNesting + 1 frames.
int DeepestBelow(const caffe2::NetDef& net, int depth) {
  int deepest = depth;
  if (depth > kMaxNetNesting) return deepest;
  for (const caffe2::OperatorDef& op : net.op()) {
    for (const caffe2::Argument& arg : op.arg()) {
      if (arg.has_n()) deepest = std::max(deepest, DeepestBelow(arg.n(), depth + 1));
      for (const caffe2::NetDef& sub : arg.nets()) {
        deepest = std::max(deepest, DeepestBelow(sub, depth + 1));
      }
      if (IsNetTextArgument(arg)) {
        caffe2::NetDef sub;
        std::string error;
        if (ParseNetText(arg.s(), &sub, &error)) {
          deepest = std::max(deepest, DeepestBelow(sub, depth + 1));
        } else if (error.find("too deep") != std::string::npos) {
          // Too deep for the parser's limit is deeper than any net allowed here; other
          // unparseable text is the op's reader's to report.
          deepest = kMaxNetNesting + 1;
        }
      }
      if (deepest > kMaxNetNesting) return deepest;
    }
  }
  return deepest;
}

}  // namespace

bool IsNetTextArgument(const caffe2::Argument& arg) {
  if (!arg.has_s()) return false;
  const std::string& name = arg.name();
  return name == "step_net" || name == "backward_step_net" || name == "then_net" ||
         name == "else_net" || name == "loop_net" || name == "cond_net" || name == "net";
}

bool ParseTextProto(const std::string& text, google::protobuf::Message* message,
                    std::string* error) {
  google::protobuf::TextFormat::Parser parser;
  parser.SetRecursionLimit(kProtoRecursionLimit);
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  const bool ok = parser.ParseFromString(text, message);
  if (!ok && error != nullptr) *error = errors.first();
  return ok;
}

bool ParseNetText(const std::string& text, caffe2::NetDef* net, std::string* error) {
  return ParseTextProto(text, net, error);
}

int NetNestingDepth(const caffe2::NetDef& net) { return DeepestBelow(net, 0); }

void CheckNetNesting(const caffe2::NetDef& net, const std::string& what) {
  PARITY_ENFORCE(
      NetNestingDepth(net) <= kMaxNetNesting, ErrorKind::kInvalidNet, what,
      ": nets nested deeper than ", kMaxNetNesting,
      " levels (If/While/Do/RecurrentNetwork sub-nets); parity's limit keeps every walk ",
      "over them within the stack");
}

int WireNestingDepth(const std::string& bytes, const google::protobuf::Descriptor* type,
                     int limit) {
  using google::protobuf::FieldDescriptor;
  using google::protobuf::internal::WireFormatLite;
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return -1;
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  // The open messages, innermost last: the type each is read as and where its bytes end.
  struct Open {
    const google::protobuf::Descriptor* type;
    int64_t end;
  };
  std::vector<Open> open = {{type, static_cast<int>(bytes.size())}};
  int deepest = 1;
  while (!open.empty()) {
    if (input.CurrentPosition() >= open.back().end) {
      open.pop_back();
      continue;
    }
    const uint32_t tag = input.ReadTag();
    if (tag == 0) return -1;
    if (WireFormatLite::GetTagWireType(tag) != WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      if (!WireFormatLite::SkipField(&input, tag)) return -1;
      continue;
    }
    uint32_t length = 0;
    if (!input.ReadVarint32(&length) || length > static_cast<uint32_t>(INT_MAX)) return -1;
    // In 64 bits: a length near INT_MAX past the current position would overflow an int.
    const int64_t end = int64_t{input.CurrentPosition()} + length;
    if (end > open.back().end) return -1;
    const FieldDescriptor* field = open.back().type->FindFieldByNumber(
        static_cast<int>(WireFormatLite::GetTagFieldNumber(tag)));
    if (field != nullptr && field->type() == FieldDescriptor::TYPE_MESSAGE) {
      open.push_back({field->message_type(), end});
      deepest = std::max(deepest, static_cast<int>(open.size()));
      if (deepest > limit) return deepest;
    } else if (!input.Skip(static_cast<int>(length))) {
      return -1;
    }
  }
  return deepest;
}

bool ParseBinaryProto(const std::string& bytes, google::protobuf::Message* message) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return false;  // protobuf's own 2 GiB cap
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  input.SetRecursionLimit(kProtoRecursionLimit);
  return message->ParseFromCodedStream(&input) && input.ConsumedEntireMessage();
}

}  // namespace parity
