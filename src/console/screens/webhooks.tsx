import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { Field, Form, SelectField, useForm, FormButtons } from '../components/form';
import { DeleteButton, Failure, Pager, useRecordPage, useTenants, EditButton } from '../components/records';
import { Table } from '../components/table';
import { can, session, timezone } from '../session';
import { dateTime, zoneName } from '../time';
import type { Webhook, WebhookDelivery, WebhookListItem, WebhookType } from '../types';

const STATUS: Record<WebhookDelivery['status'], string> = {
  pending: 'Waiting',
  delivering: 'Being sent',
  delivered: 'Delivered',
  retry: 'Waiting to retry',
  failed: 'Failed',
  gone: 'Gone (410): webhook disabled',
};

/**
 * Webhooks (GET/POST/PATCH/DELETE /v2/webhooks): a tenant's callbacks, by tenant as the API lists them (one tenant,
 * not paged); add, change, delete. A webhook's recent deliveries (GET /v2/webhooks/{id}/deliveries, newest first,
 * paged) with a retry of a failed one (POST …/deliveries/{deliveryId}/retry: the same webhook-id again).
 */
export default function Webhooks() {
  const tenants = useTenants();
  const [tenantId, setTenantId] = useState<number>(session.value?.tenant.id ?? 0);
  const [hooks, setHooks] = useState<readonly WebhookListItem[] | null>(null);
  const [types, setTypes] = useState<readonly WebhookType[]>([]);
  const [failed, setFailed] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [watching, setWatching] = useState<WebhookListItem | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  useEffect(() => {
    void api.get<WebhookType[]>('/v2/webhooks/list-types').then(setTypes, (e: Error) => setFailed(e.message));
  }, []);
  useEffect(() => {
    setFailed(null);
    void api.get<WebhookListItem[]>('/v2/webhooks', { tenantId }).then(setHooks, (e: Error) => setFailed(e.message));
  }, [tenantId, version]);
  const done = (message: string) => {
    setSaid(message);
    setEditing(null);
    setVersion((v) => v + 1);
  };
  const open = (id: number) => api.get<Webhook>(`/v2/webhooks/${id}`).then(setEditing, (e: Error) => setFailed(e.message));
  return (
    <section class="screen" aria-labelledby="webhooks-title">
      <h1 id="webhooks-title" tabIndex={-1}>
        Webhooks
      </h1>
      <p>
        A webhook POSTs each event of its type to a URL, signed (Standard Webhooks: the webhook-id, webhook-timestamp and webhook-signature
        headers). A delivery that fails is tried again with backoff, with the same webhook-id; one whose attempts ran out can be retried
        here.
      </p>
      {tenants.length > 1 && (
        <div class="field inline filter">
          <label for="webhook-tenant">Tenant</label>
          <select
            id="webhook-tenant"
            value={String(tenantId)}
            onChange={(e) => {
              setTenantId(Number(e.currentTarget.value));
              setWatching(null);
              setEditing(null);
            }}
          >
            {tenants.map((t) => (
              <option key={t.id} value={String(t.id)}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
      )}
      <Failure message={failed} />
      <p class="form-done" role="status">
        {said ?? ''}
      </p>
      <Table<WebhookListItem>
        caption="Webhooks"
        captionHidden
        rows={hooks ?? []}
        rowKey={(h) => h.id}
        empty={hooks === null ? 'Loading…' : 'No webhook.'}
        columns={[
          { key: 'url', header: 'URL', rowHeader: true, cell: (h) => <span class="break">{h.url}</span> },
          { key: 'type', header: 'Event', cell: (h) => h.type },
          {
            key: 'actions',
            header: 'Actions',
            cell: (h) => (
              <span class="actions">
                <button
                  type="button"
                  class="secondary"
                  aria-expanded={watching?.id === h.id}
                  onClick={() => setWatching(watching?.id === h.id ? null : h)}
                >
                  Deliveries<span class="visually-hidden"> of {h.url}</span>
                </button>
                {can('webhooks.update') && <EditButton what={h.url} onClick={() => void open(h.id)} />}
                {can('webhooks.delete') && (
                  <DeleteButton
                    what={h.url}
                    path={`/v2/webhooks/${h.id}`}
                    onDone={() => {
                      if (watching?.id === h.id) setWatching(null);
                      done(`Webhook ${h.url} deleted.`);
                    }}
                  />
                )}
              </span>
            ),
          },
        ]}
      />
      {watching && <Deliveries key={watching.id} hook={watching} />}
      {(editing ? can('webhooks.update') : can('webhooks.create')) && (
        <WebhookForm
          key={editing?.id ?? `new-${tenantId}`}
          hook={editing}
          tenantId={tenantId}
          types={types}
          onDone={done}
          onCancel={() => setEditing(null)}
        />
      )}
    </section>
  );
}

/** A webhook's deliveries, newest first, 20 to a page; it reads them again every 2 s while one is still on its way. */
function Deliveries(props: { hook: WebhookListItem }) {
  const zone = timezone.value;
  const { page, failed, setPageNo, reload } = useRecordPage<WebhookDelivery>(`/v2/webhooks/${props.hook.id}/deliveries`, {}, 20);
  const [said, setSaid] = useState<string | null>(null);
  const moving = page?.records.some((d) => d.status === 'pending' || d.status === 'retry' || d.status === 'delivering') ?? false;
  useEffect(() => {
    if (!moving) return;
    const timer = setTimeout(reload, 2000);
    return () => clearTimeout(timer);
  }, [page]);
  return (
    <div class="deliveries">
      <h2>Deliveries of {props.hook.url}</h2>
      <Failure message={failed} />
      <p class="form-done" role="status">
        {said ?? ''}
      </p>
      <Table<WebhookDelivery>
        caption={`Deliveries, newest first (times in ${zoneName(zone)})`}
        rows={page?.records ?? []}
        rowKey={(d) => d.id}
        empty={page === null ? 'Loading…' : 'Nothing sent yet.'}
        class="report-table"
        columns={[
          { key: 'when', header: 'Event at', rowHeader: true, cell: (d) => dateTime(d.createdAt, zone) },
          { key: 'event', header: 'Event', cell: (d) => d.eventType },
          { key: 'status', header: 'Status', cell: (d) => STATUS[d.status] },
          { key: 'attempts', header: 'Attempts', numeric: true, cell: (d) => d.attempts },
          {
            key: 'code',
            header: 'Last answer',
            cell: (d) => (d.lastStatusCode === null ? (d.lastError ?? '–') : `HTTP ${d.lastStatusCode}`),
          },
          {
            key: 'next',
            header: 'Next or done',
            cell: (d) =>
              d.deliveredAt
                ? `Delivered ${dateTime(d.deliveredAt, zone)}`
                : d.nextAttemptAt
                  ? `Not before ${dateTime(d.nextAttemptAt, zone)}`
                  : '',
          },
          { key: 'id', header: 'webhook-id', cell: (d) => <code>{d.messageId}</code> },
          {
            key: 'retry',
            header: 'Retry',
            cell: (d) =>
              (d.status === 'failed' || d.status === 'gone') && can('webhooks.update') ? (
                <Retry
                  hookId={props.hook.id}
                  delivery={d}
                  onDone={(m) => {
                    setSaid(m);
                    reload();
                  }}
                />
              ) : (
                ''
              ),
          },
        ]}
      />
      <Pager page={page} label="deliveries" onPage={setPageNo} />
      <button type="button" class="quiet" onClick={reload}>
        Read again
      </button>
    </div>
  );
}

function Retry(props: { hookId: number; delivery: WebhookDelivery; onDone: (message: string) => void }) {
  const form = useForm([]);
  const { delivery } = props;
  return (
    <span class="actions">
      <button
        type="button"
        class="secondary"
        disabled={form.busy.value}
        onClick={() =>
          void form.submit(async () => {
            await api.post<WebhookDelivery>(`/v2/webhooks/${props.hookId}/deliveries/${delivery.id}/retry`);
            props.onDone(`Delivery ${delivery.messageId} is queued again, with the same webhook-id.`);
          })
        }
      >
        Retry<span class="visually-hidden"> delivery {delivery.messageId}</span>
      </button>
      {form.error.value && (
        <span class="form-error" role="alert">
          {form.error.value}
        </span>
      )}
    </span>
  );
}

/** Add a webhook to the chosen tenant, or change the one being edited. Empty credentials are sent as none (null). */
function WebhookForm(props: {
  hook: Webhook | null;
  tenantId: number;
  types: readonly WebhookType[];
  onDone: (message: string) => void;
  onCancel: () => void;
}) {
  const { hook } = props;
  const form = useForm(['tenantId', 'type', 'url', 'username', 'password', 'authtoken']);
  const heading = useRef<HTMLHeadingElement>(null);
  const [type, setType] = useState(hook?.type ?? props.types[0]?.type ?? '');
  useEffect(() => {
    if (hook) heading.current?.focus();
  }, []);
  useEffect(() => {
    if (!type && props.types[0]) setType(props.types[0].type);
  }, [props.types]);
  const title = hook ? `Change the webhook to ${hook.url}` : 'Add a webhook';
  return (
    <div class="record-form">
      <h2 ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <Form
        form={form}
        label={title}
        onSubmit={async (v, el) => {
          const fields = {
            type: v.type ?? '',
            url: (v.url ?? '').trim(),
            username: v.username || null,
            password: v.password || null,
            authtoken: v.authtoken || null,
          };
          if (hook) {
            const changed = await api.patch<Webhook>(`/v2/webhooks/${hook.id}`, fields);
            props.onDone(`Webhook ${changed.url} changed.`);
          } else {
            const made = await api.post<Webhook>('/v2/webhooks', { tenantId: props.tenantId, ...fields });
            el.reset();
            props.onDone(`Webhook ${made.url} added.`);
          }
        }}
      >
        <SelectField
          form={form}
          name="type"
          label="Event"
          value={type}
          onChange={setType}
          options={props.types.map((t) => ({ value: t.type, label: `${t.type}: ${t.description}` }))}
        />
        <Field form={form} name="url" label="URL" type="url" defaultValue={hook?.url} hint="http:// or https://" required />
        <Field form={form} name="username" label="Basic-auth user (if any)" autoComplete="off" defaultValue={hook?.username ?? ''} />
        <Field
          form={form}
          name="password"
          label="Basic-auth password (if any)"
          type="password"
          autoComplete="new-password"
          defaultValue={hook?.password ?? ''}
        />
        <Field
          form={form}
          name="authtoken"
          label="Bearer token (if any, without a user)"
          type="password"
          autoComplete="off"
          defaultValue={hook?.authtoken ?? ''}
        />
        <FormButtons form={form} editing={!!hook} add="Add the webhook" onCancel={props.onCancel} />
      </Form>
    </div>
  );
}
