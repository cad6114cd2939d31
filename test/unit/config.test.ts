import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig, parseDuration } from '../../src/config';
import { FIXTURES } from '../helpers/fixtures';

/** The problems loadConfig reports for this environment (none: []). */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.problems;
  }
}

describe('configuration', () => {
  it('when nothing is set, then the defaults apply (port 8080, ./data, 30-day tokens)', () => {
    const c = loadConfig({}, {}, '/srv/tars');
    expect(c).to.include({ port: 8080, host: '0.0.0.0', dataDir: '/srv/tars/data', tokenTtlSeconds: 30 * 86400, logLevel: 'info' });
  });

  it('when a flag and a variable both say something, then the flag wins', () => {
    const c = loadConfig({ TARS_PORT: '9000', TARS_DATA_DIR: '/from/env' }, { port: '0', 'data-dir': 'rel' }, '/cwd');
    expect(c.port).to.equal(0);
    expect(c.dataDir).to.equal('/cwd/rel');
  });

  it('when several settings are wrong, then every problem is reported at once', () => {
    try {
      loadConfig({
        TARS_PORT: 'eighty',
        TARS_LOG_LEVEL: 'loud',
        TARS_TOKEN_TTL: 'forever',
        TARS_JWT_SECRET: 'short',
        TARS_SMTP_URL: 'mail.example',
      });
      expect.fail('loadConfig accepted a wrong configuration');
    } catch (err) {
      expect(err).to.be.instanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const name of ['TARS_PORT', 'TARS_LOG_LEVEL', 'TARS_TOKEN_TTL', 'TARS_JWT_SECRET', 'TARS_SMTP_URL'])
        expect(problems).to.include(name);
    }
  });

  it('when TARS_AMI_URL names PBXs, then each is read; a wrong one is a problem that does not repeat its secret', () => {
    const c = loadConfig({ TARS_AMI_URL: 'ami://tars:s3cret@10.0.0.5, amis://tars:other@pbx2.example:5040' });
    expect(c.amiTargets.map((t) => [t.label, t.port, t.tls])).to.deep.equal([
      ['ami://tars@10.0.0.5', 5038, false],
      ['amis://tars@pbx2.example:5040', 5040, true],
    ]);
    expect(() => loadConfig({ TARS_AMI_URL: 'ami://tars:s3cret@' }))
      .to.throw(ConfigError)
      .with.property('problems')
      .that.deep.equals(['TARS_AMI_URL: URL 1: an AMI URL looks like ami://user:secret@host:5038 (or amis:// for TLS)']);
  });

  it('when a flag is wrong, then the problem names the flag, not the variable', () => {
    expect(() => loadConfig({}, { port: '70000' })).to.throw(ConfigError, '--port');
  });

  it('when durations are written with units, then they are read in seconds', () => {
    expect(parseDuration('90')).to.equal(90);
    expect(parseDuration('15m')).to.equal(900);
    expect(parseDuration('12h')).to.equal(43200);
    expect(parseDuration('30d')).to.equal(2592000);
    expect(parseDuration('1w')).to.equal(undefined);
  });

  describe('HTTPS: TARS_TLS_CERT and TARS_TLS_KEY (issue 30)', () => {
    const cert = join(FIXTURES, 'tls', 'localhost-cert.pem');
    const key = join(FIXTURES, 'tls', 'localhost-key.pem');
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'tars-tls-config-'));
      const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
      writeFileSync(join(dir, 'other-key.pem'), other);
      writeFileSync(join(dir, 'not-pem.pem'), 'hello');
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('when both name the pair of test/fixtures/tls, then the configuration carries them; when neither is set, HTTP', () => {
      const c = loadConfig({ TARS_TLS_CERT: cert, TARS_TLS_KEY: key });
      expect(c.tls?.cert.toString()).to.include('BEGIN CERTIFICATE');
      expect(c.tls?.key.toString()).to.include('PRIVATE KEY');
      expect(loadConfig({}).tls).to.equal(undefined);
    });

    it("when one is missing, a file cannot be read or holds no PEM, or the key is not the certificate's, then each is a problem naming the setting", () => {
      expect(problemsOf({ TARS_TLS_CERT: cert })).to.deep.equal(['TARS_TLS_CERT and TARS_TLS_KEY go together: TARS_TLS_KEY is missing']);
      expect(problemsOf({ TARS_TLS_KEY: key })).to.deep.equal(['TARS_TLS_CERT and TARS_TLS_KEY go together: TARS_TLS_CERT is missing']);
      expect(problemsOf({ TARS_TLS_CERT: join(dir, 'absent.pem'), TARS_TLS_KEY: key })).to.deep.equal([
        `TARS_TLS_CERT: cannot read ${join(dir, 'absent.pem')} (ENOENT)`,
      ]);
      expect(problemsOf({ TARS_TLS_CERT: key, TARS_TLS_KEY: join(dir, 'not-pem.pem') })).to.deep.equal([
        `TARS_TLS_CERT: ${key} holds no PEM certificate`,
        `TARS_TLS_KEY: ${join(dir, 'not-pem.pem')} holds no PEM private key`,
      ]);
      const mismatch = problemsOf({ TARS_TLS_CERT: cert, TARS_TLS_KEY: join(dir, 'other-key.pem') });
      expect(mismatch).to.have.length(1);
      expect(mismatch[0]).to.match(/^TARS_TLS_CERT and TARS_TLS_KEY: .*key values mismatch.*\(is the key the certificate's\?\)$/);
      // Reported with the other problems at once.
      expect(problemsOf({ TARS_TLS_CERT: cert, TARS_PORT: 'x' })).to.have.length(2);
    });
  });
});
