'use strict';
// Mocha's spec reporter plus the closing line CI reads: "N passed, N failed[, N skipped]".
const Mocha = require('mocha');
const { EVENT_RUN_END } = Mocha.Runner.constants;

class CountReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const { passes = 0, failures = 0, pending = 0 } = runner.stats || {};
      const skipped = pending > 0 ? `, ${pending} skipped` : '';
      // Printed after Spec's epilogue so it is the last line of the run.
      process.nextTick(() => process.stdout.write(`${passes} passed, ${failures} failed${skipped}\n`));
    });
  }
}

module.exports = CountReporter;
