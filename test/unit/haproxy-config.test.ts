import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';

const CONFIG = 'scripts/haproxy.cfg';
/** Debian installs it in /usr/sbin, which a user's PATH may not have. */
const HAPROXY = existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy';

/** The config's lines without comments and indentation. */
const lines = () =>
  readFileSync(CONFIG, 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean);

describe('scripts/haproxy.cfg (docs/deployment.md)', () => {
  it('when HAProxy checks it, then it is valid', () => {
    const res = spawnSync(HAPROXY, ['-c', '-f', CONFIG], { encoding: 'utf8' });
    if (res.error) throw new Error(`haproxy is missing (apt-get install haproxy): ${res.error.message}`);
    expect(res.stdout + res.stderr).to.include('Configuration file is valid');
    expect(res.status).to.equal(0);
  });

  it('when read, then it balances round-robin without stickiness, takes an instance out by /healthz, and retries only failed connections', () => {
    const l = lines();
    expect(l).to.include('balance roundrobin');
    expect(l).to.include('option httpchk GET /healthz');
    expect(l).to.include('http-check expect status 200');
    expect(l).to.include('option forwardfor');
    expect(
      l.some((x) => /^(cookie|stick)\b/.test(x)),
      'no stickiness',
    ).to.equal(false);
    expect(
      l.some((x) => x.startsWith('retry-on')),
      'retry-on would send a request that reached an instance again',
    ).to.equal(false);
    const serverTimeout = /^timeout server\s+(\d+)s$/.exec(l.find((x) => x.startsWith('timeout server')) ?? '');
    expect(Number(serverTimeout?.[1]), 'above the live stream heartbeat of 15 s').to.be.greaterThan(15);
  });
});
