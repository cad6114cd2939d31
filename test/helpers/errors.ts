import { expect } from 'chai';
import type { TestResponse } from './app';

/** The error `name` of each status (decisions.md §2). */
export const ERROR_NAMES: Record<number, string> = {
  400: 'BadRequest',
  401: 'NotAuthenticated',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'GeneralError',
  503: 'Unavailable',
};

/** The response is an error of decisions.md §2 with this status; on 400, some validationErrors entry names each field. */
export function expectError(res: TestResponse, status: number, fields: string[] = []): void {
  expect(res.status, `status of ${res.text.slice(0, 300)}`).to.equal(status);
  expect(res.body).to.include({ name: ERROR_NAMES[status], code: status });
  expect(res.body.message).to.be.a('string').and.not.equal('');
  if (status === 400) {
    expect(res.body.validationErrors).to.be.an('array').that.is.not.empty;
    for (const f of fields) {
      expect(
        (res.body.validationErrors as string[]).some((e) => e.includes(f)),
        `validationErrors ${JSON.stringify(res.body.validationErrors)} name ${f}`,
      ).to.equal(true);
    }
  }
}
