/**
 * A reader of Asterisk's configuration files, faithful to main/config.c. Written here because npm has no kept
 * parser of this format (asterisk-config is unpublished; astconf is a one-version writer).
 *
 * What Asterisk does and this reader does too: sections are found by name without case and the first wins;
 * `[s](tpl)` copies the variables `tpl` has at that point; `[s](+)` appends to the first non-template `s`;
 * `#include` paths are relative to the configuration directory (not to the including file) and may be globs; an
 * included file continues the section that was current when it was included. What Asterisk skips with a warning
 * is an error here, with the file and line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../errors';
import braces from 'braces';
import { globSync } from 'tinyglobby';
import { type CommentState, type HeaderLine, type VariableLine, MAX_LINE, parseLine, strip, stripComments } from './asterisk-conf-lines';
import { pbxNameKey } from '../../pbx-name';

/** One `name = value` or `name => value` of a section, in file order. */
export interface ConfVariable {
  name: string;
  value: string;
  /** Written with `=>` (Asterisk's "object" flag); it means nothing more than `=` to the modules read here. */
  object: boolean;
  /** Copied from a template named in the section header (`[s](tpl)`); file and line are the template's. */
  inherited: boolean;
  file: string;
  line: number;
}

/** One `[section]`; a section appended to with `(+)` keeps its first file and line. */
export interface ConfSection {
  name: string;
  /** `[s](!)`: a template, which modules never see as a section of its own. */
  template: boolean;
  /** Templates and sections it inherits from, as named in its header(s). */
  inherits: string[];
  variables: ConfVariable[];
  file: string;
  line: number;
}

/** One configuration as Asterisk loads it: a root file with everything it includes. */
export interface ConfFile {
  /** The root file's name, e.g. `queues.conf`. */
  name: string;
  /** Sections in load order, templates included. */
  sections: ConfSection[];
  /** Every file read, root first, as named in errors (relative to the configuration directory when inside it). */
  files: string[];
}

export interface ReadOptions {
  /** The PBX's own configuration directory, so absolute includes into it are read from `configDir` instead. */
  pbxConfigDir?: string;
}

/** A configuration that cannot be read: 400 with every problem found, each naming its file and line. */
export class AsteriskConfigError extends AppError {
  readonly problems: ConfProblem[];
  constructor(problems: ConfProblem[]) {
    const lines = problems.map((p) => `${p.file}:${p.line}: ${p.reason}`);
    super(400, `Asterisk configuration cannot be read: ${lines[0] ?? ''}`, { validationErrors: lines });
    this.problems = problems;
  }
}

export interface ConfProblem {
  file: string;
  /** 0 when the problem is the file as a whole (the root file itself, a directory). */
  line: number;
  reason: string;
}

/** Asterisk's MAX_INCLUDE_LEVEL: the root file and ten nested includes. */
const MAX_INCLUDE_LEVEL = 10;

interface LoadState {
  configDir: string;
  pbxConfigDir: string;
  sections: ConfSection[];
  /** ast_config_get_current_category: where an included file's first lines go. */
  current: ConfSection | null;
  /** Absolute paths of the files being read, outermost first, for loops. */
  stack: string[];
  files: string[];
  problems: ConfProblem[];
}

/** Reads `fileName` from `configDir` with its includes; null when the root file does not exist. */
export function readAsteriskConfig(configDir: string, fileName: string, options: ReadOptions = {}): ConfFile | null {
  const dir = path.resolve(configDir);
  const root = path.join(dir, fileName);
  if (!fs.existsSync(root)) return null;
  const state: LoadState = {
    configDir: dir,
    pbxConfigDir: path.resolve(options.pbxConfigDir ?? '/etc/asterisk'),
    sections: [],
    current: null,
    stack: [],
    files: [],
    problems: [],
  };
  loadFile(state, root);
  if (state.problems.length > 0) throw new AsteriskConfigError(state.problems);
  return { name: fileName, sections: state.sections, files: state.files };
}

function loadFile(state: LoadState, file: string): void {
  const shown = displayName(state, file);
  if (!fs.statSync(file).isFile()) {
    state.problems.push({ file: shown, line: 0, reason: 'not a regular file' });
    return;
  }
  state.stack.push(file);
  state.files.push(shown);
  const lines = fs
    .readFileSync(file, 'utf8')
    .replace(/^\uFEFF/, '')
    .split('\n');
  if (lines.at(-1) === '') lines.pop();
  const comments: CommentState = { open: [] };
  let section = state.current;
  lines.forEach((raw, index) => {
    const problem = (reason: string): void => void state.problems.push({ file: shown, line: index + 1, reason });
    if (raw.length > MAX_LINE) return problem(`line longer than ${MAX_LINE} characters (Asterisk skips it)`);
    const stripped = stripComments(raw, comments, index + 1);
    if ('problem' in stripped) return problem(stripped.problem);
    if (stripped.text === '') return;
    const parsed = parseLine(stripped.text);
    const at = { file: shown, line: index + 1 };
    if ('problem' in parsed) {
      if (stripped.text.startsWith('[')) section = detached('', at);
      return problem(parsed.problem);
    }
    if (parsed.kind === 'header') section = openSection(state, parsed, at) ?? detached(parsed.name, at);
    else if (parsed.kind === 'directive') include(state, parsed.argument, parsed.directive, at);
    else if (section === null) problem('no section for this line: it comes before any [section] header');
    else addVariable(section, parsed, at);
  });
  for (const line of comments.open) state.problems.push({ file: shown, line, reason: "block comment ';--' is never closed with '--;'" });
  state.stack.pop();
}

interface Where {
  file: string;
  line: number;
}

/** process_text_line's header branch: the section that following lines go into, or null on a problem. */
function openSection(state: LoadState, header: HeaderLine, at: Where): ConfSection | null {
  let target: ConfSection = { name: header.name, template: false, inherits: [], variables: [], file: at.file, line: at.line };
  let appended = false;
  for (const option of header.options) {
    if (option === '!') {
      target.template = true;
    } else if (option.startsWith('+')) {
      if (option !== '+') return fail(state, at, `'(${option})': appending with a filter is not read by TARS; write '(+)'`);
      const existing = findSection(state, header.name, false);
      if (!existing) return fail(state, at, `'[${header.name}](+)' adds to a section '${header.name}' that does not exist above it`);
      existing.template ||= target.template;
      existing.variables.push(...target.variables);
      target = existing;
      appended = true;
    } else {
      if (option === '') return fail(state, at, `empty template name in '(${header.options.join(',')})'`);
      const base = findSection(state, option, true);
      if (!base)
        return fail(
          state,
          at,
          `template '${option}' does not exist (it must be defined above '[${header.name}]', names as written, spaces included)`,
        );
      target.inherits.push(base.name);
      target.variables.push(...base.variables.map((v) => ({ ...v, inherited: true })));
    }
  }
  if (!appended) state.sections.push(target);
  state.current = target;
  return target;
}

/** Where the lines of a refused header go, so that they raise no second problem. */
function detached(name: string, at: Where): ConfSection {
  return { name, template: true, inherits: [], variables: [], ...at };
}

/** category_get_sep: the first section of that name, without case; templates only when asked for. */
function findSection(state: LoadState, name: string, templatesToo: boolean): ConfSection | undefined {
  const key = pbxNameKey(name);
  return state.sections.find((s) => pbxNameKey(s.name) === key && (templatesToo || !s.template));
}

function addVariable(section: ConfSection, line: VariableLine, at: Where): void {
  if (line.append) {
    const last = section.variables.findLast((v) => v.name === line.name);
    if (last) {
      last.value = strip(last.value + line.value);
      return;
    }
  }
  const value = line.append ? strip(line.value) : line.value;
  section.variables.push({ name: line.name, value, object: line.object, inherited: false, ...at });
}

function include(state: LoadState, argument: string, directive: 'include' | 'tryinclude', at: Where): void {
  const pattern = resolveInclude(state, argument);
  const found = expandPattern(pattern);
  if (found.length === 0) {
    if (directive === 'include')
      fail(state, at, `'#include ${argument}': no such file (${displayName(state, pattern)}); '#tryinclude' would allow that`);
    return;
  }
  for (const file of found) {
    if (state.stack.includes(file)) {
      const chain = [...state.stack.slice(state.stack.indexOf(file)), file].map((f) => displayName(state, f));
      fail(state, at, `include loop: ${chain.join(' → ')}`);
    } else if (state.stack.length > MAX_INCLUDE_LEVEL) {
      fail(state, at, `'#${directive} ${argument}' is nested deeper than Asterisk's ${MAX_INCLUDE_LEVEL} include levels`);
    } else {
      loadFile(state, file);
    }
  }
}

/** Relative to the configuration directory, as Asterisk's ast_config_AST_CONFIG_DIR; the PBX's own absolute paths map there too. */
function resolveInclude(state: LoadState, argument: string): string {
  if (!argument.startsWith('/')) return path.join(state.configDir, argument);
  const prefix = state.pbxConfigDir + '/';
  return argument.startsWith(prefix) ? path.join(state.configDir, argument.slice(prefix.length)) : argument;
}

function displayName(state: LoadState, file: string): string {
  const rel = path.relative(state.configDir, file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel;
}

function fail(state: LoadState, at: Where, reason: string): null {
  state.problems.push({ file: at.file, line: at.line, reason });
  return null;
}

/**
 * The existing paths an `#include` pattern (absolute) names, as Asterisk's glob(3) with GLOB_NOMAGIC | GLOB_BRACE
 * lists them: `*`, `?`, `[a-z]`, `[!x]`, `\` escapes, and `{a,b}` alternatives (braces), each alternative's
 * matches sorted and the alternatives in their written order (tinyglobby would sort them all together). A name
 * starting with a dot is matched only by a pattern segment starting with one, as glob(3) has it (picomatch's
 * `dot: false` still lets `[!x]` match the dot).
 */
export function expandPattern(pattern: string): string[] {
  const found = new Set<string>();
  for (const alternative of braces.expand(pattern)) {
    const wanted = alternative.split('/');
    const hidden = (match: string) => match.split('/').some((seg, i) => seg.startsWith('.') && !wanted[i]?.startsWith('.'));
    const matches = globSync(alternative, { absolute: true, onlyFiles: false, expandDirectories: false, dot: false });
    for (const m of matches.sort()) if (!hidden(m)) found.add(m);
  }
  return [...found];
}
