// Shared by the parser fuzzers: turns fuzz bytes into a token stream and checks the invariants
// every parser output must keep, whatever the input (crash = finding).
#pragma once

#include "formats/output_parser.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace affordance::formats::fuzz {

struct Item {
  text::TokenId id;
  std::string text;
  bool special;
};

// Bytes < 0x20 pick a structural piece (tags, JSON fragments, special tokens); any other byte b
// starts a run of (b & 0x0f) + 1 raw bytes taken verbatim from the input (any bytes, so invalid
// UTF-8 and partial tags too).
inline std::vector<Item> Decode(const uint8_t* data, size_t size) {
  static const std::vector<Item> kPieces = {{151657, "<tool_call>", false},
                                            {151658, "</tool_call>", false},
                                            {151667, "<think>", false},
                                            {151668, "</think>", false},
                                            {151645, "<|im_end|>", true},
                                            {151643, "<|endoftext|>", true},
                                            {128010, "<|python_tag|>", true},
                                            {128008, "<|eom_id|>", true},
                                            {128009, "<|eot_id|>", true},
                                            {1, "{\"name\": \"f\", \"arguments\": ", false},
                                            {2, "{\"name\": \"g\", \"parameters\": ", false},
                                            {3, "{", false},
                                            {4, "}", false},
                                            {5, "\"", false},
                                            {6, "\\", false},
                                            {7, "\n", false},
                                            {8, "<", false},
                                            {9, "<tool", false},
                                            {10, "_call>", false},
                                            {11, "</tool_", false},
                                            {12, "[", false},
                                            {13, "]", false},
                                            {14, ":", false},
                                            {15, ",", false},
                                            {16, " ", false},
                                            {17, "\"a\": 1", false},
                                            {18, "null", false},
                                            {19, "<|eot", false},
                                            {20, "_id|>", false},
                                            {21, "\xe2\x82", false},
                                            {22, "\xac", false},
                                            {23, "\"x\\\"y\"", false},
                                            {24, "[r", false},  // citations (part_emitter.h)
                                            {25, "r1", false}};
  std::vector<Item> items;
  size_t i = 0;
  while (i < size) {
    uint8_t b = data[i++];
    if (b < 0x20) {
      items.push_back(kPieces[b % kPieces.size()]);
      continue;
    }
    size_t n = std::min<size_t>((b & 0x0f) + 1, size - i);
    items.push_back({-1, std::string(reinterpret_cast<const char*>(data + i), n), false});
    i += n;
  }
  return items;
}

#define AFFORDANCE_FUZZ_CHECK(cond) \
  do {                              \
    if (!(cond)) std::abort();      \
  } while (0)

// The ordering contract of formats/stream_part.h for content parts.
inline void CheckParts(const std::vector<StreamPart>& parts) {
  std::set<std::string> text, reasoning, tools, ids;
  std::map<std::string, std::string> written;  // each text part's text so far
  for (size_t i = 0; i < parts.size(); ++i) {
    const StreamPart& p = parts[i];
    switch (p.type) {
      case PartType::kTextStart:
        AFFORDANCE_FUZZ_CHECK(ids.insert(p.id).second);
        text.insert(p.id);
        break;
      case PartType::kTextDelta:
        AFFORDANCE_FUZZ_CHECK(text.count(p.id) && !p.delta.empty());
        written[p.id] += p.delta;
        break;
      case PartType::kCitation: {
        // In an open text part, right after its spelling, which names 1..16 references.
        AFFORDANCE_FUZZ_CHECK(text.count(p.id) && !p.refs.empty() && p.refs.size() <= 16);
        const std::string& t = written[p.id];
        AFFORDANCE_FUZZ_CHECK(
            p.offset >= 0 && static_cast<size_t>(p.offset) + p.delta.size() == t.size() &&
            t.compare(static_cast<size_t>(p.offset), p.delta.size(), p.delta) == 0);
        break;
      }
      case PartType::kTextEnd:
        AFFORDANCE_FUZZ_CHECK(text.erase(p.id) == 1);
        break;
      case PartType::kReasoningStart:
        AFFORDANCE_FUZZ_CHECK(ids.insert(p.id).second);
        reasoning.insert(p.id);
        break;
      case PartType::kReasoningDelta:
        AFFORDANCE_FUZZ_CHECK(reasoning.count(p.id));
        break;
      case PartType::kReasoningEnd:
        AFFORDANCE_FUZZ_CHECK(reasoning.erase(p.id) == 1);
        break;
      case PartType::kToolInputStart:
        AFFORDANCE_FUZZ_CHECK(ids.insert(p.id).second && !p.tool_name.empty());
        tools.insert(p.id);
        break;
      case PartType::kToolInputDelta:
        AFFORDANCE_FUZZ_CHECK(tools.count(p.id));
        break;
      case PartType::kToolInputEnd:
        AFFORDANCE_FUZZ_CHECK(tools.count(p.id) && i + 1 < parts.size() &&
                              parts[i + 1].type == PartType::kToolCall);
        break;
      case PartType::kToolCall:
        AFFORDANCE_FUZZ_CHECK(tools.erase(p.id) == 1 && p.input.is_object());
        break;
      case PartType::kToolInputError:
        tools.erase(p.id);
        AFFORDANCE_FUZZ_CHECK(!p.error_text.empty());
        break;
      default:
        std::abort();  // parsers emit content parts only
    }
  }
  AFFORDANCE_FUZZ_CHECK(text.empty() && reasoning.empty() && tools.empty());
}

// Runs a parser over the items and checks the parts and the parser's counters.
inline void RunParser(ChatFormat format, const std::vector<Item>& items) {
  auto parser = MakeOutputParser(format, {"f-"});
  std::vector<StreamPart> parts;
  for (const auto& item : items) parser->Push({item.id, item.text, item.special}, parts);
  parser->Finish(parts);
  CheckParts(parts);
  int calls = 0, errors = 0;
  for (const auto& p : parts) {
    calls += p.type == PartType::kToolCall;
    errors += p.type == PartType::kToolInputError;
  }
  AFFORDANCE_FUZZ_CHECK(calls == parser->tool_calls() && errors == parser->tool_errors());
  if (format == ChatFormat::kLlama31) AFFORDANCE_FUZZ_CHECK(calls + errors <= 1);
}

}  // namespace affordance::formats::fuzz
