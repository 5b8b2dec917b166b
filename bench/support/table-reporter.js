const { existsSync, readFileSync } = require('node:fs');

/** Prints every benchmark's row as one table once the run is over (rows come from bench/support/harness.ts). */
class TableReporter {
  onRunComplete() {
    const file = process.env.BENCH_RESULTS;
    const rows = file && existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)) : [];
    if (!rows.length) return;
    const header = ['work', 'baseline', 'baseline value', 'service', 'ratio', 'target', 'result'];
    const lines = rows.map((row) => [row.work, row.baseline, row.baselineValue, row.serviceValue, `${row.ratio.toFixed(2)}×`, row.target, row.pass ? 'pass' : 'FAIL']);
    const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
    const format = (cells) => `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
    const out = [format(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...lines.map(format)];
    const notes = rows.filter((row) => row.note).map((row) => `- ${row.work}: ${row.note}`);
    process.stdout.write(`\n${out.join('\n')}\n${notes.length ? `\n${notes.join('\n')}\n` : ''}\n`);
  }
}

module.exports = TableReporter;
