/*
 * Runs the test files named on the command line in this one process, one after another, each as a
 * suite of its own (test/run.ts starts a few of these). A file's top-level hooks belong to its
 * suite, as they would in a process of its own: its `before` runs before its tests, its `after`
 * after them, its `beforeEach` for its tests only.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, describe } from 'node:test';

const require = createRequire(import.meta.url);

for (const file of process.argv.slice(2)) {
  describe(file, () => {
    // Loaded synchronously (require of an ES module, so no module of the tests may have a top-level
    // await): node:test gives a `test()` or `before()` to the suite whose function is running,
    // which after an `await` or across an import() it is not.
    require(path.resolve(file));
    // PGlite's WebAssembly memory lies outside what V8 counts: without a collection after each
    // file the closed databases of earlier files would stay in memory, some 300 MB each.
    after(() => globalThis.gc?.());
  });
}
