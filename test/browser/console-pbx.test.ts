import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { SchemaTypes } from '../../src/validation/schema-types';
import { openBrowser, seriousAxeViolations, type OpenBrowser } from '../helpers/browser';
import { runTars } from '../helpers/cli';
import { PLATFORM_ADMIN, startConsoleSite, type ConsoleSite } from '../helpers/console-site';
import { FIXTURES } from '../helpers/fixtures';
import { until } from '../helpers/until';

/*
 * The console's PBX screens (issue 31) in chromium against the real program: the AMI link of a PBX on loopback
 * that replays the recorded Asterisk run; a file imported by `tars import` with an agent name the directory does
 * not know, mapped from the screen and imported again; `tars pbx sync`'s plan of a configuration directory on the
 * server shown as a diff and applied.
 */
const SHOTS = process.env.TARS_SCREENSHOTS_DIR
  ? resolve(process.env.TARS_SCREENSHOTS_DIR)
  : mkdtempSync(join(tmpdir(), 'tars-console-shots-'));

type Plan = SchemaTypes['pbx-sync-plan'];
type AgentsReport = SchemaTypes['queue-agents'];

/** The recorded run's queue_log with Ivan Petrov's member name written as "Ivan P." (a name no extension has). */
const RENAMED = 'Ivan P.';
function renamedQueueLog(file: string): number {
  const text = readFileSync(join(FIXTURES, 'asterisk', 'queue_log'), 'utf8');
  writeFileSync(file, text.replaceAll('|Ivan Petrov|', `|${RENAMED}|`));
  return text.split('\n').filter((l) => l.includes('|Ivan Petrov|')).length;
}

describe('the console in chromium: AMI links, recent imports, config sync (issue 31)', function () {
  this.timeout(300_000);
  let site: ConsoleSite;
  let browser: OpenBrowser;
  let page: Page;
  let work: string;
  let configDir: string;
  let logFile: string;
  let renamedLines: number;
  let root: string;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    work = mkdtempSync(join(tmpdir(), 'tars-console-pbx-'));
    configDir = join(work, 'asterisk');
    cpSync(join(FIXTURES, 'asterisk', 'etc'), configDir, { recursive: true });
    logFile = join(work, 'queue_log');
    renamedLines = renamedQueueLog(logFile);
    site = await startConsoleSite({ env: { TARS_PBX_CONFIG_DIR: configDir } });
    // tars import on the server's data directory while it runs, as an admin would.
    const imported = await runTars(['import', 'queue-log', logFile, '--data-dir', site.dataDir, '--timezone', 'UTC']);
    if (imported.code !== 0) throw new Error(`tars import: ${imported.stderr}`);
    const login = await site.call('POST', '/v2/authentication', { body: PLATFORM_ADMIN });
    root = login.body.accessToken;
    browser = await openBrowser({ origins: [site.url] });
    page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${site.url}/sign-in?next=${encodeURIComponent('/pbx/links')}`);
    await page.getByLabel('E-mail').fill(PLATFORM_ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(PLATFORM_ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/pbx/links');
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    if (work) rmSync(work, { recursive: true, force: true });
    console.log(`      screenshots: ${SHOTS}`);
  });

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const linkRow = () => page.locator('table:has(caption:text("AMI links")) tbody tr').first();

  it('when the AMI links screen is open, then the link is connected with its last event ticking; when the PBX goes down, it says so with the reason', async () => {
    await page.goto(`${site.url}/pbx/links`);
    await page.getByRole('heading', { name: 'AMI links' }).waitFor();
    const live = await site.call('GET', '/v2/reporting/queues/live', { token: root, query: { tenantId: 1 } });
    const label = live.body.pbx[0].label as string;
    await until(async () => (await linkRow().innerText()).includes('Connected'), { what: 'the link connected' });
    expect(await linkRow().locator('th').innerText()).to.equal(label);
    expect(label, 'the secret is never shown').to.not.include('tars-ami-secret');
    site.peer.playTo(5); // events arrive: the age of the last one starts again from 0
    const age = () => linkRow().locator('.age [aria-hidden]').innerText();
    const first = await until(
      async () => {
        const a = await age();
        return /^\d+:\d\d ago$/.test(a) ? a : undefined;
      },
      { what: 'an age' },
    );
    await until(async () => (await age()) !== first, { what: 'the age ticking' });
    await shot('console-pbx-links');

    site.peer.goDown();
    await until(async () => /Down|Connecting/.test(await linkRow().locator('td').first().innerText()), {
      what: 'the link down',
      ms: 20_000,
    });
    const down = await site.call('GET', '/v2/reporting/queues/live', { token: root, query: { tenantId: 1 } });
    expect(down.body.pbx[0].state).to.not.equal('connected');
    if (down.body.pbx[0].reason) {
      await until(async () => (await linkRow().innerText()).includes(down.body.pbx[0].reason), { what: 'the reason shown', ms: 10_000 });
      await shot('console-pbx-links-down');
    }
    site.peer.comeBack();
    await until(async () => (await linkRow().innerText()).includes('Connected'), { what: 'the link back', ms: 30_000 });
    expect(browser.pageErrors()).to.deep.equal([]);
  });

  it('when a file was imported with an unknown agent, then it is listed; mapped from the screen by an alias and imported again, its kept lines count for the extension', async () => {
    const agentsAnswered = async (extId: number) => {
      const res = await site.call<AgentsReport>('POST', '/v2/reporting/queues/agents', {
        token: root,
        body: { queueId: [1, 2, 3], startDate: '2026-11-22', endDate: '2026-11-24' },
      });
      return res.body.results.filter((r) => r.extId === extId && r.queueId === null).reduce((n, r) => n + r.answered, 0);
    };
    expect(await agentsAnswered(9), 'before: no call of "Ivan P." counts for extension 209').to.equal(0);

    await page.goto(`${site.url}/pbx/imports`);
    await page.getByRole('heading', { name: 'Recent imports' }).waitFor();
    const row = page.getByRole('row', { name: /tars import/ });
    await row.waitFor();
    expect(await row.innerText()).to.include('queue_log');
    await row.getByRole('button', { name: /Details/ }).click();
    const details = page.locator('article.import-card');
    await details.getByText(`Agent “${RENAMED}”: ${renamedLines} lines`).waitFor();
    expect(await details.innerText()).to.include(`--add-alias '${RENAMED}'`);
    await shot('console-pbx-imports');

    // The CLI's hint says `--ext <extension number>`: the screen asks which one.
    await details.getByLabel(`Extension “${RENAMED}” is`).selectOption({ label: '209 (Ivan Petrov) PJSIP/209' });
    await details.getByRole('button', { name: `Add “${RENAMED}” as an alias` }).click();
    await details.getByText(`“${RENAMED}” is now an alias of extension 209`).waitFor();
    const ext = await site.call('GET', '/v2/extensions/9', { token: root });
    expect(ext.body.agentAliases).to.deep.equal([RENAMED]);

    await details.getByRole('button', { name: 'Import again' }).click();
    const again = page.locator('article.import-card', { hasText: 'Mapped since the import it read again' });
    await again.waitFor();
    expect(await again.locator('[role=status] li').allInnerTexts()).to.deep.equal([`${RENAMED}: ${renamedLines} lines`]);
    expect(await again.innerText()).to.include('Every queue and agent name of this import is known.');
    const list = await site.call('GET', '/v2/pbx/imports', { token: root });
    const newest = list.body.records[0];
    expect(newest).to.deep.include({ source: 'again', path: logFile, nowMapped: { [RENAMED]: renamedLines } });
    expect(newest.summary).to.deep.include({ imported: 0, unknownAgents: {} });
    expect(await agentsAnswered(9), 'after: they count for extension 209').to.be.greaterThan(0);
    expect(browser.pageErrors()).to.deep.equal([]);
  });

  it("when lines name an unknown queue and an unknown member's interface, then 'Add the queue' and 'Add extension' add them through the API", async () => {
    const t = Math.floor(Date.now() / 1000) - 3600;
    const lines = [
      `${t}|NONE|sales|Local/250@agents/n|ADDMEMBER|`,
      `${t + 10}|pbx-c1|sales|NONE|ENTERQUEUE||+15550001|1`,
      `${t + 14}|pbx-c1|sales|Walt New|CONNECT|4|pbx-c1.2|3`,
      `${t + 90}|pbx-c1|sales|Walt New|COMPLETEAGENT|4|76|1`,
      `${t + 100}|pbx-c2|spillover|NONE|ENTERQUEUE||+15550002|1`,
    ];
    const sent = await site.call('POST', '/v2/reporting/ingest/queue-log', { token: site.admin.token, body: { lines } });
    expect(sent.body.toMap.map((h: { action: string }) => h.action)).to.deep.equal(['add-queue', 'add-extension']);
    await page.goto(`${site.url}/pbx/imports`);
    // The newest record's row (not the "Loading…" row the table holds until the list has come).
    const newest = page.locator('table:has(caption:text("Imports, newest first")) tbody tr:not(:has(td.empty))').first();
    await newest.waitFor();
    expect(await newest.innerText()).to.include('Sent over HTTP');
    await newest.getByRole('button', { name: /Details/ }).click();
    const details = page.locator('article.import-card');
    await details.getByText('Queue “spillover”: 1 line').waitFor();
    await details.getByText('Agent “Local/250@agents/n” = “Walt New”: 3 lines').waitFor();
    expect(await details.getByLabel('Name', { exact: true }).inputValue()).to.equal('Walt New');
    await details.getByRole('button', { name: 'Add extension 250 (Local/250@agents/n)' }).click();
    await details.getByText('Extension 250 added').waitFor();
    await details.getByRole('button', { name: 'Add the queue' }).click();
    await details.getByText('Queue “spillover” added').waitFor();
    const extensions = (await site.call('GET', '/v2/extensions', { token: root, query: { tenantId: 1, paginated: 0 } })).body.records as {
      extNum: number;
      extName: string;
      peerName: string;
    }[];
    expect(extensions.find((e) => e.extNum === 250)).to.deep.include({ peerName: 'Local/250@agents/n', extName: 'Walt New' });
    const queues = await site.call('GET', '/v2/queues', { token: root, query: { tenantId: 1 } });
    expect(JSON.stringify(queues.body)).to.include('"name":"spillover"');
    expect(browser.pageErrors()).to.deep.equal([]);
  });

  it('when the sync plan is shown, then it is the API plan as a diff; a plan the directory outdated is refused; applied, the directory has it', async () => {
    const plan = (await site.call<Plan>('GET', '/v2/pbx/config/plan', { token: root, query: { tenantId: 1 } })).body;
    expect(plan.configured).to.equal(true);
    await page.goto(`${site.url}/pbx/sync`);
    await page.getByRole('heading', { name: 'Config sync' }).waitFor();
    const extDiff = page.getByRole('list', { name: 'Extensions to add or change' });
    const queueDiff = page.getByRole('list', { name: 'Queues to add or change' });
    const items = async (list: typeof extDiff) => ((await list.count()) === 0 ? [] : list.locator(':scope > li').allInnerTexts());
    await page.getByRole('heading', { name: 'Removed' }).waitFor();
    const shown = [...(await items(extDiff)), ...(await items(queueDiff))];
    const planned = [...plan.extensions.map((e) => `Extension ${e.extNum}`), ...plan.queues.map((q) => `Queue ${q.logName}`)];
    expect(shown.length).to.equal(planned.length);
    expect(planned.length, 'the lab configuration names what the directory lacks').to.be.greaterThan(0);
    planned.forEach((p, i) => expect(shown[i]).to.include(p));
    for (const e of plan.extensions.filter((x) => x.action === 'change')) for (const c of e.changes) expect(shown.join('\n')).to.include(c);
    await shot('console-pbx-sync');

    // The configuration changes after the plan was shown: applying what was shown is refused, the new plan is shown.
    appendFileSync(join(configDir, 'queues.conf'), '\n[overflow]\nstrategy = ringall\nmember => Local/201@agents/n,0,Alice Smith\n');
    await page.getByRole('button', { name: /^Apply/ }).click();
    await page.getByRole('alert').filter({ hasText: 'changed since this plan was shown' }).waitFor();
    await queueDiff.getByText('Queue overflow').waitFor();
    const queues = await site.call('GET', '/v2/queues', { token: root, query: { tenantId: 1 } });
    expect(JSON.stringify(queues.body)).to.not.include('"overflow"');

    const next = (await site.call<Plan>('GET', '/v2/pbx/config/plan', { token: root, query: { tenantId: 1 } })).body;
    await page.getByRole('button', { name: /^Apply/ }).click();
    await page.getByRole('status').filter({ hasText: 'Applied:' }).waitFor();
    await page.getByText('The directory is as the configuration says: nothing to apply.').waitFor();
    // The directory changed through the API: every planned record is there now.
    const extensions = (await site.call('GET', '/v2/extensions', { token: root, query: { tenantId: 1, paginated: 0 } })).body.records as {
      extNum: number;
      extName: string;
      agentAliases: string[];
    }[];
    for (const e of next.extensions) {
      const have = extensions.find((x) => x.extNum === e.extNum);
      expect(have, `extension ${e.extNum}`).to.not.equal(undefined);
      expect(have?.agentAliases).to.include.members(e.agentAliases);
    }
    const after = await site.call('GET', '/v2/queues', { token: root, query: { tenantId: 1 } });
    expect(JSON.stringify(after.body)).to.include('"overflow"');
    expect(browser.pageErrors()).to.deep.equal([]);
  });

  for (const theme of ['light', 'dark'] as const)
    for (const width of [1280, 390])
      it(`when each PBX screen is checked by axe-core in ${theme} mode at ${width} px, then none has a serious or critical violation`, async () => {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await site.call('PATCH', '/v2/users/user-settings/dark-mode', { token: root, body: { darkMode: theme === 'dark' ? 1 : 0 } });
        const failures: string[] = [];
        const check = async (what: string) => {
          for (const v of await seriousAxeViolations(page))
            failures.push(`${what}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(', ')}`);
        };
        await page.goto(`${site.url}/pbx/links`);
        await until(async () => (await linkRow().innerText()).includes('Connected'), { what: 'the link' });
        expect(await page.evaluate(() => (globalThis as any).document.documentElement.dataset.theme)).to.equal(theme);
        await check('AMI links');
        await page.goto(`${site.url}/pbx/imports`);
        await page.getByRole('row', { name: /tars import/ }).waitFor();
        await check('imports');
        await page
          .getByRole('row', { name: /tars import/ })
          .getByRole('button', { name: /Details/ })
          .click();
        await page.locator('article.import-card').waitFor();
        await check('imports, details');
        if (theme === 'dark' && width === 390) await shot('console-pbx-imports-phone-dark');
        // A plan with an addition and a change (old → new) to check: a queue added to the configuration, Sales' strategy changed.
        const conf = join(configDir, 'queues.conf');
        const strategy = ['linear', 'fewestcalls', 'random', 'rrmemory'][(theme === 'dark' ? 2 : 0) + (width === 390 ? 1 : 0)];
        writeFileSync(conf, readFileSync(conf, 'utf8').replace(/(\[sales\]\nstrategy = )\w+/, `$1${strategy}`));
        appendFileSync(conf, `\n[axe-${theme}-${width}]\nstrategy = ringall\nmember => Local/202@agents/n,0,Bob Jones\n`);
        await page.goto(`${site.url}/pbx/sync`);
        await page.getByRole('list', { name: 'Queues to add or change' }).locator('del').first().waitFor();
        await check('config sync');
        if (theme === 'dark' && width === 1280) await shot('console-pbx-sync-dark');
        expect(failures).to.deep.equal([]);
        expect(browser.pageErrors()).to.deep.equal([]);
        expect(browser.foreign).to.deep.equal([]);
      });
});
