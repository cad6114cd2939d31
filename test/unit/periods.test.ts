import { expect } from 'chai';
import { dueAt, lastEndedPeriod, periodContaining, periodLabel, periodsDueBetween } from '../../src/modules/scheduled-reports/periods';
import { dayNumber } from '../../src/time/zone';

const CHI = 'America/Chicago';
const iso = (ms: number) => new Date(ms).toISOString();

describe('report periods (scheduled filters)', () => {
  it('when the day is the 25-hour end of DST, then the daily period runs 05:00 to 06:00 UTC the next day', () => {
    const p = periodContaining('daily', dayNumber({ year: 2026, month: 11, day: 1 }), CHI);
    expect([p.startDate, p.endDate, iso(p.startMs), iso(p.endMs)]).to.deep.equal([
      '2026-11-01',
      '2026-11-01',
      '2026-11-01T05:00:00.000Z',
      '2026-11-02T06:00:00.000Z',
    ]);
  });

  it('when a week or month is asked for, then weeks start on Monday and months on the 1st', () => {
    const w = periodContaining('weekly', dayNumber({ year: 2026, month: 11, day: 1 }), CHI);
    expect([w.startDate, w.endDate]).to.deep.equal(['2026-10-26', '2026-11-01']);
    const m = periodContaining('monthly', dayNumber({ year: 2026, month: 2, day: 14 }), 'UTC');
    expect([m.startDate, m.endDate, periodLabel(m)]).to.deep.equal(['2026-02-01', '2026-02-28', 'February 2026']);
  });

  it('when it is Monday morning, then the period that just ended is yesterday / last week / last month', () => {
    const now = Date.parse('2026-11-02T15:00:00Z'); // Monday 09:00 in Chicago
    expect(lastEndedPeriod('daily', now, CHI).startDate).to.equal('2026-11-01');
    expect(lastEndedPeriod('weekly', now, CHI).startDate).to.equal('2026-10-26');
    expect(lastEndedPeriod('monthly', now, CHI).startDate).to.equal('2026-10-01');
  });

  it('when a report is due, then it is at the configured local hour on the next day, DST included', () => {
    const p = periodContaining('daily', dayNumber({ year: 2026, month: 10, day: 30 }), CHI);
    expect(iso(dueAt(p, 6, CHI))).to.equal('2026-10-31T11:00:00.000Z'); // 06:00 CDT
    const q = periodContaining('daily', dayNumber({ year: 2026, month: 10, day: 31 }), CHI);
    expect(iso(dueAt(q, 6, CHI))).to.equal('2026-11-01T12:00:00.000Z'); // 06:00 CST, four hours after the change
  });

  it('when the server was down for three days, then the three daily periods due meanwhile are listed oldest first', () => {
    const down = Date.parse('2026-11-10T12:00:00Z');
    const back = Date.parse('2026-11-13T18:00:00Z');
    expect(periodsDueBetween('daily', down, back, 6, CHI).map((p) => p.startDate)).to.deep.equal([
      '2026-11-10',
      '2026-11-11',
      '2026-11-12',
    ]);
    expect(periodsDueBetween('weekly', down, back, 6, CHI)).to.deep.equal([]);
  });

  it('when the hour has not come yet today, then yesterday is not due yet', () => {
    const before = Date.parse('2026-11-13T11:59:00Z'); // 05:59 CST
    const after = Date.parse('2026-11-13T12:00:00Z');
    expect(periodsDueBetween('daily', before - 3600_000, before, 6, CHI)).to.deep.equal([]);
    expect(periodsDueBetween('daily', before, after, 6, CHI).map((p) => p.startDate)).to.deep.equal(['2026-11-12']);
  });
});
