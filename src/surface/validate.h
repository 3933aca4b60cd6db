// Validation of a program before a person sees it: lang-core's checks (meta.errors of the
// ParseResult) plus the product's semantic checks.
//
// Product checks (codes):
//   runtime-script, runtime-handler, runtime-url  JavaScript in an Html canvas (see html_canvas.h),
//                                                 a script URL in the canvas data or in @OpenUrl
//   html-not-literal    the markup of an Html canvas is computed, so it cannot be checked
//   mount-without-slot  an HtmlMount names a slot the markup does not declare (data-mount)
//   unknown-handle      a Query/Mutation names a tool that is not in the handle registry
//   handle-not-literal  a Query/Mutation tool name is computed (only when a registry is given)
//   empty-program       nothing renders (no root element)
// plus the parse findings documented in program.h (non-statement, duplicate-statement, ...).
#pragma once

#include "surface/program.h"

#include <optional>
#include <string>
#include <vector>

namespace affordance::surface {

struct ValidationOptions {
  // Tool names a Query/Mutation may call; no registry means tool names are not checked.
  std::optional<std::vector<std::string>> handles;
};

// The product checks on an already parsed program, in tree order.
std::vector<LangError> CheckSemantics(const ParseResult& result, const ValidationOptions& options);

struct Validation {
  ParseResult parse;
  std::vector<LangError> errors;  // parse.errors followed by the product checks
  bool ok() const { return errors.empty(); }
};

// Parses `text` with `library` and runs every check.
Validation ValidateProgram(std::string_view text, const Library& library,
                           const ValidationOptions& options);

}  // namespace affordance::surface
