import type { Request } from 'express';
import { AppError, badRequest } from '../errors';

/** decisions.md §1: request bodies up to 1 MiB. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/**
 * Objects and arrays nested deeper than this are refused: the deepest body of the API is 4 levels, and
 * code that walks a value recursively (ajv, structuredClone) overflows its stack a few thousand levels down.
 */
export const BODY_MAX_DEPTH = 32;

const tooLarge = () => new AppError(413, `The request body is larger than ${BODY_LIMIT_BYTES} bytes`);

/**
 * Reads a JSON request body: 415 for any other media type or an encoded body, 413 past the limit
 * (before reading when Content-Length says so), 400 when it is not JSON. No body at all → undefined,
 * which the route's schema then reports. Called by a route only after authentication, so an anonymous
 * caller gets 401 whatever it sent.
 */
export async function readJsonBody(req: Request): Promise<unknown> {
  const length = req.headers['content-length'];
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (!chunked && (length === undefined || length === '0')) return undefined;
  if (!req.is(['application/json', 'application/*+json'])) {
    throw new AppError(415, 'The request body must be JSON (Content-Type: application/json)');
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') throw new AppError(415, `Content-Encoding ${encoding} is not supported`);
  const charset = /charset=([^;]+)/i
    .exec(req.headers['content-type'] ?? '')?.[1]
    ?.trim()
    .toLowerCase();
  if (charset && charset !== 'utf-8' && charset !== 'utf8') throw new AppError(415, `Charset ${charset} is not supported; send UTF-8`);
  if (length !== undefined && Number(length) > BODY_LIMIT_BYTES) throw tooLarge();

  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    // The client went away, or the server's request timeout (src/cli/bind.ts) cut a body that came too slowly: the
    // client's doing, not a server error (Node has already answered 408 and closed the connection).
    throw new AppError(408, 'The request body did not arrive in time, or the client closed the connection');
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    throw badRequest(`The request body is not valid JSON: ${(err as Error).message}`);
  }
  if (depthOf(value, BODY_MAX_DEPTH) > BODY_MAX_DEPTH) throw badRequest(`The request body is nested deeper than ${BODY_MAX_DEPTH} levels`);
  return value;
}

/** How deep objects and arrays nest in a parsed JSON value (a scalar: 0), counted up to `limit` + 1 without recursion. */
export function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > limit) return deepest;
    for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return deepest;
}
