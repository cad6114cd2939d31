/**
 * Idempotency keys of imported lines. A line is stored with (its time, a 53-bit hash of its text), so the
 * same file imported twice, or an overlapping one, stores nothing twice. reporting.md R1 counts identical
 * lines within one file each time, so the second copy of a line in one file (or one ingest request) hashes
 * its text together with its rank among the copies: its key differs from the first copy's, and is the same
 * again when the file is imported again.
 */

/** cyrb53 (public domain, bryc): a fast, well-mixed 53-bit string hash. */
export function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * Ranks of identical lines within one file. Identical lines carry the same timestamp, so only lines of the
 * recent past are remembered (a sliding window of one day of log time, and at most MAX_REMEMBERED lines):
 * memory stays flat whatever the file's size. Two identical lines further apart than that (possible only
 * in a file out of time order) would get the same key, and the second would count as a duplicate.
 */
export class LineKeys {
  static readonly WINDOW_SECONDS = 86_400;
  static readonly MAX_REMEMBERED = 500_000;
  private readonly counts = new Map<number, number>();
  private readonly times: number[] = [];
  private readonly hashes: number[] = [];
  private head = 0;
  private newest = -Infinity;

  /** The key of a line with this text and time. */
  keyOf(text: string, time: number): number {
    const hash = hash53(text);
    const rank = this.counts.get(hash) ?? 0;
    this.counts.set(hash, rank + 1);
    if (rank === 0) this.remember(time, hash);
    return rank === 0 ? hash : hash53(text, rank);
  }

  private remember(time: number, hash: number): void {
    this.times.push(time);
    this.hashes.push(hash);
    if (time > this.newest) this.newest = time;
    if ((this.times.length & 1023) === 0) this.forgetOld(); // now and then: cheaper than for every line
  }

  private forgetOld(): void {
    const oldest = this.newest - LineKeys.WINDOW_SECONDS;
    while (this.head < this.times.length && ((this.times[this.head] as number) < oldest || this.times.length - this.head > LineKeys.MAX_REMEMBERED)) {
      this.counts.delete(this.hashes[this.head] as number);
      this.head++;
    }
    if (this.head > 65_536) {
      this.times.splice(0, this.head);
      this.hashes.splice(0, this.head);
      this.head = 0;
    }
  }
}
