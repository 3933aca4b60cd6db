// TurnStrategy: decides whether the model may call the actions of an app subtree this turn.
//
//   <Qwen3App question={q}>
//     <TurnStrategy callable={false}><Notebook key="nb" numbers={n} /></TurnStrategy>
//   </Qwen3App>
//
// callable={false} (a summary or preview view): the subtree is laid out and projected as always,
// so its tokens, tool names and schemas are exactly those of the callable app, but the projected
// tools carry no handler references: calling one is "render.not_callable". callable={true} (the
// default) changes nothing. It governs model calls only, never the app's effects, timers or state.
//
// Budgets that can hide the subtree's actions belong inside TurnStrategy (its asChatTools lays
// them out); a budget around it that would hide one of its actions is "render.outer_crop".
import { asChatTools, type Node } from "affordance";

export interface TurnStrategyProps {
  /** false: declare the subtree's tools but let nothing call them (default true). */
  callable?: boolean;
  children?: Node;
}

export function TurnStrategy({ callable, children }: TurnStrategyProps) {
  if (callable !== undefined && typeof callable !== "boolean") {
    throw new TypeError("TurnStrategy: callable must be true or false");
  }
  const { tree } = asChatTools(children, { callable: callable !== false });
  return tree;
}
