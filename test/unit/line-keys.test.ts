import { expect } from 'chai';
import { hash53, LineKeys } from '../../src/modules/pbx-logs/line-keys';

describe('idempotency keys of imported lines', () => {
  const line = '1793637551|1793637540.259|400|NONE|ABANDON|1|1|5';

  it('when a line occurs twice in one file, then the copies get different keys (R1: both count)', () => {
    const keys = new LineKeys();
    const first = keys.keyOf(line, 1793637551);
    const second = keys.keyOf(line, 1793637551);
    expect(first).to.equal(hash53(line));
    expect(second).to.not.equal(first);
  });

  it('when the same file is read again, then every line gets the key it had the first time', () => {
    const lines = [line, line, '1793637552|x|400|NONE|ENTERQUEUE||+1|1', line];
    const a = new LineKeys();
    const b = new LineKeys();
    const first = lines.map((l) => a.keyOf(l, 1793637551));
    expect(new Set(first).size).to.equal(4);
    expect(lines.map((l) => b.keyOf(l, 1793637551))).to.deep.equal(first);
  });

  it('when a file overlaps an earlier one, then the shared line gets the same key in both', () => {
    expect(new LineKeys().keyOf(line, 1)).to.equal(new LineKeys().keyOf(line, 1));
  });

  it('when keys are 53-bit, then they are safe integers', () => {
    for (const text of ['', 'a', line, line.repeat(20)]) expect(Number.isSafeInteger(hash53(text))).to.equal(true);
  });

  it('when lines repeat within the window and after it, then ranks count only copies within one day of log time', () => {
    // the rules of LineKeys written plainly (a Map of counts, forgotten in time order), over enough lines
    // that the table grows and entries are deleted and shifted back many times
    const model = new Map<string, number>();
    const order: [string, number][] = [];
    const expected: number[] = [];
    const keys = new LineKeys();
    const actual: number[] = [];
    let seed = 1;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const texts: string[] = [];
    for (let i = 0; i < 70_000; i++) {
      const time = 1_700_000_000 + i * 6; // 14,400 lines a day
      // copies of lines at most 20 lines back (well within the window) or 40,000 to 50,000 back (2.8 to 3.5 days: well past it)
      const back = rand(2) ? 1 + rand(20) : i > 50_000 ? 40_000 + rand(10_000) : 0;
      const text = i > 20 && back > 0 && rand(5) === 0 ? (texts[i - back] as string) : `${time}|c${i}|400|NONE|ENTERQUEUE||+1|1`;
      texts.push(text);
      while (order.length > 0 && (order[0] as [string, number])[1] < time - LineKeys.WINDOW_SECONDS)
        model.delete((order.shift() as [string, number])[0]);
      const rank = model.get(text) ?? 0;
      model.set(text, rank + 1);
      if (rank === 0) order.push([text, time]);
      expected.push(rank === 0 ? hash53(text) : hash53(text, rank));
      actual.push(keys.keyOf(text, time));
    }
    expect(actual).to.deep.equal(expected);
    const seen = new Set<string>();
    const repeats = texts.map((t) => (seen.has(t) ? true : (seen.add(t), false)));
    expect(actual.filter((k, i) => repeats[i] && k !== hash53(texts[i] as string)).length, 'copies ranked').to.be.above(5000);
    expect(actual.filter((k, i) => repeats[i] && k === hash53(texts[i] as string)).length, 'copies past the window').to.be.above(500);
    const again = new LineKeys();
    expect(texts.map((t, i) => again.keyOf(t, 1_700_000_000 + i * 6))).to.deep.equal(actual);
  });
});
