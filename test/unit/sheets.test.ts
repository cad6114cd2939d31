import { expect } from 'chai';
import { csvCell } from '../../src/sheets/csv';
import { fileName, type Cell, type SheetFormat } from '../../src/sheets/sheet';
import { workbookBytes, writeWorkbook } from '../../src/sheets/write';
import { columnLetters, escapeXml } from '../../src/sheets/xlsx';
import { readXlsx } from '../helpers/sheets';

describe('the spreadsheet writer (reporting.md R24)', () => {
  it('when a text cell begins like a formula, then CSV gives it an apostrophe, but not a phone or a negative number', () => {
    const cases: [string, string][] = [
      ['=1+1', "'=1+1"],
      ['+1 (312) 555-0100', "'+1 (312) 555-0100"],
      ['+13125550100', '+13125550100'],
      ['-15', '-15'],
      ['-1.5', "'-1.5"],
      ['-', "'-"],
      ['@cmd', "'@cmd"],
      ['\tx', "'\tx"],
      ['\rx', `"'\rx"`],
      ['a=b', 'a=b'],
      ['say "hi", then', '"say ""hi"", then"'],
      ['=HYPERLINK("x")', `"'=HYPERLINK(""x"")"`],
    ];
    for (const [text, csv] of cases) expect(csvCell(text), JSON.stringify(text)).to.equal(csv);
    expect([csvCell(-3), csvCell(2.5), csvCell(null), csvCell(true)]).to.deep.equal(['-3', '2.5', '', 'true']);
  });

  it('when text holds what XML cannot, then it is escaped so that every character comes back', async () => {
    expect(escapeXml('a<b>&"c"')).to.equal('a&lt;b&gt;&amp;&quot;c&quot;');
    expect(escapeXml('x\u0001y')).to.equal('x_x0001_y');
    expect(escapeXml('_x0041_')).to.equal('_x005F_x0041_');
    const text = 'bell\u0007 tab\t nl\n _x0041_ \uD83D\uDE00 lone\uD800!';
    const book = { name: 'x', sheets: [{ name: 'S', columns: [{ header: 'text', kind: 'text' as const }], rows: [[[text]]] }] };
    const [sheet] = await readXlsx(await workbookBytes(book, 'xlsx'));
    expect((sheet as { data: unknown[][] }).data[1]?.[0]).to.equal(text);
  });

  it('when columns pass Z, then they are lettered as a spreadsheet letters them; file names keep only safe characters', () => {
    expect([0, 25, 26, 27, 51, 52, 701, 702].map(columnLetters)).to.deep.equal(['A', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA']);
    expect(fileName(['queue-stats_2026-10-31 10:30_2026-11-02T00:00:00+05:30"; x'], 'csv')).to.equal(
      'queue-stats_2026-10-31-10-30_2026-11-02T00-00-00-05-30-x.csv',
    );
  });

  it("when a sheet's rows come in batches, then CSV and XLSX bytes reach the sink batch by batch, not once every row was read", async () => {
    const BATCHES = 40;
    const ROWS = 500;
    for (const format of ['csv', 'xlsx'] as SheetFormat[]) {
      let written = 0;
      const seenAtBatch: number[] = []; // bytes the sink had when the writer asked for each batch
      let seed = 7;
      async function* rows(): AsyncGenerator<Cell[][]> {
        for (let b = 0; b < BATCHES; b++) {
          seenAtBatch.push(written);
          yield Array.from({ length: ROWS }, (_, i) => {
            seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31; // text deflate cannot squeeze to nothing
            return [b * ROWS + i, `+1312${seed}`, `caller ${seed.toString(36)}`];
          });
        }
      }
      const columns = [
        { header: 'n', kind: 'number' as const },
        { header: 'callerIdNum', kind: 'text' as const },
        { header: 'name', kind: 'text' as const },
      ];
      const parts: Uint8Array[] = [];
      const book = { name: 'big', sheets: [{ name: 'Lost calls', columns, rows: rows() }] };
      await writeWorkbook(book, format, { write: async (chunk) => void ((written += chunk.length), parts.push(chunk)) });
      const total = Buffer.concat(parts);
      // Each batch's bytes were given to the sink before the next batch was read: what a writer holding every row
      // until the end (and so a whole year of lost calls in memory) would not do.
      const grew = seenAtBatch.slice(1).filter((n, i) => n > (seenAtBatch[i] as number)).length;
      expect(grew, `${format}: batches after which the sink had more bytes`).to.be.at.least(BATCHES - 3);
      expect(seenAtBatch.at(-1), format).to.be.above(total.length * 0.8);
      if (format === 'csv') expect(total.toString('utf8').split('\r\n').length - 2, 'csv rows').to.equal(BATCHES * ROWS);
      else {
        const [sheet] = await readXlsx(total);
        expect((sheet as { data: unknown[][] }).data.length - 1, 'xlsx rows').to.equal(BATCHES * ROWS);
      }
    }
  });
});
