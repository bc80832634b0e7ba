/**
 * Structured JSON logger: one object per line on stderr. Fields are caller-chosen; never pass whole Kubernetes
 * objects or credentials — log names, UIDs and reasons.
 */
import { boundedText } from './bounded-text.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(bindings: Record<string, unknown>): Logger;
  /** Whether a line at `level` would be written: lets hot paths skip building the fields of a dropped line. */
  isEnabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
  bindings?: Record<string, unknown>;
}

const SECRET_KEYS = /^(token|password|secret|authorization|bearer|client-key-data|keydata|key)$/i;

/** Longest string field written: a field can carry client text (a pod name, a JSON key); a stack trace still fits. */
const FIELD_TEXT_LIMIT = 4096;

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (SECRET_KEYS.test(key)) out[key] = '[redacted]';
    else if (value instanceof Error) out[key] = boundedText(value.message, FIELD_TEXT_LIMIT);
    else if (typeof value === 'string') out[key] = boundedText(value, FIELD_TEXT_LIMIT);
    else out[key] = value;
  }
  return out;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LEVEL_ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const bindings = options.bindings ?? {};
  const emit = (level: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (LEVEL_ORDER[level] < threshold) return;
    const record = { ts: new Date().toISOString(), level, msg, ...bindings, ...(fields ? redact(fields) : {}) };
    write(JSON.stringify(record));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (extra) => createLogger({ ...options, bindings: { ...bindings, ...extra } }),
    isEnabled: (level) => LEVEL_ORDER[level] >= threshold,
  };
}

/** A logger that drops everything; for tests that do not assert on logs. */
export const silentLogger: Logger = createLogger({ level: 'error', write: () => {} });
