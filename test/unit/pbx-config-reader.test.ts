import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { AsteriskConfigError, type ConfFile, expandPattern, readAsteriskConfig } from '../../src/modules/pbx-config/asterisk-conf';
import { stripComments } from '../../src/modules/pbx-config/asterisk-conf-lines';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'pbx-config');
const BROKEN = path.join(FIXTURES, 'broken');

const section = (conf: ConfFile, name: string) => {
  const found = conf.sections.find((s) => s.name === name);
  if (!found) throw new Error(`no section ${name}`);
  return found;
};
const pairs = (conf: ConfFile, name: string) => section(conf, name).variables.map((v) => `${v.name}=${v.value}`);

function problemsOf(file: string, dir = BROKEN): string[] {
  try {
    readAsteriskConfig(dir, file);
  } catch (err) {
    expect(err).to.be.instanceOf(AsteriskConfigError);
    expect((err as AsteriskConfigError).status).to.equal(400);
    return (err as AsteriskConfigError).validationErrors ?? [];
  }
  throw new Error(`${file} was read without a problem`);
}

describe('Asterisk configuration reader (main/config.c)', () => {
  const plain = (): ConfFile => readAsteriskConfig(path.join(FIXTURES, 'plain'), 'queues.conf') as ConfFile;

  it('when a section names templates, then it starts with their variables, and its own later ones follow in order', () => {
    expect(section(plain(), 'Helpdesk').inherits).to.deep.equal(['agents-first']);
    expect(pairs(plain(), 'Helpdesk')).to.deep.equal([
      'strategy=leastrecent',
      'timeout=15',
      'wrapuptime=5',
      'servicelevel=45',
      'member=PJSIP/alice,0,Alice Martin',
      'member=PJSIP/bob, 1, "Jones, Bob"',
      'strategy=fewestcalls',
      'joinempty=yes',
      'member=Local/3004@staff/n,2,Dave Kim,PJSIP/dave',
    ]);
  });

  it('when a section is (!) or (!,tpl), then it is a template, and inherited variables are marked with the template line', () => {
    const conf = plain();
    expect(conf.sections.map((s) => `${s.name}${s.template ? '!' : ''}`)).to.deep.equal([
      'general',
      'queue-defaults!',
      'agents-first!',
      'Helpdesk',
      'orders',
      'night',
    ]);
    const inherited = section(conf, 'Helpdesk').variables[0];
    expect(inherited).to.include({ inherited: true, file: 'queues.conf', line: 6 });
  });

  it('when a block comment spans lines, then nothing in it is read; ;--- is a line comment and \\; a literal semicolon', () => {
    expect(pairs(plain(), 'orders')).to.include('musicclass=default;loud');
    expect(pairs(plain(), 'Helpdesk').join()).not.to.match(/oscar|peggy/);
    const freepbx = readAsteriskConfig(path.join(FIXTURES, 'freepbx'), 'queues_additional.conf') as ConfFile;
    expect(freepbx.sections.map((s) => s.name)).to.deep.equal(['400', '401']);
  });

  it('when #include names a glob, then the matches are read in sorted order, each continuing the current section', () => {
    const conf = plain();
    expect(conf.files).to.deep.equal(['queues.conf', 'conf.d/10-night.conf', 'conf.d/20-orders.conf']);
    expect(pairs(conf, 'night')).to.deep.equal([
      'strategy=leastrecent',
      'timeout=15',
      'wrapuptime=5',
      'servicelevel=45',
      'strategy=roundrobin',
      'member=Local/3001@staff/n,0,Alice Martin,PJSIP/alice',
      'periodic-announce=queue-periodic-announce',
    ]);
  });

  it('when (+) names an existing section, then the lines join that section, found without case, in another file too', () => {
    expect(pairs(plain(), 'orders').slice(-2)).to.deep.equal(['member=Agent/3003', 'member=PJSIP/carol']);
    expect(section(plain(), 'orders')).to.include({ file: 'queues.conf', line: 22 });
  });

  it('when a line is "name => value", then object is true; "+=" appends to the last value of that name', () => {
    const pjsip = readAsteriskConfig(path.join(FIXTURES, 'plain'), 'pjsip.conf') as ConfFile;
    expect(pairs(pjsip, 'dave')).to.include('context=staff-night');
    expect(section(plain(), 'Helpdesk').variables.find((v) => v.name === 'joinempty')).to.include({ object: false, line: 20 });
    expect(section(plain(), 'orders').variables.at(-1)).to.include({ object: true, file: 'conf.d/20-orders.conf', line: 4 });
  });

  it('when the root file does not exist, then the answer is null, not an error', () => {
    expect(readAsteriskConfig(path.join(FIXTURES, 'plain'), 'sip.conf')).to.equal(null);
  });

  it('when comments are on one line, then the text around a block comment is joined as Asterisk joins it', () => {
    expect(stripComments('a = 1 ;-- x --; 2 ; rest', { open: [] }, 1)).to.deep.equal({ text: 'a = 1  2' });
    expect(stripComments('a = x\\;y ; c', { open: [] }, 1)).to.deep.equal({ text: 'a = x;y' });
    const state = { open: [] as number[] };
    expect(stripComments('b = 2 ;-- ;-- nested', state, 4)).to.deep.equal({ text: 'b = 2' });
    expect(stripComments('--; still inside --; c = 3', state, 5)).to.deep.equal({ text: 'c = 3' });
    expect(state.open).to.deep.equal([]);
  });

  it('when a pattern has braces, then each alternative is expanded in its written order, its own matches sorted, dot files left out', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tars-glob-'));
    try {
      for (const f of ['qa.conf', 'qb1.conf', 'qb2.conf', 'z2.conf', 'z1.conf', '.qa.conf', 'q{a.conf'])
        fs.writeFileSync(path.join(dir, f), '');
      const names = (pattern: string) => expandPattern(path.join(dir, pattern)).map((f) => path.basename(f));
      expect(names('q{a,b{1,2}}.conf')).to.deep.equal(['qa.conf', 'qb1.conf', 'qb2.conf']);
      expect(names('{z*,q?.conf}')).to.deep.equal(['z1.conf', 'z2.conf', 'qa.conf']);
      expect(names('[!z]*.conf')).to.deep.equal(['qa.conf', 'qb1.conf', 'qb2.conf', 'q{a.conf']);
      expect(names('q{a.conf')).to.deep.equal(['q{a.conf']);
      expect(names('nothing*.conf')).to.deep.equal([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Asterisk configuration reader: what it refuses (file, line and why)', () => {
  const cases: Array<[string, string]> = [
    ['no-bracket.conf', "no-bracket.conf:2: no closing ']' in the section header"],
    ['no-paren.conf', "no-paren.conf:1: no closing ')' after the section's options"],
    [
      'header-trailing.conf',
      "header-trailing.conf:1: text after the section header: ' (!)' (Asterisk reads options only directly after ']', as '[sales](…)')",
    ],
    ['no-equals.conf', "no-equals.conf:2: no '=' in this line (expected 'name = value', 'name => value', '[section]' or '#include')"],
    ['no-name.conf', "no-name.conf:2: no variable name before '='"],
    ['no-section.conf', 'no-section.conf:2: no section for this line: it comes before any [section] header'],
    ['bad-escape.conf', "bad-escape.conf:2: invalid escape: '\\' at the start of a line must be followed by a visible character"],
    [
      'missing-include.conf',
      "missing-include.conf:2: '#include queues_nothere.conf': no such file (queues_nothere.conf); '#tryinclude' would allow that",
    ],
    [
      'missing-glob.conf',
      "missing-glob.conf:2: '#include nothere.d/*.conf': no such file (nothere.d/*.conf); '#tryinclude' would allow that",
    ],
    ['include-no-arg.conf', "include-no-arg.conf:2: '#include' needs a file name"],
    ['loop-a.conf', 'loop-b.conf:3: include loop: loop-a.conf → loop-b.conf → loop-a.conf'],
    [
      'missing-template.conf',
      "missing-template.conf:1: template 'queue-defaults' does not exist (it must be defined above '[sales]', names as written, spaces included)",
    ],
    ['empty-template.conf', "empty-template.conf:1: empty template name in '()'"],
    ['add-missing.conf', "add-missing.conf:2: '[sales](+)' adds to a section 'sales' that does not exist above it"],
    ['add-to-template.conf', "add-to-template.conf:5: '[tpl](+)' adds to a section 'tpl' that does not exist above it"],
    ['add-filter.conf', "add-filter.conf:1: '(+name=^x$)': appending with a filter is not read by TARS; write '(+)'"],
    ['unclosed-block.conf', "unclosed-block.conf:3: block comment ';--' is never closed with '--;'"],
    ['stray-close.conf', "stray-close.conf:2: '--;' closes no block comment (a block comment opens with ';--')"],
    ['exec.conf', 'exec.conf:2: #exec runs a program to produce configuration; TARS does not run it, so it cannot know what it adds'],
    ['unknown-directive.conf', "unknown-directive.conf:2: unknown directive '#includes' (Asterisk knows #include, #tryinclude and #exec)"],
  ];
  for (const [file, message] of cases) {
    it(`when ${file} is read, then it is refused with "${message}" alone`, () => {
      expect(problemsOf(file)).to.deep.equal([message]);
    });
  }

  it('when a file has several problems, then all are reported at once, the first in the message', () => {
    try {
      readAsteriskConfig(BROKEN, 'several.conf');
      expect.fail('read');
    } catch (err) {
      const e = err as AsteriskConfigError;
      expect(e.message).to.equal(
        'Asterisk configuration cannot be read: several.conf:1: no section for this line: it comes before any [section] header',
      );
      expect(e.problems.map((p) => p.line)).to.deep.equal([1, 3, 4]);
    }
  });

  it('when includes nest deeper than Asterisk allows (10), then the eleventh is refused', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tars-conf-'));
    try {
      for (let i = 0; i <= 11; i++) fs.writeFileSync(path.join(dir, `d${i}.conf`), `[s${i}]\n#include d${i + 1}.conf\n`);
      fs.writeFileSync(path.join(dir, 'd12.conf'), '[end]\n');
      expect(problemsOf('d0.conf', dir)).to.deep.equal([
        "d10.conf:2: '#include d11.conf' is nested deeper than Asterisk's 10 include levels",
      ]);
      fs.writeFileSync(path.join(dir, 'd10.conf'), '[s10]\n');
      expect((readAsteriskConfig(dir, 'd0.conf') as ConfFile).files).to.have.length(11);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
