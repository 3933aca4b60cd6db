// Evidence on claims: what the prose of an answer rests on (docs/HARNESS.md "Evidence on claims").
//
// Every tool result in the frame carries a short reference ("r3", numbered per thread in the order
// the results were written, and persisted with the result, so a transcript re-renders to the same
// tokens). The tool law tells the model to cite references in its prose ("[r3]", "[r1, r3]"); the
// output parsers recognise that syntax in the token stream (formats/internal/part_emitter.h), and
// nothing here reads the meaning of any words. A citation is resolved the moment it is parsed,
// against the results written before it (the adapter's table: earlier turns from the store, this
// turn's from the ledger as its results arrive), and persisted with its text part. The finalizer
// then classes the claims of each text part:
//   source      cited, and the cited call served data
//   effect      cited, and the cited call's write was executed or verified
//   unresolved  cited, but a cited call failed, was refused, denied or not run, its read is partial
//               (some detail reads failed), its write awaits a decision or its outcome is unknown,
//               or a citation names no result (invalid)
//   inference   not cited
#pragma once

#include "store/store.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::harness {

// A tool result as a citation can name it: what the result proved when it was cited.
struct Reference {
  std::string ref;  // "r3"
  std::string tool_call_id;
  std::string tool_name;
  std::string status;      // the tool part's status (output-available, output-denied, ...)
  std::string truth;       // its truth state (executed, verified, denied, refused, ...)
  std::string data_state;  // connector reads: a harness DataState name (live, local, partial, ...)
  std::string connector;
  int64_t synced_at = 0;        // epoch seconds the served data was last synced (0: unknown)
  std::optional<int64_t> rows;  // rows the read served (nullopt: it served none)
  std::string error_code;
  bool write = false;  // a staged write (its result is the write's outcome)
};

// "r3" -> 3; 0 for anything that is not a reference spelling.
int64_t RefOrdinal(std::string_view ref);
// The reference a stored tool part carries (nullopt: none, e.g. written before references).
std::optional<Reference> ReferenceOf(const store::PartRecord& tool_part);
// The references of these messages' tool parts, by ref.
std::map<std::string, Reference> ReferencesOf(const std::vector<store::MessageRecord>& messages);

enum class CitationClass { kSource, kEffect, kUnresolved, kInvalid };
enum class ClaimClass { kSource, kEffect, kUnresolved, kInference };
std::string_view CitationClassName(CitationClass c);
std::string_view ClaimClassName(ClaimClass c);

// One reference of a citation, resolved: {ref, class, reason?, toolCallId, toolName, status,
// truth, dataState?, connector?, syncedAt?, rows?, errorCode?} (the web's CitationFacts).
nlohmann::json ResolveCitation(const std::string& ref, const Reference* found);

struct Claim {
  ClaimClass cls = ClaimClass::kInference;
  std::string text;                  // the claim's prose, as written, without surrounding blanks
  std::vector<std::string> refs;     // what it cites, in order
  std::vector<std::string> invalid;  // cited references that name no result
  nlohmann::json ToJson() const;     // {class, text, refs, invalid?}
};

// The claims of one text part. `citations` is the part's persisted list: [{offset, citedText,
// refs: [ResolveCitation, ...]}], offsets in bytes. A claim is the prose from the end of the
// previous claim (or a line's start) up to a citation, with the citations right after it (only
// blanks or commas between them) and the closing punctuation after those; prose left uncited at the
// end of a line is one inference claim; a citation at the start of a line cites the prose after it.
// A run without a letter or digit (a bullet, a lone "-") is no claim.
std::vector<Claim> ClaimsOf(std::string_view text, const nlohmann::json& citations);

// The part's citations in the AI SDK's form (text-end `citations`, ai >= 7.0.138): one entry per
// reference, {source: {type: "source", sourceType: "document", id, mediaType, title,
// providerMetadata: {affordance: facts}}, startIndex, endIndex, citedText}, indices in UTF-16 code
// units of `text` as JavaScript counts them.
nlohmann::json AiSdkCitations(std::string_view text, const nlohmann::json& citations);

}  // namespace affordance::harness
