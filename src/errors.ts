/**
 * The one error type of the server. Services throw it; the error middleware turns it into the body of
 * decisions.md §2: {name, message, code, validationErrors?}.
 */
const NAMES: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'NotAuthenticated',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'RequestTimeout',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'GeneralError',
  503: 'Unavailable',
  507: 'InsufficientStorage',
};

export class AppError extends Error {
  readonly status: number;
  readonly validationErrors: string[] | undefined;
  /** Extra response headers, e.g. Retry-After on 429. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, message: string, opts: { validationErrors?: string[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = NAMES[status] ?? 'GeneralError';
    this.status = status;
    this.validationErrors = opts.validationErrors;
    this.headers = opts.headers ?? {};
  }

  toBody(): { name: string; message: string; code: number; validationErrors?: string[] } {
    const body: { name: string; message: string; code: number; validationErrors?: string[] } = {
      name: this.name,
      message: this.message,
      code: this.status,
    };
    if (this.validationErrors) body.validationErrors = this.validationErrors;
    return body;
  }
}

export const badRequest = (problems: string[] | string): AppError => {
  const list = Array.isArray(problems) ? problems : [problems];
  return new AppError(400, list[0] ?? 'Bad request', { validationErrors: list });
};
export const notAuthenticated = (message = 'Not authenticated'): AppError => new AppError(401, message);
export const forbidden = (message = 'You are not allowed to do this'): AppError => new AppError(403, message);
export const notFound = (what = 'Record'): AppError => new AppError(404, `${what} not found`);
export const conflict = (message: string): AppError => new AppError(409, message);
export const tooManyRequests = (message: string, retryAfterSeconds: number): AppError =>
  new AppError(429, message, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } });
export const unavailable = (message: string): AppError => new AppError(503, message);
export const diskFull = (): AppError =>
  new AppError(
    507,
    'The disk of the data directory is full: the change was not saved. Free some space there; the server accepts changes again at once.',
  );

/** SQLite error codes we answer deliberately (never by message text). */
export function sqliteCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}
