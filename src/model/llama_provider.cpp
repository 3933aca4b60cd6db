#include "model/llama_provider.h"

#include "model/internal/token_step.h"

#if AFFORDANCE_HAVE_LLAMA
#include <llama.h>
#endif

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

namespace affordance::model {

Status LlamaProvider::Stream(const StepRequest& request, const PartSink& sink,
                             const CancelToken& cancel) {
  std::promise<Status> ended;
  auto status = ended.get_future();
  StreamAsync(request, sink, cancel, [&ended](Status s) { ended.set_value(std::move(s)); });
  return status.get();
}

#if AFFORDANCE_HAVE_LLAMA

namespace {

void QuietLog(ggml_log_level level, const char* text, void*) {
  if (level == GGML_LOG_LEVEL_ERROR) std::fputs(text, stderr);
}

void InitBackendOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llama_log_set(QuietLog, nullptr);
    llama_backend_init();
  });
}

// One step, from StreamAsync() to `done`. Everything but the constructor runs on the engine
// thread.
struct Step {
  StepRequest request;
  PartSink sink;
  CancelToken cancel;
  StepDone done;
  int cancel_id = -1;
  std::optional<internal::StepWriter> writer;  // after start-step
  std::optional<internal::TokenStep> play;     // once the step holds a slot
  llama_sampler* sampler = nullptr;
  size_t reuse = 0;  // the prompt prefix its sequence already held

  ~Step() {
    if (sampler) llama_sampler_free(sampler);
  }
};

// A sequence of the context and the step that holds it (none when free).
struct Slot {
  llama_seq_id seq = 0;
  std::vector<text::TokenId> cached;  // what the sequence's KV cache holds (written under mu)
  std::unique_ptr<Step> step;
  llama_token pending = -1;  // a sampled token still to evaluate; -1 while evaluating the prompt
  uint64_t started = 0;      // when it last took a step (least recently used goes first)
  // This iteration's batch: how many tokens it added, and the index it samples at (-1: none).
  int added = 0;
  int32_t logits_at = -1;
};

size_t CommonPrefix(const std::vector<text::TokenId>& a, const std::vector<text::TokenId>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

}  // namespace

struct LlamaProvider::Engine {
  std::shared_ptr<const text::Tokenizer> tokenizer;
  LlamaProviderOptions options;
  llama_model* model = nullptr;
  llama_context* ctx = nullptr;
  const llama_vocab* vocab = nullptr;
  int n_vocab = 0;
  int64_t n_ctx_seq = 0;  // one sequence's share of the context
  int n_batch = 0;
  llama_batch batch{};
  bool batch_allocated = false;

  mutable std::mutex mu;
  std::condition_variable cv;
  std::deque<std::unique_ptr<Step>> queue;    // under mu: queued by StreamAsync()
  bool stopping = false;                      // under mu
  bool wake = false;                          // under mu: a step was cancelled
  int last_slot = -1;                         // under mu: the slot the latest started step took
  std::vector<Slot> slots;                    // engine thread (`cached` written under mu)
  std::deque<std::unique_ptr<Step>> waiting;  // engine thread: admitted, waiting for a slot
  uint64_t clock = 0;                         // engine thread
  std::atomic<int> max_batched{0};
  std::thread thread;

  ~Engine() {
    if (thread.joinable()) {
      {
        std::lock_guard<std::mutex> lock(mu);
        stopping = true;
      }
      cv.notify_all();
      thread.join();
    }
    if (batch_allocated) llama_batch_free(batch);
    if (ctx) llama_free(ctx);
    if (model) llama_model_free(model);
  }

  bool Busy() const {
    if (!waiting.empty()) return true;
    for (const auto& s : slots) {
      if (s.step) return true;
    }
    return false;
  }

  // The step's terminal part was delivered: unregister, then `done`.
  static void End(std::unique_ptr<Step> step, Status status) {
    step->cancel.Remove(step->cancel_id);
    StepDone done = std::move(step->done);
    step.reset();
    if (done) done(std::move(status));
  }

  // Ends the step of `slot` (its open parts closed first) and frees the slot.
  void Fail(Slot& slot, Error error) {
    std::unique_ptr<Step> step = std::move(slot.step);
    slot.pending = -1;
    if (step->play) step->play->Close();
    Status s = step->writer->Fail(std::move(error));
    End(std::move(step), std::move(s));
  }

  void Abort(Slot& slot) {
    std::unique_ptr<Step> step = std::move(slot.step);
    slot.pending = -1;
    if (step->play) step->play->Close();
    Status s = step->writer->Abort();
    End(std::move(step), std::move(s));
  }

  void Finish(Slot& slot, bool end_of_generation) {
    std::unique_ptr<Step> step = std::move(slot.step);
    slot.pending = -1;
    auto& play = *step->play;
    play.Close();
    formats::Usage usage;
    usage.prompt_tokens = static_cast<int64_t>(step->request.prompt.size());
    usage.cached_prompt_tokens = static_cast<int64_t>(step->reuse);
    usage.generated_tokens = static_cast<int64_t>(play.tokens().size());
    std::string reason = play.Reason(end_of_generation ? "stop" : "length");
    Status s = step->writer->Finish(usage, play.TakeTokens(), std::move(reason));
    End(std::move(step), std::move(s));
  }

  // start-step, then the checks that need nothing but the request; a valid step waits for a slot.
  void Admit(std::unique_ptr<Step> step) {
    step->writer.emplace(step->sink, nullptr);
    step->writer->StartStep();
    auto fail = [&](Error error) {
      Status s = step->writer->Fail(std::move(error));
      End(std::move(step), std::move(s));
    };
    if (step->cancel.cancelled()) {
      Status s = step->writer->Abort();
      return End(std::move(step), std::move(s));
    }
    const StepRequest& request = step->request;
    const auto& prompt = request.prompt;
    if (prompt.empty()) {
      return fail(MakeError("model.bad_request", "the step request has no prompt tokens"));
    }
    for (size_t i = 0; i < prompt.size(); ++i) {
      if (prompt[i] < 0 || prompt[i] >= n_vocab) {
        return fail(MakeError("model.bad_request", "a prompt token ID is outside the vocabulary",
                              "prompt[" + std::to_string(i) + "] = " + std::to_string(prompt[i])));
      }
    }
    if (static_cast<int64_t>(prompt.size()) + request.max_tokens > n_ctx_seq) {
      return fail(
          MakeError("model.context_overflow",
                    "the prompt plus max_tokens does not fit one sequence's share of the context",
                    std::to_string(prompt.size()) + " + " + std::to_string(request.max_tokens) +
                        " > " + std::to_string(n_ctx_seq)));
    }
    llama_sampler* sampler = llama_sampler_chain_init(llama_sampler_chain_default_params());
    step->sampler = sampler;
    if (!request.grammar.empty()) {
      llama_sampler* grammar = llama_sampler_init_grammar(vocab, request.grammar.c_str(), "root");
      if (grammar == nullptr) {
        return fail(MakeError("model.bad_grammar", "the grammar does not parse (GBNF)"));
      }
      llama_sampler_chain_add(sampler, grammar);
    }
    if (request.temperature <= 0) {
      llama_sampler_chain_add(sampler, llama_sampler_init_greedy());
    } else {
      llama_sampler_chain_add(sampler,
                              llama_sampler_init_temp(static_cast<float>(request.temperature)));
      llama_sampler_chain_add(sampler,
                              llama_sampler_init_dist(static_cast<uint32_t>(request.seed)));
    }
    waiting.push_back(std::move(step));
  }

  // Waiting steps take free slots: the longest common prefix first, then the least recently used.
  void Assign() {
    llama_memory_t mem = llama_get_memory(ctx);
    while (!waiting.empty()) {
      const auto& prompt = waiting.front()->request.prompt;
      Slot* best = nullptr;
      size_t best_prefix = 0;
      for (auto& s : slots) {
        if (s.step) continue;
        size_t prefix = CommonPrefix(s.cached, prompt);
        if (best == nullptr || prefix > best_prefix ||
            (prefix == best_prefix && s.started < best->started)) {
          best = &s;
          best_prefix = prefix;
        }
      }
      if (best == nullptr) return;
      std::unique_ptr<Step> step = std::move(waiting.front());
      waiting.pop_front();
      // Always evaluate at least the last prompt token.
      size_t reuse = std::min(best_prefix, prompt.size() - 1);
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!llama_memory_seq_rm(mem, best->seq, static_cast<llama_pos>(reuse), -1)) {
          llama_memory_seq_rm(mem, best->seq, -1, -1);
          reuse = 0;
        }
        best->cached.resize(reuse);
        last_slot = static_cast<int>(best - slots.data());
      }
      best->started = ++clock;
      best->pending = -1;
      step->reuse = reuse;
      step->play.emplace(*tokenizer, options.format, step->request.step_id, *step->writer);
      best->step = std::move(step);
    }
  }

  void Add(llama_token token, llama_pos pos, llama_seq_id seq, bool logits) {
    int i = batch.n_tokens++;
    batch.token[i] = token;
    batch.pos[i] = pos;
    batch.n_seq_id[i] = 1;
    batch.seq_id[i][0] = seq;
    batch.logits[i] = logits ? 1 : 0;
  }

  // One iteration: one batch, one llama_decode, then sampling. False when no slot is running.
  bool Iterate() {
    batch.n_tokens = 0;
    std::vector<Slot*> in_batch;
    // The next token of every generating slot...
    for (auto& s : slots) {
      s.added = 0;
      s.logits_at = -1;
      if (!s.step || s.pending < 0 || batch.n_tokens >= n_batch) continue;
      bool sample = static_cast<int>(s.step->play->tokens().size()) < s.step->request.max_tokens;
      if (sample) s.logits_at = batch.n_tokens;
      Add(s.pending, static_cast<llama_pos>(s.cached.size()), s.seq, sample);
      s.added = 1;
      in_batch.push_back(&s);
    }
    // ...then prompt tokens, the earliest started step first.
    std::vector<Slot*> prompting;
    for (auto& s : slots) {
      if (s.step && s.pending < 0) prompting.push_back(&s);
    }
    std::sort(prompting.begin(), prompting.end(),
              [](const Slot* a, const Slot* b) { return a->started < b->started; });
    for (Slot* s : prompting) {
      const auto& prompt = s->step->request.prompt;
      size_t from = s->cached.size();
      int n = static_cast<int>(
          std::min<size_t>(prompt.size() - from, static_cast<size_t>(n_batch - batch.n_tokens)));
      if (n <= 0) break;
      bool last = from + static_cast<size_t>(n) == prompt.size();
      for (int j = 0; j < n; ++j) {
        bool sample = last && j == n - 1 && s->step->request.max_tokens > 0;
        if (sample) s->logits_at = batch.n_tokens;
        Add(prompt[from + j], static_cast<llama_pos>(from + j), s->seq, sample);
      }
      s->added = n;
      in_batch.push_back(s);
    }
    if (in_batch.empty()) return false;
    int n_seqs = static_cast<int>(in_batch.size());
    int seen = max_batched.load();
    while (n_seqs > seen && !max_batched.compare_exchange_weak(seen, n_seqs)) {
    }

    const int rc = llama_decode(ctx, batch);
    if (rc != 0) {
      llama_memory_t mem = llama_get_memory(ctx);
      {
        std::lock_guard<std::mutex> lock(mu);
        for (Slot* s : in_batch) {
          llama_memory_seq_rm(mem, s->seq, -1, -1);
          s->cached.clear();
        }
      }
      for (Slot* s : in_batch) {
        bool prompt = s->pending < 0;
        Fail(*s, MakeError("model.llama_decode",
                           prompt ? "llama.cpp failed to evaluate the prompt"
                                  : "llama.cpp failed to evaluate a token",
                           "llama_decode returned " + std::to_string(rc)));
      }
      return true;
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      for (Slot* s : in_batch) {
        if (s->pending >= 0) {
          s->cached.push_back(s->pending);
        } else {
          const auto& prompt = s->step->request.prompt;
          s->cached.insert(s->cached.end(), prompt.begin() + s->cached.size(),
                           prompt.begin() + s->cached.size() + s->added);
        }
      }
    }
    for (Slot* s : in_batch) {
      Step& step = *s->step;
      s->pending = -1;
      // Not yet at the end of the prompt plus the evaluated tokens: more prompt next time.
      if (s->cached.size() < step.request.prompt.size()) continue;
      if (static_cast<int>(step.play->tokens().size()) >= step.request.max_tokens) {
        Finish(*s, false);
        continue;
      }
      llama_token id = llama_sampler_sample(step.sampler, ctx, s->logits_at);
      if (auto st = step.play->Push(id); !st) {
        Fail(*s, st.error());
        continue;
      }
      if (llama_vocab_is_eog(vocab, id) || step.play->ended()) {
        Finish(*s, true);
        continue;
      }
      s->pending = id;
    }
    return true;
  }

  void Run() {
    for (;;) {
      std::deque<std::unique_ptr<Step>> incoming;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stopping || wake || !queue.empty() || Busy(); });
        wake = false;
        if (stopping) break;
        incoming.swap(queue);
      }
      for (auto& step : incoming) Admit(std::move(step));
      // Cancellation, between batches.
      for (auto it = waiting.begin(); it != waiting.end();) {
        if ((*it)->cancel.cancelled()) {
          std::unique_ptr<Step> step = std::move(*it);
          it = waiting.erase(it);
          Status s = step->writer->Abort();
          End(std::move(step), std::move(s));
        } else {
          ++it;
        }
      }
      for (auto& s : slots) {
        if (s.step && s.step->cancel.cancelled()) Abort(s);
      }
      Assign();
      Iterate();
    }
    // Stopping: every step still queued or running ends with model.stopping.
    std::deque<std::unique_ptr<Step>> incoming;
    {
      std::lock_guard<std::mutex> lock(mu);
      incoming.swap(queue);
    }
    auto stopped = [] {
      return MakeError("model.stopping", "the embedded llama.cpp provider is shutting down");
    };
    for (auto& s : slots) {
      if (s.step) Fail(s, stopped());
    }
    for (auto& step : waiting) {
      Status s = step->writer->Fail(stopped());
      End(std::move(step), std::move(s));
    }
    waiting.clear();
    for (auto& step : incoming) {
      step->writer.emplace(step->sink, nullptr);
      step->writer->StartStep();
      Status s = step->writer->Fail(stopped());
      End(std::move(step), std::move(s));
    }
  }
};

bool LlamaProvider::Available() { return true; }

Result<std::unique_ptr<LlamaProvider>> LlamaProvider::Open(
    std::shared_ptr<const text::Tokenizer> tokenizer, LlamaProviderOptions options) {
  InitBackendOnce();
  auto engine = std::make_unique<Engine>();
  engine->tokenizer = std::move(tokenizer);
  options.parallel = std::max(1, options.parallel);
  options.batch_tokens = std::max(options.batch_tokens, options.parallel);
  engine->options = options;
  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  engine->model = llama_model_load_from_file(options.model_path.c_str(), mp);
  if (engine->model == nullptr) {
    return MakeError("model.llama_load", "llama.cpp could not load the model file",
                     options.model_path);
  }
  llama_context_params cp = llama_context_default_params();
  cp.n_ctx = static_cast<uint32_t>(options.context_tokens);
  cp.n_batch = static_cast<uint32_t>(options.batch_tokens);
  cp.n_ubatch = static_cast<uint32_t>(options.batch_tokens);
  cp.n_seq_max = static_cast<uint32_t>(options.parallel);
  cp.kv_unified = false;  // each sequence its own share of the KV cache (see the header)
  cp.n_threads = options.threads;
  cp.n_threads_batch = options.threads;
  cp.no_perf = true;
  engine->ctx = llama_init_from_model(engine->model, cp);
  if (engine->ctx == nullptr) {
    return MakeError("model.llama_load", "llama.cpp could not create a context for the model",
                     options.model_path + " (context_tokens " +
                         std::to_string(options.context_tokens) + ", parallel " +
                         std::to_string(options.parallel) + ")");
  }
  engine->vocab = llama_model_get_vocab(engine->model);
  engine->n_vocab = llama_vocab_n_tokens(engine->vocab);
  engine->n_ctx_seq = llama_n_ctx_seq(engine->ctx);
  engine->n_batch = static_cast<int>(llama_n_batch(engine->ctx));
  engine->batch = llama_batch_init(engine->n_batch, 0, 1);
  engine->batch_allocated = true;
  engine->slots.resize(static_cast<size_t>(llama_n_seq_max(engine->ctx)));
  for (size_t i = 0; i < engine->slots.size(); ++i) {
    engine->slots[i].seq = static_cast<llama_seq_id>(i);
  }
  Engine* e = engine.get();
  engine->thread = std::thread([e] { e->Run(); });
  return std::unique_ptr<LlamaProvider>(new LlamaProvider(std::move(engine)));
}

void LlamaProvider::StreamAsync(StepRequest request, PartSink sink, CancelToken cancel,
                                StepDone done) {
  Engine* e = engine_.get();
  auto step = std::make_unique<Step>();
  step->request = std::move(request);
  step->sink = std::move(sink);
  step->cancel = std::move(cancel);
  step->done = std::move(done);
  // Outside mu: an already cancelled token runs the callback at once.
  step->cancel_id = step->cancel.OnCancel([e] {
    {
      std::lock_guard<std::mutex> lock(e->mu);
      e->wake = true;
    }
    e->cv.notify_all();
  });
  {
    std::lock_guard<std::mutex> lock(e->mu);
    e->queue.push_back(std::move(step));
  }
  e->cv.notify_all();
}

std::vector<text::TokenId> LlamaProvider::cached_tokens() const {
  std::lock_guard<std::mutex> lock(engine_->mu);
  if (engine_->last_slot < 0) return {};
  return engine_->slots[static_cast<size_t>(engine_->last_slot)].cached;
}

int LlamaProvider::max_batched_sequences() const { return engine_->max_batched.load(); }

#else  // !AFFORDANCE_HAVE_LLAMA

struct LlamaProvider::Engine {};

bool LlamaProvider::Available() { return false; }

Result<std::unique_ptr<LlamaProvider>> LlamaProvider::Open(std::shared_ptr<const text::Tokenizer>,
                                                           LlamaProviderOptions) {
  return MakeError("model.llama_unavailable",
                   "this build has no embedded llama.cpp provider (configure with "
                   "-DAFFORDANCE_LLAMA=ON; scripts/setup does when the llama.cpp build exists)");
}

void LlamaProvider::StreamAsync(StepRequest, PartSink sink, CancelToken, StepDone done) {
  internal::StepWriter writer(sink, nullptr);
  writer.StartStep();
  Status s = writer.Fail(MakeError("model.llama_unavailable", "no embedded llama.cpp provider"));
  if (done) done(std::move(s));
}

std::vector<text::TokenId> LlamaProvider::cached_tokens() const { return {}; }

int LlamaProvider::max_batched_sequences() const { return 0; }

#endif

LlamaProvider::LlamaProvider(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}
LlamaProvider::~LlamaProvider() = default;

}  // namespace affordance::model
