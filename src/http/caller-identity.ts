/**
 * Who is calling, for the shares one caller may hold (in-flight slots, direct reads for preemption proofs): under mTLS
 * the verified client certificate (every connection kube-scheduler opens with its certificate is one caller), else the
 * connection. Without mTLS a client can open more connections to get more shares; the NetworkPolicy and mTLS are what
 * bound who can do that (docs/threat-model.md).
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export type CallerIdentityOf = (request: IncomingMessage) => string;

/** One per server: the identity is worked out once per connection (a certificate's fingerprint costs a copy). */
export function callerIdentities(): CallerIdentityOf {
  const known = new WeakMap<Socket, string>();
  return (request) => {
    const socket = request.socket;
    let identity = known.get(socket);
    if (identity === undefined) {
      identity = identityOf(socket);
      known.set(socket, identity);
    }
    return identity;
  };
}

function identityOf(socket: Socket): string {
  const tls = socket as TLSSocket;
  if (tls.authorized === true && typeof tls.getPeerCertificate === 'function') {
    const fingerprint = tls.getPeerCertificate().fingerprint256;
    if (fingerprint) return `certificate ${fingerprint}`;
  }
  return `connection ${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
}
