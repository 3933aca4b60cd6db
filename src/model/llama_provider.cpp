#include "model/llama_provider.h"

#include "model/internal/token_step.h"

#if AFFORDANCE_HAVE_LLAMA
#include <llama.h>
#endif

#include <algorithm>
#include <mutex>

namespace affordance::model {

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

}  // namespace

struct LlamaProvider::Engine {
  std::shared_ptr<const text::Tokenizer> tokenizer;
  LlamaProviderOptions options;
  llama_model* model = nullptr;
  llama_context* ctx = nullptr;
  const llama_vocab* vocab = nullptr;
  int n_vocab = 0;
  std::vector<text::TokenId> cached;  // what the KV cache (sequence 0) holds
  mutable std::mutex mu;

  ~Engine() {
    if (ctx) llama_free(ctx);
    if (model) llama_model_free(model);
  }

  // Evaluates tokens[from, to) at their positions; false on a decode failure.
  bool Decode(std::vector<text::TokenId>& tokens, size_t from, size_t to, const CancelToken& cancel,
              bool* cancelled) {
    const size_t batch = static_cast<size_t>(std::max(1, options.batch_tokens));
    for (size_t i = from; i < to; i += batch) {
      if (cancel.cancelled()) {
        *cancelled = true;
        return true;
      }
      int n = static_cast<int>(std::min(batch, to - i));
      if (llama_decode(ctx, llama_batch_get_one(tokens.data() + i, n)) != 0) return false;
      cached.insert(cached.end(), tokens.begin() + i, tokens.begin() + i + n);
    }
    return true;
  }
};

bool LlamaProvider::Available() { return true; }

Result<std::unique_ptr<LlamaProvider>> LlamaProvider::Open(
    std::shared_ptr<const text::Tokenizer> tokenizer, LlamaProviderOptions options) {
  InitBackendOnce();
  auto engine = std::make_unique<Engine>();
  engine->tokenizer = std::move(tokenizer);
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
  cp.n_seq_max = 1;
  cp.n_threads = options.threads;
  cp.n_threads_batch = options.threads;
  cp.no_perf = true;
  engine->ctx = llama_init_from_model(engine->model, cp);
  if (engine->ctx == nullptr) {
    return MakeError("model.llama_load", "llama.cpp could not create a context for the model",
                     options.model_path);
  }
  engine->vocab = llama_model_get_vocab(engine->model);
  engine->n_vocab = llama_vocab_n_tokens(engine->vocab);
  return std::unique_ptr<LlamaProvider>(new LlamaProvider(std::move(engine)));
}

Status LlamaProvider::Stream(const StepRequest& request, const PartSink& sink,
                             const CancelToken& cancel) {
  Engine& e = *engine_;
  std::lock_guard<std::mutex> lock(e.mu);
  internal::StepWriter writer(sink, nullptr);
  writer.StartStep();
  if (cancel.cancelled()) return writer.Abort();
  std::vector<text::TokenId> prompt = request.prompt;
  if (prompt.empty()) {
    return writer.Fail(MakeError("model.bad_request", "the step request has no prompt tokens"));
  }
  for (size_t i = 0; i < prompt.size(); ++i) {
    if (prompt[i] < 0 || prompt[i] >= e.n_vocab) {
      return writer.Fail(
          MakeError("model.bad_request", "a prompt token ID is outside the vocabulary",
                    "prompt[" + std::to_string(i) + "] = " + std::to_string(prompt[i])));
    }
  }
  const int64_t n_ctx = llama_n_ctx(e.ctx);
  if (static_cast<int64_t>(prompt.size()) + request.max_tokens > n_ctx) {
    return writer.Fail(
        MakeError("model.context_overflow", "the prompt plus max_tokens does not fit the context",
                  std::to_string(prompt.size()) + " + " + std::to_string(request.max_tokens) +
                      " > " + std::to_string(n_ctx)));
  }

  // Reuse the longest common prefix; always evaluate at least the last prompt token.
  size_t reuse = 0;
  while (reuse < e.cached.size() && reuse < prompt.size() && e.cached[reuse] == prompt[reuse]) {
    ++reuse;
  }
  reuse = std::min(reuse, prompt.size() - 1);
  llama_memory_t mem = llama_get_memory(e.ctx);
  if (!llama_memory_seq_rm(mem, 0, static_cast<llama_pos>(reuse), -1)) {
    llama_memory_clear(mem, true);
    reuse = 0;
  }
  e.cached.resize(reuse);

  bool cancelled = false;
  if (!e.Decode(prompt, reuse, prompt.size(), cancel, &cancelled)) {
    llama_memory_clear(mem, true);
    e.cached.clear();
    return writer.Fail(MakeError("model.llama_decode", "llama.cpp failed to evaluate the prompt"));
  }
  if (cancelled) return writer.Abort();

  llama_sampler* sampler = llama_sampler_chain_init(llama_sampler_chain_default_params());
  if (!request.grammar.empty()) {
    llama_sampler* grammar = llama_sampler_init_grammar(e.vocab, request.grammar.c_str(), "root");
    if (grammar == nullptr) {
      llama_sampler_free(sampler);
      return writer.Fail(MakeError("model.bad_grammar", "the grammar does not parse (GBNF)"));
    }
    llama_sampler_chain_add(sampler, grammar);
  }
  if (request.temperature <= 0) {
    llama_sampler_chain_add(sampler, llama_sampler_init_greedy());
  } else {
    llama_sampler_chain_add(sampler,
                            llama_sampler_init_temp(static_cast<float>(request.temperature)));
    llama_sampler_chain_add(sampler, llama_sampler_init_dist(static_cast<uint32_t>(request.seed)));
  }
  struct SamplerFree {
    llama_sampler* s;
    ~SamplerFree() { llama_sampler_free(s); }
  } sampler_free{sampler};

  internal::TokenStep play(*e.tokenizer, e.options.format, request.step_id, writer);
  bool end_of_generation = false;
  while (static_cast<int>(play.tokens().size()) < request.max_tokens) {
    if (cancel.cancelled()) {
      play.Close();
      return writer.Abort();
    }
    llama_token id = llama_sampler_sample(sampler, e.ctx, -1);
    if (auto s = play.Push(id); !s) {
      play.Close();
      return writer.Fail(s.error());
    }
    if (llama_vocab_is_eog(e.vocab, id) || play.ended()) {
      end_of_generation = true;
      break;
    }
    std::vector<text::TokenId> one = {id};
    bool stop = false;
    if (!e.Decode(one, 0, 1, CancelToken(), &stop)) {
      play.Close();
      llama_memory_clear(mem, true);
      e.cached.clear();
      return writer.Fail(MakeError("model.llama_decode", "llama.cpp failed to evaluate a token"));
    }
  }
  play.Close();
  formats::Usage usage;
  usage.prompt_tokens = static_cast<int64_t>(prompt.size());
  usage.cached_prompt_tokens = static_cast<int64_t>(reuse);
  usage.generated_tokens = static_cast<int64_t>(play.tokens().size());
  std::string reason = play.Reason(end_of_generation ? "stop" : "length");
  return writer.Finish(usage, play.TakeTokens(), std::move(reason));
}

std::vector<text::TokenId> LlamaProvider::cached_tokens() const {
  std::lock_guard<std::mutex> lock(engine_->mu);
  return engine_->cached;
}

#else  // !AFFORDANCE_HAVE_LLAMA

struct LlamaProvider::Engine {};

bool LlamaProvider::Available() { return false; }

Result<std::unique_ptr<LlamaProvider>> LlamaProvider::Open(std::shared_ptr<const text::Tokenizer>,
                                                           LlamaProviderOptions) {
  return MakeError("model.llama_unavailable",
                   "this build has no embedded llama.cpp provider (configure with "
                   "-DAFFORDANCE_LLAMA=ON; scripts/setup does when the llama.cpp build exists)");
}

Status LlamaProvider::Stream(const StepRequest&, const PartSink& sink, const CancelToken&) {
  internal::StepWriter writer(sink, nullptr);
  writer.StartStep();
  return writer.Fail(MakeError("model.llama_unavailable", "no embedded llama.cpp provider"));
}

std::vector<text::TokenId> LlamaProvider::cached_tokens() const { return {}; }

#endif

LlamaProvider::LlamaProvider(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}
LlamaProvider::~LlamaProvider() = default;

}  // namespace affordance::model
