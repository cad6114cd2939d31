import { Table } from '../components/table';
import { ReportScreen } from '../reports/report-screen';
import { timezone } from '../session';
import { clockTime, dateTime, duration } from '../time';
import type { AgentSessions, AgentSessionsRequest } from '../types';

type Line = AgentSessions[number];
type Span = { start: string; end: string | null; seconds: number };

/** Where an interval lies on the timeline, in % of its width (an open interval runs to its seconds). */
function place(span: Span, from: number, to: number): { left: string; width: string } {
  const start = Date.parse(span.start);
  const end = span.end ? Date.parse(span.end) : start + span.seconds * 1000;
  const pct = (t: number) => (100 * (Math.min(Math.max(t, from), to) - from)) / (to - from);
  return { left: `${pct(start).toFixed(3)}%`, width: `${Math.max(0.2, pct(end) - pct(start)).toFixed(3)}%` };
}

/**
 * Agent sessions (POST /v2/reporting/queues/agent-sessions, reporting.md R23): each agent's logins and pauses in
 * each queue, drawn as a timeline (logged in as a bar, paused over it), and listed in a table with start, end,
 * length and reason: the timeline is a picture of the table, hidden from screen readers.
 */
export default function AgentSessionsScreen() {
  const zone = timezone.value;
  return (
    <ReportScreen<AgentSessionsRequest, AgentSessions>
      id="sessions"
      title="Agent sessions"
      intro="When each agent was logged in to each queue, and when paused, and why."
      path="/v2/reporting/queues/agent-sessions"
      module="queue-agent-sessions"
      rows={[]}
    >
      {({ answer, what }) => {
        const spans = answer.flatMap((l) => [...l.sessions, ...l.pauses]);
        const from = Math.min(...spans.map((s) => Date.parse(s.start)));
        const to = Math.max(...spans.map((s) => (s.end ? Date.parse(s.end) : Date.parse(s.start) + s.seconds * 1000)));
        const rows = answer.flatMap((l) => [
          ...l.sessions.map((s) => ({ l, kind: 'Logged in', s, reason: '' })),
          ...l.pauses.map((p) => ({ l, kind: 'Paused', s: p as Span, reason: p.reason || 'Paused' })),
        ]);
        return (
          <>
            {spans.length > 0 && to > from && (
              <figure class="chart timeline">
                <figcaption>
                  Logged in (bars) and paused (darker, over them) from {dateTime(from, zone)} to {dateTime(to, zone)}. Every interval is in
                  the table below.
                </figcaption>
                <div aria-hidden="true">
                  {answer.map((l: Line) => (
                    <div class="timeline-row" key={`${l.peerName} ${l.queueId}`}>
                      <span class="timeline-label">
                        {l.name || l.peerName} · {l.queueName}
                      </span>
                      <span class="timeline-track">
                        {l.sessions.map((s, i) => (
                          <span key={`s${i}`} class="timeline-session" style={place(s, from, to)} />
                        ))}
                        {l.pauses.map((p, i) => (
                          <span key={`p${i}`} class="timeline-pause" style={place(p, from, to)} title={p.reason || 'Paused'} />
                        ))}
                      </span>
                    </div>
                  ))}
                  <div class="timeline-row">
                    <span class="timeline-label" />
                    <span class="timeline-axis">
                      <span>{clockTime(from, zone)}</span>
                      <span>{clockTime(to, zone)}</span>
                    </span>
                  </div>
                </div>
              </figure>
            )}
            <Table
              caption={`Logins and pauses, ${what}`}
              rows={rows}
              rowKey={(r) => `${r.l.peerName} ${r.l.queueId} ${r.kind} ${r.s.start}`}
              empty="No agent was logged in to these queues in this range."
              class="report-table"
              columns={[
                { key: 'agent', header: 'Agent', rowHeader: true, cell: (r) => r.l.name || r.l.peerName },
                { key: 'queue', header: 'Queue', cell: (r) => r.l.queueName },
                { key: 'kind', header: 'State', cell: (r) => r.kind },
                { key: 'start', header: 'From', cell: (r) => dateTime(r.s.start, zone) },
                { key: 'end', header: 'To', cell: (r) => (r.s.end ? dateTime(r.s.end, zone) : 'still now') },
                { key: 'seconds', header: 'Length', numeric: true, cell: (r) => duration(r.s.seconds) },
                { key: 'reason', header: 'Reason', cell: (r) => r.reason },
              ]}
            />
          </>
        );
      }}
    </ReportScreen>
  );
}
