import { expect } from 'chai';
import { addDays, dayIn, rangeOf } from '../../src/console/reports/range';

/** The report screens' range presets (src/console/reports/range.ts): local days of the tenant's zone. */
describe('console report ranges', () => {
  // Thursday 2026-03-05 02:30 UTC: still Wednesday 4 March in Chicago (UTC-6), Thursday in Berlin.
  const at = Date.parse('2026-03-05T02:30:00Z');

  it('when the preset is today, then the day is the tenant zone day, not the UTC one', () => {
    expect(rangeOf('today', 'America/Chicago', at)).to.deep.equal({ startDate: '2026-03-04', endDate: '2026-03-04' });
    expect(rangeOf('today', 'Europe/Berlin', at)).to.deep.equal({ startDate: '2026-03-05', endDate: '2026-03-05' });
  });

  it('when the presets are asked on a Wednesday, then the week starts on Monday and the month on the first', () => {
    const zone = 'America/Chicago';
    expect(rangeOf('yesterday', zone, at)).to.deep.equal({ startDate: '2026-03-03', endDate: '2026-03-03' });
    expect(rangeOf('thisWeek', zone, at)).to.deep.equal({ startDate: '2026-03-02', endDate: '2026-03-04' });
    expect(rangeOf('last7', zone, at)).to.deep.equal({ startDate: '2026-02-26', endDate: '2026-03-04' });
    expect(rangeOf('thisMonth', zone, at)).to.deep.equal({ startDate: '2026-03-01', endDate: '2026-03-04' });
    expect(rangeOf('custom', zone, at, { startDate: '2026-01-01', endDate: '2026-01-31' })).to.deep.equal({
      startDate: '2026-01-01',
      endDate: '2026-01-31',
    });
  });

  it('when today is a Monday, then this week is that one day', () => {
    const monday = Date.parse('2026-03-09T15:00:00Z');
    expect(rangeOf('thisWeek', 'America/Chicago', monday)).to.deep.equal({ startDate: '2026-03-09', endDate: '2026-03-09' });
  });

  it('when days are counted across a DST change or a leap day, then they are calendar days', () => {
    // 8 March 2026: Chicago springs forward (a 23-hour day).
    expect(addDays('2026-03-07', 2)).to.equal('2026-03-09');
    expect(addDays('2028-02-28', 1)).to.equal('2028-02-29');
    expect(addDays('2026-01-01', -1)).to.equal('2025-12-31');
    expect(rangeOf('last7', 'America/Chicago', Date.parse('2026-03-10T18:00:00Z'))).to.deep.equal({
      startDate: '2026-03-04',
      endDate: '2026-03-10',
    });
    expect(dayIn('America/Chicago', Date.parse('2026-03-08T05:59:59Z'))).to.equal('2026-03-07');
    expect(dayIn('America/Chicago', Date.parse('2026-03-08T06:00:00Z'))).to.equal('2026-03-08');
  });
});
