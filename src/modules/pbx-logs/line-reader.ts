import { open, stat, type FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

const BUFFER_BYTES = 1 << 20;
/**
 * The longest line kept, in characters: a queue_log or CDR line is well under 1 KB. A longer line is
 * skipped ("line too long") as it is read, without being held, so memory stays flat whatever the file.
 */
export const MAX_LINE_CHARS = 64 * 1024;
export const LINE_TOO_LONG = 'line too long';

/**
 * Reads a log file as lines, a bounded batch at a time, from where it stopped: the whole file for an
 * import, and what was appended since for --follow. Only complete lines (ending in "\n") are returned,
 * except the last line of a file read to its end without following. It notices when the path now names
 * another file (rotated: the rest of the old one is read first) or when the file shrank (truncated).
 */
export class LineReader {
  private handle: FileHandle | null = null;
  private inode = 0;
  private offset = 0;
  private decoder = new StringDecoder('utf8');
  private partial = '';
  /** In the middle of a line past MAX_LINE_CHARS: the rest of it is dropped up to its newline. */
  private dropping = false;
  private tooLong = 0;
  size = 0;

  constructor(readonly path: string) {}

  get position(): number {
    return this.offset;
  }

  async open(): Promise<void> {
    this.handle = await open(this.path, 'r');
    const st = await this.handle.stat();
    this.inode = st.ino;
    this.size = st.size;
    this.offset = 0;
    this.partial = '';
    this.dropping = false;
    this.decoder = new StringDecoder('utf8');
  }

  /** Lines skipped for being past MAX_LINE_CHARS since the last call (they are not among the lines returned). */
  takeTooLong(): number {
    const n = this.tooLong;
    this.tooLong = 0;
    return n;
  }

  /**
   * Up to `max` lines from the current position; [] at the end of the data. `final`: the end of the file
   * is the end of its last line, even without a newline.
   */
  async next(max: number, final: boolean): Promise<string[]> {
    const lines: string[] = [];
    const buffer = Buffer.allocUnsafe(BUFFER_BYTES);
    while (lines.length < max && this.handle) {
      const { bytesRead } = await this.handle.read(buffer, 0, BUFFER_BYTES, this.offset);
      if (bytesRead === 0) break;
      this.offset += bytesRead;
      this.split(this.decoder.write(buffer.subarray(0, bytesRead)), lines);
    }
    if (final && lines.length < max && (this.partial !== '' || this.dropping)) {
      this.keep(this.partial + this.decoder.end(), lines);
      this.partial = '';
    }
    if (this.offset > this.size) this.size = this.offset;
    return lines;
  }

  private split(text: string, into: string[]): void {
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      this.keep(this.partial + text.slice(start, nl), into);
      this.partial = '';
      start = nl + 1;
    }
    if (this.dropping) return;
    this.partial += text.slice(start);
    if (this.partial.length > MAX_LINE_CHARS + 1) {
      this.partial = '';
      this.dropping = true;
    }
  }

  /** A complete line: returned, or counted as too long (also when its start was already dropped). */
  private keep(line: string, into: string[]): void {
    const text = stripCr(line);
    if (this.dropping || text.length > MAX_LINE_CHARS) this.tooLong++;
    else into.push(text);
    this.dropping = false;
  }

  /** What happened to the path since it was opened: 'same', 'grown', 'rotated' (another file) or 'truncated'. */
  async check(): Promise<'same' | 'grown' | 'rotated' | 'truncated'> {
    let st;
    try {
      st = await stat(this.path);
    } catch {
      return 'same'; // between a rename and the new file's creation
    }
    if (st.ino !== this.inode) return 'rotated';
    if (st.size < this.offset) return 'truncated';
    this.size = st.size;
    return st.size > this.offset ? 'grown' : 'same';
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = null;
  }
}

const stripCr = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);
