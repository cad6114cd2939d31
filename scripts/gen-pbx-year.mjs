#!/usr/bin/env node
// Generates a year of a simulated call centre for the reporting benchmark (scripts/bench-reporting.ts):
//   node scripts/gen-pbx-year.mjs OUT_DIR [--days 365] [--queues 20] [--agents 200] [--calls 3150]
// writes OUT_DIR/fixture.json (one tenant in America/Chicago, its queues and agent extensions),
// OUT_DIR/queue_log (about 5.0 million lines with the defaults) and OUT_DIR/Master.csv (the matching CDR,
// about 2.4 million rows), starting 2025-01-01. Deterministic: the same arguments give the same files.
// Each agent works a 9-hour shift a day in one or two queues, with three pauses (Break, Lunch, DND);
// `--calls` calls a day arrive between 07:00 and 21:00, are answered by an agent on shift (after 0–2
// unanswered rings), abandoned, time out or leave by key; each agent also places four outbound calls a day,
// and every fifth agent's first one of the day calls back a caller lost that day (reporting.md R22; chosen
// without drawing from the generator, so the rest of the data is what it was before callbacks were added).
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    days: { type: 'string', default: '365' },
    queues: { type: 'string', default: '20' },
    agents: { type: 'string', default: '200' },
    calls: { type: 'string', default: '3150' },
  },
});
const out = positionals[0];
if (!out) {
  console.error('usage: node scripts/gen-pbx-year.mjs OUT_DIR [--days N] [--queues N] [--agents N] [--calls N]');
  process.exit(2);
}
const [DAYS, QUEUES, AGENTS, CALLS] = [values.days, values.queues, values.agents, values.calls].map(Number);
const START = Date.UTC(2025, 0, 1, 6) / 1000; // local midnight, America/Chicago standard time

let state = 0x2545f491;
const rand = () => {
  state = (Math.imul(state ^ (state >>> 15), 1 | state) + 0x6d2b79f5) | 0;
  return ((state >>> 0) % 1e9) / 1e9;
};
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = (list) => list[Math.floor(rand() * list.length)];

const queues = Array.from({ length: QUEUES }, (_, q) => ({ id: q + 1, logName: String(500 + q) }));
const agents = Array.from({ length: AGENTS }, (_, i) => ({
  ext: 1000 + i,
  peer: `PJSIP/${1000 + i}`,
  queues: i % 3 === 0 ? [i % QUEUES, (i + 7) % QUEUES] : [i % QUEUES],
  shift: (i % 2) * 5 + 7, // starts 07:00 or 12:00, lasts 9 h
}));
const membersOf = queues.map((_, q) => agents.filter((a) => a.queues.includes(q)));

mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'fixture.json'),
  JSON.stringify({
    tenants: [{ id: 1, name: 'Benchmark Co', partnerId: 1 }],
    branches: [{ id: 1, tenantId: 1, name: 'Headquarters', timezone: 'America/Chicago', default: 1 }],
    users: [{ id: 1, email: 'admin@bench.example', password: 'benchmark-password', tenantId: 1, userRole: 1 }],
    extensions: agents.map((a, i) => ({ id: i + 1, tenantId: 1, extNum: a.ext, extName: `Agent ${a.ext}`, peerName: a.peer })),
    queues: queues.map((q) => ({ id: q.id, tenantId: 1, name: `Queue ${q.logName}`, logName: q.logName })),
  }),
);

const qlog = createWriteStream(join(out, 'queue_log'));
const cdr = createWriteStream(join(out, 'Master.csv'));
let seq = 100000;
let chan = 0x10000;
const utc = (t) => new Date(t * 1000).toISOString().slice(0, 19).replace('T', ' ');
const channel = (peer) => `${peer}-${(chan++).toString(16).padStart(8, '0')}`;
const cdrRow = (src, dst, ctx, clid, from, to, app, data, start, answer, end, disp, uid) =>
  `"","${src}","${dst}","${ctx}","${clid.replace(/"/g, '""')}","${from}","${to}","${app}","${data}","${utc(start)}","${answer ? utc(answer) : ''}","${utc(end)}",${end - start},${answer ? end - answer : 0},"${disp}","DOCUMENTATION","${uid}",""`;

function shiftEvents(day, lines) {
  for (const a of agents) {
    const start = day + a.shift * 3600 + int(0, 300);
    const end = start + 9 * 3600;
    for (const q of a.queues) {
      const log = (t, ev, data = '') => lines.push([t, `${t}|NONE|${queues[q].logName}|${a.peer}|${ev}|${data}`]);
      log(start, 'ADDMEMBER');
      for (const [after, length, reason] of [
        [2, 900, 'Break'],
        [4, 1800, 'Lunch'],
        [6.5, 600, 'DND'],
      ]) {
        log(start + after * 3600, 'PAUSE', reason);
        log(start + after * 3600 + length, 'UNPAUSE');
      }
      log(end, 'REMOVEMEMBER');
    }
  }
}

function callEvents(day, lines, rows, lost) {
  for (let n = 0; n < CALLS; n++) {
    const q = int(0, QUEUES - 1);
    const t0 = day + 7 * 3600 + int(0, 14 * 3600 - 1);
    const callid = `${t0}.${seq++}`;
    const caller = `+1312555${String(int(0, 9999)).padStart(4, '0')}`;
    const log = (t, agent, ev, data) => lines.push([t, `${t}|${callid}|${queues[q].logName}|${agent}|${ev}|${data}`]);
    const trunk = channel('PJSIP/voip-trunk');
    const cdrQueue = (to, start, answer, end, disp) =>
      rows.push([
        end,
        cdrRow(
          caller,
          queues[q].logName,
          'ext-queues',
          `"CALLER" <${caller}>`,
          trunk,
          to,
          'Queue',
          `${queues[q].logName},t,,,300`,
          start,
          answer,
          end,
          disp,
          callid,
        ),
      ]);
    log(t0 + 1, 'NONE', 'ENTERQUEUE', `|${caller}|1`);
    const onShift = membersOf[q].filter((a) => t0 >= day + a.shift * 3600 + 300 && t0 < day + (a.shift + 9) * 3600 - 900);
    const fate = rand();
    if (onShift.length === 0 || fate > 0.85) {
      const wait = int(1, 300);
      const exit =
        onShift.length === 0
          ? ['EXITEMPTY', `1|1|${wait}`]
          : fate > 0.97
            ? ['EXITWITHKEY', `1|1|1|${wait}`]
            : fate > 0.94
              ? ['EXITWITHTIMEOUT', `1|1|${wait}`]
              : ['ABANDON', `1|1|${wait}`];
      log(t0 + 1 + wait, 'NONE', exit[0], exit[1]);
      lost.push(caller.slice(1));
      cdrQueue('', t0, t0 + 1, t0 + 1 + wait, 'ANSWERED');
      continue;
    }
    let t = t0 + 1;
    for (let r = int(0, 2); r > 0; r--) {
      const ring = int(5, 20);
      const agent = pick(onShift);
      log((t += ring), agent.peer, 'RINGNOANSWER', String(ring * 1000 + int(0, 999)));
      cdrQueue(channel(agent.peer), t0, null, t, 'NO ANSWER');
    }
    const agent = pick(onShift);
    const ring = int(1, 15);
    const hold = t + ring - t0 - 1;
    const talk = int(30, 600);
    log((t += ring), agent.peer, 'CONNECT', `${hold}|${t}.${seq++}|${ring}`);
    log(t + talk, agent.peer, rand() < 0.5 ? 'COMPLETEAGENT' : 'COMPLETECALLER', `${hold}|${talk}|1`);
    cdrQueue(channel(agent.peer), t0, t, t + talk, 'ANSWERED');
  }
}

function outboundRows(day, rows, lost) {
  for (const [i, a] of agents.entries()) {
    for (let n = 0; n < 4; n++) {
      const start = day + (a.shift + int(0, 8)) * 3600 + int(0, 3599);
      const drawn = `1630555${String(int(0, 9999)).padStart(4, '0')}`;
      const number = n === 0 && i % 5 === 0 && lost.length > 0 ? lost[(i * 7) % lost.length] : drawn;
      const disp = rand() < 0.7 ? 'ANSWERED' : rand() < 0.5 ? 'NO ANSWER' : 'BUSY';
      const answer = disp === 'ANSWERED' ? start + int(3, 20) : null;
      const end = (answer ?? start) + int(10, 400);
      rows.push([
        end,
        cdrRow(
          String(a.ext),
          number,
          'from-internal',
          `"Agent ${a.ext}" <${a.ext}>`,
          channel(a.peer),
          channel('PJSIP/voip-trunk'),
          'Dial',
          `PJSIP/${number}@voip-trunk,300,T`,
          start,
          answer,
          end,
          disp,
          `${start}.${seq++}`,
        ),
      ]);
    }
  }
}

async function write(stream, entries) {
  entries.sort((x, y) => x[0] - y[0]); // stable: lines of one second keep their order
  const text = entries.map((e) => e[1]).join('\n') + '\n';
  if (!stream.write(text)) await once(stream, 'drain');
}

for (let d = 0; d < DAYS; d++) {
  const day = START + d * 86400;
  const lines = [];
  const rows = [];
  const lost = [];
  shiftEvents(day, lines);
  callEvents(day, lines, rows, lost);
  outboundRows(day, rows, lost);
  await write(qlog, lines);
  await write(cdr, rows);
}
qlog.end();
cdr.end();
await Promise.all([once(qlog, 'finish'), once(cdr, 'finish')]);
console.log(`wrote ${out}/fixture.json, queue_log and Master.csv for ${DAYS} days, ${QUEUES} queues, ${AGENTS} agents`);
