import { fullFormats } from 'ajv-formats/dist/formats';
import { isTimezone } from '../time/zone';

/** The formats whose values a module knows (validation knows no module): the module registers them (registerFormat). */
export type RegisteredFormat = 'webhook-type';

const registered = new Map<RegisteredFormat, { readonly validate: (value: string) => boolean; readonly message: string }>();

/**
 * A module's check of a format its schemas name, and the sentence a failure gets, registered when the module is
 * loaded: the webhook event types live in one catalogue (src/modules/webhooks/event-types.ts), not in a schema enum.
 */
export function registerFormat(name: RegisteredFormat, validate: (value: string) => boolean, message: string): void {
  registered.set(name, { validate, message });
}

/** A format checked by what its module registered; a value checked before any module did is a programming error. */
function registeredFormat(name: RegisteredFormat) {
  return {
    type: 'string',
    validate: (value: string): boolean => {
      const format = registered.get(name);
      if (!format) throw new Error(`format ${name}: no module has registered it (registerFormat, src/validation/formats.ts)`);
      return format.validate(value);
    },
  } as const;
}

/**
 * The string formats the schemas use: ajv-formats' own and ours. The compiled validators
 * (scripts/gen-validators.ts) call these functions by name, so this module is their run-time half.
 */
export const FORMATS = {
  ...fullFormats,
  'iana-timezone': { type: 'string', validate: isTimezone },
  'webhook-type': registeredFormat('webhook-type'),
} as const;

/** Formats of our own, with the sentence a failure gets. */
const MESSAGES: Readonly<Record<string, string>> = {
  'iana-timezone': 'must be an IANA timezone name such as Europe/Paris',
  email: 'must be an e-mail address',
  'date-time': 'must be an ISO 8601 timestamp',
  uri: 'must be an absolute URL',
};

/** The sentence a value failing `format` gets (after the field's name). */
export function formatMessage(format: string): string {
  return registered.get(format as RegisteredFormat)?.message ?? MESSAGES[format] ?? `must be a valid ${format}`;
}
