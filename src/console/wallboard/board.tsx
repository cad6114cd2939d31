import { useComputed, type Signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { Table, type Column } from '../components/table';
import { clockTime, duration, durationWords, integer, now, percent, secondsSince, serverNow, zoneName } from '../time';
import type { LiveCaller, LiveState } from '../types';
import {
  agentsOf,
  levelsOf,
  longestWaitLevel,
  longestWaitNow,
  STATE_WORDS,
  waitNow,
  worst,
  type AgentRow,
  type Level,
  type LiveModel,
} from './model';

/**
 * The wallboard itself, for the console and for TV mode: the PBX link's banner, one tile per queue, the agents
 * and the callers waiting. Everything the PBX or a caller wrote (queue names, caller ids, pause reasons) is put
 * in as text, never as markup: Preact sets text nodes, and the console never uses innerHTML.
 */
export function Board(props: { model: LiveModel; zone: string; tv?: boolean; actions?: (agent: AgentRow) => ComponentChildren }) {
  const { model } = props;
  const state = model.state.value;
  if (!state)
    return <p class="loading">{model.connection.value === 'retrying' ? 'Connecting to the server again…' : 'Loading the live state…'}</p>;
  return (
    <>
      <LinkBanner state={state} zone={props.zone} connection={model.connection.value} />
      <ul class="tiles" aria-label="Queues">
        {model.order.value.map((id) => (
          <Tile key={id} model={model} id={id} />
        ))}
      </ul>
      <div class="board-lists">
        <AgentsTable model={model} actions={props.actions} />
        <CallersTable model={model} />
      </div>
      <Today model={model} zone={props.zone} />
    </>
  );
}

/** Today's date and TARS's clock, in the tenant's zone (it ticks on its own, redrawing nothing else). */
function Today(props: { model: LiveModel; zone: string }) {
  const date = props.model.state.value?.queues[0]?.today.date ?? '–';
  return (
    <p class="updated">
      Today is {date} in {zoneName(props.zone)}. Times in state and waits are counted on TARS's clock, now{' '}
      {clockTime(serverNow(now.value), props.zone)}.
    </p>
  );
}

/** Seconds since an instant of TARS's, ticking each second (only this text is redrawn). */
function Since(props: { iso: string | null }) {
  const s = secondsSince(props.iso, now.value);
  return <span aria-label={durationWords(s)}>{duration(s)}</span>;
}

/** A caller's wait: TARS's count when the queue came, plus the seconds since, ticking. */
function Waited(props: { seconds: number; receivedAt: number }) {
  const s = waitNow(props.seconds, props.receivedAt, now.value);
  return <span aria-label={durationWords(s)}>{duration(s)}</span>;
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

/** The longest wait's figure, redrawn each second while callers wait (its tile is not). */
function LongestWait(props: { seconds: Signal<number>; level: Level; limit: number | null }) {
  const s = props.seconds.value;
  return (
    <Figure
      label="Longest wait"
      value={duration(s)}
      sr={durationWords(s)}
      level={props.level}
      limit={props.limit !== null ? `limit ${duration(props.limit)}` : undefined}
    />
  );
}

/**
 * A queue's tile: redrawn when its queue comes (its signal), not at every tick of the clock; only the longest wait
 * ticks (a computed signal, its own component), and the tile's colour follows it only when its level changes.
 */
function Tile(props: { model: LiveModel; id: number }) {
  const entrySignal = props.model.queue(props.id);
  const longest = useComputed(() => {
    const entry = entrySignal?.value;
    return entry ? longestWaitNow(entry, now.value) : 0;
  });
  const longestLevel = useComputed(() => {
    const entry = entrySignal?.value;
    return entry ? longestWaitLevel(entry.queue, longest.value) : 'none';
  });
  const entry = entrySignal?.value;
  if (!entry) return null;
  const q = entry.queue;
  const levels = { ...levelsOf(q, 0), longestWait: longestLevel.value };
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
        <LongestWait seconds={longest} level={levels.longestWait} limit={a?.maxLongestWaitSeconds ?? null} />
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

function AgentsTable(props: { model: LiveModel; actions?: (a: AgentRow) => ComponentChildren }) {
  void props.model.membersVersion.value; // redrawn when some queue's members changed, not at every caller
  const agents = agentsOf(props.model.entries());
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
      cell: (a) => <Since iso={a.stateSince} />,
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
  const actions = new Map(agents.map((a) => [a.key, props.actions?.(a) ?? null]));
  if ([...actions.values()].some((c) => c !== null)) columns.push({ key: 'actions', header: 'Actions', cell: (a) => actions.get(a.key) });
  return (
    <Table
      caption="Agents"
      columns={columns}
      rows={agents}
      rowKey={(a) => a.key}
      empty="No agent is a member of these queues."
      class="agents"
    />
  );
}

function CallersTable(props: { model: LiveModel }) {
  void props.model.callersVersion.value; // redrawn when some queue's callers changed
  const rows = props.model
    .entries()
    .flatMap((e) => e.queue.callers.map((c) => ({ c, queue: e.queue.name, queueId: e.queue.queueId, receivedAt: e.receivedAt })));
  rows.sort((a, b) => b.c.waitSeconds - a.c.waitSeconds);
  type Row = (typeof rows)[number];
  const caller = (c: LiveCaller) => [c.callerIdName, c.callerIdNum].filter(Boolean).join(' ') || 'Unknown';
  const columns: Column<Row>[] = [
    { key: 'caller', header: 'Caller', rowHeader: true, cell: (r) => caller(r.c) },
    { key: 'queue', header: 'Queue', cell: (r) => r.queue },
    { key: 'position', header: 'Position', numeric: true, cell: (r) => integer(r.c.position) },
    { key: 'wait', header: 'Waiting', numeric: true, cell: (r) => <Waited seconds={r.c.waitSeconds} receivedAt={r.receivedAt} /> },
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
