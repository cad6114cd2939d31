#!/usr/bin/env node
// The floor of the HTTP benchmark on PostgreSQL (issue 32): scripts/bench-floor.mjs with the `pg` driver in
// place of better-sqlite3, the same three requests, the same work per request, the same answers:
//   node scripts/bench-floor-pg.mjs --database-url URL --data-dir DIR [--port 0] [--host 127.0.0.1] [--pool 10] [--prepared]
// prints "listening on http://HOST:PORT" once it accepts connections. DIR only gives the JWT secret
// (DIR/jwt-secret); the rows are those of URL, a database holding TARS's users, webhooks, phone_numbers,
// queues and queue_day_stats (scripts/bench-pg-floors.ts copies them there from a data directory).
//
// Per request, as bench-floor.mjs: the JWT verified (HS256, the secret as a KeyObject), the token's user read
// by id for its tenant and token_version, one SQL statement for the rows, JSON out; nothing else.
// The statements are sent as Kysely's PostgreSQL driver sends them (pool.query(text, values): parsed and
// planned by the server on every run); `--prepared` names them instead (pg prepares a named statement once per
// connection), to show what a statement cache would be worth on PostgreSQL.
//
// What differs from the SQLite floor's SQL, and why (the same differences TARS's queries meet):
// - camelCase aliases are quoted: PostgreSQL folds unquoted names to lower case;
// - the queue ids are one int[] parameter (`= ANY($2)`) where SQLite reads a JSON list with json_each;
// - count() and sum() of integers are bigint or numeric, which pg returns as strings: the type parsers below
//   make them numbers, as TARS's PostgreSQL dialect would (every such value of TARS is below 2^53).
import { createSecretKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import express from 'express';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { chicagoMidnight } from './floor-midnight.mjs';

const { values: opts } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    'data-dir': { type: 'string' },
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    pool: { type: 'string', default: '10' },
    prepared: { type: 'boolean', default: false },
  },
});
const dataDir = opts['data-dir'];
if (!dataDir || !opts['database-url']) throw new Error('--database-url URL and --data-dir DIR are required');

pg.types.setTypeParser(pg.types.builtins.INT8, Number);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, Number);

const key = createSecretKey(Buffer.from(readFileSync(join(dataDir, 'jwt-secret'), 'utf8').trim(), 'utf8'));
const pool = new pg.Pool({ connectionString: opts['database-url'], max: Number(opts.pool) });

/** A statement run with its values: named (prepared once per connection) with --prepared, else parsed per run. */
const statement = (name, text) => (opts.prepared ? (values) => pool.query({ name, text, values }) : (values) => pool.query(text, values));

const userById = statement('user', 'SELECT tenant_id, token_version FROM users WHERE id = $1');
const webhookById = statement(
  'webhook',
  'SELECT id, tenant_id AS "tenantId", type, url, username, password, authtoken FROM webhooks WHERE id = $1 AND tenant_id = $2',
);
const phoneNumberPage = statement(
  'phone-numbers',
  `SELECT id, number, coalesce(registered_cnam, '') AS "registeredCNAM", tenant_id AS "tenantId", branch_id AS "branchId",
    coalesce(di_comment_name, '') AS "diCommentName", coalesce(recording, '') AS recording, coalesce(fax, '') AS fax,
    coalesce(fax_email, '') AS "faxEmail", CAST(coalesce(fax_store, 0) AS TEXT) AS "faxStore", coalesce(name_prefix, '') AS "namePrefix",
    CAST(coalesce(unconditional_status, 0) AS TEXT) AS "unconditionalStatus", coalesce(email_recording, '') AS "emailRecording",
    coalesce(store_and_forward_number, '') AS "storeAndForwardNumber", sms_ext_id AS "smsExtId", count(*) OVER () AS total
  FROM phone_numbers WHERE tenant_id = $1 ORDER BY id LIMIT 50`,
);
const dailyStats = statement(
  'daily-stats',
  `SELECT d.queue_id AS "queueId", q.name AS "queueName", d.day_start AS "dayStart", sum(d.inbound) AS "totalInbound",
    sum(d.answered) AS "inboundAnswered", sum(d.under30) AS "answeredUnder30", sum(d.talk) AS "talkTime", sum(d.wait_sum) AS "waitTime",
    min(d.wait_min) AS "minWaitTime", max(d.wait_max) AS "maxWaitTime", sum(d.ring) AS "ringTime", sum(d.abandons) AS abandons,
    sum(d.abandons_u10) AS "abandonsUnder10", sum(d.exit_timeout) AS "exitTimeout", sum(d.exit_key) AS "exitKeypress",
    sum(d.rna) AS "noAnswer", sum(d.rna_ms) / 1000.0 AS "noAnswerRingTime", sum(d.cb_req) AS "callbackRequests",
    sum(d.cb_ok) AS "callbackSuccess", sum(d.cb_fail) AS "callbackFailed", sum(d.ob_total) AS "totalOutbound",
    sum(d.ob_answered) AS "outboundAnswered", sum(d.ob_talk) AS "outboundTalkTime"
  FROM queue_day_stats d JOIN queues q ON q.id = d.queue_id
  WHERE q.tenant_id = $1 AND d.queue_id = ANY($2::bigint[]) AND d.day_start >= $3 AND d.day_start < $4
  GROUP BY d.queue_id, q.name, d.day_start ORDER BY d.queue_id, d.day_start`,
);

/** The tenant of the token's user, or null: what TARS's authentication decides, without the rest. */
async function callerTenant(req) {
  const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  if (!m) return null;
  let claims;
  try {
    claims = jwt.verify(m[1], key, { algorithms: ['HS256'] });
  } catch {
    return null;
  }
  const user = (await userById([claims.uid])).rows[0];
  return user && user.token_version === claims.ver ? user.tenant_id : null;
}

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(express.json());

app.get('/v2/webhooks/:id', async (req, res) => {
  const tenant = await callerTenant(req);
  if (tenant === null) return res.sendStatus(401);
  const row = (await webhookById([Number(req.params.id), tenant])).rows[0];
  if (!row) return res.sendStatus(404);
  res.json(row);
});

app.get('/v2/admin/phone-numbers/', async (req, res) => {
  const tenant = await callerTenant(req);
  if (tenant === null) return res.sendStatus(401);
  if (Number(req.query.tenantId) !== tenant) return res.sendStatus(403);
  const rows = (await phoneNumberPage([tenant])).rows;
  const total = rows[0]?.total ?? 0;
  for (const r of rows) delete r.total;
  res.json({ records: rows, page: 1, maxPage: Math.max(1, Math.ceil(total / 50)), total });
});

app.post('/v2/reporting/queues/stats', async (req, res) => {
  const tenant = await callerTenant(req);
  if (tenant === null) return res.sendStatus(401);
  const { queueId, startDate, endDate } = req.body;
  const end = new Date(Date.parse(`${endDate}T00:00:00Z`) + 86400_000).toISOString().slice(0, 10);
  const results = (await dailyStats([tenant, queueId, chicagoMidnight(startDate), chicagoMidnight(end)])).rows;
  res.status(201).json({ queueIds: queueId, results });
});

const server = app.listen(Number(opts.port), opts.host, () => {
  process.stdout.write(`listening on http://${opts.host}:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
