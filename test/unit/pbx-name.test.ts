import { expect } from 'chai';
import { pbxNameKey, samePbxName } from '../../src/pbx-name';

describe('PBX names compared as Asterisk does (strcasecmp: ASCII case only)', () => {
  it('when two names differ only in the case of ASCII letters, then they are one name', () => {
    expect(samePbxName('kbilling', 'KBILLING')).to.equal(true);
    expect(samePbxName('PJSIP/101', 'pjsip/101')).to.equal(true);
    expect(samePbxName('Local/201@from-queue/n', 'LOCAL/201@FROM-QUEUE/N')).to.equal(true);
    expect(pbxNameKey('Sales-Queue_2')).to.equal('sales-queue_2');
  });

  it('when Unicode case folding alone makes two names equal, then they are two names (as for the PBX)', () => {
    // KELVIN SIGN, LATIN CAPITAL I WITH DOT, SHARP S, LONG S and a Greek capital: JavaScript folds each onto another letter.
    for (const [a, b] of [
      ['\u212Abilling', 'kbilling'],
      ['\u0130nfo', 'info'],
      ['stra\u00dfe', 'STRASSE'],
      ['\u017Fales', 'sales'],
      ['\u0394elta', '\u03b4elta'],
    ]) {
      expect(samePbxName(a as string, b as string), `${a} / ${b}`).to.equal(false);
      expect(pbxNameKey(a as string)).not.to.equal(pbxNameKey(b as string));
    }
    expect(pbxNameKey('\u212Abilling')).to.equal('\u212Abilling');
  });
});
