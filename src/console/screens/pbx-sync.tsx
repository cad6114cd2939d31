import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { Form, Submit, useForm } from '../components/form';
import { session } from '../session';
import { integer } from '../time';
import type { SyncPlan } from '../types';

type PlannedExtension = SyncPlan['extensions'][number];
type PlannedQueue = SyncPlan['queues'][number];

/** A change as the plan words it, `what old → new` or `what + new`, shown with the old value struck and the new one marked. */
function Change(props: { text: string }) {
  const added = /^(.*?) \+ (.*)$/.exec(props.text);
  if (added)
    return (
      <>
        {added[1]} <ins>+ {added[2]}</ins>
      </>
    );
  const m = /^(.*?) (".*"|\S+(?: s)?) → (.*)$/.exec(props.text);
  if (!m) return <>{props.text}</>;
  return (
    <>
      {m[1]} <del>{m[2]}</del> → <ins>{m[3]}</ins>
    </>
  );
}

function extensionText(e: PlannedExtension): string {
  const parts = [e.peerName];
  if (e.extName) parts.push(`“${e.extName}”`);
  if (e.agentAliases.length) parts.push(`aliases ${e.agentAliases.map((a) => `“${a}”`).join(', ')}`);
  return parts.join(', ');
}

function queueText(q: PlannedQueue): string {
  return `“${q.name}”, ${q.ringStrategy}, service level ${q.serviceLevelSeconds} s, members ${q.members.join(', ') || 'none'}`;
}

/**
 * Config sync: `tars pbx sync`'s plan for the PBX configuration directory of the server (TARS_PBX_CONFIG_DIR;
 * GET /v2/pbx/config/plan) as a diff of the tenant's directory, and "Apply" (POST /v2/pbx/config/apply with the
 * plan's hash: when the configuration or the directory changed since it was shown, nothing is applied and the new
 * plan is shown). Platform admins only, as the CLI is the machine owner's.
 */
export default function PbxSync() {
  const tenantId = session.value?.tenant.id ?? 0;
  const [plan, setPlan] = useState<SyncPlan | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [applied, setApplied] = useState<SyncPlan | null>(null);
  const load = () =>
    api.get<SyncPlan>('/v2/pbx/config/plan', { tenantId }).then(
      (p) => {
        setPlan(p);
        setFailed(null);
      },
      (e: Error) => setFailed(e.message),
    );
  useEffect(() => void load(), []);
  const form = useForm([]);
  const work = plan ? plan.extensions.length + plan.queues.length : 0;
  return (
    <section class="screen" aria-labelledby="sync-title">
      <h1 id="sync-title" tabIndex={-1}>
        Config sync
      </h1>
      <p>
        What the PBX's configuration (queues.conf, pjsip.conf, sip.conf, extensions.conf) says against this tenant's extensions and queues,
        as <code>tars pbx sync</code> plans it. It adds and changes; it never removes a record the configuration does not name.
      </p>
      {failed && (
        <p class="form-error" role="alert">
          {failed}
        </p>
      )}
      {applied && (
        <p class="banner banner-info" role="status">
          Applied: {integer(applied.extensions.length)} extension{applied.extensions.length === 1 ? '' : 's'} and{' '}
          {integer(applied.queues.length)} queue{applied.queues.length === 1 ? '' : 's'} created or changed.
        </p>
      )}
      {plan === null && !failed && <p>Loading…</p>}
      {plan && !plan.configured && (
        <div class="banner banner-warn" role="status">
          <p>{plan.how}</p>
        </div>
      )}
      {plan?.configured && (
        <>
          <p>
            Directory on the server: <code>{plan.configDir}</code> ({plan.files.length} file{plan.files.length === 1 ? '' : 's'} read:{' '}
            {plan.files.join(', ')}).
          </p>
          <h2>Extensions</h2>
          <Diff
            label="Extensions to add or change"
            items={plan.extensions.map((e) => ({
              key: `e${e.extNum}`,
              added: e.action === 'create',
              title: `Extension ${e.extNum}`,
              text: extensionText(e),
              changes: e.changes,
            }))}
          />
          <h2>Queues</h2>
          <Diff
            label="Queues to add or change"
            items={plan.queues.map((q) => ({
              key: `q${q.logName}`,
              added: q.action === 'create',
              title: `Queue ${q.logName}`,
              text: queueText(q),
              changes: q.changes,
            }))}
          />
          <h2>Removed</h2>
          <p>
            Nothing: a sync never removes. Already as configured and left alone: {integer(plan.unchanged.extensions)} extension
            {plan.unchanged.extensions === 1 ? '' : 's'}, {integer(plan.unchanged.queues)} queue{plan.unchanged.queues === 1 ? '' : 's'}.
          </p>
          {plan.notes.length > 0 && (
            <>
              <h2>Notes</h2>
              <ul>
                {plan.notes.map((n) => (
                  <li key={n}>{n}</li>
                ))}
              </ul>
            </>
          )}
          {work > 0 ? (
            <Form
              form={form}
              label="Apply the plan"
              onSubmit={async () => {
                try {
                  const done = await api.post<SyncPlan>('/v2/pbx/config/apply', { tenantId, planHash: plan.planHash });
                  setApplied(done);
                } finally {
                  await load();
                }
              }}
            >
              <Submit form={form}>
                Apply: {integer(work)} change{work === 1 ? '' : 's'}
              </Submit>
            </Form>
          ) : (
            <p role="status">The directory is as the configuration says: nothing to apply.</p>
          )}
        </>
      )}
    </section>
  );
}

interface DiffItem {
  key: string;
  added: boolean;
  title: string;
  text: string;
  changes: string[];
}

function Diff(props: { label: string; items: DiffItem[] }) {
  if (props.items.length === 0) return <p>No change.</p>;
  return (
    <ul class="diff" aria-label={props.label}>
      {props.items.map((i) => (
        <li key={i.key} class={i.added ? 'diff-added' : 'diff-changed'}>
          <span class="diff-mark">{i.added ? 'Added' : 'Changed'}</span>
          <strong>{i.title}</strong>:{' '}
          {i.added ? (
            i.text
          ) : (
            <ul>
              {i.changes.map((c) => (
                <li key={c}>
                  <Change text={c} />
                </li>
              ))}
            </ul>
          )}
        </li>
      ))}
    </ul>
  );
}
