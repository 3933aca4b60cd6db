// Text from a model, a connector or a tool made visible before a person reads it: C1 controls and
// the characters that reorder or hide text (bidi embeddings, overrides, isolates and marks, zero
// width space, word joiner, invisible operators, BOM, tag characters) are shown as "⟨U+202E⟩",
// so "Budget sync \u202Egnp.exe" cannot read as "Budget sync exe.png". ZWNJ and ZWJ join letters
// and emoji and stay. The one helper of the web UI, twin of text::Printable and
// text::IsHiddenControl (src/text/display_width.h): the same set, the same marker.
export function isHiddenControl(cp: number): boolean {
  return (cp >= 0x80 && cp <= 0x9f) || cp === 0x061c || cp === 0x180e || cp === 0x200b ||
    cp === 0x200e || cp === 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x2069) || cp === 0xfeff ||
    (cp >= 0xe0000 && cp <= 0xe007f);
}

export function visible(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    out += isHiddenControl(cp) ? `⟨U+${cp.toString(16).toUpperCase().padStart(4, '0')}⟩` : ch;
  }
  return out;
}
