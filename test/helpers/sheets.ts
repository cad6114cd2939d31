import { readSheet } from 'read-excel-file/node';

/** A report asked for as a spreadsheet: the raw bytes, with the status and headers. */
export async function download(url: string, path: string, token: string, opts: { body?: unknown; method?: string; accept?: string } = {}) {
  const res = await fetch(url + path, {
    method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
    headers: {
      authorization: `Bearer ${token}`,
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(opts.accept ? { accept: opts.accept } : {}),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** RFC 4180 read back (quoted fields, doubled quotes, CRLF): independent of the writer. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((cell += '"'), i++);
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (row.push(cell), (cell = ''));
    else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      ((row = []), (cell = ''), i++);
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) throw new Error('CSV does not end with CRLF');
  return rows;
}

/** An XLSX read by read-excel-file (a maintained reader, not TARS's writer): every sheet's rows of typed values. */
export async function readXlsx(bytes: Buffer): Promise<{ sheet: string; data: unknown[][] }[]> {
  const { default: readAll } = await import('read-excel-file/node');
  return (await readAll(bytes, { trim: false })) as { sheet: string; data: unknown[][] }[];
}
export { readSheet };

type Json = Record<string, unknown>;

/**
 * A JSON report row spread the way reporting.md R24 names the columns, written here from the rule, not from the
 * code: a nested object becomes `key.sub`, service levels `levels.<seconds>.<figure>`, pauses `<key>.<reason>`.
 */
export function flatten(row: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === 'levels') {
      for (const l of v as Json[]) for (const [f, x] of Object.entries(l)) if (f !== 'seconds') out[`levels.${l.seconds}.${f}`] = x;
    } else if (k === 'pauseTimes' || k === 'offDutyTimes') {
      for (const p of v as Json[]) out[`${k}.${p.offDutyReason}`] = p.offDutyTime;
    } else if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [f, x] of Object.entries(v as Json)) out[`${k}.${f}`] = x;
    } else out[k] = v;
  }
  return out;
}

/** What R24 says a CSV cell of a JSON value is: numbers as written, text with the formula guard, null empty. */
export function csvText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'string') return String(v);
  return /^[=+\-@\t\r]/.test(v) && !/^[+-]\d+$/.test(v) ? `'${v}` : v;
}
