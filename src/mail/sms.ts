import { AppError, unavailable } from '../errors';

/** Sends SMS one-time codes through the configured gateway (decisions.md §4). */
export interface SmsGateway {
  readonly configured: boolean;
  send(to: string, message: string): Promise<void>;
}

/**
 * POSTs `{to, message}` as JSON to TARS_SMS_GATEWAY_URL and expects a 2xx within 10 s. Gateways differ
 * too much to speak each one's API; a small adapter in front of the provider is the operator's choice.
 */
export function createSmsGateway(url: string | undefined): SmsGateway {
  if (!url) {
    return {
      configured: false,
      send: async () => {
        throw unavailable('No SMS gateway is configured (set TARS_SMS_GATEWAY_URL)');
      },
    };
  }
  return {
    configured: true,
    async send(to, message) {
      let status: number;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ to, message }),
          signal: AbortSignal.timeout(10_000),
        });
        status = res.status;
      } catch {
        throw unavailable('The SMS gateway could not be reached');
      }
      if (status < 200 || status >= 300) throw new AppError(503, `The SMS gateway refused the message (HTTP ${status})`);
    },
  };
}
