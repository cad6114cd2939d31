/**
 * The commands an admin runs to map what an import could not (reporting.md R14, import summary): for each
 * queue name that matched no queue and each agent name that resolved to no extension, the exact `tars`
 * command that adds or extends the directory entry it needs. Pure: built from the summary's counts.
 */

export interface MappingHint {
  readonly kind: 'queue' | 'agent';
  /** The names as the log wrote them that the command maps (an interface and its member name: one member). */
  readonly names: string[];
  readonly lines: number;
  /** A shell command (POSIX quoting); `<…>` marks what only the admin knows. */
  readonly command: string;
  /**
   * The same as the API does it (the console's buttons): add the queue (POST /v2/queues), add `names[0]` as an alias
   * of an extension (PATCH /v2/extensions/{id}), or add the extension `names[0]` is the interface of, named `names[1]`
   * when there is one (POST /v2/extensions).
   */
  readonly action: 'add-queue' | 'add-alias' | 'add-extension';
  /** The tenant it is for; null when the import spanned several tenants and the queue's is unknown. */
  readonly tenantId: number | null;
  /** The extension number the alias goes to or the extension added has; null: the admin chooses it. */
  readonly extension: string | null;
}

/** An unknown agent name as the summary saw it: its tenant and the queues it appeared in. */
export interface UnknownAgent {
  readonly tenantId: number;
  readonly lines: number;
  readonly queues: ReadonlySet<number>;
  /** The tenant's extension numbers, to tell whether a numbered name names an existing one. */
  readonly knownNumber: (extNum: string) => boolean;
}

/** Control characters (C0, DEL, C1): a name read from a log may hold them (ESC, CR), and a terminal obeys them. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const hex = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/**
 * A name quoted for a POSIX shell: single quotes, which hold anything but the quote itself; a name with a control
 * character in bash's $'…' instead, each such character written as \xHH, so that the printed command neither moves
 * the terminal nor loses the character (bash, zsh and ksh read $'…'; the name it maps is the name in the log).
 */
export const shellQuote = (s: string): string => {
  if (s.replace(CONTROL, '') === s) return `'${s.replaceAll("'", `'\\''`)}'`;
  return `$'${s.replace(/[\\']/g, (c) => `\\${c}`).replace(CONTROL, hex)}'`;
};

/** A name as a terminal may print it: each control character written as \xHH (the summary's names and comments). */
export const printable = (s: string): string => s.replace(CONTROL, hex);

/** The extension number an interface or channel names (`Local/208@agents/n`, `PJSIP/208`, `Agent/208`), if any. */
export function numberOf(name: string): string | undefined {
  return /^(?:Local\/(\d+)@|(?:[A-Za-z0-9]+)\/(\d+)(?:$|[@/-]))/
    .exec(name)
    ?.slice(1)
    .find((g) => g !== undefined);
}

export function mappingHints(
  queues: ReadonlyMap<string, number>,
  agents: ReadonlyMap<string, UnknownAgent>,
  tenantOfQueues: number | undefined,
): MappingHint[] {
  const tenant = tenantOfQueues === undefined ? '<tenant id>' : String(tenantOfQueues);
  const hints: MappingHint[] = [];
  for (const [name, lines] of queues) {
    if (name === '' || name === 'NONE') continue;
    hints.push({
      kind: 'queue',
      names: [name],
      lines,
      command: `tars queue add --tenant ${tenant} --log-name ${shellQuote(name)} --name ${shellQuote(name)}`,
      action: 'add-queue',
      tenantId: tenantOfQueues ?? null,
      extension: null,
    });
  }
  const paired = pairNamesWithInterfaces(agents);
  for (const [name, a] of agents) {
    const num = numberOf(name);
    let command: string;
    let action: MappingHint['action'] = 'add-alias';
    let extension: string | null = num ?? null;
    const names = [name];
    let lines = a.lines;
    if (num !== undefined && a.knownNumber(num)) {
      command = `tars extension update --tenant ${a.tenantId} --ext ${num} --add-alias ${shellQuote(name)}`;
    } else if (num !== undefined) {
      const display = paired.byInterface.get(name);
      const nameOption = display === undefined ? '' : ` --name ${shellQuote(display)}`;
      if (display !== undefined) {
        names.push(display);
        lines += agents.get(display)?.lines ?? 0;
      }
      command = `tars extension add --tenant ${a.tenantId} --ext ${num}${nameOption} --peer ${shellQuote(name)}`;
      action = 'add-extension';
    } else {
      const iface = paired.byName.get(name);
      if (iface !== undefined) continue; // the command of its interface adds it as the extension's name
      command = `tars extension update --tenant ${a.tenantId} --ext <extension number> --add-alias ${shellQuote(name)}`;
      extension = null;
    }
    hints.push({ kind: 'agent', names, lines, command, action, tenantId: a.tenantId, extension });
  }
  return hints;
}

/**
 * A member name (`Heidi Clark`) and an interface (`Local/208@agents/n`) that are both unknown are taken for
 * one member when they are the only pair of their tenant seen in exactly the same queues: Asterisk writes the
 * interface on ADDMEMBER/REMOVEMEMBER and the name on every call line of the same member (R14). Only a
 * suggestion for the command; nothing is stored from it.
 */
function pairNamesWithInterfaces(agents: ReadonlyMap<string, UnknownAgent>) {
  const key = (a: UnknownAgent) => `${a.tenantId}:${[...a.queues].sort((x, y) => x - y).join(',')}`;
  const names = new Map<string, string[]>();
  const interfaces = new Map<string, string[]>();
  for (const [name, a] of agents) {
    const num = numberOf(name);
    if (num !== undefined && a.knownNumber(num)) continue;
    const into = num === undefined ? names : interfaces;
    into.set(key(a), [...(into.get(key(a)) ?? []), name]);
  }
  const byInterface = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const [k, ns] of names) {
    const is = interfaces.get(k);
    if (ns.length !== 1 || is?.length !== 1) continue;
    byInterface.set(is[0] as string, ns[0] as string);
    byName.set(ns[0] as string, is[0] as string);
  }
  return { byInterface, byName };
}
