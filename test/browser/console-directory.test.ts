import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { openBrowser, seriousAxeViolations, type OpenBrowser } from '../helpers/browser';
import { LAB_ADMIN, PLATFORM_ADMIN, startConsoleSite, type ConsoleSite } from '../helpers/console-site';
import { until } from '../helpers/until';

/*
 * The console's directory screens, part A (issue 31): tenants, branches, extensions with their agent aliases,
 * queues with members, service level and alert thresholds, in chromium against the real program. A platform
 * admin works as a person does (the menu, the forms, the buttons); every change is read back through the API;
 * the API's messages stand under the fields they name, and a delete it refuses shows its 409 while nothing changes.
 */
const SHOTS = process.env.TARS_SCREENSHOTS_DIR
  ? resolve(process.env.TARS_SCREENSHOTS_DIR)
  : mkdtempSync(join(tmpdir(), 'tars-console-shots-'));

type Rec = Record<string, any>;

/** The pictures docs/console.md shows (npm run screenshots), of the screens as the last test leaves them. */
const SHOTS_TAKEN = [
  'console-directory-extensions',
  'console-directory-tenants-dark',
  'console-directory-queues-phone',
  'console-directory-branches-phone-dark',
];

describe('the console in chromium: the directory, part A (issue 31)', function () {
  this.timeout(300_000);
  let site: ConsoleSite;
  let browser: OpenBrowser;
  let page: Page;
  let token: string;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    site = await startConsoleSite();
    const signedIn = await site.call('POST', '/v2/authentication', { body: PLATFORM_ADMIN });
    token = signedIn.body.accessToken;
    browser = await openBrowser({ origins: [site.url] });
    page = browser.page;
    await signIn(PLATFORM_ADMIN);
  });
  after(async () => {
    await browser?.close();
    await site?.close();
  });

  const signIn = async (who: { email: string; password: string }) => {
    await browser.context.clearCookies();
    await page.goto(`${site.url}/sign-in?next=${encodeURIComponent('/account')}`);
    await page.getByLabel('E-mail').fill(who.email);
    await page.getByLabel('Password', { exact: true }).fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Account' }).waitFor();
  };
  const api = async (method: string, path: string, body?: object, query?: Rec) => site.call(method, path, { token, body, query });
  const get = async (path: string, query?: Rec) => {
    const res = await api('GET', path, undefined, query);
    return res.status === 200 ? res.body : { status: res.status };
  };
  /** A screen reached through the menu's Directory group, as a user does. */
  const open = async (screen: 'Tenants' | 'Branches' | 'Extensions' | 'Queues') => {
    await page.goto(`${site.url}/account`);
    await page.getByRole('heading', { name: 'Account' }).waitFor();
    await page.getByRole('button', { name: 'Directory' }).click();
    await page.getByRole('link', { name: screen, exact: true }).click();
    await page.getByRole('heading', { name: screen, exact: true, level: 1 }).waitFor();
  };
  const form = (name: string | RegExp) => page.getByRole('form', { name });
  const row = (name: string | RegExp) => page.getByRole('row', { name });
  /** The message under a field: the element its aria-describedby names as its error. */
  const errorUnder = async (field: Locator) =>
    until(
      async () => {
        const id = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').find((i) => i.endsWith('-error'));
        return id ? page.locator(`[id="${id}"]`).innerText() : undefined;
      },
      { what: 'a message under the field' },
    );
  const said = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();
  /** The 409 a refused delete shows beside its buttons. */
  const refusal = (text: string) => page.locator('.confirm [role="alert"]').filter({ hasText: text }).waitFor();

  it('when a tenant is added, changed and deleted on its screen, then the API has each change; one that owns records is refused with a 409 naming them until deleted with them', async () => {
    await open('Tenants');
    const add = form('Add a tenant');
    await add.getByRole('button', { name: 'Add the tenant' }).click();
    expect(await errorUnder(add.getByLabel('Name', { exact: true }))).to.equal('name must not be empty');
    await add.getByLabel('Name', { exact: true }).fill('Console Co');
    await add.getByLabel('Partner').fill('7');
    await add.getByRole('button', { name: 'Add the tenant' }).click();
    await said(/Tenant Console Co added/);
    const made = ((await get('/v2/admin/tenants', { paginated: 0 })).records as Rec[]).find((t) => t.name === 'Console Co') as Rec;
    expect(made).to.deep.include({ partnerId: 7, mfaRequired: 0 });

    await row(/Console Co/)
      .getByRole('button', { name: 'Edit Console Co' })
      .click();
    const edit = form('Change Console Co');
    const focused = () => page.evaluate(() => (globalThis as any).document.activeElement?.textContent as string);
    expect(await focused(), 'Edit moves focus to its form').to.equal('Change Console Co');
    await edit.getByLabel('Name', { exact: true }).fill('Console Company');
    await edit.getByLabel(/two-step sign-in/).check();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await said('Tenant Console Company changed.');
    expect(await focused(), 'the form gone, focus is on the title above the message').to.equal('Tenants');
    expect(await get(`/v2/admin/tenants/${made.id}`)).to.deep.equal({ id: made.id, name: 'Console Company', partnerId: 7, mfaRequired: 1 });

    // It owns a branch now: the delete is refused with the API's words, and the tenant and its branch stay.
    const branch = await api('POST', '/v2/admin/branches', { tenantId: made.id, name: 'Only office' });
    expect(branch.status).to.equal(201);
    await row(/Console Company/)
      .getByRole('button', { name: 'Delete Console Company' })
      .click();
    await page.getByRole('button', { name: 'Delete Console Company now' }).click();
    await refusal(`Tenant ${made.id} still owns 1 branch; delete with cascade=1 to delete them with it`);
    expect((await get(`/v2/admin/tenants/${made.id}`)).name).to.equal('Console Company');
    expect((await get(`/v2/admin/branches/${branch.body.id}`)).name).to.equal('Only office');
    await page.getByLabel('with everything it owns').check();
    await page.getByRole('button', { name: 'Delete Console Company now' }).click();
    await said('Tenant Console Company deleted.');
    expect(await get(`/v2/admin/tenants/${made.id}`)).to.deep.equal({ status: 404 });
    expect(await get(`/v2/admin/branches/${branch.body.id}`)).to.deep.equal({ status: 404 });
    // The list is read again after the delete: the row goes once the new page has come.
    await until(async () => (await row(/Console Company/).count()) === 0, { what: 'the deleted tenant gone from the list' });
  });

  it('when branches are filtered by tenant, added, changed and deleted on their screen, then the API has each change; the default branch and one an extension names are refused with 409 and stay', async () => {
    await open('Branches');
    await row(/Head office/).waitFor();
    await page.getByLabel('Tenant', { exact: true }).first().selectOption({ label: 'MFA Required Co' });
    await until(async () => (await page.locator('tbody th').allInnerTexts()).join('|') === 'Head office', { what: "tenant 2's branches" });
    await page.getByLabel('Tenant', { exact: true }).first().selectOption({ label: 'All tenants' });
    await row(/Lab Contact Center/).waitFor();

    const add = form('Add a branch');
    await add.getByLabel('Tenant', { exact: true }).selectOption({ label: 'Asterisk Lab' });
    await add.getByLabel('Name', { exact: true }).fill('An');
    await add.getByLabel('Timezone').selectOption('Europe/Berlin');
    await add.getByRole('button', { name: 'Add the branch' }).click();
    expect(await errorUnder(add.getByLabel('Name', { exact: true }))).to.equal('name must be at least 3 characters long');
    expect(await add.getByLabel('Timezone').inputValue(), 'the chosen zone kept').to.equal('Europe/Berlin');
    await add.getByLabel('Name', { exact: true }).fill('Annex');
    await add.getByRole('button', { name: 'Add the branch' }).click();
    await said('Branch Annex added to Asterisk Lab.');
    const annex = ((await get('/v2/admin/branches', { tenantId: 1, paginated: 0 })).records as Rec[]).find(
      (b) => b.name === 'Annex',
    ) as Rec;
    expect(annex).to.deep.include({ timezone: 'Europe/Berlin', default: 0 });

    await row(/Annex/).getByRole('button', { name: 'Edit Annex' }).click();
    const edit = form('Change Annex');
    await edit.getByLabel('Name', { exact: true }).fill('North annex');
    await edit.getByLabel('Timezone').selectOption('Asia/Tokyo');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await said('Branch North annex changed.');
    expect(await get(`/v2/admin/branches/${annex.id}`)).to.deep.include({ name: 'North annex', timezone: 'Asia/Tokyo', default: 0 });

    await row(/Lab Contact Center/)
      .getByRole('button', { name: 'Delete Lab Contact Center' })
      .click();
    await page.getByRole('button', { name: 'Delete Lab Contact Center now' }).click();
    await refusal('Branch 1 is the default branch of tenant 1: make another branch the default first');
    await page.getByRole('button', { name: 'Keep it' }).click();

    const ext = await api('POST', '/v2/extensions', { tenantId: 1, branchId: annex.id, extNum: 7401, peerName: 'PJSIP/7401' });
    expect(ext.status).to.equal(201);
    await row(/North annex/)
      .getByRole('button', { name: 'Delete North annex' })
      .click();
    await page.getByRole('button', { name: 'Delete North annex now' }).click();
    await refusal(`Branch ${annex.id} still has 1 extension: move them to another branch first`);
    await page.screenshot({ path: join(SHOTS, 'console-directory-branches-409.png') });
    expect((await get(`/v2/admin/branches/${annex.id}`)).name).to.equal('North annex');

    await api('DELETE', `/v2/extensions/${ext.body.id}`);
    await page.getByRole('button', { name: 'Delete North annex now' }).click();
    await said('Branch North annex deleted.');
    expect(await get(`/v2/admin/branches/${annex.id}`)).to.deep.equal({ status: 404 });
  });

  it('when extensions are paged, filtered, added, given an alias, changed and deleted on their screen, then each page and change is the API own', async () => {
    // 9 extensions of the lab and 17 more: two pages of 25.
    for (let n = 0; n < 17; n++) await api('POST', '/v2/extensions', { tenantId: 1, extNum: 7500 + n, peerName: `PJSIP/${7500 + n}` });
    await api('POST', '/v2/extensions', { tenantId: 2, extNum: 100, extName: 'Head office desk', peerName: 'PJSIP/berlin-100' });
    await open('Extensions');
    await page.getByLabel('Tenant', { exact: true }).first().selectOption({ label: 'Asterisk Lab' });
    const apiPage = (n: number) => get('/v2/extensions', { tenantId: 1, page: n, recordsPerPage: 25 });
    const onScreen = async () => page.locator('tbody tr td:first-child').allInnerTexts();
    const first = await apiPage(1);
    await until(async () => (await onScreen()).join() === (first.records as Rec[]).map((e) => String(e.extNum)).join(), { what: 'page 1' });
    await page.getByText(`Page 1 of 2, ${first.total} records`).waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    const second = await apiPage(2);
    await until(async () => (await onScreen()).join() === (second.records as Rec[]).map((e) => String(e.extNum)).join(), {
      what: 'page 2',
    });
    await page.getByText(`Page 2 of 2, ${second.total} records`).waitFor();
    await page.getByLabel('Tenant', { exact: true }).first().selectOption({ label: 'MFA Required Co' });
    await until(async () => (await page.locator('tbody th').allInnerTexts()).join('|') === 'Head office desk', {
      what: "tenant 2's extensions",
    });
    await page.getByLabel('Tenant', { exact: true }).first().selectOption({ label: 'Asterisk Lab' });

    // An alias for Alice Smith (extension 201): first a blank line, which the API refuses under the field.
    await row(/Alice Smith/)
      .getByRole('button', { name: 'Edit 201' })
      .click();
    const edit = form('Change extension 201');
    const aliases = edit.getByLabel('Agent aliases');
    await aliases.fill('Local/201@from-queue/n\n   ');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    expect(await errorUnder(aliases)).to.equal('agentAliases[1] must not be blank');
    expect(await aliases.inputValue(), 'what was typed is kept').to.equal('Local/201@from-queue/n\n   ');
    expect((await get('/v2/extensions/1')).agentAliases).to.deep.equal([]);
    await aliases.fill('Local/201@from-queue/n\nAlice S.');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await said('Extension 201 changed.');
    expect(await get('/v2/extensions/1')).to.deep.include({
      extNum: 201,
      extName: 'Alice Smith',
      peerName: 'PJSIP/201',
      agentAliases: ['Local/201@from-queue/n', 'Alice S.'],
    });
    await row(/Alice Smith/)
      .getByText('Alice S.')
      .waitFor();

    const add = form('Add an extension');
    await add.getByLabel('Tenant', { exact: true }).selectOption({ label: 'Asterisk Lab' });
    await add.getByLabel('Number', { exact: true }).fill('299');
    await add.getByLabel("Agent's name").fill('Console Agent');
    await add.getByLabel('Peer name').fill('PJSIP/299');
    await add.getByLabel('Agent aliases').fill('Local/299@from-queue/n');
    await add.getByLabel('Branch').selectOption({ label: 'Lab Contact Center' });
    await add.getByLabel('Caller ID number').fill('+13125550299');
    await add.getByRole('button', { name: 'Add the extension' }).click();
    await said('Extension 299 added.');
    const made = ((await get('/v2/extensions', { tenantId: 1, paginated: 0 })).records as Rec[]).find((e) => e.extNum === 299) as Rec;
    expect(made).to.deep.include({
      tenantId: 1,
      branchId: 1,
      extName: 'Console Agent',
      peerName: 'PJSIP/299',
      agentAliases: ['Local/299@from-queue/n'],
      callerIdNumber: '+13125550299',
    });
    // The same alias again on another extension: the API's 409 says whose it is; nothing is added.
    await add.getByLabel('Number', { exact: true }).fill('298');
    await add.getByLabel('Peer name').fill('PJSIP/298');
    await add.getByLabel('Agent aliases').fill('Local/299@from-queue/n');
    await add.getByRole('button', { name: 'Add the extension' }).click();
    await add
      .getByRole('alert')
      .filter({ hasText: `The agent name "Local/299@from-queue/n" already names extension ${made.id} of tenant 1` })
      .waitFor();
    expect((await get('/v2/extensions', { tenantId: 1, paginated: 0 })).total).to.equal(27);

    await row(/Console Agent/)
      .getByRole('button', { name: 'Delete extension 299' })
      .click();
    await page.getByRole('button', { name: 'Delete extension 299 now' }).click();
    await said('Extension 299 deleted.');
    expect(await get(`/v2/extensions/${made.id}`)).to.deep.equal({ status: 404 });
  });

  it('when a queue is added with members, its service level and alert thresholds set, a member added and the queue deleted on its screen, then the API has each change; a queue with stored lines is refused with 409', async () => {
    await open('Queues');
    await row(/Billing/).waitFor();
    // The tenant filter is the API's tenantId: tenant 2 has no queue, tenant 1 the lab's three.
    await page.getByLabel('Tenant', { exact: true }).first().selectOption({ label: 'MFA Required Co' });
    await page.getByRole('cell', { name: 'No queue.' }).waitFor();
    expect(await get('/v2/queues', { tenantId: 2 })).to.deep.equal([]);
    await page.getByLabel('Tenant', { exact: true }).first().selectOption({ label: 'Asterisk Lab' });
    await until(async () => (await page.locator('tbody th').allInnerTexts()).join('|') === 'Sales|Support|Billing', {
      what: "the lab's queues",
    });
    const add = form('Add a queue');
    await add.getByLabel('Tenant', { exact: true }).selectOption({ label: 'Asterisk Lab' });
    await add.getByLabel('Name', { exact: true }).fill('Console queue');
    await add.getByLabel('Name in queue_log').fill('console-q');
    await add.getByLabel('Ring strategy').selectOption('rrmemory');
    await add.getByLabel('Service level threshold (seconds)').fill('0');
    await add.getByLabel('201 Alice Smith').check();
    await add.getByRole('button', { name: 'Add the queue' }).click();
    expect(await errorUnder(add.getByLabel('Service level threshold (seconds)'))).to.equal('serviceLevelSeconds must be at least 1');
    expect(await add.getByLabel('201 Alice Smith').isChecked(), 'the member kept').to.equal(true);
    expect((await get('/v2/queues', { tenantId: 1 })).map((q: Rec) => q.name)).to.not.include('Console queue');
    await add.getByLabel('Service level threshold (seconds)').fill('20');
    await add.getByRole('button', { name: 'Add the queue' }).click();
    await said('Queue Console queue added: set its alert thresholds below.');
    const made = ((await get('/v2/queues', { tenantId: 1 })) as Rec[]).find((q) => q.name === 'Console queue') as Rec;
    expect(await get(`/v2/queues/${made.id}`)).to.deep.include({
      logName: 'console-q',
      ringStrategy: 'rrmemory',
      serviceLevelSeconds: 20,
      members: [1],
    });

    // Its alert thresholds, in the form that opened with it.
    const alerts = form('Alert thresholds of Console queue');
    await alerts.getByLabel('More callers waiting than').fill('4');
    await alerts.getByLabel('A caller waiting longer than (seconds)').fill('90');
    await alerts.getByLabel("Today's service level below (%)").fill('75.5');
    await alerts.getByLabel('No member available').check();
    await alerts.getByLabel('E-mail the alerts to').fill('floor@asterisk-lab.test');
    await alerts.getByRole('button', { name: 'Save the alert thresholds' }).click();
    await said('Alert thresholds of Console queue saved.');
    expect(await get(`/v2/queues/${made.id}/alerts`)).to.deep.equal({
      queueId: made.id,
      maxCallersWaiting: 4,
      maxLongestWaitSeconds: 90,
      minServiceLevelPercent: 75.5,
      noAgentAvailable: true,
      email: 'floor@asterisk-lab.test',
      cooldownSeconds: 300,
    });

    // A member added and the service level changed; another threshold turned off.
    const edit = form('Change Console queue');
    await edit.getByLabel('202 Bob Jones').check();
    await edit.getByLabel('Service level threshold (seconds)').fill('25');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await said('Queue Console queue changed.');
    expect(await get(`/v2/queues/${made.id}`)).to.deep.include({ serviceLevelSeconds: 25, members: [1, 2] });
    await row(/Console queue/)
      .getByText('25 s')
      .waitFor();
    await row(/Console queue/)
      .getByRole('button', { name: 'Edit Console queue' })
      .click();
    const again = form('Alert thresholds of Console queue');
    await again.getByLabel('More callers waiting than').waitFor();
    expect(await again.getByLabel('More callers waiting than').inputValue()).to.equal('4');
    await again.getByLabel('More callers waiting than').fill('');
    await again.getByRole('button', { name: 'Save the alert thresholds' }).click();
    await said('Alert thresholds of Console queue saved.');
    expect((await get(`/v2/queues/${made.id}/alerts`)).maxCallersWaiting).to.equal(null);

    // Sales has the recorded run's lines: refused with the API's count, and it stays with them.
    const lines = (await api('DELETE', '/v2/queues/1')).body.message as string;
    expect(lines).to.match(/^Queue 1 has \d+ stored queue_log lines/);
    await row(/Sales/).getByRole('button', { name: 'Delete Sales' }).click();
    await page.getByRole('button', { name: 'Delete Sales now' }).click();
    await refusal(lines);
    expect((await get('/v2/queues/1')).name).to.equal('Sales');
    await page.getByRole('button', { name: 'Keep it' }).click();

    await row(/Console queue/)
      .getByRole('button', { name: 'Delete Console queue' })
      .click();
    await page.getByRole('button', { name: 'Delete Console queue now' }).click();
    await said('Queue Console queue deleted.');
    expect(await get(`/v2/queues/${made.id}`)).to.deep.equal({ status: 404 });
  });

  it("when an account admin opens the directory, then it has no Tenants screen and no tenant choice: its lists are its own tenant's", async () => {
    try {
      await signIn(LAB_ADMIN);
      await page.getByRole('button', { name: 'Directory' }).click();
      const menu = page.locator('#menu-directory');
      expect(await menu.getByRole('link').allInnerTexts()).to.deep.equal([
        'Branches',
        'Extensions',
        'Queues',
        'Users',
        'Phone numbers',
        'E911 locations',
        'Webhooks',
      ]);
      await menu.getByRole('link', { name: 'Branches' }).click();
      await page.getByRole('heading', { name: 'Branches', level: 1 }).waitFor();
      await row(/Lab Contact Center/).waitFor();
      expect(await page.locator('tbody th').allInnerTexts()).to.deep.equal(['Lab Contact Center']);
      expect(await page.getByLabel('Tenant', { exact: true }).count(), 'no tenant filter nor field').to.equal(0);
      expect(await page.getByRole('columnheader', { name: 'Tenant' }).count()).to.equal(0);
      // Its new branch goes to its own tenant, the only one it has.
      await form('Add a branch').getByLabel('Name', { exact: true }).fill('Lab annex');
      await form('Add a branch').getByRole('button', { name: 'Add the branch' }).click();
      await said('Branch Lab annex added to Asterisk Lab.');
      const branches = (await get('/v2/admin/branches', { paginated: 0 })).records as Rec[];
      expect(branches.find((b) => b.name === 'Lab annex')?.tenant).to.deep.equal({ id: 1, name: 'Asterisk Lab' });
      await page.goto(`${site.url}/directory/tenants`);
      await page.getByText('Your role does not allow this screen (admin.tenants.read).').waitFor();
    } finally {
      await signIn(PLATFORM_ADMIN);
    }
  });

  it('when each directory screen is checked by axe-core in light and dark, at 1280 and 390 px, then none has a serious or critical violation and nothing is wider than a phone', async () => {
    const failures: string[] = [];
    const overflow = () => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
    for (const theme of ['light', 'dark'] as const) {
      await api('PATCH', '/v2/users/user-settings/dark-mode', { darkMode: theme === 'dark' ? 1 : 0 });
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        for (const screen of ['Tenants', 'Branches', 'Extensions', 'Queues'] as const) {
          await open(screen);
          await page.locator('tbody th').first().waitFor();
          if (screen === 'Queues') {
            await row(/Support/)
              .getByRole('button', { name: 'Edit Support' })
              .click();
            await form('Alert thresholds of Support').getByLabel('More callers waiting than').waitFor();
          }
          expect(await page.evaluate(() => (globalThis as any).document.documentElement.dataset.theme)).to.equal(theme);
          for (const v of await seriousAxeViolations(page))
            failures.push(`${screen} ${theme} ${width}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(', ')}`);
          if (width === 390) expect(await overflow(), `${screen} wider than the phone`).to.be.at.most(0);
          const name = `console-directory-${screen.toLowerCase()}${width === 390 ? '-phone' : ''}${theme === 'dark' ? '-dark' : ''}`;
          if (SHOTS_TAKEN.includes(name)) {
            // A table scrolled sideways to the Edit just pressed is shown from its first column.
            await page.evaluate(() => (globalThis as any).document.querySelectorAll('.table-wrap').forEach((t: any) => (t.scrollLeft = 0)));
            await page.screenshot({ path: join(SHOTS, `${name}.png`) });
          }
        }
      }
    }
    await api('PATCH', '/v2/users/user-settings/dark-mode', { darkMode: 0 });
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(failures).to.deep.equal([]);
    expect(browser.pageErrors()).to.deep.equal([]);
    expect(browser.foreign).to.deep.equal([]);
  });
});
