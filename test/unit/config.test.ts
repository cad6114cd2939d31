import { expect } from 'chai';
import { ConfigError, loadConfig, parseDuration } from '../../src/config';

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
});
