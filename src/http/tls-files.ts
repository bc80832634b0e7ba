/**
 * Serving certificates from files, reloaded without a restart: a watch on the files' directories (Kubernetes
 * secret volumes swap a symlink, so the directory is what changes) plus a slow poll as a safety net. A new pair is
 * installed with `server.setSecureContext`; a half-written rotation (cert and key not matching yet) is refused, the
 * old context stays, and the next change retries.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { Server as HttpsServer, ServerOptions as HttpsServerOptions } from 'node:https';
import { dirname } from 'node:path';
import type { Logger } from '../observability/logger.js';
import type { HttpTlsOptions } from './server-options.js';

const DEFAULT_RELOAD_POLL_MS = 10_000;
const WATCH_DEBOUNCE_MS = 100;

interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/**
 * Node accepts a CA bundle without a single certificate in it (an empty or garbled file) and then verifies no client:
 * mTLS that can never admit kube-scheduler. Refused here instead, naming the setting, at start-up and on reload.
 */
function checkClientCaBundle(bundle: Buffer, setting: string, file: string): void {
  const blocks = bundle.toString('latin1').match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new Error(`${setting}.clientCAFile (${file}) holds no PEM certificate`);
  for (const block of blocks) {
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(block);
    } catch (err) {
      throw new Error(`${setting}.clientCAFile (${file}) holds a certificate that cannot be read: ${(err as Error).message}`);
    }
    if (!certificate.ca) throw new Error(`${setting}.clientCAFile (${file}) holds a certificate that is not a CA (${certificate.subject.replace(/\n/g, ', ')})`);
  }
}

function readTlsMaterial(tls: HttpTlsOptions): TlsMaterial {
  const setting = tls.setting ?? 'server.tls';
  const material: TlsMaterial = { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) };
  if (tls.clientCAFile) {
    material.ca = readFileSync(tls.clientCAFile);
    checkClientCaBundle(material.ca, setting, tls.clientCAFile);
  }
  try {
    createSecureContext({ ...material });
  } catch (err) {
    throw new Error(`${setting}.certFile/keyFile (${tls.certFile}, ${tls.keyFile}) cannot be served: ${(err as Error).message}`);
  }
  return material;
}

function sameMaterial(a: TlsMaterial, b: TlsMaterial): boolean {
  const sameCa = a.ca === undefined ? b.ca === undefined : b.ca !== undefined && a.ca.equals(b.ca);
  return sameCa && a.cert.equals(b.cert) && a.key.equals(b.key);
}

/** Options for `https.createServer`: the files' contents plus client-certificate policy for mTLS. */
export function loadHttpsServerOptions(tls: HttpTlsOptions): HttpsServerOptions {
  const material = readTlsMaterial(tls);
  if (material.ca === undefined) return { cert: material.cert, key: material.key };
  // The handshake asks for a client certificate but lets clients without one in: kubelet probes and Prometheus carry
  // none. `clientCertificateGate` then refuses unverified clients on every path except the probe and metrics paths.
  return { ...material, requestCert: true, rejectUnauthorized: false };
}

export interface TlsReloader {
  /** Re-reads the files now and installs them if they changed; false when they are unreadable or invalid. */
  reloadNow(): boolean;
  stop(): void;
}

export function watchTlsFiles(server: HttpsServer, tls: HttpTlsOptions, logger: Logger): TlsReloader {
  let installed = readTlsMaterial(tls);
  let debounce: NodeJS.Timeout | undefined;

  const reloadNow = (): boolean => {
    try {
      const candidate = readTlsMaterial(tls);
      if (sameMaterial(candidate, installed)) return true;
      server.setSecureContext({ ...candidate });
      installed = candidate;
      logger.info('tls certificate reloaded', { certFile: tls.certFile });
      return true;
    } catch (err) {
      logger.warn('tls certificate reload refused; keeping the current one', {
        certFile: tls.certFile,
        error: err instanceof Error ? err.message : String(err),
      });
      return false;
    }
  };

  const scheduleReload = (): void => {
    clearTimeout(debounce);
    debounce = setTimeout(reloadNow, WATCH_DEBOUNCE_MS);
    debounce.unref();
  };

  const watchers = watchDirectories(tls, logger, scheduleReload);
  const poll = setInterval(reloadNow, tls.reloadPollMs ?? DEFAULT_RELOAD_POLL_MS);
  poll.unref();

  return {
    reloadNow,
    stop() {
      clearInterval(poll);
      clearTimeout(debounce);
      for (const watcher of watchers) watcher.close();
    },
  };
}

/** Watches the directories the TLS files are in; a directory that cannot be watched is left to the poll. */
function watchDirectories(tls: HttpTlsOptions, logger: Logger, onChange: () => void): FSWatcher[] {
  const directories = new Set([tls.certFile, tls.keyFile, tls.clientCAFile].filter((f): f is string => !!f).map((f) => dirname(f)));
  const watchers: FSWatcher[] = [];
  for (const directory of directories) {
    try {
      watchers.push(watch(directory, { persistent: false }, onChange).on('error', () => {}));
    } catch (err) {
      logger.warn('cannot watch tls directory; relying on polling', { directory, error: (err as Error).message });
    }
  }
  return watchers;
}
