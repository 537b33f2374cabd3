/**
 * A module standing in for `sherpa-onnx-node` in the BUILT service (`DICTEE_TEST_SHERPA_ADDON`, with
 * `NODE_OPTIONS=--require tsx/cjs` so that its decoder and proofreading threads can load it): the FAKE
 * addon of fakeSherpaAddon.ts. It releases the words of `DICTEE_FAKE_SHERPA_SCRIPTS` (JSON, per pinned
 * language), one per voiced 100 ms it decodes; its offline model answers `DICTEE_FAKE_SHERPA_PROOFREAD`
 * followed by the hotwords it was given. With `DICTEE_FAKE_SHERPA_PROBS=1` its streaming results carry
 * token log-probabilities (as a zipformer's do; a NeMo transducer's carry none). It recognises nothing.
 */
import { fakeSherpaAddon } from './fakeSherpaAddon';

const addon = fakeSherpaAddon({
  scripts: JSON.parse(process.env.DICTEE_FAKE_SHERPA_SCRIPTS ?? '{}') as Record<string, string[]>,
  probs: process.env.DICTEE_FAKE_SHERPA_PROBS === '1',
  offline: (_samples, hotwords) =>
    [process.env.DICTEE_FAKE_SHERPA_PROOFREAD ?? '', ...(hotwords ? hotwords.split('/') : [])].join(' ').trim(),
});

export const version = addon.version;
export const OnlineRecognizer = addon.OnlineRecognizer;
export const OfflineRecognizer = addon.OfflineRecognizer;
