// libFuzzer target for the ONNX importer: whatever the bytes, importing a ModelProto ends in an
// ImportResult or a parity::Error, never a crash, a hang, a SIGFPE or undefined behaviour (built
// with ASan and UBSan). The first byte picks the mode:
//   even: the rest is a binary ModelProto, imported as it is;
//   odd:  a structure-aware mode: the rest, read as bytes, steers edits of a valid seed model
//         (attribute values, dims, opsets, node inputs and outputs rewired), so the fuzzer reaches
//         the rules and the validator with models that parse, not only parser errors.
// Large initializers are capped by the engine's allocation cap, set low here.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/io.h"
#include "core/proto/error.h"
#include "core/tensor.h"
#include "onnx/importer.h"
#include "onnx/onnx.pb.h"

namespace {

constexpr char kSeed[] = R"pb(
  ir_version: 8
  opset_import { domain: "" version: 13 }
  graph {
    name: "g"
    node { op_type: "Conv" name: "c" input: "x" input: "w" output: "a"
           attribute { name: "strides" type: INTS ints: 1 ints: 1 }
           attribute { name: "pads" type: INTS ints: 0 ints: 0 ints: 0 ints: 0 } }
    node { op_type: "MaxPool" name: "p" input: "a" output: "b"
           attribute { name: "kernel_shape" type: INTS ints: 2 ints: 2 }
           attribute { name: "ceil_mode" type: INT i: 1 } }
    node { op_type: "DepthToSpace" name: "d" input: "b" output: "e"
           attribute { name: "blocksize" type: INT i: 1 } }
    node { op_type: "Reshape" name: "r" input: "e" input: "s" output: "y" }
    initializer { name: "w" data_type: 1 dims: 1 dims: 1 dims: 1 dims: 1 float_data: 2 }
    initializer { name: "s" data_type: 7 dims: 2 int64_data: 1 int64_data: -1 }
    input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 1 }
            dim { dim_value: 1 } dim { dim_value: 4 } dim { dim_value: 4 } } } } }
    output { name: "y" type { tensor_type { elem_type: 1 } } }
  }
)pb";

// Steers edits of the seed by the fuzzer's bytes, two at a time (what, value).
void Mutate(const std::string& bytes, ::onnx::ModelProto* model) {
  ::onnx::GraphProto* graph = model->mutable_graph();
  for (size_t k = 0; k + 1 < bytes.size(); k += 2) {
    const int what = static_cast<uint8_t>(bytes[k]);
    const int64_t value = static_cast<int8_t>(bytes[k + 1]);  // small, negative too
    if (graph->node_size() == 0) return;
    ::onnx::NodeProto* node = graph->mutable_node((what >> 3) % graph->node_size());
    switch (what & 7) {
      case 0:  // an int or ints attribute's value
        if (node->attribute_size() > 0) {
          auto* attr = node->mutable_attribute((value & 0xff) % node->attribute_size());
          if (attr->ints_size() > 0) {
            attr->set_ints(static_cast<int>(value & 3) % attr->ints_size(), value >> 2);
          } else {
            attr->set_i(value);
          }
        }
        break;
      case 1: {  // the input's dims
        auto* shape = graph->mutable_input(0)->mutable_type()->mutable_tensor_type()
                          ->mutable_shape();
        if (shape->dim_size() > 0) {
          shape->mutable_dim((value & 3) % shape->dim_size())->set_dim_value(value >> 2);
        }
        break;
      }
      case 2:  // the opset
        model->mutable_opset_import(0)->set_version(value);
        break;
      case 3:  // rewire an input to another node's output (cycles, undefined values)
        if (node->input_size() > 0) {
          const auto& other = graph->node(static_cast<uint8_t>(value) % graph->node_size());
          node->set_input(0, other.output_size() > 0 ? other.output(0) : "ghost");
        }
        break;
      case 4:  // rename an output (duplicates, dangling graph outputs)
        if (node->output_size() > 0) node->set_output(0, value % 2 ? "x" : "a");
        break;
      case 5:  // an initializer's dims
        graph->mutable_initializer(value & 1)->set_dims(0, value >> 1);
        break;
      case 6:  // the input's rank
        if ((value & 1) && graph->input(0).type().tensor_type().shape().dim_size() > 0) {
          graph->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()
              ->mutable_dim()->RemoveLast();
        } else if (!(value & 1)) {
          graph->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()
              ->add_dim()->set_dim_value(value >> 1);
        }
        break;
      default:  // drop a node
        graph->mutable_node()->DeleteSubrange((what >> 3) % graph->node_size(), 1);
        break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool capped = [] {
    parity::SetMaxAllocationBytes(int64_t{64} << 20);
    return true;
  }();
  (void)capped;
  if (size == 0) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    ::onnx::ModelProto model;
    if (data[0] % 2 == 0) {
      parity::ParseProto(bytes, /*text=*/false, "model.onnx", &model);
    } else {
      parity::ParseProto(kSeed, /*text=*/true, "seed", &model);
      Mutate(bytes, &model);
    }
    parity::onnx::TranslateModel(model);
  } catch (const parity::Error&) {
    // A clear error is the right answer to a bad model.
  }
  return 0;
}
