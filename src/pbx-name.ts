/**
 * PBX names (queue names, agent interfaces and member names, aliases, config section names) compared the way
 * Asterisk compares them: `strcasecmp`, which folds the ASCII letters A-Z only (app_queue.c's queue and member
 * containers hash with ast_str_case_hash and compare with strcasecmp). JavaScript's toLowerCase() folds Unicode
 * too (KELVIN SIGN U+212A becomes `k`), which made two names the PBX keeps apart one name in TARS, so that a queue
 * of one tenant took another tenant's callers, webhooks and log lines (issue 27). Every comparison of PBX names
 * goes through here; SQLite's `COLLATE NOCASE`, which also folds A-Z only, is the same rule in SQL.
 */

const ASCII_UPPER = /[A-Z]+/g;

/** The name as a key for maps and sets: ASCII letters lower-cased, everything else exactly as it is. */
export function pbxNameKey(name: string): string {
  return name.replace(ASCII_UPPER, (letters) => letters.toLowerCase());
}

/** Whether Asterisk takes the two names for one (strcasecmp(a, b) == 0). */
export function samePbxName(a: string, b: string): boolean {
  return a.length === b.length && pbxNameKey(a) === pbxNameKey(b);
}
