import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildBranch, buildTenant, buildUser, ROLE, tokenFor, twoTenants } from '../helpers/factories';
import { buildExtension, buildPhoneNumber } from '../helpers/records';
import { ACME } from '../helpers/fixtures';
import { readFixtureFile, seedFixture } from '../../src/seed/seed';
import { rowCount } from '../helpers/engine';

describe('phone numbers: GET /v2/admin/phone-numbers/', () => {
  let app: TestApp;
  let cast: Awaited<ReturnType<typeof twoTenants>>;
  let token: string;
  let tenantId: number;
  let ids: number[];
  let branchX: number;
  const list = (query: Record<string, string | number>, t = token) => app.request('GET', '/v2/admin/phone-numbers/', { token: t, query });

  before(async () => {
    app = await startTestApp();
    cast = await twoTenants(app);
    const db = app.deps.database.db;
    const t = await buildTenant(db);
    tenantId = t.id;
    token = await tokenFor(app, await buildUser(db, t.id, ROLE.account));
    branchX = (await buildBranch(db, t.id)).id;
    const numbers = [
      { number: '+1 (312) 555-0100', fax: 'no', branchId: branchX },
      { number: '+13125550101', fax: 'email', faxStore: 1, unconditionalStatus: 1, branchId: branchX },
      { number: '+17205550199', fax: 'OFF' },
      { number: '+17205550142', fax: null },
      { number: '+447700900123', fax: 'store' },
    ];
    ids = [];
    for (const n of numbers) ids.push((await buildPhoneNumber(db, t.id, n)).id);
    await buildPhoneNumber(db, cast.b.id, { number: '+13125550999' });
  });
  after(() => app.close());

  it('when a tenant is listed, then every record has the list form: strings for text fields and "0"/"1" flags', async () => {
    const res = await list({ tenantId });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ page: 1, maxPage: 1, total: 5 });
    const rec = res.body.records.find((r: { id: number }) => r.id === ids[1]);
    expect(rec).to.deep.include({
      number: '+13125550101',
      fax: 'email',
      faxStore: '1',
      unconditionalStatus: '1',
      registeredCNAM: '',
      diCommentName: '',
      tenantId,
      branchId: branchX,
    });
    expect(res.body.records.find((r: { id: number }) => r.id === ids[3])).to.include({ fax: '', faxStore: '0', unconditionalStatus: '0' });
  });

  it('when no tenantId is given, then an account admin sees only its own tenant', async () => {
    const res = await list({});
    expect(res.body.records.map((r: { id: number }) => r.id)).to.deep.equal(ids);
  });

  it('when paging by 2, then pages hold 2, 2 and 1 records in id order and maxPage is 3; page 4 is empty', async () => {
    const pages = [];
    for (const page of [1, 2, 3, 4]) pages.push((await list({ tenantId, page, recordsPerPage: 2 })).body);
    expect(pages.map((p) => p.records.map((r: { id: number }) => r.id))).to.deep.equal([
      ids.slice(0, 2),
      ids.slice(2, 4),
      ids.slice(4),
      [],
    ]);
    for (const [i, p] of pages.entries()) expect(p).to.include({ page: i + 1, maxPage: 3, total: 5 });
  });

  it('when paginated=0, then every record is on page 1 of 1 whatever page and recordsPerPage say', async () => {
    const res = await list({ tenantId, paginated: 0, page: 3, recordsPerPage: 1 });
    expect(res.body).to.include({ page: 1, maxPage: 1, total: 5 });
    expect(res.body.records).to.have.length(5);
  });

  it('when number is given, then it matches any part of the digits, separators ignored on both sides', async () => {
    const res = await list({ tenantId, number: '312-555-01' });
    expect(res.body.records.map((r: { id: number }) => r.id)).to.deep.equal([ids[0], ids[1]]);
    expect((await list({ tenantId, number: '0199' })).body.records.map((r: { id: number }) => r.id)).to.deep.equal([ids[2]]);
  });

  it('when fax=1, then only numbers with a fax mode other than no/off (any case) are listed; fax=0 filters nothing', async () => {
    expect((await list({ tenantId, fax: 1 })).body.records.map((r: { id: number }) => r.id)).to.deep.equal([ids[1], ids[4]]);
    expect((await list({ tenantId, fax: 0 })).body.total).to.equal(5);
  });

  it('when branchId and number are combined, then both apply', async () => {
    expect((await list({ tenantId, branchId: branchX })).body.total).to.equal(2);
    expect((await list({ tenantId, branchId: branchX, number: '0101' })).body.records.map((r: { id: number }) => r.id)).to.deep.equal([
      ids[1],
    ]);
  });

  it('when paging or filters are out of range, then one 400 names each', async () => {
    expectError(await list({ tenantId, recordsPerPage: 1001, page: 0 }), 400, ['recordsPerPage', 'page']);
    expectError(await list({ tenantId: 'abc' }), 400, ['tenantId']);
    expectError(await list({ number: 'abc' }), 400, ['number']);
    expectError(await list({ fax: 2, colour: 'red' }), 400, ['fax', 'colour']);
    expect((await list({ tenantId, recordsPerPage: 1000 })).status).to.equal(200);
  });

  it('when another tenant is named, then 403; the platform admin sees every tenant without tenantId', async () => {
    expectError(await list({ tenantId: cast.b.id }), 403);
    const all = await list({ paginated: 0 }, cast.tokenRoot);
    expect(all.body.records.map((r: { tenantId: number }) => r.tenantId)).to.include.members([tenantId, cast.b.id]);
  });
});

describe('phone numbers: GET /v2/admin/phone-numbers/{id} and PATCH caller-id-name/{id}', () => {
  let app: TestApp;
  let cast: Awaited<ReturnType<typeof twoTenants>>;
  const patch = (id: number | string, body: unknown, token = cast.tokenA) =>
    app.request('PATCH', `/v2/admin/phone-numbers/caller-id-name/${id}`, { token, body });
  const get = (id: number | string, token = cast.tokenA) => app.request('GET', `/v2/admin/phone-numbers/${id}`, { token });

  before(async () => {
    app = await startTestApp();
    cast = await twoTenants(app);
  });
  after(() => app.close());

  it('when a number is read, then the detail form nests tenant, branch and smsExt and keeps nulls and numeric flags', async () => {
    const db = app.deps.database.db;
    const branch = await buildBranch(db, cast.a.id, { name: 'Front office' });
    const ext = await buildExtension(db, cast.a.id);
    const routing = [
      { typeSrc: 'did', destType: 'queue', id: 4, order: 1 },
      { typeSrc: 'did', destType: 'extension', id: 9, order: 2 },
    ];
    const p = await buildPhoneNumber(db, cast.a.id, { branchId: branch.id, smsExtId: ext.id, faxStore: 1, routingDestinations: routing });
    const res = await get(p.id);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      id: p.id,
      number: p.number,
      registeredCNAM: null,
      tenant: { id: cast.a.id, name: cast.a.name },
      branch: { id: branch.id, name: 'Front office' },
      diCommentName: null,
      recording: null,
      fax: null,
      faxEmail: null,
      faxStore: 1,
      namePrefix: null,
      unconditionalStatus: null,
      emailRecording: null,
      storeAndForwardNumber: null,
      smsExt: { id: ext.id, name: ext.extName },
      routingDestinations: routing,
      forwardingDestinations: [],
      smsDestinations: [],
    });
  });

  it('when the caller ID name is set (15 characters), then registeredCNAM changes in the detail and the list form', async () => {
    const p = await buildPhoneNumber(app.deps.database.db, cast.a.id, { registeredCNAM: 'OLD NAME' });
    const res = await patch(p.id, { callerIdName: 'FIFTEEN CHARS 1' });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ id: p.id, registeredCNAM: 'FIFTEEN CHARS 1' });
    const listed = await app.request('GET', '/v2/admin/phone-numbers/', { token: cast.tokenA, query: { paginated: 0 } });
    expect(listed.body.records.find((r: { id: number }) => r.id === p.id).registeredCNAM).to.equal('FIFTEEN CHARS 1');
  });

  it('when the caller ID name has 16 characters, is missing or is not a string, then 400 naming callerIdName', async () => {
    const p = await buildPhoneNumber(app.deps.database.db, cast.a.id);
    expectError(await patch(p.id, { callerIdName: 'SIXTEEN CHARS 16' }), 400, ['callerIdName']);
    expectError(await patch(p.id, {}), 400, ['callerIdName']);
    expectError(await patch(p.id, { callerIdName: 7 }), 400, ['callerIdName']);
    expectError(await patch(0, { callerIdName: 'X' }), 400, ['id']);
  });

  it("when another tenant's number is addressed, then 404 and its name is unchanged", async () => {
    const p = await buildPhoneNumber(app.deps.database.db, cast.b.id, { registeredCNAM: 'GLOBEX' });
    expectError(await patch(p.id, { callerIdName: 'STOLEN' }), 404);
    expectError(await get(p.id), 404);
    expect((await get(p.id, cast.tokenB)).body.registeredCNAM).to.equal('GLOBEX');
  });
});

describe('POST and DELETE /v2/admin/phone-numbers (additions to the hosted API)', () => {
  let app: TestApp;
  let admin: string;
  before(async () => {
    app = await startTestApp();
    await seedFixture(app.deps.database, app.deps.validator, await readFixtureFile(ACME), new Date());
    admin = await tokenFor(app, { id: 2 });
  });
  after(() => app.close());

  it('when a number is added, then 201 with the detail record; its list record shows it; delete returns it and it is 404 after', async () => {
    const made = await app.request('POST', '/v2/admin/phone-numbers', {
      token: admin,
      body: { tenantId: 1, branchId: 2, number: '+13125559999', smsExtId: 2, diCommentName: 'Night line' },
    });
    expect(made.status).to.equal(201);
    expect(made.body).to.deep.include({
      number: '+13125559999',
      diCommentName: 'Night line',
      registeredCNAM: null,
      smsExt: { id: 2, name: 'Bob Jones' },
    });
    const listed = await app.request('GET', '/v2/admin/phone-numbers', { token: admin, query: { tenantId: 1, number: '5559999' } });
    expect(listed.body.records.map((r: { id: number; smsExtId: number }) => [r.id, r.smsExtId])).to.deep.equal([[made.body.id, 2]]);
    expect((await app.request('DELETE', `/v2/admin/phone-numbers/${made.body.id}`, { token: admin })).body.id).to.equal(made.body.id);
    expectError(await app.request('GET', `/v2/admin/phone-numbers/${made.body.id}`, { token: admin }), 404);
  });

  it("when the number is taken or the branch or SMS extension is another tenant's, then 409 or 400 naming them, and nothing is stored", async () => {
    const count = () => rowCount(app.deps.db, 'phone_numbers');
    const n = await count();
    const existing = (await app.request('GET', '/v2/admin/phone-numbers/1', { token: admin })).body.number as string;
    expectError(
      await app.request('POST', '/v2/admin/phone-numbers', {
        token: admin,
        body: { tenantId: 1, branchId: 1, number: existing, smsExtId: 1 },
      }),
      409,
    );
    expectError(
      await app.request('POST', '/v2/admin/phone-numbers', {
        token: admin,
        body: { tenantId: 1, branchId: 3, number: '+13125558888', smsExtId: 4 },
      }),
      400,
      ['branchId', 'smsExtId'],
    );
    expectError(
      await app.request('POST', '/v2/admin/phone-numbers', {
        token: admin,
        body: { tenantId: 1, branchId: 1, number: 'call me', smsExtId: 1 },
      }),
      400,
      ['number'],
    );
    expectError(await app.request('DELETE', '/v2/admin/phone-numbers/4', { token: admin }), 404); // tenant 2's
    expect(await count()).to.equal(n);
  });
});
