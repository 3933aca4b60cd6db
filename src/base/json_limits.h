// Untrusted JSON enters through one check: its nesting depth is measured on the raw text, without
// recursion, before anything builds a value from it.
//
// Why: nlohmann::json builds, copies, compares, dumps and destroys values recursively, and so does
// every walker of ours (schema checks, conversions to JavaScript and back, UI mapping). A body of
// a million '[' would overflow the stack of whichever of them runs first and kill the process,
// with every running turn. So every door where JSON text arrives from outside the process (HTTP
// bodies, MCP messages, model tool-call arguments, connector outputs, replay scripts, state files)
// refuses text deeper than kMaxJsonDepth with a typed error (`<part>.too_deep`), and code past the
// door may recurse over a value's depth. docs/SECURITY.md lists the doors.
//
// Thread safety: pure functions.
#pragma once

#include "base/result.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace affordance {

// The deepest nesting of arrays and objects that any door accepts (serde_json's default limit).
// A value nested this deep, wrapped in a message, a part and a thread on its way to a client,
// stays far below what any recursive walker needs the stack for.
inline constexpr int kMaxJsonDepth = 128;
// Stored JSON (the store's own columns, written after a door checked the value) is read back with
// room for the wrapping the product adds.
inline constexpr int kMaxStoredJsonDepth = 2 * kMaxJsonDepth;

// The nesting depth of `text` read as JSON: brackets and braces outside string literals, scanned
// once from the start, stopping as soon as the depth exceeds `limit` (the result is then
// limit + 1). Not a validator: malformed text yields the depth of what was seen, and the parser
// that runs next reports the syntax error. O(n), no allocation, no recursion.
int JsonTextDepth(std::string_view text, int limit = kMaxJsonDepth);

// The nesting depth of a built value, without recursion (for values that did not come from text,
// e.g. converted from JavaScript), stopping past `limit` like JsonTextDepth.
int JsonValueDepth(const nlohmann::json& value, int limit = kMaxJsonDepth);
int JsonValueDepth(const nlohmann::ordered_json& value, int limit = kMaxJsonDepth);

// Status of the depth check alone: ok, or Error{too_deep_code, "<what> nests deeper than N levels
// of arrays and objects", "limit N"}. `what` names the input for a person ("the request body").
Status CheckJsonDepth(std::string_view text, std::string_view too_deep_code, std::string_view what,
                      int limit = kMaxJsonDepth);

// Where `text` stops being JSON, for a person who opens it in an editor: "LINE:COLUMN: PROBLEM"
// (1-based; PROBLEM is the parser's own diagnosis, what it found and what it expected there, e.g.
// "3:5: syntax error while parsing object key - unexpected '}'; expected string literal").
// Empty when the text is valid JSON. A SAX pass that builds no value (no recursion); like every
// door, call it after the depth check.
std::string JsonSyntaxError(std::string_view text);

// The same, prefixed with the file it came from: "FILE:LINE:COLUMN: PROBLEM" (or "LINE:COLUMN:
// PROBLEM" when `file` is empty), the detail every command gives a JSON input that is not JSON.
std::string JsonSyntaxErrorIn(std::string_view text, std::string_view file);

// Parses untrusted JSON text: the depth check above (JsonTextDepth), then nlohmann's parser.
// Errors: `too_deep_code` (deeper than `limit`), `bad_json_code` ("<what> is not valid JSON",
// detail: "LINE:COLUMN: PROBLEM" as JsonSyntaxError). Numbers out of range (1e400) are a bad_json
// error too, never an exception.
template <class Json = nlohmann::json>
Result<Json> ParseJson(std::string_view text, std::string_view too_deep_code,
                       std::string_view bad_json_code, std::string_view what,
                       int limit = kMaxJsonDepth) {
  if (auto s = CheckJsonDepth(text, too_deep_code, what, limit); !s) return s.error();
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    std::string where = JsonSyntaxError(text);
    return MakeError(ErrorKind::kInvalid, std::string(bad_json_code),
                     std::string(what) + " is not valid JSON", where.empty() ? e.what() : where);
  }
}

}  // namespace affordance
