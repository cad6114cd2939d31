import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import type { RecordPage } from '../components/records';
import type { BranchChoice, ExtensionChoice } from '../types';

/**
 * The branches and extensions of one tenant, as the choices of a user's or a phone number's form (GET
 * /v2/admin/branches and /v2/extensions, every record: `paginated=0`). Empty until they are in, or when the user may
 * not read them (the form then offers none, and the API still judges what is sent).
 */
export function useTenantChoices(tenantId: number | undefined): {
  branches: readonly BranchChoice[];
  extensions: readonly ExtensionChoice[];
} {
  const [branches, setBranches] = useState<readonly BranchChoice[]>([]);
  const [extensions, setExtensions] = useState<readonly ExtensionChoice[]>([]);
  useEffect(() => {
    if (tenantId === undefined) return;
    let live = true;
    const all = { tenantId, paginated: 0 };
    void api.get<RecordPage<BranchChoice>>('/v2/admin/branches', all).then(
      (p) => live && setBranches(p.records),
      () => live && setBranches([]),
    );
    void api.get<RecordPage<ExtensionChoice>>('/v2/extensions', all).then(
      (p) => live && setExtensions(p.records),
      () => live && setExtensions([]),
    );
    return () => {
      live = false;
    };
  }, [tenantId]);
  return { branches, extensions };
}

export const extensionLabel = (e: ExtensionChoice): string => (e.extName ? `${e.extNum} ${e.extName}` : String(e.extNum));

/** A form's optional id: "" (the choice "none") is null, else the number. */
export const idOrNull = (value: string | undefined): number | null => (value ? Number(value) : null);
