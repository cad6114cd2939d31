import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { MAX_LINE_CHARS } from '../../src/modules/pbx-logs/line-reader';
import { FIXTURES, QUEUE_LOG_SAMPLE } from '../helpers/pbx-logs';

const tars = (args: string[], heapMb?: number) =>
  spawnSync(process.execPath, [...(heapMb ? [`--max-old-space-size=${heapMb}`] : []), 'dist/tars.cjs', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });

/** Writes `text` then `mb` MiB of "A" without holding them in memory at once. */
function writeLongLine(fd: number, head: string, mb: number): void {
  writeSync(fd, head);
  const chunk = Buffer.alloc(1024 * 1024, 'A');
  for (let i = 0; i < mb; i++) writeSync(fd, chunk);
}

/** Issue 16, point 10: a line past MAX_LINE_CHARS is skipped with its own reason, and never held whole. */
describe('tars import with a line of many megabytes', function () {
  this.timeout(180_000);
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-long-line-'));
    expect(tars(['seed', join(FIXTURES, 'acme.json'), '--data-dir', join(dir, 'data')]).status).to.equal(0);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('when a 64 MiB line sits in the middle of the sample (and a 2 MiB one ends it), then both are skipped as "line too long", the rest is imported, within a 48 MB heap', () => {
    const lines = readFileSync(QUEUE_LOG_SAMPLE, 'utf8').split('\n');
    const half = Math.floor(lines.length / 2);
    const file = join(dir, 'queue_log');
    const fd = openSync(file, 'w');
    try {
      writeSync(fd, `${lines.slice(0, half).join('\n')}\n`);
      writeLongLine(fd, '1700000000|1700000000.1|q1|NONE|ENTERQUEUE|', 64);
      writeSync(fd, `\n${lines.slice(half).join('\n')}`); // ends with the sample's newlines
      writeLongLine(fd, '1700000001|1700000001.1|q1|NONE|ENTERQUEUE|', 2); // the last line, no newline
    } finally {
      closeSync(fd);
    }
    // The old reader held the whole line (a 300 MB line took 669 MB): with this heap it died.
    const res = tars(['import', 'queue-log', file, '--data-dir', join(dir, 'data')], 48);
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stdout).to.match(/: 491 lines read, 482 imported, 0 duplicates, 9 skipped \(2 line too long, /);
    expect(MAX_LINE_CHARS).to.equal(65536);
  });
});
