import { createHash } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import { allRoutes } from '../../src/app';
import type { RouteDef } from '../../src/http/route';
import { readFixtureFile, seedFixture } from '../../src/seed/seed';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app';
import { anyJson, mutated, schemaById, validOf } from '../helpers/arbitraries';
import { tokenFor } from '../helpers/factories';
import { ACME } from '../helpers/fixtures';

/*
 * Property-based requests to every route, driven by its schemas: valid bodies and queries, broken ones
 * and arbitrary JSON, with every role, with real, foreign, missing and malformed ids. Whatever comes in:
 * no 5xx, every error in the shape of decisions.md §2, and a refused write changes nothing.
 */
const RUNS_PER_ROUTE = Number(process.env.TARS_FUZZ_RUNS ?? 25);
/** Tables that a refused request may legitimately write to: the login throttle and MFA challenges. */
const AUTH_STATE = new Set(['login_failures', 'mfa_challenges']);
const ERROR_NAMES: Record<number, string> = { 400: 'BadRequest', 401: 'NotAuthenticated', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict', 413: 'PayloadTooLarge', 415: 'UnsupportedMediaType', 429: 'TooManyRequests' };

describe('fuzzing every route (property-based, from schemas/)', function () {
  this.timeout(300_000);
  let app: TestApp;
  const tokens: Array<string | undefined> = [undefined];
  const tenants = [1, 2, 3, 987654];
  const ids = ['1', '2', '3', '4', '987654', '0', '-1', 'abc', '1.5', '1e3', '%20', '99999999999999999999'];

  const checksum = (): string => {
    const { sqlite } = app.deps.database;
    const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[];
    const h = createHash('sha256');
    for (const { name } of tables) if (!AUTH_STATE.has(name)) h.update(name).update(JSON.stringify(sqlite.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all()));
    return h.digest('hex');
  };

  before(async () => {
    app = await startTestApp();
    await seedFixture(app.deps.database, app.deps.validator, await readFixtureFile(ACME), new Date());
    for (const userId of [1, 7, 2, 3, 8, 4, 6]) tokens.push(await tokenFor(app, { id: userId }));
  });
  after(() => app.close());

  const bodyArb = (route: RouteDef): fc.Arbitrary<unknown> => {
    if (!route.body) return fc.constant(undefined);
    const valid = validOf(schemaById(route.body)).map((b) =>
      typeof b === 'object' && b !== null && 'tenantId' in b ? { ...b, tenantId: tenants[Number((b as { tenantId: number }).tenantId) % tenants.length] } : b,
    );
    return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: mutated(valid) }, { weight: 1, arbitrary: anyJson });
  };
  const queryArb = (route: RouteDef): fc.Arbitrary<Record<string, string> | undefined> => {
    if (!route.query) return fc.constant(undefined);
    const valid = validOf(schemaById(route.query)).map((q) =>
      Object.fromEntries(Object.entries(q as Record<string, unknown>).map(([k, v]) => [k, k === 'tenantId' ? String(tenants[Number(v) % tenants.length]) : String(v)])),
    );
    return fc.oneof(valid, fc.dictionary(fc.constantFrom('tenantId', 'page', 'recordsPerPage', 'paginated', 'number', 'x'), fc.string({ maxLength: 6 })));
  };

  const problemsOf = (route: RouteDef, res: TestResponse, before: string): string[] => {
    const out: string[] = [];
    if (res.status >= 500) out.push(`status ${res.status}: ${res.text.slice(0, 200)}`);
    if (res.status >= 400) {
      const b = res.body as Record<string, unknown> | undefined;
      if (!b || b.code !== res.status || b.name !== ERROR_NAMES[res.status] || typeof b.message !== 'string') out.push(`error body not in the §2 shape: ${res.text.slice(0, 200)}`);
      if (res.status === 400 && !(Array.isArray(b?.validationErrors) && (b.validationErrors as unknown[]).length > 0)) out.push('400 without validationErrors');
      if (route.method !== 'get' && checksum() !== before) out.push(`a refused ${route.method.toUpperCase()} changed the database`);
    }
    return out;
  };

  it('when any request reaches any route as any role, then no 5xx, errors in the §2 shape, refused writes change nothing', async () => {
    const routes = allRoutes(app.deps).filter((r) => r.path !== '/v2/authentication' && r.path !== '/v2/authentication/mfa');
    const failures: string[] = [];
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(fc.nat(tokens.length - 1), fc.constantFrom(...ids), bodyArb(route), queryArb(route), async (who, id, body, query) => {
          const before = checksum();
          const path = route.path.replace(/:\w+/g, encodeURIComponent(id)).replace('%25', '%');
          const res = await app.request(route.method.toUpperCase(), path, { token: tokens[who], body, query });
          const problems = problemsOf(route, res, before);
          if (problems.length > 0) failures.push(`${route.method.toUpperCase()} ${path} as token ${who} ${JSON.stringify(body)?.slice(0, 120)}: ${problems.join('; ')}`);
          return problems.length === 0;
        }),
        { numRuns: RUNS_PER_ROUTE, seed: Number(process.env.TARS_FUZZ_SEED ?? 42) },
      ).catch(() => {});
    }
    expect(failures.slice(0, 10)).to.deep.equal([]);
  });
});
