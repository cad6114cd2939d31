import { expect } from 'chai';

type Row = Record<string, unknown>;

/**
 * reporting.md R20: the rows of any distribution of one queue and range add up to its totals row, counter by
 * counter, min and max by min and max (a row without waits has 0 for both, as R5 says, so it is left out of them).
 * `nested` names arrays of objects keyed by a field (service levels by `seconds`), added up the same way; `skip`
 * names what is not a sum (a percentage).
 */
export function expectAddsUp(
  rows: readonly Row[],
  total: Row,
  what: string,
  opts: { skip?: string[]; nested?: Record<string, string> } = {},
): void {
  const skip = new Set(['queueId', 'queueName', 'date', 'start', 'distribution', 'peerName', ...(opts.skip ?? [])]);
  for (const [key, value] of Object.entries(total)) {
    if (skip.has(key)) continue;
    if (opts.nested && key in opts.nested) {
      const by = opts.nested[key] as string;
      for (const item of value as Row[]) {
        // a row without the item has none of it (a pause reason not seen in that period)
        const parts = rows.flatMap((r) => (r[key] as Row[]).filter((x) => x[by] === item[by]));
        expectAddsUp(parts, item, `${what} ${key}[${by}=${String(item[by])}]`, { skip: [by, ...(opts.skip ?? [])] });
      }
      continue;
    }
    if (typeof value !== 'number') continue;
    const values = rows.map((r) => r[key] as number);
    if (key === 'minWaitTime' || key === 'maxWaitTime') {
      const withWaits = rows.filter(
        (r) =>
          (r.inboundAnswered as number) + (r.abandons as number) + (r.exitTimeout as number) + (r.exitKeypress as number) > 0 ||
          (r.maxWaitTime as number) > 0,
      );
      const got = withWaits.map((r) => r[key] as number);
      if (got.length > 0) expect(key === 'minWaitTime' ? Math.min(...got) : Math.max(...got), `${what}: ${key}`).to.equal(value);
      continue;
    }
    const sum = values.reduce((a, b) => a + b, 0);
    if (Number.isInteger(value)) expect(sum, `${what}: ${key}`).to.equal(value);
    else expect(sum, `${what}: ${key}`).to.be.closeTo(value, 0.001);
  }
}
