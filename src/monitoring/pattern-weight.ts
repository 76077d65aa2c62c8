// Owns estimating how many matcher states a regular expression expands to, the cost driver of a linear-time match.

/** One open group while scanning: the weights of its finished alternatives and of the current one. */
interface Frame {
  alternativesWeight: number;
  current: number;
  /** Weight of the last atom or group of `current`, the operand a following quantifier repeats. */
  last: number;
}

const COUNTED = /^\{(\d+)(?:,(\d*))?\}/;
const GROUP_PREFIX = /^\(\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)?/;

/** Index just past the character class opening at `start` (`[...]`, escapes honoured). */
function classEnd(source: string, start: number): number {
  let i = start + 1;
  while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
  return i + 1;
}

/** Index just past the escape opening at `start` (`\x41`, `\u0041`, `\cA`, `\d`...). */
function escapeEnd(source: string, start: number): number {
  const kind = source[start + 1];
  if (kind === 'x') return start + 4;
  if (kind === 'u') return source[start + 2] === '{' ? source.indexOf('}', start) + 1 || source.length : start + 6;
  if (kind === 'c') return start + 3;
  return start + 2;
}

function loop(frame: Frame): void {
  frame.current += frame.last;
  frame.last *= 2;
}

function addAtom(frame: Frame, weight: number): void {
  frame.current += weight;
  frame.last = weight;
}

/**
 * An upper estimate of the states a (syntactically valid, flag-less) pattern expands to: each
 * atom counts 1, a counted repetition `{m,n}` copies its operand max(m, n) times, alternatives
 * add up, a loop (`*`, `+`, `{m,}`) counts its operand twice and `?` adds nothing. A linear-time
 * matcher's cost per subject character grows with this number, so bounding it bounds the match time.
 */
export function patternWeight(source: string): number {
  const stack: Frame[] = [{ alternativesWeight: 0, current: 0, last: 0 }];
  let i = 0;
  while (i < source.length) {
    const frame = stack[stack.length - 1] as Frame;
    const c = source[i];
    if (c === '\\') {
      addAtom(frame, 1);
      i = escapeEnd(source, i);
    } else if (c === '[') {
      addAtom(frame, 1);
      i = classEnd(source, i);
    } else if (c === '(') {
      stack.push({ alternativesWeight: 0, current: 0, last: 0 });
      i += (GROUP_PREFIX.exec(source.slice(i))?.[0].length ?? 1) || 1;
    } else if (c === ')' && stack.length > 1) {
      stack.pop();
      addAtom(stack[stack.length - 1] as Frame, frame.alternativesWeight + frame.current);
      i += 1;
    } else if (c === '|') {
      frame.alternativesWeight += frame.current;
      frame.current = 0;
      frame.last = 0;
      i += 1;
    } else if (c === '*' || c === '+' || c === '?') {
      // A loop keeps its operand's states alive across characters: count them twice.
      if (c !== '?') loop(frame);
      i += source[i + 1] === '?' ? 2 : 1;
    } else if (c === '{' && COUNTED.test(source.slice(i, i + 24))) {
      const [text, low, high] = COUNTED.exec(source.slice(i, i + 24)) as RegExpExecArray;
      const copies = Math.max(Number(low), high === undefined || high === '' ? 0 : Number(high), 1);
      frame.current += frame.last * (copies - 1);
      frame.last *= copies;
      if (high === '') loop(frame);
      i += text.length + (source[i + text.length] === '?' ? 1 : 0);
    } else {
      addAtom(frame, 1);
      i += 1;
    }
  }
  let weight = 0;
  for (const frame of stack) weight += frame.alternativesWeight + frame.current;
  return weight;
}
