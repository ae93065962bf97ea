// TEMPORARY local stand-in until the redaction branch lands; never committed.
export interface RedactionContext {
  readonly folders: readonly string[];
  readonly home: string;
  readonly secrets: readonly string[];
}
export function redactLine(line: string, ctx: RedactionContext): { line: string | null; redactions: { kind: string; where: string; sample: string }[] } {
  let out = line;
  const redactions: { kind: string; where: string; sample: string }[] = [];
  for (const s of ctx.secrets)
    if (out.includes(s)) {
      out = out.split(s).join('[REDACTED:key]');
      redactions.push({ kind: 'known-key', where: '?', sample: 'x' });
    }
  for (const f of ctx.folders)
    if (out.includes(f)) {
      out = out.split(f).join('.');
      redactions.push({ kind: 'path', where: '?', sample: '.' });
    }
  return { line: out, redactions };
}
export function knownSecrets(env: NodeJS.ProcessEnv): string[] {
  return env.BRAID_API_KEY ? [env.BRAID_API_KEY] : [];
}
