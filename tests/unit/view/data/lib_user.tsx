import { Badge } from "@lib/test_badge";
import { modelName, hasToken } from "affordance";

export function LibUser() {
  return <box><Badge text="hi" />model={modelName()} im_start={String(hasToken("<|im_start|>"))}</box>;
}
