// A new process that makes one bare model call, timed from outside: a streaming chat completion
// asked of an OpenAI-compatible server with fetch, each piece of the answer printed as it comes.
// The floor of `braid exec "hi"`. Usage: node bareCall.cjs <base url ending in /v1>
async function main(): Promise<void> {
  const baseUrl = process.argv[2]!;
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer no-key' },
    body: JSON.stringify({ model: 'scripted-model', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const decoder = new TextDecoder();
  let carry = '';
  for await (const chunk of response.body!) {
    const lines = (carry + decoder.decode(chunk as Uint8Array, { stream: true })).split('\n');
    carry = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('data: {')) continue;
      const content = (JSON.parse(line.slice(6)) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta?.content;
      if (content) process.stdout.write(content);
    }
  }
  process.stdout.write('\n');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
