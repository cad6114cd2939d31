import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { FIXTURES } from '../helpers/pbx-logs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const tars = (args: string[]) => spawnSync(process.execPath, [join(ROOT, 'dist/tars.cjs'), ...args], { encoding: 'utf8' });

/** The commands an import summary prints, run as printed (through a shell), then the same file imported again. */
describe('tars extension / queue (the built CLI), and the commands an import summary prints', () => {
  let dir: string;
  let data: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-directory-'));
    data = join(dir, 'data');
    expect(tars(['seed', join(FIXTURES, 'acme.json'), '--data-dir', data]).status).to.equal(0);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('when the printed commands are run, then a second import stores the skipped lines and reports nothing unknown', () => {
    const log = join(dir, 'queue_log');
    writeFileSync(
      log,
      [
        '1793600000|NONE|400|Local/208@agents/n|ADDMEMBER|',
        '1793600010|c1|400|NONE|ENTERQUEUE||+15550001|1',
        '1793600014|c1|400|Heidi Clark|CONNECT|4|c1.2|3',
        '1793600090|c1|400|Heidi Clark|COMPLETEAGENT|4|76|1',
        '1793600100|c2|overflow|NONE|ENTERQUEUE||+15550002|1',
        '',
      ].join('\n'),
    );
    const first = tars(['import', 'queue-log', log, '--data-dir', data]);
    expect(first.stdout)
      .to.include('unknown queues: overflow (1)')
      .and.include('agents without an extension: Local/208@agents/n (1), Heidi Clark (2)');
    const commands = first.stdout
      .split('\n')
      .filter((l) => l.startsWith('  tars '))
      .map((l) =>
        l
          .trim()
          .replace(/\s+#.*$/, '')
          .replace('<tenant id>', '1'),
      );
    expect(commands).to.deep.equal([
      "tars queue add --tenant 1 --log-name 'overflow' --name 'overflow'",
      "tars extension add --tenant 1 --ext 208 --name 'Heidi Clark' --peer 'Local/208@agents/n'",
    ]);
    for (const command of commands) {
      const run = spawnSync(
        'sh',
        ['-c', `${command.replace(/^tars /, `"${process.execPath}" "${join(ROOT, 'dist/tars.cjs')}" `)} --data-dir "${data}"`],
        {
          encoding: 'utf8',
        },
      );
      expect(run.status, run.stderr).to.equal(0);
    }
    const again = tars(['import', 'queue-log', log, '--data-dir', data]);
    expect(again.stdout.trim()).to.equal('queue-log queue_log: 5 lines read, 1 imported, 4 duplicates, 0 skipped');
  });

  it('when aliases are added and removed, or a name is taken, then the record shows it, or exit 1 says what is taken', () => {
    const added = tars([
      'extension',
      'update',
      '--tenant',
      '1',
      '--ext',
      '101',
      '--add-alias',
      'Alice S',
      '--add-alias',
      'SIP/101',
      '--data-dir',
      data,
    ]);
    expect(JSON.parse(added.stdout).agentAliases).to.deep.equal(['Alice S', 'SIP/101']);
    const removed = tars(['extension', 'update', '--tenant', '1', '--ext', '101', '--remove-alias', 'Alice S', '--data-dir', data]);
    expect(JSON.parse(removed.stdout).agentAliases).to.deep.equal(['SIP/101']);
    const taken = tars(['extension', 'add', '--tenant', '1', '--ext', '150', '--peer', 'SIP/101', '--data-dir', data]);
    expect(taken.status).to.equal(1);
    expect(taken.stderr).to.equal('tars extension add: The agent name "SIP/101" already names extension 1 of tenant 1\n');
    const bad = tars(['queue', 'add', '--tenant', '1', '--log-name', 'x', '--name', 'X', '--strategy', 'sometimes', '--data-dir', data]);
    expect(bad.status).to.equal(2);
    expect(bad.stderr).to.include('ringStrategy');
    // reporting.md R19: a queue's service level threshold from the command line
    const sl = tars(['queue', 'add', '--tenant', '1', '--log-name', 'sl-cli', '--name', 'SL', '--service-level', '20', '--data-dir', data]);
    expect(JSON.parse(sl.stdout).serviceLevelSeconds, sl.stderr).to.equal(20);
    const up = tars(['queue', 'update', '--tenant', '1', '--log-name', 'sl-cli', '--service-level', '45', '--data-dir', data]);
    expect(JSON.parse(up.stdout).serviceLevelSeconds, up.stderr).to.equal(45);
    const tooLong = tars(['queue', 'update', '--tenant', '1', '--log-name', 'sl-cli', '--service-level', '3601', '--data-dir', data]);
    expect(tooLong.status).to.equal(2);
    expect(tooLong.stderr).to.include('serviceLevelSeconds');
    const listed = tars(['extension', 'list', '--tenant', '1', '--data-dir', data])
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l).extNum);
    expect(listed).to.deep.equal([101, 102, 103, 208]);
  });

  it('when a tenant and a number are added, listed and deleted from the command line, then each prints the record; a tenant that owns records needs --cascade', () => {
    const json = (args: string[]) => {
      const res = tars([...args, '--data-dir', data]);
      expect(res.status, res.stderr).to.equal(0);
      return res.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    };
    const [tenant] = json(['tenant', 'add', '--name', 'Air-gapped Site', '--mfa-required', '1']);
    expect(tenant).to.deep.include({ name: 'Air-gapped Site', partnerId: 0, mfaRequired: 1 });
    expect(json(['tenant', 'list']).map((t) => t.id)).to.include(tenant.id);
    const [branch] = json(['extension', 'add', '--tenant', String(tenant.id), '--ext', '100', '--peer', 'PJSIP/100']);
    const refused = tars([
      'number',
      'add',
      '--tenant',
      String(tenant.id),
      '--number',
      '+15550100',
      '--branch',
      '1',
      '--sms-ext',
      String(branch.id),
      '--data-dir',
      data,
    ]);
    expect(refused.status).to.equal(1);
    expect(refused.stderr).to.include(`branchId: branch 1 is not a branch of tenant ${tenant.id}`);
    const kept = tars(['tenant', 'delete', '--tenant', String(tenant.id), '--data-dir', data]);
    expect(kept.status).to.equal(1);
    expect(kept.stderr).to.include('still owns 1 extension;');
    expect(json(['tenant', 'delete', '--tenant', String(tenant.id), '--cascade'])[0].id).to.equal(tenant.id);
    const [number] = json(['number', 'add', '--tenant', '1', '--number', '+15550101', '--branch', '1', '--sms-ext', '1']);
    expect(number).to.deep.include({ number: '+15550101', smsExt: { id: 1, name: 'Alice Smith' } });
    expect(json(['number', 'list', '--tenant', '1']).map((n) => n.number)).to.include('+15550101');
    expect(json(['number', 'delete', '--id', String(number.id)])[0].id).to.equal(number.id);
  });
});
