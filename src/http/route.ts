import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { AppError, forbidden } from '../errors';
import type { AppDeps } from '../deps';
import { readJsonBody } from './body';
import { bearerToken, resolveCaller, type Caller } from './caller';
import type { Permission } from './permissions';
import type { SchemaId, Validator } from './validation';

/**
 * A route is declared, not hand-wired: its method and path, the permission it needs (one word), the
 * schemas of its path, query and body, the schema and status of its response, and a small handler.
 * Every route runs the same checks in the order of decisions.md §2:
 *   authentication (401) → shape of path, query and body (400) → permission (403) → handler
 * (tenant checks (403) and record lookups (404) happen in the services, in that order). The same
 * declarations feed the OpenAPI document and the route-driven security tests.
 */
export interface RouteContext<B, Q, P> {
  readonly caller: Caller;
  readonly body: B;
  readonly query: Q;
  readonly params: P;
  readonly requestId: string;
  readonly ip: string;
}

/** What a public route's handler sees: no caller. */
export type PublicContext<B, Q, P> = Omit<RouteContext<B, Q, P>, 'caller'>;

interface RouteBase {
  readonly method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** Express path, e.g. /v2/webhooks/:id (a trailing slash is optional on every route). */
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  /** true for operations the hosted API does not have (listed apart in the README and the OpenAPI). */
  readonly addition?: boolean;
  readonly body?: SchemaId;
  /** The body may be left out entirely (it is then validated as {}). */
  readonly bodyOptional?: boolean;
  readonly query?: SchemaId;
  readonly params?: SchemaId;
  readonly response: SchemaId;
  /** Default: 201 for POST, 200 otherwise (decisions.md §1). */
  readonly status?: number;
}

export interface ProtectedRoute<B = any, Q = any, P = any> extends RouteBase {
  /** The permission the caller needs; 'authenticated' when any signed-in user may call it. */
  readonly permission: Permission | 'authenticated';
  readonly handler: (ctx: RouteContext<B, Q, P>) => unknown;
}

export interface PublicRoute<B = any, Q = any, P = any> extends RouteBase {
  readonly permission: 'public';
  readonly handler: (ctx: PublicContext<B, Q, P>) => unknown;
}

export type RouteDef = ProtectedRoute | PublicRoute;

export interface MountOptions {
  /** Check every response against its schema and fail loudly (tests turn this on). */
  readonly checkResponses: boolean;
}

/**
 * The routes are grouped by the first two segments of their path (`/v2/webhooks/:id` → "v2/webhooks"), each
 * group in a router of its own, and a request goes straight to the group of its path's first two segments:
 * Express tries the routes of a router one by one, and reaching the 34th route of one router took 4 % of a
 * request's time. A route can only match a path that starts with its own first two segments (matching is
 * literal there: no route has a parameter in them), so every request meets exactly the routes it met
 * before, in the same order; req.route.path is still the whole declared path (logs, metrics).
 */
export function mountRoutes(router: Router, routes: readonly RouteDef[], deps: AppDeps, opts: MountOptions): void {
  const groups = new Map<string, Router>();
  for (const route of routes) {
    const key = groupKey(route.path);
    if (key.includes(':') || key.includes('*')) throw new Error(`route ${route.path}: a parameter in its first two segments cannot be grouped`);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = express.Router({ strict: false, caseSensitive: true })));
    mountRoute(group, route, deps, opts);
  }
  const dispatch = (req: Request, res: Response, next: NextFunction) => {
    const group = groups.get(groupKey(req.path));
    if (group) group(req, res, next);
    else next();
  };
  // The layers of every group, as a router shows its own: for whatever lists the served routes (the OpenAPI test).
  Object.defineProperty(dispatch, 'stack', { get: () => [...groups.values()].flatMap((g) => g.stack) });
  router.use(dispatch);
}

/** "v2/webhooks" for /v2/webhooks/…, "healthz/" for /healthz and /healthz/. */
export function groupKey(path: string): string {
  const segments = path.split('/', 3);
  return `${segments[1] ?? ''}/${segments[2] ?? ''}`;
}

function mountRoute(router: Router, route: RouteDef, deps: AppDeps, opts: MountOptions): void {
  router[route.method](route.path, async (req: Request, res: Response, _next: NextFunction) => {
    const caller = route.permission === 'public' ? undefined : await resolveCaller(deps.database.db, deps.tokens, bearerToken(req.headers.authorization));
    if (caller) res.locals.userId = caller.user.id;
    const input = await readInput(route, req, deps.validator);
    if (caller && route.permission !== 'authenticated' && route.permission !== 'public' && !caller.permissions.has(route.permission)) {
      throw forbidden(`Your role does not allow ${route.permission}`);
    }
    // The client address only when a handler asks (the login throttle): Express works it out from the headers.
    const ctx = { ...input, caller, requestId: String(res.locals.requestId ?? ''), get ip() { return req.ip ?? ''; } };
    const result = await (caller ? (route as ProtectedRoute).handler(ctx as RouteContext<unknown, unknown, unknown>) : (route as PublicRoute).handler(ctx));
    if (opts.checkResponses) {
      const wrong = deps.validator.problems(route.response, result);
      if (wrong.length > 0) throw new Error(`response of ${route.method.toUpperCase()} ${route.path} breaks schema ${route.response}: ${wrong.join('; ')}`);
    }
    res.status(route.status ?? (route.method === 'post' ? 201 : 200)).json(result);
  });
}

/** Reads and validates path parameters, query and body, collecting every problem into one 400. */
async function readInput(route: RouteDef, req: Request, validator: Validator): Promise<{ body: unknown; query: unknown; params: unknown }> {
  const read = route.body ? await readJsonBody(req) : undefined;
  const rawBody = read === undefined && route.bodyOptional ? {} : read;
  const problems: string[] = [];
  const take = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 400) throw err;
      problems.push(...(err.validationErrors ?? [err.message]));
      return undefined;
    }
  };
  const params = route.params ? take(() => validator.text(route.params as string, { ...req.params })) : {};
  const query = route.query ? take(() => validator.text(route.query as string, { ...(req.query as Record<string, unknown>) })) : {};
  const body = route.body ? take(() => validator.body(route.body as string, rawBody)) : undefined;
  if (problems.length > 0) throw new AppError(400, problems[0] as string, { validationErrors: [...new Set(problems)] });
  return { body, query, params };
}

/** Typed helpers: the handler's context is typed by the route's generic parameters. */
export function route<B = unknown, Q = unknown, P = unknown>(def: ProtectedRoute<B, Q, P>): RouteDef {
  return def as RouteDef;
}

export function publicRoute<B = unknown, Q = unknown, P = unknown>(def: PublicRoute<B, Q, P>): RouteDef {
  return def as RouteDef;
}
