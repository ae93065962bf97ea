// `npm start [folder] [--port N]`: builds and packages Braid, installs it into a real VS Code
// (code-server, provisioned and cached like the e2e suite's), opens the folder (default: the
// current one) and prints the URL, on 127.0.0.1 only. The model comes from BRAID_PROVIDER,
// BRAID_MODEL, BRAID_BASE_URL and BRAID_API_KEY; with none set, Braid's demo agent (a script that
// plays tool calls through Braid's real tools, src/demo/) answers, and the Chat view labels it "Demo model".
import fs from 'node:fs';
import path from 'node:path';
import { runLogged } from './installProgress.mjs';
import { exitIfNodeTooOld } from './nodeVersion.mjs';
import { installStep, packageStep } from './startCache';
import { StepReporter } from './stepReporter.mjs';
import { cacheRoot, provisionToolchain, setupLogFile } from './toolchain.mjs';
import { freePort, installExtension, prepareProfile, startCodeServer } from '../test/support/codeServer';
import { ScriptedModelServer } from '../test/support/modelServer';
import { demoAgentReply } from '../src/demo/demoAgent';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

function parseArgs(argv: string[]): { folder: string; port: number } {
  let folder = process.env.INIT_CWD ?? process.cwd();
  let port = Number(process.env.BRAID_PORT ?? 8080);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--port') port = Number(argv[++i]);
    else if (arg.startsWith('--port=')) port = Number(arg.slice(7));
    else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}; usage: npm start [folder] [--port N]`);
    else folder = path.resolve(process.env.INIT_CWD ?? process.cwd(), arg);
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error('--port needs a number between 1 and 65535');
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new Error(`folder ${folder} does not exist`);
  return { folder, port };
}

async function main(): Promise<void> {
  exitIfNodeTooOld();
  const { folder, port: preferredPort } = parseArgs(process.argv.slice(2));
  const steps = new StepReporter({ logFile: setupLogFile() });
  await provisionToolchain(steps);

  const built = packageStep(repoRoot);
  if (!built.current) {
    await steps.run('Braid, built and packaged (braid.vsix)', async (step) => {
      await runLogged('npm', ['run', '--silent', 'package'], { cwd: repoRoot, step });
      step.progress(`${Math.round(fs.statSync(path.join(repoRoot, 'braid.vsix')).size / 1e3)} KB`);
    });
    built.record();
  }

  let demo: ScriptedModelServer | undefined;
  let settings: Record<string, unknown>;
  if (process.env.BRAID_PROVIDER) {
    settings = {
      'braid.provider': process.env.BRAID_PROVIDER,
      'braid.model': process.env.BRAID_MODEL ?? '',
      'braid.baseUrl': process.env.BRAID_BASE_URL ?? '',
      'braid.demoModel': false,
    };
  } else {
    demo = new ScriptedModelServer((request) => demoAgentReply(request.body), 'braid-demo');
    const baseUrl = await demo.start();
    settings = { 'braid.provider': 'openai-compatible', 'braid.model': 'braid-demo', 'braid.baseUrl': baseUrl, 'braid.demoModel': true };
  }

  // One profile kept between starts, so sessions survive a restart like they would in a desktop
  // VS Code. BRAID_START_PROFILE moves it (the e2e test of npm start uses a throwaway one).
  const profile = prepareProfile(process.env.BRAID_START_PROFILE || path.join(cacheRoot(), 'start-profile'), settings);
  const vsix = path.join(repoRoot, 'braid.vsix');
  const installed = installStep(profile.extensions, vsix);
  if (!installed.current) {
    await steps.run('Braid, installed into VS Code', async () => installExtension(profile, vsix));
    installed.record();
  }
  const port = await freePort(preferredPort);
  const server = await steps.run('VS Code (code-server), starting', () =>
    startCodeServer({ profile, port, folder, logFile: path.join(profile.root, 'code-server.log') }),
  );
  steps.close();

  const url = `${server.url}/?folder=${encodeURIComponent(folder)}`;
  console.log('');
  console.log(`Braid is running in VS Code at ${url}`);
  console.log(
    `Model: ${demo ? 'the scripted demo model (set BRAID_PROVIDER, BRAID_MODEL, BRAID_BASE_URL, BRAID_API_KEY for a real one)' : `${settings['braid.provider']} ${settings['braid.model']}`}`,
  );
  console.log('Open the Braid icon in the activity bar. Press Ctrl+C here to stop.');

  let stopping = false;
  const shutdown = async () => {
    stopping = true;
    await server.stop();
    await demo?.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  server.process.on('exit', (code) => {
    if (stopping) return;
    console.error(`code-server exited (${code}); see ${path.join(profile.root, 'code-server.log')}`);
    void demo?.close().then(() => process.exit(1));
  });
}

main().catch((err: unknown) => {
  console.error(`npm start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
