// Streaming parse of a program arriving in chunks (model output).
//
// Push() appends a chunk and does work proportional to the chunk (plus the statement it
// completes): fences and comments are stripped incrementally, statements that end at a depth-0
// newline are parsed once and cached. Result() re-parses only the unfinished tail (after closing
// open strings and brackets) and assembles the ParseResult; a pending statement may add names but
// never replaces a completed one. Duplicate completed names follow lang-core's streaming parser
// (the last complete definition wins) and are reported as "duplicate-statement".
//
// One difference from lang-core's createStreamingParser(): a statement is only treated as
// complete once the next non-blank character is known, so a ternary continued on the next line
// (`?` or `:`) is never cut off by a chunk boundary.
//
// Not thread-safe; the library must outlive the parser.
#pragma once

#include "surface/internal/build.h"
#include "surface/internal/json_text.h"
#include "surface/program.h"

#include <string>
#include <string_view>

namespace affordance::surface {

class StreamParser {
 public:
  explicit StreamParser(const Library& library);

  // Appends `chunk` to the program text.
  void Push(std::string_view chunk);
  // The ParseResult of everything pushed so far.
  ParseResult Result() const;
  // Forgets everything pushed.
  void Reset();

  // Number of statements completed and cached so far (for tests and benchmarks).
  size_t completed_statements() const { return completed_count_; }

 private:
  void Clean();           // raw_ -> cleaned_ (fences, comments), incrementally
  void EmitCode(char c);  // comment stripping of fenced/unfenced code
  void ScanStatements();  // cleaned_ -> completed statements
  void AddCompleted(std::string_view text);
  void RestartAfterFirstFence(size_t fence_at);

  const Library* library_;
  std::string raw_;
  size_t raw_pos_ = 0;

  // stripFences() state over raw_.
  enum class Fence { kNone, kTagLine, kBlock, kBetween } fence_ = Fence::kNone;
  bool leading_ = true;               // still skipping leading white space
  bool dq_ = false, dq_esc_ = false;  // inside a double-quoted string (skipString)

  // stripComments() state over the code being emitted.
  char cs_str_ = 0;
  bool cs_esc_ = false;
  bool cs_comment_ = false;
  bool cs_slash_ = false;  // a '/' outside strings waits for the next character

  std::string cleaned_;
  // scanNewCompleted() state over cleaned_.
  size_t scan_pos_ = 0, stmt_start_ = 0;
  int depth_ = 0, ternary_ = 0;
  internal::QuoteTracker quotes_;

  internal::StatementTable completed_;
  size_t completed_count_ = 0;
  std::string first_id_;
  std::vector<LangError> findings_;
};

}  // namespace affordance::surface
