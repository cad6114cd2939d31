import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import QRCode from 'qrcode';
import { openBrowser, type OpenBrowser } from '../helpers/browser';
import { ENROLLING, ROLE_IDS, sixDigits, startConsoleSite, totpOf, type ConsoleSite, type SiteUser } from '../helpers/console-site';
import { until } from '../helpers/until';

/*
 * The console's sign-in in Debian's chromium against the real program (test/helpers/console-site.ts): the password,
 * each MFA mode with its code from a real SMTP sink or SMS receiver, enrolment with the QR code, password reset by
 * e-mail, the session cookie (HttpOnly, SameSite=Strict, ended on the server at sign-out, refused from a page of
 * another origin).
 */
describe('the console in chromium: sign-in, MFA, enrolment, reset, the account page, the session cookie (issue 30)', function () {
  this.timeout(180_000);
  let site: ConsoleSite;
  let browser: OpenBrowser;
  let page: Page;
  let attacker: Server;
  let attackerOrigin: string;

  before(async () => {
    site = await startConsoleSite();
    // A page of another origin (another port of the same address: same site, another origin).
    attacker = createServer((req, res) => {
      const target = new URL(req.url ?? '/', 'http://x').searchParams.get('target') ?? '';
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>Win a prize</title>
<form id="f" method="POST" action="${target}/v2/users/manual-reset-password" enctype="text/plain">
<input name='{"password":"attacker-chosen","x":"' value='"}'></form>
<script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    browser = await openBrowser({ origins: [site.url, attackerOrigin] });
    page = browser.page;
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await new Promise<void>((resolve) => attacker?.close(() => resolve()));
  });
  afterEach(async () => {
    await browser.context.clearCookies();
  });

  const start = async () => {
    await browser.context.clearCookies();
    await page.goto(`${site.url}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
  };
  const typePassword = async (u: { email: string; password: string }) => {
    await page.getByLabel('E-mail').fill(u.email);
    await page.getByLabel('Password', { exact: true }).fill(u.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const enterCode = async (code: string, button = 'Verify') => {
    await page.getByLabel('6-digit code').fill(code);
    await page.getByRole('button', { name: button }).click();
  };
  const signedInAs = async (u: { email: string }, path: string) => {
    await page.waitForURL((url) => url.pathname === path);
    await page.getByText(u.email, { exact: false }).first().waitFor();
  };
  /** Signs in a user of withMfa('app') with the password and its authenticator's code, to the account page. */
  const signInWithApp = async (u: { email: string; password: string; secret?: string }) => {
    await start();
    await typePassword(u);
    await page.getByText('authenticator app').waitFor();
    await enterCode(totpOf(u.secret as string, Date.now() + 30_000)); // the next step's code: this step's was used to verify
    await signedInAs(u, '/account');
  };
  const withMfa = async (mode: 'email' | 'sms' | 'app'): Promise<SiteUser & { secret?: string }> => {
    const u = await site.makeUser(ROLE_IDS.basic);
    const setup = await site.call('POST', '/v2/mfa/auth/setup', {
      token: u.token,
      body: { mode, password: u.password, ...(mode === 'sms' ? { phoneNumber: '+15555550188' } : {}) },
    });
    expect(setup.status, setup.text).to.equal(201);
    const otp =
      mode === 'email'
        ? sixDigits((await site.smtp.next()).parsed.text ?? '')
        : mode === 'sms'
          ? site.lastSmsCode()
          : totpOf(setup.body.secret);
    const body = {
      mode,
      otp,
      ...(mode === 'sms' ? { phoneNumber: '+15555550188' } : {}),
      ...(mode === 'app' ? { secret: setup.body.secret } : {}),
    };
    const verified = await site.call('POST', '/v2/mfa/auth/verify', { token: u.token, body });
    expect(verified.status, verified.text).to.equal(201);
    return { ...u, secret: setup.body.secret };
  };

  it('when a user without MFA signs in with its password, then its first screen opens; the session is an HttpOnly, SameSite=Strict cookie no script can read', async () => {
    const manager = await site.makeUser(ROLE_IDS.queues);
    await start();
    await typePassword(manager);
    await signedInAs(manager, '/wallboard');
    expect(await page.evaluate(() => (globalThis as any).document.cookie)).to.equal('');
    const cookies = await browser.context.cookies(site.url);
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite, secure: c.secure }))).to.deep.equal([
      { name: 'tars_session', httpOnly: true, sameSite: 'Strict', secure: false },
    ]);
    expect(browser.foreign, 'requests to other hosts').to.deep.equal([]);
    expect(browser.pageErrors(), 'page errors (a CSP or Trusted Types violation would show here)').to.deep.equal([]);
  });

  it('when the user signs out, then the session ends on the server: its cookie, sent again, is refused', async () => {
    const u = await site.makeUser(ROLE_IDS.basic);
    await start();
    await typePassword(u);
    await signedInAs(u, '/account');
    const [cookie] = await browser.context.cookies(site.url);
    const header = `${cookie?.name}=${cookie?.value}`;
    expect((await site.call('GET', '/v2/users/me', { headers: { cookie: header } })).status).to.equal(200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    expect((await site.call('GET', '/v2/users/me', { headers: { cookie: header } })).status).to.equal(401);
    expect(await browser.context.cookies(site.url)).to.deep.equal([]);
  });

  it('when a field is wrong, then the API own message appears under that field; a wrong password says so without signing in', async () => {
    await start();
    await page.getByRole('button', { name: 'Sign in' }).click();
    const email = page.getByLabel('E-mail');
    await until(async () => (await email.getAttribute('aria-invalid')) === 'true', { what: 'the e-mail field marked invalid' });
    const describedBy = (await email.getAttribute('aria-describedby')) as string;
    expect(await page.locator(`#${describedBy.split(' ').pop()}`).textContent()).to.match(/^email /);
    await typePassword({ email: site.admin.email, password: 'not the password' });
    await page.getByRole('alert').filter({ hasText: 'Invalid e-mail or password' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
  });

  it('when a user with e-mail MFA signs in, then the code from the SMTP sink completes it; a new code replaces the old one', async () => {
    const u = await withMfa('email');
    await start();
    await typePassword(u);
    await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
    const first = sixDigits((await site.smtp.next()).parsed.text ?? '');
    await page.getByRole('button', { name: 'Send a new code' }).click();
    await page.getByText('A new code was sent').waitFor();
    const second = sixDigits((await site.smtp.next()).parsed.text ?? '');
    if (first !== second) {
      await enterCode(first);
      await page.getByRole('alert').filter({ hasText: 'Invalid or expired' }).waitFor();
    }
    await enterCode(second);
    await signedInAs(u, '/account');
  });

  it('when a user with SMS MFA signs in, then the masked number is shown and the code from the SMS receiver completes it', async () => {
    const u = await withMfa('sms');
    const before = site.sms.requests.length;
    await start();
    await typePassword(u);
    await page.getByText('*******0188').waitFor();
    await until(() => site.sms.requests.length > before, { what: 'the SMS' });
    await enterCode(site.lastSmsCode());
    await signedInAs(u, '/account');
  });

  it('when a user with an authenticator app signs in, then its current code completes it', async () => {
    const u = await withMfa('app');
    await signInWithApp(u);
  });

  it('when the tenant requires MFA, then the user enrols: the QR code shown is the API one of the secret shown, and its first code signs in', async () => {
    await start();
    await typePassword(ENROLLING);
    await page.getByRole('heading', { name: 'Set up two-step sign-in' }).waitFor();
    await page.getByLabel('An authenticator app').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Scan the QR code' }).waitFor();
    const secret = ((await page.locator('code.secret').textContent()) ?? '').replace(/\s/g, '');
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    const uri = `otpauth://totp/TARS:${encodeURIComponent(ENROLLING.email)}?issuer=TARS&secret=${secret}&algorithm=SHA1&digits=6&period=30`;
    expect(await page.getByRole('img', { name: /QR code/ }).getAttribute('src')).to.equal(await QRCode.toDataURL(uri));
    await enterCode(totpOf(secret), 'Verify and sign in');
    await signedInAs(ENROLLING, '/wallboard');
  });

  it('when a user forgot its password, then the token e-mailed to it sets a new one, which signs in', async () => {
    const u = await site.makeUser(ROLE_IDS.basic);
    await start();
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    await page.getByLabel('E-mail').fill(u.email);
    await page.getByRole('button', { name: 'E-mail me a token' }).click();
    await page.getByRole('status').filter({ hasText: 'reset token' }).waitFor();
    const mail = await site.smtp.next();
    const token = /\n\n([A-Za-z0-9_-]{20,})\n\n/.exec(mail.parsed.text ?? '')?.[1] as string;
    expect(token, mail.parsed.text).to.be.a('string');
    await page.getByRole('button', { name: 'I have a reset token' }).click();
    await page.getByLabel('Reset token (from the e-mail)').fill(token);
    await page.getByLabel('New password', { exact: true }).fill('a brand new password');
    await page.getByLabel('New password again').fill('a brand new password');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.getByText('Your password was changed').waitFor();
    await typePassword({ email: u.email, password: 'a brand new password' });
    await signedInAs(u, '/account');
  });

  /** The signed-in page's session cookie, as a header the API accepts from a script of this test. */
  const sessionCookie = async () => {
    const [cookie] = await browser.context.cookies(site.url);
    return `${cookie?.name}=${cookie?.value}`;
  };
  const authenticate = (email: string, password: string) => site.call('POST', '/v2/authentication', { body: { email, password } });

  it('when a signed-in user changes its password on the account page, then a wrong current password changes nothing; the right one sets the new password, which signs in, and the old one no longer does', async () => {
    const u = await site.makeUser(ROLE_IDS.basic);
    await start();
    await typePassword(u);
    await signedInAs(u, '/account');
    const fill = async (current: string, next: string) => {
      await page.getByLabel('Current password').fill(current);
      await page.getByLabel('New password', { exact: true }).fill(next);
      await page.getByLabel('New password again').fill(next);
      await page.getByRole('button', { name: 'Change the password' }).click();
    };

    const refused = page.waitForResponse((r) => r.url().endsWith('/v2/users/manual-reset-password'));
    await fill('not my password', 'a password the attacker chose');
    expect((await refused).status()).to.equal(401);
    const message = (await (await refused).json()).message as string;
    await page.getByRole('alert').filter({ hasText: message }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/account');
    expect((await authenticate(u.email, u.password)).status).to.equal(201);
    expect((await authenticate(u.email, 'a password the attacker chose')).status).to.equal(401);

    const old = await sessionCookie();
    const changed = page.waitForResponse((r) => r.url().endsWith('/v2/users/manual-reset-password'));
    await fill(u.password, 'my new console password');
    expect((await changed).status()).to.equal(201);
    await page.getByText('Your password was changed: sign in with the new one.').first().waitFor();
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
    expect((await site.call('GET', '/v2/users/me', { headers: { cookie: old } })).status, 'the old session').to.equal(401);
    expect((await authenticate(u.email, u.password)).status, 'the old password').to.equal(401);

    await typePassword({ email: u.email, password: u.password });
    await page.getByRole('alert').filter({ hasText: 'Invalid e-mail or password' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
    await typePassword({ email: u.email, password: 'my new console password' });
    await signedInAs(u, '/account');
    const me = await site.call('GET', '/v2/users/me', { headers: { cookie: await sessionCookie() } });
    expect([me.status, me.body?.email]).to.deep.equal([200, u.email]);
  });

  it('when a user with MFA turns it off on the account page, then a wrong password leaves it on; its password turns it off, and the next sign-in asks for no code', async () => {
    const u = await withMfa('app');
    await signInWithApp(u);
    await page.getByText('On: codes from Authenticator app.').waitFor();
    const mfaOf = async () => {
      const me = await site.call('GET', '/v2/users/me', { headers: { cookie: await sessionCookie() } });
      expect(me.status, me.text).to.equal(200);
      return { mfaEnabled: me.body.mfaEnabled, mfaAppVerified: me.body.mfaAppVerified };
    };
    expect(await mfaOf()).to.deep.equal({ mfaEnabled: 1, mfaAppVerified: 1 });

    const turnOff = page.getByRole('form', { name: 'Turn two-step sign-in off' });
    const refused = page.waitForResponse((r) => r.url().endsWith('/v2/mfa/auth/disable'));
    await turnOff.getByLabel('Your password').fill('not my password');
    await page.getByRole('button', { name: 'Turn two-step sign-in off' }).click();
    expect((await refused).status()).to.equal(401);
    await page
      .getByRole('alert')
      .filter({ hasText: (await (await refused).json()).message as string })
      .waitFor();
    expect(await mfaOf()).to.deep.equal({ mfaEnabled: 1, mfaAppVerified: 1 });

    const old = await sessionCookie();
    const done = page.waitForResponse((r) => r.url().endsWith('/v2/mfa/auth/disable'));
    await turnOff.getByLabel('Your password').fill(u.password);
    await page.getByRole('button', { name: 'Turn two-step sign-in off' }).click();
    expect((await done).status()).to.equal(201);
    expect((await (await done).json()).message).to.equal('MFA is off');
    // The change ended every session of the user (the API's rule), this one too: the sign-in screen says why.
    await page.getByText('MFA is off. Every sign-in of yours ended with the change, this one too: sign in again.').waitFor();
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
    expect((await site.call('GET', '/v2/users/me', { headers: { cookie: old } })).status, 'the old session').to.equal(401);
    // The password alone now signs in, through the API and in the console (no code asked).
    expect((await authenticate(u.email, u.password)).status).to.equal(201);
    await typePassword(u);
    await signedInAs(u, '/account');
    expect(await page.getByLabel('6-digit code').count()).to.equal(0);
    await page.getByText('Off: a password alone signs you in.').waitFor();
    expect(await mfaOf()).to.deep.equal({ mfaEnabled: 0, mfaAppVerified: 1 }); // the mode is kept, for "Use"
  });

  it('when a page of another origin posts a form to TARS with the session cookie, then TARS refuses it (403) and nothing changes', async () => {
    const u = await site.makeUser(ROLE_IDS.basic);
    await start();
    await typePassword(u);
    await signedInAs(u, '/account');
    const answer = page.waitForResponse((r) => r.url().endsWith('/v2/users/manual-reset-password'));
    await page.goto(`${attackerOrigin}/?target=${encodeURIComponent(site.url)}`);
    const res = await answer;
    expect(res.status()).to.equal(403);
    expect(res.request().headers().cookie ?? (await res.request().allHeaders()).cookie).to.match(/tars_session=/); // sent: same site, other origin
    expect((await site.call('POST', '/v2/authentication', { body: { email: u.email, password: u.password } })).status).to.equal(201);
    expect((await site.call('POST', '/v2/authentication', { body: { email: u.email, password: 'attacker-chosen' } })).status).to.equal(401);
  });
});
