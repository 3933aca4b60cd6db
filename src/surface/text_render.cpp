#include "surface/text_render.h"

#include "surface/internal/evaluate.h"
#include "surface/internal/text_blocks.h"
#include "surface/internal/text_table.h"
#include "text/display_width.h"

#include <algorithm>
#include <set>

namespace affordance::surface {
namespace {

using internal::Printable;
using internal::Wrap;
using text::DisplayWidth;
using text::FitWidth;
using text::PadLeft;
using text::PadRight;
using Lines = std::vector<std::string>;
using Statements = std::set<std::string>;

constexpr size_t kMinWidth = 8;
constexpr size_t kColumnGap = 2;
constexpr int kMaxDepth = 64;     // deeper elements print "…"
constexpr size_t kMinField = 12;  // a form field narrower than this goes below its label

size_t WidthOf(const Lines& lines) {
  size_t w = 0;
  for (const auto& l : lines) w = std::max(w, DisplayWidth(l));
  return w;
}

void Append(Lines& to, Lines from) {
  for (auto& l : from) to.push_back(std::move(l));
}

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

std::string RightTrim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

bool IsElement(const Json& v) {
  return v.is_object() && v.value("type", "") == "element" && v.contains("typeName");
}

class Renderer {
 public:
  Renderer(const ParseResult& program, const BoundRows& rows, const TextOptions& o)
      : scope_(program, &rows), rows_(rows), o_(o) {}

  // Any value in a child position: elements, text, lists of them, expressions producing them.
  Lines Node(const Json& node, size_t width) {
    if (width < 1) return {};
    if (node.is_object() && node.contains("k") && !IsElement(node)) {
      Statements touched;
      Json value = Evaluate(node, &touched);
      Statements saved = inherited_;
      inherited_.insert(touched.begin(), touched.end());
      Lines out = Node(value, width);
      inherited_ = std::move(saved);
      return out;
    }
    if (IsElement(node)) return Element(node, width);
    if (node.is_array()) {
      Lines out;
      for (const Json& item : node) Append(out, Node(item, width));
      return out;
    }
    if (node.is_string() || node.is_number()) return Paragraphs(internal::JsString(node), width);
    return {};
  }

 private:
  // `node` evaluated; the Query statements it read are added to *touched.
  Json Evaluate(const Json& node, Statements* touched) {
    scope_.ResetQueriesRead();
    Json v = scope_.Evaluate(node);
    if (touched != nullptr) {
      touched->insert(scope_.queries_read().begin(), scope_.queries_read().end());
    }
    return v;
  }

  // Prop `name` of element `el`, evaluated, and inside a literal array each item evaluated
  // (`[Col(...), ok ? Col(...) : null]`).
  Json Prop(const Json& el, const char* name, Statements* touched = nullptr) {
    auto props = el.find("props");
    if (props == el.end() || !props->is_object()) return nullptr;
    auto it = props->find(name);
    if (it == props->end()) return nullptr;
    if (!it->is_array()) return Evaluate(*it, touched);
    Json out = Json::array();
    for (const Json& item : *it) out.push_back(Evaluate(item, touched));
    return out;
  }

  // A text prop as written (paragraphs keep their newlines; Paragraphs makes them printable).
  std::string RawText(const Json& el, const char* name) {
    Json v = Prop(el, name);
    return v.is_string() || v.is_number() ? internal::JsString(v) : "";
  }
  // A text prop on one line, printable.
  std::string Text(const Json& el, const char* name) { return Printable(RawText(el, name)); }

  std::string Style(const char* sgr, const std::string& s) const {
    return o_.color && !s.empty() ? std::string("\033[") + sgr + "m" + s + "\033[0m" : s;
  }

  Lines Styled(const char* sgr, Lines lines) const {
    for (auto& l : lines) l = Style(sgr, l);
    return lines;
  }

  Lines Paragraphs(const std::string& text, size_t width) const {
    Lines out;
    size_t start = 0;
    while (start <= text.size()) {
      size_t nl = text.find('\n', start);
      Append(out,
             Wrap(Printable(text.substr(start, nl == std::string::npos ? nl : nl - start)), width));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    return out;
  }

  // Prop `name` of a container, each child rendered (arrays flattened, expressions evaluated);
  // what the expressions read counts for the tables among them.
  std::vector<Lines> Blocks(const Json& el, const char* name, size_t width) {
    Statements touched;
    Json children = Prop(el, name, &touched);
    Statements saved = inherited_;
    inherited_.insert(touched.begin(), touched.end());
    std::vector<Lines> blocks = Blocks(children, width);
    inherited_ = std::move(saved);
    return blocks;
  }

  std::vector<Lines> Blocks(const Json& children, size_t width) {
    std::vector<Lines> blocks;
    std::vector<const Json*> items;
    if (children.is_array()) {
      for (const Json& c : children) items.push_back(&c);
    } else {
      items.push_back(&children);
    }
    for (const Json* c : items) {
      if (c->is_array()) {
        for (auto& b : Blocks(*c, width)) blocks.push_back(std::move(b));
        continue;
      }
      Lines l = Node(*c, width);
      if (!l.empty()) blocks.push_back(std::move(l));
    }
    return blocks;
  }

  static Lines Column(std::vector<Lines> blocks, bool gap) {
    Lines out;
    for (size_t i = 0; i < blocks.size(); ++i) {
      if (i > 0 && gap) out.emplace_back();
      Append(out, std::move(blocks[i]));
    }
    return out;
  }

  Lines Element(const Json& el, size_t width) {
    if (depth_ >= kMaxDepth) return {"…"};
    ++depth_;
    Lines out = Dispatch(el.value("typeName", ""), el, width);
    --depth_;
    return out;
  }

  Lines Dispatch(const std::string& type, const Json& el, size_t width) {
    if (type == "Stack") return Stack(el, width);
    if (type == "Card") return Card(el, width);
    if (type == "CardHeader") return CardHeader(el, width);
    if (type == "TextContent") return TextContent(el, width);
    if (type == "Callout") return Callout(el, width);
    if (type == "Button") return {FitWidth(ButtonText(el), width)};
    if (type == "Table") return Table(el, width);
    if (type == "Col") return ColAlone(el, width);
    if (type == "Input") return {FitWidth(InputText(el, width), width)};
    if (type == "Select") return Select(el, width);
    if (type == "SelectItem") return Paragraphs(RawText(el, "label"), width);
    if (type == "FormControl") return FormControl(el, width);
    if (type == "Form") return Form(el, width);
    if (type == "Html") return Html(el, width);
    if (type == "HtmlMount") return Node(Prop(el, "child"), width);
    return Unknown(type, el, width);
  }

  Lines Stack(const Json& el, size_t width) {
    const std::string gap = Text(el, "gap");
    std::vector<Lines> blocks = Blocks(el, "children", width);
    if (Text(el, "direction") != "row" || blocks.size() < 2) return Column(blocks, gap != "s");
    const size_t space = gap == "s" ? 1 : gap == "l" ? 4 : kColumnGap;
    size_t total = 0, height = 0;
    for (const auto& b : blocks) {
      total += WidthOf(b) + (total > 0 ? space : 0);
      height = std::max(height, b.size());
    }
    if (total > width) return Column(blocks, gap != "s");
    Lines out(height);
    for (size_t i = 0; i < blocks.size(); ++i) {
      const size_t w = WidthOf(blocks[i]);
      for (size_t r = 0; r < height; ++r) {
        if (i > 0) out[r] += std::string(space, ' ');
        out[r] += PadRight(r < blocks[i].size() ? blocks[i][r] : "", w);
      }
    }
    for (auto& l : out) l = RightTrim(l);
    return out;
  }

  Lines Card(const Json& el, size_t width) {
    const size_t inner = width > 4 ? width - 4 : 1;
    Lines content = Column(Blocks(el, "children", inner), true);
    std::string title = Text(el, "title");
    size_t cw =
        std::min(inner, std::max(WidthOf(content), title.empty() ? 1 : DisplayWidth(title) + 2));
    if (!title.empty()) title = FitWidth(title, cw > 2 ? cw - 2 : 1);
    const size_t tw = DisplayWidth(title);
    Lines out;
    if (title.empty()) {
      out.push_back(Style("2", "╭" + Repeat("─", cw + 2) + "╮"));
    } else {
      out.push_back(Style("2", "╭─ ") + Style("1", title) +
                    Style("2", " " + Repeat("─", cw > tw ? cw - tw - 1 : 0) + "╮"));
    }
    for (const auto& l : content) {
      out.push_back(Style("2", "│") + " " + PadRight(l, cw) + " " + Style("2", "│"));
    }
    out.push_back(Style("2", "╰" + Repeat("─", cw + 2) + "╯"));
    return out;
  }

  Lines CardHeader(const Json& el, size_t width) {
    Lines out = Styled("1", Paragraphs(RawText(el, "title"), width));
    Append(out, Styled("2", Paragraphs(RawText(el, "subtitle"), width)));
    return out;
  }

  Lines TextContent(const Json& el, size_t width) {
    const std::string size = Text(el, "size");
    Lines lines = Paragraphs(RawText(el, "text"), width);
    return size == "large" ? Styled("1", lines) : size == "small" ? Styled("2", lines) : lines;
  }

  Lines Callout(const Json& el, size_t width) {
    const std::string variant = Text(el, "variant");
    const char* mark = variant == "success"   ? "✓"
                       : variant == "warning" ? "⚠"
                       : variant == "error"   ? "✗"
                                              : "ℹ";
    const char* color = variant == "success"   ? "1;32"
                        : variant == "warning" ? "1;33"
                        : variant == "error"   ? "1;31"
                                               : "1;36";
    Lines out;
    const size_t indent = 2, inner = width > indent ? width - indent : 1;
    Lines title = Paragraphs(RawText(el, "title"), inner);
    if (title.empty()) title.emplace_back();
    for (size_t i = 0; i < title.size(); ++i) {
      out.push_back(i == 0 ? Style(color, std::string(mark) + " " + title[i])
                           : "  " + Style(color, title[i]));
    }
    for (const auto& l : Paragraphs(RawText(el, "description"), inner)) out.push_back("  " + l);
    return out;
  }

  std::string ButtonText(const Json& el) {
    const std::string variant = Text(el, "variant");
    const std::string label = "[" + Text(el, "label") + "]";
    return variant == "primary"  ? Style("1", label)
           : variant == "danger" ? Style("31", label)
                                 : label;
  }

  // "[ value ]", padded like a field to 16 columns (fewer when the line is narrower).
  std::string InputText(const Json& el, size_t width) {
    Json value = Prop(el, "value");
    const bool empty = value.is_null() || value.is_structured() ||
                       (value.is_string() && value.get<std::string>().empty());
    std::string shown = empty ? Style("2", Text(el, "placeholder"))  // as a browser shows it
                              : Printable(internal::JsString(value));
    const size_t w = DisplayWidth(shown);
    const size_t pad = std::min<size_t>(16, width > 4 ? width - 4 : 0);
    return "[ " + shown + std::string(w < pad ? pad - w : 0, ' ') + " ]";
  }

  Lines Select(const Json& el, size_t width) {
    Json items = Prop(el, "items");
    Json value = Prop(el, "value");
    std::vector<std::pair<std::string, std::string>> options;  // value, label
    for (const Json& item : items.is_array() ? items : Json::array()) {
      if (!IsElement(item)) continue;
      options.emplace_back(Text(item, "value"), Text(item, "label"));
    }
    std::string current;
    for (const auto& [v, label] : options) {
      if (value.is_string() && v == value.get<std::string>()) current = label;
    }
    if (current.empty()) {
      std::string placeholder = Text(el, "placeholder");
      current = !placeholder.empty() ? Style("2", placeholder)
                : options.empty()    ? std::string()
                                     : options.front().second;
    }
    Lines out = {FitWidth("[ " + current + " ▾ ]", width)};
    std::string list;
    for (const auto& [v, label] : options) list += (list.empty() ? "" : " · ") + label;
    for (const auto& l : Wrap(list, width > 2 ? width - 2 : 1)) out.push_back("  " + Style("2", l));
    return out;
  }

  Lines FormControl(const Json& el, size_t width) {
    const std::string label = Text(el, "label");
    // Beside its label when the field fits there, else below it, indented.
    const size_t beside = DisplayWidth(label) + 2;
    if (beside + kMinField <= width) {
      Lines field = Node(Prop(el, "field"), width - beside);
      if (!field.empty() && WidthOf(field) + beside <= width) {
        Lines out;
        for (size_t i = 0; i < field.size(); ++i) {
          out.push_back((i == 0 ? label + "  " : std::string(beside, ' ')) + field[i]);
        }
        return out;
      }
    }
    Lines out = Paragraphs(label, width);
    for (auto& l : Node(Prop(el, "field"), width > 2 ? width - 2 : 1)) out.push_back("  " + l);
    return out;
  }

  Lines Form(const Json& el, size_t width) {
    Lines out = Column(Blocks(el, "fields", width), false);
    Append(out, Node(Prop(el, "submit"), width));
    return out;
  }

  Lines Html(const Json& el, size_t width) {
    std::vector<std::pair<std::string, Json>> mounts;
    Json list = Prop(el, "mounts");
    for (const Json& m : list.is_array() ? list : Json::array()) {
      if (IsElement(m)) mounts.emplace_back(Text(m, "name"), m);
    }
    Statements touched = inherited_;
    Json data = Prop(el, "data", &touched);
    Json markup = Prop(el, "html");
    Lines out;
    // As a table says why it has no rows: the canvas's data was not read.
    const std::string unavailable = Unavailable(touched);
    if (!unavailable.empty()) {
      Append(out, Wrap(Style("33", "⚠ data unavailable: " + unavailable), width));
    }
    std::set<std::string> placed;
    for (const auto& line :
         internal::HtmlLines(markup.is_string() ? markup.get<std::string>() : "", data)) {
      if (line.empty() || line[0] != internal::kMountMarker) {
        Append(out, Wrap(line, width));
        continue;
      }
      for (const auto& [name, m] : mounts) {
        if (name == line.substr(1) && placed.insert(name).second) Append(out, Node(m, width));
      }
    }
    for (const auto& [name, m] : mounts) {
      if (placed.insert(name).second) Append(out, Node(m, width));
    }
    return out;
  }

  Lines ColAlone(const Json& el, size_t width) {
    Json values = Prop(el, "values");
    const std::string format = Text(el, "format");
    std::string text = Text(el, "header") + ":";
    std::string sep = " ";
    for (const Json& v : values.is_array() ? values : Json::array()) {
      text += sep + internal::CellText(v, format);
      sep = ", ";
    }
    return Wrap(text, width);
  }

  // A component this renderer does not know (another library's): its name, its text-like props
  // as "key: value" (a stat's label and value, a key-value list), then its element children.
  Lines Unknown(const std::string& type, const Json& el, size_t width) {
    Lines out = {FitWidth(Style("2", type.empty() ? "?" : Printable(type)), width)};
    auto props = el.find("props");
    if (props == el.end() || !props->is_object() || width <= 2) return out;
    for (const auto& [key, raw] : props->items()) {
      Json value = Prop(el, key.c_str());
      const bool elements =
          IsElement(value) || (value.is_array() && !value.empty() &&
                               std::any_of(value.begin(), value.end(), IsElement));
      if (elements) {
        for (auto& l : Node(value, width - 2)) out.push_back("  " + l);
        continue;
      }
      std::string text;
      if (value.is_string() || value.is_number() || value.is_boolean())
        text = internal::JsString(value);
      if (value.is_array()) {
        for (const Json& v : value) text += (text.empty() ? "" : ", ") + internal::CellText(v, "");
      }
      if (text.empty()) continue;
      for (auto& l : internal::WrapHanging(Printable(key + ": " + text), width - 2, 2)) {
        out.push_back("  " + l);
      }
    }
    return out;
  }

  // Why the bindings `touched` could not give rows ("" when every one did), joined by "; ".
  std::string Unavailable(const Statements& touched) const {
    std::string why;
    for (const auto& statement : touched) {
      auto it = rows_.find(statement);
      if (it != rows_.end() && !it->second.error) continue;
      why += (why.empty() ? "" : "; ") + (it == rows_.end()
                                              ? "Query \"" + statement + "\" was not read"
                                              : Printable(*it->second.error));
    }
    return why;
  }

  // A table of Col elements. The bindings its columns read (and those of the expression that
  // made it) decide whether its rows are shown or why they are not.
  Lines Table(const Json& el, size_t width) {
    Statements touched = inherited_;
    Json columns = Prop(el, "columns", &touched);
    internal::TableModel model;
    std::vector<std::pair<Json, std::string>> values;  // per column: its values and format
    for (const Json& col : columns.is_array() ? columns : Json::array()) {
      if (!IsElement(col)) continue;
      internal::TableColumn c;
      c.header = Text(col, "header");
      values.emplace_back(Prop(col, "values", &touched), Text(col, "format"));
      model.columns.push_back(std::move(c));
      const Json& v = values.back().first;
      model.rows = std::max(model.rows, v.is_array() ? v.size() : 0);
    }
    model.unavailable = Unavailable(touched);
    for (const auto& statement : touched) {
      auto it = rows_.find(statement);
      if (it != rows_.end() && !it->second.error) {
        model.truncated = model.truncated || it->second.truncated;
      }
    }
    const size_t shown = std::min(model.rows, o_.max_rows);
    for (size_t i = 0; i < model.columns.size(); ++i) {
      const auto& [v, format] = values[i];
      bool numbers = false, others = false;
      for (size_t r = 0; r < (v.is_array() ? v.size() : 0); ++r) {
        numbers = numbers || v[r].is_number();
        others = others || !(v[r].is_null() || v[r].is_number());
        if (r < shown) model.columns[i].cells.push_back(internal::CellText(v[r], format));
      }
      model.columns[i].numeric = format == "number" || format == "currency" || (numbers && !others);
    }
    return internal::TableLines(model, width, o_.color, o_.max_rows);
  }

  internal::EvalScope scope_;
  const BoundRows& rows_;
  TextOptions o_;
  Statements inherited_;  // Query statements read by the expression that produced what is shown
  int depth_ = 0;
};

}  // namespace

std::string RenderText(const ParseResult& program, const BoundRows& rows,
                       const TextOptions& options) {
  TextOptions o = options;
  o.width = std::max(o.width, kMinWidth);
  Renderer r(program, rows, o);
  std::string out;
  for (const auto& line : r.Node(program.root->ToJson(), o.width)) {
    out += RightTrim(FitWidth(line, o.width)) + "\n";
  }
  return out;
}

}  // namespace affordance::surface
