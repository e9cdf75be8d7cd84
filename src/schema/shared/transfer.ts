/** The input of a transfer to another organization (collections and spaces). */
import { builder } from '../../builder.ts';

export const TransferInput = builder.inputType('TransferInput', {
  fields: (t) => ({ organization: t.string({ required: true, description: 'Id of the target organization' }) }),
});
