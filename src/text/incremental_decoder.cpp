#include "text/tokenizer.h"
#include "text/utf8.h"

namespace affordance::text {

IncrementalDecoder::IncrementalDecoder(const Tokenizer& tokenizer) : tokenizer_(&tokenizer) {}

Result<std::string> IncrementalDecoder::Push(TokenId id) {
  auto bytes = tokenizer_->TokenBytes(id);
  if (!bytes.ok()) return bytes.error();
  pending_ += *bytes;
  // Everything but a truncated (still completable) character at the end is final now; ill-formed
  // bytes become U+FFFD exactly as Decode() of the whole sequence would make them.
  size_t complete = utf8::CompletePrefix(pending_);
  std::string out;
  utf8::AppendLossy(out, std::string_view(pending_).substr(0, complete));
  pending_.erase(0, complete);
  return out;
}

std::string IncrementalDecoder::Flush() {
  std::string out;
  utf8::AppendLossy(out, pending_);
  pending_.clear();
  return out;
}

}  // namespace affordance::text
