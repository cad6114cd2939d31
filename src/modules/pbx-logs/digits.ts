/**
 * The integer written in text[from, to) (ASCII digits only, at least one), or -1. No allocation: the log parsers
 * run it for every field of millions of lines.
 */
export function digitsAt(text: string, from: number, to: number): number {
  if (from >= to) return -1;
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}
