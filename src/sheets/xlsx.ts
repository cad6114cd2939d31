import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { isInstant, type Cell, type Column, type Workbook } from './sheet';

/**
 * A streaming XLSX (Office Open XML) writer: the parts a spreadsheet needs, each sheet's XML deflated into the
 * zip as its rows come, so memory follows a batch of rows, not the report. Written here on fflate's streaming
 * zip because no maintained npm package streams XLSX without a large, stale dependency tree (docs/reporting.md).
 * Text is always an inline string cell (never a formula, whatever it begins with: reporting.md R24), numbers
 * are numeric cells, instants date cells in local time, the header row bold and frozen.
 */

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
/** Style indexes of styles.xml's cellXfs: 0 plain, 1 bold (the header), 2 a date and time. */
const BOLD = 1;
const DATE = 2;
const STYLES = `${XML}<styleSheet xmlns="${NS}"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss"/></numFmts><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;

/** Where the bytes go: a response, a buffer; `write` resolves when more may be written (backpressure). */
export interface ByteSink {
  write(chunk: Uint8Array): Promise<void>;
}

/** Writes the workbook to the sink as it is produced; rejects (having written part of it) when its rows fail. */
export async function writeXlsx(book: Workbook, sink: ByteSink): Promise<void> {
  const pending: Uint8Array[] = [];
  let failure: Error | null = null;
  let done = false;
  const zip = new Zip((err, chunk, final) => {
    if (err) failure = err;
    else pending.push(chunk);
    if (final) done = true;
  });
  const flush = async () => {
    if (failure) throw failure;
    while (pending.length > 0) await sink.write(pending.shift() as Uint8Array);
  };
  const small = (path: string, text: string) => {
    const file = new ZipPassThrough(path);
    zip.add(file);
    file.push(new TextEncoder().encode(text), true);
  };
  const sheets = book.sheets.map((s, i) => ({ ...s, name: sheetName(s.name, i) }));
  small('[Content_Types].xml', contentTypes(sheets.length));
  small(
    '_rels/.rels',
    `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  );
  small('xl/workbook.xml', workbookXml(sheets.map((s) => s.name)));
  small('xl/_rels/workbook.xml.rels', workbookRels(sheets.length));
  small('xl/styles.xml', STYLES);
  await flush();
  const encoder = new TextEncoder();
  for (const [i, sheet] of sheets.entries()) {
    const file = new ZipDeflate(`xl/worksheets/sheet${i + 1}.xml`, { level: 6 });
    zip.add(file);
    file.push(
      encoder.encode(
        `${XML}<worksheet xmlns="${NS}" xmlns:r="${REL}"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews><sheetData>${headerRow(sheet.columns)}`,
      ),
    );
    let r = 2;
    for await (const batch of sheet.rows) {
      let xml = '';
      for (const row of batch) xml += rowXml(r++, sheet.columns, row);
      if (xml !== '') file.push(encoder.encode(xml));
      await flush();
    }
    file.push(encoder.encode('</sheetData></worksheet>'), true);
    await flush();
  }
  zip.end();
  await flush();
  if (!done) throw new Error('the XLSX zip did not end');
}

function contentTypes(sheets: number): string {
  const overrides = Array.from(
    { length: sheets },
    (_, i) =>
      `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
  ).join('');
  return `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>${overrides}</Types>`;
}

function workbookXml(names: readonly string[]): string {
  const sheets = names.map((n, i) => `<sheet name="${escapeXml(n)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('');
  return `${XML}<workbook xmlns="${NS}" xmlns:r="${REL}"><sheets>${sheets}</sheets></workbook>`;
}

function workbookRels(sheets: number): string {
  const rels = Array.from(
    { length: sheets },
    (_, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
  );
  rels.push(`<Relationship Id="rId${sheets + 1}" Type="${REL}/styles" Target="styles.xml"/>`);
  return `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join('')}</Relationships>`;
}

/** Excel's rule for sheet names: at most 31 characters, none of []:*?/\, unique (here: numbered when empty). */
function sheetName(name: string, index: number): string {
  return (
    name
      .replace(/[[\]:*?/\\]/g, ' ')
      .slice(0, 31)
      .trim() || `Sheet${index + 1}`
  );
}

/** A, B, … Z, AA, … for column index i (0-based). */
export function columnLetters(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

function headerRow(columns: readonly Column[]): string {
  return `<row r="1">${columns.map((c, i) => textCell(`${columnLetters(i)}1`, c.header, BOLD)).join('')}</row>`;
}

function rowXml(r: number, columns: readonly Column[], row: readonly Cell[]): string {
  let xml = `<row r="${r}">`;
  for (let i = 0; i < columns.length; i++) {
    const v = row[i];
    if (v === null || v === undefined || v === '') continue;
    const ref = `${columnLetters(i)}${r}`;
    if (typeof v === 'number') xml += Number.isFinite(v) ? `<c r="${ref}"><v>${v}</v></c>` : textCell(ref, String(v));
    else if (typeof v === 'boolean') xml += `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
    else if (isInstant(v))
      xml += `<c r="${ref}" s="${DATE}"><v>${v.wall / 86_400 + 25_569}</v></c>`; // days since 1899-12-30
    else xml += textCell(ref, v);
  }
  return `${xml}</row>`;
}

/** A string cell holding the text as it is: an inline string, which a spreadsheet never evaluates. */
function textCell(ref: string, text: string, style = 0): string {
  return `<c r="${ref}"${style ? ` s="${style}"` : ''} t="inlineStr"><is><t xml:space="preserve">${escapeXml(text)}</t></is></c>`;
}

/* eslint-disable no-control-regex -- the characters XML cannot hold are exactly what it looks for */
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/* eslint-enable no-control-regex */

/**
 * XML text: & < > " escaped; characters XML 1.0 cannot hold (control characters, lone surrogates) written as
 * OOXML's _xHHHH_ escapes, and a literal _xHHHH_ escaped in turn, so that every character of the text survives.
 */
export function escapeXml(s: string): string {
  return s
    .replace(/_(x[0-9A-Fa-f]{4}_)/g, '_x005F_$1')
    .replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string)
    .replace(NOT_XML, (c) => `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`);
}
