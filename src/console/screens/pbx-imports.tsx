import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from '../api';
import { Field, Form, Submit, useForm } from '../components/form';
import { Failure, Pager, useRecordPage } from '../components/records';
import { Table } from '../components/table';
import { session, timezone } from '../session';
import { dateTime, integer, zoneName } from '../time';
import type { Extension, ExtensionPage, MappingHint, PbxImport } from '../types';

const SOURCE: Record<PbxImport['source'], string> = {
  file: 'tars import',
  follow: 'tars import --follow',
  ingest: 'Sent over HTTP',
  again: 'Import again',
};
const KIND: Record<PbxImport['kind'], string> = { queue_log: 'queue_log', cdr: 'CDR (Master.csv)' };

const unknownCount = (i: PbxImport) => Object.keys(i.summary.unknownAgents).length + Object.keys(i.summary.unknownQueues).length;
const fileName = (path: string | null) => (path === null ? '' : (path.split('/').pop() ?? path));

/**
 * Recent imports (GET /v2/pbx/imports): every import of PBX log lines with its figures; an import's details show
 * its skipped lines by reason and every unknown queue or agent name with the action that maps it, as the API does
 * what the CLI's hint (`toMap[].command`) says: add the queue (POST /v2/queues), add an alias to an extension
 * (PATCH /v2/extensions/{id}), add the extension (POST /v2/extensions). "Import again" (POST
 * /v2/pbx/imports/{id}/again, a file of the server) then counts the kept lines for the agent.
 */
export default function PbxImports() {
  const zone = timezone.value;
  const { page, failed, setPageNo, reload } = useRecordPage<PbxImport>('/v2/pbx/imports', {}, 20);
  const [openId, setOpenId] = useState<number | null>(null);
  const open = page?.records.find((r) => r.id === openId) ?? null;
  return (
    <section class="screen" aria-labelledby="imports-title">
      <h1 id="imports-title" tabIndex={-1}>
        Recent imports
      </h1>
      <p>
        Every import of the PBX's logs (queue_log and Master.csv): by <code>tars import</code>, <code>--follow</code>, lines sent over HTTP,
        or “Import again”. A name that matches no queue or extension is listed in the import's details with what maps it.
      </p>
      <Failure message={failed} />
      <Table<PbxImport>
        caption={`Imports, newest first (times in ${zoneName(zone)})`}
        rows={page?.records ?? []}
        rowKey={(i) => i.id}
        empty={page === null ? 'Loading…' : 'No import yet.'}
        class="imports-table"
        columns={[
          { key: 'when', header: 'When', rowHeader: true, cell: (i) => dateTime(i.finishedAt, zone) },
          { key: 'source', header: 'How', cell: (i) => SOURCE[i.source] },
          { key: 'kind', header: 'Log', cell: (i) => KIND[i.kind] },
          { key: 'file', header: 'File', cell: (i) => (i.path ? <code title={i.path}>{fileName(i.path)}</code> : '–') },
          { key: 'read', header: 'Lines read', numeric: true, cell: (i) => integer(i.summary.read) },
          { key: 'imported', header: 'Imported', numeric: true, cell: (i) => integer(i.summary.imported) },
          { key: 'skipped', header: 'Skipped', numeric: true, cell: (i) => integer(i.summary.skipped) },
          { key: 'unknown', header: 'Unknown names', numeric: true, cell: (i) => integer(unknownCount(i)) },
          {
            key: 'details',
            header: 'Details',
            cell: (i) => (
              <button
                type="button"
                class="secondary"
                aria-expanded={openId === i.id}
                onClick={() => setOpenId(openId === i.id ? null : i.id)}
              >
                Details<span class="visually-hidden"> of import {i.id}</span>
              </button>
            ),
          },
        ]}
      />
      <Pager page={page} label="imports" onPage={setPageNo} />
      {open && (
        <ImportDetails
          key={open.id}
          imp={open}
          zone={zone}
          onAgain={(made) => {
            setPageNo(1);
            setOpenId(made.id);
            reload();
          }}
        />
      )}
    </section>
  );
}

function ImportDetails(props: { imp: PbxImport; zone: string; onAgain: (made: PbxImport) => void }) {
  const { imp, zone } = props;
  const s = imp.summary;
  const skips = Object.entries(s.skippedBy);
  const mapped = Object.entries(imp.nowMapped);
  return (
    <article class="import-card" aria-labelledby="import-details-title">
      <h2 id="import-details-title">
        Import {imp.id}: {KIND[imp.kind]}, {dateTime(imp.finishedAt, zone)}
      </h2>
      {imp.path && (
        <p class="path">
          File on the server: <code>{imp.path}</code>
        </p>
      )}
      <dl>
        <div>
          <dt>Lines read</dt>
          <dd>{integer(s.read)}</dd>
        </div>
        <div>
          <dt>Imported</dt>
          <dd>{integer(s.imported)}</dd>
        </div>
        <div>
          <dt>Duplicates</dt>
          <dd>{integer(s.duplicates)}</dd>
        </div>
        <div>
          <dt>Skipped</dt>
          <dd>{integer(s.skipped)}</dd>
        </div>
        <div>
          <dt>Times read in</dt>
          <dd>{s.timezone}</dd>
        </div>
      </dl>
      {skips.length > 0 && (
        <Table<[string, number]>
          caption="Skipped lines by reason"
          rows={skips}
          rowKey={([r]) => r}
          columns={[
            { key: 'reason', header: 'Reason', rowHeader: true, cell: ([r]) => r },
            { key: 'lines', header: 'Lines', numeric: true, cell: ([, n]) => integer(n) },
          ]}
        />
      )}
      {mapped.length > 0 && (
        <div class="banner banner-info" role="status">
          <p>Mapped since the import it read again; their kept lines now count for them:</p>
          <ul>
            {mapped.map(([name, lines]) => (
              <li key={name}>
                {name}: {integer(lines)} line{lines === 1 ? '' : 's'}
              </li>
            ))}
          </ul>
        </div>
      )}
      {s.toMap.length > 0 ? (
        <>
          <h3>Unknown names</h3>
          <p>
            Lines of an unknown agent were kept and count for the agent once the name is mapped. Lines of an unknown queue were skipped:
            import the file again after adding the queue.
          </p>
          <ul class="map-list">
            {s.toMap.map((h) => (
              <li key={h.names.join('\u0000')} class="map-action">
                <MapAction hint={h} />
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p>Every queue and agent name of this import is known.</p>
      )}
      {imp.path && <ImportAgain imp={imp} onDone={props.onAgain} />}
    </article>
  );
}

const lineCount = (n: number) => `${integer(n)} line${n === 1 ? '' : 's'}`;

/** One unknown name (or an interface and its member name) and the API call that maps it, as the CLI's command would. */
function MapAction(props: { hint: MappingHint }) {
  const h = props.hint;
  const [name = '', display] = h.names;
  const label = h.names.map((n) => `“${n}”`).join(' = ');
  return (
    <div>
      <p>
        <strong>
          {h.kind === 'queue' ? 'Queue' : 'Agent'} {label}
        </strong>
        : {lineCount(h.lines)}. CLI: <code>{h.command}</code>
      </p>
      {h.action === 'add-queue' && <AddQueue name={name} tenantId={h.tenantId} />}
      {h.action === 'add-extension' && (
        <AddExtension peer={name} name={display ?? ''} extNum={h.extension ?? ''} tenantId={h.tenantId ?? 0} />
      )}
      {h.action === 'add-alias' && <AddAlias alias={name} extNum={h.extension} tenantId={h.tenantId ?? 0} />}
    </div>
  );
}

function AddQueue(props: { name: string; tenantId: number | null }) {
  const form = useForm(['tenantId', 'name', 'logName']);
  const [done, setDone] = useState(false);
  if (done) return <p role="status">Queue “{props.name}” added: import the file again to store its lines.</p>;
  return (
    <Form
      form={form}
      label={`Add the queue ${props.name}`}
      onSubmit={async (v) => {
        await api.post('/v2/queues', {
          tenantId: Number(v.tenantId ?? props.tenantId),
          name: (v.name ?? '').trim(),
          logName: props.name,
        });
        setDone(true);
      }}
    >
      {props.tenantId === null && (
        <Field
          form={form}
          name="tenantId"
          label="Tenant id"
          inputMode="numeric"
          defaultValue={String(session.value?.tenant.id ?? '')}
          required
        />
      )}
      <Field form={form} name="name" label={`Name of queue “${props.name}”`} defaultValue={props.name} maxLength={100} required />
      <Submit form={form} class="secondary">
        Add the queue
      </Submit>
    </Form>
  );
}

function AddExtension(props: { peer: string; name: string; extNum: string; tenantId: number }) {
  const form = useForm(['extNum', 'extName', 'peerName']);
  const [done, setDone] = useState<string | null>(null);
  if (done) return <p role="status">{done}</p>;
  return (
    <Form
      form={form}
      label={`Add the extension of ${props.peer}`}
      onSubmit={async (v) => {
        const made = await api.post<Extension>('/v2/extensions', {
          tenantId: props.tenantId,
          extNum: Number(v.extNum),
          peerName: props.peer,
          ...(v.extName ? { extName: v.extName.trim() } : {}),
        });
        setDone(`Extension ${made.extNum} added: its lines now count for it.`);
      }}
    >
      <Field form={form} name="extNum" label="Extension number" inputMode="numeric" defaultValue={props.extNum} required />
      <Field form={form} name="extName" label="Name" defaultValue={props.name} maxLength={100} />
      <Submit form={form} class="secondary">
        Add extension {props.extNum} ({props.peer})
      </Submit>
    </Form>
  );
}

/** Adds the name to an extension's agent aliases: the one its number names, or the one chosen. */
function AddAlias(props: { alias: string; extNum: string | null; tenantId: number }) {
  const form = useForm(['agentAliases', 'extension']);
  const [extensions, setExtensions] = useState<Extension[] | null>(null);
  const [done, setDone] = useState<string | null>(null);
  useEffect(() => {
    void api.get<ExtensionPage>('/v2/extensions', { tenantId: props.tenantId, paginated: 0 }).then(
      (p) => setExtensions(p.records),
      (e: Error) => (form.error.value = e.message),
    );
  }, []);
  const sorted = useMemo(() => [...(extensions ?? [])].sort((a, b) => a.extNum - b.extNum), [extensions]);
  const fixed = props.extNum === null ? undefined : sorted.find((e) => String(e.extNum) === props.extNum);
  // Mapped since this import (here, by the API or a sync): the name is an extension's peer, name or alias now.
  const key = props.alias.toLowerCase();
  const known = sorted.find((e) => [e.peerName, e.extName ?? '', ...e.agentAliases].some((n) => n.toLowerCase() === key));
  const selectId = `alias-ext-${props.alias.replace(/[^A-Za-z0-9]/g, '-')}`;
  if (done) return <p role="status">{done}</p>;
  if (known)
    return (
      <p>
        Known now: extension {known.extNum} has “{props.alias}”. An import again counts these lines for it.
      </p>
    );
  return (
    <Form
      form={form}
      label={`Add ${props.alias} as an alias`}
      onSubmit={async (v) => {
        const ext = fixed ?? sorted.find((e) => String(e.id) === v.extension);
        if (!ext) {
          form.fieldErrors.value = { extension: 'extension: choose the extension this agent is' };
          throw new Error('Please correct the fields marked below.');
        }
        await api.patch<Extension>(`/v2/extensions/${ext.id}`, { agentAliases: [...ext.agentAliases, props.alias] });
        setDone(`“${props.alias}” is now an alias of extension ${ext.extNum}: its lines count for it.`);
      }}
    >
      {fixed === undefined && (
        <div class="field">
          <label for={selectId}>Extension “{props.alias}” is</label>
          <select
            id={selectId}
            name="extension"
            required
            aria-invalid={form.fieldErrors.value.extension ? 'true' : undefined}
            aria-describedby={form.fieldErrors.value.extension ? `${selectId}-error` : undefined}
          >
            <option value="">Choose…</option>
            {sorted.map((e) => (
              <option key={e.id} value={e.id}>
                {e.extNum} {e.extName ? `(${e.extName})` : ''} {e.peerName}
              </option>
            ))}
          </select>
          {form.fieldErrors.value.extension && (
            <p class="field-error" id={`${selectId}-error`}>
              {form.fieldErrors.value.extension}
            </p>
          )}
        </div>
      )}
      {form.fieldErrors.value.agentAliases && <p class="field-error">{form.fieldErrors.value.agentAliases}</p>}
      <Submit form={form} class="secondary">
        Add “{props.alias}” as an alias{fixed ? ` of extension ${fixed.extNum}` : ''}
      </Submit>
    </Form>
  );
}

function ImportAgain(props: { imp: PbxImport; onDone: (made: PbxImport) => void }) {
  const form = useForm([]);
  return (
    <Form
      form={form}
      label={`Import ${fileName(props.imp.path)} again`}
      onSubmit={async () => {
        const made = await api.post<PbxImport>(`/v2/pbx/imports/${props.imp.id}/again`);
        props.onDone(made);
      }}
    >
      <p>
        Reads <code>{props.imp.path}</code> again: lines stored before are duplicates, lines of queues added since are stored, and names
        mapped since count for their agent.
      </p>
      <Submit form={form}>Import again</Submit>
    </Form>
  );
}
