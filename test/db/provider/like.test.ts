import { describe, expect, it } from 'vitest';
import { containsInsensitive, escapeLike } from '../../../src/db/provider/like.ts';

describe('escapeLike', () => {
  it('escapes the wildcards and the escape character', () => {
    expect(escapeLike('50%_off\\now')).toBe('50\\%\\_off\\\\now');
    expect(escapeLike('plain')).toBe('plain');
  });
});

describe('containsInsensitive', () => {
  it('escapes the value and asks for ILIKE on PostgreSQL', () => {
    expect(containsInsensitive('postgresql', 'a_b')).toEqual({ contains: 'a\\_b', mode: 'insensitive' });
  });

  it('passes a value without wildcards through on SQLite, and gives up on one with them', () => {
    expect(containsInsensitive('sqlite', 'back\\slash')).toEqual({ contains: 'back\\slash' });
    expect(containsInsensitive('sqlite', '100%')).toBeNull();
  });
});
