#include "oracles/engines.h"

#include <set>

#include "core/net.h"
#include "core/tensor_proto.h"
#include "core/workspace.h"
#include "reference/interpreter.h"

namespace parity::oracles {

const char* EngineName(Engine engine) {
  switch (engine) {
    case Engine::kProduction: return "production";
    case Engine::kReferenceF64: return "reference-f64";
    case Engine::kReferenceF32: return "reference-f32";
  }
  return "?";
}

Blobs CaseInputs(const Case& c) {
  Blobs inputs;
  for (const auto& t : c.inputs()) inputs[t.name()] = t;
  return inputs;
}

std::vector<std::string> ComparedBlobs(const Case& c) {
  if (c.net().external_output_size() > 0) {
    return {c.net().external_output().begin(), c.net().external_output().end()};
  }
  std::set<std::string> inputs;
  for (const auto& t : c.inputs()) inputs.insert(t.name());
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& op : c.net().op()) {
    for (const auto& out : op.output()) {
      if (!inputs.count(out) && seen.insert(out).second) names.push_back(out);
    }
  }
  return names;
}

namespace {

caffe2::NetDef Configured(const caffe2::NetDef& net, const RunConfig& config) {
  caffe2::NetDef out = net;
  if (!config.engine_override.empty()) {
    for (auto& op : *out.mutable_op()) op.set_engine(config.engine_override);
  }
  if (!config.net_type_override.empty()) out.set_type(config.net_type_override);
  return out;
}

void CollectTensors(Workspace& ws, Blobs* blobs) {
  for (const std::string& name : ws.Blobs()) {
    Blob* blob = ws.GetBlob(name);
    if (blob != nullptr && blob->IsTensor() && blob->GetTensor().defined()) {
      (*blobs)[name] = TensorToProto(blob->GetTensor(), name);
    }
  }
}

EngineRun RunProduction(const Case& c, const RunConfig& config) {
  EngineRun run;
  Workspace ws;
  try {
    for (const auto& input : c.inputs()) {
      ws.CreateTensor(input.name())->CopyFrom(TensorFromProto(input));
    }
    if (c.has_init_net()) ws.RunNetOnce(Configured(c.init_net(), config));
    caffe2::NetDef net = Configured(c.net(), config);
    NetBase* instance = ws.CreateNet(net);
    if (config.trace) {
      instance->RunObserved([&](int index, const Operator& op) {
        OpTrace entry;
        entry.op_index = index;
        entry.op_type = op.type();
        for (int i = 0; i < op.OutputSize(); ++i) {
          const Blob* blob = op.OutputBlob(i);
          if (blob->IsTensor() && blob->GetTensor().defined()) {
            entry.outputs[op.OutputName(i)] = TensorToProto(blob->GetTensor(), op.OutputName(i));
          }
        }
        run.trace.push_back(std::move(entry));
      });
    } else {
      instance->Run();
    }
  } catch (const Error& error) {
    run.error = error;
  }
  CollectTensors(ws, &run.blobs);
  return run;
}

EngineRun RunReference(const Case& c, reference::Precision precision, const RunConfig& config) {
  EngineRun run;
  reference::RunOptions options;
  options.precision = precision;
  options.trace = config.trace;
  try {
    reference::RunResult result =
        c.has_init_net() ? reference::RunNets(c.init_net(), c.net(), CaseInputs(c), options)
                         : reference::RunNet(c.net(), CaseInputs(c), options);
    run.blobs = std::move(result.blobs);
    const int init_ops = c.has_init_net() ? c.init_net().op_size() : 0;
    for (auto& entry : result.trace) {
      if (entry.op_index < init_ops) continue;
      OpTrace trace;
      trace.op_index = entry.op_index - init_ops;
      trace.op_type = entry.op_type;
      trace.outputs = std::move(entry.outputs);
      run.trace.push_back(std::move(trace));
    }
  } catch (const Error& error) {
    run.error = error;
  }
  return run;
}

}  // namespace

EngineRun RunCase(const Case& c, Engine engine, const RunConfig& config) {
  switch (engine) {
    case Engine::kProduction: return RunProduction(c, config);
    case Engine::kReferenceF64: return RunReference(c, reference::Precision::kF64, config);
    case Engine::kReferenceF32: return RunReference(c, reference::Precision::kF32, config);
  }
  return {};
}

}  // namespace parity::oracles
