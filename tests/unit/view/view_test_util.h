// Shared helpers for the view tests: loading test views and finding things in rendered trees.
#pragma once

#include "view/view.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace affordance::view::testing {

inline std::string DataPath(const std::string& name) {
  return std::string(AFFORDANCE_SOURCE_DIR) + "/tests/unit/view/data/" + name;
}

// Options for tests: a private transform cache under the build folder, the test lib root.
inline ViewOptions TestOptions() {
  ViewOptions o;
  o.cache_dir = std::string(AFFORDANCE_BINARY_DIR) + "/view-test-cache";
  o.lib_root = DataPath("lib");
  o.time_budget = std::chrono::milliseconds(5000);  // generous: tests also run under valgrind
  o.memory_limit = 16u << 20;
  return o;
}

// For the tests that hit the time budget on purpose.
inline ViewOptions ShortBudget() {
  ViewOptions o = TestOptions();
  o.time_budget = std::chrono::milliseconds(300);
  return o;
}

inline std::unique_ptr<View> MustLoad(const std::string& file, const std::string& entry,
                                      Encoder encoder = {}, ViewOptions options = TestOptions()) {
  auto view = View::Load(DataPath(file), entry, std::move(encoder), options);
  EXPECT_TRUE(view.ok()) << view.error().code << ": " << view.error().ToString();
  return view.ok() ? std::move(*view) : nullptr;
}

// All text runs in document order, concatenated.
inline void CollectText(const std::vector<Node>& nodes, std::string* out) {
  for (const Node& n : nodes) {
    if (n.kind == Node::Kind::kText) *out += n.text;
    CollectText(n.children, out);
  }
}
inline std::string Text(const std::vector<Node>& nodes) {
  std::string out;
  CollectText(nodes, &out);
  return out;
}

// The first element whose props.label is `label`.
inline const Node* FindLabel(const std::vector<Node>& nodes, const std::string& label) {
  for (const Node& n : nodes) {
    if (n.kind == Node::Kind::kElement && n.props.contains("label") && n.props["label"] == label) {
      return &n;
    }
    if (const Node* f = FindLabel(n.children, label)) return f;
  }
  return nullptr;
}

inline HandlerId HandlerOf(const std::vector<Node>& nodes, const std::string& label,
                           const std::string& event = "onClick") {
  const Node* n = FindLabel(nodes, label);
  if (!n) return 0;
  for (const Handler& h : n->handlers) {
    if (h.event == event) return h.id;
  }
  return 0;
}

// The first block node in `nodes` (at any depth), or nullptr.
inline const Node* FindBlock(const std::vector<Node>& nodes) {
  for (const Node& n : nodes) {
    if (n.kind == Node::Kind::kBlock) return &n;
    if (const Node* b = FindBlock(n.children)) return b;
  }
  return nullptr;
}

// The nodes a test hook put in the first block of `tree` (hooks in these tests make a block of
// the laid-out children as they are); empty when there is none.
inline const std::vector<Node>& BlockNodes(const std::vector<Node>& tree) {
  static const std::vector<Node> kNone;
  const Node* b = FindBlock(tree);
  return b == nullptr ? kNone : *static_cast<const std::vector<Node>*>(b->block.get());
}

}  // namespace affordance::view::testing
