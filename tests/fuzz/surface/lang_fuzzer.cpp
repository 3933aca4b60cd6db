// Fuzzes src/surface. The first byte picks the chunk size for the streaming parser and the split
// point of an edit; the rest is the program. Checked: nothing crashes, hangs or exhausts memory,
// and every ParseResult serializes.
#include "surface/edit.h"
#include "surface/html_canvas.h"
#include "surface/semantic.h"
#include "surface/stream.h"
#include "surface/validate.h"

#include <cstdint>
#include <string_view>

using namespace affordance::surface;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 64;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const Library& lib = Library::Default();

  ParseResult batch = Parse(text, lib);
  (void)batch.ToJson().dump(-1, ' ', false, Json::error_handler_t::replace);

  StreamParser stream(lib);
  for (size_t i = 0; i < text.size(); i += chunk) stream.Push(text.substr(i, chunk));
  (void)stream.Result().ToJson().dump(-1, ' ', false, Json::error_handler_t::replace);

  const size_t cut = text.empty() ? 0 : (data[0] * 7919u) % text.size();
  (void)MergeProgram(text.substr(0, cut), text.substr(cut));

  ValidationOptions options{std::vector<std::string>{"list", "save"}};
  (void)ValidateProgram(text, lib, options);
  // The binding checks and binding extraction over the same tree, with evidence rows whose values
  // may equal the program's literals.
  static const std::vector<QueryHandle> handles = {
      {"list", "cal", "list", "cal:ics", {"id", "summary"}, false},
      {"save", "cal", "save", "cal:ics", {}, true},
      {"deals", "crm", "deals", "crm:sqlite", {}, false}};
  std::vector<Evidence> evidence(2);
  evidence[0].connector = "cal";
  evidence[0].handle = "list";
  evidence[0].rows = {{{"id", "1"}, {"summary", "a"}}};
  evidence[0].this_turn = true;
  evidence[1].connector = "crm";
  evidence[1].rows = {{{"name", "b"}, {"amount", 1}}};
  evidence[1].this_turn = true;
  (void)CheckBindings(batch, handles, evidence);
  (void)BindingsOf(batch, handles, evidence)
      .ToJson()
      .dump(-1, ' ', false, Json::error_handler_t::replace);
  (void)ScanHtml(text);
  (void)Library::FromJson(text);
  return 0;
}
