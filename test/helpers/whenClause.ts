/**
 * A small evaluator of VS Code's `when` clauses (identifiers, `==`, `!=`, `!`, `&&`, `||`, parentheses),
 * as the keybinding service reads them: to check in plain Node what a contributed keybinding does in a
 * given state. Enough for the manifest's clauses; an unknown construct throws.
 */
type Context = Record<string, string | boolean | undefined>;

export function evaluateWhen(clause: string, ctx: Context): boolean {
  const tokens = clause.match(/\(|\)|&&|\|\||==|!=|!|[\w.:-]+/gu) ?? [];
  let i = 0;
  const peek = (): string | undefined => tokens[i];
  const next = (): string => {
    const t = tokens[i++];
    if (t === undefined) throw new Error(`when clause ends early: ${clause}`);
    return t;
  };
  const truthy = (v: string | boolean | undefined): boolean => v !== undefined && v !== false && v !== '';
  const primary = (): boolean => {
    const t = next();
    if (t === '!') return !primary();
    if (t === '(') {
      const v = or();
      if (next() !== ')') throw new Error(`unbalanced parentheses: ${clause}`);
      return v;
    }
    if (peek() === '==' || peek() === '!=') {
      const op = next();
      const value = next();
      const equal = String(ctx[t] ?? '') === value;
      return op === '==' ? equal : !equal;
    }
    return truthy(ctx[t]);
  };
  const and = (): boolean => {
    let v = primary();
    while (peek() === '&&') {
      next();
      v = primary() && v;
    }
    return v;
  };
  const or = (): boolean => {
    let v = and();
    while (peek() === '||') {
      next();
      v = and() || v;
    }
    return v;
  };
  const v = or();
  if (i !== tokens.length) throw new Error(`unexpected "${tokens[i]}" in: ${clause}`);
  return v;
}
