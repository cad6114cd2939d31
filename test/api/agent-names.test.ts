import { expect } from 'chai';
import { AgentNames } from '../../src/modules/pbx-logs/agent-names';
import { channelAgent } from '../../src/modules/pbx-logs/cdr-line';
import { agentIdentitiesChanged } from '../../src/modules/pbx-logs/identities';
import { QueueLogImporter } from '../../src/modules/pbx-logs/queue-log-importer';
import { acmeDatabase, dumpReporting } from '../helpers/pbx-logs';

const ext = (extNum: number, peer: string, extName = '', aliases: string[] = []) => ({
  extNum,
  peer,
  extName,
  aliases: JSON.stringify(aliases),
});

describe('one agent, many names (reporting.md R14)', () => {
  const names = new AgentNames([
    ext(1001, 'PJSIP/1001', 'Bob Smith'),
    ext(1002, 'SIP/1002', 'Ann Lee', ['Annie', 'PJSIP/1001']),
    ext(1003, 'PJSIP/1003', 'Sam Dee'),
    ext(1004, 'PJSIP/1004', 'Sam Dee'),
  ]);
  const peerOf = (agent: string) => names.resolve(agent)?.peer;

  it('when an agent string is a peerName, an alias, a Local or Agent channel of a number, or a unique extName, then it names that extension', () => {
    expect(peerOf('PJSIP/1001')).to.equal('PJSIP/1001');
    expect(peerOf('Annie')).to.equal('SIP/1002');
    expect(peerOf('Local/1002@from-queue/n')).to.equal('SIP/1002');
    expect(peerOf('Local/1002@from-queue')).to.equal('SIP/1002');
    expect(peerOf(channelAgent('Local/1001@from-internal-0000001b;1'))).to.equal('PJSIP/1001');
    expect(peerOf('Agent/1003')).to.equal('PJSIP/1003');
    expect(peerOf('Bob Smith')).to.equal('PJSIP/1001');
  });

  it("when a string is another extension's peerName, a name two extensions share, or nothing known, then it does not name the wrong one", () => {
    expect(peerOf('PJSIP/1001'), 'a peerName wins over an alias').to.equal('PJSIP/1001');
    expect(peerOf('Sam Dee')).to.equal(undefined);
    expect(peerOf('Local/2000@agents/n')).to.equal(undefined);
    // Names compared as Asterisk does (strcasecmp, ASCII case only: issue 27): another case is the same name, a Unicode twin is not.
    expect(peerOf('bob smith')).to.equal('PJSIP/1001');
    expect(peerOf('pjsip/1001')).to.equal('PJSIP/1001');
    expect(peerOf('Bob \u017Fmith'), 'LONG S, which upper-cases to S').to.equal(undefined);
    expect(peerOf('SAM DEE'), 'still a name two extensions share').to.equal(undefined);
    expect(peerOf('')).to.equal(undefined);
  });
});

describe('unknown agents and queues: the summary says what to run, and a change of aliases re-resolves stored lines', () => {
  const LINES = [
    '1793600000|NONE|400|Local/208@agents/n|ADDMEMBER|',
    '1793600010|c1|400|NONE|ENTERQUEUE||+15550001|1',
    '1793600014|c1|400|Heidi Clark|CONNECT|4|c1.2|3',
    '1793600090|c1|400|Heidi Clark|COMPLETEAGENT|4|76|1',
    '1793600100|c2|overflow|NONE|ENTERQUEUE||+15550002|1',
    "1793600200|c3|401|O'Brien|CONNECT|2|c3.2|1",
  ];

  it('when names resolve to nothing, then each is counted with the exact command that maps it; a member name and its interface share one', async () => {
    const db = await acmeDatabase();
    try {
      const importer = new QueueLogImporter(db.database.sqlite);
      await importer.importLines(LINES);
      const summary = (await importer.finish()).toJSON();
      expect(summary.unknownAgents).to.deep.equal({ 'Heidi Clark': 2, 'Local/208@agents/n': 1, "O'Brien": 1 });
      expect(summary.unknownQueues).to.deep.equal({ overflow: 1 });
      expect(summary.toMap).to.deep.equal([
        {
          kind: 'queue',
          names: ['overflow'],
          lines: 1,
          command: "tars queue add --tenant <tenant id> --log-name 'overflow' --name 'overflow'",
          action: 'add-queue',
          tenantId: null,
          extension: null,
        },
        {
          kind: 'agent',
          names: ['Local/208@agents/n', 'Heidi Clark'],
          lines: 3,
          command: "tars extension add --tenant 1 --ext 208 --name 'Heidi Clark' --peer 'Local/208@agents/n'",
          action: 'add-extension',
          tenantId: 1,
          extension: '208',
        },
        {
          kind: 'agent',
          names: ["O'Brien"],
          lines: 1,
          command: "tars extension update --tenant 1 --ext <extension number> --add-alias 'O'\\''Brien'",
          action: 'add-alias',
          tenantId: 1,
          extension: null,
        },
      ]);
    } finally {
      await db.close();
    }
  });

  it('when an alias is added after the import, then the stored lines count for that extension, and removing it gives them back', async () => {
    const db = await acmeDatabase();
    try {
      const { sqlite } = db.database;
      const importer = new QueueLogImporter(sqlite);
      await importer.importLines(LINES);
      await importer.finish();
      const talkOf = () => (dumpReporting(sqlite).agentTalk as unknown[][]).map((r) => r.slice(2));
      const sessionsOf = () => (dumpReporting(sqlite).sessions as unknown[][]).map((r) => r.slice(1, 3));
      expect(talkOf()).to.deep.equal([['Heidi Clark', 76]]);

      sqlite.prepare(`UPDATE extensions SET agent_aliases = '["Heidi Clark", "Local/208@agents/n"]' WHERE peer_name = 'PJSIP/102'`).run();
      expect(await agentIdentitiesChanged(sqlite, 1)).to.equal(2);
      expect(talkOf()).to.deep.equal([['PJSIP/102', 76]]);
      // ADDMEMBER and CONNECT: one agent, one session; O'Brien answered in 401 without ADDMEMBER: a static member (R15)
      expect(sessionsOf()).to.deep.equal([
        ['PJSIP/102', 1793600000],
        ["O'Brien", 1793600200],
      ]);
      const raw = sqlite.prepare(
        'SELECT DISTINCT (SELECT peer FROM agents WHERE id = raw_agent) FROM queue_events WHERE raw_agent IS NOT NULL',
      );
      expect(raw.pluck().all().sort()).to.deep.equal(['Heidi Clark', 'Local/208@agents/n']);

      sqlite.prepare(`UPDATE extensions SET agent_aliases = '[]' WHERE peer_name = 'PJSIP/102'`).run();
      expect(await agentIdentitiesChanged(sqlite, 1)).to.equal(2);
      expect(talkOf()).to.deep.equal([['Heidi Clark', 76]]);
      expect(sessionsOf()).to.deep.equal([
        ['Heidi Clark', 1793600014],
        ['Local/208@agents/n', 1793600000],
        ["O'Brien", 1793600200],
      ]);
      expect(raw.pluck().all()).to.deep.equal([]);
    } finally {
      await db.close();
    }
  });
});

describe('agent logins of queue NONE (reporting.md R15)', () => {
  const LINES = [
    '1793600000|NONE|NONE|NONE|QUEUESTART|',
    '1793600100|MANAGER|400|Agent/101|ADDMEMBER|', // chan_agent / app_agent_pool member, not logged in yet
    '1793600200|NONE|NONE|Agent/101|AGENTLOGIN|PJSIP/101-00000001',
    '1793600300|NONE|NONE|Agent/101|AGENTLOGOFF|PJSIP/101-00000001|100',
    '1793600400|NONE|NONE|Agent/101|AGENTLOGIN|PJSIP/101-00000002',
  ];
  const sessions = (sqlite: Awaited<ReturnType<typeof acmeDatabase>>['database']['sqlite']) =>
    sqlite
      .prepare(
        'SELECT queue_id AS queue, (SELECT peer FROM agents WHERE id = agent) AS agent, start_at AS start, end_at AS "end" FROM agent_sessions ORDER BY queue_id, start_at',
      )
      .all();

  it('when an Agent/ member is added, logs in and off with queue NONE, then it is available only while logged in, in the queues it is a member of', async () => {
    const db = await acmeDatabase();
    try {
      const { sqlite } = db.database;
      // Static member of 401 by configuration (queues.conf, tars pbx sync): a login makes it available there too.
      sqlite.prepare('INSERT INTO queue_members (queue_id, extension_id) VALUES (2, 1)').run();
      const importer = new QueueLogImporter(sqlite);
      await importer.importLines(LINES);
      const summary = (await importer.finish()).toJSON();
      expect(summary).to.deep.include({ read: 5, imported: 5, skipped: 0, unknownQueues: {}, unknownAgents: {} });
      expect(sessions(sqlite)).to.deep.equal([
        { queue: 1, agent: 'PJSIP/101', start: 1793600200, end: 1793600300 },
        { queue: 1, agent: 'PJSIP/101', start: 1793600400, end: null },
        { queue: 2, agent: 'PJSIP/101', start: 1793600200, end: 1793600300 },
        { queue: 2, agent: 'PJSIP/101', start: 1793600400, end: null },
      ]);
      const again = new QueueLogImporter(sqlite);
      await again.importLines(LINES);
      expect((await again.finish()).toJSON()).to.deep.include({ imported: 0, duplicates: 5 });
    } finally {
      await db.close();
    }
  });

  it('when an Agent/ member never logs in, then it is never available', async () => {
    const db = await acmeDatabase();
    try {
      const importer = new QueueLogImporter(db.database.sqlite);
      await importer.importLines(LINES.slice(0, 2));
      await importer.finish();
      expect(sessions(db.database.sqlite)).to.deep.equal([]);
    } finally {
      await db.close();
    }
  });
});
