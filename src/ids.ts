import { customAlphabet } from 'nanoid';

/** Opaque random ids, like GitBook's (20 alphanumeric characters, ~119 bits). */
export const newId = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 20);
