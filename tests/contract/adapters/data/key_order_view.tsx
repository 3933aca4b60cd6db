// Key order, end to end: an author's args_schema and a tool result from the state keep the order
// they were written in (the official templates print keys as given; models were trained on the
// OpenAI order), never a sorted order.
import { Qwen3App } from "../../../../views/adapters/qwen3.tsx";
import type { HistoryTurn } from "@lib/chat";

function Search() {
  return (
    <button label="search" onClick={() => {}}
            args_schema={{ type: "object", properties: { query: { type: "string" }, limit: { type: "integer" } },
                           required: ["query"] }} />
  );
}

export function KeyOrder({ history }: { history: HistoryTurn[] }) {
  return <Qwen3App question="find"><Search key="s" /></Qwen3App>;
}

export function KeyOrderWithHistory({ history }: { history: HistoryTurn[] }) {
  return <Qwen3App question="find" history={history}><Search key="s" /></Qwen3App>;
}
