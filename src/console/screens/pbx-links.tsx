import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { Table } from '../components/table';
import { session, timezone } from '../session';
import { dateTime, duration, durationWords, learnServerTime, secondsSince, zoneName } from '../time';
import type { LivePbx, LiveState } from '../types';

/** How often the links are read again (GET /v2/reporting/queues/live); the ages tick every second between. */
const REFRESH_MS = 5000;

const STATE: Record<LivePbx['state'], string> = {
  connecting: 'Connecting',
  connected: 'Connected',
  down: 'Down',
  refused: 'Refused (login)',
  stopped: 'Stopped',
};

/**
 * AMI links (GET /v2/reporting/queues/live, its `pbx`): each PBX of TARS_AMI_URL with its link's state, since when,
 * why it is down, and how long ago its last event came (on the server's clock, ticking), read again every 5 s.
 */
export default function PbxLinks() {
  const tenantId = session.value?.tenant.id ?? 0;
  const [state, setState] = useState<LiveState | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let stop = false;
    const read = () =>
      api.get<LiveState>('/v2/reporting/queues/live', { tenantId }).then(
        (s) => {
          if (stop) return;
          learnServerTime(s.generatedAt);
          setState(s);
          setFailed(null);
        },
        (e: Error) => !stop && setFailed(e.message),
      );
    void read();
    const timer = setInterval(() => void read(), REFRESH_MS);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, []);
  const zone = timezone.value;
  const links = state?.pbx ?? [];
  return (
    <section class="screen" aria-labelledby="pbx-links-title">
      <h1 id="pbx-links-title" tabIndex={-1}>
        AMI links
      </h1>
      <p>
        The PBXs TARS follows live through their manager interface (AMI), as set by <code>TARS_AMI_URL</code>. The wallboard and the agent
        actions work while a link is connected; a link that is down is tried again by itself.
      </p>
      {failed && (
        <p class="form-error" role="alert">
          {failed}
        </p>
      )}
      {state && !state.configured && (
        <p class="banner banner-info" role="status">
          No PBX is configured: set <code>TARS_AMI_URL</code> (e.g. <code>ami://user:secret@pbx:5038</code>) and restart TARS.
        </p>
      )}
      <Table<LivePbx>
        caption={`AMI links (times in ${zoneName(zone)})`}
        rows={links}
        rowKey={(p) => p.label}
        empty={state === null ? 'Loading…' : 'No AMI link.'}
        class="pbx-links"
        columns={[
          { key: 'label', header: 'PBX', rowHeader: true, cell: (p) => <code>{p.label}</code> },
          {
            key: 'state',
            header: 'State',
            cell: (p) => <span class={`link-state link-${p.state}`}>{STATE[p.state]}</span>,
          },
          { key: 'since', header: 'Since', cell: (p) => dateTime(p.since, zone) },
          { key: 'reason', header: 'Reason', cell: (p) => p.reason ?? '' },
          { key: 'last', header: 'Last event', numeric: true, cell: (p) => <Age at={p.lastEventAt} /> },
          { key: 'snapshot', header: 'Queues last read whole', cell: (p) => (p.snapshotAt ? dateTime(p.snapshotAt, zone) : 'not yet') },
        ]}
      />
    </section>
  );
}

/** How long ago, ticking every second: "0:12 ago" (in words for screen readers). */
function Age(props: { at: string | null }) {
  const seconds = secondsSince(props.at);
  if (seconds === undefined) return <span>none yet</span>;
  return (
    <span class="age" title={props.at ?? undefined}>
      <span aria-hidden="true">{duration(seconds)} ago</span>
      <span class="visually-hidden">{durationWords(seconds)} ago</span>
    </span>
  );
}
