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
  type RecordFormEvents,
  useEditing,
} from '../components/records';
import { Table } from '../components/table';
import { can, session } from '../session';
import type { Branch } from '../types';

/** The zones the browser knows (the API checks the name itself: a zone the browser lacks is kept as it is). */
const ZONES: readonly string[] = ['UTC', ...Intl.supportedValuesOf('timeZone')];

/**
 * Branches (GET/POST/PATCH/DELETE /v2/admin/branches): a tenant's offices, paged and filtered by tenant as the API
 * does; add, change (name, timezone, default) and delete. The default branch's zone is the tenant's reports'. A
 * delete the API refuses (the default branch, or one users, numbers, extensions or queues still name) shows its 409.
 */
export default function Branches() {
  const tenants = useTenants();
  const [tenantId, setTenantId] = useState<number | undefined>(undefined);
  const { page, failed, setPageNo, reload } = useRecordPage<Branch>('/v2/admin/branches', { tenantId });
  const { editing, setEditing, said, done, title } = useEditing<Branch>(reload);
  const several = tenants.length > 1;
  return (
    <section class="screen" aria-labelledby="branches-title">
      <h1 id="branches-title" ref={title} tabIndex={-1}>
        Branches
      </h1>
      <p>
        A tenant's offices. Users, phone numbers, extensions and queues belong to one; the default branch's timezone is the one the tenant's
        reports are in.
      </p>
      <TenantFilter tenants={tenants} value={tenantId} onChange={setTenantId} />
      <Failure message={failed} />
      <p class="form-done" role="status">
        {said ?? ''}
      </p>
      <Table<Branch>
        caption="Branches"
        captionHidden
        rows={page?.records ?? []}
        rowKey={(b) => b.id}
        empty={page === null ? 'Loading…' : 'No branch.'}
        columns={[
          { key: 'name', header: 'Name', rowHeader: true, cell: (b) => b.name },
          ...(several ? [{ key: 'tenant', header: 'Tenant', cell: (b: Branch) => b.tenant.name }] : []),
          { key: 'zone', header: 'Timezone', cell: (b) => b.timezone },
          { key: 'default', header: 'Default', cell: (b) => (b.default === 1 ? 'Default' : '') },
          {
            key: 'actions',
            header: 'Actions',
            cell: (b) => (
              <span class="actions">
                {can('admin.branches.update') && <EditButton what={b.name} onClick={() => setEditing(b)} />}
                {can('admin.branches.delete') && (
                  <DeleteButton what={b.name} path={`/v2/admin/branches/${b.id}`} onDone={() => done(`Branch ${b.name} deleted.`)} />
                )}
              </span>
            ),
          },
        ]}
      />
      <Pager page={page} label="branches" onPage={setPageNo} />
      {(editing ? can('admin.branches.update') : can('admin.branches.create')) && (
        <BranchForm
          key={editing?.id ?? 'new'}
          branch={editing}
          tenants={tenants}
          tenantId={tenantId}
          onDone={done}
          onAdded={reload}
          onCancel={() => setEditing(null)}
        />
      )}
    </section>
  );
}

/** Add a branch (to the filtered tenant, or the one chosen), or change the one being edited. */
function BranchForm(
  props: {
    branch: Branch | null;
    tenants: readonly TenantChoice[];
    tenantId: number | undefined;
  } & RecordFormEvents,
) {
  const { branch } = props;
  const form = useForm(['tenantId', 'name', 'timezone', 'default']);
  const heading = useRef<HTMLHeadingElement>(null);
  const [tenantId, setTenantId] = useState(props.tenantId ?? props.tenants[0]?.id);
  // Chosen values are kept here: a select given its value again on a redraw would fall back to the first one.
  const [zone, setZone] = useState(branch?.timezone ?? '');
  useEffect(() => {
    if (branch) heading.current?.focus();
  }, []);
  const title = branch ? `Change ${branch.name}` : 'Add a branch';
  return (
    <div class="record-form">
      <h2 ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <Form
        form={form}
        label={title}
        onSubmit={async (v, el) => {
          const isDefault = v.default === 'on' ? 1 : 0;
          if (branch) {
            const changed = await api.patch<Branch>(`/v2/admin/branches/${branch.id}`, {
              name: v.name ?? '',
              timezone: v.timezone ?? '',
              ...(isDefault !== branch.default ? { default: isDefault } : {}),
            });
            props.onDone(`Branch ${changed.name} changed.`);
          } else {
            const made = await api.post<Branch>('/v2/admin/branches', {
              tenantId: Number(v.tenantId ?? session.value?.tenant.id),
              name: v.name ?? '',
              ...(v.timezone ? { timezone: v.timezone } : {}),
              default: isDefault,
            });
            el.reset();
            props.onAdded();
            return `Branch ${made.name} added to ${made.tenant.name}.`;
          }
        }}
      >
        {!branch && props.tenants.length > 1 && (
          <SelectField
            form={form}
            name="tenantId"
            label="Tenant"
            value={tenantId}
            onChange={(id) => setTenantId(Number(id))}
            options={props.tenants.map((t) => ({ value: t.id, label: t.name }))}
          />
        )}
        <Field form={form} name="name" label="Name" defaultValue={branch?.name} maxLength={200} required />
        <SelectField
          form={form}
          name="timezone"
          label="Timezone"
          value={zone}
          onChange={setZone}
          none={branch ? undefined : "The tenant's default branch's"}
          options={(branch && !ZONES.includes(branch.timezone) ? [branch.timezone, ...ZONES] : ZONES).map((z) => ({ value: z, label: z }))}
        />
        <Field
          form={form}
          name="default"
          label="The tenant's default branch (its zone is the reports')"
          type="checkbox"
          defaultChecked={branch?.default === 1}
        />
        <FormButtons form={form} editing={!!branch} add="Add the branch" onCancel={props.onCancel} />
      </Form>
    </div>
  );
}
