import { expect } from 'chai';
import { csvCell } from '../../src/sheets/csv';

/**
 * The CSV formula guard (reporting.md R24, issue 27): a text cell that begins with =, +, -, @, a tab or a carriage
 * return gets a leading apostrophe, except + or - followed by digits only (a phone number, a negative number).
 */
describe('csvCell: the formula guard of every CSV TARS writes', () => {
  it('when a text cell begins with =, +, -, @, a tab or a CR, then it gets a leading apostrophe (quoted when it must be)', () => {
    expect(csvCell('=1+1')).to.equal("'=1+1");
    expect(csvCell('@SUM(A1)')).to.equal("'@SUM(A1)");
    expect(csvCell('\tcmd')).to.equal("'\tcmd");
    expect(csvCell('\rcmd')).to.equal(`"'\rcmd"`);
    expect(csvCell('+1+HYPERLINK("http://evil.example","x")')).to.equal(`"'+1+HYPERLINK(""http://evil.example"",""x"")"`);
    expect(csvCell("-1+1+cmd|' /C calc'!A0")).to.equal(`'-1+1+cmd|' /C calc'!A0`);
    expect(csvCell('+')).to.equal("'+");
    expect(csvCell('-')).to.equal("'-");
    expect(csvCell('+1 312 555 0100')).to.equal("'+1 312 555 0100");
    expect(csvCell('-1.5')).to.equal("'-1.5");
    expect(csvCell('+13125550100x')).to.equal("'+13125550100x");
    expect(csvCell('+13125550100\n=cmd')).to.equal(`"'+13125550100\n=cmd"`);
  });

  it('when a text cell is + or - followed by digits only, or begins with anything else, then it stays as it is', () => {
    expect(csvCell('+13125550100')).to.equal('+13125550100');
    expect(csvCell('-42')).to.equal('-42');
    expect(csvCell('John "Jack" Smith')).to.equal('"John ""Jack"" Smith"');
    expect(csvCell('a=b')).to.equal('a=b');
    expect(csvCell(' =x')).to.equal(' =x');
    expect(csvCell('')).to.equal('');
  });

  it('when a cell is a number, null or undefined, then it is written as the number or left empty', () => {
    expect(csvCell(-5)).to.equal('-5');
    expect(csvCell(-1.5)).to.equal('-1.5');
    expect(csvCell(0)).to.equal('0');
    expect(csvCell(null)).to.equal('');
    expect(csvCell(undefined)).to.equal('');
  });
});
