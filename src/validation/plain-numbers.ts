/**
 * Numbers written as text (query strings, path parameters). ajv's coercion reads whatever Number() reads:
 * "0x10", "1e3", "+301", "0301", "301.0", "301 ", and "9007199254740993" silently becomes another
 * integer. decisions.md §3 wants an id to be a plain positive integer, so a value the schema turned into
 * a number must be written exactly as that number prints: decimal digits, an optional minus sign (the
 * schema then says what it thinks of it), no leading zero, within 2^53 - 1.
 */
const PLAIN = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]*[1-9])?$/;

function isPlain(text: string, n: number): boolean {
  return PLAIN.test(text) && String(n) === text && (!Number.isInteger(n) || Number.isSafeInteger(n));
}

/**
 * One sentence per field of `coerced` that the validator made a number of a text in `raw` that is not
 * written plainly; [] when there is none.
 */
export function numbersNotPlain(raw: Readonly<Record<string, unknown>>, coerced: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  for (const [field, value] of Object.entries(coerced)) {
    const given = raw[field];
    if (given === undefined) continue; // a default the schema filled in
    const texts = Array.isArray(given) ? given : [given];
    const numbers = Array.isArray(value) ? value : [value];
    const loose = numbers.some((n, i) => typeof n === 'number' && typeof texts[i] === 'string' && !isPlain(texts[i] as string, n));
    if (loose)
      problems.push(
        `${field} must be written in plain decimal digits (no plus sign, exponent, leading zero or spaces; at most 9007199254740991)`,
      );
  }
  return problems;
}
