import { expect } from 'chai';
import { unzipSync, strFromU8 } from 'fflate';
import { QueueLogImporter } from '../../src/modules/pbx-logs/queue-log-importer';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { seedAcmeWithSampleLogs } from '../helpers/pbx-logs';
import { csvText, download, flatten, parseCsv, readXlsx } from '../helpers/sheets';
import { rawSqlite } from '../helpers/engine';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
type Json = Record<string, unknown>;
const RANGE = { startDate: '2026-10-31', endDate: '2026-11-02' };

/** Every reporting endpoint, with the JSON rows a spreadsheet of it must hold (all pages). */
const REPORTS: { name: string; path: string; body?: Json; query?: string; rows: (json: Json) => Json[] }[] = [
  {
    name: 'queue-stats',
    path: '/v2/reporting/queues/stats',
    body: { queueId: [1, 2], ...RANGE, distribution: 'daily' },
    rows: (j) => j.results as Json[],
  },
  {
    name: 'queue-stats',
    path: '/v2/reporting/queues/stats',
    body: { queueId: [1, 2], ...RANGE, distribution: 'hourly' },
    rows: (j) => j.results as Json[],
  },
  {
    name: 'queue-agent-availability-1',
    path: '/v2/reporting/queues/agent-availability',
    body: { queueId: 1, ...RANGE },
    rows: (j) => j as unknown as Json[],
  },
  {
    name: 'queue-service-level',
    path: '/v2/reporting/queues/service-level',
    body: { queueId: [1, 2], ...RANGE, distribution: 'daily', serviceLevelThresholds: [10, 60] },
    rows: (j) => j.results as Json[],
  },
  {
    name: 'queue-agents',
    path: '/v2/reporting/queues/agents',
    body: { queueId: [1, 2], ...RANGE, distribution: 'daily' },
    rows: (j) => j.results as Json[],
  },
  {
    name: 'queue-lost-calls',
    path: '/v2/reporting/queues/lost-calls',
    body: { queueId: [1, 2], startDate: '2026-10-31', endDate: '2026-12-02', paginated: 0 },
    rows: (j) => j.records as Json[],
  },
  {
    name: 'calls',
    path: '/v2/reporting/calls',
    query: 'startDate=2026-10-31&endDate=2026-11-02&paginated=0',
    rows: (j) => j.records as Json[],
  },
  {
    name: 'calls',
    path: '/v2/reporting/calls',
    body: { startDate: '2026-10-31', endDate: '2026-11-02', paginated: 0 },
    rows: (j) => j.records as Json[],
  },
];

/** Local wall-clock time of an instant in a zone, by Intl (independent of src/time), as a Date whose UTC fields are that time. */
function localDate(iso: string, tz: string): Date {
  if (!iso.endsWith('Z')) return new Date(`${iso.slice(0, 19)}Z`); // already written in the tenant's offset
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return new Date(`${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}Z`);
}
const isInstant = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(v);

describe('every reporting endpoint as CSV and XLSX (reporting.md R24)', () => {
  let app: TestApp;
  let token: string;
  const json = async (r: (typeof REPORTS)[number], extra = '') => {
    const res = r.body
      ? await app.request('POST', `${r.path}${extra}`, { token, body: r.body })
      : await app.request('GET', `${r.path}?${r.query}${extra}`, { token });
    expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
    return { status: res.status, rows: r.rows(res.body as Json) };
  };
  const sheet = (r: (typeof REPORTS)[number], how: { format?: string; accept?: string }) =>
    download(
      app.url,
      r.body ? `${r.path}${how.format ? `?format=${how.format}` : ''}` : `${r.path}?${r.query}${how.format ? `&format=${how.format}` : ''}`,
      token,
      {
        body: r.body,
        accept: how.accept,
      },
    );

  before(async () => {
    app = await startTestApp({ clock: { now: () => Date.parse('2026-12-10T12:00:00Z') } });
    await seedAcmeWithSampleLogs(app);
    // Callers whose numbers are formula-shaped (a spreadsheet would run them) and a real phone number
    const importer = new QueueLogImporter(rawSqlite(app.deps.database));
    const t = Date.parse('2026-12-02T15:00:00Z') / 1000;
    const callers = ['=HYPERLINK("http://evil.example","x")', '+1 312 555 0100', '-2+3', '@SUM(A1:A9)', '\tTAB', '+13125550100', '-15'];
    await importer.importLines(
      callers.flatMap((c, i) => [`${t + i * 60}|f.${i}|400|NONE|ENTERQUEUE||${c}|1`, `${t + i * 60 + 5}|f.${i}|400|NONE|ABANDON|1|1|5`]),
    );
    await importer.finish();
    token = await tokenFor(app, { id: 2 });
  });
  after(() => app.close());

  for (const r of REPORTS) {
    const label = `${r.body ? 'POST' : 'GET'} ${r.path}${r.body?.distribution ? ` (${String(r.body.distribution)})` : ''}`;

    it(`when ${label} is asked for ?format=csv, then every JSON row is a CSV row, every field a column named as R24 says, text guarded`, async () => {
      const expected = await json(r);
      const res = await sheet(r, { format: 'csv' });
      expect(res.status).to.equal(expected.status);
      expect(res.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).to.match(new RegExp(`^attachment; filename="${r.name}(_[0-9-]+)*\\.csv"$`));
      const [header, ...rows] = parseCsv(res.bytes.toString('utf8'));
      expect(rows.length, 'rows').to.equal(expected.rows.length);
      expect(expected.rows.length).to.be.greaterThan(0);
      const flat = expected.rows.map(flatten);
      // every field is a column (a nested object that is null in every row has its columns all the same: R24 names them)
      for (const key of new Set(
        flat.flatMap((f) => Object.keys(f).filter((k) => f[k] !== null || !header?.some((h) => h.startsWith(`${k}.`)))),
      ))
        expect(header, `column ${key}`).to.include(key);
      const plain = Object.keys(expected.rows[0] as Json).filter((k) => (header as string[]).includes(k));
      expect((header as string[]).filter((h) => plain.includes(h))).to.deep.equal(plain); // in the JSON's order
      rows.forEach((row, i) => {
        (header as string[]).forEach((h, c) => expect(row[c], `row ${i} ${h}`).to.equal(csvText(flat[i]?.[h])));
      });
    });

    it(`when ${label} is asked for with Accept: XLSX, then a real reader reads back the JSON: numbers, dates in local time, text as is`, async () => {
      const expected = await json(r);
      const res = await sheet(r, { accept: `text/html;q=0.9, ${XLSX}` });
      expect(res.status).to.equal(expected.status);
      expect(res.headers.get('content-type')).to.equal(XLSX);
      expect(res.headers.get('content-disposition')).to.match(new RegExp(`^attachment; filename="${r.name}(_[0-9-]+)*\\.xlsx"$`));
      const [first] = await readXlsx(res.bytes);
      const [header, ...rows] = (first as { data: unknown[][] }).data;
      expect(rows.length).to.equal(expected.rows.length);
      rows.forEach((row, i) => {
        const flat = flatten(expected.rows[i] as Json);
        (header as string[]).forEach((h, c) => {
          const want = flat[h];
          const got = row[c];
          // an empty cell is a spreadsheet's "" too; a date cell is exact to the second (days with a fraction, as Excel keeps them)
          if (want === undefined || want === null || want === '') expect(got ?? null, `row ${i} ${h}`).to.equal(null);
          else if (isInstant(want))
            expect(Math.round((got as Date).getTime() / 1000), `row ${i} ${h}`).to.equal(
              localDate(want, 'America/Chicago').getTime() / 1000,
            );
          else expect(got, `row ${i} ${h}`).to.equal(want);
        });
      });
    });
  }

  it('when a caller id is formula-shaped, then CSV guards it with an apostrophe (a phone number or a negative number stays) and XLSX keeps it text, never a formula', async () => {
    const body = { queueId: [1], startDate: '2026-12-02', endDate: '2026-12-02' };
    const csv = await download(app.url, '/v2/reporting/queues/lost-calls?format=csv', token, { body });
    const [header, ...rows] = parseCsv(csv.bytes.toString('utf8'));
    const numbers = rows.map((row) => row[(header as string[]).indexOf('callerIdNum')]);
    expect(numbers).to.deep.equal([
      '\'=HYPERLINK("http://evil.example","x")',
      "'+1 312 555 0100",
      "'-2+3",
      "'@SUM(A1:A9)",
      "'\tTAB",
      '+13125550100',
      '-15',
    ]);
    const xlsx = await download(app.url, '/v2/reporting/queues/lost-calls?format=xlsx', token, { body });
    const [first] = await readXlsx(xlsx.bytes);
    const data = (first as { data: unknown[][] }).data;
    const col = (data[0] as string[]).indexOf('callerIdNum');
    expect(data.slice(1).map((row) => row[col])).to.deep.equal([
      '=HYPERLINK("http://evil.example","x")',
      '+1 312 555 0100',
      '-2+3',
      '@SUM(A1:A9)',
      '\tTAB',
      '+13125550100',
      '-15',
    ]);
    const sheetXml = strFromU8(unzipSync(new Uint8Array(xlsx.bytes))['xl/worksheets/sheet1.xml'] as Uint8Array);
    expect(sheetXml).not.to.match(/<f[ >]/); // no formula anywhere
    expect(sheetXml).to.include('=HYPERLINK(&quot;http://evil.example&quot;,&quot;x&quot;)');
  });

  it('when the lost calls are an XLSX, then a second sheet holds the summary of the JSON', async () => {
    const body = { queueId: [1, 2], startDate: '2026-10-31', endDate: '2026-12-02' };
    const expected = (await app.request('POST', '/v2/reporting/queues/lost-calls', { token, body })).body.summary as Json[];
    const sheets = await readXlsx((await download(app.url, '/v2/reporting/queues/lost-calls?format=xlsx', token, { body })).bytes);
    expect(sheets.map((s) => s.sheet)).to.deep.equal(['Lost calls', 'Summary']);
    const [header, ...rows] = (sheets[1] as { data: unknown[][] }).data;
    expect(rows.map((row) => Object.fromEntries((header as string[]).map((h, i) => [h, row[i] ?? null])))).to.deep.equal(expected);
  });

  it('when the agent sessions are a spreadsheet, then one row per interval with its kind', async () => {
    const body = { queueId: [1, 2], ...RANGE };
    const pairs = (await app.request('POST', '/v2/reporting/queues/agent-sessions', { token, body })).body as Json[];
    const res = await download(app.url, '/v2/reporting/queues/agent-sessions?format=csv', token, { body });
    const [header, ...rows] = parseCsv(res.bytes.toString('utf8'));
    expect(header).to.deep.equal(['extId', 'peerName', 'name', 'queueId', 'queueName', 'kind', 'start', 'end', 'seconds', 'reason']);
    const intervals = pairs.flatMap((p) => [
      ...(p.sessions as Json[]).map((s) => [
        String(p.extId),
        p.peerName,
        p.name,
        String(p.queueId),
        p.queueName,
        'session',
        s.start,
        s.end ?? '',
        String(s.seconds),
        '',
      ]),
      ...(p.pauses as Json[]).map((s) => [
        String(p.extId),
        p.peerName,
        p.name,
        String(p.queueId),
        p.queueName,
        'pause',
        s.start,
        s.end ?? '',
        String(s.seconds),
        s.reason,
      ]),
    ]);
    expect(rows).to.deep.equal(intervals);
    const [first] = await readXlsx((await download(app.url, '/v2/reporting/queues/agent-sessions?format=xlsx', token, { body })).bytes);
    expect((first as { data: unknown[][] }).data).to.have.length(intervals.length + 1);
  });

  it('when format is not csv, xlsx or json, then 400 naming format, before the role is checked; json and no Accept give JSON', async () => {
    const body = { queueId: [1], ...RANGE };
    expectError(await app.request('POST', '/v2/reporting/queues/stats?format=pdf', { token, body }), 400, ['format']);
    expectError(await app.request('GET', '/v2/reporting/calls?format=XLSX', { token }), 400, ['format']);
    expectError(await app.request('POST', '/v2/reporting/queues/stats?format=pdf', { token: await tokenFor(app, { id: 4 }), body }), 400, [
      'format',
    ]);
    expectError(await app.request('POST', '/v2/reporting/queues/stats?format=csv', { token: await tokenFor(app, { id: 4 }), body }), 403);
    const asJson = await app.request('POST', '/v2/reporting/queues/stats?format=json', { token, body, headers: { accept: 'text/csv' } });
    expect(asJson.headers.get('content-type')).to.match(/^application\/json/);
    const plain = await download(app.url, '/v2/reporting/queues/stats', token, { body, accept: '*/*' });
    expect(plain.headers.get('content-type')).to.match(/^application\/json/);
    expectError(await app.request('POST', '/v2/reporting/queues/stats?format=csv', { token, body: { ...body, queueId: [3] } }), 404);
  });
});
