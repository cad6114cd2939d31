import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { seedFixture, SeedError } from '../../src/seed/seed';
import { startTestApp, type TestApp } from '../helpers/app';
import { tokenFor } from '../helpers/factories';
import { ACME as ACME_FILE } from '../helpers/fixtures';

/** The example fixture every build must load (test/fixtures/acme.json). */
const ACME = JSON.parse(readFileSync(ACME_FILE, 'utf8'));
const SEEDED_AT = new Date('2026-11-22T10:00:00.000Z');

type Rec = Record<string, any>;
const byId = (list: Rec[]) => new Map(list.map((x) => [x.id, x]));
const tenants = byId(ACME.tenants);
const branches = byId(ACME.branches);
const extensions = byId(ACME.extensions);
const ref = (map: Map<number, Rec>, id: number, name = 'name') => ({ id, name: map.get(id)?.[name] });

// The fixture records as the API shows them (api.md §2); what the fixture leaves out is null, [] or 0.
const PHONE_TEXT = [
  'registeredCNAM',
  'diCommentName',
  'recording',
  'fax',
  'faxEmail',
  'namePrefix',
  'emailRecording',
  'storeAndForwardNumber',
];
const phoneDetail = (p: Rec) => ({
  id: p.id,
  number: p.number,
  tenant: ref(tenants, p.tenantId),
  branch: ref(branches, p.branchId),
  smsExt: ref(extensions, p.smsExtId, 'extName'),
  ...Object.fromEntries(PHONE_TEXT.map((k) => [k, p[k] ?? null])),
  faxStore: p.faxStore ?? null,
  unconditionalStatus: p.unconditionalStatus ?? null,
  routingDestinations: p.routingDestinations ?? [],
  forwardingDestinations: p.forwardingDestinations ?? [],
  smsDestinations: p.smsDestinations ?? [],
});
const phoneRecord = (p: Rec) => ({
  id: p.id,
  number: p.number,
  tenantId: p.tenantId,
  branchId: p.branchId,
  smsExtId: p.smsExtId,
  ...Object.fromEntries(PHONE_TEXT.map((k) => [k, p[k] ?? ''])),
  faxStore: String(p.faxStore ?? 0),
  unconditionalStatus: String(p.unconditionalStatus ?? 0),
});
const location = ({ tenantId, notificationGroups, ...l }: Rec) => ({
  ...l,
  tenant: ref(tenants, tenantId),
  notificationGroups: notificationGroups ?? [],
});
const webhook = (h: Rec) => ({
  id: h.id,
  tenantId: h.tenantId,
  type: h.type,
  url: h.url,
  username: h.username ?? null,
  password: h.password ?? null,
  authtoken: h.authtoken ?? null,
});
const savedFilter = ({ url, ...f }: Rec) => ({
  description: null,
  queryParams: null,
  postParams: null,
  scheduled: 0,
  recipients: null,
  frequency: null,
  ...f,
  apiUrl: url,
  createdAt: SEEDED_AT.toISOString(),
  deletedAt: null,
  error: 0,
  errorDescription: null,
});

describe('tars seed of acme.json: every GET returns the fixture', () => {
  let app: TestApp;
  let token: string;
  const get = async (path: string, query?: Record<string, string | number>) => {
    const res = await app.request('GET', path, { token, query });
    expect(res.status, `GET ${path}: ${res.text}`).to.equal(200);
    return res.body;
  };

  before(async () => {
    app = await startTestApp();
    await seedFixture(app.deps.database, app.deps.validator, ACME, SEEDED_AT);
    token = await tokenFor(
      app,
      ACME.users.find((u: Rec) => u.userRole === 1),
    );
  });
  after(() => app.close());

  it('when phone numbers are read, then the list and every detail record hold the seeded values', async () => {
    expect((await get('/v2/admin/phone-numbers', { paginated: 0 })).records).to.deep.equal(ACME.phoneNumbers.map(phoneRecord));
    for (const p of ACME.phoneNumbers) expect(await get(`/v2/admin/phone-numbers/${p.id}`)).to.deep.equal(phoneDetail(p));
  });

  it('when emergency locations are read, then the list and each location hold the seeded values', async () => {
    expect((await get('/v2/admin/emergency-locations', { paginated: 0 })).records).to.deep.equal(ACME.emergencyLocations.map(location));
    for (const l of ACME.emergencyLocations) expect(await get(`/v2/admin/emergency-locations/${l.id}`)).to.deep.equal(location(l));
  });

  it('when call campaigns are read, then the list and each campaign equal the seeded ones', async () => {
    expect((await get('/v2/admin/call-campaigns', { paginated: 0 })).records).to.deep.equal(ACME.callCampaigns);
    for (const c of ACME.callCampaigns) expect(await get(`/v2/admin/call-campaigns/${c.id}`)).to.deep.equal(c);
  });

  it('when webhooks are read, then each tenant list (four fields) and each webhook (seven) hold the seeded values', async () => {
    for (const t of ACME.tenants) {
      const own = ACME.webhooks.filter((h: Rec) => h.tenantId === t.id);
      expect(await get('/v2/webhooks', { tenantId: t.id })).to.deep.equal(
        own.map(({ id, tenantId, type, url }: Rec) => ({ id, tenantId, type, url })),
      );
    }
    for (const h of ACME.webhooks) expect(await get(`/v2/webhooks/${h.id}`)).to.deep.equal(webhook(h));
  });

  it('when saved filters are read, then the list and each filter hold the seeded values', async () => {
    expect((await get('/v2/reporting/saved', { paginated: 0 })).records).to.deep.equal(ACME.savedFilters.map(savedFilter));
    for (const f of ACME.savedFilters) expect(await get(`/v2/reporting/saved/${f.id}`)).to.deep.equal(savedFilter(f));
  });
});

describe('tars seed: the rules of the API hold for seeded records', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  const seedProblems = async (fixture: Rec) => {
    try {
      await seedFixture(app.deps.database, app.deps.validator, fixture, SEEDED_AT);
    } catch (err) {
      if (err instanceof SeedError) return err.problems;
      throw err;
    }
    throw new Error('the fixture was loaded');
  };
  const base = { tenants: [ACME.tenants[0]], branches: [ACME.branches[0]], users: [ACME.users[1]] };
  const filter = { id: 1, userId: 2, tenantId: 1, url: '/v2/reporting/calls', module: 'calls', name: 'F' };

  it('when a seeded filter is scheduled without frequency and recipients or runs another report, then each problem is named and nothing is written', async () => {
    const problems = await seedProblems({
      ...base,
      savedFilters: [
        { ...filter, scheduled: 1 },
        { ...filter, id: 2, url: '/v2/reporting/calls?direction=up', queryParams: { colour: 'red' } },
      ],
    });
    expect(problems).to.deep.equal([
      'savedFilters[0].frequency: is required when scheduled is 1',
      'savedFilters[0].recipients: is required when scheduled is 1',
      'savedFilters[1].url: query direction must be one of: "inbound", "outbound", "internal"',
      'savedFilters[1].queryParams.colour: is not an allowed property',
    ]);
    expect(await app.deps.database.db.selectFrom('tenants').select('id').execute()).to.deep.equal([]);
  });

  it('when a seeded webhook has a type outside the catalogue or a recipient list is not e-mails, then the schema names them', async () => {
    const problems = await seedProblems({
      ...base,
      webhooks: [{ id: 1, tenantId: 1, type: 'SOMETIMES', url: 'https://x.example.test' }],
      savedFilters: [{ ...filter, recipients: 'boss at acme' }],
    });
    expect(problems).to.have.length(2);
    expect(problems[0]).to.match(/^webhooks\[0\]\.type: must be one of: STARTCALL, /);
    expect(problems[1]).to.equal('savedFilters[0].recipients: must be e-mail addresses separated by commas');
  });
});
