#!/usr/bin/env node
// The floor of the HTTP benchmark (scripts/bench-http.ts): a bare Express 5 app that does, per request,
// only the work at the core of the three TARS routes it is compared with, on the same SQLite file:
//   node scripts/bench-floor.mjs --data-dir DIR [--port 0] [--host 127.0.0.1]
// prints "listening on http://HOST:PORT" once it accepts connections.
//
// What TARS does per authenticated request and this app repeats (src/access/caller.ts, src/modules/auth/tokens.ts):
//   1. verifies the bearer JWT with jsonwebtoken, HS256 pinned, the secret of DIR/jwt-secret as a KeyObject (at
//      every request; TARS verifies a token's signature when it first sees it and then checks only its expiry);
//   2. reads the token's user by id and compares its token_version with the token's `ver` (that is how a
//      token dies when its user changes password or is deleted): here one prepared
//      `SELECT tenant_id, token_version FROM users WHERE id = ?`; the user's tenant is the scope (an
//      account admin, the benchmark's caller, reaches its own tenant only);
// then one prepared SQL statement for the same rows, and JSON out. Nothing else: no request id, no log,
// no metrics, no schema validation, no permission table, no error body of decisions.md §2 (a bare 401/404).
//   GET  /v2/webhooks/:id                          one row of webhooks, in the caller's tenant
//   GET  /v2/admin/phone-numbers/?tenantId=N       the first page (50) of the tenant's numbers with the total
//                                                  (a window count), the list record's fields shaped in SQL
//   POST /v2/reporting/queues/stats                body {queueId, startDate, endDate} (dates YYYY-MM-DD), daily:
//                                                  one aggregate over the stored per-day sums (queue_day_stats)
//                                                  of the caller's queues; local days of America/Chicago
//                                                  (the timezone of the fixture's tenant 1)
import { createSecretKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import express from 'express';
import jwt from 'jsonwebtoken';
import { chicagoMidnight } from './floor-midnight.mjs';

const { values: opts } = parseArgs({
  options: { 'data-dir': { type: 'string' }, port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' } },
});
const dataDir = opts['data-dir'];
if (!dataDir) throw new Error('--data-dir DIR is required');

const key = createSecretKey(Buffer.from(readFileSync(join(dataDir, 'jwt-secret'), 'utf8').trim(), 'utf8'));
const sqlite = new Database(join(dataDir, 'tars.db'));
sqlite.pragma('busy_timeout = 10000');

const userById = sqlite.prepare('SELECT tenant_id, token_version FROM users WHERE id = ?');
const webhookById = sqlite.prepare(
  'SELECT id, tenant_id AS tenantId, type, url, username, password, authtoken FROM webhooks WHERE id = ? AND tenant_id = ?',
);
const phoneNumberPage = sqlite.prepare(`
  SELECT id, number, coalesce(registered_cnam, '') AS registeredCNAM, tenant_id AS tenantId, branch_id AS branchId,
    coalesce(di_comment_name, '') AS diCommentName, coalesce(recording, '') AS recording, coalesce(fax, '') AS fax,
    coalesce(fax_email, '') AS faxEmail, CAST(coalesce(fax_store, 0) AS TEXT) AS faxStore, coalesce(name_prefix, '') AS namePrefix,
    CAST(coalesce(unconditional_status, 0) AS TEXT) AS unconditionalStatus, coalesce(email_recording, '') AS emailRecording,
    coalesce(store_and_forward_number, '') AS storeAndForwardNumber, sms_ext_id AS smsExtId, count(*) OVER () AS total
  FROM phone_numbers WHERE tenant_id = ? ORDER BY id LIMIT 50`);
const dailyStats = sqlite.prepare(`
  SELECT d.queue_id AS queueId, q.name AS queueName, d.day_start AS dayStart, sum(d.inbound) AS totalInbound,
    sum(d.answered) AS inboundAnswered, sum(d.under30) AS answeredUnder30, sum(d.talk) AS talkTime, sum(d.wait_sum) AS waitTime,
    min(d.wait_min) AS minWaitTime, max(d.wait_max) AS maxWaitTime, sum(d.ring) AS ringTime, sum(d.abandons) AS abandons,
    sum(d.abandons_u10) AS abandonsUnder10, sum(d.exit_timeout) AS exitTimeout, sum(d.exit_key) AS exitKeypress,
    sum(d.rna) AS noAnswer, sum(d.rna_ms) / 1000.0 AS noAnswerRingTime, sum(d.cb_req) AS callbackRequests,
    sum(d.cb_ok) AS callbackSuccess, sum(d.cb_fail) AS callbackFailed, sum(d.ob_total) AS totalOutbound,
    sum(d.ob_answered) AS outboundAnswered, sum(d.ob_talk) AS outboundTalkTime
  FROM queue_day_stats d JOIN queues q ON q.id = d.queue_id
  WHERE q.tenant_id = ? AND d.queue_id IN (SELECT value FROM json_each(?)) AND d.day_start >= ? AND d.day_start < ?
  GROUP BY d.queue_id, d.day_start ORDER BY d.queue_id, d.day_start`);

/** The tenant of the token's user, or null: what TARS's authentication decides, without the rest. */
function callerTenant(req) {
  const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  if (!m) return null;
  try {
    const claims = jwt.verify(m[1], key, { algorithms: ['HS256'] });
    const user = userById.get(claims.uid);
    return user && user.token_version === claims.ver ? user.tenant_id : null;
  } catch {
    return null;
  }
}

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(express.json());

app.get('/v2/webhooks/:id', (req, res) => {
  const tenant = callerTenant(req);
  if (tenant === null) return res.sendStatus(401);
  const row = webhookById.get(Number(req.params.id), tenant);
  if (!row) return res.sendStatus(404);
  res.json(row);
});

app.get('/v2/admin/phone-numbers/', (req, res) => {
  const tenant = callerTenant(req);
  if (tenant === null) return res.sendStatus(401);
  if (Number(req.query.tenantId) !== tenant) return res.sendStatus(403);
  const rows = phoneNumberPage.all(tenant);
  const total = rows[0]?.total ?? 0;
  for (const r of rows) delete r.total;
  res.json({ records: rows, page: 1, maxPage: Math.max(1, Math.ceil(total / 50)), total });
});

app.post('/v2/reporting/queues/stats', (req, res) => {
  const tenant = callerTenant(req);
  if (tenant === null) return res.sendStatus(401);
  const { queueId, startDate, endDate } = req.body;
  const end = new Date(Date.parse(`${endDate}T00:00:00Z`) + 86400_000).toISOString().slice(0, 10);
  const results = dailyStats.all(tenant, JSON.stringify(queueId), chicagoMidnight(startDate), chicagoMidnight(end));
  res.status(201).json({ queueIds: queueId, results });
});

const server = app.listen(Number(opts.port), opts.host, () => {
  process.stdout.write(`listening on http://${opts.host}:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
