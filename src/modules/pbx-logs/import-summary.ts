/** What an import did, line by line: the one-line summary of the CLI and the body of the ingest routes. */
export interface ImportSummaryJson {
  read: number;
  imported: number;
  duplicates: number;
  skipped: number;
  /** Skipped lines by reason. */
  skippedBy: Record<string, number>;
  /** queue_log queue names that match no queue, with their line counts. */
  unknownQueues: Record<string, number>;
  /** Agent names that resolve to no extension of the queue's tenant (R14), with their line counts (the lines are kept). */
  unknownAgents: Record<string, number>;
  /** For the unknown queues and agents: the command that maps each (mapping-hints.ts). */
  toMap: MappingHint[];
  /** The zone wall-clock times were read in (reporting.md R16). */
  timezone: string;
}

import { mappingHints, printable, type MappingHint, type UnknownAgent } from './mapping-hints';

/** The key of an outcome in `outcomes()`: outcome and reason, tab-separated. */
const outcomeKey = (outcome: 'imported' | 'duplicate' | 'skipped', reason: string) => `${outcome}\t${reason}`;

const bump = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + 1);
const sortedObject = (m: Map<string, number>) => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export class ImportSummary {
  /** The zone wall-clock times are read in; `wallTimes`: whether the lines had any (the line names the zone then). */
  timezone = 'UTC';
  wallTimes = false;
  read = 0;
  imported = 0;
  duplicates = 0;
  private readonly skips = new Map<string, number>();
  private readonly queues = new Map<string, number>();
  private readonly agents = new Map<string, number>();
  private readonly agentsSeen = new Map<string, { tenantId: number; lines: number; queues: Set<number> }>();

  /**
   * @param knownNumber whether a tenant has an extension of this number (the directory of the import)
   * @param soleTenant the tenant the import is for, when it is one: unknown queues are added there
   */
  constructor(
    private readonly knownNumber: (tenantId: number, extNum: string) => boolean = () => false,
    public soleTenant?: number,
  ) {}

  skip(reason: string): void {
    bump(this.skips, reason);
  }

  unknownQueue(name: string): void {
    bump(this.queues, name);
  }

  unknownAgent(name: string, tenantId: number, queueId: number | null): void {
    bump(this.agents, name);
    let seen = this.agentsSeen.get(name);
    if (!seen) this.agentsSeen.set(name, (seen = { tenantId, lines: 0, queues: new Set() }));
    seen.lines++;
    if (queueId !== null) seen.queues.add(queueId);
  }

  /** The commands that would map the unknown queues and agents. */
  hints(): MappingHint[] {
    const agents = new Map<string, UnknownAgent>();
    for (const [name, a] of this.agentsSeen) agents.set(name, { ...a, knownNumber: (n) => this.knownNumber(a.tenantId, n) });
    return mappingHints(this.queues, agents, this.soleTenant);
  }

  /** Lines by outcome and skip reason ('' unless skipped): what `import_line_counts` accumulates. */
  outcomes(): Map<string, number> {
    const m = new Map<string, number>([
      [outcomeKey('imported', ''), this.imported],
      [outcomeKey('duplicate', ''), this.duplicates],
    ]);
    for (const [reason, n] of this.skips) m.set(outcomeKey('skipped', reason), n);
    return m;
  }

  get skipped(): number {
    let n = 0;
    for (const c of this.skips.values()) n += c;
    return n;
  }

  toJSON(): ImportSummaryJson {
    return {
      read: this.read,
      imported: this.imported,
      duplicates: this.duplicates,
      skipped: this.skipped,
      skippedBy: sortedObject(this.skips),
      unknownQueues: sortedObject(this.queues),
      unknownAgents: sortedObject(this.agents),
      toMap: this.hints(),
      timezone: this.timezone,
    };
  }

  /** e.g. "489 lines read, 480 imported, 0 duplicates, 9 skipped (2 blank line, …); unknown queues: 999 (3)". */
  toLine(): string {
    const list = (m: Map<string, number>) => [...m].map(([k, n]) => `${printable(k) || '""'} (${n})`).join(', ');
    const skipped = this.skipped > 0 ? ` (${[...this.skips].map(([r, n]) => `${n} ${r}`).join(', ')})` : '';
    let line = `${this.read} lines read, ${this.imported} imported, ${this.duplicates} duplicates, ${this.skipped} skipped${skipped}`;
    if (this.queues.size > 0) line += `; unknown queues: ${list(this.queues)}`;
    if (this.agents.size > 0) line += `; agents without an extension: ${list(this.agents)}`;
    if (this.wallTimes) line += `; wall-clock times read in ${this.timezone}`;
    return line;
  }

  /** The summary line, then what to run to map what was unknown, one command per line. */
  toText(): string {
    const hints = this.hints();
    if (hints.length === 0) return this.toLine();
    const lines = hints.map((h) => `  ${h.command}    # ${h.names.map(printable).join(' = ')}: ${h.lines} line${h.lines === 1 ? '' : 's'}`);
    const again = this.queues.size > 0 ? ' Lines of unknown queues were skipped: import the file again after adding them.' : '';
    const kept = this.agents.size > 0 ? ' Lines of unknown agents were kept and count for the agent once it is mapped.' : '';
    return `${this.toLine()}\nTo map them:${again}${kept}\n${lines.join('\n')}`;
  }
}
