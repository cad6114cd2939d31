// ESLint (typescript-eslint) over the whole repository; Prettier owns the layout (.prettierrc.json).
// The architecture's rules (docs/architecture.md) are here too: imports go down the layers, no import cycles (type
// imports included), modules use each other only through their services (and repositories, for reads) in the
// order of MODULES, and SQL is written only in repositories and the db layer.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import noTypeCycle from './eslint-rules/no-type-cycle.js';

/**
 * The layers of ../shared/style/STYLE.md, from the top. A file may import from its own layer and the layers
 * below it, never from one above.
 */
const LAYERS = [
  { name: 'the entry (main, CLI)', paths: ['src/main.ts', 'src/cli.ts', 'src/cli'] },
  {
    name: 'the app and jobs',
    paths: ['src/app.ts', 'src/runtime.ts', 'src/deps.ts', 'src/jobs', 'src/ops', 'src/seed', 'src/metrics/gauges.ts'],
  },
  { name: 'the modules', paths: ['src/modules'] },
  { name: 'http', paths: ['src/http'] },
  { name: 'access and validation', paths: ['src/access', 'src/validation'] },
  {
    name: 'the db layer and the base',
    paths: [
      'src/db',
      'src/config.ts',
      'src/log.ts',
      'src/clock.ts',
      'src/errors.ts',
      'src/pbx-name.ts',
      'src/text-rules.ts',
      'src/version.ts',
      'src/time',
      'src/mail',
      'src/ami',
      'src/net',
      'src/metrics/metrics.ts',
      'db/migrations',
    ],
  },
];

const layerZones = LAYERS.flatMap((layer, i) =>
  i === 0
    ? []
    : [
        {
          target: layer.paths,
          from: LAYERS.slice(0, i).flatMap((above) => above.paths),
          message: `${layer.name}: no import from a layer above (docs/architecture.md, "The layers").`,
        },
      ],
);

/**
 * How the modules use each other: each module names the modules it may import from, and only their services'
 * and repositories' files (a module's other files are its own). The list must stay a DAG (checked below), so no
 * two modules reach each other, even through others.
 */
const MODULES = {
  'api-docs': [],
  health: [],
  tenants: [],
  branches: ['tenants'],
  calls: ['tenants'],
  'call-campaigns': ['tenants'],
  'emergency-locations': ['tenants'],
  'saved-filters': ['tenants', 'queues', 'queue-reports'],
  webhooks: ['tenants'],
  'phone-numbers': ['tenants', 'branches', 'extensions'],
  queues: ['tenants', 'branches', 'extensions'],
  'pbx-logs': ['calls', 'webhooks'],
  extensions: ['tenants', 'branches', 'pbx-logs'],
  'queue-reports': ['tenants', 'queues', 'pbx-logs'],
  auth: ['tenants', 'branches'],
  users: ['auth', 'tenants', 'branches', 'extensions'],
  'live-queues': ['tenants', 'queues', 'extensions', 'pbx-logs', 'queue-reports', 'webhooks'],
  'pbx-config': ['tenants', 'extensions', 'queues', 'pbx-logs'],
  console: ['auth', 'tenants'],
  'scheduled-reports': ['tenants', 'saved-filters', 'calls', 'auth', 'webhooks', 'queue-reports'],
};

/** Throws on a cycle in MODULES or a module it does not list. */
function checkModuleOrder(graph) {
  const state = new Map();
  const visit = (m, path) => {
    if (state.get(m) === 'done') return;
    if (state.get(m) === 'visiting') throw new Error(`eslint.config.js MODULES: a cycle ${[...path, m].join(' → ')}`);
    if (!(m in graph)) throw new Error(`eslint.config.js MODULES: ${path.at(-1)} uses ${m}, which is not a module`);
    state.set(m, 'visiting');
    for (const d of graph[m]) visit(d, [...path, m]);
    state.set(m, 'done');
  };
  for (const m of Object.keys(graph)) visit(m, []);
}
checkModuleOrder(MODULES);

const moduleZones = Object.entries(MODULES).flatMap(([m, uses]) => {
  const others = Object.keys(MODULES).filter((o) => o !== m && !uses.includes(o));
  const order = {
    target: [`src/modules/${m}`],
    from: others.map((o) => `src/modules/${o}`),
    message: `module ${m} uses only ${uses.join(', ') || 'no other module'} (MODULES in eslint.config.js, docs/architecture.md).`,
  };
  const doors = {
    target: [`src/modules/${m}/**`],
    from: ['src/modules/*/**'],
    except: [`**/src/modules/${m}/**`, '**/*.service.ts', '**/*.repository.ts'],
    message: 'another module is used through its service (or its repository, for reads), not its other files.',
  };
  return others.length > 0 ? [order, doors] : [doors];
});

/** SQL is written only in repositories (*.repository.ts) and the db layer (src/db/); these are its forms. */
const WHERE_SQL_LIVES = 'only in a *.repository.ts file or src/db/ (docs/architecture.md, "Where SQL lives").';
const SQL_SYNTAX = [
  {
    selector:
      'CallExpression[callee.property.name=/^(selectFrom|selectNoFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto|executeQuery|pragma|prepare)$/]',
    message: `A query is built ${WHERE_SQL_LIVES}`,
  },
  {
    selector: 'CallExpression[callee.name=/^(runOnce|preparedStatements|statement|defineQuery|defineShapedQuery)$/]',
    message: `A statement is declared ${WHERE_SQL_LIVES}`,
  },
  {
    selector: "CallExpression[callee.property.name='exec'][arguments.0.type=/^(Literal|TemplateLiteral)$/]",
    message: `SQL is run ${WHERE_SQL_LIVES}`,
  },
  {
    selector: "TaggedTemplateExpression[tag.name='sql'], MemberExpression[object.name='sql']",
    message: `SQL is written ${WHERE_SQL_LIVES}`,
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      '.tmp/',
      'data/',
      'src/validation/schemas.ts',
      'src/validation/schema-types.ts',
      'src/validation/compiled-validators.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        queueMicrotask: 'readonly',
        structuredClone: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        performance: 'readonly',
        __dirname: 'readonly',
        __filename: 'readonly',
        require: 'readonly',
        module: 'writable',
      },
    },
    rules: {
      // A comma-operator return (`return skip(r), null`) hides a side effect in an expression.
      'no-sequences': 'error',
      'no-unused-vars': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'prefer-const': 'error',
      // Prettier wraps code at 140; what it cannot wrap (a long string: a test's name, a sample log line) may stay.
      'max-len': ['error', { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }],
    },
  },
  {
    // The architecture (docs/architecture.md): the layers, no cycles, modules through their services.
    files: ['src/**/*.ts', 'db/**/*.ts'],
    plugins: { 'import-x': importX, tars: { rules: { 'no-type-cycle': noTypeCycle } } },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.cjs', '.mjs', '.json', '.d.cts'] })],
      // The imported files are TypeScript too: import-x reads them with the TypeScript parser (no-cycle follows them).
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-cycle': 'error',
      'tars/no-type-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: [...layerZones, ...moduleZones] }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.repository.ts', 'src/db/**'],
    rules: { 'no-restricted-syntax': ['error', ...SQL_SYNTAX] },
  },
  {
    // The console's browser code (own tsconfig, DOM libraries) is in no server layer: it imports only the API's generated types.
    files: ['src/console/**/*.ts', 'src/console/**/*.tsx'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.json'] })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': [
        'error',
        { zones: [{ target: './src/console', from: './src', except: ['./console', './validation/schema-types.ts'] }] },
      ],
    },
  },
  {
    // chai's property assertions (`expect(x).to.be.true`) are expressions by design; response bodies in tests
    // are JSON read back as it came (typed by the assertions), and a test may look for control characters.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off', '@typescript-eslint/no-explicit-any': 'off', 'no-control-regex': 'off' },
  },
  {
    // CommonJS stand-ins loaded by the executables' bundles.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { exports: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
