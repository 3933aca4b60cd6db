// Pratt expression parser: a transcription of lang-core's parseExpression() with a depth bound.
#include "surface/syntax.h"

#include <array>
#include <memory>
#include <new>

namespace affordance::surface {
namespace {

constexpr int kTernary = 1, kOr = 2, kAnd = 3, kEq = 4, kCmp = 5, kAdd = 6, kMul = 7, kUnary = 8,
              kMember = 9;

int InfixPrecedence(Tok t) {
  switch (t) {
    case Tok::kQuestion:
      return kTernary;
    case Tok::kOr:
      return kOr;
    case Tok::kAnd:
      return kAnd;
    case Tok::kEqEq:
    case Tok::kNotEq:
      return kEq;
    case Tok::kGreater:
    case Tok::kLess:
    case Tok::kGreaterEq:
    case Tok::kLessEq:
      return kCmp;
    case Tok::kPlus:
    case Tok::kMinus:
      return kAdd;
    case Tok::kStar:
    case Tok::kSlash:
    case Tok::kPercent:
      return kMul;
    case Tok::kDot:
    case Tok::kLBrack:
      return kMember;
    default:
      return 0;
  }
}

const char* BinaryOperator(Tok t) {
  switch (t) {
    case Tok::kPlus:
      return "+";
    case Tok::kMinus:
      return "-";
    case Tok::kStar:
      return "*";
    case Tok::kSlash:
      return "/";
    case Tok::kPercent:
      return "%";
    case Tok::kEqEq:
      return "==";
    case Tok::kNotEq:
      return "!=";
    case Tok::kGreater:
      return ">";
    case Tok::kLess:
      return "<";
    case Tok::kGreaterEq:
      return ">=";
    case Tok::kLessEq:
      return "<=";
    case Tok::kAnd:
      return "&&";
    case Tok::kOr:
      return "||";
    default:
      return nullptr;
  }
}

Node Leaf(NodeKind kind, std::string_view text = {}) {
  Node n;
  n.kind = kind;
  n.text = text;
  return n;
}

class Pratt {
 public:
  Pratt(std::span<const Token> tokens, Arena& arena, std::vector<Node>& stack,
        std::vector<std::string_view>& keys)
      : tokens_(tokens), arena_(arena), stack_(stack), keys_(keys) {
    stack_.clear();
    keys_.clear();
  }

  ParsedExpression Run() {
    ParsedExpression out;
    out.node = Expr(0);
    out.consumed = pos_ < tokens_.size() ? pos_ : tokens_.size();
    out.too_deep = too_deep_;
    return out;
  }

 private:
  const Token& Cur() const { return pos_ < tokens_.size() ? tokens_[pos_] : eof_; }
  Tok Peek(size_t ahead) const {
    return pos_ + ahead < tokens_.size() ? tokens_[pos_ + ahead].t : Tok::kEof;
  }
  void Eat(Tok t) {
    if (Cur().t == t) pos_++;
  }

  // The children collected on the stack since `base`, moved into one arena array.
  std::span<const Node> Commit(size_t base) {
    const size_t count = stack_.size() - base;
    if (count == 0) return {};
    Node* kids = arena_.AllocateArray<Node>(count);
    std::uninitialized_copy(stack_.begin() + static_cast<ptrdiff_t>(base), stack_.end(), kids);
    stack_.resize(base);
    return {kids, count};
  }
  std::span<const std::string_view> CommitKeys(size_t base) {
    const size_t count = keys_.size() - base;
    if (count == 0) return {};
    std::string_view* keys = arena_.AllocateArray<std::string_view>(count);
    std::uninitialized_copy(keys_.begin() + static_cast<ptrdiff_t>(base), keys_.end(), keys);
    keys_.resize(base);
    return {keys, count};
  }
  template <class... K>
  std::span<const Node> Kids(const K&... kids) {
    Node* out = arena_.AllocateArray<Node>(sizeof...(K));
    size_t i = 0;
    ((new (&out[i++]) Node(kids)), ...);
    return {out, sizeof...(K)};
  }

  // Sets the node's height; a tree taller than kMaxTreeHeight ends the statement (reported).
  Node Seal(Node n) {
    uint32_t h = 0;
    for (const Node& k : n.kids) h = k.height > h ? k.height : h;
    n.height = h + 1;
    if (n.height > kMaxTreeHeight) {
      too_deep_ = true;
      pos_ = tokens_.size();
    }
    return n;
  }

  Node Expr(int min_prec) {
    if (depth_ >= kMaxExpressionDepth) {
      // Too deep: give up on the rest of the statement (reported by the caller).
      too_deep_ = true;
      pos_ = tokens_.size();
      return Leaf(NodeKind::kNull);
    }
    ++depth_;
    Node left = Prefix();
    while (InfixPrecedence(Cur().t) > min_prec) left = Infix(left);
    --depth_;
    return left;
  }

  // A field or key name from the token after `.` or the key position of an object literal.
  std::string_view Name(const Token& k) {
    if (k.t == Tok::kIdent || k.t == Tok::kType || k.t == Tok::kStr) return k.text;
    if (k.t == Tok::kNum) return arena_.Copy(JsNumberString(k.num));
    if (k.t == Tok::kStateVar) return k.text.substr(1);
    return "?";
  }

  Node Prefix() {
    const Token& tok = Cur();
    switch (tok.t) {
      case Tok::kStr:
        pos_++;
        return Leaf(NodeKind::kStr, tok.text);
      case Tok::kNum: {
        pos_++;
        Node n = Leaf(NodeKind::kNum);
        n.num = tok.num;
        return n;
      }
      case Tok::kTrue:
      case Tok::kFalse: {
        pos_++;
        Node n = Leaf(NodeKind::kBool);
        n.boolean = tok.t == Tok::kTrue;
        return n;
      }
      case Tok::kNull:
        pos_++;
        return Leaf(NodeKind::kNull);
      case Tok::kLBrack:
        return Array();
      case Tok::kLBrace:
        return Object();
      case Tok::kStateVar: {
        const std::string_view name = tok.text;
        pos_++;
        if (Cur().t == Tok::kEquals) {
          pos_++;
          Node n = Leaf(NodeKind::kAssign, name);
          n.kids = Kids(Expr(0));
          return Seal(n);
        }
        return Leaf(NodeKind::kStateRef, name);
      }
      case Tok::kType:
        if (Peek(1) == Tok::kLParen && (!IsBuiltin(tok.text) || tok.text == "Action")) {
          return Call();
        }
        pos_++;
        return Leaf(NodeKind::kRef, tok.text);
      case Tok::kBuiltinCall:
        if (Peek(1) == Tok::kLParen) return Call();
        pos_++;
        return Leaf(NodeKind::kRef, tok.text);
      case Tok::kIdent:
        pos_++;
        return Leaf(NodeKind::kRef, tok.text);
      case Tok::kNot:
      case Tok::kMinus: {
        pos_++;
        Node n = Leaf(NodeKind::kUnaryOp, tok.t == Tok::kNot ? "!" : "-");
        n.kids = Kids(Expr(kUnary));
        return Seal(n);
      }
      case Tok::kLParen: {
        pos_++;
        Node inner = Expr(0);
        Eat(Tok::kRParen);
        return inner;
      }
      default:
        pos_++;
        return Leaf(NodeKind::kNull);
    }
  }

  Node Infix(const Node& left) {
    const Tok t = Cur().t;
    if (const char* op = BinaryOperator(t)) {
      pos_++;
      Node n = Leaf(NodeKind::kBinOp, op);
      const Node right = Expr(InfixPrecedence(t));
      n.kids = Kids(left, right);
      return Seal(n);
    }
    if (t == Tok::kQuestion) {
      pos_++;
      Node n = Leaf(NodeKind::kTernary);
      const Node then = Expr(0);
      Eat(Tok::kColon);
      const Node otherwise = Expr(0);
      n.kids = Kids(left, then, otherwise);
      return Seal(n);
    }
    if (t == Tok::kDot) {
      pos_++;
      Node n = Leaf(NodeKind::kMember, Name(Cur()));
      pos_++;
      n.kids = Kids(left);
      return Seal(n);
    }
    if (t == Tok::kLBrack) {
      pos_++;
      Node n = Leaf(NodeKind::kIndex);
      const Node index = Expr(0);
      Eat(Tok::kRBrack);
      n.kids = Kids(left, index);
      return Seal(n);
    }
    return left;
  }

  Node Call() {
    Node n = Leaf(NodeKind::kComp, Cur().text);
    pos_++;
    Eat(Tok::kLParen);
    const size_t base = stack_.size();
    while (Cur().t != Tok::kRParen && Cur().t != Tok::kEof) {
      const Node arg = Expr(0);
      stack_.push_back(arg);
      if (Cur().t == Tok::kComma) pos_++;
    }
    Eat(Tok::kRParen);
    n.kids = Commit(base);
    return Seal(n);
  }

  Node Array() {
    pos_++;
    Node n = Leaf(NodeKind::kArr);
    const size_t base = stack_.size();
    while (Cur().t != Tok::kRBrack && Cur().t != Tok::kEof) {
      const Node element = Expr(0);
      stack_.push_back(element);
      if (Cur().t == Tok::kComma) pos_++;
    }
    Eat(Tok::kRBrack);
    n.kids = Commit(base);
    return Seal(n);
  }

  Node Object() {
    pos_++;
    Node n = Leaf(NodeKind::kObj);
    const size_t base = stack_.size(), key_base = keys_.size();
    while (Cur().t != Tok::kRBrace && Cur().t != Tok::kEof) {
      keys_.push_back(Name(Cur()));
      pos_++;
      Eat(Tok::kColon);
      const Node value = Expr(0);
      stack_.push_back(value);
      if (Cur().t == Tok::kComma) pos_++;
    }
    Eat(Tok::kRBrace);
    n.keys = CommitKeys(key_base);
    n.kids = Commit(base);
    return Seal(n);
  }

  std::span<const Token> tokens_;
  Arena& arena_;
  const Token eof_{};
  size_t pos_ = 0;
  int depth_ = 0;
  bool too_deep_ = false;
  // Children (and object keys) of the composite nodes being read, innermost last.
  std::vector<Node>& stack_;
  std::vector<std::string_view>& keys_;
};

}  // namespace

ParsedExpression ParseExpression(std::span<const Token> tokens, Arena& arena) {
  // Scratch stacks reused by every statement parsed on this thread (the parser never nests).
  thread_local std::vector<Node> stack;
  thread_local std::vector<std::string_view> keys;
  ParsedExpression out = Pratt(tokens, arena, stack, keys).Run();
  if (stack.capacity() > (size_t{1} << 16)) std::vector<Node>().swap(stack);  // a huge literal
  if (keys.capacity() > (size_t{1} << 16)) std::vector<std::string_view>().swap(keys);
  return out;
}

bool IsBuiltin(std::string_view name) {
  // Called for every call and component name: compare only the names of the same length.
  switch (name.size()) {
    case 3:
      return name == "Sum" || name == "Avg" || name == "Min" || name == "Max" || name == "Abs" ||
             name == "Run" || name == "Set";
    case 4:
      return name == "Last" || name == "Sort" || name == "Ceil" || name == "Each";
    case 5:
      return name == "Count" || name == "First" || name == "Round" || name == "Floor" ||
             name == "Reset";
    case 6:
      return name == "Filter" || name == "Action";
    case 7:
      return name == "OpenUrl";
    case 11:
      return name == "ToAssistant";
    default:
      return false;
  }
}

bool IsReservedCall(std::string_view name) { return name == "Query" || name == "Mutation"; }

}  // namespace affordance::surface
