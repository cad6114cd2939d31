import type { ComponentChildren } from 'preact';
import { Table, type Column } from '../components/table';
import { clockTime, duration, durationWords, integer, now, percent, secondsSince, serverNow, zoneName } from '../time';
import type { LiveCaller, LiveState } from '../types';
import { agentsOf, levelsOf, STATE_WORDS, waitNow, worst, type AgentRow, type Level, type LiveModel, type QueueEntry } from './model';

/**
 * The wallboard itself, for the console and for TV mode: the PBX link's banner, one tile per queue, the agents
 * and the callers waiting. Everything the PBX or a caller wrote (queue names, caller ids, pause reasons) is put
 * in as text, never as markup: Preact sets text nodes, and the console never uses innerHTML.
 */
export function Board(props: { model: LiveModel; zone: string; tv?: boolean; actions?: (agent: AgentRow) => ComponentChildren }) {
  const { model } = props;
  const state = model.state.value;
  const entries = model.queues.value;
  if (!state)
    return <p class="loading">{model.connection.value === 'retrying' ? 'Connecting to the server again…' : 'Loading the live state…'}</p>;
  const clientNow = now.value;
  const agents = agentsOf(entries);
  return (
    <>
      <LinkBanner state={state} zone={props.zone} connection={model.connection.value} />
      <ul class="tiles" aria-label="Queues">
        {entries.map((e) => (
          <Tile key={e.queue.queueId} entry={e} clientNow={clientNow} />
        ))}
      </ul>
      <div class="board-lists">
        <AgentsTable agents={agents} clientNow={clientNow} actions={props.actions} />
        <CallersTable entries={entries} clientNow={clientNow} />
      </div>
      <p class="updated">
        Today is {entries[0]?.queue.today.date ?? '–'} in {zoneName(props.zone)}. Times in state and waits are counted on TARS's clock, now{' '}
        {clockTime(serverNow(clientNow), props.zone)}.
      </p>
    </>
  );
}

function LinkBanner(props: { state: LiveState; zone: string; connection: string }) {
  const { state } = props;
  const down = state.pbx.filter((p) => p.state !== 'connected');
  return (
    <>
      {props.connection === 'retrying' && (
        <p class="banner banner-warn" role="status">
          The connection to TARS was lost: reconnecting… The figures below may be out of date.
        </p>
      )}
      {!state.configured && (
        <p class="banner banner-info" role="status">
          No PBX is connected to TARS (TARS_AMI_URL): only today's counters are shown.
        </p>
      )}
      {down.length > 0 && (
        <div class="banner banner-alert" role="alert">
          <strong>The link to the PBX is down.</strong> The queues below are not live.
          <ul>
            {down.map((p) => (
              <li key={p.label}>
                {p.label}: {p.state} since {clockTime(p.since, props.zone)}
                {p.reason ? ` (${p.reason})` : ''}
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}

/** What a coloured figure says in words (colour is never the only sign): past a maximum, or below a minimum. */
const LEVEL_WORDS: Record<'max' | 'min', Record<Level, string>> = {
  max: { none: '', ok: '', warn: 'near its limit', alert: 'over its limit' },
  min: { none: '', ok: '', warn: 'near its minimum', alert: 'below its minimum' },
};

function Figure(props: { label: string; value: ComponentChildren; level?: Level; limit?: string; sr?: string; kind?: 'max' | 'min' }) {
  const level = props.level ?? 'none';
  return (
    <div class={`figure level-${level}`}>
      <dt>{props.label}</dt>
      <dd>
        <span class="value" aria-hidden={props.sr ? 'true' : undefined}>
          {props.value}
        </span>
        {props.sr && <span class="visually-hidden">{props.sr}</span>}
        {(level === 'warn' || level === 'alert') && (
          <span class="flag">
            {LEVEL_WORDS[props.kind ?? 'max'][level]}
            {props.limit ? ` (${props.limit})` : ''}
          </span>
        )}
      </dd>
    </div>
  );
}

function Tile(props: { entry: QueueEntry; clientNow: number }) {
  const { queue: q, receivedAt } = props.entry;
  const longest = q.callers.reduce((max, c) => Math.max(max, waitNow(c.waitSeconds, receivedAt, props.clientNow)), 0);
  const levels = levelsOf(q, longest);
  const count = (state: string) => q.members.filter((m) => m.state === state).length;
  const a = q.alerts;
  return (
    <li class={`tile level-${worst(Object.values(levels))}`} aria-labelledby={`queue-${q.queueId}`}>
      <h2 id={`queue-${q.queueId}`}>
        {q.name}
        {!q.live && <span class="tag">not live</span>}
      </h2>
      <dl class="figures now">
        <Figure
          label="Waiting"
          value={integer(q.callersWaiting)}
          level={levels.callersWaiting}
          limit={a?.maxCallersWaiting != null ? `limit ${a.maxCallersWaiting}` : undefined}
        />
        <Figure
          label="Longest wait"
          value={duration(longest)}
          sr={durationWords(longest)}
          level={levels.longestWait}
          limit={a?.maxLongestWaitSeconds != null ? `limit ${duration(a.maxLongestWaitSeconds)}` : undefined}
        />
        <Figure
          label="Available"
          value={integer(q.agentsAvailable)}
          level={levels.agentsAvailable}
          limit={levels.agentsAvailable === 'alert' ? 'none free' : undefined}
        />
        <Figure label="Ringing" value={integer(count('ringing'))} />
        <Figure label="On a call" value={integer(count('inCall'))} />
        <Figure label="Paused" value={integer(count('paused'))} />
      </dl>
      <dl class="figures today">
        <Figure label="Offered today" value={integer(q.today.offered)} />
        <Figure label="Answered" value={integer(q.today.answered)} />
        <Figure label="Abandoned" value={integer(q.today.abandoned)} />
        <Figure
          label={`Service level (${q.serviceLevelSeconds} s)`}
          value={percent(q.today.serviceLevelPercent)}
          level={levels.serviceLevel}
          kind="min"
          limit={a?.minServiceLevelPercent != null ? percent(a.minServiceLevelPercent) : undefined}
        />
      </dl>
    </li>
  );
}

function AgentsTable(props: { agents: readonly AgentRow[]; clientNow: number; actions?: (a: AgentRow) => ComponentChildren }) {
  const columns: Column<AgentRow>[] = [
    {
      key: 'agent',
      header: 'Agent',
      rowHeader: true,
      cell: (a) => (
        <>
          {a.name || a.peerName || '–'}
          {a.extNum !== null && <span class="sub"> {a.extNum}</span>}
        </>
      ),
    },
    { key: 'state', header: 'State', cell: (a) => <span class={`state state-${a.state}`}>{STATE_WORDS[a.state]}</span> },
    {
      key: 'since',
      header: 'In state for',
      numeric: true,
      cell: (a) => {
        const s = secondsSince(a.stateSince, props.clientNow);
        return <span aria-label={durationWords(s)}>{duration(s)}</span>;
      },
    },
    { key: 'reason', header: 'Pause reason', cell: (a) => a.pauseReason || '' },
    {
      key: 'queues',
      header: 'Queues',
      cell: (a) => (
        <ul class="inline-list">
          {a.queues.map((q) => (
            <li key={q.queueId}>
              {q.queueName}
              {q.member.paused ? ` (${q.member.pauseReason === 'DND' ? 'DND' : 'paused'})` : ''}
              {q.member.state === 'loggedOut' ? ' (logged out)' : ''}
            </li>
          ))}
        </ul>
      ),
    },
  ];
  // An Actions column only when the user may act for some agent here (its role, or its own extension).
  const actions = new Map(props.agents.map((a) => [a.key, props.actions?.(a) ?? null]));
  if ([...actions.values()].some((c) => c !== null)) columns.push({ key: 'actions', header: 'Actions', cell: (a) => actions.get(a.key) });
  return (
    <Table
      caption="Agents"
      columns={columns}
      rows={props.agents}
      rowKey={(a) => a.key}
      empty="No agent is a member of these queues."
      class="agents"
    />
  );
}

function CallersTable(props: { entries: readonly QueueEntry[]; clientNow: number }) {
  const rows = props.entries.flatMap((e) =>
    e.queue.callers.map((c) => ({
      c,
      queue: e.queue.name,
      queueId: e.queue.queueId,
      wait: waitNow(c.waitSeconds, e.receivedAt, props.clientNow),
    })),
  );
  rows.sort((a, b) => b.wait - a.wait);
  type Row = (typeof rows)[number];
  const caller = (c: LiveCaller) => [c.callerIdName, c.callerIdNum].filter(Boolean).join(' ') || 'Unknown';
  const columns: Column<Row>[] = [
    { key: 'caller', header: 'Caller', rowHeader: true, cell: (r) => caller(r.c) },
    { key: 'queue', header: 'Queue', cell: (r) => r.queue },
    { key: 'position', header: 'Position', numeric: true, cell: (r) => integer(r.c.position) },
    { key: 'wait', header: 'Waiting', numeric: true, cell: (r) => <span aria-label={durationWords(r.wait)}>{duration(r.wait)}</span> },
  ];
  return (
    <Table
      caption="Callers waiting"
      columns={columns}
      rows={rows}
      rowKey={(r) => `${r.queueId}-${r.c.channel}-${r.c.position}`}
      empty="Nobody is waiting."
      class="callers"
    />
  );
}
