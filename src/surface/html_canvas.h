// Static checks of the markup in an `Html(html, data, mounts)` canvas.
//
// The markup is tokenized the way an HTML tokenizer reads it (tags, attribute names and quoted
// or unquoted values, comments, character references), never by searching for keywords, so
// `<a title="onclick">` is fine while `<a/onclick=...>` is not. The canvas may not carry a
// second JavaScript runtime: no <script> (or <iframe>, <object>, <embed>, <frame>, <applet>)
// elements, no on* event-handler attributes, and no javascript:, vbscript: or data:text/html
// URLs in any attribute. srcdoc values are scanned as markup themselves.
//
// Nor may it load anything from another host (it would carry the data it shows there): no URL
// attribute (href, src, srcset, poster, ...), CSS `url()` / `image-set()` (in <style>, a style
// attribute or an SVG paint) may name a scheme other than data: or start with // (or \\), no
// @import, no <base> or <meta> element, and a {{placeholder}} in a URL only after its path has
// started ("/x/{{id}}", "?q={{q}}"). Character references and CSS escapes are decoded and letter
// case ignored, as a browser does. The page's Content-Security-Policy (server) is the second
// wall.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace affordance::surface {

struct HtmlProblem {
  std::string code;  // "runtime-script" | "runtime-handler" | "runtime-url" | "external-url"
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

// True when `url` (already decoded from markup) could load from a host other than the page's own:
// a scheme other than data:, a protocol-relative //host (or \\host), or a {{placeholder}} placed
// where it could choose the host or scheme.
bool IsExternalUrl(std::string_view url);

}  // namespace affordance::surface
