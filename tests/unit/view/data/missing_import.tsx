import { useState } from "affordance";
import { Nope } from "./does_not_exist";

export function Missing() {
  return <Nope />;
}
