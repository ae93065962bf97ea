import type { Logger } from '../logger';

/** What stands in a text for an API key taken out of it. */
export const REDACTED = '[API key removed]';

/**
 * Remembers the API keys a session hands to providers (for its own agent, its subagents, its
 * compactions and side questions) and takes them out of everything the session writes or gives
 * out: a provider or proxy that echoes the key in an error message must not put it in the
 * session's files, the Output channel, the chat or the CLI's output. It is the one place that
 * knows the keys; the Session puts it at one choke point per path (records, events, the logger,
 * errors it throws).
 */
export class SecretRedactor {
  private readonly keys = new Set<string>();

  /** Wraps a key lookup so every key it returns is remembered. */
  wrap(lookup: (provider: string) => Promise<string | undefined> | string | undefined): (provider: string) => Promise<string | undefined> {
    return async (provider) => {
      const key = await lookup(provider);
      if (key && key.length >= 8) this.keys.add(key);
      return key;
    };
  }

  /** Plain data (a message of any role, a session event) with the keys taken out; the same object when it holds none. */
  redactObject<T extends object>(value: T): T {
    if (this.keys.size === 0) return value;
    const json = JSON.stringify(value);
    const clean = this.redact(json);
    return clean === json ? value : (JSON.parse(clean) as T);
  }

  redact(text: string): string;
  redact(text: string | undefined): string | undefined;
  redact(text: string | undefined): string | undefined {
    if (!text) return text;
    let out = text;
    for (const key of this.keys) out = out.split(key).join(REDACTED);
    return out;
  }

  /** A logger that takes the keys out of every line before `inner` gets it. */
  logger(inner: Logger): Logger {
    return {
      trace: (m) => inner.trace(this.redact(m)),
      info: (m) => inner.info(this.redact(m)),
      warn: (m) => inner.warn(this.redact(m)),
      error: (m) => inner.error(this.redact(m)),
    };
  }

  /** Runs `fn`; an error it throws leaves with the keys taken out of its message and stack (same object, so its class stays). */
  async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof Error) {
        err.message = this.redact(err.message);
        if (err.stack) err.stack = this.redact(err.stack);
      }
      throw typeof err === 'string' ? this.redact(err) : err;
    }
  }
}
