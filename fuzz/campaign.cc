#include "fuzz/campaign.h"

#include <poll.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>

#include "core/io.h"
#include "core/proto/error.h"
#include "fuzz/campaign_report.h"
#include "fuzz/campaign_state.h"
#include "fuzz/cell_builder_cases.h"
#include "fuzz/corpus.h"
#include "fuzz/generators.h"
#include "fuzz/isolated_check.h"
#include "fuzz/json_fields.h"
#include "fuzz/misshapen.h"
#include "fuzz/reduce.h"
#include "fuzz/sandbox.h"
#include "fuzz/spec.h"
#include "gpu/device.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/finding.h"
#include "oracles/seeds.h"

namespace parity::fuzz {
namespace {

std::vector<std::string> SpecTypes(const std::vector<std::string>& ops) {
  std::vector<std::string> all = SpecRegistry::Types();
  if (ops.empty()) return all;
  for (const auto& op : ops) {
    PARITY_ENFORCE(SpecRegistry::Find(op) != nullptr, ErrorKind::kBadArgument,
                   "--ops: no spec for ", "op type '", op, "'");
  }
  return ops;
}

}  // namespace

void MakeDirs(const std::string& path) {
  std::string partial;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!partial.empty()) ::mkdir(partial.c_str(), 0755);
    }
    if (i < path.size()) partial += path[i];
  }
  struct stat st;
  PARITY_ENFORCE(::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode), ErrorKind::kIo,
                 "cannot create directory ", path);
}

namespace {

// The op or net of campaign position `index`.
Case CampaignStructure(const CampaignOptions& options, int64_t index, uint64_t seed) {
  std::vector<std::string> types = SpecTypes(options.ops);
  PARITY_ENFORCE(!types.empty(), ErrorKind::kBadArgument, "no op specs to fuzz");
  bool net = options.nets && index % 2 == 1;
  if (net) {
    NetGenOptions net_options;
    net_options.ops = options.ops;
    bool any = std::any_of(types.begin(), types.end(), [](const std::string& t) {
      return SpecRegistry::Find(t)->consumes_intermediates();
    });
    if (any) {
      // Ops that rarely chain (a narrow --ops set) may give no net for a seed: that index is a
      // single-op case instead, so the campaign goes on (and stays reproducible).
      if (std::optional<Case> c = TrySampleCase(NetCaseGen(net_options), seed)) return *c;
    }
  }
  // One single-op case in 32 (1 case in 64; from seed bits nothing else reads) is a net a cell
  // builder made, where RecurrentNetwork is fuzzed: the builders' nets are what users of
  // `parity rnn` and Caffe2's rnn_cell.py run, and only such a case lets the builder oracle check
  // a builder. They are few because they are dear: every oracle on one costs about 16 ms, six
  // times an average case (the gradient oracle's unrolled runs most), so at 1 in 16 they took a
  // third of a campaign's time.
  if (!net && (seed >> 48) % 32 == 0 && DrawsCellBuilders(types)) {
    return SampleCase(CellBuilderCaseGen(), seed);
  }
  const OpSpec& spec = *SpecRegistry::Find(types[seed % types.size()]);
  Case c = SampleCase(OpCaseGen(spec), seed);
  // One single-op case in 16 is made wrong in one way (fuzz/misshapen.h): the validity oracle
  // then holds both halves to refusing it alike. From seed bits nothing else reads.
  if ((seed >> 56) % 16 == 0) {
    if (std::optional<Case> wrong = MisshapenVariant(c, seed >> 20)) return *wrong;
  }
  return c;
}

}  // namespace

Case CampaignCase(const CampaignOptions& options, int64_t index) {
  const uint64_t seed = oracles::SeedAt(options.seed, static_cast<uint64_t>(index));
  Case c = CampaignStructure(options, index, seed);
  // Half the cases split production's ParallelFor work over 2, 3 or 4 threads (Case.
  // compute_threads): the chunking and every threaded kernel path then face the oracles, which
  // one-thread workers never showed them. From the seed's high bits, which the draw above does
  // not use to pick the op.
  const int threads[] = {0, 0, 0, 2, 3, 4};
  const int pick = threads[(seed >> 40) % 6];
  if (pick > 1) c.set_compute_threads(pick);
  return c;
}

DrawnCase DrawCampaignCase(const CampaignOptions& options, int64_t index) {
  DrawnCase drawn;
  std::string error_class, message;
  try {
    drawn.c = CampaignCase(options, index);
    return drawn;
  } catch (const Error& error) {
    // Bad options (--ops naming no spec) end the campaign as before: they are the user's.
    if (error.kind() == ErrorKind::kBadArgument && options.ops.size() > 0 &&
        std::string(error.what()).rfind("--ops", 0) == 0) {
      throw;
    }
    error_class = std::string("draw threw ") + ErrorKindName(error.kind());
    message = Printable(error.what());
  } catch (const std::bad_alloc&) {
    error_class = "draw ran out of memory";
    message = "std::bad_alloc";
  } catch (const std::exception& error) {
    error_class = "draw threw an exception";
    message = Printable(error.what());
  }
  // The generators run engine code (shape inference; the builders run the backward pass), so an
  // engine that throws while a case is drawn is a finding against it, never the campaign's end.
  // The case is an empty net carrying the seed: the draw itself is what failed.
  drawn.c.set_seed(oracles::SeedAt(options.seed, static_cast<uint64_t>(index)));
  drawn.c.set_generator_version(kGeneratorVersion);
  drawn.c.set_description("case #" + std::to_string(index) + " could not be drawn");
  drawn.c.mutable_net()->set_name("undrawn");
  Finding finding = oracles::MakeFinding(kDrawOracle, drawn.c, error_class,
                                         "drawing case #" + std::to_string(index) + " of seed " +
                                             std::to_string(options.seed) + " threw: " + message);
  finding.set_backend(options.backend);
  finding.set_repro_command("parity fuzz --seed " + std::to_string(options.seed) + " --cases " +
                            std::to_string(index + 1) + " --jobs 0 (with the campaign's --ops)");
  OracleVerdict* verdict = drawn.failure.add_verdicts();
  verdict->set_oracle(kDrawOracle);
  verdict->set_status(OracleVerdict::FINDING);
  *verdict->mutable_finding() = std::move(finding);
  drawn.failure.set_seed(drawn.c.seed());
  drawn.failure.set_backend(options.backend);
  drawn.failed = true;
  return drawn;
}

namespace {

// The case at `index` checked by the oracles, or the finding its draw became.
CaseReport CheckDrawn(const DrawnCase& drawn, const oracles::CheckRequest& request) {
  return drawn.failed ? drawn.failure : oracles::CheckCase(drawn.c, request);
}

// The campaign's bookkeeping: tally, saved findings, first finding per signature, progress, and
// the case indices handed out and done, kept in out_dir/state.json (fuzz/campaign_state.h).
class Recorder {
 public:
  Recorder(const CampaignOptions& options, CampaignProgress* progress,
           const std::function<void(const Finding&)>& on_finding)
      : options_(options),
        progress_(progress),
        on_finding_(on_finding),
        cursor_(options.shard_index, options.shard_count) {
    if (options_.out_dir.empty()) return;
    MakeDirs(options_.out_dir);
    if (options_.fresh) RemoveCampaign(options_.out_dir);
    state_path_ = options_.out_dir + "/state.json";
    corpus_ = std::make_unique<Corpus>(options_.out_dir + "/findings");
    if (std::filesystem::exists(state_path_)) Resume();
  }

  double Elapsed() const {
    return resumed_seconds_ +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  bool OutOfTime() const { return options_.seconds >= 0 && Elapsed() >= options_.seconds; }

  CaseCursor& cursor() { return cursor_; }

  // A case its worker (or this process) checked; `c` needs only its op types.
  void AddCase(int64_t index, const Case& c, const CaseReport& report) {
    const std::vector<Finding> findings = oracles::Findings(report);
    if (!findings.empty()) SaveState();  // the case in flight, before the corpus changes
    summary_.tally.Add(c, report);
    for (const Finding& finding : findings) Record(index, finding);
    cursor_.Done(index);
    if (!findings.empty()) SaveState();
  }

  // A case whose worker died on it: one crash, hang or resource finding.
  void AddWorkerDeath(int64_t index, const Case& c, const Finding& finding) {
    SaveState();
    oracles::CheckTally& tally = summary_.tally;
    tally.Add(c, CaseReport());
    ++tally.findings;
    ++tally.by_signature[oracles::SignatureKey(finding.signature())];
    ++summary_.workers_replaced;
    Record(index, finding);
    cursor_.Done(index);
    SaveState();
  }

  // Progress and state.json, about once a second.
  void Tick() {
    auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_report_).count() < 1.0) return;
    last_report_ = now;
    SaveState();
    if (progress_ != nullptr) progress_->Update(summary_.tally, Elapsed());
  }

  // Reduces each signature new to the corpus, from its smallest case.
  void ReduceNewSignatures() {
    if (corpus_ == nullptr || options_.reduce_seconds <= 0) return;
    while (!unreduced_.empty()) {
      if (options_.stop != nullptr && options_.stop->load()) return;
      const std::string key = unreduced_.front();
      const CorpusEntry& entry = corpus_->entries().at(key);
      Finding smallest;
      LoadProtoFile(entry.dir + "/smallest.pb", &smallest);
      if (smallest.oracle() == kDrawOracle) {  // no case to reduce: the draw itself failed
        unreduced_.erase(unreduced_.begin());
        continue;
      }
      ReduceOptions reduce;
      reduce.seconds = options_.reduce_seconds;
      reduce.limits = options_.limits;
      const ReduceResult result = ReduceFinding(smallest, reduce);
      CampaignSummary::Reduction& r = summary_.reductions[key];
      r = {result.before.ops,     result.after.ops, result.before.elements,
           result.after.elements, result.seconds,   result.reproduced};
      if (result.reproduced) corpus_->SetReduced(key, result.reduced);
      unreduced_.erase(unreduced_.begin());
      SaveState();
      if (progress_ != nullptr) progress_->OnReduced(key, r);
    }
  }

  CampaignSummary Finish(bool interrupted) {
    summary_.interrupted = interrupted;
    summary_.seconds = Elapsed();
    SaveState();
    if (progress_ != nullptr) {
      progress_->Update(summary_.tally, summary_.seconds);
      progress_->Finish();
    }
    return std::move(summary_);
  }

 private:
  void Record(int64_t index, const Finding& finding) {
    std::string saved;
    if (corpus_ != nullptr) {
      const Corpus::Added added = corpus_->Add(finding, index);
      saved = added.entry->dir + "/case.pb";
      if (added.new_signature) unreduced_.push_back(added.entry->key);
      ++summary_.findings_saved;
    }
    const std::string key = oracles::SignatureKey(finding.signature());
    auto first = first_index_.find(key);
    if (first == first_index_.end() || index < first->second) {
      first_index_[key] = index;
      summary_.first_finding[key] = finding;
      if (!saved.empty()) summary_.first_saved[key] = saved;
    }
    if (progress_ != nullptr) progress_->OnFinding(finding, saved, summary_.tally, Elapsed());
    if (on_finding_) on_finding_(finding);
  }

  // Continues the campaign in state.json: its counters, corpus and cursor.
  void Resume() {
    SavedCampaign saved = ReadCampaignState(ReadFileBytes(state_path_), state_path_, options_,
                                            &cursor_, corpus_.get());
    summary_.tally = std::move(saved.tally);
    summary_.workers_replaced = saved.workers_replaced;
    summary_.findings_saved = saved.findings_saved;
    summary_.reductions = std::move(saved.reductions);
    unreduced_ = std::move(saved.unreduced);
    resumed_seconds_ = saved.elapsed_seconds;
    summary_.resumed_cases = summary_.tally.cases;
    // The first finding of each signature, as the corpus keeps it.
    for (const auto& [key, entry] : corpus_->entries()) {
      if (!summary_.tally.by_signature.count(key)) continue;
      first_index_[key] = entry.first.index;
      LoadProtoFile(entry.dir + "/case.pb", &summary_.first_finding[key]);
      summary_.first_saved[key] = entry.dir + "/case.pb";
    }
  }

  void SaveState() const {
    if (state_path_.empty()) return;
    const nlohmann::json state = {{"options", CampaignIdentity(options_)},
                                  {"cases", cursor_.ToJson()},
                                  {"elapsed_seconds", Elapsed()},
                                  {"tally", TallyToJson(summary_.tally)},
                                  {"workers_replaced", summary_.workers_replaced},
                                  {"findings_saved", summary_.findings_saved},
                                  {"reductions", ReductionsToJson(summary_.reductions)},
                                  {"unreduced", unreduced_},
                                  {"corpus", corpus_->Snapshot()}};
    WriteFileAtomic(state_path_,
                    state.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }

  const CampaignOptions& options_;
  CampaignProgress* progress_;
  const std::function<void(const Finding&)>& on_finding_;
  CampaignSummary summary_;
  CaseCursor cursor_;
  std::string state_path_;              // out_dir/state.json ("" without an out dir)
  std::unique_ptr<Corpus> corpus_;      // out_dir/findings (none without an out dir)
  std::vector<std::string> unreduced_;  // signatures this campaign added, not yet reduced
  std::map<std::string, int64_t> first_index_;
  double resumed_seconds_ = 0;  // the time the campaign ran before this run
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_report_ = start_;
};

// The next case index to hand out, or -1: within the budget and not stopped. Cases in flight when
// a resumed campaign stopped run whatever the time left: that run had started them.
int64_t NextCase(const CampaignOptions& options, Recorder* recorder, bool* interrupted) {
  CaseCursor& cursor = recorder->cursor();
  const int64_t index = cursor.Peek();
  if (options.cases >= 0 && index >= options.cases) return -1;
  if (recorder->OutOfTime() && !cursor.WasInFlight(index)) return -1;
  if (options.stop != nullptr && options.stop->load()) {
    *interrupted = true;
    return -1;
  }
  cursor.HandOut();
  return index;
}

void RunInProcess(const CampaignOptions& options, const oracles::CheckRequest& request,
                  Recorder* recorder, bool* interrupted) {
  for (int64_t index = NextCase(options, recorder, interrupted); index >= 0;
       index = NextCase(options, recorder, interrupted)) {
    const DrawnCase drawn = DrawCampaignCase(options, index);
    recorder->AddCase(index, drawn.c, CheckDrawn(drawn, request));
    recorder->Tick();
  }
}

// Cases each worker holds: the one it runs and the next, so it never waits for the parent.
constexpr size_t kCasesPerWorker = 2;

// The cases in options.jobs workers, handed out by index. A worker that dies on a case leaves a
// finding for it (it answers in order: the oldest case without an answer is the one), the cases
// queued behind it go to other workers, and a new worker takes its place.
void RunInWorkers(const CampaignOptions& options, const oracles::CheckRequest& request,
                  Recorder* recorder, bool* interrupted) {
  const Sandbox::Serve serve = [&options, &request](const std::string& bytes) {
    int64_t index = 0;
    std::memcpy(&index, bytes.data(), sizeof(index));
    const DrawnCase drawn = DrawCampaignCase(options, index);
    return EncodeCheckedCase(drawn.c, CheckDrawn(drawn, request));
  };
  struct Slot {
    std::unique_ptr<Sandbox> worker;
    std::deque<int64_t> indices;  // the cases in flight, oldest first
  };
  // Where the device oracle or a CUDA backend will run, each worker makes its CUDA context before
  // its first case is timed (gpu::WarmUp).
  const std::vector<std::string>& oracle_names =
      request.oracles.empty() ? oracles::DefaultOracles() : request.oracles;
  const bool uses_device =
      std::find(oracle_names.begin(), oracle_names.end(), "device") != oracle_names.end() ||
      oracles::GetBackend(request.backend).info().device == "cuda";
  const std::function<void()> warm_up = uses_device ? std::function<void()>(gpu::WarmUp) : nullptr;
  std::vector<Slot> slots(static_cast<size_t>(options.jobs));
  std::deque<int64_t> orphans;  // cases that were queued behind a dead worker's fatal one
  bool handing_out = true;
  for (;;) {
    for (Slot& slot : slots) {
      while (slot.indices.size() < kCasesPerWorker) {
        int64_t index = -1;
        if (!orphans.empty() && !*interrupted) {
          index = orphans.front();
          orphans.pop_front();
        } else if (handing_out) {
          index = NextCase(options, recorder, interrupted);
        }
        if (index < 0) {
          handing_out = false;
          break;
        }
        if (slot.worker == nullptr) {
          slot.worker = std::make_unique<Sandbox>(serve, options.limits, warm_up);
        }
        slot.indices.push_back(index);
        slot.worker->Send(std::string(reinterpret_cast<const char*>(&index), sizeof(index)));
      }
    }
    // A signal is seen here too, not only when a worker answers and NextCase runs: every worker
    // may be busy for seconds (making its CUDA context, or a slow case).
    if (options.stop != nullptr && options.stop->load()) *interrupted = true;
    if (*interrupted) break;  // the cases in flight are dropped with their workers
    std::vector<pollfd> waiting;
    double wait = 0.25;  // the signal may reach another thread and leave poll asleep
    for (const Slot& slot : slots) {
      if (slot.indices.empty()) continue;
      waiting.push_back({slot.worker->fd(), POLLIN, 0});
      wait = std::min(wait, slot.worker->SecondsToDeadline());
    }
    if (waiting.empty()) break;
    poll(waiting.data(), waiting.size(), static_cast<int>(wait * 1000) + 1);
    for (Slot& slot : slots) {
      if (slot.indices.empty()) continue;
      const bool ready = std::any_of(waiting.begin(), waiting.end(), [&](const pollfd& p) {
        return p.fd == slot.worker->fd() && p.revents != 0;
      });
      if (!ready && slot.worker->SecondsToDeadline() > 0) continue;
      const SandboxOutcome outcome = slot.worker->Receive();
      const int64_t index = slot.indices.front();
      slot.indices.pop_front();
      if (outcome.kind == SandboxOutcome::Kind::kOk) {
        Case ops;
        CaseReport report;
        DecodeCheckedCase(outcome.response, &ops, &report);
        recorder->AddCase(index, ops, report);
        continue;
      }
      slot.worker.reset();
      orphans.insert(orphans.end(), slot.indices.begin(), slot.indices.end());
      slot.indices.clear();
      // Drawn again here to name the case: a draw that throws gives its placeholder.
      const Case c = DrawCampaignCase(options, index).c;
      recorder->AddWorkerDeath(index, c,
                               OutcomeFinding(c, outcome, options.backend, options.limits));
    }
    recorder->Tick();
  }
  // The workers go together: all signalled, then reaped as `slots` goes; interrupted, they are
  // not waited for (the summary is due within a second of the signal).
  for (Slot& slot : slots) {
    if (slot.worker == nullptr) continue;
    if (*interrupted) {
      slot.worker->Abandon();
    } else {
      slot.worker->SignalKill();
    }
  }
}

}  // namespace

CampaignSummary RunCampaign(const CampaignOptions& options, CampaignProgress* progress,
                            const std::function<void(const Finding&)>& on_finding) {
  PARITY_ENFORCE(options.cases >= 0 || options.seconds >= 0, ErrorKind::kBadArgument,
                 "give --cases N or --seconds N");
  oracles::CheckRequest request;
  request.oracles = options.oracles;
  request.backend = options.backend;
  oracles::GetBackend(options.backend);           // an unknown name fails before the first case
  oracles::EnforceKnownOracles(options.oracles);  // so does an unknown oracle, in any shard
  PARITY_ENFORCE(options.shard_count >= 1 && options.shard_index >= 0 &&
                     options.shard_index < options.shard_count,
                 ErrorKind::kBadArgument, "shard ", options.shard_index, " of ",
                 options.shard_count, ": want 0 <= index < count");
  PARITY_ENFORCE(options.jobs >= 0 && options.jobs <= 1024, ErrorKind::kBadArgument, "--jobs ",
                 options.jobs, ": want 0 (in this process) to 1024 workers");
  PARITY_ENFORCE(options.limits.case_timeout > 0, ErrorKind::kBadArgument, "--case-timeout ",
                 options.limits.case_timeout, ": want a number of seconds > 0");
  SpecTypes(options.ops);  // an unknown op type fails before the campaign's files are written
  Recorder recorder(options, progress, on_finding);
  bool interrupted = false;
  if (options.jobs == 0) {
    RunInProcess(options, request, &recorder, &interrupted);
  } else {
    RunInWorkers(options, request, &recorder, &interrupted);
  }
  if (!interrupted) recorder.ReduceNewSignatures();
  return recorder.Finish(interrupted);
}

}  // namespace parity::fuzz
