import { SCHEMAS } from '../validation/schemas';

/**
 * The schema files of schemas/ as OpenAPI components. OpenAPI 3.1 schema objects are JSON Schema 2020-12, so
 * a file becomes a component as it is, minus its $id; each entry of its $defs becomes a component of its own,
 * named file.def ("common#/$defs/id" → "#/components/schemas/common.id"). Hoisting the $defs keeps every
 * reference short and out of schemas that carry a $ref themselves, which some resolvers (Swagger UI's among
 * them) do not walk through. Only the components the routes reach are included.
 */
type Json = Record<string, unknown>;

const RAW: ReadonlyMap<string, Json> = new Map((SCHEMAS as Json[]).map((s) => [s.$id as string, s]));

/** The $ref of a reference written inside the schema file `owner`. */
export function componentRef(ref: string, owner: string): string {
  const [file, pointer = ''] = ref.split('#');
  const id = file || owner;
  const def = /^\/\$defs\/([^/]+)(.*)$/.exec(pointer);
  return def ? `#/components/schemas/${id}.${def[1]}${def[2]}` : `#/components/schemas/${id}${pointer}`;
}

/** A piece of the schema file `owner`, ready to sit in the document: no $id, references rewritten. */
export function rewrite(node: unknown, owner: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rewrite(n, owner));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') out.$ref = componentRef(value, owner);
    else if (key !== '$id') out[key] = rewrite(value, owner);
  }
  return out;
}

/** The component of that name: a whole file without its $defs, or one of its $defs. */
function component(name: string): Json {
  const [id, def] = name.split('.') as [string, string | undefined];
  const file = RAW.get(id);
  const source = def === undefined ? file : (file?.$defs as Json | undefined)?.[def];
  if (!source || typeof source !== 'object')
    throw new Error(`no schema ${def === undefined ? `with $id "${id}"` : `${id}#/$defs/${def}`} in schemas/`);
  const schema = rewrite(source, id) as Json;
  if (def === undefined) delete schema.$defs;
  return schema;
}

const referencedBy = (value: unknown) =>
  [...JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^/"]+)/g)].map((m) => m[1] as string);

/** The components that `referrer` (paths, responses) uses, directly or through other components, by name. */
export function componentSchemas(referrer: unknown): Record<string, Json> {
  const out: Record<string, Json> = {};
  const visit = (name: string) => {
    if (out[name]) return;
    out[name] = component(name);
    referencedBy(out[name]).forEach(visit);
  };
  referencedBy(referrer).forEach(visit);
  return Object.fromEntries(
    Object.keys(out)
      .sort()
      .map((k) => [k, out[k] as Json]),
  );
}

export interface Shape {
  properties: Record<string, { schema: unknown; owner: string }>;
  required: string[];
}

/** The properties of an object schema, following $ref and allOf (query schemas may be composed). */
export function objectShape(ref: string, owner: string): Shape {
  const { schema, id } = resolve(ref, owner);
  return shapeOf(schema, id);
}

function shapeOf(schema: Json, owner: string): Shape {
  const properties = Object.entries((schema.properties as Json | undefined) ?? {}).map(([k, v]) => [k, { schema: v, owner }] as const);
  const shape: Shape = { properties: Object.fromEntries(properties), required: [...((schema.required as string[] | undefined) ?? [])] };
  const inner = [
    ...(typeof schema.$ref === 'string' ? [objectShape(schema.$ref, owner)] : []),
    ...((schema.allOf as Json[] | undefined) ?? []).map((part) => shapeOf(part, owner)),
  ];
  for (const part of inner) {
    Object.assign(shape.properties, part.properties);
    shape.required.push(...part.required);
  }
  return shape;
}

/** "calls-query", "common#/$defs/paging" or "#/$defs/x" (inside `owner`) → that schema and the file it is in. */
function resolve(ref: string, owner: string): { schema: Json; id: string } {
  const [file, pointer = ''] = ref.split('#');
  const id = file || owner;
  let node: unknown = RAW.get(id);
  for (const key of pointer.split('/').filter(Boolean)) node = (node as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')];
  if (!node || typeof node !== 'object') throw new Error(`schema reference ${ref} (in ${owner || 'a route'}) leads nowhere`);
  return { schema: node as Json, id };
}
