// Static checks of the markup in an `Html(html, data, mounts)` canvas.
//
// The markup is tokenized the way an HTML tokenizer reads it (tags, attribute names and quoted
// or unquoted values, comments, character references), never by searching for keywords, so
// `<a title="onclick">` is fine while `<a/onclick=...>` is not. The canvas may not carry a
// second JavaScript runtime: no <script> (or <iframe>, <object>, <embed>, <frame>, <applet>)
// elements, no on* event-handler attributes, and no javascript:, vbscript: or data:text/html
// URLs in any attribute. srcdoc values are scanned as markup themselves.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace affordance::surface {

struct HtmlProblem {
  std::string code;  // "runtime-script" | "runtime-handler" | "runtime-url"
  std::string message;
};

struct HtmlScan {
  std::vector<HtmlProblem> problems;
  std::vector<std::string> mount_slots;  // values of data-mount attributes, in order
};

HtmlScan ScanHtml(std::string_view markup);

// True when `url` (an attribute value or a URL string, character references decoded the way a
// browser does) would run script when followed.
bool IsScriptUrl(std::string_view url);

}  // namespace affordance::surface
