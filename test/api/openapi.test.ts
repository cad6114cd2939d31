import { Validator as OpenApiValidator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import type { Express } from 'express';
import { allRoutes, createApp } from '../../src/app';
import { ADDITION_TAG, buildOpenApi, openApiPath } from '../../src/http/openapi';
import { route, type RouteDef } from '../../src/http/route';
import { startTestApp, type TestApp } from '../helpers/app';

type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Pages the server serves that are not JSON API operations, so not in the OpenAPI document. */
const PAGES = ['GET /docs', 'GET /docs/assets/:file', 'GET /metrics'];
/** The console's files and the paths of its screens (src/modules/console/console-assets.ts): pages, not operations. */
const isConsolePage = (r: string) => r === 'GET /assets/:file' || r.startsWith('GET /^\\/(?!(?:v2|docs|metrics|healthz|assets)');

/** Every "METHOD path" the Express app answers, read from its router (routes of mounted routers included). */
function servedRoutes(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: any[]) => {
    for (const layer of stack) {
      if (layer.route) for (const m of Object.keys(layer.route.methods)) out.push(`${m.toUpperCase()} ${layer.route.path}`);
      else if (layer.handle?.routes)
        for (const r of layer.handle.routes) out.push(`${r.method.toUpperCase()} ${r.path}`); // src/http/route.ts's table
      else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as any).router.stack);
  return out;
}

const operationsOf = (doc: Json) =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ method: m, path, op: item[m] as Json })),
  );

async function validate(doc: Json): Promise<void> {
  const validator = new OpenApiValidator();
  const res = await validator.validate(structuredClone(doc));
  expect(res.valid, JSON.stringify(res.errors, null, 1)).to.equal(true);
  expect(validator.version).to.equal('3.1');
  validator.resolveRefs(); // throws on a $ref that leads nowhere
}

describe('GET /v2/openapi.json', () => {
  let app: TestApp;
  let doc: Json;
  before(async () => {
    app = await startTestApp();
    const res = await app.request('GET', '/v2/openapi.json');
    expect(res.status).to.equal(200);
    doc = res.body;
  });
  after(() => app.close());

  it('when fetched without a token, then it is an OpenAPI 3.1 document that passes a standard validator', async () => {
    expect(doc.openapi).to.equal('3.1.0');
    await validate(doc);
  });

  it('when compared with the route table, then every route is an operation with its summary, tags, security and schemas, and nothing else is', () => {
    const routes = allRoutes(app.deps);
    const ops = operationsOf(doc);
    expect(ops.map((o) => `${o.method} ${o.path}`).sort()).to.deep.equal(routes.map((r) => `${r.method} ${openApiPath(r.path)}`).sort());
    for (const r of routes) {
      const op = doc.paths[openApiPath(r.path)][r.method];
      expect(op.summary).to.equal(r.summary);
      expect(op.tags).to.deep.equal([r.tag]);
      expect(op['x-addition'] === true).to.equal(r.addition === true);
      if (r.addition) expect(op.description).to.match(new RegExp(`^${ADDITION_TAG}: `));
      // A wallboard link's routes take its token, a credential of their own (docs/console.md).
      const security = r.credential ? [{ [r.credential]: [] }] : r.permission === 'public' ? [] : [{ bearer: [] }];
      expect(op.security).to.deep.equal(security);
      const success = op.responses[String(r.status ?? (r.method === 'post' ? 201 : 200))];
      // A stream's events carry the response schema (x-event-data: OpenAPI 3.1 has no place for the schema of an event).
      if (r.stream)
        expect(success.content['text/event-stream']['x-event-data']).to.deep.equal({ $ref: `#/components/schemas/${r.response}` });
      else expect(success.content['application/json'].schema).to.deep.equal({ $ref: `#/components/schemas/${r.response}` });
      if (r.body) expect(op.requestBody.content['application/json'].schema).to.deep.equal({ $ref: `#/components/schemas/${r.body}` });
      if (r.permission !== 'public' || r.credential)
        expect(op.responses['401']).to.deep.equal({ $ref: '#/components/responses/NotAuthenticated' });
      // Every route reads the database: 503 while it does not answer (docs/postgresql.md, "When the database is away").
      expect(op.responses['503']).to.deep.equal({ $ref: '#/components/responses/Unavailable' });
    }
    expect(doc.components.responses.NotAuthenticated.content['application/json'].schema).to.deep.equal({
      $ref: '#/components/schemas/error',
    });
  });

  it('when the schema files become components, then $id is gone, each $defs entry is a component, and references point into the document', () => {
    const text = JSON.stringify(doc.components.schemas);
    expect(text).not.to.include('"$id"');
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]*)"/g)].map((m) => m[1] as string);
    expect(refs.length).to.be.greaterThan(10);
    for (const ref of refs) expect(ref).to.match(/^#\/components\/(schemas|responses)\//);
    expect(doc.components.schemas.user.properties.darkMode).to.deep.equal({ $ref: '#/components/schemas/common.flag' });
    expect(doc.components.schemas['common.flag'], 'each $defs entry is a component of its own').to.deep.equal({
      type: 'integer',
      enum: [0, 1],
      description: '1 = yes, 0 = no.',
    });
    expect(text).not.to.include('"$defs"');
    expect(doc.components.schemas.fixture, 'schemas no route uses are left out').to.equal(undefined);
  });

  it('when every operation of the document is called on the real app, then each is served (none falls through to "Route … not found")', async () => {
    for (const { method, path } of operationsOf(doc)) {
      const res = await app.request(method.toUpperCase(), path.replace(/\{[^}]+\}/g, '1'), method === 'get' ? {} : { body: {} });
      expect(res.body?.message ?? '', `${method} ${path}`).not.to.match(/^Route .* not found$/);
    }
  });

  it('when the routes of the Express app are listed, then each is an operation of the document or one of the pages', () => {
    const documented = operationsOf(doc).map((o) => `${o.method.toUpperCase()} ${o.path}`);
    const served = servedRoutes(createApp(app.deps));
    expect(
      served
        .filter((r) => !PAGES.includes(r) && !isConsolePage(r))
        .map((r) => r.replace(/:([A-Za-z0-9_]+)/g, '{$1}'))
        .sort(),
    ).to.deep.equal(documented.sort());
    expect(served).to.include.members(PAGES);
    expect(served.filter(isConsolePage)).to.have.length(2);
  });
});

describe('the OpenAPI generator', () => {
  const reads = (def: Partial<RouteDef>): RouteDef =>
    route({
      method: 'get',
      tag: 'Test',
      summary: 'test',
      permission: 'admin.branches.read',
      response: 'branch',
      handler: () => ({}),
      ...def,
    } as any);

  it('when a route has path parameters and a composed query schema, then each becomes a parameter with its schema', async () => {
    const doc = buildOpenApi([reads({ path: '/v2/things/:id', params: 'id-params', query: 'calls-query' })]) as Json;
    await validate(doc);
    const op = doc.paths['/v2/things/{id}'].get;
    expect(op.parameters[0]).to.deep.equal({ name: 'id', in: 'path', required: true, schema: { $ref: '#/components/schemas/common.id' } });
    const names = op.parameters.slice(1).map((p: Json) => p.name);
    expect(names).to.include.members(['tenantId', 'startDate', 'page', 'recordsPerPage']);
    const page = op.parameters.find((p: Json) => p.name === 'page');
    expect(page).to.deep.equal({
      name: 'page',
      in: 'query',
      required: false,
      schema: { $ref: '#/components/schemas/common.paging/properties/page' },
    });
    expect(op.responses['404']).to.deep.equal({ $ref: '#/components/responses/NotFound' });
    expect(op['x-permission']).to.equal('admin.branches.read');
  });

  it('when a path parameter has no schema, or the path uses syntax OpenAPI cannot say, then the build fails loudly', () => {
    expect(() => buildOpenApi([reads({ path: '/v2/things/:id' })])).to.throw(/has path parameters but no params schema/);
    expect(() => buildOpenApi([reads({ path: '/v2/things/:thingId', params: 'id-params' })])).to.throw(
      /schema id-params has no property "thingId"/,
    );
    expect(() => buildOpenApi([reads({ path: '/v2/things/*rest' })])).to.throw(/only :name parameters/);
  });
});
