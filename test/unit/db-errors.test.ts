import { expect } from 'chai';
import { dbErrorKind, isDatabaseDiskFull } from '../../src/db/db-errors';
import { errorHandler } from '../../src/http/middleware';
import { silentLogger } from '../../src/log';

/*
 * Which database errors are passing states (docs/design/postgresql.md step 9): the error handler answers them 503
 * with Retry-After. The errors are built as the drivers make them (pg's DatabaseError carries the SQLSTATE in
 * `code`, Node's socket errors an errno code and the syscall, pg-pool its own sentences, better-sqlite3 SQLITE_*).
 */

const withCode = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(`error ${code}`), { code, ...extra });

describe('dbErrorKind: which database errors mean "away" or "busy"', () => {
  it('when PostgreSQL is not there, shutting down or starting up, or the connection broke, then unavailable', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '08003', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE'])
      expect(dbErrorKind(withCode(code)), code).to.equal('unavailable');
    expect(dbErrorKind(withCode('ENOENT', { syscall: 'connect' }))).to.equal('unavailable');
    expect(dbErrorKind(new Error('Connection terminated unexpectedly'))).to.equal('unavailable');
    expect(dbErrorKind(new Error('timeout exceeded when trying to connect'))).to.equal('unavailable');
    expect(dbErrorKind(new Error('Connection terminated due to connection timeout', { cause: new Error('x') }))).to.equal('unavailable');
    expect(dbErrorKind(new Error('wrapped', { cause: withCode('57P01') }))).to.equal('unavailable');
  });

  it('when the work could not get its turn (serialization, deadlock, lock timeout, SQLite busy), then busy', () => {
    for (const code of ['40001', '40P01', '55P03', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT'])
      expect(dbErrorKind(withCode(code)), code).to.equal('busy');
  });

  it('when the error is a bug, a constraint, a full disk or a missing file, then it is none of them (500, 409, 507 as before)', () => {
    for (const code of ['23505', '42P01', '22012', 'SQLITE_FULL', 'SQLITE_CONSTRAINT_UNIQUE', 'ERR_X'])
      expect(dbErrorKind(withCode(code)), code).to.equal(undefined);
    expect(dbErrorKind(withCode('ENOENT', { syscall: 'open' }))).to.equal(undefined);
    expect(dbErrorKind(new Error('something else'))).to.equal(undefined);
    expect(dbErrorKind(undefined)).to.equal(undefined);
    expect(dbErrorKind('57P01')).to.equal(undefined);
  });

  it("when PostgreSQL's disk is full (53100), then the answer is 507 naming the database server's disk, as SQLite's full disk is 507", () => {
    const err = withCode('53100');
    expect(isDatabaseDiskFull(err)).to.equal(true);
    expect(dbErrorKind(err)).to.equal(undefined);
    const answer = { status: 0, body: undefined as unknown };
    const res = {
      locals: {},
      headersSent: false,
      setHeader: () => undefined,
      status(code: number) {
        answer.status = code;
        return this;
      },
      json(body: unknown) {
        answer.body = body;
        return this;
      },
    };
    errorHandler(silentLogger)(err, {} as never, res as never, () => undefined);
    expect(answer).to.deep.equal({
      status: 507,
      body: {
        name: 'InsufficientStorage',
        message: "The database server's disk is full: the change was not saved. Reads go on; writes succeed again once it has space",
        code: 507,
      },
    });
  });
});
