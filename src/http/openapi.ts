import { VERSION } from '../version';
import { componentSchemas, objectShape, rewrite } from './openapi-components';
import type { RouteDef } from './route';
import type { SchemaTypes } from '../validation/schema-types';

/**
 * The OpenAPI 3.1 document of the server, generated from the two things that also run it: the route table
 * (method, path, tag, summary, permission, schema ids, status, addition) and the JSON Schemas of schemas/
 * (as components: src/http/openapi-components.ts).
 */
type Json = Record<string, unknown>;

export const ADDITION_TAG = 'Addition to the hosted API';

/** The error responses, each with the error body of decisions.md §2. */
const ERRORS = {
  400: ['BadRequest', 'The path, query or body breaks its schema; validationErrors names every problem', 'tenantId must be greater than 0'],
  401: ['NotAuthenticated', 'No valid bearer token', 'Not authenticated'],
  403: [
    'Forbidden',
    "The caller's role or permissions do not allow this, or it names a tenant it may not act in",
    'You are not allowed to do this',
  ],
  404: ['NotFound', 'No such record, or one of a tenant the caller may not see', 'Record not found'],
  413: ['PayloadTooLarge', 'The body is larger than 1 MiB', 'The request body is too large'],
  415: ['UnsupportedMediaType', 'The body is not application/json', 'The request body must be JSON (Content-Type: application/json)'],
  500: ['GeneralError', 'Something went wrong on the server (details only in its log)', 'Something went wrong on the server'],
  503: [
    'Unavailable',
    'The database is not answering or too busy for now (Retry-After says when to try again); nothing was changed',
    'The database is not answering; nothing was changed. Try again shortly',
  ],
  507: [
    'InsufficientStorage',
    'The disk of the data directory is full: nothing was saved; reads go on',
    'The disk of the data directory is full: the change was not saved',
  ],
} as const;

function errorResponse(code: keyof typeof ERRORS): Json {
  const [name, description, message] = ERRORS[code];
  const example = code === 400 ? { name, message, code, validationErrors: [message] } : { name, message, code };
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/error' }, example } } };
}

export function buildOpenApi(routes: readonly RouteDef[]): SchemaTypes['openapi'] {
  const paths: Record<string, Json> = {};
  const tags: string[] = [];
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operation(route, path) };
    for (const tag of operationTags(route)) if (!tags.includes(tag)) tags.push(tag);
  }
  const responses = Object.fromEntries(
    Object.entries(ERRORS).map(([code, [name]]) => [name, errorResponse(Number(code) as keyof typeof ERRORS)]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'TARS API',
      version: VERSION,
      description:
        'The v2 admin and reporting API of TARS, the Telephony Administration and Reporting Server. Send the accessToken of POST /v2/authentication as `Authorization: Bearer <token>`.',
    },
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas: componentSchemas({ paths, responses }),
      responses,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        wallboardLink: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A wallboard link's token (tarswb_…, from POST /v2/wallboard-links): it reads that link's live state and nothing else.",
        },
      },
    },
  };
}

/** Express's /v2/webhooks/:id → OpenAPI's /v2/webhooks/{id}; other Express path syntax is not described. */
export function openApiPath(expressPath: string): string {
  const path = expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  if (/[*?()]|:/.test(path)) throw new Error(`route path ${expressPath}: only :name parameters can be described in OpenAPI`);
  return path;
}

/**
 * An operation is listed under its own tag only; an addition says so in its description and in
 * `x-addition`. (Listed a second time under a tag of the additions, Swagger UI 5 stopped rendering the page
 * part-way once there were about 40 of them, without an error.)
 */
function operationTags(route: RouteDef): string[] {
  return [route.tag];
}

function operation(route: RouteDef, path: string): Json {
  const isPublic = route.permission === 'public';
  const status = route.status ?? (route.method === 'post' ? 201 : 200);
  const errors: (keyof typeof ERRORS)[] = [];
  if (route.body || route.query || route.params) errors.push(400);
  if (!isPublic) errors.push(401, 403);
  else if (route.credential) errors.push(401);
  if (route.params) errors.push(404);
  if (route.body) errors.push(413, 415);
  if (route.method !== 'get') errors.push(507);
  errors.push(503); // every route reads the database
  const access = route.credential
    ? "A wallboard link's token (`Authorization: Bearer tarswb_…`); no access token."
    : isPublic
      ? 'Public: no token needed.'
      : route.permission === 'authenticated'
        ? 'Any signed-in user.'
        : `Permission: \`${route.permission}\`.`;
  return {
    operationId: operationId(route.method, path),
    tags: operationTags(route),
    summary: route.summary,
    description: route.addition ? `${ADDITION_TAG}: the hosted API does not have this operation. ${access}` : access,
    ...(route.addition ? { 'x-addition': true } : {}),
    ...(route.credential
      ? { security: [{ [route.credential]: [] }] }
      : isPublic
        ? { security: [] }
        : { security: [{ bearer: [] }], 'x-permission': route.permission }),
    parameters: [...parameters(route, 'path'), ...parameters(route, 'query'), ...(route.sheet ? [FORMAT_PARAMETER] : [])],
    ...(route.body ? { requestBody: { required: true, content: json(route.body) } } : {}),
    responses: {
      [status]: route.stream
        ? {
            description: `A Server-Sent Events stream: first the whole \`${route.response}\` as one event, then changes (docs/live-queues.md).`,
            content: {
              'text/event-stream': { schema: { type: 'string' }, 'x-event-data': { $ref: `#/components/schemas/${route.response}` } },
            },
          }
        : {
            description: status === 201 ? 'Created' : 'OK',
            content: { ...json(route.response), ...(route.sheet ? SHEET_CONTENT : {}) },
          },
      ...Object.fromEntries(errors.map((code) => [code, { $ref: `#/components/responses/${ERRORS[code][0]}` }])),
      default: { $ref: '#/components/responses/GeneralError' },
    },
  };
}

function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((p) => (p.startsWith('{') ? `by-${p.slice(1, -1)}` : p));
  return [method, ...words].join('-').replace(/[-_.]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The spreadsheet forms of a report (reporting.md R24), asked for with `format` or an Accept header. */
const FORMAT_PARAMETER: Json = {
  name: 'format',
  in: 'query',
  required: false,
  description:
    'The answer as a spreadsheet: csv (text/csv) or xlsx, an attachment of every row (all pages); json (the default) as without it. The Accept header chooses the same way when this is absent.',
  schema: { type: 'string', enum: ['json', 'csv', 'xlsx'] },
};
const SHEET_CONTENT: Json = {
  'text/csv': { schema: { type: 'string', description: 'RFC 4180 with a header row; the JSON fields as columns (reporting.md R24).' } },
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', format: 'binary' } },
};

const json = (schemaId: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${schemaId}` } } });

/** The path parameters (those named in the path) or the query parameters, one per property of the route's schema. */
function parameters(route: RouteDef, where: 'path' | 'query'): Json[] {
  const id = where === 'path' ? route.params : route.query;
  const names = where === 'path' ? [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] as string) : undefined;
  if (!id) {
    if (names?.length) throw new Error(`route ${route.method.toUpperCase()} ${route.path} has path parameters but no params schema`);
    return [];
  }
  const { properties, required } = objectShape(id, '');
  return (names ?? Object.keys(properties)).map((name) => {
    const found = properties[name];
    if (!found) throw new Error(`route ${route.method.toUpperCase()} ${route.path}: schema ${id} has no property "${name}"`);
    const schema = rewrite(found.schema, found.owner) as Json;
    const description = typeof schema.description === 'string' ? { description: schema.description } : {};
    return { name, in: where, required: where === 'path' || required.includes(name), ...description, schema };
  });
}
