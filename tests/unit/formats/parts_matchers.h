// Test helpers: feed pieces to a parser and describe the resulting parts compactly.
#pragma once

#include "formats/output_parser.h"
#include "formats/stream_part.h"

#include <string>
#include <vector>

namespace affordance::formats::testing {

struct Piece {
  text::TokenId id;
  std::string text;
  bool special = false;
};

inline std::vector<StreamPart> RunParser(ChatFormat format, const std::vector<Piece>& pieces,
                                         bool finish = true) {
  auto parser = MakeOutputParser(format, {"s0-"});
  std::vector<StreamPart> out;
  for (const auto& p : pieces) parser->Push({p.id, p.text, p.special}, out);
  if (finish) parser->Finish(out);
  return out;
}

// Text pieces only (id -1), as a text-only API delivers them.
inline std::vector<Piece> Texts(const std::vector<std::string>& texts) {
  std::vector<Piece> pieces;
  for (const auto& t : texts) pieces.push_back({-1, t, false});
  return pieces;
}

// Compact one-line-per-part description: "text-delta s0-text-0 Hello".
inline std::vector<std::string> Describe(const std::vector<StreamPart>& parts) {
  std::vector<std::string> lines;
  for (const auto& p : parts) {
    std::string line(PartTypeName(p.type));
    line += " " + p.id;
    switch (p.type) {
      case PartType::kTextDelta:
      case PartType::kReasoningDelta:
      case PartType::kToolInputDelta:
        line += " " + p.delta;
        break;
      case PartType::kToolInputStart:
        line += " " + p.tool_name;
        break;
      case PartType::kToolCall:
        line += " " + p.tool_name + " " + p.input.dump();
        break;
      case PartType::kToolInputError:
        line += " " + p.tool_name + " raw=" + p.input_text;
        break;
      default:
        break;
    }
    lines.push_back(line);
  }
  return lines;
}

// Concatenation of every delta of a kind for one id.
inline std::string Joined(const std::vector<StreamPart>& parts, PartType type,
                          const std::string& id = {}) {
  std::string s;
  for (const auto& p : parts) {
    if (p.type == type && (id.empty() || p.id == id)) s += p.delta;
  }
  return s;
}

inline std::vector<const StreamPart*> OfType(const std::vector<StreamPart>& parts, PartType t) {
  std::vector<const StreamPart*> r;
  for (const auto& p : parts) {
    if (p.type == t) r.push_back(&p);
  }
  return r;
}

}  // namespace affordance::formats::testing
