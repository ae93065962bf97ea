// The plain-node peers of the index-scale benchmark (bench/indexScale.ts), each run as a new
// process `node bench/indexScale/peers.mjs <peer> <args>` and timed from spawn to exit:
//   head-stat <workspace folder>...  reads the first line of each session's log and stats it,
//                                    sorts by mtime, prints the newest 50 (a listing without an index)
//   read-logs <sessions folder>      reads every session log of every workspace (the floor of a rebuild)
import fs from 'node:fs';
import path from 'node:path';

const logOf = (folder, id) => path.join(folder, id, 'agents', 'main', 'wire.jsonl');
const sessionsIn = (folder) => fs.readdirSync(folder).filter((name) => name.startsWith('ses_'));

function firstLine(file, buffer) {
  const fd = fs.openSync(file, 'r');
  try {
    const n = fs.readSync(fd, buffer, 0, buffer.length, 0);
    const end = buffer.indexOf(10);
    return buffer.toString('utf8', 0, end < 0 || end > n ? n : end);
  } finally {
    fs.closeSync(fd);
  }
}

function headStat(folders) {
  const buffer = Buffer.allocUnsafe(16 * 1024);
  const found = [];
  for (const folder of folders) {
    for (const id of sessionsIn(folder)) {
      const file = logOf(folder, id);
      const head = JSON.parse(firstLine(file, buffer));
      found.push({ id, folder: head.workspaceDir ?? folder, mtime: fs.statSync(file).mtimeMs });
    }
  }
  found.sort((a, b) => b.mtime - a.mtime);
  process.stdout.write(
    found
      .slice(0, 50)
      .map((s) => `${s.id} ${new Date(s.mtime).toISOString()} ${s.folder}\n`)
      .join(''),
  );
}

function readLogs(sessionsDir) {
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  let bytes = 0;
  for (const key of fs.readdirSync(sessionsDir)) {
    const folder = path.join(sessionsDir, key);
    if (!fs.statSync(folder).isDirectory()) continue;
    for (const id of sessionsIn(folder)) {
      const fd = fs.openSync(logOf(folder, id), 'r');
      for (let n; (n = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0;) bytes += n;
      fs.closeSync(fd);
    }
  }
  process.stdout.write(`${bytes} bytes\n`);
}

const [peer, ...args] = process.argv.slice(2);
if (peer === 'head-stat') headStat(args);
else if (peer === 'read-logs') readLogs(args[0]);
else {
  console.error(`unknown peer ${peer}`);
  process.exit(2);
}
