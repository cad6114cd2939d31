import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The fixtures the tests carry (test/fixtures; the format is docs/fixture-format.md). */
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
/** The example tenant data set every build must load: tenant 1 is the one the sample PBX logs belong to. */
export const ACME = join(FIXTURES, 'acme.json');
