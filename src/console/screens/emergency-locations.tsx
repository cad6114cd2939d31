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
import type { EmergencyAddress, EmergencyLocation } from '../types';

/** The address's fields as the API names them (its messages say "address.city is required"), in the order of a form. */
const ADDRESS_FIELDS: readonly { key: keyof EmergencyAddress; label: string; hint?: string; optional?: boolean }[] = [
  { key: 'streetNum', label: 'Street number' },
  { key: 'streetInfo', label: 'Street' },
  { key: 'loc', label: 'Suite, floor or room', optional: true },
  { key: 'location', label: 'Where in the building', hint: 'What responders need to find the caller.', optional: true },
  { key: 'city', label: 'City' },
  { key: 'state', label: 'State or region' },
  { key: 'postalCode', label: 'Postal code' },
];

const oneLine = (a: EmergencyAddress) =>
  [`${a.streetNum} ${a.streetInfo}`, a.loc, `${a.city}, ${a.state} ${a.postalCode}`].filter((p) => p && p.trim()).join(', ');

/**
 * E911 locations (GET/POST/PATCH/DELETE /v2/admin/emergency-locations): the street addresses emergency calls are
 * sent from, paged and filtered by tenant as the API does; add, change (name and address) and delete. Their
 * notification groups are listed; the API sets them (a form for them is not here yet).
 */
export default function EmergencyLocations() {
  const tenants = useTenants();
  const [tenantId, setTenantId] = useState<number | undefined>(undefined);
  const { page, failed, setPageNo, reload } = useRecordPage<EmergencyLocation>('/v2/admin/emergency-locations', { tenantId });
  const [editing, setEditing] = useState<EmergencyLocation | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const done = (message: string) => {
    setSaid(message);
    setEditing(null);
    reload();
  };
  const several = tenants.length > 1;
  return (
    <section class="screen" aria-labelledby="e911-title">
      <h1 id="e911-title" tabIndex={-1}>
        E911 locations
      </h1>
      <p>
        The dispatchable addresses of the site: an emergency call is sent with its location's address, and its notification groups are told.
      </p>
      <TenantFilter tenants={tenants} value={tenantId} onChange={setTenantId} />
      <Failure message={failed} />
      <p class="form-done" role="status">
        {said ?? ''}
      </p>
      <Table<EmergencyLocation>
        caption="E911 locations"
        captionHidden
        rows={page?.records ?? []}
        rowKey={(l) => l.id}
        empty={page === null ? 'Loading…' : 'No E911 location.'}
        columns={[
          { key: 'name', header: 'Name', rowHeader: true, cell: (l) => l.name },
          ...(several ? [{ key: 'tenant', header: 'Tenant', cell: (l: EmergencyLocation) => l.tenant.name }] : []),
          { key: 'address', header: 'Address', cell: (l) => oneLine(l.address as EmergencyAddress) },
          {
            key: 'groups',
            header: 'Notified',
            cell: (l) => l.notificationGroups.map((g) => g.name || g.email || g.number).join(', ') || 'Nobody',
          },
          {
            key: 'actions',
            header: 'Actions',
            cell: (l) => (
              <span class="actions">
                {can('admin.emergency-locations.update') && <EditButton what={l.name} onClick={() => setEditing(l)} />}
                {can('admin.emergency-locations.delete') && (
                  <DeleteButton
                    what={l.name}
                    path={`/v2/admin/emergency-locations/${l.id}`}
                    onDone={() => done(`Location ${l.name} deleted.`)}
                  />
                )}
              </span>
            ),
          },
        ]}
      />
      <Pager page={page} label="E911 locations" onPage={setPageNo} />
      {(editing ? can('admin.emergency-locations.update') : can('admin.emergency-locations.create')) && (
        <LocationForm
          key={editing?.id ?? 'new'}
          location={editing}
          tenants={tenants}
          tenantId={tenantId}
          onDone={done}
          onCancel={() => setEditing(null)}
        />
      )}
    </section>
  );
}

function LocationForm(props: {
  location: EmergencyLocation | null;
  tenants: readonly TenantChoice[];
  tenantId: number | undefined;
  onDone: (message: string) => void;
  onCancel: () => void;
}) {
  const { location } = props;
  const form = useForm(['tenantId', 'name', 'address', ...ADDRESS_FIELDS.map((f) => `address.${f.key}`)]);
  const heading = useRef<HTMLHeadingElement>(null);
  const [tenantId, setTenantId] = useState(props.tenantId ?? props.tenants[0]?.id ?? session.value?.tenant.id);
  useEffect(() => {
    if (location) heading.current?.focus();
  }, []);
  const title = location ? `Change ${location.name}` : 'Add an E911 location';
  const address = location?.address as EmergencyAddress | undefined;
  return (
    <div class="record-form">
      <h2 ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <Form
        form={form}
        label={title}
        onSubmit={async (v, el) => {
          // Every field as typed (the optional ones only when given): the API names what is missing or too long.
          const fields: Record<string, string> = {};
          for (const f of ADDRESS_FIELDS) {
            const value = (v[`address.${f.key}`] ?? '').trim();
            if (value || !f.optional) fields[f.key] = value;
          }
          const body = { name: (v.name ?? '').trim(), address: fields };
          if (location) {
            const changed = await api.patch<EmergencyLocation>(`/v2/admin/emergency-locations/${location.id}`, body);
            props.onDone(`Location ${changed.name} changed.`);
          } else {
            const made = await api.post<EmergencyLocation>('/v2/admin/emergency-locations', {
              tenantId: Number(v.tenantId ?? tenantId),
              ...body,
            });
            el.reset();
            props.onDone(`Location ${made.name} added.`);
          }
        }}
      >
        {!location && props.tenants.length > 1 && (
          <SelectField
            form={form}
            name="tenantId"
            label="Tenant"
            value={tenantId}
            onChange={(id) => setTenantId(Number(id))}
            options={props.tenants.map((t) => ({ value: t.id, label: t.name }))}
          />
        )}
        <Field form={form} name="name" label="Name" defaultValue={location?.name} maxLength={200} required />
        <fieldset class="address">
          <legend>Address</legend>
          {ADDRESS_FIELDS.map((f) => (
            <Field
              key={f.key}
              form={form}
              name={`address.${f.key}`}
              label={f.optional ? `${f.label} (if any)` : f.label}
              hint={f.hint}
              defaultValue={address?.[f.key] ?? ''}
              required={!f.optional}
            />
          ))}
        </fieldset>
        <FormButtons form={form} editing={!!location} add="Add the location" onCancel={props.onCancel} />
      </Form>
    </div>
  );
}
