// OpenUI Lang v0.5 syntax: text clean-up, statement splitting and the Pratt expression parser.
//
// Each function is a faithful port of the lang-core 0.2.18 function named in its comment; the one
// addition is that statement splitting returns the lines it could not read (lang-core drops them
// silently; we report them, see docs/SURFACE.md).
#pragma once

#include "surface/ast.h"

#include <string>
#include <string_view>
#include <vector>

namespace affordance::surface {

// Deepest expression nesting the parser accepts; deeper input parses as null and is reported.
inline constexpr int kMaxExpressionDepth = 256;
// Tallest expression tree the parser builds (long operator chains grow trees without recursion).
inline constexpr uint32_t kMaxTreeHeight = 1024;

// stripFences(): the contents of ``` fenced blocks joined by "\n", or `input` when there are none.
std::string StripFences(std::string_view input);
// stripComments(): removes // and # comments outside strings, line by line.
std::string StripComments(std::string_view input);
// preprocess(): trim, strip fences, strip comments, trim.
std::string Preprocess(std::string_view input);

struct AutoClosed {
  std::string text;
  bool incomplete = false;  // an open string or bracket had to be closed
};
// autoClose(): closes an unterminated string and any open brackets.
AutoClosed AutoClose(std::string_view input);

struct RawStatement {
  std::string id;                // "name", "Type" or "$state"
  Tok id_type = Tok::kIdent;
  std::vector<Token> tokens;     // expression tokens, newlines inside brackets removed
  size_t begin = 0, end = 0;     // byte range of the statement in the split text
};

// A line that is not `name = expression` (or whose expression is empty).
struct SkippedLine {
  std::string text;  // the offending line, trimmed and cut to 120 bytes
};

// split(): statements at bracket depth 0, a line starting with `?` (or `:` inside a ternary)
// continuing the previous one. Lines that are not statements go to *skipped when given.
std::vector<RawStatement> SplitStatements(const std::vector<Token>& tokens, std::string_view text,
                                          std::vector<SkippedLine>* skipped);

struct ParsedExpression {
  Node node;
  size_t consumed = 0;     // tokens read; fewer than given means trailing tokens were ignored
  bool too_deep = false;   // nesting exceeded kMaxExpressionDepth
};
// parseExpression(): the Pratt parser (ternary < || < && < ==,!= < comparisons < +,- < *,/,% <
// unary < member/index).
ParsedExpression ParseExpression(const std::vector<Token>& tokens);

// isBuiltin(): data builtins, @Each and the action steps (Action, Run, ToAssistant, OpenUrl,
// Set, Reset).
bool IsBuiltin(std::string_view name);
// isReservedCall(): Query or Mutation.
bool IsReservedCall(std::string_view name);

}  // namespace affordance::surface
