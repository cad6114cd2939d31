import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runTars } from '../helpers/cli';
import { FIXTURES } from '../helpers/fixtures';
import { startSmtp, type TestSmtp } from '../helpers/smtp';

describe('tars report run (e2e, a real process and a real SMTP server)', function () {
  this.timeout(120_000);
  let dir: string;
  let smtp: TestSmtp;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tars-report-'));
    smtp = await startSmtp();
    for (const args of [
      ['seed', join(FIXTURES, 'acme.json')],
      ['import', 'queue-log', join(FIXTURES, 'queue_log.sample')],
      ['import', 'cdr', join(FIXTURES, 'Master.csv.sample')],
    ]) {
      const res = await runTars([...args, '--data-dir', dir]);
      expect(res.code, res.stderr).to.equal(0);
    }
  });
  after(async () => {
    await smtp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when a filter is run for a day, then its e-mail goes to its recipients with that day in the subject and exit code 0', async () => {
    const res = await runTars(['report', 'run', '1', '--for', '2026-11-01', '--data-dir', dir], { env: { TARS_SMTP_URL: smtp.url } });
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.include('sent the report of filter 1 "Missed calls yesterday" for 2026-11-01 to 2026-11-01');
    const mail = await smtp.next();
    expect(mail.to).to.deep.equal(['reports@acme.example', 'boss@acme.example']);
    expect(mail.parsed.subject).to.equal('TARS report "Missed calls yesterday": 2026-11-01');
    const rows = (mail.parsed.attachments[0]?.content.toString('utf8') ?? '').trim().split('\r\n').slice(1);
    expect(rows.length).to.be.greaterThan(0);
    expect(rows.every((r) => r.includes(',inbound,') && r.endsWith(',NO ANSWER'))).to.equal(true);
  });

  it('when the SMTP server refuses, then exit code 1 with the reason; an unknown filter is exit 1 too', async () => {
    smtp.refuse = true;
    try {
      const res = await runTars(['report', 'run', '1', '--data-dir', dir], { env: { TARS_SMTP_URL: smtp.url } });
      expect(res.code).to.equal(1);
      expect(res.stderr).to.include('SMTP server refused recipient reports@acme.example');
    } finally {
      smtp.refuse = false;
    }
    const missing = await runTars(['report', 'run', '99', '--data-dir', dir], { env: { TARS_SMTP_URL: smtp.url } });
    expect([missing.code, missing.stderr.trim()]).to.deep.equal([1, 'tars report run: no saved filter with id 99']);
  });
});
