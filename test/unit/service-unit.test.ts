import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';

const UNIT = readFileSync('scripts/tars.service', 'utf8');

/** Key=value lines of the unit (the last one wins, as in systemd). */
function settings(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (m) out.set(m[1] as string, m[2] as string);
  }
  return out;
}

describe('scripts/tars.service', () => {
  it('when read, then it runs tars serve as the unprivileged user tars, with a 0700 state directory, restarts on failure and hardening on', () => {
    const s = settings(UNIT);
    expect(s.get('ExecStart')).to.equal('/usr/local/bin/tars serve');
    expect(s.get('User')).to.equal('tars');
    expect(s.get('Environment')).to.equal('TARS_CACHE_DIR=/var/cache/tars');
    expect(UNIT).to.include('Environment=TARS_DATA_DIR=/var/lib/tars');
    for (const [key, value] of [
      ['StateDirectory', 'tars'],
      ['StateDirectoryMode', '0700'],
      ['CacheDirectoryMode', '0700'],
      ['Restart', 'on-failure'],
      ['KillSignal', 'SIGTERM'],
      ['StandardOutput', 'journal'],
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['PrivateTmp', 'yes'],
      ['CapabilityBoundingSet', ''],
    ]) {
      expect(s.get(key as string), key).to.equal(value);
    }
    expect(Number(s.get('TimeoutStopSec')), 'longer than the 10 s the server gives requests in flight').to.be.greaterThan(10);
  });

  it('when systemd-analyze verify checks it, then it reports nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tars-unit-'));
    try {
      // verify insists that ExecStart names an executable that exists: point it at a stand-in.
      copyFileSync('/bin/true', join(dir, 'tars'));
      const unit = join(dir, 'tars.service');
      writeFileSync(unit, UNIT.replaceAll('/usr/local/bin/tars', join(dir, 'tars')));
      const res = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
      if (res.error) throw new Error(`systemd-analyze is missing (apt-get install systemd): ${res.error.message}`);
      expect(res.stderr + res.stdout).to.equal('');
      expect(res.status).to.equal(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
