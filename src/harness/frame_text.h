// The text the harness writes into its prompt frame: the stable head (identity, tool law, the
// OpenUI Lang digest), the reality block of each turn, and the evidence wrapper of tool results.
//
// The head is byte-stable: nothing in it depends on time, data, connectors or the thread, so its
// tokens are identical across steps and turns and provider prefix caches keep it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace affordance::harness {

// Identity, tool law and the OpenUI Lang digest (the system text of every frame).
const std::string& HeadText();

struct RealityConnector {
  std::string slug;
  std::string title;
  std::string data_state;               // live | mirrored | stale | empty | syncing | disconnected
  int64_t synced_at = 0;                // epoch seconds, 0 = never
  std::string credential_state;         // not_required | present | missing | rejected
  std::vector<std::string> operations;  // readable operation names
};

struct RealityQuery {
  std::string handle;
  std::string connector;
  std::string operation;
};

struct Reality {
  int64_t now = 0;       // epoch seconds
  int utc_offset_s = 0;  // local offset from UTC
  std::vector<RealityConnector> connectors;
  std::vector<RealityQuery> queries;
  std::vector<std::string> grants;  // one line each; empty: none
  std::string active_artifact;      // "" = none
  std::vector<std::string> apps;    // mounted app names
  // Ready skills that fit the cap (SkillLine each), how many ready ones did not, and how many skill
  // folders were refused. All empty: the block has no skills section.
  std::vector<std::string> skills;
  size_t skills_left_out = 0;
  size_t skills_refused = 0;
  // References the previous answer cited that name no result ("r9"): the model is told once, in
  // the next turn's block.
  std::vector<std::string> invalid_citations;
};

// The reality block lists ready skills until their lines reach this many tokens of the bound
// model (each line counted on its own); the rest are counted, not listed, and ToolSearch
// {"query": "skill:"} lists every skill.
inline constexpr size_t kRealitySkillTokens = 512;
// A skill's line shows the first line of its description, cut at this many characters.
inline constexpr size_t kRealitySkillDescriptionChars = 160;

// "<name>: <first line of the description, cut with …>".
std::string SkillLine(const std::string& name, const std::string& description);

// The reality block: rebuilt unconditionally at the start of every turn and persisted with the
// turn's user message, so earlier turns re-render to the same tokens.
std::string RealityText(const Reality& reality);

// Results longer than this many characters (Unicode code points) are cut with a visible note.
inline constexpr size_t kToolResultCap = 24000;

// A tool result as the model reads it: capped at kToolResultCap characters (a note says how much
// was cut) and wrapped as untrusted evidence, `<tool-result ref="r3" tool="..." trust="...">`.
// `ref` is the result's reference, which the model cites ("" = none: a result that was never
// written). Special-token spellings inside stay text (the frame encodes history text without
// matching added tokens); a body's own "<tool-result" or "</tool-result" (any case) is written
// "&lt;tool-result", so a result can never close its wrapper and pose as another (an operator's
// skill, another reference). `operator_text`: the result carries a skill's body, the operator's
// own file (trust="operator"); only a ToolSearch skill load sets it.
std::string EvidenceText(const std::string& tool_name, const std::string& body,
                         const std::string& ref = "", bool operator_text = false);

// Cuts `text` at `cap` code points (never inside a UTF-8 sequence); returns how many were cut.
size_t CapText(std::string& text, size_t cap);

}  // namespace affordance::harness
