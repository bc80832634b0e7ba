/**
 * Warnings that can arrive by the thousand (one per claim on a large cluster's first settle, one per duplicate in a
 * bad list): the first few of each message in a window are logged as they come, the rest only counted and reported
 * in one line when the window closes. A flood of lines would bury the log and, written synchronously to a pipe,
 * hold the event loop.
 */
import type { TimerScheduler } from '../cluster/freshness/timer-scheduler.js';
import type { Logger } from './logger.js';

export interface RepeatedWarningLimits {
  /** Lines of one message logged in full per window. */
  perWindow: number;
  windowMs: number;
}

export const DEFAULT_REPEATED_WARNING_LIMITS: RepeatedWarningLimits = { perWindow: 10, windowMs: 60_000 };

interface OpenWindow {
  logged: number;
  suppressed: number;
  close: () => void;
}

export class RepeatedWarnings {
  private readonly windows = new Map<string, OpenWindow>();

  constructor(
    private readonly logger: Logger,
    private readonly timers: TimerScheduler,
    private readonly limits: RepeatedWarningLimits = DEFAULT_REPEATED_WARNING_LIMITS,
  ) {}

  warn(message: string, fields: Record<string, unknown>): void {
    const window = this.windows.get(message) ?? this.open(message);
    if (window.logged < this.limits.perWindow) {
      window.logged++;
      this.logger.warn(message, fields);
    } else {
      window.suppressed++;
    }
  }

  /** Reports every open window's suppressed count now (at shutdown). */
  flush(): void {
    for (const [message, window] of [...this.windows]) {
      window.close();
      this.report(message, window);
    }
  }

  private open(message: string): OpenWindow {
    const cancel = this.timers.setTimer(() => this.report(message, window), this.limits.windowMs);
    const window: OpenWindow = { logged: 0, suppressed: 0, close: cancel };
    this.windows.set(message, window);
    return window;
  }

  private report(message: string, window: OpenWindow): void {
    this.windows.delete(message);
    if (window.suppressed === 0) return;
    this.logger.warn(`${message} (repeated)`, {
      suppressed: window.suppressed,
      logged: window.logged,
      windowSeconds: this.limits.windowMs / 1000,
    });
  }
}
