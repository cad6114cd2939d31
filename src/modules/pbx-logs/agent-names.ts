import { pbxNameKey } from '../../pbx-name';

/**
 * One agent, many names (reporting.md R14): which extension of a tenant an agent string of a PBX log names.
 * Asterisk writes a member's interface on ADDMEMBER/REMOVEMEMBER (`Local/1001@from-queue/n`, `PJSIP/1001`),
 * its member name on call and pause lines (`Bob Smith`), `Agent/1001` for agent channels, and CDR channels
 * such as `Local/1001@from-queue-0000001b;1` (whose agent, the text before the last `-`, is
 * `Local/1001@from-queue`). Pure: the importers and the live layer share it.
 */

export interface ExtensionRef {
  readonly extNum: number;
  /** The extension's peerName: the name its agent is counted under. */
  readonly peer: string;
}

/** An extension as the directory reads it. */
export interface DirectoryExtension extends ExtensionRef {
  readonly extName: string;
  /** JSON array of strings (extensions.agent_aliases). */
  readonly aliases: string;
}

/** `Local/<extNum>@<context>…` and `Agent/<extNum>` name the extension with that number. */
const NUMBERED = /^(?:Local\/([^@/;]+)@|Agent\/([^@/;]+)$)/i;

export class AgentNames {
  private readonly exact = new Map<string, ExtensionRef>();
  private readonly numbers = new Map<string, ExtensionRef>();
  private readonly displayNames = new Map<string, ExtensionRef | null>();
  private readonly cache = new Map<string, ExtensionRef | null>();

  constructor(extensions: readonly DirectoryExtension[]) {
    for (const e of extensions) {
      const ref = { extNum: e.extNum, peer: e.peer };
      this.numbers.set(String(e.extNum), ref);
      // A name two extensions share names neither of them.
      const display = pbxNameKey(e.extName);
      if (display !== '') this.displayNames.set(display, this.displayNames.has(display) ? null : ref);
    }
    // Aliases after peerNames, so that a peerName always wins over another extension's alias.
    for (const e of extensions)
      for (const alias of parseAliases(e.aliases)) this.exact.set(pbxNameKey(alias), { extNum: e.extNum, peer: e.peer });
    for (const e of extensions) this.exact.set(pbxNameKey(e.peer), { extNum: e.extNum, peer: e.peer });
  }

  /** The extension an agent string names: by peerName, alias, Local/Agent number, then a unique extName. */
  resolve(agent: string): ExtensionRef | undefined {
    let ref = this.cache.get(agent);
    if (ref === undefined) {
      ref = this.lookUp(agent) ?? null;
      this.cache.set(agent, ref);
    }
    return ref ?? undefined;
  }

  byNumber(extNum: string): ExtensionRef | undefined {
    return this.numbers.get(extNum);
  }

  private lookUp(agent: string): ExtensionRef | undefined {
    // Names as Asterisk compares them: ASCII case folded, nothing else (src/pbx-name.ts).
    const key = pbxNameKey(agent);
    const exact = this.exact.get(key);
    if (exact) return exact;
    const m = NUMBERED.exec(agent);
    const numbered = m ? this.numbers.get((m[1] ?? m[2]) as string) : undefined;
    return numbered ?? this.displayNames.get(key) ?? undefined;
  }
}

/** The aliases column's strings; anything else in it (hand-edited) counts as none. */
export function parseAliases(json: string): string[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s !== '') : [];
  } catch {
    return [];
  }
}
