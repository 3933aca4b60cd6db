// Frame: the harness's prompt, rendered by the app renderer from views/harness/frame.tsx.
//
// One Frame serves one thread's turns (it holds the mounted apps' hook state). Render() turns the
// head text, the resident tool schemas and the transcript into exact token IDs in the bound
// model's chat format, plus the same conversation as chat-API messages + tools, plus a prompt
// audit: tokens per owner and the first token that changed since the previous Render().
//
// Mounted apps: with apps, the Frame writes a small generated entry module into `work_dir` that
// imports the frame and each app by relative path and renders the apps as the frame's children;
// their projected actions come back in FramePrompt::app_tools and are dispatched with Act().
//
// Not thread-safe.
#pragma once

#include "base/result.h"
#include "formats/output_parser.h"
#include "render/block.h"
#include "render/renderer.h"
#include "render/run_cache.h"
#include "text/tokenizer.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace affordance::harness {

struct MountedApp {
  std::string name;       // shown to the model ("notebook")
  std::string view;       // path of the .tsx file
  std::string component;  // exported component name
  nlohmann::ordered_json props = nlohmann::ordered_json::object();
};

struct FrameOptions {
  std::string views_root;  // the views/ folder (frame.tsx under harness/, lib/, adapters/)
  std::string model;       // registered tokenizer name, e.g. "Qwen__Qwen3-4B-Instruct-2507"
  std::shared_ptr<const text::Tokenizer> tokenizer;
  std::vector<MountedApp> apps;
  std::string work_dir;  // where the generated entry for mounted apps is written
};

// One turn of the transcript, in the order the model reads them.
struct TranscriptTurn {
  enum class Role { kUser, kAssistant, kTool };
  // kSkill: a tool result that carries a skill's body (its audit owner is "skill:<skill>").
  enum class Owner { kReality, kUser, kAssistant, kToolResult, kSkill };
  Role role = Role::kUser;
  Owner owner = Owner::kUser;
  std::string content;                // user / tool text; assistant text (chat APIs)
  std::vector<text::TokenId> tokens;  // assistant: the sampled IDs without the end-of-turn token
  nlohmann::json tool_calls;          // assistant: [{id, name, arguments}] (chat APIs)
  std::string tool_call_id;           // tool: the call it answers (chat APIs)
  std::string skill;                  // kSkill: the skill's name
  std::string skill_sha256;           // kSkill: the digest of the body it carries
};

// The tokens of one tool result that carried a skill's body, in one rendered frame.
struct SkillAudit {
  std::string name;
  std::string sha256;
  std::string tool_call_id;
  int64_t tokens = 0;  // the result's whole turn (or its part of a merged Qwen3 turn)
};

struct PromptAudit {
  int64_t total = 0;
  // head, schemas, reality, user, assistant, tool_results, apps, generation, and "skill:<name>"
  // for each skill whose body a result carried (those tokens are not in tool_results). Every
  // token has exactly one owner: the owners sum to total.
  std::map<std::string, int64_t> owners;
  std::vector<SkillAudit> skills;  // each skill-carrying result, in transcript order
  int64_t first_changed = -1;  // first token index that differs from the previous render; -1: first
  // sha256 (hex) of the head's token IDs, each as 4 little-endian bytes: equal digests across
  // steps and turns mean an engine's prefix cache keeps the head.
  std::string head_sha256;
  // {total, owners, first_changed, head_sha256} and, when a skill is in the frame, skills [{name,
  // sha256, toolCallId, tokens}].
  nlohmann::json ToJson() const;
};

struct FramePrompt {
  std::vector<text::TokenId> tokens;
  nlohmann::json messages = nlohmann::json::array();  // chat-API form of the same conversation
  nlohmann::json tools = nlohmann::json::array();     // chat-API tools: resident + app
  std::vector<render::Tool> app_tools;                // projected app actions
  PromptAudit audit;
};

class Frame {
 public:
  // Errors: the view's and the renderer's ("view.*", "render.*", "tokenizer.*"), and
  // "harness.frame" when the work folder for mounted apps cannot be written.
  static Result<std::unique_ptr<Frame>> Load(FrameOptions options);

  // `tools`: resident tool objects (ToolSpec::ToJson) declared in the head.
  Result<FramePrompt> Render(const std::string& system, const nlohmann::ordered_json& tools,
                             const std::vector<TranscriptTurn>& transcript);

  // Dispatches an app action {name, arguments} through the last render's projection.
  Status Act(const std::string& name, const nlohmann::json& arguments);

  bool has_apps() const { return !options_.apps.empty(); }
  const FrameOptions& options() const { return options_; }
  const text::Tokenizer& tokenizer() const { return *options_.tokenizer; }
  const render::RenderProfile& profile() const { return renderer_->profile(); }

 private:
  Frame(FrameOptions options, std::unique_ptr<render::Renderer> renderer);
  nlohmann::ordered_json Props(const std::string& system, const nlohmann::ordered_json& tools,
                               const std::vector<TranscriptTurn>& transcript) const;
  Result<int64_t> SchemaTokens(const std::string& system, const nlohmann::ordered_json& tools);
  void Audit(const std::vector<TranscriptTurn>& transcript, int64_t schemas, FramePrompt& prompt);

  FrameOptions options_;
  std::unique_ptr<render::Renderer> renderer_;
  render::RunCache cache_;
  std::vector<text::TokenId> previous_;
  std::map<std::string, int64_t> schema_tokens_;   // by tool JSON text
  const formats::TurnSyntax* syntax_ = nullptr;    // the tokenizer's chat format (formats/)
  text::TokenId turn_start_ = -1;                  // its turn-start token
  text::TokenId result_open_ = -1;                 // what opens each result of a merged turn
  std::unique_ptr<render::Renderer> schema_view_;  // a plain frame, for counting schema tokens
  int64_t starts_app_ = -1;                        // token index of the app turn in the last render
  int64_t starts_generation_ = -1;                 // token index of the generation prompt
};

}  // namespace affordance::harness
