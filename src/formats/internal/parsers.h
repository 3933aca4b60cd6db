// Factories of the per-format parsers (formats/output_parser.h documents the behaviour).
#pragma once

#include "formats/output_parser.h"

namespace affordance::formats::internal {
std::unique_ptr<OutputParser> MakeQwen3Parser(ParserOptions options);
std::unique_ptr<OutputParser> MakeLlama31Parser(ParserOptions options);
std::unique_ptr<OutputParser> MakePlainParser(ParserOptions options);
}  // namespace affordance::formats::internal
