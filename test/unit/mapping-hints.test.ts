import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { ImportSummary } from '../../src/modules/pbx-logs/import-summary';
import { printable, shellQuote } from '../../src/modules/pbx-logs/mapping-hints';

/** What bash makes of a quoted word: the name the printed command would really pass. */
const bashReads = (quoted: string) => execFileSync('bash', ['-c', `printf %s ${quoted}`]).toString('latin1');

describe('the import summary printed on a terminal (names read from a PBX log)', () => {
  it('when a name is plain or holds a quote, then it is single-quoted and bash reads it back unchanged', () => {
    expect(shellQuote('Heidi Clark')).to.equal("'Heidi Clark'");
    expect(shellQuote("O'Brien")).to.equal(`'O'\\''Brien'`);
    expect(bashReads(shellQuote("O'Brien"))).to.equal("O'Brien");
  });

  it("when a name holds ESC, CR or DEL, then it is written $'…' with \\xHH, no raw control character, and bash reads the same name back", () => {
    const name = "Bad\u001b[2J\rName'\\\u007f";
    const quoted = shellQuote(name);
    expect(quoted).to.equal("$'Bad\\x1b[2J\\x0dName\\'\\\\\\x7f'");
    expect(quoted).to.not.match(/[\u0000-\u001f\u007f-\u009f]/);
    expect(bashReads(quoted)).to.equal(name);
    expect(printable(name)).to.equal("Bad\\x1b[2J\\x0dName'\\\\x7f");
  });

  it('when an import met a queue and an agent with control characters, then its printed summary holds none', () => {
    const summary = new ImportSummary(() => false, 1);
    summary.unknownQueue('sales\u001b]0;owned\u0007');
    summary.unknownAgent('Eve\rMallory', 1, null);
    const text = summary.toText();
    expect(text).to.not.match(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text).to.contain('unknown queues: sales\\x1b]0;owned\\x07 (1)');
    expect(text).to.contain("--log-name $'sales\\x1b]0;owned\\x07'");
    expect(text).to.contain('Eve\\x0dMallory');
  });
});
