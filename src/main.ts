/**
 * The process shell: parse the command line, load the configuration, hand it to the composition root
 * (`app/start.ts`), watch the configuration file for live reload, and map signals (SIGHUP reload; SIGTERM: drain for
 * `server.drainMs`, then a graceful stop; SIGINT, or a second signal: stop without waiting). It wires no parts
 * together itself.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandLine, UsageError, USAGE, type CommandLine } from './config/cli.js';
import { watchConfigFile } from './config/config-watcher.js';
import { ConfigError, loadConfig } from './config/load-config.js';
import type { ExtenderConfig } from './config/schema.js';
import { createLogger, type Logger } from './observability/logger.js';
import { packageVersion } from './app/build-identity.js';
import { clearNominations, PACKAGE_ROOT, startKubeLedger, type RunningKubeLedger } from './app/start.js';

/** Exit codes of the process shell. */
const EXIT_OK = 0;
const EXIT_USAGE = 2;

async function main(argv: string[]): Promise<number> {
  // The operator views talk to a running kube-ledger over HTTP: no configuration, no cluster source.
  if (argv[0] === 'explain' || argv[0] === 'ledger') return (await import('./cli/debug-commands.js')).runCli(argv);
  const cli = commandLine(argv);
  if (typeof cli === 'number') return cli;
  if (cli.command === 'help') {
    process.stdout.write(USAGE + '\n');
    return EXIT_OK;
  }
  if (cli.command === 'version') {
    process.stdout.write(`kube-ledger ${packageVersion()}\n`);
    return EXIT_OK;
  }
  const defaultFile = join(PACKAGE_ROOT, 'config', 'extender.yaml');
  const file = cli.configFile ?? (existsSync(defaultFile) ? defaultFile : undefined);
  const config = configuration(cli, file);
  if (typeof config === 'number') return config;
  const logger = createLogger({ level: config.logging.level });
  if (cli.command === 'nominations-clear') return clearNominations(config, logger);
  await serveUntilStopped(config, cli, file, logger);
  logger.info('stopped');
  return EXIT_OK;
}

/** The parsed command line, or the exit code of a usage error (reported with the usage). */
function commandLine(argv: string[]): CommandLine | number {
  try {
    return parseCommandLine(argv, process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`kube-ledger: ${err.message}\n\n${USAGE}\n`);
    return EXIT_USAGE;
  }
}

/** The configuration (defaults < file < environment < flags), or the exit code of a configuration error. */
function configuration(cli: CommandLine, file: string | undefined): ExtenderConfig | number {
  try {
    return loadConfig({ ...(file ? { file } : {}), env: process.env, overrides: cli.overrides });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`kube-ledger: ${err.message}\n`);
    return EXIT_USAGE;
  }
}

/** Starts kube-ledger, reloads the configuration file when it changes or on SIGHUP, and returns once it has stopped. */
async function serveUntilStopped(config: ExtenderConfig, cli: CommandLine, file: string | undefined, logger: Logger): Promise<void> {
  const running = await startKubeLedger(config, { logger });
  const watcher = file
    ? watchConfigFile({
        file,
        env: process.env,
        overrides: cli.overrides,
        logger,
        current: () => running.config(),
        apply: (next) => running.updateConfig(next),
      })
    : undefined;
  process.on('SIGHUP', () => {
    watcher?.reloadNow();
    void running.source.reload().catch(() => {});
  });
  await stopOnSignal(running, config, logger, () => watcher?.close());
}

/**
 * Resolves once kube-ledger has closed after SIGTERM or SIGINT. SIGTERM (the kubelet, a rollout) drains first for
 * `server.drainMs`, so no call meets a closed port while endpoints still route here; a second signal ends the drain.
 */
function stopOnSignal(running: RunningKubeLedger, config: ExtenderConfig, logger: Logger, closeWatcher: () => void): Promise<void> {
  return new Promise<void>((resolveStop) => {
    let stopping = false;
    let endDrain: (() => void) | undefined;
    const stop = (signal: string): void => {
      if (stopping) {
        endDrain?.(); // a second signal: stop waiting for endpoints to move
        return;
      }
      stopping = true;
      const drainMs = signal === 'SIGTERM' ? config.server.drainMs : 0;
      logger.info('shutting down', { signal, drainMs });
      closeWatcher();
      running.startDraining();
      const drained = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, drainMs);
        endDrain = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      void drained.then(() => running.close()).finally(resolveStop);
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`kube-ledger: fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
