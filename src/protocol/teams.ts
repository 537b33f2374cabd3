/**
 * Request bodies of the team endpoints (ours; docs/protocol.md, "Teams: organisations, people, projects"):
 * organisations, people, projects and their members. Unknown fields are refused, as for keys.
 */
import { z } from 'zod';

const ORG_ROLES = ['owner', 'admin', 'member'] as const;
const PROJECT_ROLES = ['admin', 'member'] as const;

const strict = {
  error: (iss: { code: string; keys?: string[] }) =>
    iss.code === 'unrecognized_keys' ? `unknown field ${(iss.keys ?? []).join(', ')}` : 'body must be a JSON object',
};

/** An address of the form local@domain.tld, without spaces (what a person's email must look like). */
const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:"]{2,}$/;

const email = z
  .string({ error: 'email must be a string' })
  .trim()
  .max(254, { message: 'email must be at most 254 characters' })
  .regex(EMAIL, { message: 'email must be an email address, e.g. ana@example.org' });
const displayName = z
  .string({ error: 'display_name must be a string' })
  .trim()
  .min(1, { message: 'display_name must not be empty' })
  .max(200, { message: 'display_name must be at most 200 characters' });
const orgRole = z.enum(ORG_ROLES, { error: `role must be one of ${ORG_ROLES.join(', ')}` });
const lifetime = z
  .number({ error: 'max_key_lifetime_days must be a number or null' })
  .int({ message: 'max_key_lifetime_days must be a whole number of days' })
  .min(1, { message: 'max_key_lifetime_days must be at least 1' })
  .max(36500, { message: 'max_key_lifetime_days must be at most 36500' })
  .nullable();
const name = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .trim()
    .min(1, { message: `${what} must not be empty` })
    .max(200, { message: `${what} must be at most 200 characters` });
const id = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .min(1, { message: `${what} must not be empty` })
    .max(200);

export const CreateOrgRequestSchema = z.strictObject(
  {
    name: name('name'),
    max_key_lifetime_days: lifetime.optional(),
    owner: z.strictObject({ email, display_name: displayName }, strict),
  },
  strict,
);

export const UpdateOrgRequestSchema = z.strictObject({ name: name('name').optional(), max_key_lifetime_days: lifetime.optional() }, strict);

export const CreatePersonRequestSchema = z.strictObject(
  { email, display_name: displayName, role: orgRole.optional(), org_id: id('org_id').optional() },
  strict,
);

export const UpdatePersonRequestSchema = z.strictObject(
  { email: email.optional(), display_name: displayName.optional(), role: orgRole.optional() },
  strict,
);

export const CreateProjectRequestSchema = z.strictObject(
  {
    id: z
      .string({ error: 'id must be a string' })
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/, {
        message: 'id must be 1 to 200 letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
      })
      .optional(),
    name: name('name'),
    org_id: id('org_id').optional(),
  },
  strict,
);

export const AddMemberRequestSchema = z.strictObject(
  { person_id: id('person_id'), role: z.enum(PROJECT_ROLES, { error: `role must be one of ${PROJECT_ROLES.join(', ')}` }).optional() },
  strict,
);
