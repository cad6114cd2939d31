import { expect } from 'chai';
import { AppError } from '../../src/errors';
import { parseReportDate, periodsOf, resolveRange, type CalendarDistribution as Distribution } from '../../src/time/report-range';
import { localDay, startOfDay, wallToInstant } from '../../src/time/zone';

const CHI = 'America/Chicago';
const at = (iso: string) => Date.parse(iso) / 1000;
const range = (tz: string, s: string, e: string) => resolveRange(tz, parseReportDate('startDate', s), parseReportDate('endDate', e));
const dates = (tz: string, s: string, e: string, d: Distribution) => periodsOf(tz, range(tz, s, e), d).map((p) => p.date);

function expect400(fn: () => unknown, field?: string): void {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).to.be.instanceOf(AppError);
  expect((err as AppError).status).to.equal(400);
  if (field) expect((err as AppError).message).to.include(field);
}

describe('report dates and periods (reporting.md R6, R7)', () => {
  it('when the day is 2026-11-01 in Chicago (DST ends), then it runs 25 hours, 05:00Z to 06:00Z the next day', () => {
    const day = localDay(CHI, at('2026-11-01T12:00:00Z'));
    expect(startOfDay(CHI, day)).to.equal(at('2026-11-01T05:00:00Z'));
    expect(startOfDay(CHI, day + 1)).to.equal(at('2026-11-02T06:00:00Z'));
    expect(localDay(CHI, at('2026-11-02T05:30:00Z'))).to.equal(day); // still 2026-11-01 locally
  });

  it('when a wall time occurs twice, then the first (daylight) occurrence is meant (fold=0)', () => {
    expect(range(CHI, '2026-11-01 01:30:00', '2026-11-01 01:30:00').start).to.equal(at('2026-11-01T06:30:00Z'));
  });

  it('when a wall time falls in the spring gap, then it is read with the offset before the change, landing after the gap', () => {
    expect(range(CHI, '2026-03-08 02:30', '2026-03-08 02:30').start).to.equal(at('2026-03-08T08:30:00Z'));
  });

  it('when local midnight does not exist (Havana starts DST at midnight), then the day starts at the end of the gap', () => {
    const day = localDay('America/Havana', at('2026-03-08T12:00:00Z'));
    expect(startOfDay('America/Havana', day)).to.equal(at('2026-03-08T05:00:00Z'));
    expect(wallToInstant('America/Havana', at('2026-03-08T00:30:00Z'))).to.equal(at('2026-03-08T05:30:00Z'));
  });

  it('when dates carry offsets, Z or fractions, then they are those instants, fractions dropped', () => {
    expect(range(CHI, '2026-01-01T00:00:00+05:30', '2026-01-01T00:00:00Z').start).to.equal(at('2025-12-31T18:30:00Z'));
    expect(range(CHI, '2026-01-01T10:00:00-0300', '2026-01-01T13:00:00.999Z')).to.deep.equal({
      start: at('2026-01-01T13:00:00Z'),
      end: at('2026-01-01T13:00:00Z'),
    });
    expect(range(CHI, '2026-01-01T10:00-03', '2026-01-01T10:00').start).to.equal(at('2026-01-01T13:00:00Z'));
  });

  it('when endDate is a date, then the range ends at the next local midnight', () => {
    expect(range(CHI, '2026-10-31', '2026-11-02')).to.deep.equal({ start: at('2026-10-31T05:00:00Z'), end: at('2026-11-03T06:00:00Z') });
  });

  it('when startDate is after endDate, or equal with a date-only end, then 400', () => {
    expect400(() => range(CHI, '2026-02-01', '2026-01-01'), 'startDate');
    expect400(() => range(CHI, '2026-11-02', '2026-11-01'));
    expect400(() => range(CHI, '2026-11-02 00:00:01', '2026-11-02 00:00:00'));
  });

  it('when the range is empty (equal instants with times), then totals has one row and the others none', () => {
    const empty = range(CHI, '2026-11-02 10:00:00', '2026-11-02 10:00:00');
    expect(periodsOf(CHI, empty, 'totals')).to.deep.equal([{ date: '2026-11-02', from: empty.start, to: empty.start }]);
    for (const d of ['daily', 'weekly', 'monthly'] as const) expect(periodsOf(CHI, empty, d)).to.deep.equal([]);
  });

  it('when the range touches 365 or 366 local days it is accepted; 367 → 400', () => {
    expect(() => range(CHI, '2026-01-01', '2026-12-31')).not.to.throw();
    expect(() => range(CHI, '2028-01-01', '2028-12-31')).not.to.throw(); // 366 days of a leap year
    expect(() => range(CHI, '2026-01-01', '2027-01-01')).not.to.throw(); // 366 local days
    expect400(() => range(CHI, '2026-01-01', '2027-01-02'));
    expect(() => range(CHI, '2026-01-01 12:00', '2027-01-01 11:00')).not.to.throw();
    expect400(() => range(CHI, '2026-01-01 12:00', '2027-01-02 00:30'));
  });

  it('when a date is not real, then 400 naming its field', () => {
    expect400(() => parseReportDate('startDate', '2026-02-30'), 'startDate');
    expect400(() => parseReportDate('endDate', '2026-01-01 24:00'), 'endDate');
    expect400(() => parseReportDate('endDate', 'yesterday'), 'endDate');
    expect400(() => parseReportDate('endDate', '2026-01-01T10:00+25:00'), 'endDate');
  });

  it('when periods are weekly or monthly, then each row is dated by its Monday or 1st, even before startDate', () => {
    expect(dates(CHI, '2026-10-31', '2026-11-02', 'weekly')).to.deep.equal(['2026-10-26', '2026-11-02']);
    expect(dates(CHI, '2026-10-31', '2026-11-02', 'monthly')).to.deep.equal(['2026-10-01', '2026-11-01']);
    expect(dates(CHI, '2026-10-31', '2026-11-02', 'daily')).to.deep.equal(['2026-10-31', '2026-11-01', '2026-11-02']);
    expect(dates(CHI, '2026-10-31 15:00', '2026-11-02', 'totals')).to.deep.equal(['2026-10-31']);
  });

  it('when periods are cut by the range, then the first and last are clipped to it', () => {
    const p = periodsOf(CHI, range(CHI, '2026-11-01 12:00', '2026-11-02 03:00'), 'daily');
    expect(p).to.deep.equal([
      { date: '2026-11-01', from: at('2026-11-01T18:00:00Z'), to: at('2026-11-02T06:00:00Z') },
      { date: '2026-11-02', from: at('2026-11-02T06:00:00Z'), to: at('2026-11-02T09:00:00Z') },
    ]);
  });

  it('when the zone has a half-hour offset, then days start at the half hour', () => {
    const p = periodsOf('Asia/Kolkata', range('Asia/Kolkata', '2026-01-01', '2026-01-01'), 'daily');
    expect(p).to.deep.equal([{ date: '2026-01-01', from: at('2025-12-31T18:30:00Z'), to: at('2026-01-01T18:30:00Z') }]);
  });
});
