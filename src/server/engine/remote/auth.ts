/**
 * How the credential (DICTEE_ENGINE_API_KEY) is presented to a remote recogniser or proofreading
 * endpoint: `Authorization: Bearer KEY` (OpenAI, vLLM, Speaches, whisper.cpp behind a proxy), or Azure
 * OpenAI's `api-key: KEY` header. By default chosen from the URL's host: Azure's resource hosts get
 * `api-key`. docs/engines.md, "Azure OpenAI".
 */

export const AUTH_SCHEMES = ['bearer', 'api-key'] as const;
export type AuthScheme = (typeof AUTH_SCHEMES)[number];

/** Azure OpenAI resource hosts (`NAME.openai.azure.com`, `NAME.cognitiveservices.azure.com`): their key goes in `api-key`. */
const AZURE_HOST = /\.(openai\.azure\.com|cognitiveservices\.azure\.com)$/i;

/** The scheme a URL gets when none is chosen: `api-key` for Azure OpenAI's hosts, else `bearer`. */
export function defaultAuthFor(url: string): AuthScheme {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return 'bearer';
  }
  return AZURE_HOST.test(host.replace(/\.$/, '')) ? 'api-key' : 'bearer';
}

/** The header that carries the key (none without a key). The key goes nowhere else. */
export function authHeader(scheme: AuthScheme, key: string | undefined): Record<string, string> {
  if (!key) return {};
  return scheme === 'api-key' ? { 'api-key': key } : { Authorization: `Bearer ${key}` };
}
