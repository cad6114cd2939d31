import type { NextFunction, Request, Response, Router } from 'express';
import findMyWay from 'find-my-way';
import { AppError, forbidden } from '../errors';
import type { Db } from '../db/database';
import { readJsonBody } from './body';
import type { TokenVerifier } from '../access/caller';
import { callerOfRequest, exchangeOf, type SessionResolver } from './request-caller';
import type { EventStream, RouteDef } from './route-declaration';
import type { SchemaId } from '../validation/schema-types';
import type { Validator } from '../validation/validation';
import { requestedFormat, sendWorkbook, type ReportFormat } from './sheet-response';

/**
 * A route is declared, not hand-wired: its method and path, the permission it needs (one word), the
 * schemas of its path, query and body, the schema and status of its response, and a small handler.
 * Every route runs the same checks in the order of decisions.md §2:
 *   authentication (401) → shape of path, query and body (400) → permission (403) → handler
 * (tenant checks (403) and record lookups (404) happen in the services, in that order). The same
 * declarations feed the OpenAPI document and the route-driven security tests.
 */
export {
  publicRoute,
  publicStreamRoute,
  route,
  streamRoute,
  type EventStream,
  type HttpExchange,
  type PublicContext,
  type ResponseBody,
  type RouteContext,
  type RouteDef,
} from './route-declaration';

export interface MountOptions {
  /** Check every response against its schema and fail loudly (tests turn this on). */
  readonly checkResponses: boolean;
}

/** What mounting the route table needs: the database (to read each request's caller), the token check, the schemas. */
export interface RouteDeps {
  readonly db: Db;
  readonly tokens: TokenVerifier;
  /** The console's sessions: a request's caller when it sends their cookie and no Authorization header. */
  readonly sessions: SessionResolver;
  readonly validator: Validator;
}

/** A declared route as the dispatcher runs it. */
interface MountedRoute {
  /** What req.route is while it runs (the metrics label it by its declared path). */
  readonly route: { readonly path: string; readonly method: string };
  readonly run: (req: Request, res: Response) => Promise<void>;
}

/** The methods a route may have, in the order an Allow header lists them once sorted. */
const METHODS = ['DELETE', 'GET', 'PATCH', 'POST', 'PUT'] as const;

/**
 * Mounts the route table as one middleware that finds the request's route in a radix tree (find-my-way, the
 * router of Fastify) and answers as Express would: paths case-sensitive, a trailing slash optional, parameters
 * %-decoded and never empty, a malformed %-escape a 400, HEAD answered by the GET route, OPTIONS answered with an
 * Allow header listing the methods of the path, anything else passed on (404). A fixed path wins over a
 * parameter at the same place whatever the order of declaration (`/v2/webhooks/list-types` over
 * `/v2/webhooks/:webhookId`). Express's own routers (a Layer and a Route per route, tried one by one through
 * `next`) took 40 us of CPU per request before the handler ran, a tenth of a whole GET /v2/webhooks/{id}.
 */
export function mountRoutes(router: Router, routes: readonly RouteDef[], deps: RouteDeps, opts: MountOptions): void {
  const tree = findMyWay({
    caseSensitive: true,
    ignoreTrailingSlash: true,
    ignoreDuplicateSlashes: false,
    // Long parameters are the schemas' to refuse (400), not the router's (find-my-way's default: 100 characters).
    maxParamLength: 1 << 16,
    // A malformed %-escape: found as a route without a store (see find below).
    onBadUrl: () => undefined,
  });
  const noop = () => undefined;
  for (const def of routes) {
    const method = def.method.toUpperCase() as (typeof METHODS)[number];
    const mounted: MountedRoute = { route: Object.freeze({ path: def.path, method }), run: runner(def, deps, opts) };
    tree.on(method, def.path.replace(/\/+$/, '') || '/', noop, mounted);
  }
  /** The route of a method and path; 'bad' for a malformed %-escape; undefined for none (or an empty parameter, as Express). */
  const find = (method: string, path: string): { mounted: MountedRoute; params: Record<string, string> } | 'bad' | undefined => {
    const found = tree.find(method as (typeof METHODS)[number], path);
    if (!found) return undefined;
    if (found.store === null) return 'bad';
    for (const name in found.params) if (!found.params[name]) return undefined;
    return { mounted: found.store as MountedRoute, params: found.params as Record<string, string> };
  };
  const dispatch = (req: Request, res: Response, next: NextFunction): void => {
    const found = find(req.method === 'HEAD' ? 'GET' : req.method, req.path);
    if (found === 'bad') return next(badPath());
    if (found) {
      req.params = found.params;
      (req as { route?: unknown }).route = found.mounted.route;
      found.mounted.run(req, res).catch(next);
      return;
    }
    if (req.method === 'OPTIONS') {
      const allowed = METHODS.filter((m) => {
        const f = find(m, req.path);
        return f !== undefined && f !== 'bad';
      });
      if (allowed.length > 0) return sendAllow(res, allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed);
    }
    next();
  };
  // What it serves, for whatever lists the served routes (the OpenAPI test).
  dispatch.routes = routes.map((r) => ({ method: r.method, path: r.path }));
  router.use(dispatch);
}

/** A path with a malformed %-escape: a 400, as Express answers it. */
const badPath = () => Object.assign(new URIError('URI malformed'), { status: 400 });

/** The answer Express gives to OPTIONS on a path it has routes for: their methods in an Allow header. */
function sendAllow(res: Response, methods: string[]): void {
  const allow = [...new Set(methods)].sort().join(', ');
  res.setHeader('Allow', allow);
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(allow);
}

function runner(route: RouteDef, deps: RouteDeps, opts: MountOptions): (req: Request, res: Response) => Promise<void> {
  return async (req, res) => {
    const caller = route.permission === 'public' ? undefined : await callerOfRequest(req, deps);
    if (caller) res.locals.userId = caller.user.id;
    const input = checkInput(route, req, deps.validator, route.body ? await readJsonBody(req) : undefined);
    if (caller && route.permission !== 'authenticated' && route.permission !== 'public' && !caller.permissions.has(route.permission)) {
      throw forbidden(`Your role does not allow ${route.permission}`);
    }
    const ctx = {
      body: input.body,
      query: input.query,
      params: input.params,
      caller,
      requestId: String(res.locals.requestId ?? ''),
      get ip() {
        return req.ip ?? '';
      },
      http: exchangeOf(req, res),
    };
    const status = route.status ?? (route.method === 'post' ? 201 : 200);
    if (route.sheet && input.format !== 'json') return sendWorkbook(res, status, await route.sheet(ctx), input.format);
    const result = await route.handler(ctx);
    if (route.stream) return (result as EventStream).attach(req, res);
    if (opts.checkResponses) {
      const wrong = deps.validator.problems(route.response, result);
      if (wrong.length > 0)
        throw new Error(`response of ${route.method.toUpperCase()} ${route.path} breaks schema ${route.response}: ${wrong.join('; ')}`);
    }
    res.status(status).json(result);
  };
}

interface CheckedInput {
  body: unknown;
  query: unknown;
  params: unknown;
  /** What a route with a spreadsheet form is asked for (reporting.md R24); json for every other route. */
  format: ReportFormat;
}

/** Validates path parameters, query and the body read (if the route has one), collecting every problem into one 400. */
function checkInput(route: RouteDef, req: Request, validator: Validator, read: unknown): CheckedInput {
  const problems: string[] = [];
  const params = route.params ? checked(problems, validator, 'text', route.params, req.params) : {};
  let format: ReportFormat = 'json';
  let rawQuery = req.query as Record<string, unknown>;
  if (route.sheet) {
    // `format` chooses the answer's form; it is no filter of the report's own query schema
    const asked = requestedFormat(req);
    if (typeof asked === 'string') format = asked;
    else problems.push(asked.problem);
    const { format: _format, ...rest } = rawQuery;
    rawQuery = rest;
  }
  const query = route.query ? checked(problems, validator, 'text', route.query, rawQuery) : {};
  const body = route.body
    ? checked(problems, validator, 'body', route.body, read === undefined && route.bodyOptional ? {} : read)
    : undefined;
  if (problems.length > 0) throw new AppError(400, problems[0] as string, { validationErrors: [...new Set(problems)] });
  return { body, query, params, format };
}

/** The value checked by the schema, or undefined with its problems added to `problems` (a 400 of the validator). */
function checked(problems: string[], validator: Validator, kind: 'text' | 'body', schema: SchemaId, value: unknown): unknown {
  try {
    return kind === 'text' ? validator.text(schema, value as Record<string, unknown>) : validator.body(schema, value);
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 400) throw err;
    problems.push(...(err.validationErrors ?? [err.message]));
    return undefined;
  }
}
