const Sequencer = require('@jest/test-sequencer').default;

/**
 * The benchmarks in the order of their file names, the scale benchmark last: its million rows keep
 * PostgreSQL writing for a while after it ends, which slowed the benchmarks that ran after it (the
 * invite-next of 1,000 read 1.88× after it, 1.21–1.32× on its own).
 */
class ScaleLast extends Sequencer {
  sort(tests) {
    const last = (test) => Number(test.path.endsWith('scale.bench.ts'));
    return [...tests].sort((a, b) => last(a) - last(b) || a.path.localeCompare(b.path));
  }
}

module.exports = ScaleLast;
