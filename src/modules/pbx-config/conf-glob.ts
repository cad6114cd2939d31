/**
 * The file patterns Asterisk's `#include` accepts (glob(3) with GLOB_NOMAGIC | GLOB_BRACE): `*`, `?`, `[a-z]`,
 * `[!x]`, `{a,b}`, `\` escapes. Hand-written because Node 20 (our floor) has no fs.glob and one small function
 * does not warrant a dependency.
 */
import fs from 'node:fs';
import path from 'node:path';

const MAGIC = /[*?[]/;

/** Existing paths that `pattern` (absolute) names, each brace alternative sorted as glob(3) sorts it. */
export function expandPattern(pattern: string): string[] {
  const found: string[] = [];
  for (const alternative of expandBraces(pattern)) {
    const matches = matchSegments(
      path.sep,
      alternative.split('/').filter((s) => s !== ''),
    );
    for (const m of matches.sort()) if (!found.includes(m)) found.push(m);
  }
  return found;
}

/** `a{b,c}d` → [abd, acd], nested braces included; an unbalanced brace stays literal, as glob(3) leaves it. */
export function expandBraces(pattern: string): string[] {
  const open = pattern.indexOf('{');
  if (open < 0) return [pattern];
  let depth = 0;
  const commas: number[] = [];
  for (let i = open; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') i++;
    else if (ch === '{') depth++;
    else if (ch === ',' && depth === 1) commas.push(i);
    else if (ch === '}' && --depth === 0) {
      const cuts = [open, ...commas, i];
      const head = pattern.slice(0, open);
      const tail = pattern.slice(i + 1);
      return cuts.slice(1).flatMap((cut, k) => expandBraces(head + pattern.slice((cuts[k] ?? open) + 1, cut) + tail));
    }
  }
  return [pattern];
}

function matchSegments(base: string, segments: string[]): string[] {
  const [segment, ...rest] = segments;
  if (segment === undefined) return fs.existsSync(base) ? [base] : [];
  if (!MAGIC.test(segment)) return matchSegments(path.join(base, unescape(segment)), rest);
  let names: string[];
  try {
    names = fs.readdirSync(base);
  } catch {
    return [];
  }
  const re = segmentRegExp(segment);
  return names.filter((n) => re.test(n)).flatMap((n) => matchSegments(path.join(base, n), rest));
}

const unescape = (segment: string): string => segment.replace(/\\(.)/g, '$1');

/** One path segment as a RegExp; a leading dot must be matched literally, as glob(3) requires. */
export function segmentRegExp(segment: string): RegExp {
  let re = '';
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i] as string;
    if (ch === '\\' && i + 1 < segment.length) re += escapeRe(segment[++i] as string);
    else if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else if (ch === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close < 0) re += '\\[';
      else {
        const body = segment.slice(i + 1, close);
        const negate = body.startsWith('!') || body.startsWith('^');
        const set = (negate ? body.slice(1) : body).replace(/[\\\]^]/g, '\\$&');
        re += negate ? `[^/${set}]` : `[${set}]`;
        i = close;
      }
    } else re += escapeRe(ch);
  }
  return new RegExp(segment.startsWith('.') ? `^${re}$` : `^(?!\\.)${re}$`);
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
