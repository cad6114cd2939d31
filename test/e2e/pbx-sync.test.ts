import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { expect } from 'chai';
import { FIXTURES } from '../helpers/pbx-logs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const tars = (args: string[]) => spawnSync(process.execPath, [join(ROOT, 'dist/tars.cjs'), ...args], { encoding: 'utf8' });
const LAB = join(FIXTURES, 'asterisk');

/** A data directory with one empty tenant (1), as a new site starts. */
function emptySite(dir: string): string {
  const data = join(dir, 'data');
  const fixture = join(dir, 'site.json');
  writeFileSync(
    fixture,
    JSON.stringify({
      tenants: [{ id: 1, name: 'Lab', partnerId: 1 }],
      branches: [{ id: 1, tenantId: 1, name: 'Lab', timezone: 'UTC', default: 1 }],
      users: [{ id: 1, email: 'admin@lab.test', password: 'lab-admin-pass', tenantId: 1, branchId: 1, userRole: 3 }],
    }),
  );
  expect(tars(['seed', fixture, '--data-dir', data]).status).to.equal(0);
  return data;
}

function directory(data: string) {
  const db = new SqliteDatabase(join(data, 'tars.db'), { readonly: true });
  try {
    return {
      extensions: db
        .prepare('SELECT ext_num AS n, peer_name AS peer, ext_name AS name, agent_aliases AS aliases FROM extensions ORDER BY ext_num')
        .all(),
      queues: db
        .prepare(
          `SELECT q.log_name AS logName, q.ring_strategy AS strategy, q.service_level_seconds AS serviceLevel,
            (SELECT group_concat(e.ext_num) FROM queue_members m JOIN extensions e ON e.id = m.extension_id WHERE m.queue_id = q.id) AS members
           FROM queues q ORDER BY q.id`,
        )
        .all(),
    };
  } finally {
    db.close();
  }
}

describe('tars pbx sync (the built CLI) on real and hand-written Asterisk configurations', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-sync-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('when the real Asterisk 22 run is synced and applied, then a second run plans nothing and its log has only the two AMI-added members unknown', () => {
    const data = emptySite(dir);
    const dry = tars(['pbx', 'sync', '--from', join(LAB, 'etc'), '--tenant', '1', '--data-dir', data]);
    expect(dry.status, dry.stderr).to.equal(0);
    expect(dry.stdout).to.include('would create extension 201: Local/201@agents/n "Alice Smith"').and.include('Nothing was written');
    expect(directory(data).queues).to.deep.equal([]);

    expect(tars(['pbx', 'sync', '--from', join(LAB, 'etc'), '--tenant', '1', '--apply', '--data-dir', data]).status).to.equal(0);
    expect(directory(data).queues).to.deep.equal([
      { logName: 'sales', strategy: 'ringall', serviceLevel: 30, members: '201,202,203' },
      { logName: 'support', strategy: 'rrmemory', serviceLevel: 30, members: '203,204,205' },
      { logName: 'billing', strategy: 'leastrecent', serviceLevel: 30, members: '206,207' },
    ]);
    expect(directory(data).extensions[0]).to.deep.equal({
      n: 201,
      peer: 'Local/201@agents/n',
      name: 'Alice Smith',
      aliases: '["Alice Smith"]',
    });
    const again = tars(['pbx', 'sync', '--from', join(LAB, 'etc'), '--tenant', '1', '--json', '--data-dir', data]);
    expect(JSON.parse(again.stdout)).to.deep.include({ extensions: [], queues: [], unchanged: { extensions: 7, queues: 3 }, notes: [] });
    // A threshold changed in TARS is set back to the configuration's servicelevel (reporting.md R19).
    expect(tars(['queue', 'update', '--tenant', '1', '--log-name', 'sales', '--service-level', '20', '--data-dir', data]).status).to.equal(
      0,
    );
    const back = tars(['pbx', 'sync', '--from', join(LAB, 'etc'), '--tenant', '1', '--apply', '--data-dir', data]);
    expect(back.stdout).to.include('changed queue sales: service level 20 s → 30 s');
    expect(directory(data).queues[0]).to.deep.include({ logName: 'sales', serviceLevel: 30 });

    const imported = tars(['import', 'queue-log', join(LAB, 'queue_log'), '--data-dir', data]).stdout;
    expect(imported).not.to.include('unknown queues');
    expect(imported).to.include(
      'agents without an extension: Local/208@agents/n (4), Heidi Clark (92), Local/209@agents/n (4), Ivan Petrov (58)',
    );
    expect(imported)
      .to.include("tars extension add --tenant 1 --ext 208 --name 'Heidi Clark' --peer 'Local/208@agents/n'")
      .and.include("tars extension add --tenant 1 --ext 209 --name 'Ivan Petrov' --peer 'Local/209@agents/n'");
  });

  it('when a FreePBX configuration is synced, then hint devices are peerNames and Local members and member names become aliases', () => {
    const data = emptySite(dir);
    const res = tars(['pbx', 'sync', '--from', join(FIXTURES, 'pbx-config', 'freepbx'), '--tenant', '1', '--apply', '--data-dir', data]);
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stdout).to.include("note: extensions_additional.conf:23: hint '*1004' in [ext-local] is not an extension number");
    const { extensions, queues } = directory(data);
    expect(extensions[0]).to.deep.equal({
      n: 1001,
      peer: 'PJSIP/1001',
      name: 'Bob Smith',
      aliases: '["Local/1001@from-queue/n","Bob Smith"]',
    });
    expect(queues).to.deep.equal([
      { logName: '400', strategy: 'ringall', serviceLevel: 60, members: '1001,1002,1003' },
      { logName: '401', strategy: 'rrmemory', serviceLevel: 30, members: '1002,1004,1005' }, // servicelevel=0: none, the default stays
    ]);
  });

  it('when the directory already has some of it, then the plan changes what differs and leaves the rest; a foreign queue name or an unreadable file is refused', () => {
    const data = emptySite(dir);
    expect(tars(['extension', 'add', '--tenant', '1', '--ext', '3002', '--peer', 'PJSIP/bob', '--data-dir', data]).status).to.equal(0);
    const plain = join(FIXTURES, 'pbx-config', 'plain');
    const plan = tars(['pbx', 'sync', '--from', plain, '--tenant', '1', '--data-dir', data]).stdout;
    expect(plan)
      .to.include('would change extension 3002: alias + "Jones, Bob"; name "" → "Bob Jones"')
      .and.include('would create queue Helpdesk: "Helpdesk", fewestcalls, service level 45 s')
      .and.include('note: queues.conf:22: servicelevel 7200 of orders is more than 3600 seconds: not taken');

    const broken = tars(['pbx', 'sync', '--from', join(FIXTURES, 'pbx-config', 'broken'), '--tenant', '1', '--data-dir', data]);
    expect(broken.status).to.equal(1);
    expect(broken.stderr).to.include('queues.conf');
    expect(directory(data).queues).to.deep.equal([]);

    const acme = join(dir, 'acme');
    expect(tars(['seed', join(FIXTURES, 'acme.json'), '--data-dir', acme]).status).to.equal(0);
    const foreign = tars([
      'pbx',
      'sync',
      '--from',
      join(FIXTURES, 'pbx-config', 'freepbx'),
      '--tenant',
      '2',
      '--apply',
      '--data-dir',
      acme,
    ]);
    expect(foreign.status).to.equal(1);
    expect(foreign.stderr).to.match(/Queue "400" \(queues_additional\.conf:\d+\) is already queue 1 of tenant 1/);
    expect(directory(acme).extensions).to.have.length(4); // acme's own: nothing of the refused plan was written
  });
});
