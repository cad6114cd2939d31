import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { EV, parseQueueLogLine, QUEUE_LOG_SKIPS } from '../../src/modules/pbx-logs/queue-log-line';
import { callerKey } from '../../src/modules/pbx-logs/digits';
import { QUEUE_LOG_SAMPLE } from '../helpers/pbx-logs';

const parse = (line: string) => parseQueueLogLine(line);

describe('queue_log lines (reporting.md R1, R4)', () => {
  it('when a line is blank, whitespace only, short or not timed, then it is skipped with its reason', () => {
    expect(parse('')).to.equal(QUEUE_LOG_SKIPS.blank);
    expect(parse('   \t')).to.equal(QUEUE_LOG_SKIPS.blank);
    expect(parse('1793427706|1.1|400|NONE')).to.equal(QUEUE_LOG_SKIPS.notRecord);
    expect(parse('-- logger restarted: queue_log reopened --')).to.equal(QUEUE_LOG_SKIPS.notRecord);
    expect(parse('17934x7706|1.1|400|NONE|ENTERQUEUE||+1|1')).to.equal(QUEUE_LOG_SKIPS.notRecord);
  });

  it('when the event is unused, truncated or unknown, then it is skipped as not used', () => {
    for (const name of ['COMPLETECAL', 'XFERSTATUS', 'PENALTY', 'RINGINUSE', 'completeagent']) {
      expect(parse(`1793427706|1.1|400|PJSIP/101|${name}|1|2|3`), name).to.equal(QUEUE_LOG_SKIPS.unusedEvent);
    }
  });

  it('when a known event lacks data fields or has a non-number where one is required, then it is skipped', () => {
    expect(parse('1|c|400|NONE|ABANDON|1|1')).to.equal(QUEUE_LOG_SKIPS.badData);
    expect(parse('1|c|400|PJSIP/101|RINGNOANSWER|abc')).to.equal(QUEUE_LOG_SKIPS.badData);
    expect(parse('1|c|400|PJSIP/101|RINGNOANSWER|')).to.equal(QUEUE_LOG_SKIPS.badData);
    expect(parse('1|c|400|PJSIP/101|CONNECT|-3|u|2')).to.equal(QUEUE_LOG_SKIPS.badData);
    expect(parse('1|c|400|PJSIP/101|BLINDTRANSFER|101|ctx|2|x|1')).to.equal(QUEUE_LOG_SKIPS.badData);
    expect(parse('1|c|400|NONE|ENTERQUEUE|')).to.equal(QUEUE_LOG_SKIPS.badData);
  });

  it('when an event is valid, then waitTime, talkTime and ringMs hold the times of R4 and extra fields are ignored', () => {
    const cases: [string, number, number, number, number][] = [
      ['CONNECT|9|1793456898.103|8', EV.CONNECT, 0, 0, 8000],
      ['COMPLETECALLER|9|91|1|extra', EV.COMPLETECALLER, 9, 91, 0],
      ['BLINDTRANSFER|101|from-internal|2|103|1', EV.BLINDTRANSFER, 2, 103, 0],
      ['ATTENDEDTRANSFER|BRIDGE|a4-9|6|342|1', EV.ATTENDEDTRANSFER, 6, 342, 0],
      ['ABANDON|1|1|5', EV.ABANDON, 5, 0, 0],
      ['EXITWITHKEY|1|1|1|10', EV.EXITWITHKEY, 10, 0, 0],
      ['RINGNOANSWER|0', EV.RINGNOANSWER, 0, 0, 0],
      ['RINGNOANSWER|15263', EV.RINGNOANSWER, 0, 0, 15263],
    ];
    for (const [data, code, waitTime, talkTime, ringMs] of cases) {
      expect(parse(`1793456997|1793456889.102|400|PJSIP/102|${data}`), data).to.deep.include({
        time: 1793456997,
        callid: '1793456889.102',
        queueName: '400',
        agent: 'PJSIP/102',
        code,
        waitTime,
        talkTime,
        ringMs,
      });
    }
  });

  it('when the agent is NONE, then it reads as ""; membership events keep the reason of the pause they open', () => {
    expect(parse('1|c|400|NONE|ENTERQUEUE||+1312|1')).to.deep.include({ agent: '', code: EV.ENTERQUEUE });
    expect(parse('1|NONE|400|PJSIP/101|ADDMEMBER|PAUSED')).to.deep.include({ code: EV.ADDMEMBER, pauseReason: '' });
    expect(parse('1|NONE|400|PJSIP/101|ADDMEMBER|')).to.deep.include({ code: EV.ADDMEMBER, pauseReason: null });
    expect(parse('1|NONE|400|PJSIP/101|REMOVEMEMBER|')).to.deep.include({ code: EV.REMOVEMEMBER });
    expect(parse('1|NONE|400|PJSIP/101|PAUSE|Lunch')).to.deep.include({ code: EV.PAUSE, pauseReason: 'Lunch' });
    expect(parse('1|NONE|400|PJSIP/101|PAUSE')).to.deep.include({ code: EV.PAUSE, pauseReason: '' });
    expect(parse('1|NONE|400|PJSIP/101|UNPAUSE|')).to.deep.include({ code: EV.UNPAUSE, pauseReason: null });
  });

  it('when fields are read in place, then only whole fields match: names, PAUSED, NONE and numbers end at their "|"', () => {
    expect(parse('1|NONE|400|NONEX|ADDMEMBER|PAUSEDX')).to.deep.include({ agent: 'NONEX', pauseReason: null });
    expect(parse('1|NONE|400|NON|ADDMEMBER|PAUSED|')).to.deep.include({ agent: 'NON', pauseReason: '' });
    expect(parse('1|NONE|400|PJSIP/101|ADDMEMBER|PAUSE')).to.deep.include({ pauseReason: null });
    expect(parse('1|NONE|400|PJSIP/101|PAUSE|Lunch|x')).to.deep.include({ pauseReason: 'Lunch' });
    expect(parse('1|c|400|NONE|ENTERQUEUE|url|+1312|1')).to.deep.include({ callerIdNum: '+1312' });
    expect(parse('1|c|400|NONE|ENTERQUEUE|url|')).to.deep.include({ callerIdNum: '' });
    expect(parse('1|c|400|PJSIP/1|ABANDON|1|2|31|')).to.deep.include({ code: EV.ABANDON, waitTime: 31 });
    expect(parse('1|c|400|PJSIP/1|ABANDON|1|2|3x')).to.equal(QUEUE_LOG_SKIPS.badData);
    expect(parse('1|c|400|PJSIP/1|ABANDONX|1|2|3')).to.equal(QUEUE_LOG_SKIPS.unusedEvent);
    expect(parse('1|c|400|PJSIP/1|PAUSEALL|x')).to.equal(QUEUE_LOG_SKIPS.unusedEvent);
    expect(parse('7|c|400|PJSIP/1|RINGNOANSWER|250')).to.deep.include({
      time: 7,
      callid: 'c',
      queueName: '400',
      code: EV.RINGNOANSWER,
      ringMs: 250,
    });
  });

  it('when a line is in an Asterisk 1.4–11 form (R17), then TRANSFER, short CONNECT and AGENTCALLBACK* read as today', () => {
    const transfer = parse('1200000000|1200000000.7|sales|SIP/1001|TRANSFER|2000|from-internal|12|95');
    expect(transfer).to.include({ code: EV.BLINDTRANSFER, waitTime: 12, talkTime: 95, agent: 'SIP/1001' });
    expect(parse('1200000000|1200000000.7|sales|SIP/1001|TRANSFER|2000|from-internal|12|95|1')).to.include({ talkTime: 95 });
    expect(parse('1200000000|1200000000.7|sales|SIP/1001|TRANSFER|2000|from-internal|12')).to.equal(QUEUE_LOG_SKIPS.badData);
    expect(parse('1200000000|1200000000.7|sales|SIP/1001|CONNECT|7|1200000001.9')).to.include({ code: EV.CONNECT, ringMs: 0 });
    expect(parse('1200000000|1200000000.7|sales|SIP/1001|CONNECT|7|1200000001.9|x')).to.equal(QUEUE_LOG_SKIPS.badData);
    expect(parse('1200000000|NONE|NONE|Agent/1001|AGENTCALLBACKLOGIN|1001@from-internal')).to.include({
      code: EV.AGENTLOGIN,
      queueName: 'NONE',
    });
    expect(parse('1200000000|NONE|NONE|Agent/1001|AGENTCALLBACKLOGOFF|1001@from-internal|3600|Agent')).to.include({ code: EV.AGENTLOGOFF });
  });

  it('when the epoch has a fraction or the line starts with a BOM or NUL bytes (R16, R17), then it is read as the plain line', () => {
    expect(parse('1793427706.123456|1.1|400|NONE|ENTERQUEUE||+1|1')).to.include({ time: 1793427706, code: EV.ENTERQUEUE });
    expect(parse('\uFEFF1793427706|1.1|400|NONE|ENTERQUEUE||+1|1')).to.include({ time: 1793427706, callid: '1.1' });
    expect(parse('\0\0\u00001793427706|1.1|400|NONE|ENTERQUEUE||+1|1')).to.include({ time: 1793427706 });
    expect(parse('1793427706.|1.1|400|NONE|ENTERQUEUE||+1|1')).to.equal(QUEUE_LOG_SKIPS.notRecord);
    expect(parse('.5|1.1|400|NONE|ENTERQUEUE||+1|1')).to.equal(QUEUE_LOG_SKIPS.notRecord);
    expect(parse('1793427706.1x|1.1|400|NONE|ENTERQUEUE||+1|1')).to.equal(QUEUE_LOG_SKIPS.notRecord);
  });

  it('when a queue_log as Asterisk 1.4 app_queue/chan_agent wrote it is read, then every call and agent line is kept', () => {
    const text = readFileSync('test/fixtures/real-formats/queue_log-asterisk-1.4', 'utf8');
    const codes = text
      .split('\n')
      .slice(0, -1)
      .map((line) => {
        const ev = parse(line);
        return typeof ev === 'string' ? ev : ev.code;
      });
    expect(codes).to.deep.equal([
      EV.QUEUESTART,
      EV.AGENTLOGIN,
      EV.ENTERQUEUE,
      EV.CONNECT,
      EV.COMPLETECALLER,
      EV.ENTERQUEUE,
      EV.CONNECT,
      EV.BLINDTRANSFER,
      EV.ENTERQUEUE,
      EV.ABANDON,
      EV.AGENTLOGOFF,
    ]);
  });

  it('when the sample queue_log is read, then exactly the seven lines of docs/fixture-format.md are skipped', () => {
    const lines = readFileSync(QUEUE_LOG_SAMPLE, 'utf8').split('\n').slice(0, -1); // the text ends with a newline
    expect(lines).to.have.length(489);
    const skipped = lines.flatMap((l, i) => (typeof parse(l) === 'string' ? [i + 1] : []));
    expect(skipped).to.deep.equal([123, 153, 219, 318, 347, 418, 489]);
  });
});

describe('what the lost-calls report reads from a line (reporting.md R22)', () => {
  const ev = (line: string) => {
    const e = parseQueueLogLine(line);
    if (typeof e === 'string') throw new Error(`skipped: ${e}`);
    return e;
  };

  it("when an exit line is read, then its positions are where each event writes them; an old form's missing ones are null", () => {
    const positions = (line: string) => [ev(line).position, ev(line).origPosition];
    expect(positions('1|c|q|NONE|ABANDON|2|5|40')).to.deep.equal([2, 5]);
    expect(positions('1|c|q|NONE|EXITWITHTIMEOUT|1|3|300')).to.deep.equal([1, 3]);
    expect(positions('1|c|q|NONE|EXITEMPTY|1|1|2')).to.deep.equal([1, 1]);
    expect(positions('1|c|q|NONE|EXITWITHKEY|2|4|6|31')).to.deep.equal([4, 6]);
    expect(positions('1|c|q|NONE|EXITWITHTIMEOUT|3')).to.deep.equal([3, null]); // Asterisk 1.4 (R17)
    expect(positions('1|c|q|NONE|EXITWITHKEY|1|2')).to.deep.equal([2, null]);
    expect(positions('1|c|q|Alice|COMPLETECALLER|4|60|1')).to.deep.equal([null, null]);
  });

  it('when caller numbers are compared, then digits decide: the last 10 of two long numbers, all of two short ones, none under 3', () => {
    expect(callerKey('+1 (312) 555-0100')).to.equal('3125550100');
    expect(callerKey('3125550100')).to.equal('3125550100');
    expect(callerKey('0044 20 7946 0958')).to.equal('2079460958');
    expect(callerKey('5550100')).to.equal('5550100'); // 7 digits: all of them, so it matches only 5550100
    expect(callerKey('201')).to.equal('201');
    for (const none of ['', 'anonymous', 'unknown', 'Restricted', '12', '+1']) expect(callerKey(none), none).to.equal(null);
    expect(ev('1|c|q|NONE|ENTERQUEUE||+13125550100|1').callerIdNum).to.equal('+13125550100');
    expect(ev('1|c|q|NONE|ENTERQUEUE||anonymous|1').callerIdNum).to.equal('anonymous');
  });
});
