import type { ErrorObject, ValidateFunction } from 'ajv';
import { badRequest } from '../errors';
import compiled from './compiled-validators.cjs';
import { formatMessage } from './formats';
import { numbersNotPlain } from './plain-numbers';
import type { SchemaId, SchemaTypes } from './schema-types';

/**
 * Every JSON Schema of schemas/, compiled at build time by ajv (scripts/gen-validators.ts), keyed by $id.
 * Bodies are validated as sent (no coercion; defaults filled in); query strings and path parameters
 * arrive as text, so their validator coerces "12" to 12 and a lone value to a one-element array.
 */
export type { SchemaId } from './schema-types';

export class Validator {
  /** Validates (and fills defaults into) a JSON body; throws 400 listing every problem. */
  body<Id extends SchemaId>(id: Id, value: unknown): SchemaTypes[Id] {
    return check(validatorOf(compiled.body, id), value) as SchemaTypes[Id];
  }

  /** Validates a query string or path parameters (text, coerced); throws 400 listing every problem. */
  text<Id extends SchemaId>(id: Id, value: Record<string, unknown>): SchemaTypes[Id] {
    const copy = { ...value };
    const checked = check(validatorOf(compiled.text, id), copy) as SchemaTypes[Id];
    const loose = numbersNotPlain(value, copy);
    if (loose.length > 0) throw badRequest(loose);
    return checked;
  }

  /** Problems of a value against a schema (no throw): for response checks and tests. */
  problems(id: SchemaId, value: unknown): string[] {
    const fn = validatorOf(compiled.body, id);
    return fn(structuredClone(value)) ? [] : describeErrors(fn.errors ?? []);
  }
}

function check(fn: ValidateFunction, value: unknown): unknown {
  if (fn(value)) return value;
  throw badRequest(describeErrors(fn.errors ?? []));
}

function validatorOf(set: Readonly<Record<string, ValidateFunction>>, id: SchemaId): ValidateFunction {
  const fn = set[id];
  if (!fn) throw new Error(`no schema with $id "${id}" in schemas/`);
  return fn;
}

/** "/address/streetNum" → "address.streetNum"; "/queueId/1" → "queueId[1]". */
function fieldOf(instancePath: string, child?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
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
        const types = String(p.type)
          .split(',')
          .map((t) => TYPE_NAMES[t] ?? t);
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
        out.push(`${field} ${formatMessage(String(p.format))}`);
        break;
      case 'pattern':
        out.push(`${field} ${compiled.patternMessages[String(p.pattern)] ?? `must match ${String(p.pattern)}`}`);
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
