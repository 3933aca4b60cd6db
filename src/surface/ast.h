// OpenUI Lang syntax: tokens and expression trees, as produced by the lexer and the Pratt parser.
//
// These mirror lang-core 0.2.18 (src/parser/lexer.ts, ast.ts) one to one, so that every program
// lowers to the same ParseResult as the JavaScript reference. Nodes live in an Arena (value.h):
// a node's children and keys are arrays in the arena and its texts view the lexed source or the
// arena, so a tree costs no allocation per node and is freed all at once with its arena.
#pragma once

#include "surface/value.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::surface {

enum class Tok : uint8_t {
  kNewline,
  kLParen,
  kRParen,
  kLBrack,
  kRBrack,
  kLBrace,
  kRBrace,
  kComma,
  kColon,
  kEquals,
  kEqEq,
  kNot,
  kNotEq,
  kGreater,
  kGreaterEq,
  kLess,
  kLessEq,
  kAnd,
  kOr,
  kDot,
  kQuestion,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kStr,
  kNum,
  kStateVar,
  kType,
  kIdent,
  kTrue,
  kFalse,
  kNull,
  kBuiltinCall,
  kEof,
};

// A token is a view: its text points into the lexed source, or into the Arena given to
// Tokenize() for strings whose escapes had to be decoded. Trivially copyable.
struct Token {
  Tok t = Tok::kEof;
  std::string_view
      text;        // kStr: decoded value; kStateVar: "$name"; kType/kIdent/kBuiltinCall: name
  double num = 0;  // kNum
  size_t pos = 0;  // byte offset of the token in the lexed text
};

// Tokenizes `src` exactly as lang-core's tokenize(): newlines are tokens, unknown characters are
// skipped, double-quoted strings are decoded as JSON (falling back to the raw text when that
// fails), a trailing kEof token is always present. Never fails. Token texts view `src` or
// `strings` (decoded escapes), which must outlive the tokens.
std::vector<Token> Tokenize(std::string_view src, Arena& strings);
// The same into *out (cleared first), so a caller can reuse its buffer.
void Tokenize(std::string_view src, Arena& strings, std::vector<Token>* out);

enum class NodeKind : uint8_t {
  kComp,
  kStr,
  kNum,
  kBool,
  kNull,
  kArr,
  kObj,
  kRef,
  kPh,
  kStateRef,
  kRuntimeRef,
  kBinOp,
  kUnaryOp,
  kTernary,
  kMember,
  kIndex,
  kAssign,
};

// One expression node. Which fields are used depends on `kind`:
//   kComp: text = name, kids = args          kStr: text        kNum: num     kBool: boolean
//   kArr: kids = elements                    kObj: keys[i] -> kids[i]
//   kRef/kPh/kStateRef: text = name          kBinOp/kUnaryOp: text = operator, kids = operands
//   kTernary: kids = {cond, then, else}      kMember: kids = {obj}, text = field
//   kIndex: kids = {obj, index}              kAssign: text = target ("$x"), kids = {value}
// Trivially copyable and destructible: copying a Node copies its root only (the children are
// shared), and the arena that holds its children and texts must outlive every copy.
struct Node {
  NodeKind kind = NodeKind::kNull;
  bool boolean = false;
  uint32_t height = 1;  // 1 + the tallest child; bounded by the parser
  double num = 0;
  std::string_view text;
  std::span<const std::string_view> keys;
  std::span<const Node> kids;
};

// Formats a number the way JavaScript's String(number) does ("1", "0.5", "1e+21", "NaN").
std::string JsNumberString(double value);

}  // namespace affordance::surface
