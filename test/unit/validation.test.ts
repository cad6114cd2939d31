import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import compiled from '../../src/validation/compiled-validators.cjs';
import { SCHEMAS } from '../../src/validation/schemas';
import { Validator } from '../../src/validation/validation';
import { AppError } from '../../src/errors';

const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err.validationErrors ?? [];
    throw err;
  }
  return [];
};

describe('schemas and validation', () => {
  const validator = new Validator();

  it('when the build has run, then every file of schemas/ is compiled (for text too when it is a *-query or *-params), each with $id = its file name', () => {
    const files = readdirSync('schemas')
      .filter((f) => f.endsWith('.json'))
      .sort();
    const ids = SCHEMAS.map((s) => (s as { $id: string }).$id).sort();
    expect(ids).to.deep.equal(files.map((f) => f.replace(/\.json$/, '')).sort());
    for (const f of files) expect(JSON.parse(readFileSync(`schemas/${f}`, 'utf8')).$id).to.equal(f.replace(/\.json$/, ''));
    expect(Object.keys(compiled.body).sort()).to.deep.equal(ids);
    expect(Object.keys(compiled.text).sort()).to.deep.equal(ids.filter((id) => /-(query|params)$/.test(id)));
  });

  it('when a body breaks several rules, then one sentence per problem names each field', () => {
    const problems = problemsOf(() => validator.body('branch-create', { tenantId: -1, name: 'ab', timezone: 'Mars/Olympus', extra: 1 }));
    expect(problems).to.have.members([
      'tenantId must be greater than 0',
      'name must be at least 3 characters long',
      'timezone must be an IANA timezone name such as Europe/Paris',
      'extra is not an allowed property',
    ]);
  });

  it('when required fields are missing, then each is named', () => {
    expect(problemsOf(() => validator.body('branch-create', {}))).to.deep.equal(['tenantId is required', 'name is required']);
  });

  it('when query text is validated, then numbers are coerced and "abc" is refused naming the field', () => {
    expect(validator.text('id-params', { id: '12' }).id).to.equal(12);
    expect(problemsOf(() => validator.text('id-params', { id: 'abc' }))).to.deep.equal(['id must be an integer']);
    expect(problemsOf(() => validator.text('webhook-id-params', { webhookId: '0' }))).to.deep.equal(['webhookId must be greater than 0']);
  });

  it('when a pattern carries x-message, then that sentence is used', () => {
    expect(problemsOf(() => validator.body('mfa-validate', { token: 't', otp: '12ab56' }))).to.deep.equal([
      'otp must be a string of 6 digits',
    ]);
  });
});
