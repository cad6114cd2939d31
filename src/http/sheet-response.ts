import { once } from 'node:events';
import type { Request, Response } from 'express';
import { CONTENT_TYPES, fileName, type SheetFormat, type Workbook } from '../sheets/sheet';
import { writeWorkbook } from '../sheets/write';

/**
 * The format a report is asked for (reporting.md R24): `?format=` wins, else the Accept header's most preferred
 * of JSON, CSV and XLSX (JSON when it names none of them, or anything). A `format` that is none of them is a 400
 * of the query (the route reports it with the other problems of the request).
 */
export type ReportFormat = 'json' | SheetFormat;
export const FORMATS: readonly ReportFormat[] = ['json', 'csv', 'xlsx'];

const MEDIA: Readonly<Record<string, ReportFormat>> = {
  'application/json': 'json',
  'text/csv': 'csv',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
};

export function requestedFormat(req: Request): ReportFormat | { problem: string } {
  const asked = (req.query as Record<string, unknown>).format;
  if (asked !== undefined)
    return typeof asked === 'string' && (FORMATS as readonly string[]).includes(asked)
      ? (asked as ReportFormat)
      : { problem: `format must be one of ${FORMATS.join(', ')}` };
  let best: { format: ReportFormat; q: number } = { format: 'json', q: 0 };
  for (const part of (req.headers.accept ?? '').split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const format = MEDIA[type.trim()];
    const q = Number(/^\s*q=([\d.]+)\s*$/.exec(params.find((x) => /^\s*q=/.test(x)) ?? '')?.[1] ?? 1);
    if (format && q > best.q) best = { format, q };
  }
  return best.format;
}

/**
 * Sends the workbook as an attachment, written as its rows come and only as fast as the client reads. An error
 * before the first byte goes to the error handler as any error; one after it can only cut the download short.
 */
export async function sendWorkbook(res: Response, status: number, book: Workbook, format: SheetFormat): Promise<void> {
  let started = false;
  const start = () => {
    started = true;
    res.status(status);
    res.setHeader('Content-Type', CONTENT_TYPES[format]);
    res.setHeader('Content-Disposition', `attachment; filename="${fileName([book.name], format)}"`);
    res.setHeader('X-Content-Type-Options', 'nosniff');
  };
  try {
    await writeWorkbook(book, format, {
      write: async (chunk) => {
        if (!started) start();
        if (res.destroyed) throw new Error('the client went away');
        if (!res.write(chunk)) await drainedOrClosed(res);
      },
    });
  } catch (err) {
    if (!started) throw err;
    res.destroy(err as Error);
    return;
  }
  if (!started) start();
  res.end();
}

/**
 * Until the response can take more or is closed. The wait that loses the race is taken off: left, each wait left a
 * 'close' (or 'drain') and an 'error' listener on the response, thousands over a year of lost calls (Node warned
 * of a leak at the eleventh), each holding its promise until the download ended.
 */
async function drainedOrClosed(res: Response): Promise<void> {
  const done = new AbortController();
  try {
    await Promise.race([once(res, 'drain', { signal: done.signal }), once(res, 'close', { signal: done.signal })]);
  } finally {
    done.abort();
  }
}
