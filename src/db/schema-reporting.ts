import type { Generated } from 'kysely';

/**
 * The tables of the imported PBX logs (db/migrations/2026-11-23T1200_pbx_logs.ts) that are read through
 * Kysely. The import writes them, and the per-hour tables, with the statements of src/modules/pbx-logs/pbx-logs.repository.ts.
 */
export interface ReportingTables {
  agents: AgentTable;
  agent_sessions: AgentIntervalTable;
  agent_pauses: AgentIntervalTable & { reason: string };
  cdr_calls: CdrCallTable;
  import_line_counts: ImportLineCountTable;
  pbx_imports: PbxImportTable;
  queue_day_stats: QueueDayStatsTable;
  queue_hour_stats: QueueHourStatsTable;
  queue_outbound_hour: QueueOutboundHourTable;
}

/** Lines of all imports so far, by log kind (queue-log, cdr), outcome and skip reason ('' unless skipped). */
export interface ImportLineCountTable {
  kind: string;
  outcome: 'imported' | 'duplicate' | 'skipped';
  reason: string;
  lines: number;
}

/** One import of PBX log lines (db/migrations/2026-11-27T1300_pbx_imports.ts). */
export interface PbxImportTable {
  id: Generated<number>;
  /** The tenant it was scoped to; null: the whole installation (the CLI). */
  tenant_id: number | null;
  source: 'file' | 'follow' | 'ingest' | 'again';
  kind: 'queue_log' | 'cdr';
  /** The file read on the server; null for lines sent over HTTP. */
  path: string | null;
  timezone: string;
  /** JSON list of Master.csv column names (`--columns`), or null. */
  cdr_columns: string | null;
  again_of: number | null;
  started_at: number;
  finished_at: number;
  /** JSON: the import's summary (schemas/import-summary.json). */
  summary: string;
}

export interface AgentTable {
  id: Generated<number>;
  peer: string;
}

export interface AgentIntervalTable {
  id: Generated<number>;
  queue_id: number;
  agent: number;
  start_at: number;
  end_at: number | null;
}

export interface CdrCallTable {
  id: Generated<number>;
  tenant_id: number;
  start_at: number;
  answer_at: number | null;
  end_at: number;
  line_key: number;
  unique_id: string;
  direction: 'inbound' | 'outbound' | 'internal';
  /** 1 when the row is an outbound call of an agent in the sense of reporting.md R9. */
  outbound_r9: number;
  /** 1 when lastapp was Queue. */
  via_queue: number;
  source: string;
  destination: string;
  source_digits: string;
  destination_digits: string;
  caller_name: string;
  /** The agents the channels resolved to (reporting.md R14); src_raw/dst_raw: the channels' own names when they differ. */
  src_agent: number;
  dst_agent: number;
  src_raw: number | null;
  dst_raw: number | null;
  src_ext: number | null;
  dst_ext: number | null;
  extension: number | null;
  queue_id: number | null;
  duration: number;
  billsec: number;
  disposition: string;
  /** The record's lastapp (NULL for rows imported before it was kept, unless Queue or an R9 Dial). */
  last_app: string | null;
  /** The match key of its dst (callerKey, digits.ts), NULL under 3 digits. */
  destination_key: string | null;
}

/** Sums of the queue statistics (reporting.md R5) over one local day of the queue's tenant's timezone; null: no row counted. */
export interface QueueDayStatsTable {
  queue_id: number;
  day_start: number;
  day_end: number;
  inbound: number | null;
  answered: number | null;
  talk: number | null;
  under30: number | null;
  wait_sum: number | null;
  wait_n: number | null;
  wait_min: number | null;
  wait_max: number | null;
  ring: number | null;
  abandons: number | null;
  abandons_u10: number | null;
  exit_timeout: number | null;
  exit_key: number | null;
  rna: number | null;
  rna_ms: number | null;
  cb_req: number | null;
  cb_ok: number | null;
  cb_fail: number | null;
  ob_total: number;
  ob_answered: number;
  ob_talk: number;
}

/** Sums of the queue statistics (reporting.md R5) over one hour (epoch hour) of a queue's lines, by their anchor. */
export interface QueueHourStatsTable {
  queue_id: number;
  hour: number;
  inbound: number;
  answered: number;
  talk: number;
  under30: number;
  wait_sum: number;
  wait_n: number;
  wait_min: number | null;
  wait_max: number | null;
  ring: number;
  abandons: number;
  abandons_u10: number;
  exit_timeout: number;
  exit_key: number;
  rna: number;
  rna_ms: number;
  cb_req: number;
  cb_ok: number;
  cb_fail: number;
}

/** R9's outbound figures of a queue's members over one hour, by the call's start. */
export interface QueueOutboundHourTable {
  queue_id: number;
  hour: number;
  total: number;
  answered: number;
  talk: number;
}
