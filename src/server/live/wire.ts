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
  // Without details (most sessions): no spread, which V8 builds on its slow path. The same fields, in the same order.
  if (start_ms === undefined) return { type: 'transcript', status, text, id, index, seq };
  const details = start_ms === undefined ? {} : { start_ms, end_ms, words, ...(alternatives ? { alternatives } : {}) };
  return { type: 'transcript', status, text, id, index, ...details, seq };
}
