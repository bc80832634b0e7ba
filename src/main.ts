/**
 * The process shell: parse the command line, load the configuration, hand it to the composition root
 * (`app/start.ts`), watch the configuration file for live reload, and map signals (SIGHUP reload; SIGTERM: drain for
 * `server.drainMs`, then a graceful stop; SIGINT, or a second signal: stop without waiting). It wires no parts
 * together itself.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandLine, UsageError, USAGE } from './config/cli.js';
import { watchConfigFile } from './config/config-watcher.js';
import { ConfigError, loadConfig } from './config/load-config.js';
import { createLogger } from './observability/logger.js';
import { packageVersion } from './app/build-identity.js';
import { clearNominations, PACKAGE_ROOT, startKubeLedger } from './app/start.js';

async function main(argv: string[]): Promise<number> {
  // The operator views talk to a running kube-ledger over HTTP: no configuration, no cluster source.
  if (argv[0] === 'explain' || argv[0] === 'ledger') return (await import('./cli/debug-commands.js')).runCli(argv);
  let cli;
  try {
    cli = parseCommandLine(argv, process.env);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`kube-ledger: ${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw err;
  }
  if (cli.command === 'help') {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  if (cli.command === 'version') {
    process.stdout.write(`kube-ledger ${packageVersion()}\n`);
    return 0;
  }
  const defaultFile = join(PACKAGE_ROOT, 'config', 'extender.yaml');
  const file = cli.configFile ?? (existsSync(defaultFile) ? defaultFile : undefined);
  let config;
  try {
    config = loadConfig({ ...(file ? { file } : {}), env: process.env, overrides: cli.overrides });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`kube-ledger: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const logger = createLogger({ level: config.logging.level });
  if (cli.command === 'nominations-clear') return clearNominations(config, logger);

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

  await new Promise<void>((resolveStop) => {
    let stopping = false;
    let endDrain: (() => void) | undefined;
    const stop = (signal: string): void => {
      if (stopping) {
        endDrain?.(); // a second signal: stop waiting for endpoints to move
        return;
      }
      stopping = true;
      // SIGTERM (the kubelet, a rollout): drain first, so no call meets a closed port while endpoints still route here.
      const drainMs = signal === 'SIGTERM' ? config.server.drainMs : 0;
      logger.info('shutting down', { signal, drainMs });
      watcher?.close();
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
  logger.info('stopped');
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`kube-ledger: fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
