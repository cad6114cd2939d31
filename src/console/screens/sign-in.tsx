import { useState } from 'preact/hooks';
import { api } from '../api';
import { checkSamePassword, Field, Form, NewPasswordFields, Submit, useForm, MobileNumberField } from '../components/form';
import { navigate, safeNext } from '../router';
import { notice, signedIn } from '../session';
import type { Challenge, Session, SetupAnswer, SetupRequired, StatusAnswer } from '../types';

/**
 * Sign-in as the API does it (docs/authentication.md), each step one API call: the password
 * (POST /v2/console/session), then the MFA code of the user's mode (POST /v2/console/session/mfa, with
 * POST /v2/mfa/resend-otp for a new one), or, when the tenant requires MFA and the user has none, choosing and
 * setting up a mode (POST /v2/mfa/setup, the QR code for an authenticator app) and its first code
 * (POST /v2/console/session/mfa-setup). The last step sets the HttpOnly session cookie. Password reset by e-mail
 * (POST /v2/users/request-password-reset, then POST /v2/users/reset-password with the e-mailed token).
 */
type Step =
  | { readonly kind: 'password' }
  | { readonly kind: 'code'; readonly challenge: Challenge }
  | { readonly kind: 'enrol'; readonly token: string }
  | { readonly kind: 'enrol-code'; readonly token: string; readonly setup: SetupAnswer; readonly phoneNumber?: string }
  | { readonly kind: 'forgot' }
  | { readonly kind: 'reset' };

type SignInAnswer = Session | Challenge | SetupRequired;

const MODES = { app: 'An authenticator app', email: 'A code by e-mail', sms: 'A code by SMS' } as const;

function done(s: Session): void {
  signedIn(s);
  navigate(safeNext(new URLSearchParams(location.search).get('next')), true);
}

export function SignIn() {
  const [step, setStep] = useState<Step>({ kind: 'password' });
  const again = () => setStep({ kind: 'password' });
  return (
    <section class="screen narrow sign-in" aria-labelledby="sign-in-title">
      <p class="brand-large" aria-hidden="true">
        TARS
      </p>
      {step.kind === 'password' && <PasswordStep onNext={setStep} />}
      {step.kind === 'code' && <CodeStep challenge={step.challenge} onBack={again} />}
      {step.kind === 'enrol' && <EnrolStep token={step.token} onNext={setStep} onBack={again} />}
      {step.kind === 'enrol-code' && <EnrolCodeStep step={step} onBack={again} />}
      {step.kind === 'forgot' && <ForgotStep onReset={() => setStep({ kind: 'reset' })} onBack={again} />}
      {step.kind === 'reset' && <ResetStep onBack={again} />}
    </section>
  );
}

function PasswordStep(props: { onNext: (s: Step) => void }) {
  const form = useForm(['email', 'password']);
  return (
    <>
      <h1 id="sign-in-title" tabIndex={-1}>
        Sign in
      </h1>
      {notice.value && (
        <p class="notice" role="status">
          {notice.value}
        </p>
      )}
      <Form
        form={form}
        label="Sign in"
        onSubmit={async (v) => {
          const answer = await api.signIn<SignInAnswer>('/v2/console/session', { email: v.email ?? '', password: v.password ?? '' });
          if ('user' in answer) done(answer);
          else if ('mfaSetupToken' in answer) props.onNext({ kind: 'enrol', token: answer.mfaSetupToken });
          else props.onNext({ kind: 'code', challenge: answer });
        }}
      >
        <Field form={form} name="email" label="E-mail" type="email" autoComplete="username" required />
        <Field form={form} name="password" label="Password" type="password" autoComplete="current-password" required />
        <Submit form={form}>Sign in</Submit>
      </Form>
      <p>
        <button type="button" class="link" onClick={() => props.onNext({ kind: 'forgot' })}>
          Forgot your password?
        </button>
      </p>
    </>
  );
}

function CodeField(props: { form: ReturnType<typeof useForm> }) {
  return (
    <Field
      form={props.form}
      name="otp"
      label="6-digit code"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9]{6}"
      maxLength={6}
      required
      class="code"
    />
  );
}

/** The button that has a code sent again (POST /v2/mfa/resend-otp); onResend answers the notice shown after it. */
function ResendCode(props: { onResend: () => Promise<string> }) {
  const form = useForm([]);
  return (
    <Form form={form} label="Send a new code" class="form inline" onSubmit={props.onResend}>
      <Submit form={form} class="secondary">
        Send a new code
      </Submit>
    </Form>
  );
}

/** A step's way back: "Start again" from an MFA step, "Back to sign-in" from the password reset. */
function BackLink(props: { onBack: () => void; children: string }) {
  return (
    <p>
      <button type="button" class="link" onClick={props.onBack}>
        {props.children}
      </button>
    </p>
  );
}

function CodeStep(props: { challenge: Challenge; onBack: () => void }) {
  const [challenge, setChallenge] = useState(props.challenge);
  const form = useForm(['otp']);
  return (
    <>
      <h1 id="sign-in-title" tabIndex={-1}>
        Enter your code
      </h1>
      <p>
        {challenge.message}
        {challenge.phoneNumber ? ` (${challenge.phoneNumber})` : ''}.
      </p>
      <Form
        form={form}
        label="Code"
        onSubmit={async (v) =>
          done(await api.signIn<Session>('/v2/console/session/mfa', { token: challenge.mfaVerifyToken, otp: v.otp ?? '' }))
        }
      >
        <CodeField form={form} />
        <Submit form={form}>Verify</Submit>
      </Form>
      {challenge.mode !== 'app' && (
        <ResendCode
          onResend={async () => {
            setChallenge(await api.signIn<Challenge>('/v2/mfa/resend-otp', { token: challenge.mfaVerifyToken }));
            return 'A new code was sent: the one before no longer works.';
          }}
        />
      )}
      <BackLink onBack={props.onBack}>Start again</BackLink>
    </>
  );
}

function EnrolStep(props: { token: string; onNext: (s: Step) => void; onBack: () => void }) {
  const form = useForm(['mode', 'phoneNumber']);
  const [mode, setMode] = useState<keyof typeof MODES>('app');
  return (
    <>
      <h1 id="sign-in-title" tabIndex={-1}>
        Set up two-step sign-in
      </h1>
      <p>Your organisation requires a second step at every sign-in. Choose how you will get your codes.</p>
      <Form
        form={form}
        label="Two-step sign-in"
        onSubmit={async (v) => {
          const phoneNumber = mode === 'sms' ? (v.phoneNumber ?? '') : undefined;
          const setup = await api.signIn<SetupAnswer>('/v2/mfa/setup', { mode, token: props.token, phoneNumber });
          props.onNext({ kind: 'enrol-code', token: props.token, setup, phoneNumber });
        }}
      >
        <fieldset>
          <legend>Codes from</legend>
          {(Object.keys(MODES) as (keyof typeof MODES)[]).map((m) => (
            <div class="field-check" key={m}>
              <input type="radio" id={`mode-${m}`} name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} />
              <label for={`mode-${m}`}>{MODES[m]}</label>
            </div>
          ))}
        </fieldset>
        {mode === 'sms' && <MobileNumberField form={form} />}
        <Submit form={form}>Continue</Submit>
      </Form>
      <BackLink onBack={props.onBack}>Start again</BackLink>
    </>
  );
}

function EnrolCodeStep(props: { step: Extract<Step, { kind: 'enrol-code' }>; onBack: () => void }) {
  const { token, setup, phoneNumber } = props.step;
  const form = useForm(['otp']);
  return (
    <>
      <h1 id="sign-in-title" tabIndex={-1}>
        {setup.mode === 'app' ? 'Scan the QR code' : 'Enter your code'}
      </h1>
      {setup.mode === 'app' ? (
        <>
          <p>Scan it with your authenticator app, then enter the 6-digit code the app shows.</p>
          {setup.qrcode && (
            <img class="qr" src={setup.qrcode} alt="QR code of your TARS account for an authenticator app" width={200} height={200} />
          )}
          <p>
            Or enter this key in the app: <code class="secret">{setup.secret?.replace(/(.{4})/g, '$1 ').trim()}</code>
          </p>
        </>
      ) : (
        <p>
          {setup.mode === 'sms'
            ? `A code was sent by SMS to ${setup.phoneNumber ?? 'your phone'}.`
            : 'A code was sent to your e-mail address.'}
        </p>
      )}
      <Form
        form={form}
        label="Code"
        onSubmit={async (v) =>
          done(
            await api.signIn<Session>('/v2/console/session/mfa-setup', {
              mode: setup.mode,
              otp: v.otp ?? '',
              token,
              ...(setup.secret ? { secret: setup.secret } : {}),
              ...(phoneNumber ? { phoneNumber } : {}),
            }),
          )
        }
      >
        <CodeField form={form} />
        <Submit form={form}>Verify and sign in</Submit>
      </Form>
      {setup.mode !== 'app' && (
        <ResendCode
          onResend={async () => {
            await api.signIn('/v2/mfa/resend-otp', { token, mode: setup.mode });
            return 'A new code was sent.';
          }}
        />
      )}
      <BackLink onBack={props.onBack}>Start again</BackLink>
    </>
  );
}

function ForgotStep(props: { onReset: () => void; onBack: () => void }) {
  const form = useForm(['email']);
  return (
    <>
      <h1 id="sign-in-title" tabIndex={-1}>
        Reset your password
      </h1>
      <p>We e-mail a reset token to the address of your account. It works once, for 30 minutes.</p>
      <Form
        form={form}
        label="Reset your password"
        onSubmit={async (v) => (await api.signIn<StatusAnswer>('/v2/users/request-password-reset', { email: v.email ?? '' })).message}
      >
        <Field form={form} name="email" label="E-mail" type="email" autoComplete="username" required />
        <Submit form={form}>E-mail me a token</Submit>
      </Form>
      <p>
        <button type="button" class="link" onClick={props.onReset}>
          I have a reset token
        </button>
      </p>
      <BackLink onBack={props.onBack}>Back to sign-in</BackLink>
    </>
  );
}

function ResetStep(props: { onBack: () => void }) {
  const form = useForm(['token', 'password', 'confirm']);
  return (
    <>
      <h1 id="sign-in-title" tabIndex={-1}>
        Choose a new password
      </h1>
      <Form
        form={form}
        label="Choose a new password"
        onSubmit={async (v) => {
          checkSamePassword(form, v);
          await api.signIn<StatusAnswer>('/v2/users/reset-password', { token: (v.token ?? '').trim(), password: v.password ?? '' });
          notice.value = 'Your password was changed: sign in with it.';
          props.onBack();
        }}
      >
        <Field form={form} name="token" label="Reset token (from the e-mail)" autoComplete="off" required />
        <NewPasswordFields form={form} hint="At least 8 characters." />
        <Submit form={form}>Set the password</Submit>
      </Form>
      <BackLink onBack={props.onBack}>Back to sign-in</BackLink>
    </>
  );
}
