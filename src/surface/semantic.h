// Semantic checks of a program against what grounds it: the registered query handles (with the
// fields their rows serve) and the connector reads of the turn (docs/SURFACE.md "Semantic
// validation"). Syntax is not enough: a surface is a set of claims, and a claim about source data
// must be bound to the source.
//
// Codes (each a LangError with the statement to patch):
//   unserved-field        a Query result is read at a field its handle does not serve
//                         (`q.rows.x` where x is not a served field, or `q.x` for x not `rows`)
//   unbound-source-value  a literal in a source position (see below) that no row of the turn's
//                         evidence holds in a served field: a value claimed as source data with
//                         nothing binding it
//   unshown-source        the program presents data from two or more connectors read in this
//                         turn and does not name one of them in its visible text
//   mutation-as-query     Query() names a mutation handle (writes go through governed staging)
//   query-as-mutation     Mutation() names a read handle
//   incomplete-program    the program was cut off (an unclosed string or bracket was auto-closed)
//
// A *source position* is a prop whose value the library defines as data to present: the cell
// values of a table column (`Col.values`) and the data of an Html canvas (`Html.data`). A value
// in a source position is a *source claim* when the turn that composes it read a connector; it is
// bound when it is (derived from) a Query() result, or when every literal in it equals the value
// of a served field in a row of the evidence. Without connector reads in the turn, literals in
// source positions are the model's own content and claim nothing about a source.
#pragma once

#include "surface/artifact.h"
#include "surface/program.h"

#include <string>
#include <vector>

namespace affordance::surface {

std::vector<LangError> CheckBindings(const ParseResult& parse,
                                     const std::vector<QueryHandle>& handles,
                                     const std::vector<Evidence>& evidence);

// Connectors whose evidence rows hold the literals of the program's source positions.
std::vector<std::string> GroundedSources(const ParseResult& parse,
                                         const std::vector<Evidence>& evidence);

}  // namespace affordance::surface
