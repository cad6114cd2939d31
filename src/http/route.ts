import type { NextFunction, Request, Response, Router } from 'express';
import { match, type MatchFunction } from 'path-to-regexp';
import { AppError, forbidden } from '../errors';
import type { AppDeps } from '../deps';
import { readJsonBody } from './body';
import { bearerToken, resolveCaller } from '../access/caller';
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
  route,
  streamRoute,
  type EventStream,
  type PublicContext,
  type RouteContext,
  type RouteDef,
} from './route-declaration';

export interface MountOptions {
  /** Check every response against its schema and fail loudly (tests turn this on). */
  readonly checkResponses: boolean;
}

/** A declared route as the dispatcher runs it. */
interface MountedRoute {
  readonly def: RouteDef;
  /** Upper case, as req.method. */
  readonly method: string;
  readonly match: MatchFunction<Record<string, string>>;
  /** What req.route is while it runs (the metrics label it by its declared path). */
  readonly route: { readonly path: string; readonly method: string };
  readonly run: (req: Request, res: Response) => Promise<void>;
}

/**
 * Mounts the route table as one middleware that matches the request itself, as Express would: paths
 * matched by path-to-regexp (Express 5's own matcher) with Express's options here (case-sensitive, a
 * trailing slash optional, parameters %-decoded, a malformed escape a 400), HEAD answered by the GET route,
 * OPTIONS answered with an Allow header listing the methods of the path, anything else passed on (404).
 *
 * The routes are grouped by the first two segments of their path (`/v2/webhooks/:id` → "v2/webhooks") and
 * a request meets only the routes of its own group, in declaration order: a route can only match a path
 * that starts with its own first two segments (no route has a parameter there). Express's own routers
 * (a Layer and a Route per route, tried one by one through `next`) took 40 us of CPU per request before
 * the handler ran, a tenth of a whole GET /v2/webhooks/{id}; this takes a map lookup and one regexp.
 */
export function mountRoutes(router: Router, routes: readonly RouteDef[], deps: AppDeps, opts: MountOptions): void {
  const groups = new Map<string, MountedRoute[]>();
  for (const def of routes) {
    const key = groupKey(def.path);
    if (key.includes(':') || key.includes('*'))
      throw new Error(`route ${def.path}: a parameter in its first two segments cannot be grouped`);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    const method = def.method.toUpperCase();
    const path = def.path.replace(/\/+$/, '');
    group.push({
      def,
      method,
      match: match(path, { sensitive: true, end: true, trailing: true, decode: decodeParam }),
      route: Object.freeze({ path: def.path, method }),
      run: runner(def, deps, opts),
    });
  }
  const dispatch = (req: Request, res: Response, next: NextFunction): void => {
    const group = groups.get(groupKey(req.path));
    if (!group) return next();
    let allowed: string[] | undefined;
    try {
      for (const r of group) {
        const found = r.match(req.path);
        if (!found) continue;
        if (r.method === req.method || (req.method === 'HEAD' && r.method === 'GET')) {
          req.params = found.params;
          (req as { route?: unknown }).route = r.route;
          r.run(req, res).catch(next);
          return;
        }
        if (req.method === 'OPTIONS') (allowed ??= []).push(...(r.method === 'GET' ? ['GET', 'HEAD'] : [r.method]));
      }
    } catch (err) {
      return next(err); // a parameter with a malformed %-escape (status 400)
    }
    if (allowed) return sendAllow(res, allowed);
    next();
  };
  // What it serves, for whatever lists the served routes (the OpenAPI test).
  dispatch.routes = routes.map((r) => ({ method: r.method, path: r.path }));
  router.use(dispatch);
}

/** "v2/webhooks" for /v2/webhooks/…, "healthz/" for /healthz and /healthz/ (the first two segments, without splitting the path). */
export function groupKey(path: string): string {
  const first = path.indexOf('/', 1);
  if (first < 0) return `${path.slice(1)}/`;
  const second = path.indexOf('/', first + 1);
  return second < 0 ? path.slice(1) : path.slice(1, second);
}

/** A path parameter %-decoded, as Express does it: a malformed escape is a 400. */
function decodeParam(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch (err) {
    if (err instanceof URIError) throw Object.assign(err, { status: 400 });
    throw err;
  }
}

/** The answer Express gives to OPTIONS on a path it has routes for: their methods in an Allow header. */
function sendAllow(res: Response, methods: string[]): void {
  const allow = [...new Set(methods)].sort().join(', ');
  res.setHeader('Allow', allow);
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(allow);
}

function runner(route: RouteDef, deps: AppDeps, opts: MountOptions): (req: Request, res: Response) => Promise<void> {
  return async (req, res) => {
    const caller =
      route.permission === 'public'
        ? undefined
        : await resolveCaller(deps.database.db, deps.tokens, bearerToken(req.headers.authorization));
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
