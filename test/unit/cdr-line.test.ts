import { expect } from 'chai';
import { callerNameOf, CDR_SKIPS, channelAgent, parseCdrLine, splitCsvLine } from '../../src/modules/pbx-logs/cdr-line';

const ROW =
  '"","102","18725551242","from-internal","""Bob Jones"" <102>","PJSIP/102-0000001b","PJSIP/voip-trunk-0000001c","Dial","PJSIP/18725551242@voip-trunk,300,T","2026-10-31 14:12:02","2026-10-31 14:12:24","2026-10-31 14:14:47",165,143,"ANSWERED","DOCUMENTATION","1793455922.101",""';

describe('Master.csv lines (reporting.md R8)', () => {
  it('when a row is valid, then its columns are read with "" as the escaped quote and times as UTC', () => {
    const r = parseCdrLine(ROW);
    expect(r).to.deep.include({
      src: '102',
      dst: '18725551242',
      clid: '"Bob Jones" <102>',
      channel: 'PJSIP/102-0000001b',
      lastApp: 'Dial',
      lastData: 'PJSIP/18725551242@voip-trunk,300,T',
      start: Date.UTC(2026, 9, 31, 14, 12, 2) / 1000,
      answer: Date.UTC(2026, 9, 31, 14, 12, 24) / 1000,
      duration: 165,
      billsec: 143,
      disposition: 'ANSWERED',
      uniqueId: '1793455922.101',
    });
  });

  it('when answer is empty, then it is null; when uniqueid is missing (15 columns), then it is ""', () => {
    const fifteen = '"","1","2","c","x","PJSIP/1-1","","Dial","","2026-10-31 14:12:02","","2026-10-31 14:12:07",5,0,"NO ANSWER"';
    expect(parseCdrLine(fifteen)).to.deep.include({ answer: null, uniqueId: '', duration: 5, billsec: 0 });
  });

  it('when a line is blank, not CSV, short, badly timed or has a non-integer duration, then it is skipped with that reason', () => {
    expect(parseCdrLine('')).to.equal(CDR_SKIPS.blank);
    expect(parseCdrLine('"a,"b"')).to.equal(CDR_SKIPS.notCsv);
    expect(parseCdrLine('"a"x,"b"')).to.equal(CDR_SKIPS.notCsv);
    expect(parseCdrLine('"","102","1872","from-internal","x","PJSIP/102-1b","","Dial","","2026-10-31 14:12:02"')).to.equal(CDR_SKIPS.short);
    expect(parseCdrLine(ROW.replace('"2026-10-31 14:12:02"', '"2026-10-31T14:12:02"'))).to.equal(CDR_SKIPS.badStart);
    expect(parseCdrLine(ROW.replace('"2026-10-31 14:12:02"', '"2026-02-30 14:12:02"'))).to.equal(CDR_SKIPS.badStart);
    expect(parseCdrLine(ROW.replace(',165,', ',16.5,'))).to.equal(CDR_SKIPS.badNumber);
    expect(parseCdrLine(ROW.replace(',143,', ',,'))).to.equal(CDR_SKIPS.badNumber);
  });

  it('when fields are split, then quoted commas and escaped quotes stay inside their field', () => {
    expect(splitCsvLine('"a,b","c""d",7,')).to.deep.equal(['a,b', 'c"d', '7', '']);
  });

  it('when a channel is named, then its agent is the text before its last "-"', () => {
    expect(channelAgent('PJSIP/101-0000001a')).to.equal('PJSIP/101');
    expect(channelAgent('PJSIP/voip-trunk-0000001c')).to.equal('PJSIP/voip-trunk');
    expect(channelAgent('')).to.equal('');
  });

  it('when a clid carries a name, then it is the caller name; otherwise ""', () => {
    expect(callerNameOf('"Bob Jones" <102>')).to.equal('Bob Jones');
    expect(callerNameOf('WIRELESS CALLER <+18155552363>')).to.equal('WIRELESS CALLER');
    expect(callerNameOf('<102>')).to.equal('');
    expect(callerNameOf('102')).to.equal('');
  });
});
