import { expect } from 'chai';
import { addStats, emptySums, splitPieces } from '../../src/modules/queue-reports/spans';
import type { StatsSums } from '../../src/modules/queue-reports/queue-stats.repository';

describe('splitting report periods into whole hours and edges', () => {
  it('when a piece is hour-aligned, then it is whole hours only', () => {
    expect(splitPieces([{ queueId: 1, from: 3600, to: 4 * 3600 }])).to.deep.equal({
      hours: [{ span: 0, queueId: 1, fromHour: 1, toHour: 4 }],
      edges: [],
    });
  });

  it('when a piece starts and ends inside hours, then the partial hours are edges', () => {
    const { hours, edges } = splitPieces([{ queueId: 2, from: 1800, to: 3 * 3600 + 60 }]);
    expect(hours).to.deep.equal([{ span: 0, queueId: 2, fromHour: 1, toHour: 3 }]);
    expect(edges).to.deep.equal([
      { span: 0, queueId: 2, from: 1800, to: 3600 },
      { span: 0, queueId: 2, from: 3 * 3600, to: 3 * 3600 + 60 },
    ]);
  });

  it('when a piece lies inside one hour or is empty, then it is one edge or nothing', () => {
    expect(splitPieces([{ queueId: 1, from: 100, to: 200 }]).edges).to.deep.equal([{ span: 0, queueId: 1, from: 100, to: 200 }]);
    expect(splitPieces([{ queueId: 1, from: 100, to: 100 }])).to.deep.equal({ hours: [], edges: [] });
  });

  it('when partial sums are added, then min and max ignore pieces without waits', () => {
    const s = emptySums();
    const part = (min: number | null, max: number | null, n: number) =>
      ({ ...emptySums(), wait_min: min, wait_max: max, wait_n: n, inbound: 1 }) as StatsSums;
    addStats(s, part(null, null, 0));
    addStats(s, part(4, 9, 2));
    addStats(s, part(0, 3, 1));
    expect(s).to.include({ wait_min: 0, wait_max: 9, wait_n: 3, inbound: 3 });
  });
});
