import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { OPERATOR } from '../../src/access/caller';
import { readSiteConfig } from '../../src/modules/pbx-config/site-config';
import { planSync } from '../../src/modules/pbx-config/sync.service';
import type { AmiPeer } from '../helpers/ami-peer';
import type { TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { ROLE, buildUser, tokenFor } from '../helpers/factories';
import { startLiveSite, type LiveSite } from '../helpers/live-site';
import { rowCount } from '../helpers/engine';

/*
 * Issue 27, point 4: every text that reaches the PBX (an AMI header) or a log file the PBX writes (queue_log) is one
 * line by the one rule of schemas/common.json ($defs/line; $defs/pbxName adds "no |", queue_log's separator), and an
 * AMI action that cannot be formatted (a name stored before the rule) is a clear 4xx, never a 500.
 */
const CONTROLS = ['\u0000', '\u000b', '\u000c', '\u001b', '\u0085', '\u2028', '\u202e', '\r\n', '\ud800'];

describe('security: text that reaches the PBX is one line (issue 27)', function () {
  this.timeout(60_000);
  let site: LiveSite;
  let peer: AmiPeer;
  let app: TestApp;
  let admin: string;
  const db = () => app.deps.database.db;
  const extId = async (extNum: number) =>
    (await db().selectFrom('extensions').select('id').where('ext_num', '=', extNum).executeTakeFirstOrThrow()).id;
  const post = (path: string, body: object) => app.request('POST', path, { token: admin, body });
  const sent = () => peer.received.length;

  before(async () => {
    site = await startLiveSite();
    ({ app, peer } = site);
    admin = await tokenFor(app, await buildUser(db(), 1, ROLE.account));
  });
  after(() => site.close());

  it('when pauseReason holds any control, separator, bidi override, lone surrogate or |, then 400 and nothing reaches the PBX', async () => {
    const before = sent();
    for (const c of [...CONTROLS, '|']) {
      expectError(await post('/v2/queues/agent-pause', { peerName: 'PJSIP/203', paused: 1, pauseReason: `Lunch${c}x` }), 400, [
        'pauseReason',
      ]);
      expectError(await post('/v2/queues/agent-pause', { peerName: `PJSIP/203${c}`, paused: 1 }), 400, ['peerName']);
    }
    expect(sent()).to.equal(before);
  });

  it('when extName, peerName, an alias, a queue logName or name holds one of them, then 400 naming it and nothing is stored', async () => {
    const count = (table: 'extensions' | 'queues') => rowCount(app.deps.db, table);
    const [exts, queues] = [await count('extensions'), await count('queues')];
    const ext = await extId(209);
    for (const c of [...CONTROLS, '|']) {
      expectError(await post('/v2/extensions', { tenantId: 1, extNum: 950, peerName: 'PJSIP/950', extName: `Eve${c}` }), 400, ['extName']);
      expectError(await post('/v2/extensions', { tenantId: 1, extNum: 950, peerName: `PJSIP/950${c}` }), 400, ['peerName']);
      expectError(await post('/v2/extensions', { tenantId: 1, extNum: 950, peerName: 'PJSIP/950', agentAliases: [`Eve${c}`] }), 400, [
        'agentAliases',
      ]);
      expectError(await app.request('PATCH', `/v2/extensions/${ext}`, { token: admin, body: { extName: `Ivan${c}` } }), 400, ['extName']);
      expectError(await post('/v2/queues', { tenantId: 1, name: 'Q', logName: `q950${c}` }), 400, ['logName']);
    }
    for (const c of CONTROLS) expectError(await post('/v2/queues', { tenantId: 1, name: `Q${c}`, logName: 'q950' }), 400, ['name']);
    expect([await count('extensions'), await count('queues')]).to.deep.equal([exts, queues]);
  });

  it('when a name stored before the rule (CLI, fixture, pbx sync) holds a line break, then agent-login is a 409 naming it, and nothing reaches the PBX', async () => {
    const ivan = await extId(209);
    for (const q of [1, 2])
      expect((await app.request('PATCH', `/v2/queues/${q}`, { token: admin, body: { members: [ivan] } })).status).to.equal(200);
    await db().updateTable('extensions').set({ ext_name: 'Ivan\r\nAction: Originate' }).where('id', '=', ivan).execute();
    const before = sent();
    const res = await post('/v2/queues/agent-login', { peerName: 'PJSIP/209', loggedIn: 1 });
    expectError(res, 409);
    expect(res.body.message).to.match(/extName|MemberName/);
    expect(sent()).to.equal(before);
    // A | would split queue_log's fields (Asterisk writes the member name as one): refused the same way.
    await db().updateTable('extensions').set({ ext_name: 'Ivan|CONNECT' }).where('id', '=', ivan).execute();
    expectError(await post('/v2/queues/agent-login', { peerName: 'PJSIP/209', loggedIn: 1 }), 409);
    expect(sent()).to.equal(before);
    await db().updateTable('extensions').set({ ext_name: 'Ivan Petrov' }).where('id', '=', ivan).execute();
  });

  it("when a stored alias that becomes the member's Interface holds a control character, then agent-login is a 409, not a 500", async () => {
    const ivan = await extId(209);
    await db()
      .updateTable('extensions')
      .set({ agent_aliases: JSON.stringify(['Local/209@agents/n\u000b']) })
      .where('id', '=', ivan)
      .execute();
    const before = sent();
    try {
      const res = await post('/v2/queues/agent-login', { peerName: 'PJSIP/209', loggedIn: 1 });
      expectError(res, 409);
      expect(res.body.message).to.match(/Interface/);
      expect(sent()).to.equal(before);
    } finally {
      await db().updateTable('extensions').set({ agent_aliases: '[]' }).where('id', '=', ivan).execute();
    }
  });

  it("when the PBX's configuration names an agent or a queue with a tab or a |, then pbx sync leaves that name out with a note", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tars-conf-'));
    try {
      writeFileSync(
        join(dir, 'pjsip.conf'),
        '[960]\ntype=endpoint\ncallerid="Eve|CONNECT" <960>\n\n[961]\ntype=endpoint\ncallerid="Tab\tName" <961>\n',
      );
      writeFileSync(join(dir, 'queues.conf'), '[overflow|x]\nmember => PJSIP/960\n\n[overflow2]\nmember => PJSIP/961\n');
      const plan = await planSync({ db: db() }, OPERATOR, 1, readSiteConfig(dir));
      const planned = new Map(plan.extensions.map((e) => [e.extNum, e]));
      expect(planned.get(960)).to.include({ peerName: 'PJSIP/960', extName: '' });
      expect(planned.get(961)).to.include({ peerName: 'PJSIP/961', extName: '' });
      expect(plan.queues.map((q) => q.logName)).to.deep.equal(['overflow2']);
      expect(plan.notes.filter((n) => /Eve\|CONNECT|Tab\\tName|overflow\|x/.test(n))).to.have.length(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
