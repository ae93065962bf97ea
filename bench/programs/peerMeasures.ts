// The peers' measures in a lean child process (no Braid code loaded): listing, search, the rebuild
// floor, whole-history turns.
import { peers, peerTurns, rebuildFloor } from '../measurePeers';
import { runMeasures } from './runMeasures';

runMeasures({
  'rebuild-floor': (a) => rebuildFloor(a.sessionsDir),
  peers: (a) => peers(a.current, a.all, a.queries, a.runs),
  'peer-turn': (a) => peerTurns(a.dir, a.sessions, a.earlier, a.runs),
});
