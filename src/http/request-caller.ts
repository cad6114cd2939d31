import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import { parseCookie, stringifySetCookie } from 'cookie';
import { bearerToken, resolveCaller, type Caller, type TokenVerifier } from '../access/caller';
import type { Db } from '../db/database';
import { forbidden, notAuthenticated } from '../errors';
import type { HttpExchange } from './route-declaration';

/** The console's session cookie (src/modules/console): HttpOnly, SameSite=Strict, Secure over TLS. */
export const SESSION_COOKIE = 'tars_session';

/** Resolves a console session id to its caller, or throws 401 (src/modules/console implements it; AppDeps carries it). */
export interface SessionResolver {
  caller(sessionId: string): Promise<Caller>;
}

export interface CallerSources {
  readonly db: Db;
  readonly tokens: TokenVerifier;
  readonly sessions: SessionResolver;
}

const CROSS_SITE = "The console's session cookie is accepted only on requests from the console's own origin";

/**
 * The caller of a request: its `Authorization: Bearer` token when it sends the header (whatever else it
 * carries), else its console session cookie, which counts only on a request the browser does not mark as
 * coming from another origin (one that does is refused with 403, whatever its method, before its session is
 * looked up). Neither: 401.
 */
export async function callerOfRequest(req: IncomingMessage, from: CallerSources): Promise<Caller> {
  const header = req.headers.authorization;
  if (header !== undefined) return resolveCaller(from.db, from.tokens, bearerToken(header));
  const session = cookieOf(req, SESSION_COOKIE);
  if (session === undefined) return resolveCaller(from.db, from.tokens, null);
  if (fromOtherOrigin(req)) throw forbidden(CROSS_SITE);
  return from.sessions.caller(session);
}

/** The request's cookie of that name, if it sends one. */
export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  return header ? parseCookie(header)[name] : undefined;
}

/**
 * Whether the browser says a request comes from a page of another origin: Sec-Fetch-Site (every current
 * browser sends it) other than `same-origin` or `none` (the user typed the address); without it, an Origin
 * header that names another host (or `null`). A request with neither is not a browser's cross-origin request
 * (browsers send Origin with every cross-origin request and every POST); SameSite=Strict keeps the cookie
 * off cross-site requests of browsers besides. The host is compared, not the scheme: behind a TLS-terminating
 * proxy the request reaches TARS over HTTP.
 */
export function fromOtherOrigin(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    return origin === 'null' || new URL(origin).host !== req.headers.host;
  } catch {
    return true;
  }
}

/** What a route may read and set of the HTTP exchange besides its checked input (see HttpExchange). */
export function exchangeOf(req: Request, res: Response): HttpExchange {
  return {
    get authorization() {
      return req.headers.authorization;
    },
    cookie: (name) => cookieOf(req, name),
    get secure() {
      return req.secure;
    },
    get fromOtherOrigin() {
      return fromOtherOrigin(req);
    },
    setCookie(name, value, maxAgeSeconds) {
      const cookie = stringifySetCookie({
        name,
        value,
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: req.secure,
        maxAge: Math.max(0, Math.floor(maxAgeSeconds)),
      });
      res.append('Set-Cookie', cookie);
    },
  };
}

/** 401 for a route that takes a credential of its own (a wallboard link): the header's bearer credential, whatever its form. */
export function bearerOf(exchange: HttpExchange): string {
  const m = /^Bearer ([\x21-\x7e]{1,512})$/i.exec(exchange.authorization ?? '');
  if (!m) throw notAuthenticated('Missing or malformed Authorization header: Bearer <token>');
  return m[1] as string;
}
