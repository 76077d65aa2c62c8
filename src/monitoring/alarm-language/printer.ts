// Owns printing a Criteria tree as canonical alarm language text that parses back to the same tree.
import type { Condition, Criteria, Operand, Statement } from './ast.js';

const INDENT = '  ';
const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', "'": "\\'", '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A single-quoted string literal: quotes, backslashes and control characters escaped. */
export function quote(value: string): string {
  let out = "'";
  for (const c of value) {
    const code = c.charCodeAt(0);
    if (NAMED_ESCAPES[c] !== undefined) out += NAMED_ESCAPES[c];
    else if (code < 0x20 || code === 0x7f || (c.length === 1 && code >= 0xd800 && code <= 0xdfff)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += c;
  }
  return `${out}'`;
}

function number(value: number): string {
  // String(-0) is "0"; keep the sign so the tree survives a round trip.
  return Object.is(value, -0) ? '-0' : String(value);
}

function operand(node: Operand): string {
  switch (node.kind) {
    case 'metric':
      return `metric[${quote(node.name)}]`;
    case 'number':
      return number(node.value);
    case 'string':
      return quote(node.value);
    case 'previous':
    case 'rate':
      return `${node.kind}(${operand(node.metric)})`;
    case 'percentage':
      return `percentage(${operand(node.part)}, ${operand(node.whole)})`;
  }
}

const PRECEDENCE = { or: 1, and: 2, compare: 3 } as const;

/** A condition; parentheses only where precedence or left-associativity needs them. */
function condition(node: Condition, parent = 0, rightSide = false): string {
  const own = PRECEDENCE[node.kind];
  const text =
    node.kind === 'compare'
      ? `${operand(node.left)} ${node.op} ${operand(node.right)}`
      : `${condition(node.left, own, false)} ${node.kind === 'and' ? '&&' : '||'} ${condition(node.right, own, true)}`;
  return own < parent || (own === parent && rightSide) ? `(${text})` : text;
}

function statements(body: readonly Statement[], depth: number): string {
  const pad = INDENT.repeat(depth);
  return body
    .map((node) => {
      if (node.kind === 'return') {
        const message = node.message === null ? '' : `, ${quote(node.message)}`;
        return `${pad}return new AlarmStatus(${node.state}${message});\n`;
      }
      return `${pad}if (${condition(node.condition)}) {\n${statements(node.body, depth + 1)}${pad}}\n`;
    })
    .join('');
}

/** The canonical text of a criteria: settings first, then the statements, two-space indented. */
export function printCriteria(criteria: Criteria): string {
  let out = '';
  if (criteria.settings.consecutiveCount !== undefined) out += `:set consecutiveCount=${criteria.settings.consecutiveCount}\n`;
  if (criteria.settings.consistencyLevel !== undefined) out += `:set consistencyLevel=${criteria.settings.consistencyLevel}\n`;
  return out + statements(criteria.body, 0);
}
