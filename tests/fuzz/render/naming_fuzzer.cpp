// Fuzzes tool naming (projection.h) with adversarial label sets built from the input bytes: long
// labels, exact duplicates, unlabeled targets, absurd event names, labels spelled like generated
// names (positions, digests, "-k" tails) and, in a second round, labels made from the names the
// first round produced. Naming must end (libFuzzer's -timeout catches a loop), and every name must
// be unique, match ^[a-zA-Z0-9_-]{1,64}$ and be reported on its span.
#include "render/projection.h"

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

using affordance::render::Block;
using affordance::render::Span;
using affordance::render::VisibleAction;
using affordance::view::Handler;
using affordance::view::Node;

struct Bytes {
  const uint8_t* p;
  size_t n;
  uint8_t Next() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
};

const char* kEvents[] = {"onClick", "onChange", "onSubmit", "onX y",
                         "onAbsurdlyLongEventNameThatFillsMostOfTheSixtyFourCharacterLimitXX"};

// One label: raw bytes, a long run of one character, a copy of an earlier label (optionally with
// a generated-looking tail), or a digest-shaped spelling.
std::string Label(Bytes& in, const std::vector<std::string>& earlier) {
  // Every byte is read in its own statement: operands of + are unsequenced, and seeds (such as
  // the label set of issue #17) must decode the same with every compiler.
  const uint8_t op = in.Next();
  switch (op % 6) {
    case 0: {
      std::string s;
      for (size_t len = in.Next() % 16; len > 0 && in.n > 0; --len) {
        s.push_back(static_cast<char>(in.Next()));
      }
      return s;
    }
    case 1: {
      const size_t len = 40 + in.Next() % 200;
      const char c = "zZ_-9 \xc3"[in.Next() % 7];
      return std::string(len, c);
    }
    case 2:
      if (!earlier.empty()) return earlier[in.Next() % earlier.size()];
      return "x";
    case 3: {
      std::string base =
          earlier.empty() ? std::string(48, 'z') : earlier[in.Next() % earlier.size()];
      if (base.size() > 56) base.resize(40 + in.Next() % 17);
      base += "_" + std::to_string(in.Next() % 12);
      if (op & 8) base += "-" + std::to_string(in.Next() % 5);
      return base;
    }
    case 4: {
      // Spelled like the cut name of a long label: z...z_<digest prefix>_<position>.
      std::string s(in.Next() % 64, 'z');
      const size_t digested = 40 + in.Next() % 200;
      const size_t keep = 2 + in.Next() % 7;
      s += "_" + affordance::render::LabelDigest(std::string(digested, 'z')).substr(0, keep);
      s += "_" + std::to_string(in.Next() % 8);
      return s;
    }
    default:
      return std::to_string(in.Next() % 10);  // spells an unlabeled target's position
  }
}

void Check(const Block& block, size_t expected) {
  if (block.tools.size() != expected) std::abort();
  std::set<std::string> names;
  for (const auto& tool : block.tools) {
    const std::string& s = tool.name;
    if (s.empty() || s.size() > affordance::render::kMaxToolNameLength) std::abort();
    for (unsigned char c : s) {
      if (!(std::isalnum(c) || c == '_' || c == '-')) std::abort();
    }
    if (!names.insert(s).second) std::abort();
  }
  for (const auto& span : block.spans) {
    if (names.count(span.name) == 0) std::abort();
  }
}

// Projects one element per label (nullopt = unlabeled) into `block`, after what it holds.
void ProjectAll(const std::vector<std::optional<std::string>>& labels, Bytes& in, Block& block) {
  std::vector<Node> elements(labels.size());
  std::vector<Handler> handlers(labels.size());
  std::vector<VisibleAction> actions;
  const size_t first = block.spans.size();
  for (size_t i = 0; i < labels.size(); ++i) {
    elements[i].kind = Node::Kind::kElement;
    elements[i].type = "button";
    elements[i].path = "App/button[" + std::to_string(i) + "]";
    if (labels[i]) elements[i].props["label"] = *labels[i];
    handlers[i].event = kEvents[in.Next() % 5];
    handlers[i].id = i + 1;
    Span span;
    span.kind = Span::Kind::kAction;
    block.spans.push_back(span);
    actions.push_back({&elements[i], &handlers[i], first + i});
  }
  const size_t before = block.tools.size();
  auto status = affordance::render::Project(actions, true, block);
  if (!status.ok()) std::abort();  // no args_schema props: nothing can fail
  Check(block, before + labels.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in{data, size};
  std::vector<std::string> earlier;
  std::vector<std::optional<std::string>> labels;
  while (in.n > 0 && labels.size() < 24) {
    if (in.Next() % 5 == 0) {
      labels.push_back(std::nullopt);
      continue;
    }
    std::string label = Label(in, earlier);
    earlier.push_back(label);
    labels.push_back(std::move(label));
  }
  Block block;
  ProjectAll(labels, in, block);
  // Second round, as a nested asChatTools tree's names are taken before an outer tree's: labels
  // spelled like the names generated so far, with and without their event stems.
  std::vector<std::optional<std::string>> echoes;
  for (const auto& tool : block.tools) {
    const size_t cut = tool.name.find("__");
    echoes.push_back(tool.name);
    if (cut != std::string::npos) echoes.push_back(tool.name.substr(cut + 2));
  }
  ProjectAll(echoes, in, block);
  return 0;
}
