import { openDatabase } from '../../src/db/database';
import { isPostgresUrl, openPostgres } from '../../src/db/engine';
import { silentLogger } from '../../src/log';
import { Dispatcher } from '../../src/modules/webhooks/dispatcher';

/*
 * One instance's webhook dispatcher as a process of its own (test/e2e/webhook-claims.test.ts): its own connection
 * (a PostgreSQL pool, or a second connection to the SQLite file), draining the outbox every 20 ms as `tars serve`'s
 * job does every second, until it is killed. Arguments: the database (URL or SQLite file), the attempt timeout in
 * ms (the lease is three of them), and an offset in ms added to the clock (an instance whose clock is past the
 * others' leases, without the test waiting for them). It writes "ready" once its connection is open.
 */
const [target = '', timeout = '5000', offset = '0'] = process.argv.slice(2);
const database = isPostgresUrl(target) ? openPostgres(target, { poolSize: 4 }) : openDatabase(target);
const dispatcher = new Dispatcher({
  db: database.db,
  clock: { now: () => Date.now() + Number(offset) },
  log: silentLogger,
  config: {
    webhookAllow: ['127.0.0.1'],
    webhookDeny: [],
    webhookAttempts: 5,
    webhookTimeoutMs: Number(timeout),
    webhookRetryBaseMs: 100,
  },
});
let stopping = false;
process.on('SIGTERM', () => (stopping = true));
void (async () => {
  await database.db.selectFrom('webhooks').select('id').limit(1).execute();
  process.stdout.write('ready\n');
  while (!stopping) {
    await dispatcher.drain();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await database.close();
})();
