import { csvChunks } from './csv';
import type { SheetFormat, Workbook } from './sheet';
import { writeXlsx, type ByteSink } from './xlsx';

/** Writes a workbook as CSV (its first sheet) or XLSX to the sink, as its rows come. */
export async function writeWorkbook(book: Workbook, format: SheetFormat, sink: ByteSink): Promise<void> {
  if (format === 'xlsx') return writeXlsx(book, sink);
  const encoder = new TextEncoder();
  const first = book.sheets[0];
  if (first) for await (const text of csvChunks(first)) await sink.write(encoder.encode(text));
}

/** The whole file in memory: for an e-mail attachment, whose size the mail server bounds anyway. */
export async function workbookBytes(book: Workbook, format: SheetFormat): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  await writeWorkbook(book, format, { write: async (chunk) => void parts.push(chunk) });
  return Buffer.concat(parts);
}
