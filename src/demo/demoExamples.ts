/**
 * Prompts Braid's demo agent acts on with tools, in the order it offers them; the Chat view's
 * welcome shows the first three when the demo model is on. Data only: the webview imports it.
 */
export const DEMO_EXAMPLES = [
  'Explain the README',
  'Create hello.txt',
  'Use a subagent to survey this folder',
  'Run `ls -la`',
  'Give me a long answer',
] as const;
