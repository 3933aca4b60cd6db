#include "server/api.h"

#include "base/json_limits.h"
#include "server/ui_message.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace affordance::server {
namespace {

using ojson = nlohmann::ordered_json;

HttpResponse Json(int status, const ojson& body) {
  HttpResponse r;
  r.status = status;
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

Result<ojson> ParseBody(const std::string& body, bool allow_empty = false) {
  if (body.empty() && allow_empty) return ojson::object();
  auto j = ParseJson<ojson>(body, "server.too_deep", "server.bad_json", "the request body");
  if (!j) return j.error();
  if (!j->is_object())
    return MakeError(ErrorKind::kInvalid, "server.bad_json",
                     "the request body must be a JSON object");
  return j;
}

ojson ThreadJson(const store::ThreadInfo& t, bool active) {
  return {{"id", t.id},
          {"title", t.title},
          {"createdAt", t.created_ms},
          {"updatedAt", t.updated_ms},
          {"messages", t.messages},
          {"active", active}};
}

Error UnknownThread(const std::string& id) {
  return MakeError(ErrorKind::kNotFound, "server.unknown_thread", "no thread with this id", id);
}

bool ValidChatId(const std::string& id) {
  return !id.empty() && id.size() <= 128 && std::all_of(id.begin(), id.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_';
  });
}

const ojson* LastMessage(const ojson& body) {
  const auto it = body.find("messages");
  if (it == body.end() || !it->is_array() || it->empty()) return nullptr;
  return &it->back();
}

// The user's words: the text parts of the last message, which must be the user's.
Result<std::string> UserText(const ojson& body) {
  const ojson* message = LastMessage(body);
  if (message == nullptr) {
    return MakeError(ErrorKind::kInvalid, "server.bad_request",
                     "messages must be a non-empty array");
  }
  const ojson& last = *message;
  if (!last.is_object() || last.value("role", "") != "user") {
    return MakeError(ErrorKind::kInvalid, "server.bad_request",
                     "the last message must be the user's");
  }
  std::string text;
  if (auto parts = last.find("parts"); parts != last.end() && parts->is_array()) {
    for (const auto& p : *parts) {
      if (p.is_object() && p.value("type", "") == "text" && p.contains("text") &&
          p["text"].is_string()) {
        if (!text.empty()) text += "\n";
        text += p["text"].get<std::string>();
      }
    }
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return MakeError(ErrorKind::kInvalid, "harness.empty_message", "the user message has no text");
  }
  return text;
}

}  // namespace

std::string Api::ThreadFor(const std::string& chat_id) {
  if (chat_id.empty()) return "";
  return store_.GetThread(chat_id).ok() ? chat_id : "";
}

// The person's decisions on staged effects, as the AI SDK sends them: the last message is the
// assistant's, its tool parts in state `approval-responded` with `approval {id, approved,
// reason?}`. Each is applied once through the authority (a person decides; the model never can),
// then the thread continues: the approved effects run before the next model step.
HttpResponse Api::PostDecisions(const HttpRequest& r, const std::string& chat_id,
                                const ojson& message) {
  struct Decision {
    std::string id;
    bool approved = false;
    std::string reason;
  };
  std::vector<Decision> decisions;
  if (auto parts = message.find("parts"); parts != message.end() && parts->is_array()) {
    for (const auto& p : *parts) {
      if (!p.is_object() || p.value("state", "") != "approval-responded") continue;
      const auto a = p.find("approval");
      if (a == p.end() || !a->is_object() || !a->contains("id") || !(*a)["id"].is_string() ||
          !a->contains("approved") || !(*a)["approved"].is_boolean() ||
          (a->contains("reason") && !(*a)["reason"].is_string())) {
        return ErrorResponse(
            MakeError(ErrorKind::kInvalid, "server.bad_request",
                      "an approval-responded part needs approval {id: string, approved: boolean, "
                      "reason?: string}",
                      p.value("toolCallId", "")));
      }
      decisions.push_back({(*a)["id"], (*a)["approved"], a->value("reason", "")});
    }
  }
  if (decisions.empty()) {
    return ErrorResponse(MakeError(
        ErrorKind::kInvalid, "server.no_decision",
        "the last message is the assistant's but carries no approval decision; a new question "
        "is sent as a user message"));
  }
  // Deciding is the person's, never a client's (the access token, a process without a session):
  // the same rule as the operator-only MCP tools, checked once the message is known to carry
  // decisions and before anything is read or decided.
  if (r.plane < authority::Access::kPerson) {
    if (options_.refusals != nullptr) {
      options_.refusals->Count(r.person_session_invalid ? "server.person_session_expired"
                                                        : "server.person_only");
    }
    return ErrorResponse(
        r.person_session_invalid
            ? MakeError(ErrorKind::kUnauthenticated, "server.person_session_expired",
                        "the web session has expired or was not made by this server: reload the "
                        "page to start a new one")
            : MakeError(ErrorKind::kForbidden, "server.person_only",
                        "approving and denying are the person's: use the web UI opened on this "
                        "machine, `affordance approvals approve|deny`, or an operator MCP "
                        "session"));
  }
  const std::string thread = ThreadFor(chat_id);
  if (thread.empty()) return ErrorResponse(UnknownThread(chat_id));
  if (hub_.Running(thread)) {
    return ErrorResponse(MakeError(
        ErrorKind::kConflict, "server.turn_active",
        "this thread already has a turn running; cancel it or wait for it to end", thread));
  }
  auto thread_record = store_.LoadThread(thread);
  if (!thread_record) return ErrorResponse(thread_record.error());
  const store::MessageRecord* last = thread_record->empty() ? nullptr : &thread_record->back();
  {
    std::lock_guard lock(authority_mu_);
    // Every decision is checked before any is applied: a refused request decides nothing.
    std::vector<const Decision*> pending;
    for (const auto& d : decisions) {
      auto approval = store_.GetApproval(d.id);
      if (!approval || approval->thread_id != thread) {
        return ErrorResponse(MakeError(ErrorKind::kNotFound, "server.unknown_approval",
                                       "no approval with this id on this thread", d.id));
      }
      if (last == nullptr || approval->message_id != last->id) {
        // The turn that staged it is over (a newer message followed): the decision is still the
        // person's to make, but not by resending that turn.
        return ErrorResponse(MakeError(
            ErrorKind::kConflict, "harness.nothing_to_continue",
            "approval " + d.id +
                " belongs to an earlier turn; decide it with `affordance approvals approve|deny`",
            approval->status));
      }
      if (approval->status != "pending") {
        // A resend of the same decision (a retry after a dropped response) is not a conflict.
        const bool same = d.approved ? approval->status != "denied" && approval->status != "expired"
                                     : approval->status == "denied";
        if (same) continue;
        return ErrorResponse(MakeError(
            ErrorKind::kConflict, "authority.already_decided",
            "approval " + d.id + " is already " + approval->status + "; a decision is made once",
            approval->decided_by));
      }
      pending.push_back(&d);
    }
    for (const Decision* d : pending) {
      auto decided = d->approved ? authority_.Approve(d->id, options_.actor)
                                 : authority_.Deny(d->id, options_.actor, d->reason);
      if (!decided) return ErrorResponse(decided.error());
    }
  }
  if (auto ready = harness::ContinuableTurn(store_, thread); !ready) {
    return ErrorResponse(ready.error());
  }
  auto turn = hub_.SubmitContinuation(thread);
  if (!turn) return ErrorResponse(turn.error());
  HttpResponse response;
  response.stream = *turn;
  return response;
}

HttpResponse Api::PostChat(const HttpRequest& r) {
  auto body = ParseBody(r.body);
  if (!body) return ErrorResponse(body.error());
  if (!body->contains("id") || !(*body)["id"].is_string() ||
      (*body)["id"].get<std::string>().empty()) {
    return ErrorResponse(MakeError(ErrorKind::kInvalid, "server.bad_request",
                                   "id (the chat id) must be a non-empty string"));
  }
  const std::string chat_id = (*body)["id"];
  const std::string trigger = body->value("trigger", "submit-message");
  if (trigger != "submit-message") {
    return ErrorResponse(MakeError(ErrorKind::kInvalid, "server.unsupported_trigger",
                                   "only submit-message is supported; send the message again",
                                   trigger));
  }
  const ojson* last = LastMessage(*body);
  if (last == nullptr) {
    return ErrorResponse(
        MakeError(ErrorKind::kInvalid, "server.bad_request", "messages must be a non-empty array"));
  }
  if (last->is_object() && last->value("role", "") == "assistant") {
    return PostDecisions(r, chat_id, *last);
  }
  auto text = UserText(*body);
  if (!text) return ErrorResponse(text.error());
  std::string thread = ThreadFor(chat_id);
  if (thread.empty()) {
    // A client-chosen chat id (a stock useChat picks its own): the thread is created with that id,
    // so the client's later messages (and a restarted server) find it.
    if (!ValidChatId(chat_id)) {
      return ErrorResponse(MakeError(ErrorKind::kInvalid, "server.bad_request",
                                     "a new chat id must be 1-128 letters, digits, '-' or '_'",
                                     chat_id.substr(0, 140)));
    }
    auto created = store_.CreateThread("", chat_id);  // titled by the harness (ThreadTitle)
    if (!created && created.error().code == "store.conflict") {
      thread = chat_id;  // created a moment ago by a concurrent request
    } else if (!created) {
      return ErrorResponse(created.error());
    } else {
      thread = created->id;
    }
  }
  auto turn = hub_.Submit(thread, *text);
  if (!turn) return ErrorResponse(turn.error());
  HttpResponse response;
  response.stream = *turn;
  return response;
}

HttpResponse Api::ResumeStream(const HttpRequest& r) {
  const std::string thread = ThreadFor(r.params.at("id"));
  // On any node: a turn running elsewhere is followed through its durable log.
  auto watched = thread.empty() ? Result<std::shared_ptr<ActiveTurn>>(nullptr) : hub_.Watch(thread);
  if (!watched) return ErrorResponse(watched.error());
  auto turn = *watched;
  if (!turn) {
    HttpResponse none;
    none.status = 204;
    none.content_type.clear();
    return none;
  }
  HttpResponse response;
  response.stream = turn;
  response.resumed = true;
  return response;
}

HttpResponse Api::CancelTurn(const HttpRequest& r) {
  const std::string thread = ThreadFor(r.params.at("id"));
  // Wherever the turn runs: another node hears the stop through the store.
  if (thread.empty()) {
    return ErrorResponse(MakeError(ErrorKind::kNotFound, "server.no_active_turn",
                                   "the thread has no running turn", r.params.at("id")));
  }
  if (Status stopped = hub_.Stop(thread); !stopped) return ErrorResponse(stopped.error());
  return Json(202, {{"cancelled", true}, {"threadId", thread}});
}

HttpResponse Api::ListThreads(const HttpRequest&) {
  auto threads = store_.ListThreads();
  if (!threads) return ErrorResponse(threads.error());
  ojson list = ojson::array();
  for (const auto& t : *threads) list.push_back(ThreadJson(t, hub_.Running(t.id)));
  return Json(200, {{"threads", std::move(list)}});
}

HttpResponse Api::CreateThread(const HttpRequest& r) {
  auto body = ParseBody(r.body, /*allow_empty=*/true);
  if (!body) return ErrorResponse(body.error());
  std::string title;  // untitled: the harness titles it from its first message
  if (auto t = body->find("title"); t != body->end()) {
    if (!t->is_string() || t->get<std::string>().size() > 200) {
      return ErrorResponse(MakeError(ErrorKind::kInvalid, "server.bad_request",
                                     "title must be a string of 0 to 200 bytes"));
    }
    title = t->get<std::string>();
  }
  auto created = store_.CreateThread(title);
  if (!created) return ErrorResponse(created.error());
  return Json(201, {{"thread", ThreadJson(*created, false)}});
}

HttpResponse Api::ReadThread(const HttpRequest& r) {
  const std::string thread = ThreadFor(r.params.at("id"));
  auto info = thread.empty() ? Result<store::ThreadInfo>(UnknownThread(r.params.at("id")))
                             : store_.GetThread(thread);
  if (!info) return ErrorResponse(UnknownThread(r.params.at("id")));
  auto messages = store_.LoadThread(thread);
  if (!messages) return ErrorResponse(messages.error());
  auto turn = hub_.Active(thread);
  const bool running = turn != nullptr || hub_.Running(thread);
  // The running turn's assistant message reaches a resuming client through the stream. It is
  // the thread's one "running" message (recovery closes older ones), found by status because
  // the store may hold it a moment before its `start` chunk names it.
  std::string streaming;
  if (running) {
    if (turn) streaming = turn->message_id();
    for (const auto& m : *messages) {
      if (m.role == "assistant" && m.status == "running") streaming = m.id;
    }
  }
  auto listed = store_.ListApprovals("", thread);
  if (!listed) return ErrorResponse(listed.error());
  Approvals approvals;
  for (auto& a : *listed) approvals.emplace(a.id, std::move(a));
  return Json(200, {{"thread", ThreadJson(*info, running)},
                    {"messages", ToUiMessages(*messages, streaming, &approvals)}});
}

HttpResponse Api::RenameThread(const HttpRequest& r) {
  auto body = ParseBody(r.body);
  if (!body) return ErrorResponse(body.error());
  auto t = body->find("title");
  if (t == body->end() || !t->is_string() || t->get<std::string>().empty() ||
      t->get<std::string>().size() > 200) {
    return ErrorResponse(MakeError(ErrorKind::kInvalid, "server.bad_request",
                                   "title must be a string of 1 to 200 bytes"));
  }
  const std::string thread = ThreadFor(r.params.at("id"));
  if (thread.empty()) return ErrorResponse(UnknownThread(r.params.at("id")));
  if (auto s = store_.RenameThread(thread, *t); !s) return ErrorResponse(s.error());
  auto info = store_.GetThread(thread);
  if (!info) return ErrorResponse(info.error());
  return Json(200, {{"thread", ThreadJson(*info, hub_.Running(thread))}});
}

HttpResponse Api::DeleteThread(const HttpRequest& r) {
  const std::string thread = ThreadFor(r.params.at("id"));
  if (thread.empty()) return ErrorResponse(UnknownThread(r.params.at("id")));
  if (hub_.Running(thread)) {
    return ErrorResponse(MakeError(ErrorKind::kConflict, "server.turn_active",
                                   "the thread has a running turn; cancel it first", thread));
  }
  if (auto s = store_.DeleteThread(thread); !s) return ErrorResponse(s.error());
  return Json(200, {{"deleted", thread}});
}

// The one state a client is the evidence for. Only a live surface owes acknowledgements (a static
// one is complete when persisted); painted precedes hydrated and a state never moves back.
HttpResponse Api::AcknowledgeSurface(const HttpRequest& r) {
  auto body = ParseBody(r.body);
  if (!body) return ErrorResponse(body.error());
  const std::string state = body->value("state", "");
  if (state != "painted" && state != "hydrated") {
    return ErrorResponse(MakeError(ErrorKind::kInvalid, "server.bad_request",
                                   "state must be painted or hydrated", state));
  }
  const std::string thread = ThreadFor(r.params.at("id"));
  if (thread.empty()) return ErrorResponse(UnknownThread(r.params.at("id")));
  auto messages = store_.LoadThread(thread);
  if (!messages) return ErrorResponse(messages.error());
  const std::string& surface = r.params.at("surfaceId");
  for (const auto& m : *messages) {
    for (const auto& p : m.parts) {
      if (p.kind != "surface" || p.key != surface) continue;
      if (!p.data.value("live", false)) {
        return ErrorResponse(MakeError(ErrorKind::kConflict, "server.static_surface",
                                       "a static surface owes no acknowledgement", surface));
      }
      if (p.state == "hydrated" || p.state == state) {
        return Json(200, {{"surfaceId", surface}, {"state", p.state}});
      }
      store::PartRecord moved = p;
      moved.state = state;
      if (auto s = store_.PutPart(m.id, moved); !s) return ErrorResponse(s.error());
      return Json(200, {{"surfaceId", surface}, {"state", state}});
    }
  }
  return ErrorResponse(MakeError(ErrorKind::kNotFound, "server.unknown_surface",
                                 "no surface with this id in the thread", surface));
}

HttpResponse Api::DeployTruth(const HttpRequest&) {
  ojson truth = options_.deploy_truth;
  auto s = hub_.stats();
  truth["turns"] = {{"started", s.started},
                    {"finished", s.finished},
                    {"failed", s.failed},
                    {"queued", s.queued},
                    {"active", s.active}};
  truth["runtimes"] = hub_.runtimes();
  // The engine's own word on its prefix cache (0 cached where it reports none: HARNESS.md says
  // which engine flag turns the report on).
  truth["engine"] = {{"steps", s.steps},
                     {"promptTokens", s.prompt_tokens},
                     {"cachedPromptTokens", s.cached_prompt_tokens},
                     {"reencodedSteps", s.reencoded_steps}};
  if (options_.refusals != nullptr) {
    ojson refused = ojson::object();
    for (const auto& [code, n] : options_.refusals->Snapshot()) refused[code] = n;
    truth["refused"] = std::move(refused);
  }
  if (options_.backoff != nullptr) {
    truth["credentialBackoff"] = {{"waitingSources", options_.backoff->Waiting()}};
  }
  return Json(200, truth);
}

HttpResponse Api::StartPersonSession(const HttpRequest& r) {
  auto body = ParseBody(r.body, /*allow_empty=*/true);
  if (!body) return ErrorResponse(body.error());
  const auto login = body->find("login");
  if (login != body->end() && !login->is_string()) {
    return ErrorResponse(
        MakeError(ErrorKind::kInvalid, "server.bad_request", "login must be a string"));
  }
  // A CORS origin the operator allowed is a client's page, never the person's.
  const bool same_user = r.peer_loopback && r.peer_uid && *r.peer_uid == ::geteuid();
  bool proved = false;
  if (options_.sessions != nullptr && r.own_origin) {
    if (login != body->end()) {
      const std::string source = CredentialBackoff::SourceOf(r);
      if (options_.backoff != nullptr) {
        if (const int64_t wait = options_.backoff->WaitMs(source); wait > 0) {
          if (options_.refusals != nullptr) options_.refusals->Count("server.slow_down");
          return ErrorResponse(MakeError(ErrorKind::kTooManyRequests, "server.slow_down",
                                         "too many wrong sign-in codes from here: try again in " +
                                             std::to_string((wait + 999) / 1000) + " s"));
        }
      }
      proved = options_.sessions->Redeem(login->get<std::string>());
      if (options_.backoff != nullptr) {
        proved ? options_.backoff->Succeed(source) : options_.backoff->Fail(source);
      }
      if (!proved) {
        if (options_.refusals != nullptr) options_.refusals->Count("server.wrong_code");
        return ErrorResponse(MakeError(
            ErrorKind::kForbidden, "server.no_person_proof",
            "this sign-in code is not valid: it expired, was used already, or was made for "
            "another server; run `affordance login-link` for a new one"));
      }
    } else {
      proved = same_user || r.plane == authority::Access::kPerson;
    }
  }
  if (!proved) {
    return ErrorResponse(MakeError(
        ErrorKind::kForbidden, "server.no_person_proof",
        "this browser could not be told apart from another user's program, so it may ask and "
        "read but not decide: run `affordance login-link` on the server's machine and open the "
        "link it prints"));
  }
  const std::string token = options_.sessions->Mint();
  return Json(201, {{"session",
                     {{"token", token},
                      {"plane", "person"},
                      {"expiresAt", options_.sessions->ExpiresAt(token)},
                      {"header", std::string(kPersonSessionHeader)}}}});
}

HttpResponse Api::File(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (options_.web_root.empty()) {
    return ErrorResponse(MakeError(ErrorKind::kNotFound, "server.no_web",
                                   "this server has no web UI bundle: it was built without "
                                   "the web tools (scripts/setup --only tools, then rebuild), or "
                                   "installed without share/affordance/web; pass --web DIR to "
                                   "serve a built bundle"));
  }
  if (!in) {  // named by what was asked, never by where the server keeps its files
    return ErrorResponse(MakeError(ErrorKind::kNotFound, "server.not_found", "no such file",
                                   std::filesystem::path(path).filename().string()));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  HttpResponse r;
  r.body = ss.str();
  auto ends = [&](std::string_view suffix) {
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  r.content_type = ends(".html")  ? "text/html; charset=utf-8"
                   : ends(".js")  ? "text/javascript; charset=utf-8"
                   : ends(".css") ? "text/css; charset=utf-8"
                   : ends(".svg") ? "image/svg+xml"
                   : ends(".png") ? "image/png"
                                  : "application/octet-stream";
  r.headers.push_back({"cache-control", "no-cache"});
  return r;
}

HttpResponse Api::WebIndex(const HttpRequest&) { return File(options_.web_root + "/index.html"); }

HttpResponse Api::WebAsset(const HttpRequest& r) {
  const std::string& file = r.params.at("file");
  if (file.empty() || file.front() == '.' || file.find('/') != std::string::npos ||
      file.find('\0') != std::string::npos) {
    return ErrorResponse(
        MakeError(ErrorKind::kNotFound, "server.not_found", "no such asset", file));
  }
  return File(options_.web_root + "/assets/" + file);
}

}  // namespace affordance::server
