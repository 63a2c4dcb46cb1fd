// Private case builders of the mutant catalogue (mutant_cases.cc).
#ifndef PARITY_TESTS_MUTANTS_MUTANT_CASES_H_
#define PARITY_TESTS_MUTANTS_MUTANT_CASES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/proto/parity.pb.h"
#include "fuzz/spec.h"

namespace parity::mutants::cases {

using fuzz::Domain;
using fuzz::OpInstance;
using fuzz::Primary;

// A one-op Case from `inst` (inside rc::gen::exec); `inplace` maps output j to input i.
Case InstanceCase(const OpInstance& inst, const std::map<int, int>& inplace = {});
std::function<Case(uint64_t)> Builder(std::function<Case()> body);
std::vector<int64_t> DimsAtLeast(int min_rank, int max_rank, int64_t min_dim, int64_t max_dim);
std::optional<OpInstance> MakeSoftmax(const Primary*);
std::optional<OpInstance> MakeConcat(const Primary*);
std::optional<OpInstance> MakeReduceSum(const Primary*);
std::optional<OpInstance> MakeTranspose(const Primary*);
std::optional<OpInstance> MakeSum(const Primary*);
OpInstance RnnUnit(const std::string& type, int states, int gate_count, bool past_rows);
std::optional<OpInstance> MakeLstmWithForgetBias(const Primary*);
std::optional<OpInstance> MakeGruWithPastRows(const Primary*);
std::optional<OpInstance> MakeLayerNorm(const Primary*);
std::optional<OpInstance> MakeSoftmaxWithLoss(const Primary*);
std::optional<OpInstance> MakeSquaredL2(const Primary*);
std::optional<OpInstance> MakeGather(const Primary*);
std::optional<OpInstance> MakeSlice(const Primary*);
std::optional<OpInstance> MakeTile(const Primary*);
std::optional<OpInstance> MakeBroadcastAdd(const Primary*);
std::optional<OpInstance> MakeUnary(const std::string& type, Domain domain);
std::function<Case(uint64_t)> SpatialBnTrainingCases();
std::function<Case(uint64_t)> FanOutFcCases();
std::function<Case(uint64_t)> AccumulationCases();
std::function<Case(uint64_t)> ReadThenOverwriteCases();

}  // namespace parity::mutants::cases

#endif  // PARITY_TESTS_MUTANTS_MUTANT_CASES_H_
