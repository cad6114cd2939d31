import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';

/** Every directive of a Content-Security-Policy header, by name. */
function directives(csp: string | null): Map<string, string[]> {
  expect(csp, 'no Content-Security-Policy').to.be.a('string');
  return new Map(
    (csp as string)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name as string, values]),
  );
}

describe('the console page: a strict Content-Security-Policy and no inline script (issue 30)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({});
  });
  after(async () => {
    await app.close();
  });

  for (const path of ['/', '/sign-in', '/wallboard', '/account']) {
    it(`when ${path} is fetched, as a browser asks, then its CSP allows scripts and styles from the origin only, no inline code, no eval, no framing`, async () => {
      const res = await app.request('GET', path, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(res.status, res.text.slice(0, 200)).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      const csp = directives(res.headers.get('content-security-policy'));
      expect(csp.get('default-src')).to.deep.equal(["'none'"]);
      expect(csp.get('script-src')).to.deep.equal(["'self'"]);
      expect(csp.get('style-src')).to.deep.equal(["'self'"]);
      expect(csp.get('connect-src')).to.deep.equal(["'self'"]);
      expect(csp.get('frame-ancestors')).to.deep.equal(["'none'"]);
      expect(csp.get('require-trusted-types-for')).to.deep.equal(["'script'"]);
      const all = [...csp.values()].flat();
      expect(all).to.not.include("'unsafe-inline'");
      expect(all).to.not.include("'unsafe-eval'");
      expect(all.filter((v) => /^https?:/.test(v) || v === '*')).to.deep.equal([]);
      expect(res.headers.get('x-frame-options')).to.equal('DENY');
    });
  }

  it('when the page is fetched, then every script and style sheet it names is a file of this origin, and none is inline', async () => {
    const html = (await app.request('GET', '/')).text;
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).to.be.greaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(body?.trim(), 'an inline script').to.equal('');
      expect(attrs).to.match(/\ssrc="\/assets\/[\w.-]+\.js"/);
    }
    expect(html).to.not.match(/<style\b/);
    expect(html).to.not.match(/\son\w+=/i);
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(refs.length).to.be.greaterThan(1);
    for (const ref of refs) {
      expect(ref, ref).to.match(/^\/[^/]/);
      expect((await app.request('GET', ref)).status, ref).to.equal(200);
    }
  });
});
