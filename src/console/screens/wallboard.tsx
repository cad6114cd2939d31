import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, urlOf } from '../api';
import { Form, Submit, useForm } from '../components/form';
import { can, session, user } from '../session';
import type { AgentResult, TenantPage } from '../types';
import { Board } from '../wallboard/board';
import { LiveModel, type AgentRow } from '../wallboard/model';

/**
 * The live wallboard (GET /v2/reporting/queues/live/stream, by the session cookie), with the supervisor's
 * actions where the user's role allows them: the agent routes the mobile app calls (docs/live-queues.md).
 */
export default function Wallboard() {
  const own = session.value?.tenant;
  const [tenantId, setTenantId] = useState(own?.id ?? 0);
  const model = useMemo(() => new LiveModel(), []);
  useEffect(() => {
    model.open(urlOf('/v2/reporting/queues/live/stream', { tenantId }));
    return () => model.stop();
  }, [tenantId]);
  const zone = model.state.value?.queues[0]?.today.timezone ?? session.value?.tenant.timezone ?? 'UTC';
  return (
    <section class="screen wide" aria-labelledby="wallboard-title">
      <div class="screen-head">
        <h1 id="wallboard-title" tabIndex={-1}>
          Wallboard
        </h1>
        {can('admin.tenants.read') && <TenantPicker value={tenantId} onChange={setTenantId} />}
      </div>
      {model.refused.value ? (
        <p class="banner banner-alert" role="alert">
          {model.refused.value}
        </p>
      ) : (
        <Board model={model} zone={zone} actions={(a) => (mayAct(a) ? <AgentActions agent={a} /> : null)} />
      )}
      <datalist id="pause-reasons">
        {REASONS.map((r) => (
          <option key={r} value={r} />
        ))}
      </datalist>
    </section>
  );
}

/** A user acts for its own extension; for another agent of the tenant it needs queues.agents.manage (as the API judges). */
function mayAct(a: AgentRow): boolean {
  if (!a.peerName) return false;
  return can('queues.agents.manage') || (a.extensionId !== null && user.value?.extId === a.extensionId);
}

function TenantPicker(props: { value: number; onChange: (id: number) => void }) {
  const [tenants, setTenants] = useState<TenantPage['records']>([]);
  useEffect(() => {
    void api.get<TenantPage>('/v2/admin/tenants', { paginated: 0 }).then(
      (p) => setTenants(p.records),
      () => setTenants([]),
    );
  }, []);
  if (tenants.length < 2) return null;
  return (
    <div class="field inline">
      <label for="wallboard-tenant">Tenant</label>
      <select id="wallboard-tenant" value={props.value} onChange={(e) => props.onChange(Number(e.currentTarget.value))}>
        {tenants.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
    </div>
  );
}

const REASONS = ['Break', 'Lunch', 'Meeting', 'Training', 'Admin work'];

/**
 * What a supervisor (or the agent itself) can do: log in or out of its queues (POST /v2/queues/agent-login), pause
 * with a reason or unpause (agent-pause), DND in one queue (agent-dnd). The answer says what Asterisk confirmed;
 * the wallboard shows the result when the PBX's event comes back over the stream.
 */
function AgentActions(props: { agent: AgentRow }) {
  const a = props.agent;
  const form = useForm(['pauseReason']);
  const peerName = a.peerName as string;
  const loggedIn = a.state !== 'loggedOut';
  const paused = a.queues.some((q) => q.member.paused && q.member.pauseReason !== 'DND');
  const act = (path: string, body: object) => async () => (await api.post<AgentResult>(path, { peerName, ...body })).message;
  const id = `act-${a.key.replace(/[^a-z0-9]/gi, '-')}`;
  return (
    <details class="actions">
      <summary>
        Act<span class="visually-hidden"> for {a.name || peerName}</span>
      </summary>
      <div class="actions-body">
        {form.error.value && (
          <p class="form-error" role="alert">
            {form.error.value}
          </p>
        )}
        <p class="form-done" role="status">
          {form.done.value ?? ''}
        </p>
        <button
          type="button"
          class="secondary"
          disabled={form.busy.value}
          onClick={() => void form.submit(act('/v2/queues/agent-login', { loggedIn: loggedIn ? 0 : 1 }))}
        >
          {loggedIn ? 'Log out' : 'Log in'}
        </button>
        {loggedIn &&
          (paused ? (
            <button
              type="button"
              class="secondary"
              disabled={form.busy.value}
              onClick={() => void form.submit(act('/v2/queues/agent-pause', { paused: 0 }))}
            >
              Unpause
            </button>
          ) : (
            <Form
              form={form}
              class="form inline"
              label={`Pause ${a.name || peerName}`}
              onSubmit={async (v) => act('/v2/queues/agent-pause', { paused: 1, pauseReason: (v.pauseReason ?? '').trim() })()}
            >
              <div class="field inline">
                <label for={`${id}-reason`}>Reason</label>
                <input id={`${id}-reason`} name="pauseReason" list="pause-reasons" maxLength={80} autoComplete="off" />
              </div>
              <Submit form={form} class="secondary">
                Pause
              </Submit>
            </Form>
          ))}
        {loggedIn && (
          <fieldset class="dnd">
            <legend>Do not disturb, per queue</legend>
            {a.queues
              .filter((q) => q.member.state !== 'loggedOut')
              .map((q) => {
                const dnd = q.member.paused && q.member.pauseReason === 'DND';
                return (
                  <button
                    type="button"
                    key={q.queueId}
                    class="toggle"
                    aria-pressed={dnd}
                    disabled={form.busy.value}
                    onClick={() => void form.submit(act('/v2/queues/agent-dnd', { queueId: q.queueId, dnd: dnd ? 0 : 1 }))}
                  >
                    DND in {q.queueName}
                  </button>
                );
              })}
          </fieldset>
        )}
      </div>
    </details>
  );
}
