import { expect } from 'chai';
import { ALL_PERMISSIONS, effectivePermissions, matches, ROLES } from '../../src/access/permissions';

describe('permission patterns (decisions.md §5)', () => {
  it('when a pattern has *, then it matches exactly one segment', () => {
    expect(matches('reporting.*.read', 'reporting.queues.read')).to.equal(true);
    expect(matches('reporting.*', 'reporting.queues.read')).to.equal(false);
    expect(matches('*.*.read', 'webhooks.read')).to.equal(false);
  });

  it('when a pattern has #, then it matches any number of segments, none included', () => {
    expect(matches('#', 'webhooks.read')).to.equal(true);
    expect(matches('admin.#', 'admin.phone-numbers.read')).to.equal(true);
    expect(matches('admin.#.read', 'admin.read')).to.equal(true);
    expect(matches('admin.#', 'webhooks.read')).to.equal(false);
  });

  it('when a user has own grants and denials, then they add to and take from the role defaults, and a denial wins', () => {
    const basic = effectivePermissions(5, ['webhooks.read']);
    expect([...basic]).to.deep.equal(['webhooks.read']);
    const admin = effectivePermissions(3, ['!webhooks.#', 'webhooks.read']);
    expect(admin.has('webhooks.read')).to.equal(false);
    expect(admin.has('admin.branches.create')).to.equal(true);
  });

  it('when roles are compared, then their defaults are what decisions.md §5 says', () => {
    const of = (role: number) => effectivePermissions(role, []);
    for (const role of [1, 11]) expect(of(role).size).to.equal(ALL_PERMISSIONS.length);
    // An account admin: everything of its own tenant, nothing about tenants themselves.
    expect([...of(3)]).to.deep.equal(ALL_PERMISSIONS.filter((p) => !p.startsWith('admin.tenants.')));
    // A queue manager: queue reports, and (the live layer) acting for the agents of its tenant and its wall screens' links.
    expect([...of(7)]).to.deep.equal(['reporting.queues.read', 'reporting.wallboards.manage', 'queues.agents.manage']);
    expect(of(9).has('reporting.wallboards.manage')).to.equal(false);
    expect(of(9).has('reporting.saved.create')).to.equal(true);
    expect(of(9).has('admin.branches.create')).to.equal(false);
    expect(of(5).size).to.equal(0);
    expect(ROLES.map((r) => r.value).sort((a, b) => a - b)).to.deep.equal([1, 3, 5, 7, 9, 11]);
  });
});
