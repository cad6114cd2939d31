import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { Field, Form, SelectField, useForm, FormButtons } from '../components/form';
import {
  DeleteButton,
  Failure,
  Pager,
  TenantFilter,
  useRecordPage,
  useTenants,
  type TenantChoice,
  EditButton,
} from '../components/records';
import { Table } from '../components/table';
import { can, session } from '../session';
import type { DirectoryUser, StatusAnswer } from '../types';
import { extensionLabel, idOrNull, useTenantChoices } from './directory-choices';

/** The roles by number (the API's userRole), in the order a form offers them. */
const ROLES: readonly { value: number; label: string; rank: number }[] = [
  { value: 5, label: 'Basic user', rank: 1 },
  { value: 7, label: 'Queue manager', rank: 2 },
  { value: 9, label: 'Reports admin', rank: 2 },
  { value: 3, label: 'Account admin', rank: 3 },
  { value: 11, label: 'Partner admin', rank: 4 },
  { value: 1, label: 'Platform admin', rank: 5 },
];
const roleName = (value: number) => ROLES.find((r) => r.value === value)?.label ?? `Role ${value}`;

/** The roles the signed-in user may give: none above its own (the API refuses the others with 403). */
function givableRoles(): typeof ROLES {
  const own = ROLES.find((r) => r.value === session.value?.user.userRole)?.rank ?? 0;
  return ROLES.filter((r) => r.rank <= own);
}

const MFA_MODES: Record<string, string> = { app: 'authenticator app', email: 'e-mail', sms: 'SMS' };

/**
 * Users (GET/POST/PATCH/DELETE /v2/admin/users): a tenant's users, paged and filtered by tenant as the API does;
 * add one, change its role, branch and extension, reset its MFA (POST …/mfa-reset) or e-mail it a password reset
 * (POST …/password-reset), delete it. A delete the API refuses (the user owns saved reports, or is oneself) shows its 409.
 */
export default function Users() {
  const tenants = useTenants();
  const [tenantId, setTenantId] = useState<number | undefined>(undefined);
  const { page, failed, setPageNo, reload } = useRecordPage<DirectoryUser>('/v2/admin/users', { tenantId });
  const [editing, setEditing] = useState<DirectoryUser | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const done = (message: string, keepOpen = false) => {
    setSaid(message);
    if (!keepOpen) setEditing(null);
    reload();
  };
  // The user being edited, as the list last read it (its MFA after a reset).
  useEffect(() => {
    const fresh = editing && page?.records.find((u) => u.id === editing.id);
    if (fresh && fresh !== editing) setEditing(fresh);
  }, [page]);
  const several = tenants.length > 1;
  const tenantName = (id: number) => tenants.find((t) => t.id === id)?.name ?? `Tenant ${id}`;
  return (
    <section class="screen" aria-labelledby="users-title">
      <h1 id="users-title" tabIndex={-1}>
        Users
      </h1>
      <p>
        Who signs in, with which role. A role gives what its row of the README's role table allows; nobody gives a role above its own.
        Changing a user's role, resetting its MFA or deleting it ends its sessions.
      </p>
      <TenantFilter tenants={tenants} value={tenantId} onChange={setTenantId} />
      <Failure message={failed} />
      <p class="form-done" role="status">
        {said ?? ''}
      </p>
      <Table<DirectoryUser>
        caption="Users"
        captionHidden
        rows={page?.records ?? []}
        rowKey={(u) => u.id}
        empty={page === null ? 'Loading…' : 'No user.'}
        columns={[
          { key: 'email', header: 'E-mail', rowHeader: true, cell: (u) => u.email },
          ...(several ? [{ key: 'tenant', header: 'Tenant', cell: (u: DirectoryUser) => tenantName(u.tenantId) }] : []),
          { key: 'role', header: 'Role', cell: (u) => roleName(u.userRole) },
          { key: 'branch', header: 'Branch', cell: (u) => u.branchName ?? '' },
          { key: 'ext', header: 'Extension', cell: (u) => (u.extId ? extensionLabel(u) : '') },
          {
            key: 'mfa',
            header: 'MFA',
            cell: (u) => (u.mfaEnabled === 1 ? `On (${MFA_MODES[u.mfaMode ?? ''] ?? u.mfaMode})` : 'Off'),
          },
          {
            key: 'actions',
            header: 'Actions',
            cell: (u) => (
              <span class="actions">
                {can('admin.users.update') && <EditButton what={u.email} onClick={() => setEditing(u)} />}
                {can('admin.users.delete') && (
                  <DeleteButton what={u.email} path={`/v2/admin/users/${u.id}`} onDone={() => done(`User ${u.email} deleted.`)} />
                )}
              </span>
            ),
          },
        ]}
      />
      <Pager page={page} label="users" onPage={setPageNo} />
      {editing && can('admin.users.update') && (
        <>
          <UserForm key={editing.id} user={editing} tenants={tenants} tenantId={tenantId} onDone={done} onCancel={() => setEditing(null)} />
          <UserHelp key={`help-${editing.id}`} user={editing} onDone={(m) => done(m, true)} />
        </>
      )}
      {!editing && can('admin.users.create') && (
        <UserForm user={null} tenants={tenants} tenantId={tenantId} onDone={done} onCancel={() => setEditing(null)} />
      )}
    </section>
  );
}

/** Add a user (to the filtered tenant, or the one chosen), or change the role, branch and extension of the one being edited. */
function UserForm(props: {
  user: DirectoryUser | null;
  tenants: readonly TenantChoice[];
  tenantId: number | undefined;
  onDone: (message: string) => void;
  onCancel: () => void;
}) {
  const { user } = props;
  const form = useForm(['tenantId', 'email', 'password', 'userRole', 'branchId', 'extId']);
  const heading = useRef<HTMLHeadingElement>(null);
  const [tenantId, setTenantId] = useState(user?.tenantId ?? props.tenantId ?? props.tenants[0]?.id ?? session.value?.tenant.id);
  const { branches, extensions } = useTenantChoices(tenantId);
  // Chosen values are kept here: a select given its value again on a redraw would fall back to the first one.
  const [role, setRole] = useState(String(user?.userRole ?? 5));
  const [branchId, setBranchId] = useState(user?.branchId ? String(user.branchId) : '');
  const [extId, setExtId] = useState(user?.extId ? String(user.extId) : '');
  useEffect(() => {
    if (user) heading.current?.focus();
  }, []);
  const roles = givableRoles();
  // A user whose role is above the caller's is shown as it is; the API refuses any change to it (403).
  const above = user && !roles.some((r) => r.value === user.userRole) ? ROLES.filter((r) => r.value === user.userRole) : [];
  const roleOptions = [...roles, ...above];
  const title = user ? `Change ${user.email}` : 'Add a user';
  return (
    <div class="record-form">
      <h2 ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <Form
        form={form}
        label={title}
        onSubmit={async (v, el) => {
          const placement = { userRole: Number(v.userRole), branchId: idOrNull(v.branchId), extId: idOrNull(v.extId) };
          if (user) {
            const changed = await api.patch<DirectoryUser>(`/v2/admin/users/${user.id}`, placement);
            props.onDone(`User ${changed.email} changed: ${roleName(changed.userRole)}.`);
          } else {
            const made = await api.post<DirectoryUser>('/v2/admin/users', {
              tenantId: Number(v.tenantId ?? tenantId),
              email: (v.email ?? '').trim(),
              password: v.password ?? '',
              ...placement,
            });
            el.reset();
            props.onDone(`User ${made.email} added as ${roleName(made.userRole)}.`);
          }
        }}
      >
        {!user && props.tenants.length > 1 && (
          <SelectField
            form={form}
            name="tenantId"
            label="Tenant"
            value={tenantId}
            onChange={(id) => setTenantId(Number(id))}
            options={props.tenants.map((t) => ({ value: t.id, label: t.name }))}
          />
        )}
        {!user && (
          <>
            <Field form={form} name="email" label="E-mail" type="email" autoComplete="off" maxLength={320} required />
            <Field
              form={form}
              name="password"
              label="First password"
              type="password"
              autoComplete="new-password"
              hint="At least 8 characters. Tell it to the user, or send a password-reset e-mail once the user is added."
              required
            />
          </>
        )}
        <SelectField
          form={form}
          name="userRole"
          label="Role"
          value={role}
          onChange={setRole}
          options={roleOptions.map((r) => ({ value: r.value, label: r.label }))}
          hint="Only the roles you may give are offered: none above your own."
        />
        <SelectField
          form={form}
          name="branchId"
          label="Branch"
          value={branchId}
          onChange={setBranchId}
          none="No branch"
          options={branches.map((b) => ({ value: b.id, label: b.name }))}
        />
        <SelectField
          form={form}
          name="extId"
          label="Own extension"
          value={extId}
          onChange={setExtId}
          none="No extension"
          options={extensions.map((e) => ({ value: e.id, label: extensionLabel(e) }))}
        />
        <FormButtons form={form} editing={!!user} add="Add the user" onCancel={props.onCancel} />
      </Form>
    </div>
  );
}

/** Help for a user locked out: its MFA reset (with a second step), or a password-reset e-mail. */
function UserHelp(props: { user: DirectoryUser; onDone: (message: string) => void }) {
  const { user } = props;
  const form = useForm([]);
  const [sure, setSure] = useState(false);
  const act = (path: string) =>
    void form.submit(async () => {
      const answer = await api.post<StatusAnswer>(`/v2/admin/users/${user.id}/${path}`);
      setSure(false);
      props.onDone(`${answer.message}.`);
    });
  return (
    <div class="record-form">
      <h2>Sign-in help for {user.email}</h2>
      {form.error.value && (
        <p class="form-error" role="alert">
          {form.error.value}
        </p>
      )}
      <p>
        A password-reset e-mail sends the user a token, good once for 30 minutes, to set a new password with; the current one works until
        then. An MFA reset forgets every MFA mode of the user (for a lost phone): its next sign-in asks for the password only, or sets MFA
        up again where its organisation requires it.
      </p>
      <div class="form-buttons">
        <button type="button" class="secondary" disabled={form.busy.value} onClick={() => act('password-reset')}>
          Send a password-reset e-mail<span class="visually-hidden"> to {user.email}</span>
        </button>
        {!sure ? (
          <button type="button" class="secondary" disabled={user.mfaEnabled !== 1} onClick={() => setSure(true)}>
            Reset MFA<span class="visually-hidden"> of {user.email}</span>
          </button>
        ) : (
          <span class="confirm">
            <button type="button" class="danger" disabled={form.busy.value} onClick={() => act('mfa-reset')}>
              Reset the MFA of {user.email} now
            </button>
            <button type="button" class="quiet" onClick={() => setSure(false)}>
              Keep it
            </button>
          </span>
        )}
      </div>
    </div>
  );
}
