import { expect } from 'chai';
import { allRoutes } from '../../src/app';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildUser, ROLE, tokenFor, twoTenants } from '../helpers/factories';
import { buildCampaign, buildPhoneNumber, buildSavedFilter, buildWebhook } from '../helpers/records';

/** `{"a":{"a":…1…}}`, `depth` objects deep, written as text (JSON.stringify itself recurses). */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('security: odd input never gives a 5xx and never reaches the database', () => {
  let app: TestApp;
  let cast: Awaited<ReturnType<typeof twoTenants>>;
  let reportsToken: string;
  let filterId: number;
  let webhookId: number;

  before(async () => {
    app = await startTestApp();
    cast = await twoTenants(app);
    const db = app.deps.database.db;
    const reports = await buildUser(db, cast.a.id, ROLE.reports);
    reportsToken = await tokenFor(app, reports);
    filterId = (await buildSavedFilter(db, cast.a.id, reports.id)).id;
    webhookId = (await buildWebhook(db, cast.a.id)).id;
  });
  after(() => app.close());

  describe('JSON nesting (issue 16, point 7)', () => {
    const body = (depth: number) =>
      `{"tenantId":${cast.a.id},"url":"/v2/reporting/calls","module":"calls","name":"deep","postParams":${nested(depth)}}`;

    it('when postParams of a saved filter nest 3,500 levels deep, then POST and PATCH answer 400 naming the depth limit', async () => {
      for (const [method, path] of [
        ['POST', '/v2/reporting/saved'],
        ['PATCH', `/v2/reporting/saved/${filterId}`],
      ] as const) {
        const res = await app.request(method, path, { token: reportsToken, raw: body(3500) });
        expectError(res, 400);
        expect(res.body.message).to.match(/nested deeper than 32 levels/);
      }
    });

    it('when a body nests 33 levels, then 400; 32 levels pass the limit (and meet the schema)', async () => {
      const at = (depth: number) => app.request('POST', '/v2/reporting/saved', { token: reportsToken, raw: body(depth) });
      expect((await at(33)).body.message).to.match(/nested deeper than 32/); // postParams 31 deep inside the body
      const ok = await at(30);
      expectError(ok, 400);
      expect(ok.body.message).not.to.match(/nested deeper/);
    });
  });

  describe('page numbers (issue 16, point 7)', () => {
    const pagedLists = () =>
      allRoutes(app.deps).filter(
        (r) => r.method === 'get' && r.query && app.deps.validator.problems(r.query, { page: 0 }).some((p) => p.startsWith('page')),
      );
    const concrete = (path: string) => path.replace(':webhookId', String(webhookId)).replace(':id', String(filterId));

    it('when page is 1e16 or past 10,000,000 on every paged list, then 400 naming page', async () => {
      const lists = pagedLists();
      expect(lists.map((r) => r.path))
        .to.include.members(['/v2/admin/phone-numbers', '/v2/reporting/calls', '/v2/webhooks/:webhookId/deliveries'])
        .and.have.length.at.least(8);
      for (const r of lists) {
        for (const page of ['1e16', '10000001', '10000000000000000']) {
          const res = await app.request('GET', concrete(r.path), {
            token: cast.tokenRoot,
            query: { page, tenantId: r.path.startsWith('/v2/webhooks') && !r.path.includes(':') ? cast.a.id : undefined },
          });
          expectError(res, 400, ['page']);
        }
      }
    });

    it('when POST /v2/reporting/calls has page 1e16 in its body, then 400 naming page', async () => {
      expectError(await app.request('POST', '/v2/reporting/calls', { token: cast.tokenRoot, raw: '{"page":1e16}' }), 400, ['page']);
      expectError(await app.request('POST', '/v2/reporting/calls', { token: cast.tokenRoot, body: { page: 10_000_001 } }), 400, ['page']);
      expect((await app.request('POST', '/v2/reporting/calls', { token: cast.tokenRoot, body: { page: 10_000_000 } })).status).to.equal(
        201,
      );
    });
  });

  describe('ids written loosely (issue 16, point 8; decisions.md §3)', () => {
    const LOOSE = ['0x10', '1e3', '3.01e2', '+301', '0301', '301.0', '301%20', '9007199254740993', '1%2E0'];

    it('when a path id is not plain decimal digits, then 400 naming it; the plain id still works', async () => {
      expect((await app.request('GET', `/v2/webhooks/${webhookId}`, { token: cast.tokenA })).status).to.equal(200);
      for (const id of LOOSE) expectError(await app.request('GET', `/v2/webhooks/${id}`, { token: cast.tokenA }), 400, ['webhookId']);
      for (const id of LOOSE) expectError(await app.request('GET', `/v2/admin/branches/${id}`, { token: cast.tokenA }), 400, ['id']);
      for (const id of ['0x1', `0${webhookId}`, `${webhookId}.0`, `+${webhookId}`])
        expectError(await app.request('DELETE', `/v2/webhooks/${id}`, { token: cast.tokenA }), 400, ['webhookId']);
      expect((await app.request('GET', `/v2/webhooks/${webhookId}`, { token: cast.tokenA })).status).to.equal(200);
    });

    it('when a query tenantId is +7, 07 or 1e1 (or past 2^53 - 1), then 400 naming tenantId', async () => {
      for (const tenantId of [`+${cast.a.id}`, `0${cast.a.id}`, '1e1', '9007199254740993', ` ${cast.a.id}`]) {
        expectError(await app.request('GET', '/v2/webhooks', { token: cast.tokenRoot, query: { tenantId } }), 400, ['tenantId']);
      }
      expect((await app.request('GET', '/v2/webhooks', { token: cast.tokenRoot, query: { tenantId: String(cast.a.id) } })).status).to.equal(
        200,
      );
    });

    it('when a body id is past 2^53 - 1, then 400 naming it', async () => {
      const res = await app.request('POST', '/v2/admin/branches', {
        token: cast.tokenRoot,
        raw: '{"tenantId":9007199254740993,"name":"Far away"}',
      });
      expectError(res, 400, ['tenantId']);
    });
  });

  describe('stored text and numbers (issue 16, point 9)', () => {
    const BAD = {
      nul: 'Acme\u0000',
      crlf: 'Acme\r\nX-Injected: 1',
      tab: 'Acme\tCo',
      rlo: 'Acme\u202Egnp.exe',
      lri: '\u2066Acme',
      c1: 'Acme\u0085',
      lineSeparator: 'Acme\u2028',
    };

    it('when callerIdName holds NUL, CR/LF or a bidirectional override, then 400 naming it and the number keeps its name', async () => {
      const phone = await buildPhoneNumber(app.deps.database.db, cast.a.id);
      for (const value of [BAD.nul, BAD.crlf, BAD.rlo, 'A\u0000']) {
        expectError(
          await app.request('PATCH', `/v2/admin/phone-numbers/caller-id-name/${phone.id}`, {
            token: cast.tokenA,
            body: { callerIdName: value.slice(0, 15) },
          }),
          400,
          ['callerIdName'],
        );
      }
      const stored = await app.deps.database.db
        .selectFrom('phone_numbers')
        .select('registered_cnam')
        .where('id', '=', phone.id)
        .executeTakeFirstOrThrow();
      expect(stored.registered_cnam).not.to.match(/[\u0000\r\n\u202e]/);
      expect(
        (
          await app.request('PATCH', `/v2/admin/phone-numbers/caller-id-name/${phone.id}`, {
            token: cast.tokenA,
            body: { callerIdName: 'Café Ünïcode' },
          })
        ).status,
      ).to.equal(200);
    });

    it('when a branch name holds any control or bidirectional-override character, then 400 naming name; accented text is fine', async () => {
      for (const name of Object.values(BAD)) {
        expectError(await app.request('POST', '/v2/admin/branches', { token: cast.tokenA, body: { tenantId: cast.a.id, name } }), 400, [
          'name',
        ]);
      }
      expect(
        (await app.request('POST', '/v2/admin/branches', { token: cast.tokenA, body: { tenantId: cast.a.id, name: 'Zürich Süd' } })).status,
      ).to.equal(201);
    });

    it('when a single-line field of another resource holds a line break, then 400 naming it; a multi-line description keeps its line breaks', async () => {
      const loc = {
        tenantId: cast.a.id,
        name: 'HQ',
        address: { streetNum: '1', streetInfo: 'Main St\r\nEvil', city: 'X', state: 'Y', postalCode: '1' },
      };
      expectError(await app.request('POST', '/v2/admin/emergency-locations', { token: cast.tokenA, body: loc }), 400, [
        'address.streetInfo',
      ]);
      const filter = { tenantId: cast.a.id, url: '/v2/reporting/calls', module: 'calls', name: 'Line\nbreak' };
      expectError(await app.request('POST', '/v2/reporting/saved', { token: reportsToken, body: filter }), 400, ['name']);
      expectError(
        await app.request('POST', '/v2/reporting/saved', { token: reportsToken, body: { ...filter, name: 'ok', description: 'a\u0000b' } }),
        400,
        ['description'],
      );
      expect(
        (
          await app.request('POST', '/v2/reporting/saved', {
            token: reportsToken,
            body: { ...filter, name: 'ok', description: 'two\nlines' },
          })
        ).status,
      ).to.equal(201);
      expectError(
        await app.request('POST', '/v2/admin/call-campaigns', {
          token: cast.tokenA,
          body: { tenantId: cast.a.id, name: 'Camp\u202E', type: 'SCHEDULED' },
        }),
        400,
        ['name'],
      );
    });

    it('when callDelay is 1e308 or dialtimeout 2^63, then 400 naming each, and the campaign is unchanged', async () => {
      const campaign = await buildCampaign(app.deps.database.db, cast.a.id);
      const res = await app.request('PATCH', `/v2/admin/call-campaigns/${campaign.id}`, {
        token: cast.tokenA,
        raw: '{"callDelay":1e308,"dialtimeout":9223372036854775808,"callFrequency":1e20}',
      });
      expectError(res, 400, ['callDelay', 'dialtimeout', 'callFrequency']);
      const row = await app.deps.database.db
        .selectFrom('call_campaigns')
        .select(['call_delay', 'dialtimeout'])
        .where('id', '=', campaign.id)
        .executeTakeFirstOrThrow();
      expect(row).to.deep.equal({ call_delay: null, dialtimeout: null });
      expect(
        (
          await app.request('PATCH', `/v2/admin/call-campaigns/${campaign.id}`, {
            token: cast.tokenA,
            body: { callDelay: 3_600_000, dialtimeout: 3600 },
          })
        ).status,
      ).to.equal(200);
    });
  });
});
