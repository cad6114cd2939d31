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
});
