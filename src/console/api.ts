/**
 * The console's one way to the server: the API itself, same origin, with the session cookie (the browser sends it;
 * no script can read it). Every action of the console is one of these calls, which a script could make too.
 */
export type Query = Record<string, string | number | undefined>;

/** An error answer of the API (decisions.md §2): its status, message and, on 400, the problems by field. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly validationErrors: readonly string[] = [],
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

let onSessionEnded: (message: string) => void = () => undefined;

/** What happens when a call answers 401 (the session ended on the server): set by the session's module. */
export function whenSessionEnds(handler: (message: string) => void): void {
  onSessionEnded = handler;
}

export function urlOf(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

type Options = { body?: unknown; query?: Query; headers?: Record<string, string>; quiet401?: boolean };

async function send(method: string, path: string, opts: Options, accept: string): Promise<Response> {
  const headers: Record<string, string> = { accept, ...opts.headers };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  try {
    return await fetch(urlOf(path, opts.query), {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'The server cannot be reached. Check the connection and try again.');
  }
}

/** The API's error answer as an ApiError (a 401 ends the session unless the call says it asks for proof). */
function failure(res: Response, text: string, opts: Options): ApiError {
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const error = (body ?? {}) as { message?: unknown; validationErrors?: unknown };
  const message = typeof error.message === 'string' ? error.message : `The server answered ${res.status}`;
  const problems = Array.isArray(error.validationErrors) ? error.validationErrors.filter((p): p is string => typeof p === 'string') : [];
  const retry = Number(res.headers.get('retry-after'));
  if (res.status === 401 && !opts.quiet401) onSessionEnded(message);
  return new ApiError(res.status, message, problems, Number.isFinite(retry) && retry > 0 ? retry : undefined);
}

export async function request<T>(method: string, path: string, opts: Options = {}): Promise<T> {
  const res = await send(method, path, opts, 'application/json');
  const text = await res.text();
  if (!res.ok) throw failure(res, text, opts);
  try {
    return (text ? JSON.parse(text) : undefined) as T;
  } catch {
    return undefined as T;
  }
}

/**
 * A report in a spreadsheet's form, the API's own export (`?format=csv|xlsx` on the same POST), saved by the
 * browser under the name the server gives it (Content-Disposition).
 */
export async function download(path: string, body: unknown, format: 'csv' | 'xlsx'): Promise<string> {
  const res = await send('POST', path, { body, query: { format } }, '*/*');
  if (!res.ok) throw failure(res, await res.text(), {});
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? `report.${format}`;
  const href = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
  return name;
}

export const api = {
  get: <T>(path: string, query?: Query, headers?: Record<string, string>) => request<T>('GET', path, { query, headers }),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, { body }),
  /** A call whose 401 asks for proof (the password, for MFA changes) rather than ending the session. */
  postProof: <T>(path: string, body?: unknown) => request<T>('POST', path, { body, quiet401: true }),
  patch: <T>(path: string, body?: unknown) => request<T>('PATCH', path, { body }),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, { body }),
  del: <T>(path: string) => request<T>('DELETE', path),
  /** A sign-in step: its 401 (a wrong password or code) is an answer, not the end of a session. */
  signIn: <T>(path: string, body: unknown) => request<T>('POST', path, { body, quiet401: true }),
};
