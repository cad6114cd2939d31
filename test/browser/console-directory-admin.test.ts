import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { openBrowser, seriousAxeViolations, type OpenBrowser } from '../helpers/browser';
import { LAB_ADMIN, sixDigits, startConsoleSite, type ConsoleSite } from '../helpers/console-site';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { until } from '../helpers/until';

/*
 * The directory's users, phone numbers, E911 locations and webhooks (issue 31) used as a person would, in chromium
 * against the real program (dist/tars.cjs) on the recorded Asterisk run's site, signed in as its account admin: every
 * change made on a screen is read back through the API; the API's field errors and 409s appear on the screen and
 * change nothing; a reset e-mail reaches the SMTP sink; a failed webhook delivery is retried from the screen and
 * reaches a real HTTP receiver with the same webhook-id. Then axe-core on each screen, light and dark, 1280 and 390 px.
 */
const SHOTS = process.env.TARS_SCREENSHOTS_DIR
  ? resolve(process.env.TARS_SCREENSHOTS_DIR)
  : mkdtempSync(join(tmpdir(), 'tars-console-shots-'));

const SCREENS = [
  { path: '/directory/users', heading: 'Users' },
  { path: '/directory/phone-numbers', heading: 'Phone numbers' },
  { path: '/directory/e911', heading: 'E911 locations' },
  { path: '/directory/webhooks', heading: 'Webhooks' },
] as const;

describe('the directory in chromium: users, phone numbers, E911 locations, webhooks (issue 31)', function () {
  this.timeout(300_000);
  let site: ConsoleSite;
  let receiver: HttpReceiver;
  let browser: OpenBrowser;
  let page: Page;
  const admin = () => site.admin.token;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    receiver = await startReceiver();
    // The receiver is on loopback, which webhooks reach only when the operator names it.
    site = await startConsoleSite({ env: { TARS_WEBHOOK_ALLOW: '127.0.0.1' } });
    browser = await openBrowser({ origins: [site.url] });
    page = browser.page;
    await page.goto(`${site.url}/sign-in?next=${encodeURIComponent('/directory/users')}`);
    await page.getByLabel('E-mail').fill(LAB_ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(LAB_ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await receiver?.close();
    console.log(`      screenshots: ${SHOTS}`);
  });

  const open = async (path: string, heading: string) => {
    await page.goto(`${site.url}${path}`);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  };
  const form = (name: string) => page.getByRole('form', { name });
  /** The API's message under a field of a form (the field's own error paragraph). */
  const errorUnder = (f: Locator, label: string) =>
    f.locator('.field', { has: page.getByLabel(label, { exact: true }) }).locator('.field-error');
  const said = () => page.locator('p.form-done[role=status]').first();
  const users = async () =>
    (await site.call('GET', '/v2/admin/users', { token: admin(), query: { tenantId: 1, paginated: 0 } })).body.records as Array<{
      id: number;
      email: string;
      userRole: number;
      extId: number;
      mfaEnabled: number;
    }>;

  it('when an admin adds a user, gives it a role and an extension, resets its MFA, sends it a reset e-mail and deletes it, then the API has each change; a bad e-mail and a 409 change nothing', async () => {
    const email = 'new.agent@asterisk-lab.test';
    const password = 'new agent password';
    await open('/directory/users', 'Users');
    const add = form('Add a user');
    const roles = await add.getByLabel('Role').locator('option').allTextContents();
    expect(roles, 'an account admin gives no role above its own').to.deep.equal([
      'Basic user',
      'Queue manager',
      'Reports admin',
      'Account admin',
    ]);

    const before = (await users()).length;
    await add.getByLabel('E-mail').fill('not an address');
    await add.getByLabel('First password').fill(password);
    await add.getByRole('button', { name: 'Add the user' }).click();
    expect(await errorUnder(add, 'E-mail').textContent()).to.equal('email must be an e-mail address');
    expect(await add.getByLabel('E-mail').getAttribute('aria-invalid')).to.equal('true');
    expect((await users()).length).to.equal(before);

    await add.getByLabel('E-mail').fill(email);
    await add.getByLabel('Role').selectOption({ label: 'Queue manager' });
    await add.getByRole('button', { name: 'Add the user' }).click();
    await until(async () => (await said().textContent())?.includes(`User ${email} added as Queue manager.`), { what: 'added' });
    const made = (await users()).find((u) => u.email === email);
    expect(made).to.include({ userRole: 7, extId: 0 });

    // A role and an extension, changed on the screen.
    await page
      .getByRole('row', { name: new RegExp(email) })
      .getByRole('button', { name: `Edit ${email}` })
      .click();
    const change = form(`Change ${email}`);
    await change.getByLabel('Role').selectOption({ label: 'Reports admin' });
    const ext = (await change.getByLabel('Own extension').locator('option').nth(1).getAttribute('value')) as string;
    await change.getByLabel('Own extension').selectOption(ext);
    await change.getByRole('button', { name: 'Save changes' }).click();
    await until(async () => (await said().textContent())?.includes(`User ${email} changed: Reports admin.`), { what: 'changed' });
    expect((await users()).find((u) => u.email === email)).to.include({ userRole: 9, extId: Number(ext) });

    // The user saves a report (so it owns something) and turns MFA on by e-mail, through the API.
    const login = await site.call('POST', '/v2/authentication', { body: { email, password } });
    const token = login.body.accessToken as string;
    const filter = await site.call('POST', '/v2/reporting/saved', {
      token,
      body: { tenantId: 1, url: '/v2/reporting/calls', module: 'calls', name: 'My calls' },
    });
    expect(filter.status, filter.text).to.equal(201);
    await site.call('POST', '/v2/mfa/auth/setup', { token, body: { mode: 'email', password } });
    const code = sixDigits((await site.smtp.next()).parsed.text ?? '');
    const verified = await site.call('POST', '/v2/mfa/auth/verify', { token, body: { mode: 'email', otp: code } });
    expect(verified.status, verified.text).to.equal(201);

    await open('/directory/users', 'Users');
    const row = page.getByRole('row', { name: new RegExp(email) });
    await until(async () => (await row.textContent())?.includes('On (e-mail)'), { what: 'MFA on in the list' });
    await row.getByRole('button', { name: `Edit ${email}` }).click();
    await page.getByRole('button', { name: `Reset MFA of ${email}` }).click();
    await page.getByRole('button', { name: `Reset the MFA of ${email} now` }).click();
    await until(async () => (await said().textContent())?.includes(`MFA of ${email} is reset`), { what: 'MFA reset' });
    expect((await users()).find((u) => u.email === email)?.mfaEnabled).to.equal(0);
    await until(async () => (await row.textContent())?.includes('Off'), { what: 'MFA off in the list' });

    await page.getByRole('button', { name: `Send a password-reset e-mail to ${email}` }).click();
    const mail = await site.smtp.next();
    expect(mail.to).to.deep.equal([email]);
    expect(mail.parsed.subject).to.equal('Reset your TARS password');
    const resetToken = /\n\n([A-Za-z0-9_-]{43})\n\n/.exec(mail.parsed.text ?? '')?.[1];
    const reset = await site.call('POST', '/v2/users/reset-password', { body: { token: resetToken, password: 'a reset password' } });
    expect(reset.status, reset.text).to.equal(201);
    await until(async () => (await said().textContent())?.includes(`A reset e-mail is on its way to ${email}`), { what: 'sent' });

    // The API refuses the delete while the user owns a saved report: its message, and the user stays.
    await row.getByRole('button', { name: `Delete ${email}`, exact: true }).click();
    await row.getByRole('button', { name: `Delete ${email} now` }).click();
    const refusal = row.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).to.match(new RegExp(`^User ${made?.id} owns 1 saved filter: delete it first`));
    expect((await users()).some((u) => u.email === email)).to.equal(true);

    // A user who owns nothing is deleted (one made through the API: a deleted saved report still counts as owned).
    const leaver = await site.makeUser(5, { email: 'leaver@asterisk-lab.test' });
    await open('/directory/users', 'Users');
    const leaverRow = page.getByRole('row', { name: new RegExp(leaver.email) });
    await leaverRow.getByRole('button', { name: `Delete ${leaver.email}`, exact: true }).click();
    await leaverRow.getByRole('button', { name: `Delete ${leaver.email} now` }).click();
    await until(async () => (await said().textContent())?.includes(`User ${leaver.email} deleted.`), { what: 'deleted' });
    expect((await users()).some((u) => u.email === leaver.email)).to.equal(false);
    expect((await site.call('GET', `/v2/admin/users/${made?.id}`, { token: admin() })).body.email).to.equal(email);
    expect(browser.pageErrors()).to.deep.equal([]);
  });

  it("when an admin adds a phone number, filters the list, changes its caller-ID name and deletes it, then the API has each change; a taken number is the API's 409", async () => {
    const numbers = async (query: Record<string, string | number> = {}) =>
      (await site.call('GET', '/v2/admin/phone-numbers', { token: admin(), query: { tenantId: 1, paginated: 0, ...query } })).body
        .records as Array<{ id: number; number: string; registeredCNAM: string | null; branch: { id: number } }>;
    await open('/directory/phone-numbers', 'Phone numbers');
    const add = form('Add a phone number');
    await add.getByLabel('Number').fill('+13125550199');
    await add.getByLabel('Branch').selectOption({ index: 1 });
    await add.getByLabel('Extension its texts go to').selectOption({ index: 1 });
    await add.getByLabel('Caller-ID name').fill('FRONT DESK');
    await add.getByRole('button', { name: 'Add the number' }).click();
    await until(async () => (await said().textContent())?.includes('Number +13125550199 added'), { what: 'added' });
    const [made] = await numbers({ number: '3125550199' });
    expect(made).to.include({ number: '+13125550199', registeredCNAM: 'FRONT DESK' });

    // The same number again: the API's 409, said as it says it; nothing added.
    const count = (await numbers()).length;
    await add.getByLabel('Number').fill('+13125550199');
    await add.getByRole('button', { name: 'Add the number' }).click();
    await add.getByRole('alert').waitFor();
    expect(await add.getByRole('alert').textContent()).to.equal(`The number +13125550199 is already phone number ${made?.id}`);
    expect((await numbers()).length).to.equal(count);

    // The list's filters are the API's: a number with no digit is its 400, under the field.
    const filter = form('Filter the phone numbers');
    await filter.getByLabel('Number contains').fill('abc');
    await filter.getByRole('button', { name: 'Show' }).click();
    await errorUnder(filter, 'Number contains').waitFor();
    expect(await errorUnder(filter, 'Number contains').textContent()).to.match(/^number must be \(a part of\) a phone number/);
    await filter.getByLabel('Number contains').fill('555 0199');
    await filter.getByRole('button', { name: 'Show' }).click();
    await until(async () => (await page.locator('main table tbody tr').count()) === 1, { what: 'one number' });
    expect(await page.locator('main table tbody tr th').textContent()).to.equal('+13125550199');

    // Its caller-ID name: too long is the API's 400 under the field, then a good one.
    await page.getByRole('button', { name: 'Caller-ID name of +13125550199' }).click();
    const name = form('Caller-ID name of +13125550199');
    await name.getByLabel('Caller-ID name').fill('A NAME FAR TOO LONG');
    await name.getByRole('button', { name: 'Save the name' }).click();
    await errorUnder(name, 'Caller-ID name').waitFor();
    expect(await errorUnder(name, 'Caller-ID name').textContent()).to.match(/^callerIdName /);
    expect((await numbers({ number: '3125550199' }))[0]?.registeredCNAM).to.equal('FRONT DESK');
    await name.getByLabel('Caller-ID name').fill('SALES DESK');
    await name.getByRole('button', { name: 'Save the name' }).click();
    await until(async () => (await said().textContent())?.includes('is now “SALES DESK”'), { what: 'renamed' });
    expect((await numbers({ number: '3125550199' }))[0]?.registeredCNAM).to.equal('SALES DESK');

    await page.getByRole('button', { name: 'Delete +13125550199', exact: true }).click();
    await page.getByRole('button', { name: 'Delete +13125550199 now' }).click();
    await until(async () => (await said().textContent())?.includes('Number +13125550199 deleted.'), { what: 'deleted' });
    expect(await numbers({ number: '3125550199' })).to.deep.equal([]);
  });

  it('when an admin adds an E911 location without a city, then the API names the field; added, changed and deleted, the API has each change', async () => {
    const locations = async () =>
      (await site.call('GET', '/v2/admin/emergency-locations', { token: admin(), query: { tenantId: 1, paginated: 0 } })).body
        .records as Array<{ id: number; name: string; address: Record<string, string> }>;
    await open('/directory/e911', 'E911 locations');
    const add = form('Add an E911 location');
    await add.getByLabel('Name').fill('Loading dock');
    await add.getByLabel('Street number').fill('100');
    await add.getByLabel('Street', { exact: true }).fill('W Randolph St');
    await add.getByLabel('State or region').fill('IL');
    await add.getByLabel('Postal code').fill('60601');
    const before = (await locations()).length;
    await add.getByRole('button', { name: 'Add the location' }).click();
    await errorUnder(add, 'City').waitFor();
    expect(await errorUnder(add, 'City').textContent()).to.match(/^address\.city /);
    expect((await locations()).length).to.equal(before);

    await add.getByLabel('City').fill('Chicago');
    await add.getByRole('button', { name: 'Add the location' }).click();
    await until(async () => (await said().textContent())?.includes('Location Loading dock added.'), { what: 'added' });
    const made = (await locations()).find((l) => l.name === 'Loading dock');
    expect(made?.address).to.deep.include({
      streetNum: '100',
      streetInfo: 'W Randolph St',
      city: 'Chicago',
      state: 'IL',
      postalCode: '60601',
    });

    await page.getByRole('button', { name: 'Edit Loading dock' }).click();
    const change = form('Change Loading dock');
    await change.getByLabel('Name').fill('Loading dock, north');
    await change.getByLabel('Suite, floor or room (if any)').fill('Dock 3');
    await change.getByRole('button', { name: 'Save changes' }).click();
    await until(async () => (await said().textContent())?.includes('Location Loading dock, north changed.'), { what: 'changed' });
    const changed = (await locations()).find((l) => l.id === made?.id);
    expect(changed).to.deep.include({ name: 'Loading dock, north' });
    expect(changed?.address).to.deep.include({ loc: 'Dock 3', city: 'Chicago' });

    await page.getByRole('button', { name: 'Delete Loading dock, north', exact: true }).click();
    await page.getByRole('button', { name: 'Delete Loading dock, north now' }).click();
    await until(async () => (await said().textContent())?.includes('deleted'), { what: 'deleted' });
    expect((await site.call('GET', `/v2/admin/emergency-locations/${made?.id}`, { token: admin() })).status).to.equal(404);
  });

  it('when a webhook delivery fails at a real receiver and is retried from the screen, then it arrives again with the same webhook-id; the webhook is changed and deleted', async () => {
    const url = `${receiver.url}/directory-hook`;
    await open('/directory/webhooks', 'Webhooks');
    const add = form('Add a webhook');
    await add.getByLabel('Event').selectOption('ENDCALL');
    await add.getByLabel('URL').fill('ftp://files.example.test/hook');
    await add.getByRole('button', { name: 'Add the webhook' }).click();
    await errorUnder(add, 'URL').waitFor();
    expect(await errorUnder(add, 'URL').textContent()).to.equal('url must be an http:// or https:// URL');
    await add.getByLabel('URL').fill(url);
    await add.getByRole('button', { name: 'Add the webhook' }).click();
    await until(async () => (await said().textContent())?.includes(`Webhook ${url} added.`), { what: 'added' });
    const hooks = (await site.call('GET', '/v2/webhooks', { token: admin(), query: { tenantId: 1 } })).body as Array<{
      id: number;
      url: string;
    }>;
    const hook = hooks.find((h) => h.url === url) as { id: number };
    expect(hook).to.include({ type: 'ENDCALL' });

    // A call ends (a Master.csv row sent to the API); the receiver refuses its ENDCALL with 400: final, failed.
    receiver.status = 400;
    const cdr =
      '"","+14155550100","support","inbound","""Test Caller"" <+14155550100>","Local/14155550100@callers-0000009a;1",' +
      '"Local/205@agents-0000009b;1","Queue","support,t,,,180","2026-11-23 20:06:32","2026-11-23 20:06:32","2026-11-23 20:06:42",' +
      '10,10,"NO ANSWER","DOCUMENTATION"';
    expect((await site.call('POST', '/v2/reporting/ingest/cdr', { token: admin(), body: { lines: [cdr] } })).status).to.be.below(300);
    const failed = await until(
      async () => {
        const page1 = await site.call('GET', `/v2/webhooks/${hook.id}/deliveries`, { token: admin() });
        return (page1.body.records as Array<{ id: number; messageId: string; status: string }>).find((d) => d.status === 'failed');
      },
      { what: 'a failed delivery' },
    );
    expect(receiver.requests).to.have.length(1);

    await page.getByRole('button', { name: `Deliveries of ${url}` }).click();
    const deliveries = page.locator('.deliveries');
    const row = deliveries.getByRole('row', { name: new RegExp(failed.messageId) });
    await until(async () => (await row.textContent())?.includes('HTTP 400'), { what: 'the failed row' });
    expect(await row.textContent()).to.contain('Failed');
    receiver.status = 204;
    await row.getByRole('button', { name: `Retry delivery ${failed.messageId}` }).click();
    await until(async () => (await row.textContent())?.includes('Delivered'), { what: 'delivered, on the screen', ms: 30_000 });
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).to.deep.equal([failed.messageId, failed.messageId]);
    expect(receiver.requests[1]?.body).to.equal(receiver.requests[0]?.body);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: join(SHOTS, 'console-directory-webhooks.png'), fullPage: true });

    await page.getByRole('button', { name: `Edit ${url}` }).click();
    const change = form(`Change the webhook to ${url}`);
    await change.getByLabel('Basic-auth user (if any)').fill('hookuser');
    await change.getByLabel('Basic-auth password (if any)').fill('hookpass');
    await change.getByRole('button', { name: 'Save changes' }).click();
    await until(async () => (await said().textContent())?.includes(`Webhook ${url} changed.`), { what: 'changed' });
    expect((await site.call('GET', `/v2/webhooks/${hook.id}`, { token: admin() })).body).to.include({
      username: 'hookuser',
      password: 'hookpass',
    });

    await page.getByRole('button', { name: `Delete ${url}`, exact: true }).click();
    await page.getByRole('button', { name: `Delete ${url} now` }).click();
    await until(async () => (await said().textContent())?.includes(`Webhook ${url} deleted.`), { what: 'deleted' });
    expect((await site.call('GET', `/v2/webhooks/${hook.id}`, { token: admin() })).status).to.equal(404);
  });

  it('when each directory screen is checked by axe-core, light and dark, at 1280 and 390 px, then none has a serious or critical violation', async () => {
    // A record on each list, so that each screen shows a row as a site has them.
    const address = { streetNum: '233', streetInfo: 'S Wacker Dr', city: 'Chicago', state: 'IL', postalCode: '60606' };
    await site.call('POST', '/v2/admin/emergency-locations', { token: admin(), body: { tenantId: 1, name: 'Main office', address } });
    await site.call('POST', '/v2/webhooks', {
      token: admin(),
      body: { tenantId: 1, type: 'QUEUEALERT', url: 'https://crm.example.test/hooks/tars' },
    });
    const failures: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      await site.call('PATCH', '/v2/users/user-settings/dark-mode', { token: admin(), body: { darkMode: theme === 'dark' ? 1 : 0 } });
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        for (const s of SCREENS) {
          await open(s.path, s.heading);
          await page.locator('main table tbody tr').first().waitFor();
          await until(async () => (await page.locator('main table tbody td.empty', { hasText: 'Loading' }).count()) === 0, {
            what: `${s.path} loaded`,
          });
          expect(await page.evaluate(() => (globalThis as any).document.documentElement.dataset.theme)).to.equal(theme);
          for (const v of await seriousAxeViolations(page))
            failures.push(`${s.path} ${theme} ${width}px: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(', ')}`);
          if (s.path === '/directory/users' && theme === 'light' && width === 1280)
            await page.screenshot({ path: join(SHOTS, 'console-directory-users.png'), fullPage: true });
          if (s.path === '/directory/users' && theme === 'dark' && width === 390)
            await page.screenshot({ path: join(SHOTS, 'console-directory-users-phone-dark.png') });
          if (s.path === '/directory/e911' && theme === 'light' && width === 1280)
            await page.screenshot({ path: join(SHOTS, 'console-directory-e911.png'), fullPage: true });
        }
      }
    }
    await site.call('PATCH', '/v2/users/user-settings/dark-mode', { token: admin(), body: { darkMode: 0 } });
    expect(failures).to.deep.equal([]);
    expect(browser.pageErrors()).to.deep.equal([]);
    expect(browser.foreign).to.deep.equal([]);
  });
});
