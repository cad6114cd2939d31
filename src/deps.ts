import type { Clock } from './clock';
import type { Config } from './config';
import type { Db } from './db/database';
import type { AnyDatabase } from './db/engine';
import type { Validator } from './validation/validation';
import type { Logger } from './log';
import type { Metrics } from './metrics/metrics';
import type { Mailer } from './mail/mailer';
import type { SmsGateway } from './mail/sms';
import type { TokenService } from './modules/auth/tokens';
import type { LiveQueues } from './modules/live-queues/live-queues';
import type { SessionResolver } from './http/request-caller';

/** What the app and the services are built from; tests build their own (src/app.ts, test/helpers). */
export interface AppDeps {
  readonly config: Config;
  /** SQLite's file, or PostgreSQL when config.databaseUrl is set. */
  readonly database: AnyDatabase;
  /** Kysely over the database (database.db): what the services' deps name. */
  readonly db: Db;
  readonly log: Logger;
  readonly tokens: TokenService;
  readonly validator: Validator;
  readonly mailer: Mailer;
  readonly sms: SmsGateway;
  readonly clock: Clock;
  /** Prometheus metrics of this server (src/metrics): modules register their own here. */
  readonly metrics: Metrics;
  /** The live queue state of the PBXs of TARS_AMI_URL (src/modules/live-queues); started by `tars serve`. */
  readonly live: LiveQueues;
  /** The console's sign-in sessions (src/modules/console): a request's caller when it sends their cookie. */
  readonly sessions: SessionResolver;
}
