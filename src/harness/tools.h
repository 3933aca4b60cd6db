// The harness's tools: the five resident product tools, the deferred connector operations, and
// app actions. Each is a Tool value (tool.h) registered in a ToolRegistry, and each lives in a file
// of its own that also declares it in the capability registry (ask_user_question.cpp,
// tool_search.cpp, list_components.cpp, run_connector_command.cpp, compose_ui.cpp, app_action.cpp,
// mutation_tool.cpp).
//
//   AskUserQuestion     {question, choices?}: shows a typed question; ends the turn (asked_user)
//   ToolSearch          {query}: "select:a,b" attaches exact deferred tools; other text ranks
//                       deferred tools by name and description and attaches the top matches. The
//                       schemas are disclosed in the result; attached tools are callable next step.
//                       "skill:NAME" loads a skill's SKILL.md (its exact bytes with their sha256)
//                       and attaches the deferred tools it names; "skill:" lists the skills.
//   ListComponents      {names?}: OpenUI component signatures (all, or the named ones)
//   RunConnectorCommand {connector, request, limit?, mode?}: the one read road (connect/road.h),
//                       with the model-backed chooser for requests in words
//   ComposeUI           {program, surface?, app_slug?, edit?, artifact?}: an OpenUI Lang program
//                       validated by src/surface (syntax, product and semantic checks against
//                       the handles and the thread's connector evidence), saved as an artifact
//                       version (a patch with edit: true); it becomes a surface part of the
//                       assistant message
//   <slug>__<operation> deferred: one read operation of a connector, its args schema as parameters
//   invoke_mutation     deferred {connector, operation, args, evidence?}: stages an exact mutation
//                       through authority (nothing runs); the turn ends awaiting approval
// Connector reads (RunConnectorCommand, <slug>__<operation>) need a read grant: with an
// `authority`, each read is authorized (and logged to Activity) before the road runs.
//   <app action>        an action projected from a mounted app, dispatched through Frame::Act
#pragma once

#include "authority/authority.h"
#include "connect/road.h"
#include "harness/frame.h"
#include "harness/tool.h"
#include "render/block.h"
#include "skills/catalog.h"
#include "store/store.h"
#include "surface/artifact.h"

#include <memory>
#include <string>
#include <vector>

namespace affordance::harness {

std::unique_ptr<Tool> MakeAskUserQuestion();
// `skills`: the catalog "skill:NAME" loads from (owned by the harness, rescanned every turn);
// null: no skills.
std::unique_ptr<Tool> MakeToolSearch(const skills::SkillCatalog* skills);
std::unique_ptr<Tool> MakeListComponents();
// `road` may be null (no connectors are configured): every call is then a clear error.
// `authority` null: reads are not gated (tests of the road alone).
std::unique_ptr<Tool> MakeRunConnectorCommand(connect::ConnectorRoad* road,
                                              authority::Authority* authority);
// `handles`: what a program's Query()/Mutation() may name (surface::HandlesOf the road). Accepted
// programs are saved as artifact versions in `store` (surface/artifact.h); the thread's connector
// reads are the evidence the semantic checks hold the program to. `store` null: validated only.
std::unique_ptr<Tool> MakeComposeUI(store::Store* store, std::vector<surface::QueryHandle> handles);
// One deferred tool per readable operation of every connector of `road`.
std::vector<std::unique_ptr<Tool>> MakeConnectorOperations(connect::ConnectorRoad& road,
                                                           authority::Authority* authority);
// The deferred mutation tool: stages through `authority` (see mutation_tool.cpp).
std::unique_ptr<Tool> MakeInvokeMutation(authority::Authority& authority,
                                         connect::ConnectorRoad* road);
// The deferred tool name of a connector operation: "<slug>__<operation>".
std::string OperationToolName(const std::string& slug, const std::string& operation);
std::unique_ptr<Tool> MakeAppAction(const render::Tool& projected, Frame& frame);

}  // namespace affordance::harness
