import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { Field, Form, Submit, useForm } from '../components/form';
import { Table } from '../components/table';
import { session, timezone } from '../session';
import { dateTime, zoneName } from '../time';
import type { LiveState, WallboardLink } from '../types';

/**
 * TV links: read-only wallboard links a supervisor makes for a wall screen (POST /v2/wallboard-links), lists and
 * revokes (DELETE /v2/wallboard-links/{id}: the screen goes dark at once). A link's address is shown once, when it
 * is made: TARS keeps only a hash of its token.
 */
export default function WallboardLinks() {
  const tenantId = session.value?.tenant.id ?? 0;
  const [links, setLinks] = useState<WallboardLink[] | null>(null);
  const [queues, setQueues] = useState<{ id: number; name: string }[]>([]);
  const [made, setMade] = useState<WallboardLink | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const reload = () => api.get<WallboardLink[]>('/v2/wallboard-links', { tenantId }).then(setLinks, (e: Error) => setFailed(e.message));
  useEffect(() => {
    void reload();
    void api.get<LiveState>('/v2/reporting/queues/live', { tenantId }).then(
      (s) => setQueues(s.queues.map((q) => ({ id: q.queueId, name: q.name }))),
      (e: Error) => setFailed(e.message),
    );
  }, []);
  const nameOf = (id: number) => queues.find((q) => q.id === id)?.name ?? `queue ${id}`;
  const zone = timezone.value;
  return (
    <section class="screen" aria-labelledby="links-title">
      <h1 id="links-title" tabIndex={-1}>
        TV links
      </h1>
      <p>
        A TV link shows the live wallboard of some queues on a wall screen, without signing in, and nothing else. Anyone with the address
        can watch it: revoke it when the screen is gone.
      </p>
      {failed && (
        <p class="form-error" role="alert">
          {failed}
        </p>
      )}
      {made?.tvPath && <NewLink link={made} />}
      <MakeLink
        tenantId={tenantId}
        queues={queues}
        onMade={(l) => {
          setMade(l);
          void reload();
        }}
      />
      <Table
        caption={`Links (times in ${zoneName(zone)})`}
        rows={links ?? []}
        rowKey={(l) => l.id}
        empty={links === null ? 'Loading…' : 'No TV link yet.'}
        columns={[
          { key: 'name', header: 'Name', rowHeader: true, cell: (l) => l.name },
          { key: 'queues', header: 'Queues', cell: (l) => l.queueIds.map(nameOf).join(', ') },
          { key: 'created', header: 'Made', cell: (l) => dateTime(l.createdAt, zone) },
          { key: 'used', header: 'Last watched', cell: (l) => (l.lastUsedAt ? dateTime(l.lastUsedAt, zone) : 'never') },
          {
            key: 'revoke',
            header: 'Revoke',
            cell: (l) => (
              <Revoke
                link={l}
                onDone={() => {
                  setMade(null);
                  void reload();
                }}
              />
            ),
          },
        ]}
      />
    </section>
  );
}

function MakeLink(props: { tenantId: number; queues: { id: number; name: string }[]; onMade: (l: WallboardLink) => void }) {
  const form = useForm(['name', 'queueIds']);
  return (
    <Form
      form={form}
      label="Make a TV link"
      onSubmit={async (v, el) => {
        const queueIds = [...el.querySelectorAll<HTMLInputElement>('input[name=queue]:checked')].map((i) => Number(i.value));
        const link = await api.post<WallboardLink>('/v2/wallboard-links', {
          tenantId: props.tenantId,
          name: (v.name ?? '').trim(),
          queueIds,
        });
        el.reset();
        props.onMade(link);
      }}
    >
      <h2>Make a link</h2>
      <Field form={form} name="name" label="Name (the screen it is for)" maxLength={100} required />
      <fieldset aria-describedby={form.fieldErrors.value.queueIds ? 'queue-ids-error' : undefined}>
        <legend>Queues it shows</legend>
        {props.queues.map((q) => (
          <div class="field-check" key={q.id}>
            <input type="checkbox" id={`link-queue-${q.id}`} name="queue" value={q.id} />
            <label for={`link-queue-${q.id}`}>{q.name}</label>
          </div>
        ))}
        {form.fieldErrors.value.queueIds && (
          <p class="field-error" id="queue-ids-error">
            {form.fieldErrors.value.queueIds}
          </p>
        )}
      </fieldset>
      <Submit form={form}>Make the link</Submit>
    </Form>
  );
}

function NewLink(props: { link: WallboardLink }) {
  const address = `${location.origin}${props.link.tvPath ?? ''}`;
  const [copied, setCopied] = useState(false);
  return (
    <div class="banner banner-info new-link" role="status">
      <p>
        <strong>{props.link.name}</strong>: open this address on the wall screen. It is shown only now: copy it.
      </p>
      <label for="new-link-address">Address of the TV link</label>
      <input id="new-link-address" readOnly value={address} onFocus={(e) => e.currentTarget.select()} />
      <button
        type="button"
        class="secondary"
        onClick={() =>
          void navigator.clipboard?.writeText(address).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

function Revoke(props: { link: WallboardLink; onDone: () => void }) {
  const [sure, setSure] = useState(false);
  const form = useForm([]);
  if (!sure)
    return (
      <button type="button" class="secondary" onClick={() => setSure(true)}>
        Revoke<span class="visually-hidden"> {props.link.name}</span>
      </button>
    );
  return (
    <span class="confirm">
      {form.error.value && <span role="alert">{form.error.value} </span>}
      <button
        type="button"
        class="danger"
        disabled={form.busy.value}
        onClick={() =>
          void form.submit(async () => {
            await api.del(`/v2/wallboard-links/${props.link.id}`);
            props.onDone();
          })
        }
      >
        Revoke {props.link.name} now
      </button>{' '}
      <button type="button" class="quiet" onClick={() => setSure(false)}>
        Keep it
      </button>
    </span>
  );
}
