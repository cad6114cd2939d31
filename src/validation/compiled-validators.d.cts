// The shape of compiled-validators.cjs, which scripts/gen-validators.ts generates (it is not committed).
import type { ValidateFunction } from 'ajv';

declare const compiled: {
  /** Each `pattern` of the schemas with the sentence (its x-message) a failure shows. */
  readonly patternMessages: Readonly<Record<string, string>>;
  /** Validators of JSON bodies by $id: no coercion, defaults filled in. */
  readonly body: Readonly<Record<string, ValidateFunction>>;
  /** Validators of query strings and path parameters by $id: text coerced to the schema's types. */
  readonly text: Readonly<Record<string, ValidateFunction>>;
};
export = compiled;
