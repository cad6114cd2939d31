import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Query } from '../api';
import { Field, Form, SelectField, Submit, useForm } from '../components/form';
import { DeleteButton, Failure, Pager, useRecordPage, useTenants, type RecordPage, type TenantChoice } from '../components/records';
import { Table } from '../components/table';
import { can, session } from '../session';
import type { PhoneNumber, PhoneNumberRecord } from '../types';
import { extensionLabel, useTenantChoices } from './directory-choices';

/**
 * Phone numbers (GET/POST/DELETE /v2/admin/phone-numbers) and their caller-ID names (PATCH
 * /v2/admin/phone-numbers/caller-id-name/{id}): the list pages and filters as the API does (tenant, digits of the
 * number, branch, fax only); add a number to a branch with the extension its texts go to; delete one.
 */
export default function PhoneNumbers() {
  const tenants = useTenants();
  const [filter, setFilter] = useState<Query>({});
  const { page, failed, setPageNo, reload } = useRecordPage<PhoneNumberRecord>('/v2/admin/phone-numbers', filter);
  const [naming, setNaming] = useState<PhoneNumberRecord | null>(null);
  // The list names branches and extensions by id: their names are those of the filtered tenant (or the only one).
  const shownTenant = filter.tenantId !== undefined ? Number(filter.tenantId) : tenants.length === 1 ? tenants[0]?.id : undefined;
  const { branches, extensions } = useTenantChoices(shownTenant);
  const branchName = (id: number) => branches.find((b) => b.id === id)?.name ?? `Branch ${id}`;
  const extensionName = (id: number) => {
    const ext = extensions.find((e) => e.id === id);
    return ext ? extensionLabel(ext) : `Extension ${id}`;
  };
  const tenantName = (id: number) => tenants.find((t) => t.id === id)?.name ?? `Tenant ${id}`;
  const [said, setSaid] = useState<string | null>(null);
  const done = (message: string) => {
    setSaid(message);
    setNaming(null);
    reload();
  };
  const several = tenants.length > 1;
  return (
    <section class="screen" aria-labelledby="numbers-title">
      <h1 id="numbers-title" tabIndex={-1}>
        Phone numbers
      </h1>
      <p>
        The numbers callers dial, with the caller-ID name (CNAM) shown to the people they call, the branch they belong to and the extension
        their text messages go to.
      </p>
      <NumberFilter tenants={tenants} onFilter={setFilter} />
      <Failure message={failed} />
      <p class="form-done" role="status">
        {said ?? ''}
      </p>
      <Table<PhoneNumberRecord>
        caption="Phone numbers"
        captionHidden
        rows={page?.records ?? []}
        rowKey={(n) => n.id}
        empty={page === null ? 'Loading…' : 'No phone number.'}
        columns={[
          { key: 'number', header: 'Number', rowHeader: true, cell: (n) => n.number },
          { key: 'cnam', header: 'Caller-ID name', cell: (n) => n.registeredCNAM ?? '' },
          ...(several ? [{ key: 'tenant', header: 'Tenant', cell: (n: PhoneNumberRecord) => tenantName(n.tenantId) }] : []),
          { key: 'branch', header: 'Branch', cell: (n) => branchName(n.branchId) },
          { key: 'sms', header: 'Texts to', cell: (n) => extensionName(n.smsExtId) },
          { key: 'fax', header: 'Fax', cell: (n) => n.fax ?? '' },
          {
            key: 'actions',
            header: 'Actions',
            cell: (n) => (
              <span class="actions">
                {can('admin.phone-numbers.update') && (
                  <button type="button" class="secondary" onClick={() => setNaming(n)}>
                    Caller-ID name<span class="visually-hidden"> of {n.number}</span>
                  </button>
                )}
                {can('admin.phone-numbers.delete') && (
                  <DeleteButton
                    what={n.number}
                    path={`/v2/admin/phone-numbers/${n.id}`}
                    onDone={() => done(`Number ${n.number} deleted.`)}
                  />
                )}
              </span>
            ),
          },
        ]}
      />
      <Pager page={page} label="phone numbers" onPage={setPageNo} />
      {naming && can('admin.phone-numbers.update') && (
        <CallerIdForm key={naming.id} number={naming} onDone={done} onCancel={() => setNaming(null)} />
      )}
      {!naming && can('admin.phone-numbers.create') && <NumberForm tenants={tenants} onDone={done} />}
    </section>
  );
}

/**
 * The list's filters, the API's own query parameters. They are sent once on "Show" to learn whether the API takes
 * them: its message about one (a number with no digit) appears under that field, and the list stays as it was.
 */
function NumberFilter(props: { tenants: readonly TenantChoice[]; onFilter: (q: Query) => void }) {
  const form = useForm(['tenantId', 'number', 'branchId', 'fax']);
  const [tenantId, setTenantId] = useState('');
  const { branches } = useTenantChoices(tenantId ? Number(tenantId) : props.tenants.length === 1 ? props.tenants[0]?.id : undefined);
  const [branchId, setBranchId] = useState('');
  return (
    <Form
      form={form}
      class="form inline filter"
      label="Filter the phone numbers"
      onSubmit={async (v) => {
        const q: Query = {
          tenantId: v.tenantId || undefined,
          number: v.number?.trim() || undefined,
          branchId: v.branchId || undefined,
          fax: v.fax === 'on' ? 1 : undefined,
        };
        await api.get<RecordPage<PhoneNumber>>('/v2/admin/phone-numbers', { ...q, recordsPerPage: 1 });
        props.onFilter(q);
      }}
    >
      {props.tenants.length > 1 && (
        <SelectField
          form={form}
          name="tenantId"
          label="Tenant"
          value={tenantId}
          onChange={(id) => {
            setTenantId(id);
            setBranchId('');
          }}
          none="All tenants"
          options={props.tenants.map((t) => ({ value: t.id, label: t.name }))}
        />
      )}
      <Field form={form} name="number" label="Number contains" inputMode="tel" maxLength={32} />
      <SelectField
        form={form}
        name="branchId"
        label="Branch"
        value={branchId}
        onChange={setBranchId}
        none="All branches"
        options={branches.map((b) => ({ value: b.id, label: b.name }))}
      />
      <Field form={form} name="fax" label="Fax numbers only" type="checkbox" />
      <Submit form={form} class="secondary">
        Show
      </Submit>
    </Form>
  );
}

/** The caller-ID name of one number (at most 15 characters, as carriers register it). */
function CallerIdForm(props: { number: PhoneNumberRecord; onDone: (message: string) => void; onCancel: () => void }) {
  const { number } = props;
  const form = useForm(['callerIdName']);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const title = `Caller-ID name of ${number.number}`;
  return (
    <div class="record-form">
      <h2 ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <Form
        form={form}
        label={title}
        onSubmit={async (v) => {
          const changed = await api.patch<PhoneNumber>(`/v2/admin/phone-numbers/caller-id-name/${number.id}`, {
            callerIdName: v.callerIdName ?? '',
          });
          props.onDone(`The caller-ID name of ${changed.number} is now “${changed.registeredCNAM ?? ''}”.`);
        }}
      >
        <Field
          form={form}
          name="callerIdName"
          label="Caller-ID name"
          defaultValue={number.registeredCNAM ?? ''}
          hint="What the people called see beside the number: at most 15 characters."
        />
        <div class="form-buttons">
          <Submit form={form}>Save the name</Submit>
          <button type="button" class="quiet" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </Form>
    </div>
  );
}

/** Add a number: its tenant and branch, the extension its texts go to, its caller-ID name. */
function NumberForm(props: { tenants: readonly TenantChoice[]; onDone: (message: string) => void }) {
  const form = useForm(['tenantId', 'number', 'branchId', 'smsExtId', 'registeredCNAM']);
  const [tenantId, setTenantId] = useState(props.tenants[0]?.id ?? session.value?.tenant.id);
  const { branches, extensions } = useTenantChoices(tenantId);
  const [branchId, setBranchId] = useState('');
  const [extId, setExtId] = useState('');
  return (
    <div class="record-form">
      <h2>Add a phone number</h2>
      <Form
        form={form}
        label="Add a phone number"
        onSubmit={async (v, el) => {
          const made = await api.post<PhoneNumber>('/v2/admin/phone-numbers', {
            tenantId: Number(v.tenantId ?? tenantId),
            number: (v.number ?? '').trim(),
            // An empty choice is sent as 0, which the API names as the field that is missing.
            branchId: Number(v.branchId || 0),
            smsExtId: Number(v.smsExtId || 0),
            registeredCNAM: v.registeredCNAM || null,
          });
          el.reset();
          props.onDone(`Number ${made.number} added to ${made.branch.name}.`);
        }}
      >
        {props.tenants.length > 1 && (
          <SelectField
            form={form}
            name="tenantId"
            label="Tenant"
            value={tenantId}
            onChange={(id) => {
              setTenantId(Number(id));
              setBranchId('');
              setExtId('');
            }}
            options={props.tenants.map((t) => ({ value: t.id, label: t.name }))}
          />
        )}
        <Field form={form} name="number" label="Number" inputMode="tel" hint="Digits, optionally after +." maxLength={21} required />
        <SelectField
          form={form}
          name="branchId"
          label="Branch"
          value={branchId}
          onChange={setBranchId}
          none="Choose a branch"
          options={branches.map((b) => ({ value: b.id, label: b.name }))}
        />
        <SelectField
          form={form}
          name="smsExtId"
          label="Extension its texts go to"
          value={extId}
          onChange={setExtId}
          none="Choose an extension"
          options={extensions.map((e) => ({ value: e.id, label: extensionLabel(e) }))}
        />
        <Field form={form} name="registeredCNAM" label="Caller-ID name" hint="At most 15 characters." />
        <Submit form={form}>Add the number</Submit>
      </Form>
    </div>
  );
}
