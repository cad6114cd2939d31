import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { Field, Form, numberOrText, useForm, FormButtons } from '../components/form';
import { DeleteButton, Failure, Pager, useRecordPage, EditButton, useEditing } from '../components/records';
import { Table } from '../components/table';
import { can } from '../session';
import type { Tenant } from '../types';

/**
 * Tenants (platform and partner admins; GET/POST/PATCH/DELETE /v2/admin/tenants): the tenants the user reaches,
 * paged as the API pages them; add, change (name, partner, MFA required) and delete. A tenant that still owns
 * records is refused with the API's 409, which names them; "with everything it owns" sends `cascade=1`.
 */
export default function Tenants() {
  const { page, failed, setPageNo, reload } = useRecordPage<Tenant>('/v2/admin/tenants');
  const { editing, setEditing, said, done, title } = useEditing<Tenant>(reload);
  return (
    <section class="screen" aria-labelledby="tenants-title">
      <h1 id="tenants-title" ref={title} tabIndex={-1}>
        Tenants
      </h1>
      <p>The organisations this server keeps apart: each has its own branches, users, extensions, queues and reports.</p>
      <Failure message={failed} />
      <p class="form-done" role="status">
        {said ?? ''}
      </p>
      <Table<Tenant>
        caption="Tenants"
        captionHidden
        rows={page?.records ?? []}
        rowKey={(t) => t.id}
        empty={page === null ? 'Loading…' : 'No tenant.'}
        columns={[
          { key: 'name', header: 'Name', rowHeader: true, cell: (t) => t.name },
          { key: 'id', header: 'Id', numeric: true, cell: (t) => t.id },
          { key: 'partner', header: 'Partner', numeric: true, cell: (t) => (t.partnerId === 0 ? 'None' : t.partnerId) },
          { key: 'mfa', header: 'MFA required', cell: (t) => (t.mfaRequired === 1 ? 'Yes' : 'No') },
          {
            key: 'actions',
            header: 'Actions',
            cell: (t) => (
              <span class="actions">
                {can('admin.tenants.update') && <EditButton what={t.name} onClick={() => setEditing(t)} />}
                {can('admin.tenants.delete') && <DeleteTenant tenant={t} onDone={() => done(`Tenant ${t.name} deleted.`)} />}
              </span>
            ),
          },
        ]}
      />
      <Pager page={page} label="tenants" onPage={setPageNo} />
      {(editing ? can('admin.tenants.update') : can('admin.tenants.create')) && (
        <TenantForm key={editing?.id ?? 'new'} tenant={editing} onDone={done} onAdded={reload} onCancel={() => setEditing(null)} />
      )}
    </section>
  );
}

function DeleteTenant(props: { tenant: Tenant; onDone: () => void }) {
  const [cascade, setCascade] = useState(false);
  const id = `cascade-tenant-${props.tenant.id}`;
  return (
    <DeleteButton
      what={props.tenant.name}
      path={`/v2/admin/tenants/${props.tenant.id}${cascade ? '?cascade=1' : ''}`}
      onDone={props.onDone}
    >
      <span class="field-check">
        <input type="checkbox" id={id} checked={cascade} onChange={(e) => setCascade(e.currentTarget.checked)} />
        <label for={id}>with everything it owns</label>
      </span>
    </DeleteButton>
  );
}

/** Add a tenant, or change the one being edited (PATCH with the fields shown; the partner only when it changed). */
function TenantForm(props: { tenant: Tenant | null; onDone: (message: string) => void; onAdded: () => void; onCancel: () => void }) {
  const { tenant } = props;
  const form = useForm(['name', 'partnerId', 'mfaRequired']);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (tenant) heading.current?.focus();
  }, []);
  return (
    <div class="record-form">
      <h2 ref={heading} tabIndex={-1}>
        {tenant ? `Change ${tenant.name}` : 'Add a tenant'}
      </h2>
      <Form
        form={form}
        label={tenant ? `Change ${tenant.name}` : 'Add a tenant'}
        onSubmit={async (v, el) => {
          const partnerId = numberOrText(v.partnerId);
          const body = { name: v.name ?? '', mfaRequired: v.mfaRequired === 'on' ? 1 : 0 };
          if (tenant) {
            const changed = await api.patch<Tenant>(`/v2/admin/tenants/${tenant.id}`, {
              ...body,
              ...(partnerId !== undefined && partnerId !== tenant.partnerId ? { partnerId } : {}),
            });
            props.onDone(`Tenant ${changed.name} changed.`);
          } else {
            const made = await api.post<Tenant>('/v2/admin/tenants', { ...body, ...(partnerId !== undefined ? { partnerId } : {}) });
            el.reset();
            props.onAdded();
            return `Tenant ${made.name} added (id ${made.id}).`;
          }
        }}
      >
        <Field form={form} name="name" label="Name" defaultValue={tenant?.name} maxLength={200} required />
        <Field
          form={form}
          name="partnerId"
          label="Partner"
          inputMode="numeric"
          defaultValue={tenant ? String(tenant.partnerId) : ''}
          hint="The partner whose partner admins reach it (0: none). Empty: yours. Only a platform admin names another partner."
        />
        <Field
          form={form}
          name="mfaRequired"
          label="Every user must use two-step sign-in (MFA)"
          type="checkbox"
          defaultChecked={tenant?.mfaRequired === 1}
        />
        <FormButtons form={form} editing={!!tenant} add="Add the tenant" onCancel={props.onCancel} />
      </Form>
    </div>
  );
}
