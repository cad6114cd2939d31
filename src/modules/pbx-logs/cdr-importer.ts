import {
  callerNameOf,
  CDR_CSV_LAYOUT,
  CDR_SKIPS,
  channelAgent,
  isHeaderRow,
  layoutOf,
  parseCdrLine,
  splitCsvLine,
  type CdrLayout,
  type CdrRecord,
} from './cdr-line';
import { callerKey } from './digits';
import { rawOrNull, type PbxDirectory } from './directory';
import { ImportRefused, ImportRun, type ImportOptions, type StoredChunk } from './import-run';
import type { ImportSummary } from './import-summary';
import type { CallRow, ImportStore } from './import-store';
import { processPending } from './pending';
import { importStore, type ImportTarget } from './stores';

const CDR_NO_TENANT = 'no extension or queue of a tenant matches';
const CDR_AMBIGUOUS = 'extensions of several tenants match';

/** A CDR row placed in a tenant, with what the reports and the calls report read from it. */
export interface PlacedCall {
  tenantId: number;
  queueId: number | null;
  srcExt: number | null;
  dstExt: number | null;
  direction: 'inbound' | 'outbound' | 'internal';
  /** reporting.md R9: lastapp Dial, placed by an extension of the tenant, to a number that is not one. */
  outboundR9: boolean;
}

/**
 * Which tenant a CDR row belongs to, and how it is classified (README "Reports"):
 * - tenant: the queue the row passed through (lastapp Queue; the queue is Queue()'s first argument, else
 *   dst), else the tenant of the extension the channel's agent names (R14), else the dstchannel's; a row
 *   matching extensions of several tenants, or nothing, is skipped;
 * - direction: inbound when the channel is not an extension of the tenant (a trunk); else internal when the
 *   other side is (dstchannel's agent, dst as an extension number, or a queue), else outbound.
 */
export function placeCall(r: CdrRecord, directory: PbxDirectory): PlacedCall | string {
  const srcPeer = channelAgent(r.channel);
  const dstPeer = channelAgent(r.dstChannel);
  const queue = r.lastApp === 'Queue' ? directory.queueByLogName(r.lastData.split(',')[0] || r.dst) : undefined;
  let tenantId = queue?.tenantId;
  if (tenantId === undefined) {
    // By the agents' channels; failing those (voicemail: no destination channel), by the extension dialled.
    const bySrc = directory.tenantsOfAgent(srcPeer);
    const byDst = bySrc.length > 0 ? bySrc : directory.tenantsOfAgent(dstPeer);
    const tenants = byDst.length > 0 ? byDst : directory.tenantsOfExtNumber(r.dst);
    if (tenants.length > 1) return CDR_AMBIGUOUS;
    tenantId = tenants[0];
  }
  if (tenantId === undefined) return CDR_NO_TENANT;
  const srcExt = directory.extensionOf(tenantId, srcPeer)?.extNum ?? null;
  const dstIsExt = directory.extensionByNumber(tenantId, r.dst);
  const dstExt = directory.extensionOf(tenantId, dstPeer)?.extNum ?? dstIsExt?.extNum ?? null;
  const direction = srcExt === null ? 'inbound' : dstExt !== null || queue ? 'internal' : 'outbound';
  const outboundR9 = r.lastApp === 'Dial' && srcExt !== null && !dstIsExt;
  return { tenantId, queueId: queue?.id ?? null, srcExt, dstExt, direction, outboundR9 };
}

const digitsOf = (s: string) => s.replace(/\D+/g, '');

const HEADER_ROW = 'header row';

const shown = (row: string) => JSON.stringify(row.length > 200 ? `${row.slice(0, 200)}…` : row);

/**
 * Imports Master.csv lines (reporting.md R8, R16, R17), like QueueLogImporter: one transaction per chunk.
 * The layout of a file is decided by its first row that is not blank: `--columns` when given, a header row's
 * names, else cdr_csv's order. Times are the PBX's wall clock, read in the import's zone.
 */
export class CdrImporter {
  private readonly run: ImportRun;
  private readonly store: ImportStore;
  /** Of the current file: its layout once decided, and what its first chunk showed about it. */
  private file = { layout: undefined as CdrLayout | undefined, checked: false, firstRow: '', rows: 0, unreadable: 0, read: 0 };

  constructor(target: ImportTarget, opts: ImportOptions = {}) {
    this.store = importStore(target);
    this.run = new ImportRun(this.store, opts);
  }

  get summary(): ImportSummary {
    return this.run.summary;
  }

  newFile(): void {
    this.run.newFile();
    this.file = { layout: undefined, checked: false, firstRow: '', rows: 0, unreadable: 0, read: 0 };
  }

  async importLines(lines: readonly string[]): Promise<void> {
    await this.run.chunk(
      () => this.storeLines(lines),
      () => undefined,
    );
  }

  /** The id of this import's record (ImportOptions.record), once it finished. */
  get recordId(): number | undefined {
    return this.run.recorded;
  }

  async finish(): Promise<ImportSummary> {
    await processPending(this.store);
    await this.run.recordOutcome();
    return this.run.summary;
  }

  private async storeLines(lines: readonly string[]): Promise<StoredChunk> {
    const items: { id: number; tenantId: number; record: CdrRecord }[] = [];
    for (const line of lines) {
      const stored = await this.storeLine(line);
      if (stored && this.run.collects) items.push(stored);
    }
    this.checkLayout();
    return { kind: 'cdr', items };
  }

  /** After the first chunk with rows: refuses the file when not one of them could be read in its layout. */
  private checkLayout(): void {
    const f = this.file;
    if (f.checked || f.rows === 0) return;
    f.checked = true;
    if (f.read > 0 || f.unreadable < f.rows) return;
    const layout = f.layout ?? CDR_CSV_LAYOUT;
    const how = layout === CDR_CSV_LAYOUT ? "cdr_csv's column order (no header row)" : 'the columns named';
    throw new ImportRefused(
      `No row of this file can be read as a Master.csv in ${how}: expected the columns ${layout.names.join(', ')}, ` +
        `with start as YYYY-MM-DD HH:MM:SS; the first row held ${shown(f.firstRow)}. ` +
        'Name the columns with --columns a,b,c (tars import cdr) or give the file a header row; nothing was imported.',
    );
  }

  /** The layout, decided by the file's first row that is not blank; true when that row is a header (not a call). */
  private decideLayout(line: string): boolean {
    const columns = this.run.opts.cdrColumns;
    const fields = splitCsvLine(line);
    const header = fields !== null && isHeaderRow(fields);
    const layout = columns ? layoutOf(columns) : header ? layoutOf(fields) : CDR_CSV_LAYOUT;
    if (typeof layout === 'string') throw new ImportRefused(`The header row cannot be read: ${layout}; the row was ${shown(line)}.`);
    this.file.layout = layout;
    return header;
  }

  private async storeLine(line: string): Promise<{ id: number; tenantId: number; record: CdrRecord } | null> {
    const { summary, directory } = this.run;
    summary.read++;
    const f = this.file;
    if (f.layout === undefined && line.trim() !== '' && this.decideLayout(line)) {
      summary.skip(HEADER_ROW);
      return null;
    }
    const r = parseCdrLine(line, f.layout, this.run.zone);
    if (typeof r === 'string') {
      if (r !== CDR_SKIPS.blank) {
        if (f.rows++ === 0) f.firstRow = line;
        f.unreadable++;
      }
      summary.skip(r);
      return null;
    }
    if (f.rows++ === 0) f.firstRow = line;
    f.read++;
    summary.wallTimes = true;
    const call = placeCall(r, directory);
    if (typeof call === 'string') {
      summary.skip(call);
      return null;
    }
    const src = await directory.resolveAgent(call.tenantId, channelAgent(r.channel));
    const dst = await directory.resolveAgent(call.tenantId, channelAgent(r.dstChannel));
    const agents = { src: src.agent, dst: dst.agent, srcRaw: rawOrNull(src), dstRaw: rawOrNull(dst) };
    const id = await this.store.insertCall(callRow(r, call, this.run.keys.keyOf(line, r.start), agents));
    if (id === null) {
      summary.duplicates++;
      return null;
    }
    summary.imported++;
    if (call.outboundR9) for (const queueId of directory.queuesOfTenant(call.tenantId)) this.run.outboundChanged(queueId, r.start);
    return { id, tenantId: call.tenantId, record: r };
  }
}

function callRow(
  r: CdrRecord,
  call: PlacedCall,
  lineKey: number,
  agents: { src: number; dst: number; srcRaw: number | null; dstRaw: number | null },
): CallRow {
  return {
    tenant_id: call.tenantId,
    start_at: r.start,
    answer_at: r.answer,
    end_at: r.end,
    line_key: lineKey,
    unique_id: r.uniqueId,
    direction: call.direction,
    outbound_r9: call.outboundR9 ? 1 : 0,
    via_queue: r.lastApp === 'Queue' ? 1 : 0,
    source: r.src,
    destination: r.dst,
    source_digits: digitsOf(r.src),
    destination_digits: digitsOf(r.dst),
    caller_name: callerNameOf(r.clid),
    src_agent: agents.src,
    dst_agent: agents.dst,
    src_raw: agents.srcRaw,
    dst_raw: agents.dstRaw,
    src_ext: call.srcExt,
    dst_ext: call.dstExt,
    extension: extensionOfCall(call),
    queue_id: call.queueId,
    duration: r.duration,
    billsec: r.billsec,
    disposition: r.disposition,
    last_app: r.lastApp,
    destination_key: callerKey(r.dst),
  };
}

/** The extension a call is reported under: the one called for an inbound call, else the one calling. */
export const extensionOfCall = (call: PlacedCall): number | null => (call.direction === 'inbound' ? call.dstExt : call.srcExt);
