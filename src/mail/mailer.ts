import type { Transporter } from 'nodemailer';
import { unavailable } from '../errors';

export interface MailAttachment {
  filename: string;
  content: string | Buffer;
  contentType?: string;
}

export interface MailMessage {
  to: string | string[];
  subject: string;
  text: string;
  html?: string;
  attachments?: MailAttachment[];
}

/** Sends e-mail through the configured SMTP server: MFA codes and scheduled reports alike. */
export interface Mailer {
  readonly configured: boolean;
  send(message: MailMessage): Promise<void>;
  /** Checks that the SMTP server answers and accepts our credentials. */
  verify(): Promise<void>;
  close(): void;
}

/**
 * A nodemailer transport for TARS_SMTP_URL (smtp:// with STARTTLS when offered, smtps:// for TLS from
 * the start, credentials in the URL). Without a URL every send fails with 503, which callers turn into
 * a clear message ("no SMTP server is configured").
 */
export function createMailer(smtpUrl: string | undefined, from: string): Mailer {
  if (!smtpUrl) {
    const fail = async () => {
      throw unavailable('No SMTP server is configured (set TARS_SMTP_URL)');
    };
    return { configured: false, send: fail, verify: fail, close: () => {} };
  }
  // nodemailer is loaded with the first message, not at every start (most starts send none).
  let transport: Promise<Transporter> | undefined;
  const open = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      // Bounded waits: an MFA login must not hang for minutes on an unreachable mail server. Query
      // parameters of the URL (e.g. ?tls.rejectUnauthorized=false for a self-signed server) still apply.
      nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }, { from }),
    ));
  return {
    configured: true,
    async send(message) {
      await (await open()).sendMail({ from, ...message });
    },
    async verify() {
      await (await open()).verify();
    },
    close() {
      void transport?.then(
        (t) => t.close(),
        () => {}, // a transport that could not be made has nothing to close (its error went to the send that asked)
      );
    },
  };
}
