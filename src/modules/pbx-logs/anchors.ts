import type { ImportStore } from './import-store';

/** An ENTERQUEUE line's place in the canonical order of lines: time, then import order. */
export interface EnterRef {
  readonly time: number;
  readonly seq: number;
}

/**
 * Asterisk call ids are the caller channel's uniqueid, "epoch.sequence" (optionally prefixed by a system
 * name), created when the call arrives: its ENTERQUEUE cannot be older. That bounds every search for a
 * call's ENTERQUEUE to a short stretch of the queue's rows. A minute of slack covers clock adjustments;
 * an id of another form searches the whole queue.
 */
function searchFloor(callid: string): number {
  const m = /(\d{9,})\.\d+$/.exec(callid);
  return m ? Number(m[1]) - 60 : 0;
}

/** The latest stored ENTERQUEUE of (queue, callid) at or before `until` (epoch seconds), or null. */
export async function latestEnter(store: ImportStore, queueId: number, callid: string, until: number): Promise<EnterRef | null> {
  return (await store.latestEnter({ queue: queueId, callid, floor: searchFloor(callid), until })) ?? null;
}

/**
 * reporting.md R3 during an import: each call event counts at the time of the latest ENTERQUEUE of its
 * (callid, queue) before it. The ENTERQUEUE lines of this import are remembered; any other is looked up
 * in the stored rows. The memory is two generations of at most GENERATION entries each, the older
 * dropped whole when the newer fills: bounded, and without deleting single Map entries, which makes
 * V8 Maps slow to iterate.
 */
export class AnchorCache {
  static readonly GENERATION = 50_000;
  private current = new Map<string, number | null>();
  private previous = new Map<string, number | null>();
  constructor(private readonly store: ImportStore) {}

  forget(): void {
    this.current = new Map();
    this.previous = new Map();
  }

  /** Records an ENTERQUEUE line (also a duplicate one: later lines of the same call still belong to it). */
  entered(queueId: number, callid: string, time: number): void {
    this.remember(`${queueId}|${callid}`, time);
  }

  private remember(key: string, enterTime: number | null): void {
    if (this.current.size >= AnchorCache.GENERATION) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, enterTime);
  }

  /**
   * The anchor of a call event at `time` that follows every stored line: its ENTERQUEUE's time, or its own;
   * undefined when the call is not known here (`lookUp` then).
   */
  anchorOf(queueId: number, callid: string, time: number): number | undefined {
    const key = `${queueId}|${callid}`;
    const enter = this.current.get(key) ?? this.previous.get(key);
    return enter === undefined ? undefined : anchorAt(enter, time);
  }

  /** The anchor of a call event not known here: its ENTERQUEUE looked up in the stored rows (and remembered). */
  async lookUp(queueId: number, callid: string, time: number): Promise<number> {
    const enter = (await latestEnter(this.store, queueId, callid, time))?.time ?? null;
    this.remember(`${queueId}|${callid}`, enter);
    return anchorAt(enter, time);
  }
}

/** An ENTERQUEUE later in time (a file out of time order) cannot anchor it; the late-line rebuild settles such calls. */
const anchorAt = (enter: number | null, time: number): number => (enter !== null && enter <= time ? enter : time);
