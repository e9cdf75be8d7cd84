/**
 * Checks a REST request's values (JSON body, query string, path) strictly
 * against the GraphQL input types of the operation's variables, before
 * execution: GraphQL's own input coercion is lenient where a JSON API must not
 * be (a single value becomes a one-element list), and its messages speak of
 * variables rather than of the fields the caller sent. A failure is a 400
 * naming the field as sent (`spaces: must be an array`, `parent.title: must be
 * a string`), so nothing reaches a resolver and nothing is written.
 */
import {
  GraphQLError,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLInputType,
  type GraphQLScalarType,
} from 'graphql';
import { InvalidInputError } from '../errors/index.ts';

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

function invalid(field: string, message: string): InvalidInputError {
  return new InvalidInputError(field ? `${field}: ${message}` : message);
}

const join = (path: string, name: string) => (path ? `${path}.${name}` : name);

function checkScalar(value: unknown, type: GraphQLScalarType, field: string): void {
  switch (type.name) {
    case 'String':
    case 'ID':
      if (typeof value !== 'string') throw invalid(field, 'must be a string');
      return;
    case 'Int':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(field, 'must be an integer');
      if (value < INT_MIN || value > INT_MAX) throw invalid(field, `must be an integer from ${INT_MIN} to ${INT_MAX}`);
      return;
    case 'Float':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(field, 'must be a number');
      return;
    case 'Boolean':
      if (typeof value !== 'boolean') throw invalid(field, 'must be true or false');
      return;
  }
  // Custom scalars (value sets, DateTime, JSON) check themselves; their message says what is expected.
  try {
    type.parseValue(value);
  } catch (error) {
    throw invalid(field, error instanceof GraphQLError || error instanceof Error ? error.message : 'is not valid');
  }
}

/**
 * `value` checked against `type`; returns it with the fields its input
 * objects do not declare left out (like most JSON APIs, and GitBook's,
 * unknown body fields are ignored rather than refused). `field` names the
 * value in messages (`''` for the body itself).
 */
export function checkInput(value: unknown, type: GraphQLInputType, field: string): unknown {
  if (value === undefined || value === null) {
    if (isNonNullType(type)) throw invalid(field, value === null ? 'must not be null' : 'is required');
    return value;
  }
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (!Array.isArray(value)) throw invalid(field, 'must be an array');
    return value.map((item, i) => checkInput(item, inner.ofType, `${field}[${i}]`));
  }
  if (isInputObjectType(inner)) {
    if (typeof value !== 'object' || Array.isArray(value)) throw invalid(field, 'must be an object');
    const given = value as Record<string, unknown>;
    const checked: Record<string, unknown> = {};
    for (const input of Object.values(inner.getFields())) {
      if (given[input.name] === undefined && input.defaultValue !== undefined) continue;
      const fieldValue = checkInput(given[input.name], input.type, join(field, input.name));
      if (fieldValue !== undefined) checked[input.name] = fieldValue;
    }
    return checked;
  }
  if (isEnumType(inner)) {
    if (typeof value !== 'string' || !inner.getValue(value)) {
      throw invalid(field, `must be one of ${inner.getValues().map((v) => v.name).join(', ')}`);
    }
    return value;
  }
  checkScalar(value, getNamedType(inner) as GraphQLScalarType, field);
  return value;
}

/**
 * A query-string value as the variable's scalar type (`limit=10` is the Int
 * 10, `published=true` the Boolean true), then checked like a body value; a
 * 400 names the parameter.
 */
export function coerceQueryValue(name: string, raw: string, type: GraphQLInputType): unknown {
  const named = getNamedType(type);
  let value: unknown = raw;
  switch (named.name) {
    case 'Int':
      if (!/^-?\d+$/.test(raw)) throw invalid(name, 'must be an integer');
      value = Number(raw);
      break;
    case 'Float':
      if (raw.trim() === '' || Number.isNaN(Number(raw))) throw invalid(name, 'must be a number');
      value = Number(raw);
      break;
    case 'Boolean':
      if (raw !== 'true' && raw !== 'false') throw invalid(name, 'must be true or false');
      value = raw === 'true';
      break;
  }
  return checkInput(value, isNonNullType(type) ? type.ofType : type, name);
}
