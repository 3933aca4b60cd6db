#include "surface/stream.h"

#include "surface/internal/json_text.h"

namespace affordance::surface {

using internal::StatementTable;

StreamParser::StreamParser(const Library& library) : library_(&library) {}

void StreamParser::Reset() {
  const Library* lib = library_;
  *this = StreamParser(*lib);
}

void StreamParser::Push(std::string_view chunk) {
  raw_.append(chunk);
  Clean();
  ScanStatements();
}

// Comment stripping (stripComments) on the code stream. A '/' waits for the next character to
// tell division from a "//" comment; a comment drops everything up to the newline.
void StreamParser::EmitCode(char c) {
  if (cs_comment_) {
    if (c != '\n') return;
    cs_comment_ = false;
  }
  if (cs_slash_) {
    cs_slash_ = false;
    if (c == '/') {
      cs_comment_ = true;
      return;
    }
    cleaned_ += '/';
  }
  if (cs_str_) {
    if (cs_esc_) {
      cs_esc_ = false;
      // stripComments() only skips an escaped character on the same line.
      if (c == '\n') {
        if (c == cs_str_) cs_str_ = 0;
      }
    } else if (c == '\\') {
      cs_esc_ = true;
    } else if (c == cs_str_) {
      cs_str_ = 0;
    }
    cleaned_ += c;
    return;
  }
  if (c == '"' || c == '\'') {
    cs_str_ = c;
  } else if (c == '#') {
    cs_comment_ = true;
    return;
  } else if (c == '/') {
    cs_slash_ = true;
    return;
  }
  cleaned_ += c;
}

void StreamParser::RestartAfterFirstFence(size_t fence_at) {
  // The first fence turns everything before it into prose: start over from the fence (once).
  cleaned_.clear();
  scan_pos_ = stmt_start_ = 0;
  depth_ = ternary_ = 0;
  quotes_ = {};
  cs_str_ = 0;
  cs_esc_ = cs_comment_ = cs_slash_ = false;
  completed_.Clear();
  completed_count_ = 0;
  first_id_.clear();
  findings_.clear();
  raw_pos_ = fence_at + 3;
  fence_ = Fence::kTagLine;
  dq_ = dq_esc_ = false;
}

void StreamParser::Clean() {
  const size_t n = raw_.size();
  while (raw_pos_ < n) {
    const char c = raw_[raw_pos_];
    if (leading_) {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
        raw_pos_++;
        continue;
      }
      leading_ = false;
    }
    if (fence_ == Fence::kTagLine) {
      raw_pos_++;
      if (c == '\n') {
        fence_ = Fence::kBlock;
        dq_ = dq_esc_ = false;
      }
      continue;
    }
    // Fence detection outside double-quoted strings (skipString).
    if (dq_) {
      if (dq_esc_)
        dq_esc_ = false;
      else if (c == '\\')
        dq_esc_ = true;
      else if (c == '"')
        dq_ = false;
    } else if (c == '"') {
      dq_ = true;
    } else if (c == '`') {
      if (raw_pos_ + 2 >= n) return;  // wait: may be the start of a fence
      if (raw_[raw_pos_ + 1] == '`' && raw_[raw_pos_ + 2] == '`') {
        if (fence_ == Fence::kNone) {
          RestartAfterFirstFence(raw_pos_);
        } else if (fence_ == Fence::kBlock) {
          EmitCode('\n');  // blocks are joined with "\n"
          fence_ = Fence::kBetween;
          dq_ = dq_esc_ = false;
          raw_pos_ += 3;
        } else {
          fence_ = Fence::kTagLine;
          raw_pos_ += 3;
        }
        continue;
      }
    }
    if (fence_ != Fence::kBetween) EmitCode(c);
    raw_pos_++;
  }
}

void StreamParser::AddCompleted(std::string_view text) {
  const std::string_view trimmed = internal::JsTrim(text);
  if (trimmed.empty()) return;
  // The statement text, its decoded strings and its tree are kept in the table's arena.
  Arena& arena = completed_.arena();
  const std::string_view t = arena.Copy(trimmed);
  std::vector<Token> tokens = Tokenize(t, arena);
  std::vector<SkippedLine> skipped;
  std::vector<RawStatement> raws = SplitStatements(tokens, t, &skipped);
  internal::ReportSkipped(skipped, &findings_);
  for (const RawStatement& raw : raws) {
    if (completed_.Set(internal::ParseStatement(raw, arena, &findings_))) {
      findings_.push_back(internal::DuplicateError(raw.id));
    }
    completed_count_++;
    if (first_id_.empty()) first_id_ = raw.id;
  }
}

void StreamParser::ScanStatements() {
  const size_t n = cleaned_.size();
  for (size_t i = scan_pos_; i < n; ++i) {
    const char c = cleaned_[i];
    if (quotes_.Consume(c)) continue;
    if (c == '(' || c == '[' || c == '{') {
      depth_++;
    } else if (c == ')' || c == ']' || c == '}') {
      depth_ = depth_ > 0 ? depth_ - 1 : 0;
    } else if (c == '?' && depth_ == 0) {
      ternary_++;
    } else if (c == ':' && depth_ == 0 && ternary_ > 0) {
      ternary_--;
    } else if (c == '\n' && depth_ <= 0 && ternary_ <= 0) {
      size_t peek = i + 1;
      while (peek < n && (cleaned_[peek] == ' ' || cleaned_[peek] == '\t' ||
                          cleaned_[peek] == '\r' || cleaned_[peek] == '\n')) {
        peek++;
      }
      if (peek >= n) {
        scan_pos_ = i;  // the next statement has not started: decide later
        return;
      }
      if (cleaned_[peek] == '?' || (cleaned_[peek] == ':' && ternary_ > 0)) continue;
      AddCompleted(std::string_view(cleaned_).substr(stmt_start_, i - stmt_start_));
      stmt_start_ = i + 1;
    }
  }
  scan_pos_ = n;
}

ParseResult StreamParser::Result() const {
  std::string pending = cleaned_.substr(stmt_start_);
  // Characters held back while waiting for the next one count as plain text at the end.
  if (cs_slash_ && !cs_comment_) pending += '/';
  if (!cs_comment_) {
    for (size_t k = raw_pos_; k < raw_.size(); ++k) {
      if (fence_ != Fence::kBetween && fence_ != Fence::kTagLine) pending += raw_[k];
    }
  }
  std::string_view tail = internal::JsTrim(pending);
  if (tail.empty()) {
    if (completed_count_ == 0) return internal::EmptyResult(true, findings_);
    return internal::BuildResult(completed_, first_id_, false, completed_count_, *library_,
                                 findings_);
  }
  AutoClosed closed = AutoClose(tail);
  std::vector<SkippedLine> skipped;
  Arena scratch;  // decoded string literals and the pending statements' trees
  std::vector<Token> tokens = Tokenize(closed.text, scratch);
  std::vector<RawStatement> raws = SplitStatements(tokens, closed.text, &skipped);
  std::vector<LangError> findings = findings_;
  internal::ReportSkipped(skipped, &findings);
  if (raws.empty()) {
    if (completed_count_ == 0) return internal::EmptyResult(closed.incomplete, findings);
    return internal::BuildResult(completed_, first_id_, closed.incomplete, completed_count_,
                                 *library_, findings);
  }
  StatementTable all = completed_;
  for (const RawStatement& raw : raws) {
    if (completed_.Has(raw.id)) continue;  // a pending statement never replaces a completed one
    if (all.Set(internal::ParseStatement(raw, scratch, &findings))) {
      findings.push_back(internal::DuplicateError(raw.id));
    }
  }
  const std::string_view first = first_id_.empty() ? raws.front().id : first_id_;
  return internal::BuildResult(all, first, closed.incomplete, completed_count_ + raws.size(),
                               *library_, findings);
}

}  // namespace affordance::surface
