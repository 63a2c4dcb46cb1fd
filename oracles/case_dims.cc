#include "oracles/case_dims.h"

#include <set>
#include <string>

namespace parity::oracles {
namespace {

int64_t NumElements(const caffe2::TensorProto& t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) n *= d;
  return n;
}

// Keeps the elements at `keep` (flat indices, ascending) of every data field holding one value
// per element.
void KeepElements(caffe2::TensorProto* t, const std::vector<int64_t>& keep, int64_t numel) {
  auto filter = [&](auto* field) {
    if (field->size() != numel) return;
    auto copy = *field;
    field->Clear();
    for (int64_t i : keep) *field->Add() = copy.Get(static_cast<int>(i));
  };
  filter(t->mutable_float_data());
  filter(t->mutable_double_data());
  filter(t->mutable_int32_data());
  filter(t->mutable_int64_data());
  filter(t->mutable_string_data());
  if (static_cast<int64_t>(t->byte_data().size()) == numel) {
    std::string kept;
    for (int64_t i : keep) kept += t->byte_data()[static_cast<size_t>(i)];
    t->set_byte_data(kept);
  }
}

// Cuts axis `axis` of `t` to its first `to` entries.
void CutAxis(caffe2::TensorProto* t, int axis, int64_t to) {
  const int64_t numel = NumElements(*t);
  std::vector<int64_t> dims(t->dims().begin(), t->dims().end());
  int64_t inner = 1;
  for (size_t k = static_cast<size_t>(axis) + 1; k < dims.size(); ++k) inner *= dims[k];
  const int64_t size = dims[static_cast<size_t>(axis)];
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < numel; ++i) {
    if ((i / inner) % size < to) keep.push_back(i);
  }
  KeepElements(t, keep, numel);
  t->set_dims(axis, to);
}

}  // namespace

std::vector<int64_t> InputDimSizes(const Case& c) {
  std::set<int64_t> sizes;
  for (const auto& input : c.inputs()) {
    for (int64_t d : input.dims()) {
      if (d > 1) sizes.insert(d);
    }
  }
  return std::vector<int64_t>(sizes.rbegin(), sizes.rend());
}

std::optional<Case> ShrinkDimEverywhere(const Case& c, int64_t from, int64_t to) {
  if (to >= from || to < 1) return std::nullopt;
  Case out = c;
  bool changed = false;
  for (auto& input : *out.mutable_inputs()) {
    for (int axis = 0; axis < input.dims_size(); ++axis) {
      if (input.dims(axis) != from) continue;
      CutAxis(&input, axis, to);
      changed = true;
    }
  }
  if (!changed) return std::nullopt;
  return out;
}

std::optional<Case> ShrinkDim(const Case& c, int input, int axis, int64_t to) {
  if (input >= c.inputs_size() || axis >= c.inputs(input).dims_size()) return std::nullopt;
  if (to < 1 || to >= c.inputs(input).dims(axis)) return std::nullopt;
  Case out = c;
  CutAxis(out.mutable_inputs(input), axis, to);
  return out;
}

}  // namespace parity::oracles
