// How long until something `left` ms from now happens (an approval's expiry), in the one rounding
// rule the terminal uses too (Ago in src/connect/effect.cpp): whole seconds under 90 s, then
// minutes under 90 min, hours under 36 h, else days, each rounded to the nearest (a half rounds
// up). tests/unit/server/web_until.test.mjs and effect_card_test.cpp check the same table.
export function until(left: number): string {
  const s = Math.floor(left / 1000);
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.floor((s + 30) / 60)} min`;
  if (s < 36 * 3600) return `${Math.floor((s + 1800) / 3600)} h`;
  return `${Math.floor((s + 43200) / 86400)} days`;
}
