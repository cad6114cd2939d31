import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildTenant, buildUser, ROLE, tokenFor, twoTenants } from '../helpers/factories';
import { buildCampaign } from '../helpers/records';

const PATH = '/v2/admin/call-campaigns';
const DEST = { typeSrc: 'campaign', destType: 'queue', id: 2, order: 1 };
const NULLS = {
  dateStart: null,
  dateEnd: null,
  callerId: null,
  callDelay: null,
  lastrun: null,
  dialtimeout: null,
  tech: null,
  message: null,
  timeStart: null,
  timeEnd: null,
  timezone: null,
  callFrequency: null,
  callHoursStart: null,
  callHoursEnd: null,
  recording: null,
};

describe('call campaigns', () => {
  let app: TestApp;
  let cast: Awaited<ReturnType<typeof twoTenants>>;
  const req = (method: string, path: string, body?: unknown, token = cast.tokenA) => app.request(method, `${PATH}${path}`, { token, body });

  before(async () => {
    app = await startTestApp();
    cast = await twoTenants(app);
  });
  after(() => app.close());

  it('when a campaign is created with the least it needs, then 201: state READY, the rest null, [] and 0', async () => {
    const res = await req('POST', '/', { tenantId: cast.a.id, name: 'Win back', type: 'SCHEDULED' });
    expect(res.status).to.equal(201);
    expect(res.body).to.deep.equal({
      id: res.body.id,
      tenantId: cast.a.id,
      name: 'Win back',
      type: 'SCHEDULED',
      ...NULLS,
      state: 'READY',
      numbers: [],
      destinations: [],
      enableVMDetect: 0,
      matchDestinations: [],
      notMatchDestinations: [],
    });
  });

  it('when every field is given, then each is stored; numbers get description and disposition "" when left out', async () => {
    const body = {
      tenantId: cast.a.id,
      name: 'Renewals',
      type: 'SCHEDULED',
      dateStart: '2026-12-01',
      dateEnd: '2026-12-31',
      callerId: '+13125550101',
      callDelay: 5000,
      dialtimeout: 30,
      tech: 'VOICE',
      message: 'Hello',
      timeStart: '09:00',
      timeEnd: '17:00',
      timezone: 'America/Chicago',
      callFrequency: 10,
      callHoursStart: '08:30',
      callHoursEnd: '18:00',
      recording: 'no',
      state: 'PAUSED',
      enableVMDetect: 1,
      numbers: [{ number: '+13125550111' }, { number: '+13125550112', description: 'B', disposition: 'ANSWERED' }],
      destinations: [DEST],
      matchDestinations: [{ ...DEST, destType: 'hangup', id: 0 }],
      notMatchDestinations: [DEST, { ...DEST, order: 2 }],
    };
    const res = await req('POST', '/', body);
    const { tenantId: _t, ...fields } = body;
    expect(res.body).to.deep.equal({
      id: res.body.id,
      tenantId: cast.a.id,
      lastrun: null,
      ...fields,
      numbers: [{ number: '+13125550111', description: '', disposition: '' }, body.numbers[1]],
    });
    expect((await req('GET', `/${res.body.id}`)).body).to.deep.equal(res.body);
  });

  it('when fields break their formats, then one 400 names each; RUNNING and lastrun are not for clients', async () => {
    const res = await req('POST', '/', {
      tenantId: cast.a.id,
      name: 'Ab',
      type: '',
      dateStart: '2026-13-01',
      timeStart: '9:00',
      timezone: 'Mars/Olympus',
      tech: 'FAX',
      recording: 'maybe',
      state: 'RUNNING',
      lastrun: '2026-01-01 00:00:00',
      callDelay: -1,
    });
    expectError(res, 400, ['name', 'type', 'dateStart', 'timeStart', 'timezone', 'tech', 'recording', 'state', 'lastrun', 'callDelay']);
  });

  it('when dateEnd is before dateStart, at creation or after a PATCH of one date, then 400 naming dateEnd', async () => {
    expectError(
      await req('POST', '/', { tenantId: cast.a.id, name: 'Backwards', type: 'SCHEDULED', dateStart: '2026-12-02', dateEnd: '2026-12-01' }),
      400,
      ['dateEnd'],
    );
    const c = await buildCampaign(app.deps.database.db, cast.a.id, { dateStart: '2026-12-01', dateEnd: '2026-12-31' });
    expectError(await req('PATCH', `/${c.id}`, { dateStart: '2027-01-01' }), 400, ['dateEnd']);
  });

  it('when a campaign is paused by PATCH, then only state changes; a list given replaces the stored one', async () => {
    const c = await buildCampaign(app.deps.database.db, cast.a.id, {
      numbers: [{ number: '+1555', description: 'x', disposition: '' }],
      destinations: [DEST],
    });
    const before_ = (await req('GET', `/${c.id}`)).body;
    const paused = await req('PATCH', `/${c.id}`, { state: 'PAUSED' });
    expect(paused.body).to.deep.equal({ ...before_, state: 'PAUSED' });
    const replaced = await req('PATCH', `/${c.id}`, { destinations: [], numbers: [{ number: '+1666' }], message: null });
    expect(replaced.body).to.deep.equal({
      ...before_,
      state: 'PAUSED',
      destinations: [],
      numbers: [{ number: '+1666', description: '', disposition: '' }],
      message: null,
    });
  });

  it('when a PATCH sets state COMPLETED, a 2-character name or a tenantId, then 400', async () => {
    const c = await buildCampaign(app.deps.database.db, cast.a.id);
    expectError(await req('PATCH', `/${c.id}`, { state: 'COMPLETED', name: 'Ab', tenantId: cast.b.id }), 400, [
      'state',
      'name',
      'tenantId',
    ]);
  });

  it("when listed, then the caller's campaigns in id order, paged; another tenant named → 403", async () => {
    const db = app.deps.database.db;
    const t = await buildTenant(db);
    const token = await tokenFor(app, await buildUser(db, t.id, ROLE.account));
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await buildCampaign(db, t.id, { destinations: [DEST] })).id);
    const res = await app.request('GET', PATH, { token, query: { recordsPerPage: 2 } });
    expect(res.body).to.include({ page: 1, maxPage: 2, total: 3 });
    expect(res.body.records.map((r: { id: number }) => r.id)).to.deep.equal(ids.slice(0, 2));
    expect(res.body.records[0].destinations).to.deep.equal([DEST]);
    expectError(await app.request('GET', PATH, { token, query: { tenantId: cast.a.id } }), 403);
  });

  it('when a campaign is deleted, then 200 with it whole, its numbers and destinations are gone, and it is 404 afterwards', async () => {
    const db = app.deps.database.db;
    const c = await buildCampaign(db, cast.a.id, { numbers: [{ number: '+1777' }], destinations: [DEST], notMatchDestinations: [DEST] });
    const shown = (await req('GET', `/${c.id}`)).body;
    const res = await req('DELETE', `/${c.id}`);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(shown);
    expect(await db.selectFrom('campaign_numbers').select('number').where('campaign_id', '=', c.id).execute()).to.deep.equal([]);
    expect(await db.selectFrom('campaign_destinations').select('list').where('campaign_id', '=', c.id).execute()).to.deep.equal([]);
    expectError(await req('GET', `/${c.id}`), 404);
    expectError(await req('DELETE', `/${c.id}`), 404);
  });

  it("when another tenant's campaign is read, changed or deleted, then 404 and it is unchanged", async () => {
    const c = await buildCampaign(app.deps.database.db, cast.b.id, { state: 'READY' });
    expectError(await req('GET', `/${c.id}`), 404);
    expectError(await req('PATCH', `/${c.id}`, { state: 'PAUSED' }), 404);
    expectError(await req('DELETE', `/${c.id}`), 404);
    expect((await req('GET', `/${c.id}`, undefined, cast.tokenB)).body.state).to.equal('READY');
  });
});
