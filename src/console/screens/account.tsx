import { useState } from 'preact/hooks';
import { api } from '../api';
import { checkSamePassword, Field, Form, NewPasswordFields, Submit, useForm, MobileNumberField } from '../components/form';
import { loadSession, notice, session, sessionEnded, user } from '../session';
import { zoneName } from '../time';
import type { SetupAnswer, StatusAnswer, User } from '../types';

const ROLE_NAMES: Record<number, string> = {
  1: 'Platform admin',
  11: 'Partner admin',
  3: 'Account admin',
  9: 'Reports admin',
  7: 'Queue manager',
  5: 'Basic user',
};
type Mode = 'app' | 'email' | 'sms';
/** The User's `title` (json-schema-to-typescript leaves a property named "title" out of the generated type). */
const titleOf = (u: User) => (u as User & { title?: string }).title ?? '';
const MODE_NAMES: Record<Mode, string> = { app: 'Authenticator app', email: 'E-mail', sms: 'SMS' };

/**
 * The signed-in user's own account, each change one call of the API's self-service routes
 * (docs/authentication.md): title, dark mode, MFA modes, password.
 */
export default function Account() {
  const u = user.value;
  const s = session.value;
  if (!u || !s) return null;
  return (
    <section class="screen" aria-labelledby="account-title">
      <h1 id="account-title" tabIndex={-1}>
        Account
      </h1>
      <div class="cards">
        <Profile u={u} tenant={s.tenant} />
        <Appearance u={u} />
        <TwoStep u={u} />
        <Password />
      </div>
    </section>
  );
}

function Profile(props: { u: User; tenant: { name: string; timezone: string } }) {
  const { u } = props;
  const form = useForm(['title']);
  return (
    <section class="card" aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      <dl class="facts">
        <dt>E-mail</dt>
        <dd>{u.email}</dd>
        <dt>Role</dt>
        <dd>{ROLE_NAMES[u.userRole] ?? `role ${u.userRole}`}</dd>
        <dt>Tenant</dt>
        <dd>{props.tenant.name}</dd>
        <dt>Tenant's timezone</dt>
        <dd>{zoneName(props.tenant.timezone)}</dd>
        <dt>Extension</dt>
        <dd>{u.extNum ? `${u.extNum}${u.extName ? ` (${u.extName})` : ''}` : 'none'}</dd>
        <dt>Branch</dt>
        <dd>{u.branchName || 'none'}</dd>
      </dl>
      <Form
        form={form}
        label="Title"
        onSubmit={async (v) => {
          await api.patch('/v2/users/user-settings/title', { title: (v.title ?? '').trim() });
          await loadSession();
          return 'Title saved.';
        }}
      >
        <Field form={form} name="title" label="Title" value={titleOf(u)} maxLength={200} />
        <Submit form={form} class="secondary">
          Save the title
        </Submit>
      </Form>
    </section>
  );
}

function Appearance(props: { u: User }) {
  const form = useForm(['darkMode']);
  const dark = props.u.darkMode === 1;
  return (
    <section class="card" aria-labelledby="appearance-title">
      <h2 id="appearance-title">Appearance</h2>
      {form.error.value && (
        <p class="form-error" role="alert">
          {form.error.value}
        </p>
      )}
      <div class="field-check">
        <input
          type="checkbox"
          id="dark-mode"
          role="switch"
          checked={dark}
          disabled={form.busy.value}
          onChange={() =>
            void form.submit(async () => {
              await api.patch('/v2/users/user-settings/dark-mode', { darkMode: dark ? 0 : 1 });
              await loadSession();
            })
          }
        />
        <label for="dark-mode">Dark mode</label>
      </div>
      <p class="hint">Kept with your account (its darkMode), on every device.</p>
    </section>
  );
}

/**
 * Reads the session again after an MFA change. A change of a factor ends every session and token of the user (the
 * API's rule, docs/authentication.md), this one too: the sign-in screen then says what changed and why it is shown,
 * as after a password change (it said only that the session had ended).
 */
async function afterMfaChange(message: string): Promise<string> {
  await loadSession();
  if (session.value === null) notice.value = `${message}. Every sign-in of yours ended with the change, this one too: sign in again.`;
  return message;
}

function TwoStep(props: { u: User }) {
  const { u } = props;
  const verified: Record<Mode, boolean> = { app: u.mfaAppVerified === 1, email: u.mfaEmailVerified === 1, sms: u.mfaSmsVerified === 1 };
  const [setting, setSetting] = useState<Mode | null>(null);
  const proof = useForm(['password', 'otp']);
  const refresh = (answer: StatusAnswer) => afterMfaChange(answer.message);
  const withProof = (path: string, body: object) => (v: Record<string, string>) =>
    api.postProof<StatusAnswer>(path, { ...body, ...(v.password ? { password: v.password } : {}) }).then(refresh);
  const on = u.mfaEnabled === 1;
  return (
    <section class="card" aria-labelledby="mfa-title">
      <h2 id="mfa-title">Two-step sign-in</h2>
      <p>{on ? `On: codes from ${MODE_NAMES[u.mfaMode as Mode] ?? u.mfaMode}.` : 'Off: a password alone signs you in.'}</p>
      <ul class="modes">
        {(Object.keys(MODE_NAMES) as Mode[]).map((m) => (
          <li key={m}>
            <span>
              {MODE_NAMES[m]}
              {m === 'sms' && u.mfaPhoneNumber ? ` (${u.mfaPhoneNumber})` : ''}: {verified[m] ? 'set up' : 'not set up'}
              {on && u.mfaMode === m ? ', in use' : ''}
            </span>
            {!verified[m] && (
              <button type="button" class="secondary" onClick={() => setSetting(m)}>
                Set up<span class="visually-hidden"> {MODE_NAMES[m]}</span>
              </button>
            )}
            {verified[m] && !(on && u.mfaMode === m) && (
              <button
                type="button"
                class="secondary"
                disabled={proof.busy.value}
                onClick={() => void proof.submit(() => api.post<StatusAnswer>('/v2/mfa/auth/enable', { mode: m }).then(refresh))}
              >
                Use<span class="visually-hidden"> {MODE_NAMES[m]}</span>
              </button>
            )}
          </li>
        ))}
      </ul>
      {setting && <SetUpMode mode={setting} onDone={() => setSetting(null)} />}
      {on && (
        <Form form={proof} label="Turn two-step sign-in off" onSubmit={withProof('/v2/mfa/auth/disable', {})}>
          <Field
            form={proof}
            name="password"
            label="Your password"
            type="password"
            autoComplete="current-password"
            hint="Proof that it is you: a token alone cannot turn it off."
            required
          />
          <Submit form={proof} class="danger">
            Turn two-step sign-in off
          </Submit>
        </Form>
      )}
      {!on && proof.done.value && (
        <p class="form-done" role="status">
          {proof.done.value}
        </p>
      )}
    </section>
  );
}

/** A mode set up from the account (POST /v2/mfa/auth/setup), switched on by its first code (POST /v2/mfa/auth/verify). */
function SetUpMode(props: { mode: Mode; onDone: () => void }) {
  const start = useForm(['phoneNumber', 'password']);
  const verify = useForm(['otp']);
  const [setup, setSetup] = useState<(SetupAnswer & { phone?: string }) | null>(null);
  const { mode } = props;
  if (!setup)
    return (
      <Form
        form={start}
        label={`Set up ${MODE_NAMES[mode]}`}
        onSubmit={async (v) => {
          const phoneNumber = mode === 'sms' ? (v.phoneNumber ?? '') : undefined;
          setSetup({
            ...(await api.postProof<SetupAnswer>('/v2/mfa/auth/setup', { mode, phoneNumber, password: v.password ?? '' })),
            phone: phoneNumber,
          });
        }}
      >
        <h3>Set up {MODE_NAMES[mode]}</h3>
        {mode === 'sms' && <MobileNumberField form={start} />}
        <Field
          form={start}
          name="password"
          label="Your password"
          type="password"
          autoComplete="current-password"
          hint="Proof that it is you: a token alone cannot add a way to sign in."
          required
        />
        <Submit form={start}>{mode === 'app' ? 'Show the QR code' : 'Send a code'}</Submit>
        <button type="button" class="quiet" onClick={props.onDone}>
          Cancel
        </button>
      </Form>
    );
  return (
    <Form
      form={verify}
      label={`Verify ${MODE_NAMES[mode]}`}
      onSubmit={async (v) => {
        const answer = await api.post<StatusAnswer>('/v2/mfa/auth/verify', {
          mode,
          otp: v.otp ?? '',
          ...(setup.secret ? { secret: setup.secret } : {}),
          ...(setup.phone ? { phoneNumber: setup.phone } : {}),
        });
        await afterMfaChange(answer.message);
        props.onDone();
      }}
    >
      <h3>Verify {MODE_NAMES[mode]}</h3>
      {setup.qrcode && (
        <img class="qr" src={setup.qrcode} alt="QR code of your TARS account for an authenticator app" width={200} height={200} />
      )}
      {setup.secret && (
        <p>
          Or enter this key in the app: <code class="secret">{setup.secret.replace(/(.{4})/g, '$1 ').trim()}</code>
        </p>
      )}
      {mode !== 'app' && (
        <p>
          {mode === 'sms' ? `A code was sent by SMS to ${setup.phoneNumber ?? 'your phone'}.` : 'A code was sent to your e-mail address.'}
        </p>
      )}
      <Field form={verify} name="otp" label="6-digit code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} required />
      <Submit form={verify}>Verify and turn on</Submit>
      <button type="button" class="quiet" onClick={props.onDone}>
        Cancel
      </button>
    </Form>
  );
}

function Password() {
  const form = useForm(['currentPassword', 'password', 'confirm']);
  return (
    <section class="card" aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <Form
        form={form}
        label="Change your password"
        onSubmit={async (v) => {
          checkSamePassword(form, v);
          await api.postProof('/v2/users/manual-reset-password', { currentPassword: v.currentPassword ?? '', password: v.password ?? '' });
          // Every session and token of the user ended with the old password, this one too.
          sessionEnded('Your password was changed: sign in with the new one.');
          notice.value = 'Your password was changed: sign in with the new one.';
        }}
      >
        <Field form={form} name="currentPassword" label="Current password" type="password" autoComplete="current-password" required />
        <NewPasswordFields
          form={form}
          hint="At least 8 characters. Every sign-in of yours ends with the old one, this one too: sign in again with the new one."
        />
        <Submit form={form}>Change the password</Submit>
      </Form>
    </section>
  );
}
