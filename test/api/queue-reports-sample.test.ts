import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { tokenFor } from '../helpers/factories';
import { expectedReports, seedAcmeWithSampleLogs } from '../helpers/pbx-logs';

/** Replaces noAnswerRingTime by its value rounded to 0.001, so deep equality allows reporting.md R5's tolerance. */
function roundRingTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(roundRingTimes);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === 'noAnswerRingTime' ? Math.round((v as number) * 1000) / 1000 : roundRingTimes(v)]),
    );
  }
  return value;
}

describe('queue reports of the sample logs (test/fixtures/expected)', () => {
  let app: TestApp;
  let token: string;

  before(async () => {
    app = await startTestApp();
    await seedAcmeWithSampleLogs(app);
    token = await tokenFor(app, { id: 1 }); // the platform administrator of acme.json
  });
  after(() => app.close());

  for (const expected of expectedReports()) {
    it(`when ${expected.file} is requested after importing the samples, then the response equals the file`, async () => {
      const path = Array.isArray(expected.request.queueId) ? '/v2/reporting/queues/stats' : '/v2/reporting/queues/agent-availability';
      const res = await app.request('POST', path, { token, body: expected.request });
      expect(res.status, res.text).to.equal(201);
      expect(roundRingTimes(res.body)).to.deep.equal(roundRingTimes(expected.response));
    });
  }
});
