import { pbxNameKey } from '../../pbx-name';
/**
 * One line of an Asterisk configuration file, read as main/config.c reads it (config_text_file_load and
 * process_text_line). Lines Asterisk skips with a warning are problems here: the sync refuses rather than guesses.
 */

/** Asterisk's buffer is 8192 bytes with the newline; a longer line is skipped there, refused here. */
export const MAX_LINE = 8191;
/** MAX_NESTED_COMMENTS in main/config.c. */
const MAX_NESTED = 128;

/** Block-comment state carried from one line to the next of the same file (`;--` … `--;` may nest). */
export interface CommentState {
  /** Line numbers of the `;--` still open, innermost last. */
  open: number[];
}

export type LineResult = { text: string } | { problem: string };

/**
 * What is left of a line once comments are gone: `;` ends the line, `\;` is a literal `;`, `;--` opens a block
 * comment (not `;---`), `--;` closes one; text around a block comment on one line is joined, as Asterisk joins it.
 */
export function stripComments(raw: string, state: CommentState, lineNo: number): LineResult {
  let out = '';
  let segment = 0; // where Asterisk's scan resumes (its new_buf): escapes and `--;` only count from here
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (ch !== ';') {
      if (state.open.length === 0 && !(ch === '\\' && raw[i + 1] === ';' && i >= segment)) out += ch;
      continue;
    }
    if (i > segment && raw[i - 1] === '\\') {
      if (state.open.length === 0) out += ';';
      segment = i + 1;
    } else if (raw[i + 1] === '-' && raw[i + 2] === '-' && raw[i + 3] !== '-') {
      if (state.open.length >= MAX_NESTED) return { problem: `block comments nested deeper than ${MAX_NESTED}` };
      state.open.push(lineNo);
      i += 2;
      segment = i + 1;
    } else if (i >= segment + 2 && raw[i - 1] === '-' && raw[i - 2] === '-') {
      if (state.open.length === 0) return { problem: "'--;' closes no block comment (a block comment opens with ';--')" };
      state.open.pop();
      segment = i + 1;
    } else if (state.open.length === 0) {
      break;
    } else {
      segment = i + 1;
    }
  }
  return { text: strip(out) };
}

/** ast_strip: Asterisk's blanks are every character below 33. */
export function strip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) < 33) a++;
  while (b > a && s.charCodeAt(b - 1) < 33) b--;
  return s.slice(a, b);
}

/** `[name]` or `[name](options)`: the options as Asterisk splits them (on commas, nothing trimmed). */
export type HeaderLine = { kind: 'header'; name: string; options: string[] };
/** `#include file`, `#tryinclude file`, `#exec …`: the argument without its `"…"` or `<…>`. */
export type DirectiveLine = { kind: 'directive'; directive: 'include' | 'tryinclude'; argument: string };
/** `name = value`, `name => value` (object), `name += value` (append to the last `name`). */
export type VariableLine = { kind: 'variable'; name: string; value: string; object: boolean; append: boolean };
export type ParsedLine = HeaderLine | DirectiveLine | VariableLine;

/** One comment-free, stripped, non-empty line. */
export function parseLine(text: string): ParsedLine | { problem: string } {
  if (text.startsWith('[')) return parseHeader(text);
  if (text.startsWith('#')) return parseDirective(text);
  return parseVariable(text);
}

function parseHeader(text: string): HeaderLine | { problem: string } {
  const close = text.indexOf(']');
  if (close < 0) return { problem: "no closing ']' in the section header" };
  const name = text.slice(1, close);
  if (name === '') return { problem: "empty section name '[]'" };
  const rest = text.slice(close + 1);
  if (rest === '') return { kind: 'header', name, options: [] };
  if (!rest.startsWith('(')) {
    return { problem: `text after the section header: '${rest}' (Asterisk reads options only directly after ']', as '[${name}](…)')` };
  }
  const end = rest.indexOf(')');
  if (end < 0) return { problem: "no closing ')' after the section's options" };
  if (end !== rest.length - 1) return { problem: `text after the section's options: '${rest.slice(end + 1)}'` };
  return { kind: 'header', name, options: rest.slice(1, end).split(',') };
}

function parseDirective(text: string): DirectiveLine | { problem: string } {
  let end = 1;
  while (end < text.length && text.charCodeAt(end) > 32) end++;
  const directive = text.slice(1, end);
  let argument = strip(text.slice(end));
  const lower = pbxNameKey(directive);
  if (lower === 'exec')
    return { problem: '#exec runs a program to produce configuration; TARS does not run it, so it cannot know what it adds' };
  if (lower !== 'include' && lower !== 'tryinclude')
    return { problem: `unknown directive '#${directive}' (Asterisk knows #include, #tryinclude and #exec)` };
  if (argument === '') return { problem: `'#${directive}' needs a file name` };
  const quote = argument[0] === '"' ? '"' : argument[0] === '<' ? '>' : null;
  if (quote !== null && argument.length > 1 && argument.endsWith(quote)) argument = argument.slice(1, -1);
  return { kind: 'directive', directive: lower === 'include' ? 'include' : 'tryinclude', argument };
}

function parseVariable(text: string): VariableLine | { problem: string } {
  const escaped = text.startsWith('\\');
  let cur = text;
  if (escaped) {
    cur = cur.slice(1);
    if (cur === '' || cur.charCodeAt(0) < 33)
      return { problem: "invalid escape: '\\' at the start of a line must be followed by a visible character" };
  }
  const eq = cur.indexOf('=', escaped ? 1 : 0);
  if (eq < 0) return { problem: "no '=' in this line (expected 'name = value', 'name => value', '[section]' or '#include')" };
  const append = eq > (escaped ? 1 : 0) && cur[eq - 1] === '+';
  const object = !append && cur[eq + 1] === '>';
  const name = strip(cur.slice(0, append ? eq - 1 : eq));
  if (name === '') return { problem: "no variable name before '='" };
  const value = cur.slice(eq + 1 + (object ? 1 : 0));
  return { kind: 'variable', name, value: append ? value : strip(value), object, append };
}
