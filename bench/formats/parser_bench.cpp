// Parser throughput in tokens/s on realistic model output (the real tokenizer's tokens of a turn
// with prose and tool calls), against the incremental UTF-8 decoding of the same tokens, which
// every token-native provider does anyway (the ratio is the parser's added cost).
//
//   cmake --build build-release --target formats_parser_bench &&
//   build-release/bench/formats/formats_parser_bench
#include "formats/output_parser.h"
#include "text/tokenizer.h"

#include <benchmark/benchmark.h>

#include <cstdlib>

namespace {

using namespace affordance;

struct Corpus {
  std::vector<text::TokenId> ids;
  std::vector<std::string> texts;
  std::vector<bool> special;
};

// `cited`: a Qwen3 answer of prose with citations instead (20 lines, three citations each).
const Corpus& Turn(formats::ChatFormat format, bool cited = false) {
  static Corpus qwen, llama, prose;
  Corpus& c = cited ? prose : format == formats::ChatFormat::kQwen3 ? qwen : llama;
  if (!c.ids.empty()) return c;
  auto tok =
      text::LoadModel(format == formats::ChatFormat::kQwen3 ? "Qwen__Qwen3-4B-Instruct-2507"
                                                            : "meta-llama__Llama-3.1-8B-Instruct");
  if (!tok.ok()) std::abort();
  std::string turn;
  if (cited) {
    for (int i = 0; i < 20; ++i) {
      turn +=
          "- The standup is at 09:30 [r3], the design review at 14:00 [r1, r4] (both in room 2), "
          "and lunch with Ana at 12:15 [r7]. Nothing else is booked on that day.\n";
    }
    turn += "<|im_end|>";
  } else if (format == formats::ChatFormat::kQwen3) {
    for (int i = 0; i < 20; ++i) {
      turn +=
          "I will look that up for you, checking the calendar and the weather first.\n"
          "<tool_call>\n{\"name\": \"calendar_search\", \"arguments\": {\"query\": "
          "\"meetings next week\", \"limit\": 10, \"include\": [\"title\", \"time\"]}}\n"
          "</tool_call>\n";
    }
    turn += "<|im_end|>";
  } else {
    turn = "<|python_tag|>{\"name\": \"calendar_search\", \"parameters\": {\"query\": ";
    for (int i = 0; i < 100; ++i) turn += "\"meetings next week and the weather in Oslo\", ";
    turn += "\"limit\": 10}}<|eom_id|>";
  }
  auto ids = (*tok)->Encode(turn, {.match_special = true});
  if (!ids.ok()) std::abort();
  text::IncrementalDecoder decoder(**tok);
  for (auto id : *ids) {
    c.ids.push_back(id);
    c.texts.push_back(*decoder.Push(id));
    c.special.push_back((*tok)->IsSpecial(id));
  }
  return c;
}

void BM_Parse(benchmark::State& state, formats::ChatFormat format, bool cited = false) {
  const Corpus& c = Turn(format, cited);
  std::vector<formats::StreamPart> parts;
  parts.reserve(64);
  size_t n = 0;
  for (auto _ : state) {
    auto parser = formats::MakeOutputParser(format, {"s-"});
    for (size_t i = 0; i < c.ids.size(); ++i) {
      parser->Push({c.ids[i], c.texts[i], c.special[i]}, parts);
      parts.clear();
    }
    parser->Finish(parts);
    parts.clear();
    n += c.ids.size();
  }
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}

void BM_DecodeOnly(benchmark::State& state, formats::ChatFormat format, bool cited = false) {
  const Corpus& c = Turn(format, cited);
  auto tok =
      text::LoadModel(format == formats::ChatFormat::kQwen3 ? "Qwen__Qwen3-4B-Instruct-2507"
                                                            : "meta-llama__Llama-3.1-8B-Instruct");
  size_t n = 0;
  for (auto _ : state) {
    text::IncrementalDecoder decoder(**tok);
    for (auto id : c.ids) benchmark::DoNotOptimize(decoder.Push(id));
    n += c.ids.size();
  }
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_Parse, qwen3, formats::ChatFormat::kQwen3);
BENCHMARK_CAPTURE(BM_DecodeOnly, qwen3, formats::ChatFormat::kQwen3);
BENCHMARK_CAPTURE(BM_Parse, llama31, formats::ChatFormat::kLlama31);
BENCHMARK_CAPTURE(BM_DecodeOnly, llama31, formats::ChatFormat::kLlama31);
BENCHMARK_CAPTURE(BM_Parse, qwen3_cited_prose, formats::ChatFormat::kQwen3, true);
BENCHMARK_CAPTURE(BM_DecodeOnly, qwen3_cited_prose, formats::ChatFormat::kQwen3, true);

}  // namespace

BENCHMARK_MAIN();
