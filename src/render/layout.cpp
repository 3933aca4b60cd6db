#include "render/layout.h"

#include "render/projection.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <unordered_set>

namespace affordance::render {
namespace {

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

Error PropError(const view::Node& e, const std::string& what) {
  return MakeError("render.invalid_prop", fmt::format("<{}> {}", e.type, what), e.path);
}

// A non-negative integer prop, or `fallback` when absent.
Result<int64_t> CountProp(const view::Node& e, const char* name, int64_t fallback) {
  auto it = e.props.find(name);
  if (it == e.props.end() || it->is_null()) return fallback;
  if (it->is_number_unsigned()) return static_cast<int64_t>(it->get<uint64_t>());
  if (it->is_number_integer() && it->get<int64_t>() >= 0) return it->get<int64_t>();
  if (it->is_number_float()) {
    const double d = it->get<double>();
    if (d >= 0 && d == static_cast<double>(static_cast<int64_t>(d))) return static_cast<int64_t>(d);
  }
  return PropError(e, fmt::format("{} must be a non-negative integer, got {}", name, it->dump()));
}

// A string-ish prop (strings; numbers formatted like JavaScript's String()); nullopt when absent.
Result<std::optional<std::string>> TextProp(const view::Node& e, const char* name) {
  auto it = e.props.find(name);
  if (it == e.props.end() || it->is_null()) return std::optional<std::string>();
  if (it->is_string()) return std::optional<std::string>(it->get<std::string>());
  if (it->is_number()) {
    nlohmann::ordered_json probe = {{"label", *it}};
    return std::optional<std::string>(LabelOf(probe).value_or("0"));
  }
  return PropError(e, fmt::format("{} must be a string or a number, got {}", name, it->dump()));
}

// The delay of a timer handler (Span::timer_ms): the `timeout` prop of onTimeout, the `interval`
// prop of onInterval, in whole milliseconds; -1 when missing, negative or not a finite number (the
// scheduler reports it), and for every other event.
int64_t TimerMs(const view::Node& e, const std::string& event) {
  const char* prop = event == "onTimeout"    ? "timeout"
                     : event == "onInterval" ? "interval"
                                             : nullptr;
  if (prop == nullptr) return -1;
  auto it = e.props.find(prop);
  if (it == e.props.end() || !it->is_number()) return -1;
  const double ms = it->get<double>();
  if (!(ms >= 0) || ms > 9e15) return -1;  // also NaN
  return static_cast<int64_t>(ms);
}

class Layouter {
 public:
  Layouter(const text::Tokenizer& tokenizer, const LayoutOptions& options)
      : tokenizer_(tokenizer), options_(options) {
    frames_.push_back(Frame{kUnbounded, false, &kNoPath});
  }

  Status Nodes(const std::vector<view::Node>& nodes, size_t first = 0) {
    size_t i = first;
    for (; i < nodes.size() && !Hidden(); ++i) {
      if (auto st = NodeAt(nodes[i]); !st.ok()) return st;
    }
    // A block hidden after a clip point still owes the outer-crop check (done once, in Finish,
    // so a container laid out twice for its marker does not walk its hidden rows twice).
    if (i < nodes.size())
      hidden_.push_back(HiddenRange{&nodes, i, frames_[clip_owners_.back()].path});
    return {};
  }

  Result<Block> Finish() && {
    for (const auto& h : AnyLiveBlockHasActions() ? hidden_ : std::vector<HiddenRange>{}) {
      for (size_t i = h.first; i < std::min(h.end, h.nodes->size()); ++i) {
        const view::Node& node = (*h.nodes)[i];
        if (node.kind == view::Node::Kind::kText) continue;  // most hidden nodes: rows
        if (auto st = CheckHiddenBlocks(node, *h.owner); !st.ok()) return st.error();
      }
    }
    if (options_.mode == LayoutOptions::Mode::kProjection) {
      if (auto st = Project(actions_, options_.callable, block_); !st.ok()) return st.error();
    }
    block_.clipped = block_.clipped || !clip_owners_.empty();
    return std::move(block_);
  }

 private:
  struct Frame {
    int64_t remaining;
    bool clipped;
    const std::string* path;  // the container that owns this budget (its Node outlives us)
  };
  static inline const std::string kNoPath;
  struct Snapshot {
    size_t tokens, spans, tools, actions, clips, hidden;
    std::vector<Frame> frames;
  };
  // Siblings nodes[first..] that a budget or scroll window hid; `owner` names that container.
  struct HiddenRange {
    const std::vector<view::Node>* nodes;
    size_t first;
    const std::string* owner;  // a container's path (its Node outlives the layout)
    size_t end = SIZE_MAX;     // exclusive; SIZE_MAX: to the end
  };

  bool Hidden() const { return frames_.back().clipped; }

  // Index of the outermost frame with the least room.
  size_t Owner() const {
    size_t owner = 0;
    for (size_t i = 1; i < frames_.size(); ++i) {
      if (frames_[i].remaining < frames_[owner].remaining) owner = i;
    }
    return owner;
  }

  // Accepts the `n` IDs just appended to block_.tokens, cutting them to the room left; returns how
  // many were kept.
  size_t Accept(size_t n) {
    const size_t owner = Owner();
    const int64_t room = frames_[owner].remaining;
    size_t kept = n;
    if (static_cast<int64_t>(n) > room) {
      kept = static_cast<size_t>(room);
      block_.tokens.resize(block_.tokens.size() - (n - kept));
      for (size_t i = owner; i < frames_.size(); ++i) frames_[i].clipped = true;
      clip_owners_.push_back(owner);
    }
    for (auto& f : frames_) {
      if (f.remaining != kUnbounded) f.remaining -= static_cast<int64_t>(kept);
    }
    return kept;
  }

  Status Run(std::string_view text) {
    if (text.empty() || Hidden()) return {};
    const size_t before = block_.tokens.size();
    if (auto st = AppendRun(tokenizer_, options_.cache, text, block_.tokens); !st.ok()) return st;
    Accept(block_.tokens.size() - before);
    return {};
  }

  Status NodeAt(const view::Node& node) {
    switch (node.kind) {
      case view::Node::Kind::kText:
        return Run(node.text);
      case view::Node::Kind::kBlock:
        return PlaceBlock(node);
      case view::Node::Kind::kElement:
        return ElementAt(node);
    }
    return {};
  }

  Status ElementAt(const view::Node& e) {
    const size_t span_index = block_.spans.size();
    block_.spans.push_back(Span{Span::Kind::kNode, Begin(), 0, e.path, e.type});
    const size_t outer_frames = frames_.size();
    const size_t clip_mark = clip_owners_.size();

    Status st;
    if (e.type == "box" || e.type == "list" || e.type == "scroll") {
      st = Container(e);
    } else if (e.type == "input" || e.type == "button") {
      st = Control(e);
    } else if (e.type == "token") {
      st = ControlToken(e);
    } else if (e.type == "ids") {
      st = Ids(e);
    } else {
      return MakeError("render.unknown_element",
                       fmt::format("unknown intrinsic element <{}>; expected box, list, scroll, "
                                   "input, button, token or ids",
                                   e.type),
                       e.path);
    }
    if (!st.ok()) return st;

    // By value: pushing action spans below may reallocate block_.spans.
    const uint32_t begin = block_.spans[span_index].begin;
    const uint32_t end = Begin();
    block_.spans[span_index].end = end;
    block_.spans[span_index].clipped = clip_owners_.size() > clip_mark;
    const bool cut_from_outside =
        std::any_of(clip_owners_.begin() + static_cast<ptrdiff_t>(clip_mark), clip_owners_.end(),
                    [&](size_t owner) { return owner < outer_frames; });
    if (cut_from_outside) return {};  // hidden or partly clipped: its actions are not declared
    for (const auto& handler : e.handlers) {
      const bool callable = IsModelCallable(handler.event);
      if (callable && options_.mode != LayoutOptions::Mode::kProjection) continue;
      Span action{Span::Kind::kAction, begin, end, e.path, e.type};
      action.event = handler.event;
      if (callable) {
        actions_.push_back(VisibleAction{&e, &handler, block_.spans.size()});
      } else {
        action.name = handler.event + ":" + e.path;
        action.handler = handler.id;
        action.timer_ms = TimerMs(e, handler.event);
      }
      block_.spans.push_back(std::move(action));
    }
    return {};
  }

  uint32_t Begin() const { return static_cast<uint32_t>(block_.tokens.size()); }

  Status NoChildren(const view::Node& e) {
    if (e.children.empty()) return {};
    return MakeError("render.invalid_children", fmt::format("<{}> takes no children", e.type),
                     e.path);
  }

  Status Container(const view::Node& e) {
    auto budget = CountProp(e, "budget", -1);
    if (!budget.ok()) return budget.error();
    auto offset = CountProp(e, "offset", 0);
    if (!offset.ok()) return offset.error();
    if (*offset != 0 && e.type != "scroll") return PropError(e, "offset applies to <scroll> only");
    auto marker = TextProp(e, "marker");
    if (!marker.ok()) return marker.error();
    const size_t first = static_cast<size_t>(std::min<int64_t>(*offset, e.children.size()));
    if (first > 0) hidden_.push_back(HiddenRange{&e.children.vec(), 0, &e.path, first});
    if (*budget < 0) return Nodes(e.children, first);

    frames_.push_back(Frame{*budget, false, &e.path});
    Snapshot before = Save();
    if (auto st = Nodes(e.children, first); !st.ok()) return st;
    const bool own_clip = frames_.back().clipped && !frames_[frames_.size() - 2].clipped;
    if (own_clip && marker->has_value() && !(*marker)->empty()) {
      std::vector<text::TokenId> marker_ids;
      if (auto st = AppendRun(tokenizer_, options_.cache, **marker, marker_ids); !st.ok())
        return st;
      Restore(before);
      const int64_t reserve = std::min<int64_t>(*budget, marker_ids.size());
      frames_.back().remaining = *budget - reserve;
      if (auto st = Nodes(e.children, first); !st.ok()) return st;
      // The reserved room belongs to the marker, whatever cut the children.
      frames_.back().remaining += reserve;
      frames_.back().clipped = false;
      block_.tokens.insert(block_.tokens.end(), marker_ids.begin(), marker_ids.end());
      Accept(marker_ids.size());
      frames_.back().clipped = true;
    }
    frames_.pop_back();
    return {};
  }

  Snapshot Save() const {
    return Snapshot{block_.tokens.size(),
                    block_.spans.size(),
                    block_.tools.size(),
                    actions_.size(),
                    clip_owners_.size(),
                    hidden_.size(),
                    frames_};
  }
  void Restore(const Snapshot& s) {
    block_.tokens.resize(s.tokens);
    block_.spans.resize(s.spans);
    block_.tools.resize(s.tools);
    actions_.resize(s.actions);
    clip_owners_.resize(s.clips);
    hidden_.resize(s.hidden);
    frames_ = s.frames;
  }

  Status Control(const view::Node& e) {
    auto label = TextProp(e, "label");
    if (!label.ok()) return label.error();
    std::string run;
    if (e.type == "input") {
      auto value = TextProp(e, "value");
      if (!value.ok()) return value.error();
      run = label->has_value() ? **label + ": " + value->value_or("") : value->value_or("");
    } else if (label->has_value()) {
      run = "[" + **label + "]";
    }
    if (auto st = Run(run); !st.ok()) return st;
    return Nodes(e.children);
  }

  Status ControlToken(const view::Node& e) {
    if (auto st = NoChildren(e); !st.ok()) return st;
    auto it = e.props.find("name");
    if (it == e.props.end() || !it->is_string()) return PropError(e, "needs a string `name`");
    if (Hidden()) return {};
    const std::string name = it->get<std::string>();
    auto id = tokenizer_.TokenIdOf(name);
    if (!id) {
      return MakeError("render.unknown_token",
                       fmt::format("this view's encoder has no token {}", name), e.path);
    }
    block_.tokens.push_back(*id);
    Accept(1);
    return {};
  }

  Status Ids(const view::Node& e) {
    if (auto st = NoChildren(e); !st.ok()) return st;
    auto it = e.props.find("value");
    if (it == e.props.end() || !it->is_array())
      return PropError(e, "needs `value`, an array of token IDs");
    const size_t before = block_.tokens.size();
    const auto vocab = static_cast<int64_t>(tokenizer_.VocabSize());
    for (const auto& v : *it) {
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= vocab) {
        block_.tokens.resize(before);
        return MakeError("render.invalid_token_id",
                         fmt::format("<ids> value {} is not a token ID of this encoder (0..{})",
                                     v.dump(), vocab - 1),
                         e.path);
      }
      block_.tokens.push_back(static_cast<text::TokenId>(v.get<int64_t>()));
    }
    Accept(block_.tokens.size() - before);
    return {};
  }

  static Status CropError(const Span& action, const std::string& owner_path) {
    return MakeError(
        "render.outer_crop",
        fmt::format("the budget or scroll window of {} would hide the projected action {}; move "
                    "that budget inside asChatTools so layout removes the action before projection",
                    owner_path.empty() ? "an outer container" : owner_path, action.name),
        action.path);
  }

  // A block that an outer budget or scroll offset hides entirely must not carry projected actions.
  static Status CheckHiddenBlocks(const view::Node& node, const std::string& owner_path) {
    if (node.kind == view::Node::Kind::kBlock) {
      const Block* b = BlockOf(node.block);
      if (b == nullptr)
        return MakeError("render.invalid_block", "a block node holds no laid-out tree");
      for (const auto& s : b->spans) {
        if (s.kind == Span::Kind::kAction && s.projected) return CropError(s, owner_path);
      }
    }
    for (const auto& child : node.children) {
      if (auto st = CheckHiddenBlocks(child, owner_path); !st.ok()) return st;
    }
    return {};
  }

  Status PlaceBlock(const view::Node& node) {
    const Block* b = BlockOf(node.block);
    if (b == nullptr)
      return MakeError("render.invalid_block", "a block node holds no laid-out tree");
    const uint32_t offset = Begin();
    block_.tokens.insert(block_.tokens.end(), b->tokens.begin(), b->tokens.end());
    const size_t clips = clip_owners_.size();
    const uint32_t kept = static_cast<uint32_t>(Accept(b->tokens.size()));
    for (const auto& s : b->spans) {
      const bool cut = s.end > kept || (s.begin >= kept && kept < b->tokens.size());
      if (cut && s.kind == Span::Kind::kAction && s.projected) {
        return CropError(s, *frames_[clip_owners_[clips]].path);
      }
      if (s.begin >= kept && kept < b->tokens.size()) continue;  // hidden by the crop
      Span rebased = s;
      rebased.begin += offset;
      rebased.end = offset + std::min(s.end, kept);
      rebased.clipped = s.clipped || cut;
      block_.spans.push_back(std::move(rebased));
    }
    for (const auto& tool : b->tools) {
      for (const auto& other : block_.tools) {
        if (other.name == tool.name) {
          return MakeError("render.duplicate_tool",
                           fmt::format("two asChatTools trees declare the tool {}", tool.name),
                           tool.path);
        }
      }
      block_.tools.push_back(tool);
    }
    if (b->clipped) block_.clipped = true;
    return {};
  }

  const text::Tokenizer& tokenizer_;
  const LayoutOptions& options_;
  Block block_;
  std::vector<Frame> frames_;
  std::vector<size_t> clip_owners_;  // for every cut: index of the frame whose budget made it
  std::vector<VisibleAction> actions_;
  std::vector<HiddenRange> hidden_;
};

}  // namespace

Result<Block> Layout(const std::vector<view::Node>& nodes, const text::Tokenizer& tokenizer,
                     const LayoutOptions& options) {
  Layouter layouter(tokenizer, options);
  if (auto st = layouter.Nodes(nodes); !st.ok()) return st.error();
  return std::move(layouter).Finish();
}

Result<LayoutOptions> ProjectionOptions(const nlohmann::ordered_json& options) {
  LayoutOptions out;
  out.mode = LayoutOptions::Mode::kProjection;
  if (options.is_null()) return out;
  if (!options.is_object()) {
    return MakeError("render.invalid_options", "asChatTools options must be an object",
                     options.dump());
  }
  for (const auto& [key, value] : options.items()) {
    if (key == "callable") {
      if (!value.is_boolean()) {
        return MakeError("render.invalid_options", "asChatTools option callable must be a boolean",
                         value.dump());
      }
      out.callable = value.get<bool>();
    } else {
      return MakeError(
          "render.invalid_options",
          fmt::format("unknown asChatTools option {}; the only option is callable", key));
    }
  }
  return out;
}

}  // namespace affordance::render
