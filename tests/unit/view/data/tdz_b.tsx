import { early } from "./tdz_a";

// tdz_a has not evaluated yet when this runs: `early` is in its temporal dead zone.
export const fromB: string = early.toUpperCase();
