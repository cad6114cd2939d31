import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { Field, Form, numberOrText, SelectField, TextAreaField, useForm, FormButtons } from '../components/form';
import {
  DeleteButton,
  Failure,
  Pager,
  TenantFilter,
  useRecordPage,
  useTenants,
  type RecordPage,
  type TenantChoice,
  EditButton,
  type RecordFormEvents,
  useEditing,
} from '../components/records';
import { Table } from '../components/table';
import { can, session } from '../session';
import type { Branch, Extension } from '../types';

/** The branches of the tenants shown (of one tenant, when the list is filtered), for names and choices. */
function useBranches(tenantId: number | undefined): readonly Branch[] {
  const [branches, setBranches] = useState<readonly Branch[]>([]);
  useEffect(() => {
    if (!can('admin.branches.read')) return;
    void api.get<RecordPage<Branch>>('/v2/admin/branches', { tenantId, paginated: 0 }).then(
      (p) => setBranches(p.records),
      () => undefined, // branches then show by number; the list itself says what failed
    );
  }, [tenantId]);
  return branches;
}

/** Aliases typed one a line → the API's list (empty lines left out; a line of blanks is sent, for the API to refuse). */
const aliasesOf = (text: string | undefined) => (text ?? '').split(/\r?\n/).filter((l) => l !== '');

/**
 * Extensions (GET/POST/PATCH/DELETE /v2/extensions): the PBX's extensions, which are also the agents of its queues,
 * paged and filtered by tenant as the API does. Each has the name the PBX's logs give it (peerName) and its agent
 * aliases, the other names the logs use for the same agent: the reports follow a change of them at once.
 */
export default function Extensions() {
  const tenants = useTenants();
  const [tenantId, setTenantId] = useState<number | undefined>(undefined);
  const { page, failed, setPageNo, reload } = useRecordPage<Extension>('/v2/extensions', { tenantId });
  const branches = useBranches(undefined);
  const { editing, setEditing, said, done, title } = useEditing<Extension>(reload);
  const branchName = (id: number | null) => (id === null ? '' : (branches.find((b) => b.id === id)?.name ?? `Branch ${id}`));
  const tenantName = (id: number) => tenants.find((t) => t.id === id)?.name ?? `Tenant ${id}`;
  return (
    <section class="screen" aria-labelledby="extensions-title">
      <h1 id="extensions-title" ref={title} tabIndex={-1}>
        Extensions
      </h1>
      <p>
        The PBX's extensions, each also an agent of its queues. The peer name is how the PBX's logs name the agent (PJSIP/201); its aliases
        are the other names they use for it (Local/201@from-queue/n, a MemberName): the reports count them as the same agent.
      </p>
      <TenantFilter tenants={tenants} value={tenantId} onChange={setTenantId} />
      <Failure message={failed} />
      <p class="form-done" role="status">
        {said ?? ''}
      </p>
      <Table<Extension>
        caption="Extensions"
        captionHidden
        rows={page?.records ?? []}
        rowKey={(e) => e.id}
        empty={page === null ? 'Loading…' : 'No extension.'}
        columns={[
          { key: 'number', header: 'Number', numeric: true, cell: (e) => e.extNum },
          { key: 'name', header: 'Name', rowHeader: true, cell: (e) => e.extName || e.peerName },
          ...(tenants.length > 1 ? [{ key: 'tenant', header: 'Tenant', cell: (e: Extension) => tenantName(e.tenantId) }] : []),
          { key: 'peer', header: 'Peer name', cell: (e) => e.peerName },
          {
            key: 'aliases',
            header: 'Agent aliases',
            cell: (e) =>
              e.agentAliases.length === 0 ? (
                ''
              ) : (
                <ul class="inline-list">
                  {e.agentAliases.map((a) => (
                    <li key={a}>{a}</li>
                  ))}
                </ul>
              ),
          },
          { key: 'branch', header: 'Branch', cell: (e) => branchName(e.branchId) },
          { key: 'callerId', header: 'Caller ID', cell: (e) => e.callerIdNumber },
          {
            key: 'actions',
            header: 'Actions',
            cell: (e) => (
              <span class="actions">
                {can('admin.extensions.update') && <EditButton what={e.extNum} onClick={() => setEditing(e)} />}
                {can('admin.extensions.delete') && (
                  <DeleteButton
                    what={`extension ${e.extNum}`}
                    path={`/v2/extensions/${e.id}`}
                    onDone={() => done(`Extension ${e.extNum} deleted.`)}
                  />
                )}
              </span>
            ),
          },
        ]}
      />
      <Pager page={page} label="extensions" onPage={setPageNo} />
      {(editing ? can('admin.extensions.update') : can('admin.extensions.create')) && (
        <ExtensionForm
          key={editing?.id ?? 'new'}
          extension={editing}
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

/** Add an extension, or change the one being edited (every field sent: `agentAliases` replaces the list). */
function ExtensionForm(
  props: {
    extension: Extension | null;
    tenants: readonly TenantChoice[];
    tenantId: number | undefined;
  } & RecordFormEvents,
) {
  const ext = props.extension;
  const form = useForm(['tenantId', 'extNum', 'extName', 'peerName', 'agentAliases', 'branchId', 'callerIdNumber']);
  const [tenantId, setTenantId] = useState(ext?.tenantId ?? props.tenantId ?? props.tenants[0]?.id ?? session.value?.tenant.id);
  const branches = useBranches(tenantId);
  // Chosen values are kept here: a select given its value again on a redraw would fall back to the first one.
  const [branchId, setBranchId] = useState(ext?.branchId ?? '');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (ext) heading.current?.focus();
  }, []);
  const title = ext ? `Change extension ${ext.extNum}` : 'Add an extension';
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
            extNum: numberOrText(v.extNum),
            extName: v.extName ?? '',
            peerName: v.peerName ?? '',
            agentAliases: aliasesOf(v.agentAliases),
            branchId: v.branchId ? Number(v.branchId) : null,
            callerIdNumber: v.callerIdNumber ?? '',
          };
          if (ext) {
            const changed = await api.patch<Extension>(`/v2/extensions/${ext.id}`, fields);
            props.onDone(`Extension ${changed.extNum} changed.`);
          } else {
            const made = await api.post<Extension>('/v2/extensions', { tenantId, ...fields });
            el.reset();
            props.onAdded();
            return `Extension ${made.extNum} added.`;
          }
        }}
      >
        {!ext && props.tenants.length > 1 && (
          <SelectField
            form={form}
            name="tenantId"
            label="Tenant"
            value={tenantId}
            onChange={(id) => {
              setTenantId(Number(id));
              setBranchId('');
            }}
            options={props.tenants.map((t) => ({ value: t.id, label: t.name }))}
          />
        )}
        <Field form={form} name="extNum" label="Number" inputMode="numeric" defaultValue={ext ? String(ext.extNum) : ''} required />
        <Field form={form} name="extName" label="Agent's name" defaultValue={ext?.extName} maxLength={200} hint="Asterisk's MemberName." />
        <Field
          form={form}
          name="peerName"
          label="Peer name"
          defaultValue={ext?.peerName}
          maxLength={200}
          required
          hint="How the PBX's logs name it, e.g. PJSIP/201."
        />
        <TextAreaField
          form={form}
          name="agentAliases"
          label="Agent aliases"
          value={ext?.agentAliases.join('\n') ?? ''}
          hint="Other names the PBX's logs use for this agent, one a line (e.g. Local/201@from-queue/n). The reports follow a change at once."
        />
        <SelectField
          form={form}
          name="branchId"
          label="Branch"
          none="No branch"
          value={branchId}
          onChange={(id) => setBranchId(id === '' ? '' : Number(id))}
          options={branches.map((b) => ({ value: b.id, label: b.name }))}
        />
        <Field form={form} name="callerIdNumber" label="Caller ID number" type="tel" defaultValue={ext?.callerIdNumber} maxLength={40} />
        <FormButtons form={form} editing={!!ext} add="Add the extension" onCancel={props.onCancel} />
      </Form>
    </div>
  );
}
