import { demoAgentReply } from '../../src/demo/demoAgent';
import { ScriptedModelServer } from './modelServer';

/** A model server that answers as `npm start`'s demo agent does. */
export function demoModelServer(): ScriptedModelServer {
  return new ScriptedModelServer((request) => demoAgentReply(request.body), 'braid-demo');
}

/** The user settings of a window talking to the demo at `baseUrl`, with no editor opened at start. */
export function demoSettings(baseUrl: string): Record<string, unknown> {
  return {
    'braid.provider': 'openai-compatible',
    'braid.model': 'braid-demo',
    'braid.baseUrl': baseUrl,
    'braid.demoModel': true,
    'workbench.startupEditor': 'none',
  };
}
