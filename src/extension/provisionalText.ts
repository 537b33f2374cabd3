/** How provisional text is shown in a decoration (pure; tested in plain Node). */

/** Newlines cannot be shown in `after` content: each becomes ` ¶ `. Tabs become a space. */
export function displayProvisional(text: string): string {
  return text.replace(/\r\n|\r|\n/g, ' ¶ ').replace(/\t/g, ' ');
}
