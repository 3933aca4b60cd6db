// Harness::RunTurn: the loop itself (harness.h documents the contract).
#include "connect/schema.h"
#include "harness/adapter.h"
#include "harness/chooser.h"
#include "harness/evidence.h"
#include "harness/frame_text.h"
#include "harness/harness.h"
#include "harness/owner.h"
#include "harness/tools.h"

#include <algorithm>
#include <cctype>
#include <ctime>

namespace affordance::harness {

std::string Harness::RealityFor(const std::vector<store::MessageRecord>& thread) const {
  Reality r;
  r.now = options_.clock();
  r.utc_offset_s = options_.utc_offset_s;
  if (road_ != nullptr) {
    for (const auto& m : road_->manifests()) {
      RealityConnector c;
      c.slug = m.slug;
      c.title = m.title;
      if (auto snap = road_->Snapshot(m.slug); snap) {
        c.data_state =
            std::string(DataStateName(DataStateOf(snap->freshness.state, snap->credential_state)));
        c.synced_at = snap->freshness.synced_at;
        c.credential_state = snap->credential_state;
      } else {
        c.data_state = "disconnected";
        c.credential_state = "unknown";
      }
      for (const auto& op : m.operations) {
        if (!op.readable()) continue;
        c.operations.push_back(op.name);
        r.queries.push_back({op.handle, m.slug, op.name});
      }
      r.connectors.push_back(std::move(c));
    }
  }
  if (auto active = surface::ActiveArtifactOf(thread)) {
    r.active_artifact = active->artifact_id + " v" + std::to_string(active->version) +
                        " (surface " + active->surface_id + ", " + active->kind + ", " +
                        (active->live ? "live" : "static") + ")";
  }
  for (const auto& app : frame_.options().apps) r.apps.push_back(app.name);
  if (auto grants = authority_->Grants(); grants) {
    const int64_t now_ms = r.now * 1000;
    for (const auto& g : *grants) {
      std::string line = g.access + " " + g.scope;
      if (g.expires_ms != 0) {
        line += g.expires_ms <= now_ms ? " (expired)"
                                       : " (expires " + std::to_string(g.expires_ms / 1000) + ")";
      }
      r.grants.push_back(std::move(line));
    }
  }
  // Ready skills by name until their lines reach the cap in the bound model's tokens.
  size_t used = 0;
  for (const auto& skill : skills_.ready()) {
    std::string line = SkillLine(skill.name, skill.description);
    auto tokens = frame_.tokenizer().Encode("- " + line + "\n");
    const size_t n = tokens ? tokens->size() : line.size();
    if (r.skills_left_out > 0 || used + n > kRealitySkillTokens) {
      ++r.skills_left_out;
      continue;
    }
    used += n;
    r.skills.push_back(std::move(line));
  }
  r.skills_refused = skills_.refused().size();
  // The previous answer's citations that named no result (its claims, as the finalizer stored
  // them): the messages since the last user message.
  for (auto m = thread.rbegin(); m != thread.rend() && m->role == "assistant"; ++m) {
    if (!m->meta.is_object() || !m->meta.contains("claims") || !m->meta["claims"].is_array())
      continue;
    for (const auto& c : m->meta["claims"]) {
      if (!c.is_object() || !c.contains("invalid") || !c["invalid"].is_array()) continue;
      for (const auto& ref : c["invalid"]) {
        if (!ref.is_string()) continue;
        const std::string s = ref.get<std::string>();
        if (s.empty()) continue;
        if (std::find(r.invalid_citations.begin(), r.invalid_citations.end(), s) ==
            r.invalid_citations.end()) {
          r.invalid_citations.push_back(s);
        }
      }
    }
  }
  return RealityText(r);
}

Result<model::StepRequest> Harness::Request(int step, const std::vector<TranscriptTurn>& transcript,
                                            PromptAudit& audit) {
  auto prompt = frame_.Render(HeadText(), resident_json_, transcript);
  if (!prompt) return prompt.error();
  if (frame_.has_apps()) {
    std::vector<std::unique_ptr<Tool>> app_tools;
    for (const auto& t : prompt->app_tools) {
      if (t.callable) app_tools.push_back(MakeAppAction(t, frame_));
    }
    if (Status s = registry_.SetAppTools(std::move(app_tools)); !s) return s.error();
  }
  audit = prompt->audit;
  model::StepRequest request;
  request.step_id = "s" + std::to_string(step) + "-";
  request.max_tokens = options_.max_tokens;
  request.temperature = options_.temperature;
  request.seed = options_.seed + static_cast<uint64_t>(step);
  request.grammar = options_.grammar;
  if (options_.chat_messages) {
    request.messages = std::move(prompt->messages);
    request.tools = std::move(prompt->tools);
    for (const auto& name : registry_.attached()) {
      if (const Tool* t = registry_.Find(name)) {
        request.tools.push_back(nlohmann::json::parse(t->spec().ToJson().dump()));
      }
    }
  } else {
    request.prompt = std::move(prompt->tokens);
  }
  return request;
}

void Harness::ExecuteCalls(TurnRun& run) {
  Adapter& adapter = *run.adapter;
  const model::CancelToken& cancel = run.cancel;
  const size_t n = adapter.step().calls.size();
  bool ended = false;
  std::string ended_by;
  for (size_t i = 0; i < n; ++i) {
    const CallEntry call = adapter.step().calls[i];
    if (cancel.cancelled()) {
      adapter.CloseUnrun(i, CallEntry::Outcome::kCancelled,
                         "the turn was cancelled before this call ran");
      continue;
    }
    if (ended) {
      adapter.CloseUnrun(i, CallEntry::Outcome::kNotRun,
                         "not run: an earlier call of this step ended the turn (" + ended_by +
                             "); call it again in a later turn if it is still needed");
      continue;
    }
    if (call.outcome == CallEntry::Outcome::kInputError) {
      const auto& parts = adapter.message().parts;
      std::string why;
      for (const auto& p : parts) {
        if (p.kind == "tool" && p.key == call.id) why = p.data.value("errorText", "");
      }
      ToolOutcome o = ToolOutcome::Fail(MakeError("harness.malformed_call", why));
      adapter.ToolResult(i, call.name, o,
                         "error harness.malformed_call: " + why +
                             ". Write the call again as one JSON object with \"name\" and "
                             "\"arguments\".");
      continue;
    }
    ToolOutcome outcome;
    Tool* tool = registry_.FindCallable(call.name);
    if (tool == nullptr) {
      if (registry_.IsDeferred(call.name)) {
        outcome = ToolOutcome::Fail(
            MakeError("harness.tool_not_attached",
                      call.name +
                          " is a deferred tool: attach it first with ToolSearch({\"query\": "
                          "\"select:" +
                          call.name + "\"})"));
      } else {
        std::string names;
        for (const Tool* t : registry_.Resident())
          names += (names.empty() ? "" : ", ") + t->spec().name;
        for (const auto& a : registry_.attached()) names += ", " + a;
        for (const Tool* t : registry_.AppTools()) names += ", " + t->spec().name;
        outcome = ToolOutcome::Fail(MakeError("harness.unknown_tool",
                                              "no callable tool is named \"" + call.name + "\"",
                                              "callable: " + names));
      }
    } else {
      nlohmann::json schema = nlohmann::json::parse(tool->spec().parameters.dump());
      Status valid =
          connect::CheckSchema(schema, "") ? connect::ValidateArgs(schema, call.input) : Status();
      if (!valid) {
        outcome = ToolOutcome::Fail(MakeError(
            "harness.bad_arguments", "the arguments of " + call.name +
                                         " do not match its schema: " + valid.error().message));
      } else {
        ToolContext ctx;
        ctx.thread_id = adapter.message().thread_id;
        ctx.message_id = adapter.message().id;
        ctx.call_id = call.id;
        ctx.step = adapter.step().index;
        ctx.cancel = cancel;
        ctx.registry = &registry_;
        if (chooser_) {
          chooser_->SetCancel(cancel);
          chooser_->SetProvider(*run.provider);
          ctx.chooser = chooser_.get();
        }
        try {
          outcome = tool->Execute(ctx, call.input);
        } catch (const std::exception& e) {
          outcome = ToolOutcome::Fail(
              MakeError("harness.tool_failed", call.name + " failed unexpectedly", e.what()));
        }
      }
    }
    std::string body;
    if (outcome.ok) {
      body = outcome.model_text.empty() ? outcome.output.dump() : outcome.model_text;
    } else {
      body = "error " + outcome.error.code + ": " + outcome.error.ToString();
      if (!outcome.output.is_null()) body += "\n" + outcome.output.dump();
    }
    adapter.ToolResult(i, call.name, outcome, body);
    if (outcome.ok && (outcome.ends_turn || !outcome.approval_id.empty())) {
      ended = true;
      ended_by = outcome.approval_id.empty() ? call.name + " asked the user"
                                             : "a staged write waits for approval";
    }
  }
}

Result<TurnReport> Harness::RunTurn(const std::string& thread_id, const std::string& user_text,
                                    const EventSink& sink, const model::CancelToken& cancel) {
  if (std::all_of(user_text.begin(), user_text.end(),
                  [](unsigned char c) { return std::isspace(c); })) {
    return MakeError(ErrorKind::kInvalid, "harness.empty_message", "the message is empty");
  }
  return Turn(thread_id, &user_text, sink, cancel);
}

Result<store::MessageRecord> ContinuableTurn(store::Store& store, const std::string& thread_id) {
  auto thread = store.LoadThread(thread_id);
  if (!thread) return thread.error();
  if (thread->empty() || thread->back().role != "assistant" ||
      thread->back().meta.value("status", "") != TurnStatusName(TurnStatus::kAwaitingApproval)) {
    return MakeError(ErrorKind::kConflict, "harness.nothing_to_continue",
                     "the thread's last turn is not awaiting approval; send a message instead");
  }
  const store::MessageRecord& last = thread->back();
  auto approvals = store.ListApprovals("", thread_id);
  if (!approvals) return approvals.error();
  const bool decided = std::any_of(approvals->begin(), approvals->end(), [&](const auto& a) {
    return a.message_id == last.id && a.status != "pending" && !a.reported;
  });
  if (!decided) {
    return MakeError(ErrorKind::kConflict, "harness.nothing_to_continue",
                     "no approval of the last turn has been decided yet; approve or deny first");
  }
  return last;
}

std::string ThreadTitle(std::string_view message) {
  // The first line that has text, without its surrounding blanks.
  std::string_view line;
  while (!message.empty()) {
    const size_t end = message.find('\n');
    line = message.substr(0, end);
    const size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string_view::npos) {
      line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
      break;
    }
    line = {};
    if (end == std::string_view::npos) break;
    message.remove_prefix(end + 1);
  }
  constexpr size_t kMax = 60;
  constexpr std::string_view kEllipsis = "\u2026";  // 3 bytes
  if (line.size() <= kMax) return std::string(line);
  size_t cut = kMax - kEllipsis.size();
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  return std::string(line.substr(0, cut)) + std::string(kEllipsis);
}

Result<TurnReport> Harness::ContinueTurn(const std::string& thread_id, const EventSink& sink,
                                         const model::CancelToken& cancel) {
  if (auto last = ContinuableTurn(store_, thread_id); !last) return last.error();
  return Turn(thread_id, nullptr, sink, cancel);
}

TurnRun::TurnRun() = default;
TurnRun::~TurnRun() = default;

void TurnRun::OnPart(const formats::StreamPart& part) { adapter->OnPart(part); }

Result<TurnReport> Harness::Turn(const std::string& thread_id, const std::string* user_text,
                                 const EventSink& sink, const model::CancelToken& cancel) {
  auto run = Begin(thread_id, user_text, sink, cancel, provider_);
  if (!run) return run.error();
  while (auto request = NextStep(**run)) {
    Status streamed = provider_.Stream(
        *request, [&](const formats::StreamPart& part) { (*run)->OnPart(part); }, cancel);
    (void)streamed;  // the terminal part already told the adapter how the step ended
    AfterStep(**run);
  }
  return Finish(**run);
}

void Harness::Restore(const TurnRun& run) {
  registry_.ClearAttached();
  for (const auto& name : run.attached) (void)registry_.Attach(name);
}

void Harness::Keep(TurnRun& run) { run.attached = registry_.attached(); }

Result<std::unique_ptr<TurnRun>> Harness::Begin(const std::string& thread_id,
                                                const std::string* user_text, EventSink sink,
                                                model::CancelToken cancel,
                                                model::Provider& provider,
                                                const std::string& message_id, bool started) {
  auto info = store_.GetThread(thread_id);
  if (!info) return info.error();
  RescanSkills();  // the reality block and ToolSearch "skill:" see the skill folders as they are
  // Decided effects first: their outcomes are results of earlier calls this turn's frame shows.
  std::vector<nlohmann::ordered_json> resolved = ResolveApprovals(thread_id);
  auto thread = store_.LoadThread(thread_id);
  if (!thread) return thread.error();

  // The user message: this turn's reality, then the words. Rebuilt unconditionally. A
  // continuation has none: the person's decision is the input, already in the staging call's
  // result.
  std::string reality = user_text ? RealityFor(*thread) : "";
  store::MessageRecord user;
  Status written = !user_text ? Status() : store_.Batch([&]() -> Status {
    auto m = store_.AddMessage(thread_id, "user", "complete", nlohmann::json::object());
    if (!m) return m.error();
    user = *m;
    store::PartRecord r;
    r.seq = 0;
    r.kind = "reality";
    r.state = std::string(TruthName(TruthState::kPersisted));
    r.data = {{"text", reality}};
    store::PartRecord t;
    t.seq = 1;
    t.kind = "text";
    t.state = r.state;
    t.data = {{"text", *user_text}};
    user.parts = {r, t};
    if (Status s = store_.PutPart(user.id, r); !s) return s;
    if (Status s = store_.PutPart(user.id, t); !s) return s;
    if (!info->title.empty()) return {};
    return store_.RenameThread(thread_id, ThreadTitle(*user_text));
  });
  if (!written) return written.error();
  auto assistant =
      store_.AddMessage(thread_id, "assistant", "running", {{"owner", TurnOwner()}}, message_id);
  if (!assistant) return assistant.error();

  auto run = std::make_unique<TurnRun>();
  run->thread_id = thread_id;
  run->continuation = user_text == nullptr;
  run->cancel = std::move(cancel);
  run->provider = &provider;
  run->report.thread_id = thread_id;
  run->report.user_message_id = user.id;
  run->report.message_id = assistant->id;

  // A continuation's parts join the UI message of the response it continues (the first
  // assistant message since the last user message), as the AI SDK client appends them.
  std::string ui_message_id;
  for (auto m = thread->rbegin(); !user_text && m != thread->rend() && m->role == "assistant";
       ++m) {
    ui_message_id = m->id;
  }
  std::vector<store::MessageRecord> history = std::move(*thread);
  if (user_text) history.push_back(user);
  run->before = Transcript(history);

  run->adapter = std::make_unique<Adapter>(store_, *assistant, std::move(sink));
  Adapter& adapter = *run->adapter;
  adapter.SetReferences(ReferencesOf(history));
  if (!started) adapter.Start(ui_message_id);
  for (auto& chunk : resolved) {
    const std::string id = chunk["approvalId"].get<std::string>();
    if (!user_text && chunk.contains("toolCallId")) {
      const bool denied =
          chunk.value("state", "") == "denied" || chunk.value("state", "") == "expired";
      adapter.EmitToolOutcome(chunk["toolCallId"].get<std::string>(), denied, chunk);
    }
    adapter.EmitApproval(id, std::move(chunk));
  }
  return run;
}

std::optional<model::StepRequest> Harness::NextStep(TurnRun& run) {
  if (run.status) return std::nullopt;
  if (run.cancel.cancelled() && run.step > 0) {
    run.status = TurnStatus::kCancelled;
    return std::nullopt;
  }
  Adapter& adapter = *run.adapter;
  Restore(run);
  std::vector<TranscriptTurn> transcript = run.before;
  for (auto& t : Transcript({adapter.message()})) transcript.push_back(std::move(t));
  PromptAudit audit;
  adapter.BeginStep(run.step);
  auto request = Request(run.step, transcript, audit);
  if (!request) {
    adapter.OnPart(formats::StreamPart::Of(formats::PartType::kStartStep));
    formats::StreamPart error = formats::StreamPart::Of(formats::PartType::kError);
    error.error_code = request.error().code;
    error.error_text = request.error().ToString();
    adapter.OnPart(error);
    run.status = TurnStatus::kHarnessError;
    return std::nullopt;
  }
  request->affinity_key = run.thread_id;
  run.report.audits.push_back(audit);
  adapter.SetStepDetail("audit", audit.ToJson());
  return std::move(*request);
}

void Harness::AfterStep(TurnRun& run) {
  Adapter& adapter = *run.adapter;
  Restore(run);
  if (adapter.step().end == StepEntry::End::kFinished) {
    ExecuteCalls(run);
    adapter.FinishStep();
  }
  Keep(run);
  ++run.step;
  if (adapter.store_error()) {
    run.status = TurnStatus::kHarnessError;
    return;
  }
  run.status = StopStatus(adapter.ledger(), options_.stop);
}

TurnReport Harness::Finish(TurnRun& run) {
  Adapter& adapter = *run.adapter;
  TurnReport& report = run.report;
  report.status = run.status.value_or(TurnStatus::kHarnessError);
  report.ledger = adapter.ledger();
  for (const auto& p : adapter.message().parts) {
    if (p.kind != "text") continue;
    if (!adapter.ledger().empty() && p.step == adapter.ledger().back().index) {
      report.text += p.data.value("text", "");
    }
    // The finalizer: every text part's claims, from its citations as they were resolved.
    for (auto& c : ClaimsOf(p.data.value("text", ""), p.data.value("citations", nlohmann::json())))
      report.claims.push_back(std::move(c));
  }
  adapter.Finish(report);
  return report;
}

}  // namespace affordance::harness
