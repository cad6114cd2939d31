import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from '../access/caller';
import type { Permission } from '../access/permissions';
import type { Workbook } from '../sheets/sheet';
import type { SchemaId, SchemaTypes } from '../validation/schema-types';

/**
 * The little of the HTTP exchange a route may touch besides its checked input: the console's session cookie
 * (set at sign-in, read at sign-out) and a credential of its own kind (a wallboard link's token). A handler
 * passes what it reads to its service as plain values; services never see the exchange.
 */
export interface HttpExchange {
  /** The Authorization header as sent. */
  readonly authorization: string | undefined;
  cookie(name: string): string | undefined;
  /** The request came over TLS (or, with TARS_TRUST_PROXY, a proxy says it did): a cookie set is Secure. */
  readonly secure: boolean;
  /** The browser says the request comes from a page of another origin (src/http/request-caller.ts). */
  readonly fromOtherOrigin: boolean;
  /** Sets an HttpOnly, SameSite=Strict cookie for the whole site (Secure over TLS); 0 seconds removes it. */
  setCookie(name: string, value: string, maxAgeSeconds: number): void;
}

/** The types of a route (src/http/route.ts mounts them): what its handler is given and may return, from its schemas. */
export interface RouteContext<B, Q, P> {
  readonly caller: Caller;
  readonly body: B;
  readonly query: Q;
  readonly params: P;
  readonly requestId: string;
  /** Worked out only when read (the login throttle): Express reads it from the headers and `trust proxy`. */
  readonly ip: string;
  readonly http: HttpExchange;
}

/** What a public route's handler sees: no caller. */
export type PublicContext<B, Q, P> = Omit<RouteContext<B, Q, P>, 'caller'>;

/** The value a schema describes, once validated; `never` (no schema) gives `Absent`. */
type Checked<Id extends SchemaId, Absent> = [Id] extends [never] ? Absent : SchemaTypes[Id];
/**
 * What a handler may return for a response schema: its type with enums widened to their base types (the
 * services keep `number` for 0/1 flags and `string` for states) and free-form objects as `unknown`, so that a
 * missing, renamed or retyped field is an error.
 */
type Loose<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends readonly (infer E)[]
        ? Loose<E>[]
        : T extends object
          ? keyof Fields<T> extends never
            ? unknown
            : Fields<T>
          : T;
/** The named fields of an object schema (its index signature, from additionalProperties, is left out). */
type Fields<T> = { [K in keyof T as string extends K ? never : K]: Loose<T[K]> };
/**
 * The answer a service gives for a response schema, as a route may return it (Loose: enums widened to their base
 * types, free-form objects `unknown`): `ResponseBody<'report-run'>`, so that the service's type is the schema's.
 */
export type ResponseBody<Id extends SchemaId> = Loose<SchemaTypes[Id]>;
/** What a route without a query or path schema gets for it. */
type NoFields = Readonly<Record<string, never>>;
type Ctx<C, B extends SchemaId, Q extends SchemaId, P extends SchemaId> = C extends 'public'
  ? PublicContext<Checked<B, undefined>, Checked<Q, NoFields>, Checked<P, NoFields>>
  : RouteContext<Checked<B, undefined>, Checked<Q, NoFields>, Checked<P, NoFields>>;

interface RouteBase<B extends SchemaId, Q extends SchemaId, P extends SchemaId, R extends SchemaId> {
  readonly method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** Express path, e.g. /v2/webhooks/:webhookId (a trailing slash is optional on every route). */
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  /** true for operations the hosted API does not have (listed apart in the README and the OpenAPI). */
  readonly addition?: boolean;
  readonly body?: B;
  /** The body may be left out entirely (it is then validated as {}). */
  readonly bodyOptional?: boolean;
  readonly query?: Q;
  readonly params?: P;
  readonly response: R;
  /** Default: 201 for POST, 200 otherwise (decisions.md §1). */
  readonly status?: number;
  /**
   * A public route that takes a credential of its own kind in its Authorization header, which no other route
   * takes (a wallboard link's token): the OpenAPI security scheme of that credential.
   */
  readonly credential?: 'wallboardLink';
  /**
   * The answer is a Server-Sent Events stream (text/event-stream), not JSON: its first event's data is the
   * response schema (streamRoute). The checks before the handler are those of every route.
   */
  readonly stream?: boolean;
}

/** What a stream route's handler gives back: it takes the response over once every check has passed. */
export interface EventStream {
  attach(req: IncomingMessage, res: ServerResponse): void;
}

/** A route as declared: its handler's input and output are the types of its schemas (src/validation/schema-types.ts). */
export interface TypedRoute<
  C extends Permission | 'authenticated' | 'public',
  B extends SchemaId,
  Q extends SchemaId,
  P extends SchemaId,
  R extends SchemaId,
> extends RouteBase<B, Q, P, R> {
  /** The permission the caller needs; 'authenticated' when any signed-in user may call it, 'public' without a token. */
  readonly permission: C;
  readonly handler: (ctx: Ctx<C, B, Q, P>) => Loose<SchemaTypes[NoInfer<R>]> | Promise<Loose<SchemaTypes[NoInfer<R>]>>;
  /**
   * The answer as a spreadsheet too (reporting.md R24): asked for with `?format=csv|xlsx` or an Accept header, it
   * is this workbook, written as it is read (src/http/sheet-response.ts). JSON stays the default.
   */
  readonly sheet?: (ctx: Ctx<C, B, Q, P>) => Promise<Workbook>;
}

/** A route of the table, its types erased: what the dispatcher, the OpenAPI generator and the tests read. */
export interface RouteDef extends RouteBase<SchemaId, SchemaId, SchemaId, SchemaId> {
  readonly permission: Permission | 'authenticated' | 'public';
  readonly handler: (ctx: PublicContext<unknown, unknown, unknown> & { readonly caller?: Caller }) => unknown;
  readonly sheet?: (ctx: PublicContext<unknown, unknown, unknown> & { readonly caller?: Caller }) => Promise<Workbook>;
}

/**
 * Declares a route: the types of its body, query, path parameters and response are those of the schemas it
 * names, inferred from their ids (a schema change is a type error in the handler or the service it calls).
 * The table erases them: src/http/route.ts validates every input against those schemas before the handler sees it.
 */
export function route<B extends SchemaId = never, Q extends SchemaId = never, P extends SchemaId = never, R extends SchemaId = SchemaId>(
  def: TypedRoute<Permission | 'authenticated', B, Q, P, R>,
): RouteDef {
  return def as unknown as RouteDef;
}

export function publicRoute<
  B extends SchemaId = never,
  Q extends SchemaId = never,
  P extends SchemaId = never,
  R extends SchemaId = SchemaId,
>(def: TypedRoute<'public', B, Q, P, R>): RouteDef {
  return def as unknown as RouteDef;
}

/** A public route whose answer is a Server-Sent Events stream (a wallboard link's, by its own credential). */
export function publicStreamRoute<Q extends SchemaId = never, R extends SchemaId = SchemaId>(
  def: RouteBase<never, Q, never, R> & {
    readonly method: 'get';
    readonly permission: 'public';
    readonly handler: (ctx: PublicContext<undefined, Checked<Q, NoFields>, NoFields>) => EventStream | Promise<EventStream>;
  },
): RouteDef {
  return { ...def, stream: true } as unknown as RouteDef;
}

/** A route whose answer is a Server-Sent Events stream (the live queues): a GET with a query, a permission and a handler. */
export function streamRoute<Q extends SchemaId = never, R extends SchemaId = SchemaId>(
  def: RouteBase<never, Q, never, R> & {
    readonly method: 'get';
    readonly permission: Permission;
    readonly handler: (ctx: RouteContext<undefined, Checked<Q, NoFields>, NoFields>) => EventStream | Promise<EventStream>;
  },
): RouteDef {
  return { ...def, stream: true } as unknown as RouteDef;
}
