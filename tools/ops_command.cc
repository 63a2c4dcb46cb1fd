// parity ops [--json]: every registered op type with its schema and kernels.
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/operator.h"
#include "core/schema.h"
#include "tools/command.h"

namespace parity::tools {
namespace {

std::string Arity(int lo, int hi) {
  if (lo == hi) return std::to_string(lo);
  if (hi == std::numeric_limits<int>::max()) return std::to_string(lo) + "+";
  return std::to_string(lo) + "-" + std::to_string(hi);
}

nlohmann::json SchemaJson(const OpSchema& schema) {
  nlohmann::json op;
  op["type"] = schema.type();
  op["inputs"] = {{"min", schema.min_inputs()}, {"max", schema.max_inputs()}};
  op["outputs"] = {{"min", schema.min_outputs()}, {"max", schema.max_outputs()}};
  op["arguments"] = nlohmann::json::array();
  for (const ArgSpec& arg : schema.args()) {
    nlohmann::json a = {{"name", arg.name},
                        {"type", ArgTypeName(arg.type)},
                        {"required", arg.required},
                        {"doc", arg.doc}};
    if (!std::holds_alternative<std::monostate>(arg.default_value)) {
      a["default"] = ArgValueString(arg.default_value);
    }
    op["arguments"].push_back(a);
  }
  op["differentiable"] = schema.differentiable();
  op["shape_inference"] = schema.has_shape_inference();
  op["kernels"] = {{"cpu", OperatorRegistry::Engines(schema.type(), kCpuDeviceType)},
                   {"cuda", OperatorRegistry::Engines(schema.type(), kCudaDeviceType)}};
  op["doc"] = schema.doc();
  op["defined_at"] = schema.file() + ":" + std::to_string(schema.line());
  return op;
}

int ListOps(bool json) {
  std::vector<std::string> types = OpSchemaRegistry::Types();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& type : types) out.push_back(SchemaJson(OpSchemaRegistry::Get(type)));
    std::cout << out.dump(2) << "\n";
    return kExitClean;
  }
  std::printf("%-28s %-7s %-7s %-5s %-5s %s\n", "op", "inputs", "outputs", "cpu", "cuda",
              "arguments");
  for (const auto& type : types) {
    const OpSchema& schema = OpSchemaRegistry::Get(type);
    std::string args;
    for (const ArgSpec& arg : schema.args()) args += (args.empty() ? "" : " ") + arg.name;
    std::printf("%-28s %-7s %-7s %-5s %-5s %s\n", type.c_str(),
                Arity(schema.min_inputs(), schema.max_inputs()).c_str(),
                Arity(schema.min_outputs(), schema.max_outputs()).c_str(),
                OperatorRegistry::HasKernel(type, kCpuDeviceType) ? "yes" : "-",
                OperatorRegistry::HasKernel(type, kCudaDeviceType) ? "yes" : "-", args.c_str());
  }
  std::printf("%zu op types\n", types.size());
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{"ops", "List registered op types and their schemas",
                                [](CLI::App* app) {
                                  auto json = std::make_shared<bool>(false);
                                  app->add_flag("--json", *json, "Machine-readable output");
                                  return [json] { return ListOps(*json); };
                                }});

}  // namespace
}  // namespace parity::tools
