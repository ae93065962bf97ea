// The floors of the fresh-process turn operations (bench/turnOps.ts): the least a new node
// process does for each, run as `node bench/turnOps/floors.mjs <floor> <args>`.
//   read-span <file> <from>          reads the bytes from `from` to the end (what a rewind drops)
//   copy-prefix <file> <bytes> <to>  copies the first `bytes` to a new file in 1 MB chunks, then fsyncs it (a fork's copy)
//   parse-lines <file>               reads the file and JSON.parse's every line (what show replays)
import fs from 'node:fs';

const CHUNK = 1024 * 1024;

function readSpan(file, from) {
  const fd = fs.openSync(file, 'r');
  const buffer = Buffer.allocUnsafe(CHUNK);
  let read = 0;
  for (let at = from, n; (n = fs.readSync(fd, buffer, 0, CHUNK, at)) > 0; at += n) read += n;
  fs.closeSync(fd);
  return read;
}

function copyPrefix(file, bytes, to) {
  const source = fs.openSync(file, 'r');
  const target = fs.openSync(to, 'wx');
  const buffer = Buffer.allocUnsafe(CHUNK);
  for (let at = 0; at < bytes;) {
    const n = fs.readSync(source, buffer, 0, Math.min(CHUNK, bytes - at), at);
    if (n === 0) break;
    fs.writeSync(target, buffer, 0, n);
    at += n;
  }
  fs.fsyncSync(target);
  fs.closeSync(target);
  fs.closeSync(source);
  return bytes;
}

function parseLines(file) {
  let records = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.length === 0) continue;
    JSON.parse(line);
    records++;
  }
  return records;
}

const [floor, file, a, b] = process.argv.slice(2);
if (floor === 'read-span') readSpan(file, Number(a));
else if (floor === 'copy-prefix') copyPrefix(file, Number(a), b);
else if (floor === 'parse-lines') parseLines(file);
else {
  console.error(`unknown floor ${floor}`);
  process.exit(2);
}
