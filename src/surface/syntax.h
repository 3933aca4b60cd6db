// OpenUI Lang v0.5 syntax: text clean-up, statement splitting and the Pratt expression parser.
//
// Each function is a faithful port of the lang-core 0.2.18 function named in its comment; the one
// addition is that statement splitting returns the lines it could not read (lang-core drops them
// silently; we report them, see docs/SURFACE.md).
#pragma once

#include "surface/ast.h"

#include <span>
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
// The same, taking over `input` (no copy of the text when nothing needs closing).
AutoClosed AutoClose(std::string&& input);

// A statement found by SplitStatements(). Its views point into the split text and the token
// vector given to SplitStatements(), which must outlive it.
struct RawStatement {
  std::string_view id;  // "name", "Type" or "$state"
  Tok id_type = Tok::kIdent;
  std::span<const Token> tokens;  // expression tokens, newlines inside brackets removed
  size_t begin = 0, end = 0;      // byte range of the statement in the split text
};

// A line that is not `name = expression` (or whose expression is empty).
struct SkippedLine {
  std::string text;  // the offending line, trimmed and cut to 120 bytes
};

// split(): statements at bracket depth 0, a line starting with `?` (or `:` inside a ternary)
// continuing the previous one. Lines that are not statements go to *skipped when given.
// `tokens` (from Tokenize(text)) is compacted in place: each statement's expression tokens end up
// contiguous, and the returned statements view them.
std::vector<RawStatement> SplitStatements(std::vector<Token>& tokens, std::string_view text,
                                          std::vector<SkippedLine>* skipped);

struct ParsedExpression {
  Node node;
  size_t consumed = 0;    // tokens read; fewer than given means trailing tokens were ignored
  bool too_deep = false;  // nesting exceeded kMaxExpressionDepth
};
// parseExpression(): the Pratt parser (ternary < || < && < ==,!= < comparisons < +,- < *,/,% <
// unary < member/index). The tree is allocated in `arena`; its texts view the token texts (so
// the lexed source and the arena given to Tokenize() must outlive it too) or `arena`.
ParsedExpression ParseExpression(std::span<const Token> tokens, Arena& arena);

// isBuiltin(): data builtins, @Each and the action steps (Action, Run, ToAssistant, OpenUrl,
// Set, Reset).
bool IsBuiltin(std::string_view name);
// isReservedCall(): Query or Mutation.
bool IsReservedCall(std::string_view name);

}  // namespace affordance::surface
