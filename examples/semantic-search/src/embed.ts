/**
 * A small deterministic embedding, no network and no model: hashed bag of words. Each word (lowercased,
 * a trailing plural "s" dropped, common words skipped) adds ±1 to one of `DIMS` dimensions chosen by a
 * hash of the word (the sign by another bit of it, so collisions tend to cancel rather than pile up).
 * Texts sharing words point the same way, which is all cosine ranking needs for an example and tests.
 */
export const DIMS = 256;

const STOP = new Set(
  "a an and are as at be by do does for from has have how i in is it its of on or that the this to was were what when where which who why with".split(
    " ",
  ),
);

export function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? [])
    .filter((w) => !STOP.has(w))
    .map((w) => (w.length > 3 && w.endsWith("s") ? w.slice(0, -1) : w));
}

/** FNV-1a, 32 bits. */
function hash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export function embedText(text: string, dims = DIMS): number[] {
  const vector = new Array<number>(dims).fill(0);
  for (const word of words(text)) {
    const h = hash(word);
    vector[h % dims]! += h & 0x80000000 ? -1 : 1;
  }
  return vector;
}

/** langgraph.json `store.index.embed`: `"./src/embed.ts:embed"`, a function from texts to vectors. */
export async function embed(texts: string[]): Promise<number[][]> {
  return texts.map((text) => embedText(text));
}
