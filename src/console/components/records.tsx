import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Query } from '../api';
import { can, session } from '../session';
import { useForm } from './form';

/** A page of a list as every list of the API answers it (decisions.md §5b). */
export interface RecordPage<T> {
  readonly records: readonly T[];
  readonly page: number;
  readonly maxPage: number;
  readonly total: number;
}

/**
 * One page of an API list and what changes it: the filter (the list's own query parameters, e.g. `tenantId`), the
 * page number, and `reload` after a change. The console asks the API for each page; it never pages or filters by itself.
 */
export function useRecordPage<T>(path: string, filter: Query = {}, recordsPerPage = 25) {
  const [page, setPage] = useState<RecordPage<T> | null>(null);
  const [pageNo, setPageNo] = useState(1);
  const [failed, setFailed] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const key = JSON.stringify(filter);
  useEffect(() => setPageNo(1), [key]);
  useEffect(() => {
    let live = true;
    setFailed(null);
    api.get<RecordPage<T>>(path, { ...filter, page: pageNo, recordsPerPage }).then(
      (p) => live && setPage(p),
      (e: Error) => live && setFailed(e.message),
    );
    return () => {
      live = false;
    };
  }, [path, key, pageNo, version]);
  return { page, failed, setPageNo, reload: () => setVersion((v) => v + 1) };
}

/** Previous and next page of a list, with where the reader is ("Page 2 of 7, 160 records"). */
export function Pager(props: { page: RecordPage<unknown> | null; label: string; onPage: (n: number) => void }) {
  const { page } = props;
  if (!page) return null;
  if (page.maxPage <= 1 && page.page <= 1) return <p class="pager">{page.total === 1 ? '1 record' : `${page.total} records`}</p>;
  return (
    <nav class="pager" aria-label={`Pages of ${props.label}`}>
      <button type="button" class="secondary" disabled={page.page <= 1} onClick={() => props.onPage(page.page - 1)}>
        Previous page
      </button>
      <span>
        Page {page.page} of {page.maxPage}, {page.total} {page.total === 1 ? 'record' : 'records'}
      </span>
      <button type="button" class="secondary" disabled={page.page >= page.maxPage} onClick={() => props.onPage(page.page + 1)}>
        Next page
      </button>
    </nav>
  );
}

/**
 * Delete with a second step ("Delete Sales now" / "Keep it"). The API's refusal is shown as it words it: a 409 names
 * what still depends on the record ("Branch 3 still has 2 users, 1 extension: move them to another branch first").
 */
export function DeleteButton(props: { what: string; path: string; onDone: () => void; verb?: string; children?: ComponentChildren }) {
  const [sure, setSure] = useState(false);
  const form = useForm([]);
  const verb = props.verb ?? 'Delete';
  if (!sure)
    return (
      <button type="button" class="secondary" onClick={() => setSure(true)}>
        {verb}
        <span class="visually-hidden"> {props.what}</span>
      </button>
    );
  return (
    <span class="confirm">
      {form.error.value && (
        <span class="form-error" role="alert">
          {form.error.value}{' '}
        </span>
      )}
      {props.children}
      <button
        type="button"
        class="danger"
        disabled={form.busy.value}
        onClick={() =>
          void form.submit(async () => {
            await api.del(props.path);
            props.onDone();
          })
        }
      >
        {verb} {props.what} now
      </button>{' '}
      <button type="button" class="quiet" onClick={() => setSure(false)}>
        Keep it
      </button>
    </span>
  );
}

/** A row's "Edit" (or another verb) button, naming its record for screen readers ("Edit Sales"). */
export function EditButton(props: { what: string | number; onClick: () => void; children?: ComponentChildren }) {
  return (
    <button type="button" class="secondary" onClick={props.onClick}>
      {props.children ?? 'Edit'}
      <span class="visually-hidden"> {props.what}</span>
    </button>
  );
}

/** What a directory screen's add-or-change form tells its screen. */
export interface RecordFormEvents {
  /** A record was changed (or deleted): the message goes under the screen's title. */
  onDone: (message: string) => void;
  /** A record was added: the form says so itself and stays for the next one. */
  onAdded: () => void;
  onCancel: () => void;
}

/**
 * A directory screen's editing state: the record being changed, the message of the last change, and `done`, which
 * after a change or a delete (the form or row is gone) says the message, reads the list again and moves focus to the
 * screen's title (`title`, its ref), the message under it.
 */
export function useEditing<T>(reload: () => void) {
  const [editing, setEditing] = useState<T | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const title = useRef<HTMLHeadingElement>(null);
  const done = (message: string) => {
    setSaid(message);
    setEditing(null);
    reload();
    title.current?.focus();
  };
  return { editing, setEditing, said, done, title };
}

/** A screen's error line (a list that did not load), announced. */
export function Failure(props: { message: string | null }) {
  return props.message ? (
    <p class="form-error" role="alert">
      {props.message}
    </p>
  ) : null;
}

/** A tenant as a choice of the directory's screens. */
export interface TenantChoice {
  readonly id: number;
  readonly name: string;
}

/**
 * The tenants the user may choose among: every tenant it reaches (GET /v2/admin/tenants, for platform and partner
 * admins), else its own one. A screen shows the tenant filter and a tenant field only when there is a choice.
 */
export function useTenants(): readonly TenantChoice[] {
  const own = session.value?.tenant;
  const [tenants, setTenants] = useState<readonly TenantChoice[]>(own ? [{ id: own.id, name: own.name }] : []);
  useEffect(() => {
    if (!can('admin.tenants.read')) return;
    void api.get<RecordPage<TenantChoice>>('/v2/admin/tenants', { paginated: 0 }).then(
      (p) => setTenants(p.records.map((t) => ({ id: t.id, name: t.name }))),
      () => undefined, // the filter stays on the user's own tenant; the list itself says what failed
    );
  }, []);
  return tenants;
}

/** The list's `tenantId` filter ("All tenants" or one), for users who reach several tenants; nothing otherwise. */
export function TenantFilter(props: {
  tenants: readonly TenantChoice[];
  value: number | undefined;
  onChange: (id: number | undefined) => void;
}) {
  if (props.tenants.length < 2) return null;
  return (
    <div class="field inline filter">
      <label for="tenant-filter">Tenant</label>
      <select
        id="tenant-filter"
        value={props.value === undefined ? '' : String(props.value)}
        onChange={(e) => props.onChange(e.currentTarget.value === '' ? undefined : Number(e.currentTarget.value))}
      >
        <option value="">All tenants</option>
        {props.tenants.map((t) => (
          <option key={t.id} value={String(t.id)}>
            {t.name}
          </option>
        ))}
      </select>
    </div>
  );
}
