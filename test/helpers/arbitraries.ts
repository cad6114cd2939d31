import fc from 'fast-check';
import { SCHEMAS } from '../../src/validation/schemas';

/*
 * fast-check arbitraries driven by the JSON Schemas of schemas/: values a schema accepts (as far as this
 * generator understands the keywords our schemas use) and values it should refuse. The fuzz tests send
 * both to every route.
 */
type Schema = Record<string, unknown>;
const byId = new Map<string, Schema>(SCHEMAS.map((s) => [(s as { $id: string }).$id, s as Schema]));

/** Resolves "common#/$defs/id", "user" and "#/$defs/x" (relative to `base`). */
function resolveRef(ref: string, base: Schema): { schema: Schema; base: Schema } {
  const [file, pointer = ''] = ref.split('#');
  const root = file ? (byId.get(file) as Schema) : base;
  if (!root) throw new Error(`unknown $ref ${ref}`);
  let node: unknown = root;
  for (const part of pointer.split('/').filter(Boolean))
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return { schema: node as Schema, base: root };
}

const FORMATS: Record<string, fc.Arbitrary<string>> = {
  date: fc.date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  'date-time': fc.date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((d) => d.toISOString()),
  email: fc.constantFrom('a@example.test', 'ops@acme.example', 'x.y+z@mail.example'),
  uri: fc.constantFrom('https://hooks.example.test/a', 'http://127.0.0.1:9/x'),
  'iana-timezone': fc.constantFrom('UTC', 'America/Chicago', 'Europe/Paris', 'Asia/Tokyo'),
  'webhook-type': fc.constantFrom('STARTCALL', 'ENDCALL', 'NEWVOICEMAIL', 'REPORTSENT'),
};

/** Values that the schema (mostly) accepts. */
export function validOf(schema: Schema, base: Schema = schema, depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string' && Object.keys(schema).every((k) => ['$ref', 'description', 'title'].includes(k))) {
    const r = resolveRef(schema.$ref, base);
    return validOf(r.schema, r.base, depth + 1);
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (Array.isArray(schema.oneOf)) return fc.oneof(...(schema.oneOf as Schema[]).map((s) => validOf(s, base, depth + 1)));
  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : schema.type
      ? [schema.type as string]
      : schema.properties || schema.$ref
        ? ['object']
        : ['string'];
  return fc.oneof(...types.map((t) => ofType(t, schema, base, depth)));
}

function ofType(type: string, s: Schema, base: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number': {
      const min = typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : typeof s.minimum === 'number' ? s.minimum : -5;
      const max = typeof s.maximum === 'number' ? s.maximum : Math.max(min, 0) + 1000;
      return fc.integer({ min, max });
    }
    case 'string': {
      if (typeof s.format === 'string' && FORMATS[s.format]) return FORMATS[s.format] as fc.Arbitrary<string>;
      if (typeof s.pattern === 'string')
        return fc
          .stringMatching(new RegExp(s.pattern))
          .filter((x) => x.length <= ((s.maxLength as number) ?? 1e9) && x.length >= ((s.minLength as number) ?? 0));
      return fc.string({ minLength: (s.minLength as number) ?? 0, maxLength: Math.min((s.maxLength as number) ?? 20, 40) });
    }
    case 'array':
      return depth > 4 ? fc.constant([]) : fc.array(validOf((s.items as Schema) ?? {}, base, depth + 1), { maxLength: 3 });
    default:
      return objectOf(s, base, depth);
  }
}

function objectOf(s: Schema, base: Schema, depth: number): fc.Arbitrary<unknown> {
  // Properties from the schema itself and from an object-level $ref (e.g. webhook-create's $defs/fields).
  let props = { ...((s.properties as Record<string, Schema>) ?? {}) };
  let propBase = base;
  if (typeof s.$ref === 'string') {
    const r = resolveRef(s.$ref, base);
    props = { ...((r.schema.properties as Record<string, Schema>) ?? {}), ...props };
    propBase = r.base;
  }
  if (depth > 4) return fc.constant({});
  const required = new Set((s.required as string[]) ?? []);
  const entries = Object.entries(props).map(
    ([k, v]) => [k, validOf(v, k in ((s.properties as object) ?? {}) ? base : propBase, depth + 1)] as const,
  );
  return fc.record(Object.fromEntries(entries), { requiredKeys: [...required].filter((k) => k in props) });
}

/** Anything at all: what a careless or hostile client sends. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(
    fc.constantFrom('tenantId', 'name', 'id', 'url', 'queueId', 'startDate', 'callerIdName', '__proto__', 'constructor', 'x'),
    fc.jsonValue({ maxDepth: 2 }),
  ),
);

/** A valid value with one field replaced by something arbitrary, or dropped. */
export function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.jsonValue({ maxDepth: 1 }), fc.nat(), fc.boolean()).map(([v, junk, pick, drop]) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return junk;
    const keys = Object.keys(v);
    if (keys.length === 0) return { [String(pick)]: junk };
    const key = keys[pick % keys.length] as string;
    const copy: Record<string, unknown> = { ...(v as Record<string, unknown>) };
    if (drop) delete copy[key];
    else copy[key] = junk;
    return copy;
  });
}

export function schemaById(id: string): Schema {
  const s = byId.get(id);
  if (!s) throw new Error(`no schema ${id}`);
  return s;
}

/** Names of the free-form object properties anywhere in a schema (type object, no properties of their own): where any JSON may go. */
function freeFormKeys(schema: unknown, into = new Set<string>()): Set<string> {
  if (typeof schema !== 'object' || schema === null) return into;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      for (const [name, sub] of Object.entries(value as Record<string, Schema>)) {
        const types = ([] as unknown[]).concat(sub?.type ?? []);
        if (types.includes('object') && sub.properties === undefined && sub.$ref === undefined) into.add(name);
      }
    }
    freeFormKeys(value, into);
  }
  return into;
}

/** A request body given as JSON text: too deep for JSON.stringify on the sending side. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** `{"a":{"a":…1…}}`, `depth` objects deep, as text (JSON.stringify itself recurses and overflows first). */
export const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** A valid body with its free-form object fields (or, without any, its first field) nested thousands of levels deep (issue 16). */
export function deeplyNested(valid: fc.Arbitrary<unknown>, schema: Schema): fc.Arbitrary<RawJson> {
  const keys = [...freeFormKeys(schema)];
  const HOLE = '"__nested_here__"';
  return fc.tuple(valid, fc.integer({ min: 3000, max: 30000 })).map(([v, depth]) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return new RawJson(nestedText(depth));
    const targets = keys.length > 0 ? keys : Object.keys(v).slice(0, 1);
    const holed = JSON.stringify({ ...(v as Record<string, unknown>), ...Object.fromEntries(targets.map((k) => [k, '__nested_here__'])) });
    return new RawJson(holed.split(HOLE).join(nestedText(depth)));
  });
}

/** Numbers far past any limit, as JSON numbers and as the text of a query string (issue 16). */
export const EXTREME_NUMBERS = [1e16, 1e308, 2 ** 63, -1e16, 2 ** 53 + 2, 1.5e300];
export const extremeNumberText = fc.constantFrom(
  '1e16',
  '1e308',
  '9223372036854775808',
  '9007199254740993',
  '0x10',
  '+1',
  '01',
  '1.0',
  '-0',
  'Infinity',
  'NaN',
);

/** A valid body with every number in it, and a page, replaced by an extreme one. */
export function extremeNumbers(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.constantFrom(...EXTREME_NUMBERS)).map(([v, n]) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return n;
    const copy: Record<string, unknown> = { page: n };
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) copy[k] = typeof x === 'number' ? n : x;
    return copy;
  });
}
