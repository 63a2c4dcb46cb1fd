// Mutants of op schemas (issue 12): shape functions the executor, the generator and the transforms
// trust, and arity limits the validation applies. Each swaps the registered schema for a copy with
// the bug (OpSchemaRegistry::Replace); the shape-inference oracle must see a shape function lie,
// and the validity oracle a schema that rejects what Caffe2 runs.
#include <algorithm>
#include <functional>
#include <string>

#include "core/argument.h"
#include "core/schema.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

// Installs a copy of `type`'s schema changed by `change`, restoring the original on undo.
std::function<std::function<void()>()> SchemaSwap(const std::string& type,
                                                  std::function<void(OpSchema*)> change) {
  return [type, change] {
    OpSchema mutated = OpSchemaRegistry::Get(type);
    change(&mutated);
    OpSchema original = OpSchemaRegistry::Replace(type, mutated);
    return std::function<void()>([type, original] { OpSchemaRegistry::Replace(type, original); });
  };
}

// A shape function that runs the real one on a def edited by `edit_def`, then `edit_out`.
using DefEdit = std::function<void(caffe2::OperatorDef*)>;
using OutEdit = std::function<void(const std::vector<TensorType>& in, std::vector<TensorType>*)>;

Mutant InferenceMutant(const std::string& name, const std::string& type,
                       const std::string& description, DefEdit edit_def, OutEdit edit_out) {
  Mutant m = M(name, type, "shape", "inference", description);
  m.install = SchemaSwap(type, [type, edit_def, edit_out](OpSchema* schema) {
    ShapeFunction inner = schema->shape_function();
    schema->ShapeInference([inner, type, edit_def, edit_out](const caffe2::OperatorDef& def,
                                                             const ArgumentHelper& args,
                                                             const std::vector<TensorType>& in) {
      std::vector<TensorType> out;
      if (edit_def) {
        caffe2::OperatorDef edited = def;
        edit_def(&edited);
        out = inner(edited, ArgumentHelper(edited, OpSchemaRegistry::Find(type)), in);
      } else {
        out = inner(def, args, in);
      }
      if (edit_out) edit_out(in, &out);
      return out;
    });
  });
  return m;
}

DefEdit Drop(std::vector<std::string> names) {
  return [names](caffe2::OperatorDef* def) {
    for (const std::string& name : names) RemoveArg(def, name);
  };
}

}  // namespace

void AddInferenceMutants(std::vector<Entry>* out) {
  auto add = [out](Mutant m) { out->push_back({std::move(m), Wrap{}}); };

  add(InferenceMutant("CAST_INFERS_INPUT_DTYPE", "Cast",
                      "Cast's shape function keeps the input's dtype", nullptr,
                      [](const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                        out->at(0).dtype = in.at(0).dtype;
                      }));
  add(InferenceMutant("SHAPE_INFERS_INT32", "Shape",
                      "Shape's shape function says int32 (the kernel writes int64)", nullptr,
                      [](const std::vector<TensorType>&, std::vector<TensorType>* out) {
                        out->at(0).dtype = DataType::kInt32;
                      }));
  add(InferenceMutant("CONV_INFERS_NO_DILATION", "Conv", "Conv's shape function ignores dilation",
                      Drop({"dilation", "dilations", "dilation_h", "dilation_w"}), nullptr));
  add(InferenceMutant("TRANSPOSE_INFERS_REVERSAL", "Transpose",
                      "Transpose's shape function ignores axes (reverses the dims)", Drop({"axes"}),
                      nullptr));
  add(InferenceMutant(
      "REDUCESUM_INFERS_KEEPDIMS", "ReduceSum",
      "ReduceSum's shape function always keeps the reduced dims",
      [](caffe2::OperatorDef* def) { SetInt(def, "keepdims", 1); }, nullptr));
  add(InferenceMutant("FLATTEN_INFERS_AXIS_1", "Flatten", "Flatten's shape function ignores axis",
                      Drop({"axis"}), nullptr));
  add(InferenceMutant("MATMUL_INFERS_NO_TRANS_B", "MatMul",
                      "MatMul's shape function ignores trans_b", Drop({"trans_b"}), nullptr));
  add(InferenceMutant("SQUEEZE_INFERS_NOTHING", "Squeeze", "Squeeze's shape function drops no dims",
                      nullptr, [](const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                        out->at(0).dims = in.at(0).dims;
                      }));

  // Validation: arity narrowed to two inputs, as if the schema said NumInputs(1, 2).
  for (const char* type : {"Sum", "Concat"}) {
    const std::string t = type;
    std::string name = t + "_SCHEMA_AT_MOST_TWO_INPUTS";
    std::transform(name.begin(), name.end(), name.begin(), ::toupper);
    Mutant m = M(name, t, "validity", "schema",
                 t + "'s schema allows at most two inputs (Caffe2 takes any number)");
    m.install = SchemaSwap(t, [](OpSchema* schema) {
      schema->NumInputs(schema->min_inputs(), std::min(schema->max_inputs(), 2));
    });
    add(m);
  }
}

}  // namespace parity::mutants
