// Owns parsing alarm criteria into a Criteria tree: settings, if/return statements, conditions, operands.
import {
  ALARM_STATES,
  COMPARE_OPS,
  CONSISTENCY_LEVELS,
  type AlarmState,
  type CompareOp,
  type Condition,
  type ConsistencyLevel,
  type Criteria,
  type MetricRef,
  type Operand,
  type Statement,
} from './ast.js';
import {
  CONDITIONALS_MAX,
  CONSECUTIVE_COUNT_MAX,
  METRIC_NAME_IN_CRITERIA_MAX,
  NESTING_DEPTH_MAX,
  STATUS_MESSAGE_LENGTH_MAX,
  STRING_LITERAL_LENGTH_MAX,
} from './language-limits.js';
import { AlarmParseError } from './parse-error.js';
import { tokenize, type Token } from './tokenizer.js';

/** A recursive-descent parser over the token list of one criteria. */
class Parser {
  private index = 0;
  private depth = 0;
  private conditionals = 0;
  private consecutiveCount: number | undefined;
  private consistencyLevel: ConsistencyLevel | undefined;

  constructor(private readonly tokens: readonly Token[]) {}

  private peek(offset = 0): Token {
    return (this.tokens[this.index + offset] ?? this.tokens[this.tokens.length - 1]) as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.index++;
    return token;
  }

  private fail(token: Token, message: string): never {
    throw new AlarmParseError(message, { position: token.position, line: token.line, column: token.column, token: token.text });
  }

  private isPunct(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'punct' && token.text === text;
  }

  private isWord(text: string): boolean {
    const token = this.peek();
    return token.kind === 'ident' && token.text === text;
  }

  private expectPunct(text: string): Token {
    const token = this.next();
    if (token.kind !== 'punct' || token.text !== text) this.fail(token, `expected '${text}'`);
    return token;
  }

  private expectWord(text: string): Token {
    const token = this.next();
    if (token.kind !== 'ident' || token.text !== text) this.fail(token, `expected '${text}'`);
    return token;
  }

  private expectString(max: number, what: string): string {
    const token = this.next();
    if (token.kind !== 'string') this.fail(token, `expected a quoted ${what}`);
    const value = token.value as string;
    if (value.length > max) this.fail(token, `${what} longer than ${max} characters`);
    return value;
  }

  private enter(token: Token): void {
    this.depth++;
    if (this.depth > NESTING_DEPTH_MAX) this.fail(token, `nested deeper than ${NESTING_DEPTH_MAX} levels`);
  }

  /** criteria := (setting | statement)* EOF */
  parseCriteria(): Criteria {
    const body: Statement[] = [];
    while (this.peek().kind !== 'eof') {
      if (this.isPunct(':')) this.parseSetting();
      else body.push(this.parseStatement());
    }
    const settings = {
      ...(this.consecutiveCount !== undefined ? { consecutiveCount: this.consecutiveCount } : {}),
      ...(this.consistencyLevel !== undefined ? { consistencyLevel: this.consistencyLevel } : {}),
    };
    return { settings, body };
  }

  /** setting := ':' 'set' name '=' value */
  private parseSetting(): void {
    this.expectPunct(':');
    this.expectWord('set');
    const name = this.next();
    this.expectPunct('=');
    const value = this.next();
    if (name.kind === 'ident' && name.text === 'consecutiveCount') {
      if (this.consecutiveCount !== undefined) this.fail(name, 'consecutiveCount is set twice');
      const count = value.value;
      if (value.kind !== 'number' || typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > CONSECUTIVE_COUNT_MAX) {
        this.fail(value, `consecutiveCount must be an integer from 1 to ${CONSECUTIVE_COUNT_MAX}`);
      }
      this.consecutiveCount = count as number;
    } else if (name.kind === 'ident' && name.text === 'consistencyLevel') {
      if (this.consistencyLevel !== undefined) this.fail(name, 'consistencyLevel is set twice');
      if (value.kind !== 'ident' || !(CONSISTENCY_LEVELS as readonly string[]).includes(value.text)) this.fail(value, 'consistencyLevel must be ONE, QUORUM or ALL');
      this.consistencyLevel = value.text as ConsistencyLevel;
    } else {
      this.fail(name, 'unknown setting; expected consecutiveCount or consistencyLevel');
    }
  }

  /** statement := if | return */
  private parseStatement(): Statement {
    if (this.isWord('if')) return this.parseIf();
    if (this.isWord('return')) return this.parseReturn();
    return this.fail(this.peek(), "expected 'if' or 'return'");
  }

  /** if := 'if' '(' condition ')' '{' statement* '}' */
  private parseIf(): Statement {
    const keyword = this.expectWord('if');
    this.conditionals++;
    if (this.conditionals > CONDITIONALS_MAX) this.fail(keyword, `more than ${CONDITIONALS_MAX} conditionals`);
    this.expectPunct('(');
    const condition = this.parseOr();
    this.expectPunct(')');
    const open = this.expectPunct('{');
    this.enter(open);
    const body: Statement[] = [];
    while (!this.isPunct('}')) {
      if (this.peek().kind === 'eof') this.fail(this.peek(), "expected '}'");
      body.push(this.parseStatement());
    }
    this.next();
    this.depth--;
    return { kind: 'if', condition, body };
  }

  /** return := 'return' ('new' 'AlarmStatus' '(' status ')' | status) ';'?  where status := STATE (',' STRING)? */
  private parseReturn(): Statement {
    this.expectWord('return');
    const wrapped = this.isWord('new');
    if (wrapped) {
      this.next();
      this.expectWord('AlarmStatus');
      this.expectPunct('(');
    }
    const stateToken = this.next();
    if (stateToken.kind !== 'ident' || !(ALARM_STATES as readonly string[]).includes(stateToken.text)) this.fail(stateToken, 'expected OK, WARNING or CRITICAL');
    let message: string | null = null;
    if (this.isPunct(',')) {
      this.next();
      message = this.expectString(STATUS_MESSAGE_LENGTH_MAX, 'status message');
    }
    if (wrapped) this.expectPunct(')');
    if (this.isPunct(';')) this.next();
    return { kind: 'return', state: stateToken.text as AlarmState, message };
  }

  /** or := and ('||' and)* */
  private parseOr(): Condition {
    let left = this.parseAnd();
    while (this.isPunct('||')) {
      this.next();
      left = { kind: 'or', left, right: this.parseAnd() };
    }
    return left;
  }

  /** and := primary ('&&' primary)* */
  private parseAnd(): Condition {
    let left = this.parsePrimary();
    while (this.isPunct('&&')) {
      this.next();
      left = { kind: 'and', left, right: this.parsePrimary() };
    }
    return left;
  }

  /** primary := '(' or ')' | operand op operand */
  private parsePrimary(): Condition {
    if (this.isPunct('(')) {
      this.enter(this.next());
      const inner = this.parseOr();
      this.expectPunct(')');
      this.depth--;
      return inner;
    }
    const left = this.parseOperand();
    const opToken = this.next();
    const op = opToken.text as CompareOp;
    // A token's text includes its quotes, so only punctuation and the words regex/nregex match.
    if (!(COMPARE_OPS as readonly string[]).includes(op)) this.fail(opToken, 'expected a comparison (==, !=, >=, <=, >, <, regex, nregex)');
    const rightToken = this.peek();
    const right = this.parseOperand();
    if ((op === 'regex' || op === 'nregex') && right.kind !== 'string') this.fail(rightToken, `${op} needs a quoted regular expression on its right`);
    if ((op === 'regex' || op === 'nregex') && right.kind === 'string') this.checkRegex(right.value, rightToken);
    return { kind: 'compare', op, left, right };
  }

  private checkRegex(pattern: string, token: Token): void {
    try {
      new RegExp(pattern);
    } catch {
      this.fail(token, 'invalid regular expression');
    }
  }

  /** operand := metric | NUMBER | '-' NUMBER | STRING | previous(metric) | rate(metric) | percentage(operand, operand) */
  private parseOperand(): Operand {
    const token = this.peek();
    if (token.kind === 'number' && !Number.isFinite(token.value)) this.fail(token, 'number out of range');
    if (token.kind === 'number') return { kind: 'number', value: this.next().value as number };
    if (token.kind === 'punct' && token.text === '-' && this.peek(1).kind === 'number') {
      this.next();
      return { kind: 'number', value: -(this.next().value as number) };
    }
    if (token.kind === 'string') return { kind: 'string', value: this.expectString(STRING_LITERAL_LENGTH_MAX, 'string') };
    if (token.kind === 'ident' && token.text === 'metric') return this.parseMetric();
    if (token.kind === 'ident' && (token.text === 'previous' || token.text === 'rate')) {
      this.next();
      this.expectPunct('(');
      const metric = this.parseMetric();
      this.expectPunct(')');
      return { kind: token.text, metric };
    }
    if (token.kind === 'ident' && token.text === 'percentage') {
      this.next();
      this.enter(this.expectPunct('('));
      const part = this.parseOperand();
      this.expectPunct(',');
      const whole = this.parseOperand();
      this.expectPunct(')');
      this.depth--;
      return { kind: 'percentage', part, whole };
    }
    return this.fail(token, "expected metric['name'], a number, a string, previous(), rate() or percentage()");
  }

  /** metric := 'metric' '[' STRING ']' */
  private parseMetric(): MetricRef {
    this.expectWord('metric');
    this.expectPunct('[');
    const nameToken = this.peek();
    const name = this.expectString(METRIC_NAME_IN_CRITERIA_MAX, 'metric name');
    if (name === '') this.fail(nameToken, 'metric name is empty');
    this.expectPunct(']');
    return { kind: 'metric', name };
  }
}

/** Parses alarm criteria; throws AlarmParseError with the line, column and token of the first error. */
export function parseCriteria(source: string): Criteria {
  return new Parser(tokenize(source)).parseCriteria();
}
