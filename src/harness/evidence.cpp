#include "harness/evidence.h"

#include <algorithm>
#include <utility>

namespace affordance::harness {

int64_t RefOrdinal(std::string_view ref) {
  if (ref.size() < 2 || ref.size() > 7 || ref[0] != 'r' || ref[1] == '0') return 0;
  int64_t n = 0;
  for (char c : ref.substr(1)) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + (c - '0');
  }
  return n;
}

std::optional<Reference> ReferenceOf(const store::PartRecord& part) {
  if (part.kind != "tool" || !part.data.is_object()) return std::nullopt;
  const auto& d = part.data;
  if (!d.contains("ref") || !d["ref"].is_string()) return std::nullopt;
  Reference r;
  r.ref = d["ref"].get<std::string>();
  r.tool_call_id = part.key;
  r.tool_name = d.value("toolName", "");
  r.status = d.value("status", "");
  r.truth = part.state;
  r.data_state = d.value("dataState", "");
  r.connector = d.value("connector", "");
  if (d.contains("syncedAt") && d["syncedAt"].is_number_integer()) {
    r.synced_at = d["syncedAt"].get<int64_t>();
  }
  if (d.contains("rows") && d["rows"].is_number_integer()) r.rows = d["rows"].get<int64_t>();
  r.error_code = d.value("errorCode", "");
  r.write = d.contains("approvalId");
  return r;
}

std::map<std::string, Reference> ReferencesOf(const std::vector<store::MessageRecord>& messages) {
  std::map<std::string, Reference> out;
  for (const auto& m : messages) {
    for (const auto& p : m.parts) {
      if (auto r = ReferenceOf(p)) out[r->ref] = std::move(*r);
    }
  }
  return out;
}

std::string_view CitationClassName(CitationClass c) {
  switch (c) {
    case CitationClass::kSource:
      return "source";
    case CitationClass::kEffect:
      return "effect";
    case CitationClass::kUnresolved:
      return "unresolved";
    case CitationClass::kInvalid:
      return "invalid";
  }
  return "invalid";
}

std::string_view ClaimClassName(ClaimClass c) {
  switch (c) {
    case ClaimClass::kSource:
      return "source";
    case ClaimClass::kEffect:
      return "effect";
    case ClaimClass::kUnresolved:
      return "unresolved";
    case ClaimClass::kInference:
      return "inference";
  }
  return "inference";
}

namespace {

// The class of a cited result, and why it is not evidence when it is not.
std::pair<CitationClass, std::string> ClassOf(const Reference& r) {
  using C = CitationClass;
  const bool available = r.status == "output-available";
  if (r.write) {
    if (available && (r.truth == "verified" || r.truth == "executed")) return {C::kEffect, ""};
    if (r.status == "approval-requested" || r.truth == "persisted") {
      return {C::kUnresolved, "the write awaits a person's decision: nothing has run"};
    }
    if (r.truth == "expired") {
      return {C::kUnresolved, "the write expired before a person decided: nothing ran"};
    }
    if (r.status == "output-denied" || r.truth == "denied") {
      return {C::kUnresolved, "the write was denied: nothing ran"};
    }
    if (r.truth == "refused") return {C::kUnresolved, "the write was refused before it ran"};
    if (r.truth == "execution_outcome_unknown") {
      return {C::kUnresolved, "whether the write took effect is not known"};
    }
    if (r.truth == "approved") return {C::kUnresolved, "the write is approved but has not run"};
    return {C::kUnresolved, "the write did not complete (" + r.status + ")"};
  }
  if (available) {
    if (!r.connector.empty() && !r.rows) {
      return {C::kUnresolved, "the request matched no operation: it served no data"};
    }
    if (r.data_state == "partial") {
      return {C::kUnresolved,
              "the read is partial: some of its reads failed, so items may be missing"};
    }
    return {C::kSource, ""};
  }
  if (r.status == "not-run") return {C::kUnresolved, "the call never ran"};
  if (r.status == "cancelled") return {C::kUnresolved, "the call was cancelled"};
  if (r.status == "interrupted") return {C::kUnresolved, "the call was interrupted"};
  if (r.status == "output-error" || r.status == "input-error") {
    return {C::kUnresolved,
            "the call failed" + (r.error_code.empty() ? std::string() : ": " + r.error_code)};
  }
  return {C::kUnresolved, "the call has no result (" + r.status + ")"};
}

bool IsWordByte(unsigned char c) { return std::isalnum(c) != 0 || c >= 0x80; }

bool HasWords(std::string_view s) { return std::any_of(s.begin(), s.end(), IsWordByte); }

std::string_view Trim(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

bool ClosingPunctuation(char c) {
  return c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == ')';
}

// The class a claim takes from its citations: the weakest.
ClaimClass ClassOfClaim(const std::vector<std::string>& classes) {
  bool effect = false;
  for (const auto& c : classes) {
    if (c == "unresolved" || c == "invalid") return ClaimClass::kUnresolved;
    if (c == "effect") effect = true;
  }
  return effect ? ClaimClass::kEffect : ClaimClass::kSource;
}

struct Cited {
  size_t from = 0, to = 0;
  const nlohmann::json* refs = nullptr;
};

// The part's citations that really sit where they say, in order.
std::vector<Cited> Placed(std::string_view text, const nlohmann::json& citations) {
  std::vector<Cited> out;
  if (!citations.is_array()) return out;
  for (const auto& c : citations) {
    if (!c.is_object() || !c.contains("offset") || !c["offset"].is_number_integer() ||
        !c.contains("citedText") || !c["citedText"].is_string() || !c.contains("refs") ||
        !c["refs"].is_array()) {
      continue;
    }
    const int64_t offset = c["offset"].get<int64_t>();
    const auto& spelling = c["citedText"].get_ref<const std::string&>();
    if (offset < 0 || static_cast<size_t>(offset) + spelling.size() > text.size() ||
        text.substr(static_cast<size_t>(offset), spelling.size()) != spelling) {
      continue;
    }
    out.push_back(
        {static_cast<size_t>(offset), static_cast<size_t>(offset) + spelling.size(), &c["refs"]});
  }
  std::sort(out.begin(), out.end(), [](const Cited& a, const Cited& b) { return a.from < b.from; });
  std::vector<Cited> kept;  // overlapping entries cannot both be right: the first stays
  for (const auto& c : out) {
    if (kept.empty() || c.from >= kept.back().to) kept.push_back(c);
  }
  return kept;
}

}  // namespace

nlohmann::json ResolveCitation(const std::string& ref, const Reference* found) {
  nlohmann::json j = {{"ref", ref}};
  if (found == nullptr) {
    j["class"] = CitationClassName(CitationClass::kInvalid);
    j["reason"] = ref + " names no tool result of this thread";
    return j;
  }
  auto [cls, reason] = ClassOf(*found);
  j["class"] = CitationClassName(cls);
  if (!reason.empty()) j["reason"] = reason;
  j["toolCallId"] = found->tool_call_id;
  j["toolName"] = found->tool_name;
  j["status"] = found->status;
  j["truth"] = found->truth;
  if (!found->data_state.empty()) j["dataState"] = found->data_state;
  if (!found->connector.empty()) j["connector"] = found->connector;
  if (found->synced_at > 0) j["syncedAt"] = found->synced_at;
  if (found->rows) j["rows"] = *found->rows;
  if (!found->error_code.empty()) j["errorCode"] = found->error_code;
  return j;
}

nlohmann::json Claim::ToJson() const {
  nlohmann::json j = {{"class", ClaimClassName(cls)}, {"text", text}, {"refs", refs}};
  if (!invalid.empty()) j["invalid"] = invalid;
  return j;
}

std::vector<Claim> ClaimsOf(std::string_view text, const nlohmann::json& citations) {
  // What a run of citations names: its references, each one's class, the invalid ones.
  struct Cites {
    std::vector<std::string> refs, classes, invalid;
    bool empty() const { return refs.empty(); }
  };
  std::vector<Claim> claims;
  const std::vector<Cited> cited = Placed(text, citations);
  Cites carried;  // citations that opened a line, waiting for the prose after them
  auto add = [&](size_t from, size_t to, Cites cites) {
    std::string_view prose = Trim(text.substr(from, to - from));
    if (!HasWords(prose) && cites.empty()) return;
    Claim c;
    c.text = std::string(prose);
    c.cls = cites.empty() ? ClaimClass::kInference : ClassOfClaim(cites.classes);
    c.refs = std::move(cites.refs);
    c.invalid = std::move(cites.invalid);
    claims.push_back(std::move(c));
  };
  // Uncited prose from `from` to `to`: one inference claim per line; carried citations go to the
  // first line with words.
  auto uncited = [&](size_t from, size_t to) {
    while (from < to) {
      size_t nl = text.find('\n', from);
      size_t end = nl == std::string_view::npos || nl > to ? to : nl;
      const bool takes = !carried.empty() && HasWords(text.substr(from, end - from));
      add(from, end, takes ? std::exchange(carried, {}) : Cites{});
      from = end + 1;
    }
  };
  size_t pos = 0;
  for (size_t i = 0; i < cited.size();) {
    // The claim's prose: from the start of the citation's line (or the previous claim's end).
    size_t line = text.rfind('\n', cited[i].from == 0 ? 0 : cited[i].from - 1);
    size_t start =
        line == std::string_view::npos || line < pos || cited[i].from == 0 ? pos : line + 1;
    if (start > pos) uncited(pos, start - 1);
    // Adjacent citations ("[r1][r3]", "[r1], [r3]") belong to one claim.
    size_t j = i + 1;
    size_t end = cited[i].to;
    while (j < cited.size() && text.substr(end, cited[j].from - end).find_first_not_of(" \t,") ==
                                   std::string_view::npos) {
      end = cited[j].to;
      ++j;
    }
    Cites cites = std::exchange(carried, {});
    for (size_t k = i; k < j; ++k) {
      for (const auto& r : *cited[k].refs) {
        if (!r.is_object()) continue;
        const std::string ref = r.value("ref", "");
        const std::string cls = r.value("class", "invalid");
        if (std::find(cites.refs.begin(), cites.refs.end(), ref) == cites.refs.end()) {
          cites.refs.push_back(ref);
        }
        cites.classes.push_back(cls);
        if (cls == "invalid") cites.invalid.push_back(ref);
      }
    }
    if (!HasWords(text.substr(start, cited[i].from - start))) {
      carried = std::move(cites);  // the citation opens its line: it cites what follows it
    } else {
      while (end < text.size() && ClosingPunctuation(text[end])) ++end;
      add(start, end, std::move(cites));
    }
    pos = end;
    i = j;
  }
  if (pos < text.size()) uncited(pos, text.size());
  // Citations with no prose after them on their line or later: a claim of their own.
  if (!carried.empty()) add(pos, pos, std::move(carried));
  return claims;
}

namespace {

// UTF-16 code units of the first `bytes` bytes of UTF-8 text (as a JavaScript string counts them;
// an ill-formed byte becomes one U+FFFD).
int64_t Utf16Units(std::string_view text, size_t bytes) {
  int64_t units = 0;
  for (size_t i = 0; i < bytes && i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) == 0x80) continue;
    units += c >= 0xF0 && c <= 0xF4 ? 2 : 1;
  }
  return units;
}

}  // namespace

nlohmann::json AiSdkCitations(std::string_view text, const nlohmann::json& citations) {
  nlohmann::json out = nlohmann::json::array();
  for (const Cited& c : Placed(text, citations)) {
    const int64_t start = Utf16Units(text, c.from);
    const int64_t end = start + Utf16Units(text.substr(c.from), c.to - c.from);
    for (const auto& facts : *c.refs) {
      if (!facts.is_object()) continue;
      const std::string ref = facts.value("ref", "");
      std::string title = facts.value("toolName", "");
      if (facts.contains("connector")) title += " · " + facts.value("connector", "");
      if (title.empty()) title = "no such tool result";
      out.push_back({{"source",
                      {{"type", "source"},
                       {"sourceType", "document"},
                       {"id", ref},
                       {"mediaType", "application/json"},
                       {"title", title},
                       {"providerMetadata", {{"affordance", facts}}}}},
                     {"startIndex", start},
                     {"endIndex", end},
                     {"citedText", std::string(text.substr(c.from, c.to - c.from))}});
    }
  }
  return out;
}

}  // namespace affordance::harness
