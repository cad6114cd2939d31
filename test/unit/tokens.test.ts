import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { TokenService, VERIFIED_TOKENS_KEPT } from '../../src/modules/auth/tokens';

const SECRET = 'a-test-secret-of-enough-length-for-hs256';

/** A token service whose clock the test sets (Unix seconds). */
function tokensAt(start: number): { tokens: TokenService; at(seconds: number): void } {
  let now = start;
  return { tokens: new TokenService(SECRET, 3600, () => now), at: (s) => (now = s) };
}

const sign = (payload: object, secret = SECRET) => jwt.sign(payload, secret, { algorithm: 'HS256' });

describe('access tokens (TokenService)', () => {
  it('when a token is issued, then it verifies to its user, version and issue time, the second time from memory', () => {
    const tokens = new TokenService(SECRET, 3600);
    const token = tokens.issue({ uid: 7, ver: 3 });
    const first = tokens.verify(token);
    expect(first).to.include({ uid: 7, ver: 3 });
    expect(first?.iat).to.be.closeTo(Date.now() / 1000, 5);
    expect(tokens.remembered).to.equal(1);
    expect(tokens.verify(token)).to.deep.equal(first);
    expect(tokens.remembered).to.equal(1);
  });

  it('when a remembered token reaches its exp, then it is refused at that second as jsonwebtoken refuses a new one, and forgotten', () => {
    const { tokens, at } = tokensAt(1000);
    const token = sign({ uid: 1, ver: 0, iat: 1000, exp: 1060 });
    expect(tokens.verify(token)).to.deep.equal({ uid: 1, ver: 0, iat: 1000 });
    at(1059);
    expect(tokens.verify(token), 'one second before exp').to.deep.equal({ uid: 1, ver: 0, iat: 1000 });
    at(1060);
    expect(tokens.verify(token), 'remembered, at exp').to.equal(null);
    expect(tokens.remembered).to.equal(0);
    expect(tokens.verify(token), 'verified anew, at exp').to.equal(null);
    expect(tokensAt(1060).tokens.verify(token), 'never seen, at exp').to.equal(null);
    expect(tokens.remembered).to.equal(0);
  });

  it('when a remembered token is changed by one character, signed with another secret, or carries no exp, then it is refused and not remembered', () => {
    const { tokens } = tokensAt(1000);
    const token = sign({ uid: 1, ver: 0, iat: 1000, exp: 2000 });
    expect(tokens.verify(token)).to.not.equal(null);
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    expect(tokens.verify(token.slice(0, -1) + last)).to.equal(null);
    expect(tokens.verify(sign({ uid: 1, ver: 0, iat: 1000, exp: 2000 }, `${SECRET}-other`))).to.equal(null);
    expect(tokens.verify(sign({ uid: 1, ver: 0, iat: 1000 }))).to.equal(null);
    expect(tokens.verify(jwt.sign({ uid: 1, ver: 0, exp: 2000 }, SECRET, { algorithm: 'HS384' }))).to.equal(null);
    expect(tokens.remembered).to.equal(1);
  });

  it('when a token says from when it is valid (nbf), then it is checked in full every time and never remembered', () => {
    const { tokens, at } = tokensAt(1000);
    const token = sign({ uid: 2, ver: 0, iat: 1000, nbf: 1010, exp: 2000 });
    expect(tokens.verify(token), 'before nbf').to.equal(null);
    at(1010);
    expect(tokens.verify(token)).to.deep.equal({ uid: 2, ver: 0, iat: 1000 });
    expect(tokens.remembered).to.equal(0);
  });

  it('when more tokens verify than are kept, then the oldest are forgotten (and still verify, in full)', () => {
    const { tokens } = tokensAt(1000);
    const all = Array.from({ length: VERIFIED_TOKENS_KEPT + 10 }, (_, uid) => sign({ uid, ver: 0, iat: 1000, exp: 2000 }));
    for (const t of all) expect(tokens.verify(t)).to.not.equal(null);
    expect(tokens.remembered).to.equal(VERIFIED_TOKENS_KEPT);
    expect(tokens.verify(all[0] as string)).to.deep.equal({ uid: 0, ver: 0, iat: 1000 });
    expect(tokens.remembered).to.equal(VERIFIED_TOKENS_KEPT);
  });
});
