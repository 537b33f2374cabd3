/**
 * A segment event as it goes on the wire (and into the journal): its fields in the protocol's order,
 * with its `seq`; the details of a session that asked for them (docs/protocol.md) after the spec's fields.
 */
import type { OutgoingBatchReplace, OutgoingTranscript } from '../../protocol';
import type { SegmentEvent } from '../engine/segmenter';

type WireEvent = OutgoingTranscript | OutgoingBatchReplace;

export function wireEvent(event: SegmentEvent, seq: number): WireEvent {
  if (event.type === 'batch.replace') return { type: 'batch.replace', data: event.data, seq };
  const { status, text, id, index, start_ms, end_ms, words, alternatives } = event;
  const details = start_ms === undefined ? {} : { start_ms, end_ms, words, ...(alternatives ? { alternatives } : {}) };
  return { type: 'transcript', status, text, id, index, ...details, seq };
}
