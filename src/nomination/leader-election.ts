/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's timings and rules: every retry period the
 * candidate reads the Lease and, when it is free, expired or already ours, writes itself as holder with the Lease's
 * resourceVersion as precondition (a lost race is a 409, never two holders). Expiry is judged by how long WE have
 * seen the same record unchanged, not by the holder's timestamps, so clock skew between replicas does not matter.
 *
 * Leadership is checked, not remembered: `isLeader()` is true only while the last successful renewal is younger
 * than the renew deadline, so a leader whose API calls hang stops writing on its own, before the Lease
 * (leaseDuration > renewDeadline) can be taken over. `stop()` releases the Lease (empty holder) so another
 * replica takes over at its next retry instead of waiting for expiry.
 */
import { isApiError } from '../cluster/kube/api-error.js';
import type { Logger } from '../observability/logger.js';
import type { LeaseClient, LeaseRecord } from './clients.js';
import { realTimerScheduler, type TimerScheduler } from '../cluster/freshness/timer-scheduler.js';

export interface LeaderElectionOptions {
  client: LeaseClient;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  now?: () => number;
  /** The retry timer (tests inject a fake clock); real, unref'd timers without it. */
  timers?: TimerScheduler;
  logger: Logger;
  onLeadershipChange?: (leading: boolean) => void;
}

export interface LeadershipView {
  isLeader(): boolean;
}

/** MicroTime as the API server writes it: RFC 3339 with exactly six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class LeaseLeaderElector implements LeadershipView {
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private lastRenewAt: number | undefined;
  private lastWritten: LeaseRecord | undefined;
  private observed: { key: string; at: number } | undefined;
  private cancelRetry: (() => void) | undefined;
  private running = false;
  private attempt: Promise<void> = Promise.resolve();
  private wasLeading = false;

  constructor(private readonly options: LeaderElectionOptions) {
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.now = options.now ?? Date.now;
    if (this.renewDeadlineMs >= this.leaseDurationMs) throw new Error('renew deadline must be shorter than the lease duration');
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.tick();
  }

  isLeader(): boolean {
    const leading = this.lastRenewAt !== undefined && this.now() - this.lastRenewAt < this.renewDeadlineMs;
    this.noteLeadership(leading);
    return leading;
  }

  /** Stops campaigning and releases the Lease if we hold it. */
  async stop(): Promise<void> {
    this.running = false;
    this.cancelRetry?.();
    await this.attempt;
    const held = this.lastWritten;
    const leading = this.isLeader();
    this.lastRenewAt = undefined;
    this.noteLeadership(false);
    if (!leading || !held) return;
    try {
      await this.options.client.update({ ...held, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(this.now()) });
      this.options.logger.info('released the nominator lease', { lease: `${held.namespace}/${held.name}` });
    } catch (err) {
      this.options.logger.warn('could not release the nominator lease', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  private tick(): void {
    if (!this.running) return;
    this.attempt = this.tryAcquireOrRenew()
      .catch((err: unknown) => {
        this.options.logger.warn('lease attempt failed', { error: err instanceof Error ? err.message : String(err) });
      })
      .finally(() => {
        this.isLeader();
        if (!this.running) return;
        this.cancelRetry = (this.options.timers ?? realTimerScheduler).setTimer(() => this.tick(), this.retryPeriodMs);
      });
  }

  private async tryAcquireOrRenew(): Promise<void> {
    const { client, namespace, name, identity } = this.options;
    const now = this.now();
    const current = await client.get(namespace, name);
    if (!current) {
      const fresh: LeaseRecord = {
        name, namespace, holderIdentity: identity, leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
        acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0,
      };
      return this.written(await this.guard(client.create(fresh)), now);
    }
    this.observe(current, now);
    const ours = current.holderIdentity === identity;
    if (!ours && current.holderIdentity !== '' && !this.observedExpired(current, now)) {
      this.lastRenewAt = undefined; // someone else holds a live lease: we are not the leader, whatever we thought
      return;
    }
    const next: LeaseRecord = {
      ...current,
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      renewTime: microTime(now),
      acquireTime: ours && current.acquireTime ? current.acquireTime : microTime(now),
      leaseTransitions: ours ? current.leaseTransitions : current.leaseTransitions + 1,
    };
    this.written(await this.guard(client.update(next)), now);
  }

  /** A 409 means another candidate won the race: not an error, just not us this round. */
  private async guard(write: Promise<LeaseRecord>): Promise<LeaseRecord | undefined> {
    try {
      return await write;
    } catch (err) {
      if (isApiError(err, 409)) {
        this.lastRenewAt = undefined;
        return undefined;
      }
      throw err;
    }
  }

  private written(record: LeaseRecord | undefined, attemptedAt: number): void {
    if (!record) return;
    this.lastWritten = record;
    this.lastRenewAt = attemptedAt;
    this.observe(record, attemptedAt);
  }

  private observe(record: LeaseRecord, now: number): void {
    const key = `${record.holderIdentity}|${record.renewTime ?? ''}|${record.resourceVersion ?? ''}`;
    if (this.observed?.key !== key) this.observed = { key, at: now };
  }

  private observedExpired(record: LeaseRecord, now: number): boolean {
    const durationMs = Math.max(1, record.leaseDurationSeconds) * 1000;
    return this.observed !== undefined && now - this.observed.at >= durationMs;
  }

  private noteLeadership(leading: boolean): void {
    if (leading === this.wasLeading) return;
    this.wasLeading = leading;
    this.options.logger.info(leading ? 'became nominator leader' : 'stopped being nominator leader', { identity: this.options.identity });
    this.options.onLeadershipChange?.(leading);
  }
}
