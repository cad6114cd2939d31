import { expect } from 'chai';
import { createUrlPolicy, DEFAULT_DENY, parsePolicyList } from '../../src/net/url-policy';

describe('webhook destination policy', () => {
  it('when nothing is configured, then loopback, link-local and metadata addresses are refused and the rest (LAN too) allowed', () => {
    const p = createUrlPolicy([], DEFAULT_DENY);
    expect(p.denied('169.254.169.254')).to.match(/deny list/);
    expect(p.denied('metadata.example', '169.254.169.254')).to.match(/deny list/);
    expect(p.denied('[fe80::1]')).to.match(/deny list/);
    expect(p.denied('::ffff:169.254.1.1')).to.match(/deny list/);
    expect(p.denied('127.0.0.1')).to.match(/deny list/); // issue 16: loopback is denied by default
    expect(p.denied('192.168.1.1')).to.equal(null);
    expect(p.denied('hooks.example', '10.1.2.3')).to.equal(null);
  });

  it('when an allow list is set, then only the hosts and ranges it names are reachable; the deny list still wins', () => {
    const p = createUrlPolicy(parsePolicyList('10.0.0.0/8,hooks.example'), parsePolicyList(undefined, DEFAULT_DENY).concat('10.9.9.9'));
    expect(p.denied('other.example', '10.1.2.3')).to.equal(null);
    expect(p.denied('other.example', '192.168.1.1')).to.match(/allow list/);
    expect(p.denied('other.example'), 'undecided until resolved').to.equal(null);
    expect(p.denied('hooks.example', '203.0.113.5')).to.equal(null);
    expect(p.denied('x.example', '10.9.9.9')).to.match(/deny list/);
  });

  it('when a list entry is not a host, address or CIDR, then it is refused with the entry named', () => {
    expect(() => parsePolicyList('10.0.0.0/33')).to.throw('10.0.0.0/33');
    expect(() => parsePolicyList('bad host!')).to.throw('bad host!');
  });
});
