// parity ops [--json]: every registered op type with its schema and kernels.
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/operator.h"
#include "core/schema.h"
#include "fuzz/spec.h"
#include "oracles/coverage.h"
#include "tools/command.h"

namespace parity::tools {
namespace {

std::string Arity(int lo, int hi) {
  if (lo == hi) return std::to_string(lo);
  if (hi == std::numeric_limits<int>::max()) return std::to_string(lo) + "+";
  return std::to_string(lo) + "-" + std::to_string(hi);
}

nlohmann::json SchemaJson(const OpSchema& schema, const oracles::OpCoverage& coverage) {
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
  // The named engine that runs by default ("DNNL" for Conv), "" when the default has no name.
  op["default_engine"] = {
      {"cpu", OperatorRegistry::DefaultEngine(schema.type(), kCpuDeviceType)},
      {"cuda", OperatorRegistry::DefaultEngine(schema.type(), kCudaDeviceType)}};
  op["reference"] = coverage.reference;
  op["spec"] = coverage.spec;
  op["gradient"] = coverage.gradient;
  op["problems"] = coverage.problems;
  op["doc"] = schema.doc();
  op["defined_at"] = schema.file() + ":" + std::to_string(schema.line());
  return op;
}

int ListOps(bool json) {
  std::vector<oracles::OpCoverage> rows = oracles::ComputeCoverage(fuzz::SpecRegistry::Types());
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& row : rows) out.push_back(SchemaJson(OpSchemaRegistry::Get(row.type), row));
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitClean;
  }
  std::printf("%-38s %-6s %-6s %-4s %-4s %-9s %-15s %-17s %s\n", "op", "in", "out", "cpu", "cuda",
              "reference", "spec", "gradient", "arguments");
  int problems = 0;
  std::string engines;  // ops whose default kernel is a named engine, with their other engines
  for (const auto& row : rows) {
    const OpSchema& schema = OpSchemaRegistry::Get(row.type);
    std::string args;
    for (const ArgSpec& arg : schema.args()) args += (args.empty() ? "" : " ") + arg.name;
    std::string reference = row.reference.rfind("finite", 0) == 0 ? "fd-only" : row.reference;
    // cpu: "yes", or the name of the engine that runs by default (Conv's "DNNL").
    const std::string default_engine = OperatorRegistry::DefaultEngine(row.type, kCpuDeviceType);
    std::string cpu = OperatorRegistry::HasKernel(row.type, kCpuDeviceType) ? "yes" : "-";
    if (!default_engine.empty()) {
      cpu = default_engine;
      engines += "  " + row.type + ": " + default_engine + " (default)";
      for (const std::string& e : OperatorRegistry::Engines(row.type, kCpuDeviceType)) {
        if (!e.empty() && e != default_engine) engines += ", " + e;
      }
      engines += "\n";
    }
    std::printf("%-38s %-6s %-6s %-4s %-4s %-9s %-15s %-17s %s\n", row.type.c_str(),
                Arity(schema.min_inputs(), schema.max_inputs()).c_str(),
                Arity(schema.min_outputs(), schema.max_outputs()).c_str(), cpu.c_str(),
                row.cuda.c_str(), reference.c_str(), row.spec.c_str(), row.gradient.c_str(),
                args.c_str());
    problems += !row.problems.empty();
  }
  if (!engines.empty()) std::printf("CPU engines:\n%s", engines.c_str());
  std::printf("%zu op types, %d with coverage problems\n", rows.size(), problems);
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "ops", "List registered op types and their schemas", [](CLI::App* app) {
      app->footer(Examples({
          {"parity ops",
           "every op type: arity, arguments, kernels per device and engine, coverage"},
          {"parity ops --json > ops.json", "the same, machine-readable"},
      }));
      auto json = std::make_shared<bool>(false);
      app->add_flag("--json", *json, "Machine-readable output");
      return [json] { return ListOps(*json); };
    }});

}  // namespace
}  // namespace parity::tools
