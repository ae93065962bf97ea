// Braid's measures in a child process: a store's warm queries, whole durable turns, a long log.
import { braidTurns, warm } from '../measureBraid';
import { measureLog } from '../measureLog';
import { runMeasures } from './runMeasures';

runMeasures({
  warm: (a) => warm(a.root, a.workspaceDir, a.wasmPath, a.queries, a.runs),
  turn: (a) => braidTurns(a.root, a.workspaceDir, a.wasmPath, a.earlier, a.runs),
  log: (a) => measureLog(a.log, a.wasmPath),
});
