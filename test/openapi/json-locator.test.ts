/**
 * The JSON locator (src/openapi/json-locator.ts): where values start, by
 * path, through escapes, nesting and arrays, and their lines and columns.
 */
import { describe, expect, it } from 'vitest';
import { jsonValueOffsets, lineColumns } from '../../src/openapi/json-locator.ts';

describe('jsonValueOffsets', () => {
  const text = '{\n  "a\\"b": {"c": [1, {"d": "x\\\\"}, [ ]]},\n  "e/f": "}",\n  "": {"g": null}\n}';

  it('finds values by path, in objects and arrays, past escaped quotes and brackets in strings', () => {
    const paths = [[], ['a"b'], ['a"b', 'c'], ['a"b', 'c', '1', 'd'], ['a"b', 'c', '2'], ['e/f'], ['', 'g']];
    const at = lineColumns(text);
    const found = jsonValueOffsets(text, paths).map((offset) => (offset < 0 ? null : { ...at(offset), text: text.slice(offset, offset + 4) }));
    expect(found).toEqual([
      { line: 1, column: 1, text: '{\n  ' },
      { line: 2, column: 11, text: '{"c"' },
      { line: 2, column: 17, text: '[1, ' },
      { line: 2, column: 27, text: '"x\\\\' },
      { line: 2, column: 35, text: '[ ]]' },
      { line: 3, column: 10, text: '"}",' },
      { line: 4, column: 13, text: 'null' },
    ]);
  });

  it('answers -1 for what is not there', () => {
    expect(jsonValueOffsets(text, [['nope'], ['a"b', 'c', '9'], ['e/f', 'x']])).toEqual([-1, -1, -1]);
  });

  it('walks nesting deeper than a recursive walk could', () => {
    const depth = 100_000;
    const deep = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    expect(jsonValueOffsets(deep, [Array.from({ length: depth }, () => '0')])).toEqual([depth]);
  });
});
