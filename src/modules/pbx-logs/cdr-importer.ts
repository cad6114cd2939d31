import type { Sqlite } from '../../db/database';
import { callerNameOf, channelAgent, parseCdrLine, type CdrRecord } from './cdr-line';
import { rawOrNull, type PbxDirectory } from './directory';
import { ImportRun, type ImportOptions, type StoredChunk } from './import-run';
import type { ImportSummary } from './import-summary';
import { pbxLogs, type CallRow, type PbxLogs } from './pbx-logs.repository';
import { processPending } from './pending';

const CDR_NO_TENANT = 'no extension or queue of a tenant matches';
const CDR_AMBIGUOUS = 'extensions of several tenants match';

/** A CDR row placed in a tenant, with what the reports and the calls report read from it. */
interface PlacedCall {
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
function placeCall(r: CdrRecord, directory: PbxDirectory): PlacedCall | string {
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

/** Imports Master.csv lines (reporting.md R8), like QueueLogImporter: one transaction per chunk. */
export class CdrImporter {
  private readonly run: ImportRun;
  private readonly repo: PbxLogs;

  constructor(
    private readonly sqlite: Sqlite,
    opts: ImportOptions = {},
  ) {
    this.run = new ImportRun(sqlite, opts);
    this.repo = pbxLogs(sqlite);
  }

  get summary(): ImportSummary {
    return this.run.summary;
  }

  newFile(): void {
    this.run.newFile();
  }

  importLines(lines: readonly string[]): void {
    this.run.chunk(
      () => this.store(lines),
      () => undefined,
    );
  }

  finish(): ImportSummary {
    processPending(this.sqlite);
    return this.run.summary;
  }

  private store(lines: readonly string[]): StoredChunk {
    const items: { id: number; tenantId: number; record: CdrRecord }[] = [];
    for (const line of lines) {
      const stored = this.storeLine(line);
      if (stored && this.run.collects) items.push(stored);
    }
    return { kind: 'cdr', items };
  }

  private storeLine(line: string): { id: number; tenantId: number; record: CdrRecord } | null {
    const { summary, directory } = this.run;
    summary.read++;
    const r = parseCdrLine(line);
    if (typeof r === 'string') {
      summary.skip(r);
      return null;
    }
    const call = placeCall(r, directory);
    if (typeof call === 'string') {
      summary.skip(call);
      return null;
    }
    const src = directory.agentIds(call.tenantId, channelAgent(r.channel));
    const dst = directory.agentIds(call.tenantId, channelAgent(r.dstChannel));
    const agents = { src: src.agent, dst: dst.agent, srcRaw: rawOrNull(src), dstRaw: rawOrNull(dst) };
    const result = this.repo.insertCall.run(callRow(r, call, this.run.keys.keyOf(line, r.start), agents));
    if (result.changes === 0) {
      summary.duplicates++;
      return null;
    }
    summary.imported++;
    if (call.outboundR9) for (const queueId of directory.queuesOfTenant(call.tenantId)) this.run.outboundChanged(queueId, r.start);
    return { id: Number(result.lastInsertRowid), tenantId: call.tenantId, record: r };
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
    extension: call.direction === 'inbound' ? call.dstExt : call.srcExt,
    queue_id: call.queueId,
    duration: r.duration,
    billsec: r.billsec,
    disposition: r.disposition,
  };
}
