import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { Field, Form, numberOrText, SelectField, Submit, useForm, FormButtons } from '../components/form';
import { DeleteButton, Failure, TenantFilter, useTenants, type RecordPage, type TenantChoice, EditButton } from '../components/records';
import { Table } from '../components/table';
import { can, session } from '../session';
import type { Branch, CallQueue, Extension, Queue, QueueAlerts } from '../types';

/** Asterisk's queue strategies, as the API takes them (schemas/queue-create.json). */
const STRATEGIES = ['ringall', 'leastrecent', 'fewestcalls', 'random', 'rrmemory', 'rrordered', 'linear', 'wrandom'] as const;

/** Every record of a list of the API for one tenant (paginated=0), or none while it loads or when it is refused. */
function useAll<T>(path: string, tenantId: number | undefined, permission: string): readonly T[] {
  const [records, setRecords] = useState<readonly T[]>([]);
  useEffect(() => {
    if (tenantId === undefined || !can(permission)) return;
    void api.get<RecordPage<T>>(path, { tenantId, paginated: 0 }).then(
      (p) => setRecords(p.records),
      () => undefined, // the choices stay empty; saving names what is wrong
    );
  }, [path, tenantId]);
  return records;
}

/**
 * Queues (GET /v2/queues, the hosted API's list; GET/POST/PATCH/DELETE /v2/queues/{id}): the tenant's call queues
 * with their queue_log name, static members and service level threshold, and their alert thresholds
 * (GET/PUT /v2/queues/{id}/alerts). The API lists a tenant's queues at once (its list has no pages), and so does
 * this screen. A queue with stored log lines is deleted only "with its stored lines and reports" (`cascade=1`).
 */
export default function Queues() {
  const tenants = useTenants();
  const [tenantId, setTenantId] = useState<number | undefined>(undefined);
  const [queues, setQueues] = useState<readonly CallQueue[] | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [editing, setEditing] = useState<Queue | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setFailed(null);
    api.get<CallQueue[]>('/v2/queues', { tenantId }).then(
      (q) => live && setQueues(q),
      (e: Error) => live && setFailed(e.message),
    );
    return () => {
      live = false;
    };
  }, [tenantId, version]);
  const reload = () => setVersion((v) => v + 1);
  const title = useRef<HTMLHeadingElement>(null);
  /** After a change or a delete focus goes to the screen's title, the message under it; a new queue opens in its editor. */
  const done = (message: string, keep?: Queue) => {
    setSaid(message);
    setEditing(keep ?? null);
    reload();
    if (!keep) title.current?.focus();
  };
  const edit = (id: number) => void api.get<Queue>(`/v2/queues/${id}`).then(setEditing, (e: Error) => setFailed(e.message));
  return (
    <section class="screen" aria-labelledby="queues-title">
      <h1 id="queues-title" ref={title} tabIndex={-1}>
        Queues
      </h1>
      <p>
        The PBX's call queues: the name its queue_log gives each, the extensions that are its static members, the service level threshold
        its reports count answers within, and the alert thresholds of the wallboard and webhooks.
      </p>
      <TenantFilter tenants={tenants} value={tenantId} onChange={setTenantId} />
      <Failure message={failed} />
      <p class="form-done" role="status">
        {said ?? ''}
      </p>
      <Table<CallQueue>
        caption="Queues"
        captionHidden
        rows={queues ?? []}
        rowKey={(q) => q.id}
        empty={queues === null ? 'Loading…' : 'No queue.'}
        columns={[
          { key: 'name', header: 'Name', rowHeader: true, cell: (q) => q.name },
          { key: 'number', header: 'Number', cell: (q) => q.number },
          { key: 'strategy', header: 'Strategy', cell: (q) => q.ringStrategy },
          { key: 'sl', header: 'Service level', numeric: true, cell: (q) => `${q.serviceLevelSeconds} s` },
          { key: 'branch', header: 'Branch', cell: (q) => q.branchName ?? '' },
          {
            key: 'actions',
            header: 'Actions',
            cell: (q) => (
              <span class="actions">
                {can('admin.queues.update') && <EditButton what={q.name} onClick={() => edit(q.id)} />}
                {can('admin.queues.delete') && <DeleteQueue queue={q} onDone={() => done(`Queue ${q.name} deleted.`)} />}
              </span>
            ),
          },
        ]}
      />
      {queues && <p class="pager">{queues.length === 1 ? '1 queue' : `${queues.length} queues`}</p>}
      {editing && can('admin.queues.update') && (
        <>
          <QueueForm
            key={editing.id}
            queue={editing}
            tenants={tenants}
            tenantId={editing.tenantId}
            onDone={(q) => done(`Queue ${q.name} changed.`)}
            onCancel={() => setEditing(null)}
          />
          <AlertsForm key={`alerts-${editing.id}`} queue={editing} />
        </>
      )}
      {!editing && can('admin.queues.create') && (
        <QueueForm
          key="new"
          queue={null}
          tenants={tenants}
          tenantId={tenantId}
          onDone={(q) => done(`Queue ${q.name} added: set its alert thresholds below.`, q)}
          onCancel={() => setEditing(null)}
        />
      )}
    </section>
  );
}

function DeleteQueue(props: { queue: CallQueue; onDone: () => void }) {
  const [cascade, setCascade] = useState(false);
  const id = `cascade-queue-${props.queue.id}`;
  return (
    <DeleteButton what={props.queue.name} path={`/v2/queues/${props.queue.id}${cascade ? '?cascade=1' : ''}`} onDone={props.onDone}>
      <span class="field-check">
        <input type="checkbox" id={id} checked={cascade} onChange={(e) => setCascade(e.currentTarget.checked)} />
        <label for={id}>with its stored log lines and reports</label>
      </span>
    </DeleteButton>
  );
}

/** Add a queue, or change the one being edited (every field sent; `members` replaces the static members). */
function QueueForm(props: {
  queue: Queue | null;
  tenants: readonly TenantChoice[];
  tenantId: number | undefined;
  onDone: (q: Queue) => void;
  onCancel: () => void;
}) {
  const { queue } = props;
  const form = useForm([
    'tenantId',
    'name',
    'logName',
    'number',
    'ringStrategy',
    'recording',
    'branchId',
    'serviceLevelSeconds',
    'members',
  ]);
  const [tenantId, setTenantId] = useState(queue?.tenantId ?? props.tenantId ?? props.tenants[0]?.id ?? session.value?.tenant.id);
  // Chosen values are kept here: a select given its value again on a redraw would fall back to the first one.
  const [branchId, setBranchId] = useState<number | ''>(queue?.branchId ?? '');
  const [strategy, setStrategy] = useState(queue?.ringStrategy ?? 'ringall');
  const [members, setMembers] = useState<readonly number[]>(queue?.members ?? []);
  const branches = useAll<Branch>('/v2/admin/branches', tenantId, 'admin.branches.read');
  const extensions = useAll<Extension>('/v2/extensions', tenantId, 'admin.extensions.read');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (queue) heading.current?.focus();
  }, []);
  const title = queue ? `Change ${queue.name}` : 'Add a queue';
  const membersError = form.fieldErrors.value.members;
  return (
    <div class="record-form">
      <h2 ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <Form
        form={form}
        label={title}
        onSubmit={async (v) => {
          const fields = {
            name: v.name ?? '',
            logName: v.logName ?? '',
            number: v.number ?? '',
            ringStrategy: strategy,
            recording: v.recording ?? '',
            branchId: branchId === '' ? null : branchId,
            serviceLevelSeconds: numberOrText(v.serviceLevelSeconds),
            members,
          };
          const saved = queue
            ? await api.patch<Queue>(`/v2/queues/${queue.id}`, fields)
            : await api.post<Queue>('/v2/queues', { tenantId, ...fields });
          props.onDone(saved);
        }}
      >
        {!queue && props.tenants.length > 1 && (
          <SelectField
            form={form}
            name="tenantId"
            label="Tenant"
            value={tenantId}
            onChange={(id) => {
              setTenantId(Number(id));
              setBranchId('');
              setMembers([]);
            }}
            options={props.tenants.map((t) => ({ value: t.id, label: t.name }))}
          />
        )}
        <Field form={form} name="name" label="Name" defaultValue={queue?.name} maxLength={200} required />
        <Field
          form={form}
          name="logName"
          label="Name in queue_log"
          defaultValue={queue?.logName}
          maxLength={128}
          required
          hint="Its section in queues.conf (e.g. sales): one queue on this server, compared without case as Asterisk does."
        />
        <Field form={form} name="number" label="Number" defaultValue={queue?.number} maxLength={40} />
        <SelectField
          form={form}
          name="ringStrategy"
          label="Ring strategy"
          value={strategy}
          onChange={setStrategy}
          options={STRATEGIES.map((s) => ({ value: s, label: s }))}
        />
        <Field form={form} name="recording" label="Recording" defaultValue={queue?.recording} maxLength={200} />
        <SelectField
          form={form}
          name="branchId"
          label="Branch"
          none="No branch"
          value={branchId}
          onChange={(id) => setBranchId(id === '' ? '' : Number(id))}
          options={branches.map((b) => ({ value: b.id, label: b.name }))}
        />
        <Field
          form={form}
          name="serviceLevelSeconds"
          label="Service level threshold (seconds)"
          inputMode="numeric"
          defaultValue={queue ? String(queue.serviceLevelSeconds) : ''}
          hint="A call answered within this wait is answered within the service level (Asterisk's servicelevel). Empty on a new queue: 30."
        />
        <fieldset aria-describedby={membersError ? 'queue-members-error' : undefined}>
          <legend>Static members</legend>
          {extensions.length === 0 && <p class="hint">The tenant has no extension yet.</p>}
          <div class="checks">
            {extensions.map((e) => (
              <div class="field-check" key={e.id}>
                <input
                  type="checkbox"
                  id={`member-${e.id}`}
                  checked={members.includes(e.id)}
                  onChange={(ev) => setMembers(ev.currentTarget.checked ? [...members, e.id] : members.filter((m) => m !== e.id))}
                />
                <label for={`member-${e.id}`}>
                  {e.extNum} {e.extName}
                </label>
              </div>
            ))}
          </div>
          {membersError && (
            <p class="field-error" id="queue-members-error">
              {membersError}
            </p>
          )}
        </fieldset>
        <FormButtons form={form} editing={!!queue} add="Add the queue" onCancel={props.onCancel} cancelLabel="Close" />
      </Form>
    </div>
  );
}

/** The queue's alert thresholds (PUT /v2/queues/{id}/alerts: the whole set; an empty field turns its alert off). */
function AlertsForm(props: { queue: Queue }) {
  const form = useForm([
    'maxCallersWaiting',
    'maxLongestWaitSeconds',
    'minServiceLevelPercent',
    'noAgentAvailable',
    'email',
    'cooldownSeconds',
  ]);
  const [alerts, setAlerts] = useState<QueueAlerts | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    void api.get<QueueAlerts>(`/v2/queues/${props.queue.id}/alerts`).then(setAlerts, (e: Error) => setFailed(e.message));
  }, []);
  const text = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n));
  const title = `Alert thresholds of ${props.queue.name}`;
  return (
    <div class="record-form">
      <h2>{title}</h2>
      <Failure message={failed} />
      {alerts && (
        <Form
          form={form}
          label={title}
          onSubmit={async (v) => {
            const saved = await api.put<QueueAlerts>(`/v2/queues/${props.queue.id}/alerts`, {
              maxCallersWaiting: numberOrText(v.maxCallersWaiting),
              maxLongestWaitSeconds: numberOrText(v.maxLongestWaitSeconds),
              minServiceLevelPercent: numberOrText(v.minServiceLevelPercent),
              noAgentAvailable: v.noAgentAvailable === 'on',
              email: v.email ?? '',
              cooldownSeconds: numberOrText(v.cooldownSeconds),
            });
            setAlerts(saved);
            return `Alert thresholds of ${props.queue.name} saved.`;
          }}
        >
          <p class="hint">
            An empty field turns its alert off. Each alert is a QUEUEALERT webhook event, and an e-mail when addresses are given.
          </p>
          <Field
            form={form}
            name="maxCallersWaiting"
            label="More callers waiting than"
            inputMode="numeric"
            defaultValue={text(alerts.maxCallersWaiting)}
          />
          <Field
            form={form}
            name="maxLongestWaitSeconds"
            label="A caller waiting longer than (seconds)"
            inputMode="numeric"
            defaultValue={text(alerts.maxLongestWaitSeconds)}
          />
          <Field
            form={form}
            name="minServiceLevelPercent"
            label="Today's service level below (%)"
            inputMode="decimal"
            defaultValue={text(alerts.minServiceLevelPercent)}
          />
          <Field form={form} name="noAgentAvailable" label="No member available" type="checkbox" defaultChecked={alerts.noAgentAvailable} />
          <Field
            form={form}
            name="email"
            label="E-mail the alerts to"
            type="email"
            multiple
            defaultValue={alerts.email}
            hint="Addresses, commas between; empty: webhooks only."
          />
          <Field
            form={form}
            name="cooldownSeconds"
            label="Not again within (seconds)"
            inputMode="numeric"
            defaultValue={text(alerts.cooldownSeconds)}
            hint="An alert that ended is not raised again sooner than this after it was last raised. Empty: 300."
          />
          <Submit form={form}>Save the alert thresholds</Submit>
        </Form>
      )}
    </div>
  );
}
