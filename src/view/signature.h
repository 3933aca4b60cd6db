// Reads a handler's declared parameters from its source text (Function.prototype.toString of the
// transformed function), for HandlerSignature (view/node.h). Never inspects names for meaning.
#pragma once

#include "view/node.h"

#include <string_view>

namespace affordance::view {

// Parses the parameter list of a function source: `function f(a) {...}`, `async (x) => ...`,
// `x => ...`, a method `name({ a }) {...}`. Rules:
//   no parameters                                  -> kNoParams
//   one object pattern `{ a, b = 1, c: d }`         -> kDestructured, fields a, b (optional), c
//   one plain identifier, with or without default  -> kSingle
//   anything else (several parameters, rest, array patterns, computed or rest properties,
//   unparseable or native code)                    -> kOther
HandlerSignature ParseHandlerSignature(std::string_view function_source);

}  // namespace affordance::view
