import { StringDecoder } from 'node:string_decoder';
import { isSingleLine, SINGLE_LINE_RULE } from '../text-rules';

/**
 * One message of the Asterisk Manager Interface: its `Key: value` lines as Asterisk wrote them (main/manager.c
 * writes one header per line, CRLF, a blank line after the last). A key that comes twice keeps its last value;
 * the keys this server reads (Event, Response, ActionID, Queue, Interface, …) come once.
 */
export type AmiMessage = Readonly<Record<string, string>>;

/** The most one message may hold before the connection is judged broken (a QueueStatus event is ~400 bytes). */
const MAX_MESSAGE_BYTES = 256 * 1024;

/**
 * Splits the bytes of an AMI connection into messages. The first line is the banner (`Asterisk Call
 * Manager/11.0.0`, no blank line after it); then messages end with an empty line. A message cut in two by TCP
 * waits for its second half, and a UTF-8 character cut in two by a read is decoded whole (StringDecoder).
 */
export class AmiParser {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private banner: string | undefined;

  /** `expectBanner: false` reads what a client sends (a peer's side: actions, no banner). */
  constructor({ expectBanner = true }: { expectBanner?: boolean } = {}) {
    if (!expectBanner) this.banner = '';
  }

  /** The banner line, once received. */
  get bannerLine(): string | undefined {
    return this.banner;
  }

  /** Feeds the next bytes; returns the messages they complete, in order. Throws when a message never ends. */
  push(chunk: Buffer | string): AmiMessage[] {
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    if (this.banner === undefined) {
      const eol = this.pending.indexOf('\n');
      if (eol < 0) return this.checkSize([]);
      this.banner = this.pending.slice(0, eol).replace(/\r$/, '');
      this.pending = this.pending.slice(eol + 1);
    }
    const out: AmiMessage[] = [];
    for (;;) {
      const end = /\r?\n\r?\n/.exec(this.pending);
      if (!end) break;
      const text = this.pending.slice(0, end.index);
      this.pending = this.pending.slice(end.index + end[0].length);
      if (text.trim() !== '') out.push(parseMessage(text));
    }
    return this.checkSize(out);
  }

  private checkSize(out: AmiMessage[]): AmiMessage[] {
    if (this.pending.length > MAX_MESSAGE_BYTES) throw new Error(`an AMI message longer than ${MAX_MESSAGE_BYTES} bytes`);
    return out;
  }
}

/** The headers of one message's text (lines without a colon, such as a Command's output, are left out). */
export function parseMessage(text: string): AmiMessage {
  const message: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    message[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
  }
  return message;
}

/** The longest line Asterisk reads (main/manager.c: a session's `inbuf[1025]`); a longer one is discarded whole. */
export const AMI_MAX_LINE_BYTES = 1024;
/** The most headers Asterisk keeps of one action (include/asterisk/manager.h AST_MAX_MANHEADERS). */
export const AMI_MAX_HEADERS = 128;

/** An action that cannot be written as Asterisk would read it: which header, and why. */
export class AmiFormatError extends Error {
  constructor(
    readonly header: string,
    reason: string,
  ) {
    super(`${header} ${reason}`);
  }
}

const HEADER_KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;

/**
 * An action as Asterisk reads it. Each value must be one line by the rule of every single-line text
 * (common#/$defs/line: no line break, which would start a header of its own, nor any other control character) and
 * its `Key: value` line at most AMI_MAX_LINE_BYTES bytes of UTF-8 (Asterisk drops a longer one and reads the rest as
 * headers). Throws AmiFormatError rather than write anything else.
 */
export function formatAction(fields: Readonly<Record<string, string | number>>): string {
  const entries = Object.entries(fields);
  if (entries.length > AMI_MAX_HEADERS) throw new AmiFormatError('the action', `has more than ${AMI_MAX_HEADERS} headers`);
  let text = '';
  for (const [key, value] of entries) {
    const v = String(value);
    if (!HEADER_KEY.test(key)) throw new AmiFormatError(`header name ${JSON.stringify(key)}`, 'is not a name Asterisk reads');
    if (!isSingleLine(v)) throw new AmiFormatError(key, `${JSON.stringify(v.slice(0, 40))} is not one line: it ${SINGLE_LINE_RULE}`);
    const line = `${key}: ${v}`;
    if (Buffer.byteLength(line, 'utf8') > AMI_MAX_LINE_BYTES)
      throw new AmiFormatError(key, `is longer than the ${AMI_MAX_LINE_BYTES} bytes of a line Asterisk reads`);
    text += `${line}\r\n`;
  }
  return `${text}\r\n`;
}
