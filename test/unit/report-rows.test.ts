import { expect } from 'chai';
import { AppError } from '../../src/errors';
import { parseReportDate, resolveRange, type Distribution } from '../../src/time/report-range';
import { reportRows } from '../../src/time/report-rows';
import { isoInZone, isoInZoneOver } from '../../src/time/zone';

const CHI = 'America/Chicago';
const at = (iso: string) => Date.parse(iso) / 1000;
const range = (tz: string, s: string, e: string) => resolveRange(tz, parseReportDate('startDate', s), parseReportDate('endDate', e));
const rows = (tz: string, s: string, e: string, d: Distribution) => reportRows(tz, range(tz, s, e), d);
const seconds = (r: { spans: readonly { from: number; to: number }[] }) => r.spans.reduce((n, s) => n + s.to - s.from, 0);

describe('report rows of every distribution (reporting.md R7, R20)', () => {
  it('when the day DST ends in Chicago is read by the hour, then it has 25 rows, 01:00 twice with two different starts, each an hour', () => {
    const day = rows(CHI, '2026-11-01', '2026-11-01', 'hourly');
    expect(day).to.have.length(25);
    expect(day.map((r) => r.date).filter((d) => d === '2026-11-01 01:00')).to.have.length(2);
    expect(day.slice(0, 4).map((r) => isoInZone(CHI, r.start as number))).to.deep.equal([
      '2026-11-01T00:00:00-05:00',
      '2026-11-01T01:00:00-05:00',
      '2026-11-01T01:00:00-06:00',
      '2026-11-01T02:00:00-06:00',
    ]);
    expect(day.every((r) => seconds(r) === 3600)).to.equal(true);
    expect(day.at(-1)?.date).to.equal('2026-11-01 23:00');
  });

  it('when the day DST begins is read by the hour and the half hour, then it has 23 and 46 rows and no 02:00', () => {
    const hours = rows(CHI, '2026-03-08', '2026-03-08', 'hourly');
    expect(hours).to.have.length(23);
    expect(hours.map((r) => r.date))
      .to.include('2026-03-08 01:00')
      .and.include('2026-03-08 03:00')
      .and.not.include('2026-03-08 02:00');
    expect(rows(CHI, '2026-03-08', '2026-03-08', 'halfHourly')).to.have.length(46);
    expect(rows(CHI, '2026-03-08', '2026-03-08', 'quarterHourly')).to.have.length(92);
  });

  it('when a range has times of day, then the first and last intervals are clipped to it but keep their own start', () => {
    const r = rows(CHI, '2026-11-02 10:20', '2026-11-02 12:05', 'quarterHourly');
    expect(r.map((x) => x.date)).to.deep.equal([
      '2026-11-02 10:15',
      '2026-11-02 10:30',
      '2026-11-02 10:45',
      '2026-11-02 11:00',
      '2026-11-02 11:15',
      '2026-11-02 11:30',
      '2026-11-02 11:45',
      '2026-11-02 12:00',
    ]);
    expect(r[0]?.start).to.equal(at('2026-11-02T16:15:00Z'));
    expect(r[0]?.spans).to.deep.equal([{ from: at('2026-11-02T16:20:00Z'), to: at('2026-11-02T16:30:00Z') }]);
    expect(seconds(r.at(-1) as (typeof r)[number])).to.equal(300);
  });

  it('when a zone is half an hour off UTC, then hours still begin at the local :00', () => {
    const r = rows('Asia/Kolkata', '2026-11-02', '2026-11-02', 'hourly');
    expect(r).to.have.length(24);
    expect(r[0]?.start).to.equal(at('2026-11-01T18:30:00Z'));
    expect(r.map((x) => x.date.slice(11))).to.deep.equal(Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`));
  });

  it('when hours of the day and days of the week are asked for, then 24 and 7 rows hold every second of the range once', () => {
    const total = range(CHI, '2026-10-01', '2026-11-30');
    for (const d of ['hourOfDay', 'dayOfWeek'] as const) {
      const r = rows(CHI, '2026-10-01', '2026-11-30', d);
      expect(r.map((x) => x.start)).to.deep.equal(r.map(() => null));
      expect(
        r.reduce((n, x) => n + seconds(x), 0),
        d,
      ).to.equal(total.end - total.start);
    }
    const hod = rows(CHI, '2026-10-01', '2026-11-30', 'hourOfDay');
    expect(hod.map((x) => x.date)).to.deep.equal(Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`));
    expect(seconds(hod[1] as (typeof hod)[number])).to.equal(62 * 3600); // 61 days, and the second 01:00 of 1 November
    expect(rows(CHI, '2026-10-01', '2026-11-30', 'dayOfWeek').map((x) => x.date)).to.deep.equal([
      'Monday',
      'Tuesday',
      'Wednesday',
      'Thursday',
      'Friday',
      'Saturday',
      'Sunday',
    ]);
  });

  it('when calendar rows are made, then each starts at its period local start, before S when the period began before it; totals at S', () => {
    const weekly = rows(CHI, '2026-10-31', '2026-11-02', 'weekly');
    expect(weekly.map((r) => [r.date, isoInZone(CHI, r.start as number)])).to.deep.equal([
      ['2026-10-26', '2026-10-26T00:00:00-05:00'],
      ['2026-11-02', '2026-11-02T00:00:00-06:00'],
    ]);
    expect(rows(CHI, '2026-10-31 08:00', '2026-11-02', 'totals')[0]?.start).to.equal(at('2026-10-31T13:00:00Z'));
  });

  it('when an interval range touches more than 31 local days, then 400 says so; 31 days and an empty range are fine', () => {
    let err: unknown;
    try {
      rows(CHI, '2026-01-01', '2026-02-01', 'hourly');
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(AppError).with.property('status', 400);
    expect((err as AppError).message)
      .to.include('32 local days')
      .and.include('at most 31');
    expect(rows(CHI, '2026-01-01', '2026-01-31', 'quarterHourly')).to.have.length(31 * 96);
    expect(rows(CHI, '2026-01-01 10:00', '2026-01-01 10:00', 'hourOfDay')).to.deep.equal([]);
    expect(rows(CHI, '2026-01-01 10:00', '2026-01-01 10:00', 'totals')).to.have.length(1);
  });

  it('when many instants of a range are written at once (isoInZoneOver), then each is what isoInZone writes, across DST changes and outside the range', () => {
    const zones = [CHI, 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Europe/London', 'UTC'];
    const from = Date.parse('2025-03-01T00:00:00Z') / 1000;
    const to = Date.parse('2025-11-10T00:00:00Z') / 1000;
    for (const tz of zones) {
      const iso = isoInZoneOver(tz, from, to);
      const checked: string[] = [];
      // every 17 minutes over the range and a week either side (instants outside it included)
      for (let t = from - 7 * 86_400; t <= to + 7 * 86_400; t += 1020) {
        if (iso(t) !== isoInZone(tz, t)) checked.push(`${tz} ${t}: ${iso(t)} ≠ ${isoInZone(tz, t)}`);
      }
      expect(checked, tz).to.deep.equal([]);
    }
    const chicago = isoInZoneOver(CHI, from, to);
    // the last second of CDT on 2025-11-02 and the first of CST after it
    expect([chicago(1762066799), chicago(1762066800)]).to.deep.equal(['2025-11-02T01:59:59-05:00', '2025-11-02T01:00:00-06:00']);
  });
});
