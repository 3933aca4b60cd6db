import { Exists } from "./cycle_b";
import { NotThere } from "./lib_user";

export function MissingName() {
  return <box><Exists /><NotThere /></box>;
}
