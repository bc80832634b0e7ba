/**
 * A kubeconfig file pointing at the fake: plain http on loopback, a bearer token, and insecure-skip-tls-verify
 * (client-node 1.4 refuses http:// clusters unless skipTLSVerify is set).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  /** Default "fake-apiserver-token". Any token is accepted; the request log only records that one was sent. */
  token?: string;
  /** Default namespace of the context. */
  namespace?: string;
  /** Default "kubeconfig". */
  fileName?: string;
}

export function writeKubeconfigFile(url: string, dir: string, options: KubeconfigOptions = {}): string {
  const name = 'fake-apiserver';
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    users: [{ name, user: { token: options.token ?? 'fake-apiserver-token' } }],
    contexts: [{ name, context: { cluster: name, user: name, ...(options.namespace ? { namespace: options.namespace } : {}) } }],
    'current-context': name,
    preferences: {},
  };
  const path = join(dir, options.fileName ?? 'kubeconfig');
  writeFileSync(path, stringify(config), { mode: 0o600 });
  return path;
}
