import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { badRequest } from '../errors';
import { isWebhookEventType, WEBHOOK_EVENT_TYPES } from '../modules/webhooks/event-types';
import { numbersNotPlain } from './plain-numbers';
import { SCHEMAS } from './schemas';

/**
 * Every JSON Schema of schemas/, loaded once into ajv (keyed by $id) and compiled once, at start.
 * Bodies are validated as sent (no coercion; defaults filled in); query strings and path parameters
 * arrive as text, so their validator coerces "12" to 12 and a lone value to a one-element array.
 */
export type SchemaId = string;

const IANA_TIMEZONES = new Set(['UTC', ...Intl.supportedValuesOf('timeZone')]);

/** Formats of our own, with the sentence a failure gets. */
const FORMAT_MESSAGES: Readonly<Record<string, string>> = {
  'iana-timezone': 'must be an IANA timezone name such as Europe/Paris',
  email: 'must be an e-mail address',
  'date-time': 'must be an ISO 8601 timestamp',
  uri: 'must be an absolute URL',
  'webhook-type': `must be one of: ${WEBHOOK_EVENT_TYPES.map((t) => t.type).join(', ')}`,
};

export function isTimezone(name: string): boolean {
  return IANA_TIMEZONES.has(name) || isKnownZone(name);
}

function isKnownZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return /^[A-Za-z]+(?:[/_+-][A-Za-z0-9_+-]+)*$/.test(name);
  } catch {
    return false;
  }
}

function makeAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    verbose: true,
  });
  addFormats(ajv);
  ajv.addFormat('iana-timezone', { type: 'string', validate: isTimezone });
  // The webhook event types live in one catalogue (src/modules/webhooks/event-types.ts), not in a schema enum.
  ajv.addFormat('webhook-type', { type: 'string', validate: isWebhookEventType });
  // An annotation: the sentence to show when a `pattern` fails (schemas may carry OpenAPI-style x- keys).
  ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-addition', schemaType: 'boolean' });
  for (const schema of SCHEMAS) ajv.addSchema(schema);
  return ajv;
}

export class Validator {
  private readonly bodyAjv = makeAjv(false);
  private readonly textAjv = makeAjv(true);
  private readonly bodyCache = new Map<SchemaId, ValidateFunction>();
  private readonly textCache = new Map<SchemaId, ValidateFunction>();

  /** Compile every schema now, so that a broken schema stops the start, not the first request. */
  compileAll(): void {
    for (const schema of SCHEMAS) {
      const id = (schema as { $id: string }).$id;
      this.fn(this.bodyAjv, this.bodyCache, id);
      this.fn(this.textAjv, this.textCache, id);
    }
  }

  /** Validates (and fills defaults into) a JSON body; throws 400 listing every problem. */
  body<T>(id: SchemaId, value: unknown): T {
    return this.check(this.fn(this.bodyAjv, this.bodyCache, id), value) as T;
  }

  /** Validates a query string or path parameters (text, coerced); throws 400 listing every problem. */
  text<T>(id: SchemaId, value: Record<string, unknown>): T {
    const copy = { ...value };
    const checked = this.check(this.fn(this.textAjv, this.textCache, id), copy) as T;
    const loose = numbersNotPlain(value, copy);
    if (loose.length > 0) throw badRequest(loose);
    return checked;
  }

  /** Problems of a value against a schema (no throw): for response checks and tests. */
  problems(id: SchemaId, value: unknown): string[] {
    const fn = this.fn(this.bodyAjv, this.bodyCache, id);
    return fn(structuredClone(value)) ? [] : describeErrors(fn.errors ?? []);
  }

  private check(fn: ValidateFunction, value: unknown): unknown {
    if (fn(value)) return value;
    throw badRequest(describeErrors(fn.errors ?? []));
  }

  private fn(ajv: Ajv2020, cache: Map<SchemaId, ValidateFunction>, id: SchemaId): ValidateFunction {
    let fn = cache.get(id);
    if (!fn) {
      fn = ajv.getSchema(id);
      if (!fn) throw new Error(`no schema with $id "${id}" in schemas/`);
      cache.set(id, fn);
    }
    return fn;
  }
}

/** "/address/streetNum" → "address.streetNum"; "/queueId/1" → "queueId[1]". */
function fieldOf(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out || 'the body';
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** One plain sentence per problem, naming the field (decisions.md §2). */
export function describeErrors(errors: readonly ErrorObject[]): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const p = e.params as Record<string, unknown>;
    const field = fieldOf(e.instancePath);
    const parent = (e.parentSchema ?? {}) as Record<string, unknown>;
    switch (e.keyword) {
      case 'required':
        out.push(`${fieldOf(e.instancePath, String(p.missingProperty))} is required`);
        break;
      case 'additionalProperties':
        out.push(`${fieldOf(e.instancePath, String(p.additionalProperty))} is not an allowed property`);
        break;
      case 'unevaluatedProperties':
        out.push(`${fieldOf(e.instancePath, String(p.unevaluatedProperty))} is not an allowed property`);
        break;
      case 'type': {
        const types = String(p.type).split(',').map((t) => TYPE_NAMES[t] ?? t);
        out.push(`${field} must be ${types.join(' or ')}`);
        break;
      }
      case 'exclusiveMinimum':
        out.push(`${field} must be greater than ${String(p.limit)}`);
        break;
      case 'minimum':
        out.push(`${field} must be at least ${String(p.limit)}`);
        break;
      case 'maximum':
        out.push(`${field} must be at most ${String(p.limit)}`);
        break;
      case 'exclusiveMaximum':
        out.push(`${field} must be less than ${String(p.limit)}`);
        break;
      case 'minLength':
        out.push(p.limit === 1 ? `${field} must not be empty` : `${field} must be at least ${String(p.limit)} characters long`);
        break;
      case 'maxLength':
        out.push(`${field} must be at most ${String(p.limit)} characters long`);
        break;
      case 'minItems':
        out.push(`${field} must have at least ${String(p.limit)} element(s)`);
        break;
      case 'maxItems':
        out.push(`${field} must have at most ${String(p.limit)} element(s)`);
        break;
      case 'enum':
        out.push(`${field} must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`);
        break;
      case 'const':
        out.push(`${field} must be ${JSON.stringify(p.allowedValue)}`);
        break;
      case 'format':
        out.push(`${field} ${FORMAT_MESSAGES[String(p.format)] ?? `must be a valid ${String(p.format)}`}`);
        break;
      case 'pattern':
        out.push(`${field} ${typeof parent['x-message'] === 'string' ? parent['x-message'] : `must match ${String(p.pattern)}`}`);
        break;
      case 'uniqueItems':
        out.push(`${field} must not repeat an element`);
        break;
      case 'if':
      case 'anyOf':
      case 'oneOf':
      case 'allOf':
        // The failing branch reports its own, more precise, errors.
        break;
      default:
        out.push(`${field} ${e.message ?? 'is invalid'}`);
    }
  }
  return [...new Set(out)];
}
