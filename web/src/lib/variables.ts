import Mustache from 'mustache';

type Token = [type: string, value: string, start: number, end: number, children?: Token[]];

// mustache caches every template it parses; an editor parses on every keystroke.
Mustache.templateCache = undefined;

/**
 * The variables a template asks for, as the server derives them when the version is saved:
 * top-level names and section names, in order of first appearance (`user.name` asks for `user`; names inside a section are
 * looked up in the section's item first, so they are not the caller's to give). A live preview
 * only: the server checks the version again, and its 422 is what counts.
 */
export function templateVariables(templates: readonly string[]): { variables: string[]; error: string | null } {
  const variables = new Set<string>();
  for (const template of templates) {
    let tokens: Token[];
    try {
      tokens = Mustache.parse(template) as unknown as Token[];
    } catch (error) {
      return { variables: [...variables], error: (error as Error).message };
    }
    for (const [type, value] of tokens) {
      if (type === '>') return { variables: [...variables], error: 'partials ({{> name}}) are not supported' };
      if (type === '=') return { variables: [...variables], error: 'delimiter changes ({{=<% %>=}}) are not supported' };
      if ((type === 'name' || type === '&' || type === '#' || type === '^') && value !== '.') variables.add(value.split('.')[0] || value);
    }
  }
  return { variables: [...variables], error: null };
}
