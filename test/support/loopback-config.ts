/**
 * The configuration every in-process integration test starts from: both listeners on free loopback ports (port 0, so
 * parallel runs never clash on 8888/8889) and, when given, a snapshot file as the cluster source.
 */
import { defaultConfig } from '../../src/config/load-config.js';
import type { ExtenderConfig } from '../../src/config/schema.js';

export function loopbackConfig(snapshotPath?: string): ExtenderConfig {
  const config = defaultConfig();
  config.server.host = '127.0.0.1';
  config.server.port = 0;
  config.server.ops.port = 0;
  if (snapshotPath !== undefined) config.cluster.snapshotPath = snapshotPath;
  return config;
}
