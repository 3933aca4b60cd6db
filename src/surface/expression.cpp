// Pratt expression parser: a transcription of lang-core's parseExpression() with a depth bound.
#include "surface/syntax.h"

#include <array>

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
  n.text.assign(text);
  return n;
}

class Pratt {
 public:
  explicit Pratt(const std::vector<Token>& tokens) : tokens_(tokens) {}

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
    while (InfixPrecedence(Cur().t) > min_prec) left = Infix(std::move(left));
    --depth_;
    return left;
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
          n.kids.push_back(Expr(0));
          return Seal(std::move(n));
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
        n.kids.push_back(Expr(kUnary));
        return Seal(std::move(n));
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

  Node Infix(Node left) {
    const Tok t = Cur().t;
    if (const char* op = BinaryOperator(t)) {
      pos_++;
      Node n = Leaf(NodeKind::kBinOp, op);
      n.kids.push_back(std::move(left));
      n.kids.push_back(Expr(InfixPrecedence(t)));
      return Seal(std::move(n));
    }
    if (t == Tok::kQuestion) {
      pos_++;
      Node n = Leaf(NodeKind::kTernary);
      n.kids.push_back(std::move(left));
      n.kids.push_back(Expr(0));
      Eat(Tok::kColon);
      n.kids.push_back(Expr(0));
      return Seal(std::move(n));
    }
    if (t == Tok::kDot) {
      pos_++;
      const Token& f = Cur();
      std::string field = "?";
      if (f.t == Tok::kIdent || f.t == Tok::kType || f.t == Tok::kStr)
        field.assign(f.text);
      else if (f.t == Tok::kNum)
        field = JsNumberString(f.num);
      else if (f.t == Tok::kStateVar)
        field.assign(f.text.substr(1));
      pos_++;
      Node n = Leaf(NodeKind::kMember, field);
      n.kids.push_back(std::move(left));
      return Seal(std::move(n));
    }
    if (t == Tok::kLBrack) {
      pos_++;
      Node n = Leaf(NodeKind::kIndex);
      n.kids.push_back(std::move(left));
      n.kids.push_back(Expr(0));
      Eat(Tok::kRBrack);
      return Seal(std::move(n));
    }
    return left;
  }

  Node Call() {
    Node n = Leaf(NodeKind::kComp, Cur().text);
    pos_++;
    Eat(Tok::kLParen);
    while (Cur().t != Tok::kRParen && Cur().t != Tok::kEof) {
      n.kids.push_back(Expr(0));
      if (Cur().t == Tok::kComma) pos_++;
    }
    Eat(Tok::kRParen);
    return Seal(std::move(n));
  }

  Node Array() {
    pos_++;
    Node n = Leaf(NodeKind::kArr);
    while (Cur().t != Tok::kRBrack && Cur().t != Tok::kEof) {
      n.kids.push_back(Expr(0));
      if (Cur().t == Tok::kComma) pos_++;
    }
    Eat(Tok::kRBrack);
    return Seal(std::move(n));
  }

  Node Object() {
    pos_++;
    Node n = Leaf(NodeKind::kObj);
    while (Cur().t != Tok::kRBrace && Cur().t != Tok::kEof) {
      const Token& k = Cur();
      std::string key = "?";
      if (k.t == Tok::kIdent || k.t == Tok::kStr || k.t == Tok::kType)
        key.assign(k.text);
      else if (k.t == Tok::kNum)
        key = JsNumberString(k.num);
      else if (k.t == Tok::kStateVar)
        key.assign(k.text.substr(1));
      pos_++;
      Eat(Tok::kColon);
      n.keys.push_back(std::move(key));
      n.kids.push_back(Expr(0));
      if (Cur().t == Tok::kComma) pos_++;
    }
    Eat(Tok::kRBrace);
    return Seal(std::move(n));
  }

  const std::vector<Token>& tokens_;
  const Token eof_{};
  size_t pos_ = 0;
  int depth_ = 0;
  bool too_deep_ = false;
};

}  // namespace

ParsedExpression ParseExpression(const std::vector<Token>& tokens) { return Pratt(tokens).Run(); }

bool IsBuiltin(std::string_view name) {
  static constexpr std::array<std::string_view, 19> kNames = {
      "Count",  "First",  "Last",        "Sum",     "Avg",   "Min",  "Max",
      "Sort",   "Filter", "Round",       "Abs",     "Floor", "Ceil", "Each",
      "Action", "Run",    "ToAssistant", "OpenUrl", "Set"};
  for (auto n : kNames) {
    if (n == name) return true;
  }
  return name == "Reset";
}

bool IsReservedCall(std::string_view name) { return name == "Query" || name == "Mutation"; }

}  // namespace affordance::surface
