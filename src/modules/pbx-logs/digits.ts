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

/**
 * The key by which two phone numbers are the same caller (reporting.md R22): their digits only; two numbers
 * match when their digits are equal, or when both have at least 10 and their last 10 are equal
 * (`+1 (312) 555-0100` and `3125550100`). So the key is the last 10 digits of a number of 10 or more, else
 * all of them; a number of fewer than 3 digits (anonymous, `unknown`, an extension such as `12`) has none
 * and matches nothing. CALLER_KEY_SQL is the same over a column of digits.
 */
export function callerKey(number: string): string | null {
  const digits = number.replace(/\D+/g, '');
  if (digits.length < 3) return null;
  return digits.length >= 10 ? digits.slice(-10) : digits;
}

export const callerKeySql = (digits: string): string =>
  `CASE WHEN length(${digits}) >= 10 THEN substr(${digits}, -10) WHEN length(${digits}) >= 3 THEN ${digits} END`;
