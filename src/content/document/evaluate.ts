/**
 * Expressions of documents, evaluated on page reads (`evaluated=true` or
 * `deterministic-only`): inline `expression` nodes become the text of their
 * value, `if` blocks keep their content when their condition holds and go
 * when it does not.
 *
 * Expressions are JavaScript-like (`space.vars.product`, `page.vars.count > 1
 * ? "many" : "one"`), parsed by jsep and evaluated here over an AST of a few
 * kinds only: literals, the roots `space`, `page` and `visitor`, member access
 * on them (own entries only, never a prototype), unary, binary and logical
 * operators, and the conditional. Calls, `this`, assignments and anything
 * else are refused, so an expression reads the variables and nothing else.
 *
 * An expression that does not parse, reads an unknown variable or is refused
 * keeps its node, with `data.error` saying why: the read answers, never fails.
 * `visitor` (a site visitor's claims) is not deterministic: `deterministic-only`
 * leaves the expressions that read it as they are; a full evaluation reads the
 * claims of the visitor a site token names, and without one they read as undefined.
 */
import jsep from 'jsep';
import type { Variables } from '../snapshot.ts';
import type { JSONDocument, JSONNode } from './model.ts';

export type EvaluationMode = 'all' | 'deterministic-only';

export interface EvaluationScope {
  /** The space's variables (`space.vars`). */
  space: Variables;
  /** The page's variables (`page.vars`). */
  page: Variables;
  /** The visitor's claims (`visitor.claims`): a site token's; none for anyone else. */
  visitor?: Readonly<Record<string, unknown>> | null;
}

/** Expression's maxLength in the wire contract. */
const MAX_EXPRESSION_LENGTH = 1024;
/** Nesting an expression may have; deeper ones are refused before evaluating. */
const MAX_DEPTH = 64;
/** Roots whose values depend on who reads: `deterministic-only` leaves what reads them. */
const VISITOR_ROOTS = new Set(['visitor']);

class ExpressionError extends Error {}

/** A read-only value an expression can hold: a variable map, a value, or undefined. */
type Value = string | number | boolean | null | undefined | Scope;
/** Own entries only: a Map never reaches a prototype. `open`: a missing entry is undefined (claims) rather than an error. */
interface Scope {
  readonly entries: ReadonlyMap<string, Value>;
  readonly name: string;
  readonly open: boolean;
}

function scopeOf(name: string, values: Record<string, Value>, open = false): Scope {
  return { entries: new Map(Object.entries(values)), name, open };
}

function isScope(value: Value): value is Scope {
  return typeof value === 'object' && value !== null;
}

/**
 * Claims as values an expression reads: objects become open scopes (a missing claim is
 * undefined), arrays scopes of their indexes, other values what they are (a claim of another
 * kind reads as undefined).
 */
function claimValue(name: string, value: unknown, depth = 0): Value {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value !== 'object' || depth >= MAX_DEPTH) return undefined;
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value as Record<string, unknown>);
  return { entries: new Map(entries.map(([key, item]) => [key, claimValue(`${name}.${key}`, item, depth + 1)])), name, open: true };
}

function rootsOf(scope: EvaluationScope): Scope {
  return scopeOf('', {
    space: scopeOf('space', { vars: scopeOf('space.vars', scope.space) }),
    page: scopeOf('page', { vars: scopeOf('page.vars', scope.page) }),
    visitor: scopeOf('visitor', { claims: claimValue('visitor.claims', scope.visitor ?? {}) }, true),
  });
}

function parse(expression: string): jsep.Expression {
  if (expression.length > MAX_EXPRESSION_LENGTH) throw new ExpressionError(`longer than ${MAX_EXPRESSION_LENGTH} characters`);
  if (expression.trim() === '') throw new ExpressionError('empty expression');
  try {
    return jsep(expression);
  } catch (error) {
    throw new ExpressionError(`does not parse: ${(error as Error).message}`);
  }
}

/** The root names an expression reads (`space`, `page`, `visitor`, ...). */
function rootsRead(node: jsep.Expression, out = new Set<string>(), depth = 0): Set<string> {
  if (depth > MAX_DEPTH) throw new ExpressionError('nested too deeply');
  if (node.type === 'Identifier') out.add(node.name as string);
  else if (node.type === 'MemberExpression') {
    rootsRead(node.object as jsep.Expression, out, depth + 1);
    if (node.computed) rootsRead(node.property as jsep.Expression, out, depth + 1);
  } else {
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const item of value) if (item && typeof item === 'object' && 'type' in item) rootsRead(item as jsep.Expression, out, depth + 1);
      if (value && typeof value === 'object' && !Array.isArray(value) && 'type' in value) rootsRead(value as jsep.Expression, out, depth + 1);
    }
  }
  return out;
}

function member(object: Value, key: string | number, path: string): Value {
  if (!isScope(object)) {
    if (typeof object === 'string' && key === 'length') return object.length;
    throw new ExpressionError(`cannot read "${key}" of ${object === undefined ? 'undefined' : JSON.stringify(object)}`);
  }
  const name = String(key);
  if (object.entries.has(name)) return object.entries.get(name);
  if (object.open) return undefined;
  throw new ExpressionError(`unknown variable ${path}`);
}

function pathOf(node: jsep.Expression): string {
  if (node.type === 'Identifier') return node.name as string;
  if (node.type === 'MemberExpression') {
    const property = node.property as jsep.Expression;
    const key = node.computed ? `[${property.type === 'Literal' ? JSON.stringify(property.value) : '…'}]` : `.${property.name as string}`;
    return `${pathOf(node.object as jsep.Expression)}${key}`;
  }
  return '(…)';
}

function primitive(value: Value): string | number | boolean | null | undefined {
  if (isScope(value)) throw new ExpressionError(`${value.name} is not a value`);
  return value;
}

function evaluateNode(node: jsep.Expression, roots: Scope, depth: number): Value {
  if (depth > MAX_DEPTH) throw new ExpressionError('nested too deeply');
  switch (node.type) {
    case 'Literal': {
      const value = node.value;
      if (value instanceof RegExp || typeof value === 'bigint') throw new ExpressionError('unsupported literal');
      return value as string | number | boolean | null;
    }
    case 'Identifier': {
      const name = node.name as string;
      if (!roots.entries.has(name)) throw new ExpressionError(`unknown variable ${name}`);
      return roots.entries.get(name);
    }
    case 'MemberExpression': {
      const object = evaluateNode(node.object as jsep.Expression, roots, depth + 1);
      const property = node.property as jsep.Expression;
      let key: string | number;
      if (!node.computed) key = property.name as string;
      else {
        const computed = primitive(evaluateNode(property, roots, depth + 1));
        if (typeof computed !== 'string' && typeof computed !== 'number') throw new ExpressionError('a computed member must be a string or a number');
        key = computed;
      }
      if (node.optional && (object === undefined || object === null)) return undefined;
      return member(object, key, pathOf(node));
    }
    case 'UnaryExpression': {
      const argument = primitive(evaluateNode(node.argument as jsep.Expression, roots, depth + 1));
      switch (node.operator) {
        case '!':
          return !argument;
        case '-':
          return -Number(argument);
        case '+':
          return Number(argument);
        default:
          throw new ExpressionError(`operator ${node.operator as string} is not supported`);
      }
    }
    case 'BinaryExpression': {
      const operator = node.operator as string;
      const left = primitive(evaluateNode(node.left as jsep.Expression, roots, depth + 1));
      // Logical operators short-circuit: the right side of `a && b` is read only when it decides.
      if (operator === '&&') return left ? primitive(evaluateNode(node.right as jsep.Expression, roots, depth + 1)) : left;
      if (operator === '||') return left ? left : primitive(evaluateNode(node.right as jsep.Expression, roots, depth + 1));
      if (operator === '??') return left ?? primitive(evaluateNode(node.right as jsep.Expression, roots, depth + 1));
      const right = primitive(evaluateNode(node.right as jsep.Expression, roots, depth + 1));
      return binary(operator, left, right);
    }
    case 'ConditionalExpression':
      return primitive(evaluateNode(node.test as jsep.Expression, roots, depth + 1))
        ? evaluateNode(node.consequent as jsep.Expression, roots, depth + 1)
        : evaluateNode(node.alternate as jsep.Expression, roots, depth + 1);
    case 'CallExpression':
      throw new ExpressionError('functions cannot be called');
    default:
      throw new ExpressionError(`${node.type} is not supported`);
  }
}

type Primitive = string | number | boolean | null | undefined;

function binary(operator: string, left: Primitive, right: Primitive): Primitive {
  switch (operator) {
    case '==':
    case '===':
      return left === right;
    case '!=':
    case '!==':
      return left !== right;
    case '<':
      return (left as number) < (right as number);
    case '<=':
      return (left as number) <= (right as number);
    case '>':
      return (left as number) > (right as number);
    case '>=':
      return (left as number) >= (right as number);
    case '+':
      return typeof left === 'string' || typeof right === 'string' ? `${display(left)}${display(right)}` : Number(left) + Number(right);
    case '-':
      return Number(left) - Number(right);
    case '*':
      return Number(left) * Number(right);
    case '/':
      return Number(left) / Number(right);
    case '%':
      return Number(left) % Number(right);
    default:
      throw new ExpressionError(`operator ${operator} is not supported`);
  }
}

/** How a value reads in text: strings as they are, numbers and booleans in JavaScript's words, nothing for null and undefined. */
function display(value: Primitive): string {
  return value === null || value === undefined ? '' : String(value);
}

export type ExpressionResult = { value: Primitive } | { error: string } | { skipped: true };

/** Evaluates one expression; `skipped` when `mode` is deterministic-only and it reads a visitor. */
export function evaluateExpression(expression: string, scope: EvaluationScope, mode: EvaluationMode = 'all'): ExpressionResult {
  try {
    const ast = parse(expression);
    if (mode === 'deterministic-only' && [...rootsRead(ast)].some((root) => VISITOR_ROOTS.has(root))) return { skipped: true };
    return { value: primitive(evaluateNode(ast, rootsOf(scope), 0)) };
  } catch (error) {
    if (error instanceof ExpressionError) return { error: error.message };
    throw error;
  }
}

/**
 * Whether a visitor with `claims` sees what `condition` guards (a site space's or a section's):
 * no condition, everyone; one that does not evaluate, no one.
 */
export function conditionHolds(condition: string | null | undefined, claims: Readonly<Record<string, unknown>>): boolean {
  if (!condition || condition.trim() === '') return true;
  const result = evaluateExpression(condition, { space: {}, page: {}, visitor: claims });
  return 'value' in result && Boolean(result.value);
}

const textNode = (text: string): JSONNode => ({ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] });

/** Whether a document holds anything to evaluate (most do not: reads skip the copy). */
function hasExpressions(nodes: readonly JSONNode[] | undefined): boolean {
  for (const node of nodes ?? []) {
    if ((node.type === 'expression' && node.object === 'inline') || (node.type === 'if' && node.object === 'block')) return true;
    if (hasExpressions(node.nodes) || hasExpressions(node.fragments as JSONNode[] | undefined)) return true;
  }
  return false;
}

function evaluateNodes(nodes: readonly JSONNode[], scope: EvaluationScope, mode: EvaluationMode): JSONNode[] {
  const out: JSONNode[] = [];
  for (const node of nodes) {
    if (node.object === 'inline' && node.type === 'expression') {
      const expression = typeof node.data?.expression === 'string' ? node.data.expression : '';
      const result = evaluateExpression(expression, scope, mode);
      if ('value' in result) out.push(textNode(display(result.value)));
      else if ('error' in result) out.push({ ...node, data: { ...node.data, expression, error: result.error } });
      else out.push(node);
      continue;
    }
    const copy: JSONNode = { ...node };
    if (node.nodes) copy.nodes = evaluateNodes(node.nodes, scope, mode);
    if (Array.isArray(node.fragments)) copy.fragments = evaluateNodes(node.fragments as JSONNode[], scope, mode);
    if (node.object === 'block' && node.type === 'if') {
      const expression = typeof node.data?.expression === 'string' ? node.data.expression : '';
      const result = evaluateExpression(expression, scope, mode);
      if ('value' in result) {
        if (result.value) out.push(...(copy.nodes ?? []));
        continue;
      }
      if ('error' in result) copy.data = { ...node.data, expression, error: result.error };
    }
    out.push(copy);
  }
  return mergeTexts(out);
}

/** Adjacent text nodes as one (an expression's value joins the text around it, as the editor keeps text). */
function mergeTexts(nodes: JSONNode[]): JSONNode[] {
  const out: JSONNode[] = [];
  for (const node of nodes) {
    const last = out[out.length - 1];
    if (node.object === 'text' && last?.object === 'text') out[out.length - 1] = { ...last, leaves: [...(last.leaves ?? []), ...(node.leaves ?? [])] };
    else out.push(node);
  }
  return out;
}

/** The document with its expressions evaluated (the same object when it has none). */
export function evaluateDocument(document: JSONDocument, scope: EvaluationScope, mode: EvaluationMode = 'all'): JSONDocument {
  if (!hasExpressions(document.nodes)) return document;
  return { ...document, nodes: evaluateNodes(document.nodes, scope, mode) };
}
