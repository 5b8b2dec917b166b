// Ends every run with one plain line, "jest: N passed, N failed", that CI can read whatever the runner.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stdout.write(`jest: ${results.numPassedTests} passed, ${results.numFailedTests + results.numRuntimeErrorTestSuites} failed\n`);
  }
}
module.exports = SummaryReporter;
