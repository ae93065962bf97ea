/** What stands in a text for an API key taken out of it. */
export const REDACTED = '[API key removed]';

/**
 * Remembers the API keys a session hands to providers and takes them out of text it writes to
 * the log or shows: a provider or proxy that echoes the key in an error message must not put it
 * in the session's files, the Output channel or the chat.
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

  /** A message (any role: an error, a tool result quoting one) with the keys taken out; the same object when it holds none. */
  redactMessage<T extends object>(message: T): T {
    if (this.keys.size === 0) return message;
    const json = JSON.stringify(message);
    const clean = this.redact(json);
    return clean === json ? message : (JSON.parse(clean) as T);
  }

  redact(text: string): string;
  redact(text: string | undefined): string | undefined;
  redact(text: string | undefined): string | undefined {
    if (!text) return text;
    let out = text;
    for (const key of this.keys) out = out.split(key).join(REDACTED);
    return out;
  }
}
