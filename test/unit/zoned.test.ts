import { expect } from 'chai';
import { addDays, addMonths, localParts, mondayOf, parseDate, startOfDay, zonedToInstant } from '../../src/time/zoned';

const iso = (ms: number) => new Date(ms).toISOString();
const CHICAGO = 'America/Chicago';

describe('zoned time (DST rules of reporting.md R6, R7)', () => {
  it('when a day has 25 hours (end of DST), then local midnights are 25 hours apart', () => {
    expect(iso(startOfDay({ year: 2026, month: 11, day: 1 }, CHICAGO))).to.equal('2026-11-01T05:00:00.000Z');
    expect(iso(startOfDay({ year: 2026, month: 11, day: 2 }, CHICAGO))).to.equal('2026-11-02T06:00:00.000Z');
  });

  it('when a wall time occurs twice, then the first occurrence (daylight offset) is taken', () => {
    expect(iso(zonedToInstant({ year: 2026, month: 11, day: 1 }, 1, 30, 0, CHICAGO))).to.equal('2026-11-01T06:30:00.000Z');
  });

  it('when a wall time does not exist (spring forward), then the offset before the change is used, landing after the gap', () => {
    expect(iso(zonedToInstant({ year: 2026, month: 3, day: 8 }, 2, 30, 0, CHICAGO))).to.equal('2026-03-08T08:30:00.000Z');
    expect(localParts(Date.parse('2026-03-08T08:30:00Z'), CHICAGO)).to.include({ hour: 3, minute: 30 });
  });

  it('when an instant is read in a timezone, then the local date, time and ISO weekday come out', () => {
    expect(localParts(Date.parse('2026-11-02T05:30:00Z'), CHICAGO)).to.include({ year: 2026, month: 11, day: 1, hour: 23, minute: 30, weekday: 7 });
    expect(localParts(Date.parse('2026-11-02T05:30:00Z'), 'UTC')).to.include({ day: 2, weekday: 1 });
  });

  it('when civil dates are moved, then months and weeks land on real days', () => {
    expect(addDays({ year: 2026, month: 12, day: 31 }, 1)).to.deep.equal({ year: 2027, month: 1, day: 1 });
    expect(addMonths({ year: 2026, month: 1, day: 31 }, 1)).to.deep.equal({ year: 2026, month: 2, day: 28 });
    expect(mondayOf({ year: 2026, month: 1, day: 1 })).to.deep.equal({ year: 2025, month: 12, day: 29 });
    expect(parseDate('2026-02-30')).to.equal(undefined);
  });
});
