import { setTimeout as sleep } from 'node:timers/promises';
import type { ImportSummary } from './import-summary';
import { LINE_TOO_LONG, LineReader } from './line-reader';

/** Either importer, as the file readers drive it. */
export interface LineImporter {
  readonly summary: ImportSummary;
  importLines(lines: readonly string[]): Promise<void>;
  finish(): Promise<ImportSummary>;
  newFile(): void;
}

export interface FileImportOptions {
  /** Lines per chunk (one write transaction each). */
  readonly chunkLines?: number;
  /** Called after every chunk with the bytes read so far and the file's size. */
  readonly onProgress?: (position: number, size: number) => void;
}

const DEFAULT_CHUNK_LINES = 10_000;

/** Imports a whole file, streaming: memory holds one chunk of lines whatever the file's size. */
export async function importFile(importer: LineImporter, path: string, opts: FileImportOptions = {}): Promise<ImportSummary> {
  const reader = new LineReader(path);
  await reader.open();
  try {
    await drain(importer, reader, true, opts);
  } finally {
    await reader.close();
  }
  return importer.finish();
}

async function drain(importer: LineImporter, reader: LineReader, final: boolean, opts: FileImportOptions): Promise<boolean> {
  let any = false;
  for (;;) {
    const lines = await reader.next(opts.chunkLines ?? DEFAULT_CHUNK_LINES, final);
    const tooLong = reader.takeTooLong();
    if (lines.length === 0 && tooLong === 0) return any;
    for (let i = 0; i < tooLong; i++) {
      importer.summary.read++;
      importer.summary.skip(LINE_TOO_LONG);
    }
    await importer.importLines(lines);
    any = true;
    opts.onProgress?.(reader.position, reader.size);
  }
}

/**
 * Imports a file and keeps following it until `signal` aborts: lines appended later are imported as they
 * come (a line is taken once its newline is written), and the derived data is brought up to date after
 * each batch, so reports are live. When the path names a new file (logrotate's rename-and-create) the rest
 * of the old file is read first; when the file shrinks (copytruncate) it is read again from its start.
 */
export async function followFile(
  importer: LineImporter,
  path: string,
  signal: AbortSignal,
  opts: FileImportOptions & { pollMs?: number; onCaughtUp?: () => void } = {},
): Promise<ImportSummary> {
  let reader = new LineReader(path);
  await reader.open();
  let caughtUp = false;
  try {
    while (!signal.aborted) {
      if (await drain(importer, reader, false, opts)) await importer.finish();
      if (!caughtUp) {
        caughtUp = true; // what was in the file at the start is history; what follows arrives live
        opts.onCaughtUp?.();
      }
      const change = await reader.check();
      if (change === 'rotated' || change === 'truncated') {
        if (change === 'rotated' && (await drain(importer, reader, true, opts))) await importer.finish();
        await reader.close();
        reader = new LineReader(path);
        await reader.open();
        importer.newFile();
      } else if (change === 'same') {
        await sleep(opts.pollMs ?? 500, undefined, { signal }).catch(() => undefined);
      }
    }
  } finally {
    await reader.close();
  }
  return importer.finish();
}
