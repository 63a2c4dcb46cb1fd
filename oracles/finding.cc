#include "oracles/finding.h"

#include <cstdlib>
#include <vector>

#include "core/proto/utf8.h"

namespace parity::oracles {
namespace {

std::string DtypeName(const caffe2::TensorProto& t) {
  return caffe2::TensorProto::DataType_Name(t.data_type());
}

}  // namespace

Finding MakeFinding(const std::string& oracle, const Case& c, const std::string& error_class,
                    const std::string& message) {
  Finding finding;
  finding.set_oracle(oracle);
  *finding.mutable_case_() = c;
  finding.set_message(message);
  Signature* signature = finding.mutable_signature();
  signature->set_oracle(oracle);
  signature->set_error_class(error_class);
  signature->set_blamed_op_type("?");
  finding.set_repro_command("parity repro FINDING.pb");
  return finding;
}

void AddComparison(Finding* finding, const std::string& blob, const caffe2::TensorProto& expected,
                   const caffe2::TensorProto& actual, const Comparison& comparison) {
  BlobComparison* entry = finding->add_comparisons();
  entry->set_blob(blob);
  *entry->mutable_expected() = expected;
  *entry->mutable_actual() = actual;
  *entry->mutable_metrics() = comparison.metrics;
  if (!finding->signature().has_dtype()) finding->mutable_signature()->set_dtype(DtypeName(actual));
}

void SetBlame(Finding* finding, int index, const caffe2::NetDef& net) {
  if (index < 0 || index >= net.op_size()) return;
  finding->set_blamed_op_index(index);
  finding->set_blamed_op_type(net.op(index).type());
  finding->set_blamed_op_path("op #" + std::to_string(index) + " (" + net.op(index).type() + ")");
  finding->mutable_signature()->set_blamed_op_type(net.op(index).type());
}

int FailingOpIndex(const Error& error) {
  const std::string& context = error.context();
  size_t at = context.find("op #");
  if (at == std::string::npos) return -1;
  return std::atoi(context.c_str() + at + 4);
}

void MakeStringsUtf8(google::protobuf::Message* message) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection* reflection = message->GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(*message, &fields);
  for (const FieldDescriptor* field : fields) {
    const int count = field->is_repeated() ? reflection->FieldSize(*message, field) : 1;
    for (int k = 0; k < count; ++k) {
      if (field->type() == FieldDescriptor::TYPE_STRING) {
        const std::string value = field->is_repeated()
                                      ? reflection->GetRepeatedString(*message, field, k)
                                      : reflection->GetString(*message, field);
        if (IsValidUtf8(value)) continue;
        if (field->is_repeated()) {
          reflection->SetRepeatedString(message, field, k, ValidUtf8(value));
        } else {
          reflection->SetString(message, field, ValidUtf8(value));
        }
      } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        MakeStringsUtf8(field->is_repeated()
                            ? reflection->MutableRepeatedMessage(message, field, k)
                            : reflection->MutableMessage(message, field));
      }
    }
  }
}

std::string SignatureKey(const Signature& s) {
  std::string key = s.oracle() + "/" + s.blamed_op_type() + "/" + s.error_class() + "/" + s.dtype();
  for (int i = 0; i < s.frames_size(); ++i) key += (i == 0 ? "/" : ";") + s.frames(i);
  return key;
}

}  // namespace parity::oracles
