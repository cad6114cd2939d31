import { signal } from '@preact/signals';
import type { ComponentChildren, InputHTMLAttributes, PartialInputHTMLAttributes } from 'preact';
import { useMemo } from 'preact/hooks';
import { ApiError } from '../api';

/**
 * A form's state: its fields' errors as the API words them (its validationErrors, each shown under the field it
 * names), an error for the form as a whole, whether it is sending, and what it did. The fields are ordinary
 * named inputs; `submit` hands their values to the action.
 */
export class FormState {
  readonly fieldErrors = signal<Readonly<Record<string, string>>>({});
  readonly error = signal<string | null>(null);
  readonly done = signal<string | null>(null);
  readonly busy = signal(false);

  constructor(readonly fields: readonly string[]) {}

  /** The field a problem of the API names: `password must …`, `url: …`, `address.city …` (the longest name that fits). */
  fieldOf(problem: string): string | undefined {
    return [...this.fields]
      .sort((a, b) => b.length - a.length)
      .find((f) => problem.startsWith(f) && /^[\s:.[]/.test(problem.slice(f.length)));
  }

  async submit(action: () => Promise<string | void>): Promise<boolean> {
    if (this.busy.value) return false;
    this.busy.value = true;
    this.error.value = null;
    this.done.value = null;
    this.fieldErrors.value = {};
    try {
      const message = await action();
      if (message) this.done.value = message;
      return true;
    } catch (err) {
      this.fail(err);
      return false;
    } finally {
      this.busy.value = false;
    }
  }

  fail(err: unknown): void {
    if (!(err instanceof ApiError)) {
      this.error.value = err instanceof Error ? err.message : String(err);
      return;
    }
    const byField: Record<string, string> = {};
    const rest: string[] = [];
    for (const p of err.validationErrors) {
      const f = this.fieldOf(p);
      if (f && !byField[f]) byField[f] = p;
      else if (!f) rest.push(p);
    }
    this.fieldErrors.value = byField;
    const wait = err.retryAfterSeconds ? ` Try again in ${Math.ceil(err.retryAfterSeconds / 60)} min.` : '';
    this.error.value =
      Object.keys(byField).length > 0 && rest.length === 0 ? 'Please correct the fields marked below.' : `${rest[0] ?? err.message}${wait}`;
  }
}

export function useForm(fields: readonly string[]): FormState {
  return useMemo(() => new FormState(fields), []);
}

/** The named values of a form's inputs (a checkbox: "on" when ticked). */
export function valuesOf(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  new FormData(form).forEach((v, k) => (values[k] = typeof v === 'string' ? v : ''));
  return values;
}

let ids = 0;
const nextId = (name: string) => `f-${name.replace(/[^A-Za-z0-9]/g, '-')}-${++ids}`;

/** A form that shows its state: an error as a whole (announced), what it did, and its fields. */
export function Form(props: {
  form: FormState;
  onSubmit: (values: Record<string, string>, el: HTMLFormElement) => Promise<string | void>;
  children: ComponentChildren;
  label?: string;
  class?: string;
}) {
  const { form } = props;
  return (
    <form
      class={props.class ?? 'form'}
      aria-label={props.label}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const el = e.currentTarget;
        void form.submit(() => props.onSubmit(valuesOf(el), el));
      }}
    >
      {form.error.value && (
        <p class="form-error" role="alert">
          {form.error.value}
        </p>
      )}
      {form.done.value && (
        <p class="form-done" role="status">
          {form.done.value}
        </p>
      )}
      {props.children}
    </form>
  );
}

type InputProps = Omit<PartialInputHTMLAttributes<HTMLInputElement>, 'label' | 'form'>;

/** A labelled input; the API's problem with it appears under it and is tied to it for screen readers. */
export function Field(props: { form: FormState; name: string; label: ComponentChildren; hint?: ComponentChildren } & InputProps) {
  const { form, name, label, hint, ...input } = props;
  const id = useMemo(() => nextId(name), [name]);
  const error = form.fieldErrors.value[name];
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${input.type === 'checkbox' ? ' field-check' : ''}`}>
      <label for={id}>{label}</label>
      {/* The props of an <input> (PartialInputHTMLAttributes); Preact's own type narrows them by `type`, which a wrapper cannot. */}
      <input
        {...(input as InputHTMLAttributes<HTMLInputElement>)}
        id={id}
        name={name}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described}
      />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A labelled text area (a list, one item a line); like Field, the API's problem with it appears under it. */
export function TextAreaField(props: {
  form: FormState;
  name: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  value?: string;
  rows?: number;
}) {
  const { form, name } = props;
  const id = useMemo(() => nextId(name), [name]);
  const error = form.fieldErrors.value[name];
  const described = [props.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <textarea
        id={id}
        name={name}
        rows={props.rows ?? 4}
        defaultValue={props.value}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described}
      />
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * A number field's value for the API: nothing when empty, the number when it is one, else the text as typed (so
 * the API's own message, "serviceLevelSeconds must be an integer", appears under the field).
 */
export function numberOrText(value: string | undefined): number | string | undefined {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
}

/**
 * A record form's buttons: "Save changes" when a record is being changed (with Cancel, or `cancelLabel`, beside it),
 * else the form's `add` label alone (the add form stays for the next record).
 */
export function FormButtons(props: { form: FormState; editing: boolean; add: string; onCancel: () => void; cancelLabel?: string }) {
  return (
    <div class="form-buttons">
      <Submit form={props.form}>{props.editing ? 'Save changes' : props.add}</Submit>
      {props.editing && (
        <button type="button" class="quiet" onClick={props.onCancel}>
          {props.cancelLabel ?? 'Cancel'}
        </button>
      )}
    </div>
  );
}

/** A labelled choice (a role, a branch, a tenant); like Field, the API's problem with it appears under it. */
export function SelectField(props: {
  form: FormState;
  name: string;
  label: ComponentChildren;
  options: readonly { readonly value: string | number; readonly label: string }[];
  value?: string | number;
  hint?: ComponentChildren;
  /** A first choice meaning "none" (sent as ""). */
  none?: string;
  onChange?: (value: string) => void;
}) {
  const { form, name } = props;
  const id = useMemo(() => nextId(name), [name]);
  const error = form.fieldErrors.value[name];
  const described = [props.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={name}
        value={props.value === undefined ? undefined : String(props.value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described}
        onChange={(e) => props.onChange?.(e.currentTarget.value)}
      >
        {props.none !== undefined && <option value="">{props.none}</option>}
        {props.options.map((o) => (
          <option key={o.value} value={String(o.value)}>
            {o.label}
          </option>
        ))}
      </select>
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

export function Submit(props: { form: FormState; children: ComponentChildren; class?: string }) {
  return (
    <button type="submit" class={props.class ?? 'primary'} disabled={props.form.busy.value} aria-busy={props.form.busy.value || undefined}>
      {props.children}
    </button>
  );
}

/** The mobile number an SMS code goes to (field `phoneNumber`), as enrolment and the account page ask for it. */
export function MobileNumberField(props: { form: FormState }) {
  return (
    <Field
      form={props.form}
      name="phoneNumber"
      label="Mobile number"
      type="tel"
      autoComplete="tel"
      hint="Digits, with + and the country code."
    />
  );
}

/** A new password and the same again (fields `password` and `confirm`), as the reset and the account page ask for it. */
export function NewPasswordFields(props: { form: FormState; hint: ComponentChildren }) {
  return (
    <>
      <Field
        form={props.form}
        name="password"
        label="New password"
        type="password"
        autoComplete="new-password"
        hint={props.hint}
        required
      />
      <Field form={props.form} name="confirm" label="New password again" type="password" autoComplete="new-password" required />
    </>
  );
}

/** Marks `confirm` and throws when the two passwords of NewPasswordFields differ: nothing is sent. */
export function checkSamePassword(form: FormState, v: Record<string, string>): void {
  if (v.password === v.confirm) return;
  form.fieldErrors.value = { confirm: 'confirm must be the same password again' };
  throw new Error('Please correct the fields marked below.');
}
