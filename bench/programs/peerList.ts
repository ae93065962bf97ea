// A new process that lists sessions as a peer tool does (bench/peers/listing.ts), timed from outside.
// Usage: node peerList.cjs a1|a2|a3 <workspace session folder>...
import { listByHeadAndStat, listNewestFirst, listReadingEveryLog } from '../peers/listing';

const [kind, ...folders] = process.argv.slice(2);
const peers = { a1: listReadingEveryLog, a2: listByHeadAndStat, a3: listNewestFirst };
const list = peers[kind as keyof typeof peers];
if (!list) throw new Error(`unknown peer ${kind}`);
process.stdout.write(`${list(folders, 50).length} rows\n`);
