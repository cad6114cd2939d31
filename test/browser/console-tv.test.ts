import { expect } from 'chai';
import { openBrowser, type OpenBrowser } from '../helpers/browser';
import { ROLE_IDS, startConsoleSite, type ConsoleSite, type SiteUser } from '../helpers/console-site';
import { until } from '../helpers/until';

/*
 * TV mode in chromium against the real program: a supervisor makes a read-only wallboard link in the console; a
 * wall screen (another browser, never signed in) opens its address at 1920×1080; the link's token reads the live
 * state of its queues and nothing else; the screen reconnects by itself when TARS restarts, and goes dark when the
 * link is revoked.
 */
describe('the console in chromium: TV mode from a read-only wallboard link (issue 30)', function () {
  this.timeout(240_000);
  let site: ConsoleSite;
  let desk: OpenBrowser;
  let tv: OpenBrowser;
  let manager: SiteUser;

  before(async () => {
    site = await startConsoleSite();
    manager = await site.makeUser(ROLE_IDS.queues);
    desk = await openBrowser({ origins: [site.url] });
    tv = await openBrowser({ origins: [site.url], viewport: { width: 1920, height: 1080 }, colorScheme: 'dark' });
  });
  after(async () => {
    await desk?.close();
    await tv?.close();
    await site?.close();
  });

  /** A link made in the console's TV links screen by the manager: its address, as the screen shows it once. */
  const makeLink = async (name: string, queues: string[]) => {
    const page = desk.page;
    await desk.context.clearCookies();
    await page.goto(`${site.url}/sign-in?next=/wallboard/links`);
    await page.getByLabel('E-mail').fill(manager.email);
    await page.getByLabel('Password', { exact: true }).fill(manager.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'TV links' }).waitFor();
    await page.getByLabel('Name (the screen it is for)').fill(name);
    for (const q of queues) await page.getByLabel(q, { exact: true }).check();
    await page.getByRole('button', { name: 'Make the link' }).click();
    const address = await page.getByLabel('Address of the TV link').inputValue();
    expect(address).to.match(new RegExp(`^${site.url}/tv#tarswb_[A-Za-z0-9_-]{43}$`));
    await page.getByRole('row', { name: new RegExp(name) }).waitFor();
    return { address, token: address.split('#')[1] as string };
  };

  it('when a wall screen opens a link, then it shows those queues live, full screen without controls, and asks TARS for the live state only', async () => {
    const { address } = await makeLink('Sales floor', ['Sales', 'Support']);
    const page = tv.page;
    const before = tv.requested.length;
    await page.goto(address);
    await page.getByRole('heading', { name: 'Sales floor' }).waitFor();
    await until(async () => (await page.locator('li.tile h2').allTextContents()).length === 2, { what: 'two tiles' });
    expect((await page.locator('li.tile h2').allTextContents()).map((t) => t.replace('not live', '').trim())).to.deep.equal([
      'Sales',
      'Support',
    ]);
    expect(await page.locator('button, details, input, select, nav').count()).to.equal(0);
    expect(await browserCookies(tv, site.url)).to.deep.equal([]);
    const api = tv.requested
      .slice(before)
      .map((u) => new URL(u))
      .filter((u) => u.pathname.startsWith('/v2/'))
      .map((u) => u.pathname);
    expect([...new Set(api)].sort()).to.deep.equal(['/v2/wallboard/live', '/v2/wallboard/live/stream']);
    const waiting = page.locator('li.tile').first().locator('.figure .value').first();
    const px = await waiting.evaluate((el: any) => (globalThis as any).getComputedStyle(el).fontSize as string);
    expect(Number.parseFloat(px)).to.be.at.least(40); // readable across a room
    expect(tv.pageErrors()).to.deep.equal([]);
    expect(tv.foreign).to.deep.equal([]);
  });

  it("when the link's token is sent anywhere but the live state, then TARS refuses it (401); the live state reads only its queues", async () => {
    const { token } = await makeLink('Token probe', ['Billing']);
    const bearer = { authorization: `Bearer ${token}` };
    for (const [method, path] of [
      ['GET', '/v2/users/me'],
      ['GET', '/v2/reporting/queues/live?tenantId=1'],
      ['GET', '/v2/reporting/queues/live/stream?tenantId=1'],
      ['GET', '/v2/wallboard-links'],
      ['GET', '/v2/queues/3/alerts'],
      ['POST', '/v2/queues/agent-pause'],
      ['DELETE', '/v2/console/session'],
    ] as const) {
      const res = await site.call(method, path, {
        headers: bearer,
        body: method === 'POST' ? { peerName: 'PJSIP/201', paused: 1 } : undefined,
      });
      if (path === '/v2/console/session')
        expect(res.status, path).to.equal(200); // public, ends no session: it has none
      else expect(res.status, `${method} ${path}`).to.equal(401);
    }
    const live = await site.call('GET', '/v2/wallboard/live', { headers: bearer });
    expect(live.status).to.equal(200);
    expect(live.body.live.queues.map((q: { name: string }) => q.name)).to.deep.equal(['Billing']);
  });

  it('when TARS restarts, then the wall screen reconnects by itself and shows the live state again', async () => {
    const { address } = await makeLink('Restart proof', ['Sales']);
    const page = tv.page;
    await page.goto(address);
    await page.locator('li.tile').first().waitFor();
    // The screen says it lost TARS while TARS is away (its stream ends as TARS stops), then comes back by itself.
    const lost = page.getByText('The connection to TARS was lost').waitFor({ timeout: 30_000 });
    await site.restart();
    await lost;
    await until(
      async () => (await page.getByText('The connection to TARS was lost').count()) === 0 && (await page.locator('li.tile').count()) === 1,
      {
        what: 'the screen back on the restarted server',
        ms: 60_000,
      },
    );
    expect(tv.pageErrors()).to.deep.equal([]);
  });

  it('when a supervisor revokes the link in the console, then the wall screen goes dark at once, saying so', async () => {
    const { address } = await makeLink('Revoked screen', ['Support']);
    const page = tv.page;
    await page.goto(address);
    await page.locator('li.tile').first().waitFor();
    const row = desk.page.getByRole('row', { name: /Revoked screen/ });
    await row.getByRole('button', { name: /Revoke/ }).click();
    await row.getByRole('button', { name: 'Revoke Revoked screen now' }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByRole('alert').filter({ hasText: 'revoked' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('li.tile').count()).to.equal(0);
    expect(
      (await site.call('GET', '/v2/wallboard/live', { headers: { authorization: `Bearer ${address.split('#')[1]}` } })).status,
    ).to.equal(401);
  });
});

async function browserCookies(b: OpenBrowser, url: string) {
  return b.context.cookies(url);
}
