// The first token of an answer in a running process, in a child process that holds a core Session.
import { firstToken } from '../measureSession';
import { runMeasures } from './runMeasures';

runMeasures({
  'first-token': (a) => firstToken(a.root, a.workspaceDir, a.wasmPath, a.baseUrl, a.runs),
});
