import path from 'node:path';
import { expect } from 'chai';
import { AsteriskConfigError } from '../../src/modules/pbx-config/asterisk-conf';
import { readSiteConfig, type SiteConfig } from '../../src/modules/pbx-config/site-config';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures');
const site = (dir: string): SiteConfig => readSiteConfig(path.join(FIXTURES, dir));
const members = (s: SiteConfig) =>
  Object.fromEntries(
    s.queues.map((q) => [q.logName, q.members.map((m) => [m.interface, m.penalty, m.memberName, m.stateInterface, m.extNum])]),
  );
const extensions = (s: SiteConfig) => s.extensions.map((e) => [e.extNum, e.peerName, e.extName, e.agentAliases]);

describe('site configuration: the Asterisk 22 lab run (test/fixtures/asterisk/etc)', () => {
  const lab = (): SiteConfig => site('asterisk/etc');

  it('when its queues.conf is read, then sales, support and billing have the static members 201–207 it lists', () => {
    expect(lab().queues.map((q) => [q.logName, q.name, q.number, q.strategy, q.serviceLevelSeconds])).to.deep.equal([
      ['sales', 'sales', null, 'ringall', 30],
      ['support', 'support', null, 'rrmemory', 30],
      ['billing', 'billing', null, 'leastrecent', 30],
    ]);
    expect(members(lab())).to.deep.equal({
      sales: [
        ['Local/201@agents/n', 0, 'Alice Smith', null, '201'],
        ['Local/202@agents/n', 0, 'Bob Jones', null, '202'],
        ['Local/203@agents/n', 0, 'Carol White', null, '203'],
      ],
      support: [
        ['Local/203@agents/n', 0, 'Carol White', null, '203'],
        ['Local/204@agents/n', 0, 'Dave Miller', null, '204'],
        ['Local/205@agents/n', 0, 'Eve Davis', null, '205'],
      ],
      billing: [
        ['Local/206@agents/n', 0, 'Frank Moore', null, '206'],
        ['Local/207@agents/n', 0, 'Grace Lee', null, '207'],
      ],
    });
  });

  it('when members are Local channels with names, then each is one extension aliased by its interface and its member name', () => {
    const names = ['Alice Smith', 'Bob Jones', 'Carol White', 'Dave Miller', 'Eve Davis', 'Frank Moore', 'Grace Lee'];
    expect(extensions(lab())).to.deep.equal(names.map((n, i) => [`20${i + 1}`, null, n, [`Local/20${i + 1}@agents/n`, n]]));
    expect(lab().extensions.map((e) => e.extNum)).not.to.include.members(['208', '209']);
    expect(lab().extensions[2]?.sources).to.deep.equal(['queues.conf:30 member of sales', 'queues.conf:51 member of support']);
  });

  it('when the dialplan has no hints and there is no SIP configuration, then endpoints and hints are empty and nothing is noted', () => {
    expect(lab()).to.deep.include({ files: ['queues.conf', 'extensions.conf'], endpoints: [], hints: [], notes: [] });
  });
});

describe('site configuration: a FreePBX-style tree', () => {
  const fpbx = (): SiteConfig => site('pbx-config/freepbx');

  it('when queues_additional.conf lists Local/…@from-queue/n members with hint: state interfaces, then each maps to its extension', () => {
    // servicelevel=60 is taken; 401's servicelevel=0 is Asterisk's "none" (reporting.md R19)
    expect(fpbx().queues.map((q) => [q.logName, q.number, q.strategy, q.serviceLevelSeconds])).to.deep.equal([
      ['400', '400', 'ringall', 60],
      ['401', '401', 'rrmemory', null],
    ]);
    expect(members(fpbx())).to.deep.equal({
      '400': [
        ['Local/1001@from-queue/n', 0, 'Bob Smith', 'hint:1001@ext-local', '1001'],
        ['Local/1002@from-queue/n', 5, 'Alice Wong', 'hint:1002@ext-local', '1002'],
        ['Local/1003@from-queue/n', 0, 'Carol Diaz', 'hint:1003@ext-local', '1003'],
      ],
      '401': [
        ['Local/1002@from-queue/n', 0, 'Alice Wong', 'hint:1002@ext-local', '1002'],
        ['SIP/1004', 0, null, null, '1004'],
        ['PJSIP/1005', 1, null, null, '1005'],
      ],
    });
  });

  it('when hints name PJSIP and SIP devices, then peerName is the first device, the name is the endpoint caller id, further devices are aliases', () => {
    expect(extensions(fpbx())).to.deep.equal([
      ['1001', 'PJSIP/1001', 'Bob Smith', ['Local/1001@from-queue/n', 'Bob Smith']],
      ['1002', 'PJSIP/1002', 'Alice Wong', ['PJSIP/1002-mobile', 'Local/1002@from-queue/n', 'Alice Wong']],
      ['1003', 'PJSIP/1003', 'Carol Diaz', ['Local/1003@from-queue/n', 'Carol Diaz']],
      ['1004', 'SIP/1004', 'Dan Ortiz', []],
      ['1005', 'PJSIP/1005', 'Eve Park', []],
    ]);
  });

  it('when pjsip.endpoint.conf and sip_additional.conf are included, then endpoints and peers are read, aor/auth/transport sections are not', () => {
    expect(fpbx().endpoints.map((e) => [e.peerName, e.callerIdName, e.callerIdNumber, e.file])).to.deep.equal([
      ['PJSIP/1001', 'Bob Smith', '1001', 'pjsip.endpoint.conf'],
      ['PJSIP/1002', 'Alice Wong', '1002', 'pjsip.endpoint.conf'],
      ['PJSIP/1003', 'Carol Diaz', '1003', 'pjsip.endpoint.conf'],
      ['PJSIP/1005', 'Eve Park', '1005', 'pjsip.endpoint.conf'],
      ['SIP/1004', 'Dan Ortiz', '1004', 'sip_additional.conf'],
      ['SIP/voip-trunk', null, null, 'sip_additional.conf'],
    ]);
  });

  it('when a hint is not an extension number, then it is noted with its file and line, not read as an extension', () => {
    expect(fpbx().notes).to.deep.equal([
      {
        file: 'extensions_additional.conf',
        line: 23,
        message: "hint '*1004' in [ext-local] is not an extension number: not read as an extension",
      },
    ]);
    expect(fpbx().files).to.include.members([
      'queues_additional.conf',
      'queues_post_custom.conf',
      'pjsip.endpoint.conf',
      'sip_additional.conf',
      'extensions_additional.conf',
    ]);
  });
});

describe('site configuration: a plain Asterisk tree with templates', () => {
  const plain = (): SiteConfig => site('pbx-config/plain');

  it('when queues take members from templates and (+) additions in included files, then every member is there, none from comments', () => {
    // servicelevel comes from the template; orders overrides it (7200, read as written: the sync notes it)
    expect(plain().queues.map((q) => [q.logName, q.strategy, q.serviceLevelSeconds])).to.deep.equal([
      ['Helpdesk', 'fewestcalls', 45],
      ['orders', 'leastrecent', 7200],
      ['night', 'rrmemory', 45],
    ]);
    expect(members(plain())).to.deep.equal({
      Helpdesk: [
        ['PJSIP/alice', 0, 'Alice Martin', null, '3001'],
        ['PJSIP/bob', 1, 'Jones, Bob', null, '3002'],
        ['Local/3004@staff/n', 2, 'Dave Kim', 'PJSIP/dave', '3004'],
      ],
      orders: [
        ['Agent/3003', 0, null, null, '3003'],
        ['PJSIP/carol', 0, null, null, '3005'],
      ],
      night: [['Local/3001@staff/n', 0, 'Alice Martin', 'PJSIP/alice', '3001']],
    });
  });

  it('when endpoints are named by people, then hints give their numbers and a state interface gives a peerName', () => {
    expect(extensions(plain())).to.deep.equal([
      ['3001', 'PJSIP/alice', 'Alice Martin', ['Alice Martin', 'Local/3001@staff/n']],
      ['3002', 'PJSIP/bob', 'Bob Jones', ['Jones, Bob']],
      ['3003', null, null, ['Agent/3003']],
      ['3004', 'PJSIP/dave', 'Dave Kim', ['Local/3004@staff/n', 'Dave Kim']],
      ['3005', 'PJSIP/carol', 'Carol Nunez', []],
    ]);
    expect(plain().notes).to.deep.equal([]);
  });
});

describe('site configuration: what it refuses', () => {
  function problems(dir: string): string[] {
    try {
      readSiteConfig(dir);
    } catch (err) {
      expect(err).to.be.instanceOf(AsteriskConfigError);
      return (err as AsteriskConfigError).validationErrors ?? [];
    }
    throw new Error('read without a problem');
  }

  it('when queues.conf has an unknown strategy, a bad penalty, an empty member and a queue twice, then all four are reported', () => {
    expect(problems(path.join(FIXTURES, 'pbx-config', 'broken-site'))).to.deep.equal([
      "queues.conf:4: unknown strategy 'ringsome' (Asterisk would use ringall): one of ringall, leastrecent, fewestcalls, random, rrmemory, linear, wrandom, rrordered, roundrobin",
      "queues.conf:5: member penalty 'high' is not a whole number",
      "queues.conf:6: empty member: 'member => interface[,penalty[,name[,state interface]]]'",
      "queues.conf:8: queue 'Sales' is defined a second time (first at queues.conf:3); Asterisk compares queue names without case",
    ]);
  });

  it('when the directory has no queues.conf or does not exist, then it is refused with that reason', () => {
    expect(problems(path.join(FIXTURES, 'pbx-config', 'plain', 'conf.d'))).to.deep.equal([
      "queues.conf:0: not found in this directory: is it Asterisk's configuration directory?",
    ]);
    const missing = path.join(FIXTURES, 'pbx-config', 'nothere');
    expect(problems(missing)).to.deep.equal([
      `${missing}:0: no such directory (give Asterisk's configuration directory, e.g. /etc/asterisk)`,
    ]);
  });
});
