/** Names of every `configure` field, from the shared schema. */
import { ConfigSchema, ResumeSchema } from '../protocol/config';

export const CONFIG_FIELD_NAMES: readonly string[] = [
  ...Object.keys(ConfigSchema.shape),
  ...Object.keys(ResumeSchema.shape).map((k) => `resume.${k}`),
];
