import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { openBrowser, seriousAxeViolations, type OpenBrowser } from '../helpers/browser';
import { ENROLLING, ROLE_IDS, sixDigits, startConsoleSite, type ConsoleSite, type SiteUser } from '../helpers/console-site';
import { until } from '../helpers/until';

/*
 * Every screen of the console in chromium against the real program: no serious or critical axe-core violation in
 * light and in dark mode; the whole console used with the keyboard alone; a phone (390×844) and a TV (1920×1080).
 * Screenshots go to a temporary directory, or to TARS_SCREENSHOTS_DIR (npm run screenshots: docs/screenshots).
 */
const SHOTS = process.env.TARS_SCREENSHOTS_DIR
  ? resolve(process.env.TARS_SCREENSHOTS_DIR)
  : mkdtempSync(join(tmpdir(), 'tars-console-shots-'));

describe('the console in chromium: accessibility of every screen, the keyboard alone, phone and TV (issue 30)', function () {
  this.timeout(300_000);
  let site: ConsoleSite;
  let browser: OpenBrowser;
  let page: Page;
  let manager: SiteUser;
  let mfaUser: SiteUser;
  let linkAddress: string;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    site = await startConsoleSite();
    manager = await site.makeUser(ROLE_IDS.queues, { email: 'supervisor@asterisk-lab.test' });
    mfaUser = await site.makeUser(ROLE_IDS.basic);
    await site.call('POST', '/v2/mfa/auth/setup', { token: mfaUser.token, body: { mode: 'email', password: mfaUser.password } });
    const code = sixDigits((await site.smtp.next()).parsed.text ?? '');
    await site.call('POST', '/v2/mfa/auth/verify', { token: mfaUser.token, body: { mode: 'email', otp: code } });
    const link = await site.call('POST', '/v2/wallboard-links', {
      token: manager.token,
      body: { tenantId: 1, name: 'Sales floor TV', queueIds: [1, 2, 3] },
    });
    linkAddress = `${site.url}${link.body.tvPath}`;
    site.peer.playTo(5); // a busy moment of the run: ten callers waiting, two agents paused with a reason
    browser = await openBrowser({ origins: [site.url] });
    page = browser.page;
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    console.log(`      screenshots: ${SHOTS}`);
  });

  const signIn = async (u: { email: string; password: string }, next: string) => {
    await browser.context.clearCookies();
    await page.goto(`${site.url}/sign-in?next=${encodeURIComponent(next)}`);
    await page.getByLabel('E-mail').fill(u.email);
    await page.getByLabel('Password', { exact: true }).fill(u.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const check = async (what: string, failures: string[]) => {
    for (const v of await seriousAxeViolations(page)) failures.push(`${what}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(', ')}`);
    // The page's loading line is gone once the console has drawn the screen.
    if ((await page.getByText('Loading the console…').count()) > 0) failures.push(`${what}: "Loading the console…" still shown`);
  };
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

  for (const theme of ['light', 'dark'] as const) {
    it(`when every screen is checked by axe-core in ${theme} mode, then none has a serious or critical violation`, async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.emulateMedia({ colorScheme: theme });
      // The signed-in screens follow the user's own darkMode.
      await site.call('PATCH', '/v2/users/user-settings/dark-mode', { token: manager.token, body: { darkMode: theme === 'dark' ? 1 : 0 } });
      const failures: string[] = [];

      await browser.context.clearCookies();
      await page.goto(`${site.url}/sign-in`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await check('sign-in', failures);
      if (theme === 'light') await shot('console-sign-in');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('.field-error').first().waitFor();
      await check('sign-in with field errors', failures);
      await page.getByRole('button', { name: 'Forgot your password?' }).click();
      await check('forgot password', failures);
      await page.getByRole('button', { name: 'I have a reset token' }).click();
      await check('reset password', failures);

      await signIn(mfaUser, '/account');
      await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
      await check('MFA code', failures);
      await site.smtp.next();

      await signIn(ENROLLING, '/account');
      await page.getByRole('heading', { name: 'Set up two-step sign-in' }).waitFor();
      await page.getByLabel('A code by SMS').check();
      await check('MFA enrolment: choose', failures);
      await page.getByLabel('An authenticator app').check();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Scan the QR code' }).waitFor();
      await check('MFA enrolment: QR code', failures);
      if (theme === 'light') await shot('console-mfa-enrol');

      await signIn(manager, '/wallboard');
      await page.waitForURL((u) => u.pathname === '/wallboard');
      await until(async () => (await page.locator('table:has(caption:text("Callers waiting")) tbody tr th').count()) === 10, {
        what: 'ten callers',
      });
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.dataset.theme)).to.equal(theme);
      await check('wallboard', failures);
      await shot(theme === 'light' ? 'console-wallboard' : 'console-wallboard-dark');
      await page.locator('table:has(caption:text("Agents")) tbody tr', { hasText: 'Bob Jones' }).locator('summary').click();
      await check('wallboard, an agent actions open', failures);

      // The menu's Live group: opened from the keyboard, Escape closes it and gives focus back to its button.
      const live = page.getByRole('button', { name: /^Live/ });
      expect(await live.getAttribute('aria-expanded')).to.equal('false');
      expect(await page.getByRole('link', { name: 'TV links' }).count()).to.equal(0);
      await live.focus();
      await page.keyboard.press('Enter');
      expect(await live.getAttribute('aria-expanded')).to.equal('true');
      await check('the menu, its Live group open', failures);
      await page.getByRole('link', { name: 'TV links' }).focus();
      await page.keyboard.press('Escape');
      expect(await live.getAttribute('aria-expanded')).to.equal('false');
      expect(await live.evaluate((el) => el === (globalThis as any).document.activeElement)).to.equal(true);
      await live.click();
      await page.getByRole('link', { name: 'TV links' }).click();
      await page.getByRole('heading', { name: 'TV links' }).waitFor();
      await page.getByRole('row', { name: /Sales floor TV/ }).waitFor();
      await check('TV links', failures);

      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('heading', { name: 'Account' }).waitFor();
      await check('account', failures);
      if (theme === 'light') await shot('console-account');
      await page.getByRole('button', { name: 'Set up SMS' }).click();
      await check('account, setting up SMS', failures);

      await page.goto(`${site.url}/no-such-screen`);
      await page.getByRole('heading', { name: 'Not found' }).waitFor();
      await check('not found', failures);

      await browser.context.clearCookies();
      await page.goto(linkAddress);
      await page.locator('li.tile').first().waitFor();
      await check('TV mode', failures);

      expect(failures).to.deep.equal([]);
      expect(browser.pageErrors()).to.deep.equal([]);
      expect(browser.foreign).to.deep.equal([]);
    });
  }

  it('when the console is used with the keyboard alone, then a user signs in, pauses an agent, opens its account and turns dark mode on', async () => {
    await site.call('PATCH', '/v2/users/user-settings/dark-mode', { token: manager.token, body: { darkMode: 0 } });
    await page.setViewportSize({ width: 1280, height: 900 });
    await browser.context.clearCookies();
    await page.goto(`${site.url}/sign-in`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const keys = page.keyboard;
    await tabTo(page, /^E-mail$/);
    await keys.type(manager.email);
    await tabTo(page, /^Password$/);
    await keys.type(manager.password);
    await keys.press('Enter');
    await page.waitForURL((u) => u.pathname === '/wallboard');
    await page.locator('li.tile').first().waitFor();

    await tabTo(page, /^Skip to content$/);
    await keys.press('Enter');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).to.equal('main');

    await tabTo(page, /^Act for Alice Smith$/);
    await keys.press('Enter');
    await tabTo(page, /^Reason$/);
    const from = site.peer.received.length;
    await keys.type('Keyboard only');
    await keys.press('Enter');
    const pause = await until(() => site.peer.received.slice(from).find((a) => a.Action === 'QueuePause'), { what: 'QueuePause' });
    expect(pause).to.include({ Reason: 'Keyboard only', Paused: 'true' });

    await tabTo(page, /^Account$/);
    await keys.press('Enter');
    await page.getByRole('heading', { name: 'Account' }).waitFor();
    await tabTo(page, /^Dark mode$/);
    await keys.press('Space');
    await until(async () => (await page.evaluate(() => (globalThis as any).document.documentElement.dataset.theme)) === 'dark', {
      what: 'dark mode',
    });
    expect((await site.call('GET', '/v2/users/me', { token: manager.token })).body.darkMode).to.equal(1);
  });

  it('when the wallboard and sign-in are opened on a phone (390×844), then nothing is wider than the screen; on a TV (1920×1080) the wallboard fills it', async () => {
    await site.call('PATCH', '/v2/users/user-settings/dark-mode', { token: manager.token, body: { darkMode: 0 } });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = () => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
    await browser.context.clearCookies();
    await page.goto(`${site.url}/sign-in`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await overflow(), 'sign-in wider than the phone').to.be.at.most(0);
    await signIn(manager, '/wallboard');
    await page.locator('li.tile').first().waitFor();
    expect(await overflow(), 'wallboard wider than the phone').to.be.at.most(0);
    await shot('console-phone');

    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await browser.context.clearCookies();
    await page.goto(linkAddress);
    await page.locator('li.tile').first().waitFor();
    await page.getByRole('heading', { name: 'Sales floor TV' }).waitFor();
    const tiles = await page.locator('li.tile').evaluateAll((els) => els.map((e: any) => e.getBoundingClientRect().top));
    expect(Math.max(...tiles), 'the three queues side by side').to.be.below(300);
    await page.screenshot({ path: join(SHOTS, 'console-tv.png'), scale: 'css' });
  });
});

/** Presses Tab until the focused element's name (its label, aria-label or text) matches; at most 80 times. */
async function tabTo(page: Page, name: RegExp): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = (globalThis as any).document.activeElement;
      if (!el) return '';
      const label = el.labels?.[0]?.textContent ?? el.getAttribute('aria-label') ?? el.textContent ?? '';
      return String(label).replace(/\s+/g, ' ').trim();
    });
    if (name.test(focused)) return;
  }
  throw new Error(`no element named ${name} within 80 presses of Tab`);
}
