/**
 * Expressions of documents: values of the space's and the page's variables,
 * operators, `if` blocks, `deterministic-only`, and every way an expression
 * can be wrong (not parsing, an unknown variable, a call, a prototype)
 * answered as an error on its node, never a throw.
 */
import { describe, expect, it } from 'vitest';
import { evaluateDocument, evaluateExpression, type EvaluationScope } from '../../../src/content/document/evaluate.ts';
import { markdownToDocument } from '../../../src/content/document/markdown-parse.ts';
import type { JSONDocument } from '../../../src/content/document/model.ts';
import { nodeText } from '../../../src/content/document/text.ts';

const scope: EvaluationScope = { space: { product: 'Acme', version: '2.1', seats: 5, beta: false }, page: { plan: 'pro' } };

describe('evaluateExpression', () => {
  it.each([
    ['space.vars.product', 'Acme'],
    ['page.vars.plan', 'pro'],
    ['space.vars.seats * 2 + 1', 11],
    ['space.vars.product + " " + space.vars.version', 'Acme 2.1'],
    ['space.vars.seats > 3 ? "many" : "few"', 'many'],
    ['!space.vars.beta && page.vars.plan === "pro"', true],
    ['space.vars["product"]', 'Acme'],
    ['visitor.claims.role ?? "guest"', 'guest'],
    ['space.vars.product.length', 4],
  ])('%s is %j', (expression, value) => {
    expect(evaluateExpression(expression, scope)).toEqual({ value });
  });

  it.each([
    ['space.vars.missing', 'unknown variable space.vars.missing'],
    ['nothing', 'unknown variable nothing'],
    ['space.vars.product(', 'does not parse'],
    ['', 'empty expression'],
    ['space.vars.product.toString()', 'functions cannot be called'],
    ['space.constructor', 'unknown variable space.constructor'],
    ['space["__proto__"]', 'unknown variable space["__proto__"]'],
    ['space.vars.product.constructor', 'cannot read "constructor"'],
    ['this', 'not supported'],
    ['space.vars', 'space.vars is not a value'],
  ])('%s is an error', (expression, message) => {
    const result = evaluateExpression(expression, scope);
    expect(result).toHaveProperty('error');
    expect((result as { error: string }).error).toContain(message);
  });

  it('leaves what reads a visitor in deterministic-only mode', () => {
    expect(evaluateExpression('visitor.claims.plan == "pro"', scope, 'deterministic-only')).toEqual({ skipped: true });
    expect(evaluateExpression('space.vars.product', scope, 'deterministic-only')).toEqual({ value: 'Acme' });
  });

  it('refuses an expression over 1,024 characters', () => {
    expect(evaluateExpression(`"${'x'.repeat(1100)}"`, scope)).toEqual({ error: 'longer than 1024 characters' });
  });
});

describe('evaluateDocument', () => {
  const ifBlock = (expression: string, text: string) => ({
    object: 'block' as const,
    type: 'if',
    data: { expression },
    nodes: [{ object: 'block' as const, type: 'paragraph', nodes: [{ object: 'text' as const, leaves: [{ object: 'leaf' as const, text, marks: [] }] }] }],
  });

  it('replaces inline expressions with their values in the text, and marks the wrong ones', () => {
    const { document } = markdownToDocument('Buy <code class="expression">space.vars.product</code> <code class="expression">space.vars.version</code> for <code class="expression">space.vars.nope</code>.\n');
    const evaluated = evaluateDocument(document, scope);
    const paragraph = evaluated.nodes[0]!;
    expect(nodeText(paragraph)).toBe('Buy Acme 2.1 for .');
    const failed = paragraph.nodes!.find((n) => n.type === 'expression')!;
    expect(failed.data).toEqual({ expression: 'space.vars.nope', error: 'unknown variable space.vars.nope' });
    expect(document.nodes[0]!.nodes!.filter((n) => n.type === 'expression')).toHaveLength(3); // the stored document is not changed
  });

  it('keeps the content of an if block whose condition holds, drops the others, and keeps a wrong one with its error', () => {
    const document: JSONDocument = {
      object: 'document',
      data: {},
      nodes: [ifBlock('space.vars.seats > 1', 'Teams'), ifBlock('space.vars.beta', 'Beta only'), ifBlock('space.vars.x', 'Broken'), ifBlock('visitor.claims.pro', 'Pro')],
    };
    const all = evaluateDocument(document, scope);
    expect(all.nodes.map((n) => [n.type, nodeText(n)])).toEqual([
      ['paragraph', 'Teams'],
      ['if', 'Broken'],
    ]);
    expect(all.nodes[1]!.data).toEqual({ expression: 'space.vars.x', error: 'unknown variable space.vars.x' });
    const deterministic = evaluateDocument(document, scope, 'deterministic-only');
    expect(deterministic.nodes.map((n) => [n.type, nodeText(n)])).toEqual([
      ['paragraph', 'Teams'],
      ['if', 'Broken'],
      ['if', 'Pro'],
    ]);
  });

  it('answers the same document when there is nothing to evaluate', () => {
    const { document } = markdownToDocument('Plain text.\n');
    expect(evaluateDocument(document, scope)).toBe(document);
  });
});
