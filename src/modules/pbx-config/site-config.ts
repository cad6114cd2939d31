/**
 * What a site has, read from its Asterisk configuration directory: queues with their static members, SIP
 * endpoints, and the extensions those name, each with the names reporting.md R14 needs to recognise it in logs.
 * Pure: reads files, touches no database. The files read are the ones Asterisk reads (queues.conf, pjsip.conf,
 * sip.conf, extensions.conf) with whatever they include; a file nothing includes is not read, as on the PBX.
 */
import fs from 'node:fs';
import { AsteriskConfigError, type ConfFile, type ConfProblem, type ReadOptions, readAsteriskConfig } from './asterisk-conf';
import {
  type DialplanHint,
  type QueueMemberLine,
  type QueueStrategy,
  type SipEndpoint,
  dialplanHints,
  pjsipEndpoints,
  queueSections,
  sipPeers,
} from './site-sources';
import { buildExtensions } from './site-extensions';
import type { SiteExtension, SiteNote, SiteQueueMember } from './site-sources';

export type { DialplanHint, QueueMemberLine, QueueStrategy, SipEndpoint, SiteExtension, SiteNote, SiteQueueMember };

export interface SiteQueue {
  /** The name Asterisk writes into queue_log: the section name of queues.conf, as written. */
  logName: string;
  /** queues.conf has no display name: the section name. */
  name: string;
  /** The section name when it is all digits (FreePBX names queues by their number), else null. */
  number: string | null;
  strategy: QueueStrategy;
  /** queues.conf's `servicelevel` when greater than 0 (seconds), else null: reporting.md R19. */
  serviceLevelSeconds: number | null;
  members: SiteQueueMember[];
  file: string;
  line: number;
}

export interface SiteConfig {
  /** Every file read, per root file, as named in errors (relative to the configuration directory). */
  files: string[];
  queues: SiteQueue[];
  extensions: SiteExtension[];
  endpoints: SipEndpoint[];
  hints: DialplanHint[];
  notes: SiteNote[];
}

/** The root files Asterisk's modules load, in the order they are read here. */
export const ROOT_FILES = ['queues.conf', 'pjsip.conf', 'sip.conf', 'extensions.conf'] as const;

/**
 * Reads the site's configuration from `configDir`. Throws AsteriskConfigError (400, every problem with file
 * and line) when a file cannot be read faithfully or queues.conf is missing.
 */
export function readSiteConfig(configDir: string, options: ReadOptions = {}): SiteConfig {
  if (!fs.existsSync(configDir) || !fs.statSync(configDir).isDirectory()) {
    throw new AsteriskConfigError([
      { file: configDir, line: 0, reason: "no such directory (give Asterisk's configuration directory, e.g. /etc/asterisk)" },
    ]);
  }
  const problems: ConfProblem[] = [];
  const [queuesConf, pjsipConf, sipConf, extensionsConf] = ROOT_FILES.map((name) => readCollecting(configDir, name, options, problems));
  if (!queuesConf && problems.length === 0) {
    problems.push({ file: 'queues.conf', line: 0, reason: "not found in this directory: is it Asterisk's configuration directory?" });
  }
  const queueLines = queueSections(queuesConf ?? null, problems);
  const endpoints = [...pjsipEndpoints(pjsipConf ?? null), ...sipPeers(sipConf ?? null)];
  const hints = dialplanHints(extensionsConf ?? null);
  if (problems.length > 0) throw new AsteriskConfigError(problems);
  const built = buildExtensions(queueLines, endpoints, hints);
  const queues = queueLines.map((q, i) => ({
    logName: q.logName,
    name: q.logName,
    number: /^\d+$/.test(q.logName) ? q.logName : null,
    strategy: q.strategy,
    serviceLevelSeconds: q.serviceLevel,
    members: built.members[i] ?? [],
    file: q.file,
    line: q.line,
  }));
  const files = [queuesConf, pjsipConf, sipConf, extensionsConf].flatMap((c) => c?.files ?? []);
  return { files, queues, extensions: built.extensions, endpoints, hints, notes: built.notes };
}

function readCollecting(dir: string, name: string, options: ReadOptions, problems: ConfProblem[]): ConfFile | null {
  try {
    return readAsteriskConfig(dir, name, options);
  } catch (err) {
    if (!(err instanceof AsteriskConfigError)) throw err;
    problems.push(...err.problems);
    return null;
  }
}
